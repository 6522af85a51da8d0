// The loader and the dispatch loop: the ELF code object through LLVM's Object library (sections, symbols, the
// NT_AMDGPU_METADATA note through BinaryFormat's MsgPack document), the kernel descriptor, then per dispatch every
// workgroup, each a set of wave32 waves scheduled at barriers.
//
// Facts used (https://llvm.org/docs/AMDGPUUsage.html):
//   "Kernel Descriptor": the 64-byte <kernel>.kd object (llvm/Support/AMDHSAKernelDescriptor.h spells its fields and
//     bit ranges; we use those definitions rather than restating them).
//   "Code Object Metadata" (V4/V5): amdhsa.kernels[] with .name, .symbol, .kernarg_segment_size, .args[] ...
//   "Initial Kernel Execution State": user SGPRs in the order private segment buffer (4), dispatch ptr (2), queue ptr
//     (2), kernarg segment ptr (2), dispatch id (2), flat scratch init (2), private segment size (1), USER_SGPR_COUNT
//     of them in all; then (targets without architected SGPRs: GFX11) the system SGPRs, each present when its
//     COMPUTE_PGM_RSRC2 bit is set: workgroup ID X, Y, Z (ENABLE_SGPR_WORKGROUP_ID_X/Y/Z), workgroup info, private
//     segment wavefront offset (ENABLE_PRIVATE_SEGMENT). GFX12 has architected SGPRs: the workgroup IDs are in TTMP9
//     (X) and TTMP7 (Y in [15:0], Z in [31:16]). GFX11+ deliver the work-item IDs packed in v0 ("Packed work-item
//     IDs" in the processor table): X in [9:0], Y in [19:10], Z in [29:20], as many as ENABLE_VGPR_WORKITEM_ID says
//     (0: X, 1: X Y, 2: X Y Z).
//   "Processors" table: GFX11 and GFX12 have "Architected flat scratch": the hardware sets the wave's scratch base,
//     scratch_* instructions address the lane's private memory from it, and no user SGPR carries it.
#include <algorithm>
#include <cstdio>
#include <map>
#include <memory>
#include <optional>

#include <llvm/BinaryFormat/ELF.h>
#include <llvm/BinaryFormat/MsgPackDocument.h>
#include <llvm/DebugInfo/DWARF/DWARFContext.h>
#include <llvm/Object/ELFObjectFile.h>
#include <llvm/Support/AMDHSAKernelDescriptor.h>
#include <llvm/Support/MemoryBuffer.h>

#include "simt/amdgpu_sim/machine.h"
#include "simt/amdgpu_sim/machine/decoder.h"
#include "simt/amdgpu_sim/machine/lds_race_detector.h"
#include "simt/amdgpu_sim/machine/schedule.h"
#include "simt/amdgpu_sim/machine/semantics.h"
#include "simt/amdgpu_sim/machine/wave.h"

namespace tp::amdgpu_sim {
namespace machine {

namespace {
std::string hex(uint64_t v) {
  char b[24];
  std::snprintf(b, sizeof b, "0x%llx", static_cast<unsigned long long>(v));
  return b;
}
}  // namespace

void fail(const wave& w, const op& o, const std::string& what) {
  const int32_t idx = w.prog->index_at(o.pc);
  const std::string text = idx >= 0 ? w.prog->text[std::size_t(idx)] : std::string();
  throw sim_error(what + " in kernel " + (w.wg && w.wg->kernel_name ? *w.wg->kernel_name : std::string("?")) +
                  " at pc " + hex(w.prog->text_address + o.pc) + " (wave " + std::to_string(w.id) + "): " + text);
}

void exec_unimplemented(wave& w, const op& o) { fail(w, o, "unimplemented " + w.prog->mnemonics[o.mnemonic]); }
void exec_undecodable(wave& w, const op& o) {
  fail(w, o, "no executable instruction (" + w.prog->mnemonics[o.mnemonic] + ")");
}

}  // namespace machine

namespace {

using namespace machine;
namespace kd = llvm::amdhsa;

struct kernel_entry {
  kernel_info info;
  kd::kernel_descriptor_t desc{};
  uint32_t entry_index = 0;  // op index of the first instruction
};

uint64_t uint_of(llvm::msgpack::DocNode& n) {
  if (n.getKind() == llvm::msgpack::Type::UInt) return n.getUInt();
  if (n.getKind() == llvm::msgpack::Type::Int) return uint64_t(n.getInt());
  return 0;
}
std::string string_of(llvm::msgpack::DocNode& n) {
  return n.getKind() == llvm::msgpack::Type::String ? n.getString().str() : std::string();
}

bool has_architected_sgprs(const std::string& arch) { return arch.rfind("gfx12", 0) == 0; }

class loaded_code_object final : public code_object {
 public:
  explicit loaded_code_object(std::span<const uint8_t> elf) { load(elf); }

  const std::string& arch() const override { return arch_; }
  const std::vector<kernel_info>& kernels() const override { return infos_; }
  const kernel_info* find(const std::string& name) const override {
    for (const kernel_info& k : infos_)
      if (k.name == name) return &k;
    return nullptr;
  }
  code_location locate(uint64_t pc) const override {
    code_location at;
    at.pc = pc;
    const int32_t idx = pc >= prog_.text_address ? prog_.index_at(pc - prog_.text_address) : -1;
    if (idx >= 0) at.instruction = prog_.text[std::size_t(idx)];
    if (!dwarf_) return at;
    source_frame f = frame_at(pc);
    if (f.file.empty()) return at;
    std::string note;
    if (f.line == 0) {
      // Optimised code gives some instructions line 0 (merged or hoisted code) inside a function that has lines:
      // name the nearest line before the PC in the same function, and say so.
      for (uint64_t back = pc; back >= prog_.text_address + 4 && pc - back < 256;) {
        back -= 4;
        if (prog_.index_at(back - prog_.text_address) < 0) continue;
        const source_frame b = frame_at(back);
        if (b.line != 0 && b.function == f.function) {
          f = b;
          note = "; line 0 at this pc, the nearest line before it";
          break;
        }
      }
    }
    at.source = f.file + ":" + std::to_string(f.line) + " (" + f.function + note + ")";
    return at;
  }
  void run(const dispatch& d, global_memory& mem) override;

  // The innermost frame at the PC outside the dialect's simt/simt.h (its one-line smem/gmem ld/st wrappers: the
  // source is the kernel line that called them, as the CPU emulator's std::source_location reports it); line 0 when
  // the compiler gave the instruction none; file empty when the line tables say nothing.
  struct source_frame {
    std::string file, function;
    uint32_t line = 0;
  };
  source_frame frame_at(uint64_t pc) const {
    llvm::DILineInfoSpecifier spec(llvm::DILineInfoSpecifier::FileLineInfoKind::AbsoluteFilePath,
                                   llvm::DILineInfoSpecifier::FunctionNameKind::ShortName);
    const llvm::DIInliningInfo chain =
        dwarf_->getInliningInfoForAddress({pc, llvm::object::SectionedAddress::UndefSection}, spec);
    for (uint32_t i = 0; i < chain.getNumberOfFrames(); ++i) {
      const llvm::DILineInfo& f = chain.getFrame(i);
      if (f.FileName == llvm::DILineInfo::BadString) continue;
      if (f.FileName.ends_with("/simt/simt.h") && i + 1 < chain.getNumberOfFrames()) continue;
      const std::string function = f.FunctionName == llvm::DILineInfo::BadString ? "?" : f.FunctionName;
      // template arguments are in the kernel's symbol already
      return {f.FileName, function.substr(0, function.find('<')), f.Line};
    }
    return {};
  }

  const program& prog() const { return prog_; }
  uint64_t executed_instructions = 0;

 private:
  void load(std::span<const uint8_t> elf);
  void check_launchable(const kernel_entry& k, const dispatch& d) const;

  std::string arch_;
  program prog_;
  std::vector<kernel_info> infos_;
  std::map<std::string, kernel_entry> entries_;
  std::vector<std::unique_ptr<wave>> waves_;  // reused across dispatches (each is ~33 KiB of registers)

  // The DWARF of the object (line tables and the inlining tree: -gline-tables-only gives both), for locate().
  std::unique_ptr<llvm::object::ELF64LEObjectFile> elf_;
  std::unique_ptr<llvm::DWARFContext> dwarf_;
};

void loaded_code_object::load(std::span<const uint8_t> bytes) {
  llvm::MemoryBufferRef ref(llvm::StringRef(reinterpret_cast<const char*>(bytes.data()), bytes.size()), "code object");
  auto obj_or = llvm::object::ELF64LEObjectFile::create(ref);
  if (!obj_or) throw sim_error("not an AMDGPU ELF code object: " + llvm::toString(obj_or.takeError()));
  elf_ = std::make_unique<llvm::object::ELF64LEObjectFile>(std::move(*obj_or));
  const llvm::object::ELF64LEObjectFile& obj = *elf_;
  if (obj.getELFFile().getHeader().e_machine != llvm::ELF::EM_AMDGPU) throw sim_error("ELF code object is not for AMDGPU (e_machine)");
  if (auto cpu = obj.tryGetCPUName()) arch_ = cpu->str();
  if (arch_.empty()) throw sim_error("code object names no AMDGPU processor (e_flags)");
  if (!arch_supported(arch_))
    throw sim_error("the simulator does not execute " + arch_ + " (it models gfx1200/gfx1201 and gfx1100-gfx1102)");

  // .text, and every section by address (for the descriptors in .rodata).
  std::span<const uint8_t> text;
  uint64_t text_addr = 0;
  struct sec {
    uint64_t addr;
    std::span<const uint8_t> data;
  };
  std::vector<sec> sections;
  for (const llvm::object::SectionRef& s : obj.sections()) {
    auto contents = s.getContents();
    if (!contents) continue;
    const std::span<const uint8_t> data(reinterpret_cast<const uint8_t*>(contents->data()), contents->size());
    sections.push_back({s.getAddress(), data});
    auto name = s.getName();
    if (name && *name == ".text") {
      text = data;
      text_addr = s.getAddress();
    }
  }
  if (text.empty()) throw sim_error("code object has no .text");
  prog_ = decode_text(text, text_addr, arch_);
  if (obj.hasDebugInfo()) dwarf_ = llvm::DWARFContext::create(obj);

  // Metadata note.
  const auto& elf = obj.getELFFile();
  llvm::msgpack::Document doc;
  bool have_metadata = false;
  auto shdrs = elf.sections();
  if (!shdrs) throw sim_error("code object section headers: " + llvm::toString(shdrs.takeError()));
  for (const auto& sh : *shdrs) {
    if (sh.sh_type != llvm::ELF::SHT_NOTE) continue;
    llvm::Error err = llvm::Error::success();
    for (const auto& note : elf.notes(sh, err)) {
      if (note.getName() == "AMDGPU" && note.getType() == llvm::ELF::NT_AMDGPU_METADATA) {
        const auto desc = note.getDesc(sh.sh_addralign);
        if (!doc.readFromBlob(llvm::StringRef(reinterpret_cast<const char*>(desc.data()), desc.size()), false))
          throw sim_error("code object metadata note is not valid MessagePack");
        have_metadata = true;
      }
    }
    if (err) throw sim_error("code object notes: " + llvm::toString(std::move(err)));
  }
  if (!have_metadata) throw sim_error("code object has no NT_AMDGPU_METADATA note");

  std::map<std::string, uint64_t> symbols;  // name -> value
  for (const llvm::object::SymbolRef& s : obj.symbols()) {
    auto name = s.getName();
    auto addr = s.getAddress();
    if (name && addr) symbols[name->str()] = *addr;
  }

  auto& root = doc.getRoot();
  if (root.getKind() != llvm::msgpack::Type::Map) throw sim_error("code object metadata is not a map");
  auto& kernels = root.getMap()["amdhsa.kernels"];
  if (kernels.getKind() != llvm::msgpack::Type::Array) throw sim_error("code object metadata has no amdhsa.kernels");
  for (auto& kn : kernels.getArray()) {
    if (kn.getKind() != llvm::msgpack::Type::Map) continue;
    auto& km = kn.getMap();
    kernel_entry e;
    e.info.name = string_of(km[".name"]);
    const std::string symbol = string_of(km[".symbol"]);
    e.info.kernarg_size = uint32_t(uint_of(km[".kernarg_segment_size"]));
    e.info.kernarg_align = uint32_t(uint_of(km[".kernarg_segment_align"]));
    e.info.wavefront_size = uint32_t(uint_of(km[".wavefront_size"]));
    e.info.max_flat_workgroup_size = uint32_t(uint_of(km[".max_flat_workgroup_size"]));
    if (km[".args"].getKind() == llvm::msgpack::Type::Array)
      for (auto& an : km[".args"].getArray()) {
        if (an.getKind() != llvm::msgpack::Type::Map) continue;
        auto& am = an.getMap();
        e.info.args.push_back({string_of(am[".name"]), string_of(am[".value_kind"]), uint32_t(uint_of(am[".offset"])),
                               uint32_t(uint_of(am[".size"]))});
      }
    auto kd_at = symbols.find(symbol);
    if (kd_at == symbols.end()) throw sim_error("kernel " + e.info.name + ": descriptor symbol " + symbol + " missing");
    const uint64_t kd_addr = kd_at->second;
    bool found = false;
    for (const sec& s : sections)
      if (kd_addr >= s.addr && kd_addr + sizeof(kd::kernel_descriptor_t) <= s.addr + s.data.size()) {
        std::memcpy(&e.desc, s.data.data() + (kd_addr - s.addr), sizeof e.desc);
        found = true;
        break;
      }
    if (!found) throw sim_error("kernel " + e.info.name + ": descriptor " + symbol + " is outside every section");
    e.info.group_segment_size = e.desc.group_segment_fixed_size;
    e.info.private_segment_size = e.desc.private_segment_fixed_size;
    const uint64_t entry = kd_addr + uint64_t(e.desc.kernel_code_entry_byte_offset);
    const int32_t idx = entry >= text_addr ? prog_.index_at(entry - text_addr) : -1;
    if (idx < 0) throw sim_error("kernel " + e.info.name + ": entry point " + hex(entry) + " is not an instruction in .text");
    e.entry_index = uint32_t(idx);
    infos_.push_back(e.info);
    entries_.emplace(e.info.name, std::move(e));
  }
}

// The modes and features the interpreter models; anything else stops the launch (never runs approximately).
void loaded_code_object::check_launchable(const kernel_entry& k, const dispatch& d) const {
  const auto& desc = k.desc;
  const uint32_t r1 = desc.compute_pgm_rsrc1, r2 = desc.compute_pgm_rsrc2;
  const uint16_t props = desc.kernel_code_properties;
  const std::string who = "kernel " + k.info.name + ": ";
  if (!AMDHSA_BITS_GET(props, kd::KERNEL_CODE_PROPERTY_ENABLE_WAVEFRONT_SIZE32))
    throw sim_error(who + "wave64 code is not modelled (the simulator executes wave32)");
  if (AMDHSA_BITS_GET(r1, kd::COMPUTE_PGM_RSRC1_FLOAT_ROUND_MODE_32) != 0 ||
      AMDHSA_BITS_GET(r1, kd::COMPUTE_PGM_RSRC1_FLOAT_ROUND_MODE_16_64) != 0)
    throw sim_error(who + "float round mode other than round-to-nearest-even is not modelled");
  if (AMDHSA_BITS_GET(r1, kd::COMPUTE_PGM_RSRC1_FLOAT_DENORM_MODE_32) != 3 ||
      AMDHSA_BITS_GET(r1, kd::COMPUTE_PGM_RSRC1_FLOAT_DENORM_MODE_16_64) != 3)
    throw sim_error(who + "denormal flushing (FLOAT_DENORM_MODE != 3) is not modelled");
  for (auto [bit, what] : {std::pair{kd::KERNEL_CODE_PROPERTY_ENABLE_SGPR_PRIVATE_SEGMENT_BUFFER, "private segment buffer"},
                           std::pair{kd::KERNEL_CODE_PROPERTY_ENABLE_SGPR_QUEUE_PTR, "queue pointer"},
                           std::pair{kd::KERNEL_CODE_PROPERTY_ENABLE_SGPR_DISPATCH_ID, "dispatch id"},
                           std::pair{kd::KERNEL_CODE_PROPERTY_ENABLE_SGPR_FLAT_SCRATCH_INIT, "flat scratch init"},
                           std::pair{kd::KERNEL_CODE_PROPERTY_USES_DYNAMIC_STACK, "dynamic stack"}})
    if (props & bit) throw sim_error(who + "the " + std::string(what) + " user SGPR/feature is not modelled");
  if ((props & kd::KERNEL_CODE_PROPERTY_ENABLE_SGPR_DISPATCH_PTR) && d.dispatch_packet_address == 0)
    throw sim_error(who + "the kernel reads the dispatch packet and the launch gave none (dispatch_packet_address 0)");
  if (AMDHSA_BITS_GET(r2, kd::COMPUTE_PGM_RSRC2_ENABLE_SGPR_WORKGROUP_INFO))
    throw sim_error(who + "the workgroup info SGPR is not modelled");
  if (!has_architected_sgprs(arch_)) {
    // GFX6-GFX11 descriptors carry the IEEE and DX10 clamp mode bits (AMDGPUUsage "compute_pgm_rsrc1"); the model's
    // gfx11 v_max/v_min follow IEEE mode (RDNA3 ISA guide, V_MAX_F32 "if WAVE_MODE.IEEE") and its clamp turns NaN into
    // 0 (DX10 clamp), the settings every compute kernel gets.
    if (!AMDHSA_BITS_GET(r1, kd::COMPUTE_PGM_RSRC1_GFX6_GFX11_ENABLE_IEEE_MODE))
      throw sim_error(who + "IEEE mode off (COMPUTE_PGM_RSRC1.ENABLE_IEEE_MODE 0) is not modelled");
    if (!AMDHSA_BITS_GET(r1, kd::COMPUTE_PGM_RSRC1_GFX6_GFX11_ENABLE_DX10_CLAMP))
      throw sim_error(who + "DX10 clamp off (COMPUTE_PGM_RSRC1.ENABLE_DX10_CLAMP 0) is not modelled");
    const unsigned system = AMDHSA_BITS_GET(r2, kd::COMPUTE_PGM_RSRC2_USER_SGPR_COUNT) +
                            AMDHSA_BITS_GET(r2, kd::COMPUTE_PGM_RSRC2_ENABLE_SGPR_WORKGROUP_ID_X) +
                            AMDHSA_BITS_GET(r2, kd::COMPUTE_PGM_RSRC2_ENABLE_SGPR_WORKGROUP_ID_Y) +
                            AMDHSA_BITS_GET(r2, kd::COMPUTE_PGM_RSRC2_ENABLE_SGPR_WORKGROUP_ID_Z) +
                            AMDHSA_BITS_GET(r2, kd::COMPUTE_PGM_RSRC2_ENABLE_PRIVATE_SEGMENT);
    if (system > sreg::vcc_lo)
      throw sim_error(who + std::to_string(system) + " initial SGPRs do not fit the SGPR file");
  }
  const dim3u b = d.block_threads;
  if (b.x == 0 || b.y == 0 || b.z == 0 || b.x > 1024 || b.y > 1024 || b.z > 1024 || uint64_t(b.x) * b.y * b.z > 1024)
    throw sim_error(who + "block " + std::to_string(b.x) + "x" + std::to_string(b.y) + "x" + std::to_string(b.z) +
                    " is not a valid workgroup size");
  if (d.kernarg.size() < k.info.kernarg_size)
    throw sim_error(who + "kernarg segment of " + std::to_string(d.kernarg.size()) + " bytes, the kernel needs " +
                    std::to_string(k.info.kernarg_size));
}

void loaded_code_object::run(const dispatch& d, global_memory& mem) {
  auto it = entries_.find(d.kernel);
  if (it == entries_.end()) throw sim_error("no kernel " + d.kernel + " in the " + arch_ + " code object");
  const kernel_entry& k = it->second;
  check_launchable(k, d);
  const auto& desc = k.desc;
  const uint32_t r2 = desc.compute_pgm_rsrc2;
  const uint16_t props = desc.kernel_code_properties;
  const unsigned user_sgprs = AMDHSA_BITS_GET(r2, kd::COMPUTE_PGM_RSRC2_USER_SGPR_COUNT);
  const unsigned vgpr_ids = AMDHSA_BITS_GET(r2, kd::COMPUTE_PGM_RSRC2_ENABLE_VGPR_WORKITEM_ID);
  const bool dispatch_ptr = props & kd::KERNEL_CODE_PROPERTY_ENABLE_SGPR_DISPATCH_PTR;
  const bool kernarg_ptr = props & kd::KERNEL_CODE_PROPERTY_ENABLE_SGPR_KERNARG_SEGMENT_PTR;
  const bool private_size_sgpr = props & kd::KERNEL_CODE_PROPERTY_ENABLE_SGPR_PRIVATE_SEGMENT_SIZE;
  const bool architected = has_architected_sgprs(arch_);
  const unsigned expected_user = (dispatch_ptr ? 2u : 0u) + (kernarg_ptr ? 2u : 0u) + (private_size_sgpr ? 1u : 0u);
  if (user_sgprs < expected_user)
    throw sim_error("kernel " + k.info.name + ": USER_SGPR_COUNT " + std::to_string(user_sgprs) +
                    " is less than the enabled user SGPRs");

  const dim3u b = d.block_threads;
  const unsigned threads = b.x * b.y * b.z;
  const unsigned nwaves = (threads + wave_lanes - 1) / wave_lanes;
  while (waves_.size() < nwaves) waves_.push_back(std::make_unique<wave>());

  workgroup g;
  g.mem = &mem;
  g.kernel_name = &k.info.name;
  g.lds.assign(std::size_t(desc.group_segment_fixed_size) + d.dynamic_lds_bytes, 0);

  wave_picker picker(d.schedule, d.schedule_seed);
  const bool switch_at_memory = picker.switches_at_memory();
  std::optional<lds_race_detector> detector;
  if (d.lds_hazards) detector.emplace(*this, prog_.text_address, *d.lds_hazards);
  g.observer = detector ? &*detector : nullptr;
  std::vector<unsigned> ready;
  ready.reserve(nwaves);

  for (uint32_t gz = 0; gz < d.grid_blocks.z; ++gz)
    for (uint32_t gy = 0; gy < d.grid_blocks.y; ++gy)
      for (uint32_t gx = 0; gx < d.grid_blocks.x; ++gx) {
        std::fill(g.lds.begin(), g.lds.end(), uint8_t(0));
        if (detector) detector->begin_workgroup(g.lds.size(), gx + d.grid_blocks.x * (gy + d.grid_blocks.y * gz));
        g.waves = g.live = nwaves;
        g.arrived = 0;
        g.generation = 0;
        for (unsigned wi = 0; wi < nwaves; ++wi) {
          wave& w = *waves_[wi];
          std::memset(w.s, 0, sizeof w.s);
          std::memset(w.v, 0, sizeof(w.v[0]) * 2);  // v0/v1 carry IDs; other VGPRs are undefined at entry
          w.pc = k.entry_index;
          w.state = wave::run_state::ready;
          w.id = wi;
          w.wg = &g;
          w.prog = &prog_;
          w.barrier_gen = 0;
          w.private_bytes = desc.private_segment_fixed_size;
          w.scratch.assign(std::size_t(w.private_bytes) * wave_lanes, 0);
          unsigned s = 0;
          if (dispatch_ptr) {
            w.s[s++] = uint32_t(d.dispatch_packet_address);
            w.s[s++] = uint32_t(d.dispatch_packet_address >> 32);
          }
          if (kernarg_ptr) {
            w.s[s++] = uint32_t(d.kernarg_address);
            w.s[s++] = uint32_t(d.kernarg_address >> 32);
          }
          if (private_size_sgpr) w.s[s++] = desc.private_segment_fixed_size;
          if (architected) {
            // gfx12: architected workgroup IDs (see the file comment).
            w.s[sreg::ttmp0 + 9] = gx;
            w.s[sreg::ttmp0 + 7] = (gy & 0xffffu) | (gz << 16);
          } else {
            // gfx11: the system SGPRs after the USER_SGPR_COUNT user SGPRs (checked to fit in check_launchable). The
            // private segment wavefront offset is the wave's offset into the queue's scratch; this model gives each
            // lane its own private memory, so it is 0 (architected flat scratch: the code does not read it).
            unsigned sys = user_sgprs;
            if (AMDHSA_BITS_GET(r2, kd::COMPUTE_PGM_RSRC2_ENABLE_SGPR_WORKGROUP_ID_X)) w.s[sys++] = gx;
            if (AMDHSA_BITS_GET(r2, kd::COMPUTE_PGM_RSRC2_ENABLE_SGPR_WORKGROUP_ID_Y)) w.s[sys++] = gy;
            if (AMDHSA_BITS_GET(r2, kd::COMPUTE_PGM_RSRC2_ENABLE_SGPR_WORKGROUP_ID_Z)) w.s[sys++] = gz;
            if (AMDHSA_BITS_GET(r2, kd::COMPUTE_PGM_RSRC2_ENABLE_PRIVATE_SEGMENT)) w.s[sys++] = 0;
          }
          uint32_t exec = 0;
          for (unsigned l = 0; l < wave_lanes; ++l) {
            const unsigned t = wi * wave_lanes + l;
            if (t >= threads) break;
            exec |= 1u << l;
            const uint32_t x = t % b.x, y = (t / b.x) % b.y, z = t / (b.x * b.y);
            w.v[0][l] = x | (vgpr_ids >= 1 ? y << 10 : 0u) | (vgpr_ids >= 2 ? z << 20 : 0u);
          }
          w.s[sreg::exec_lo] = exec;
        }
        // Run waves until each is done; a wave runs until it parks at a barrier or ends (or, when the schedule
        // interleaves, until it has executed a memory instruction), then the picker chooses the next.
        int last = -1;
        for (;;) {
          ready.clear();
          bool any_live = false;
          for (unsigned wi = 0; wi < nwaves; ++wi) {
            wave& w = *waves_[wi];
            if (w.state == wave::run_state::done) continue;
            any_live = true;
            if (w.state == wave::run_state::at_barrier && w.barrier_gen != g.generation) w.state = wave::run_state::ready;
            if (w.state == wave::run_state::ready) ready.push_back(wi);
          }
          if (!any_live) break;
          if (ready.empty())
            throw sim_error("kernel " + k.info.name + ": every live wave waits at a barrier that cannot complete");
          const unsigned wi = picker.pick(ready, last);
          last = int(wi);
          wave& w = *waves_[wi];
          const op* ops = prog_.ops.data();
          w.yield = false;
          uint64_t n = 0;
          if (switch_at_memory) {
            for (;;) {
              const op& o = ops[w.pc];
              w.pc = o.next;
              o.exec(w, o);
              ++n;
              if (w.yield || o.switch_point) break;
            }
          } else {
            while (!w.yield) {
              const op& o = ops[w.pc];
              w.pc = o.next;
              o.exec(w, o);
              ++n;
            }
          }
          w.executed += n;
          executed_instructions += n;
          if (w.state == wave::run_state::done) {
            --g.live;
            if (g.arrived > 0 && g.arrived >= g.live) {  // the waves still running have all signalled
              g.arrived = 0;
              ++g.generation;
            }
          }
        }
      }
}

}  // namespace

bool arch_supported(const std::string& arch) {
  return arch == "gfx1200" || arch == "gfx1201" || arch == "gfx1100" || arch == "gfx1101" || arch == "gfx1102";
}

std::unique_ptr<code_object> load_code_object(std::span<const uint8_t> elf) {
  return std::make_unique<loaded_code_object>(elf);
}

namespace machine {
const program& program_of(const code_object& co) { return static_cast<const loaded_code_object&>(co).prog(); }
uint64_t executed_instructions(const code_object& co) {
  return static_cast<const loaded_code_object&>(co).executed_instructions;
}
}  // namespace machine

}  // namespace tp::amdgpu_sim
