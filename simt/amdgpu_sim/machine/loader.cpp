// The loader: the ELF code object through LLVM's Object library (sections, symbols, the NT_AMDGPU_METADATA note
// through BinaryFormat's MsgPack document), the kernel descriptors, the decode of .text, and the DWARF line tables
// that name a PC's source line (code_object.h has the facts used).
#include <algorithm>
#include <cstring>
#include <map>
#include <memory>

#include <llvm/BinaryFormat/ELF.h>
#include <llvm/BinaryFormat/MsgPackDocument.h>
#include <llvm/Support/MemoryBuffer.h>

#include "simt/amdgpu_sim/format.h"
#include "simt/amdgpu_sim/machine/code_object.h"
#include "simt/amdgpu_sim/machine/decoder.h"
#include "simt/amdgpu_sim/machine/schedule.h"

namespace tp::amdgpu_sim {
namespace machine {
namespace {

uint64_t uint_of(llvm::msgpack::DocNode& n) {
  if (n.getKind() == llvm::msgpack::Type::UInt) return n.getUInt();
  if (n.getKind() == llvm::msgpack::Type::Int) return uint64_t(n.getInt());
  return 0;
}
std::string string_of(llvm::msgpack::DocNode& n) {
  return n.getKind() == llvm::msgpack::Type::String ? n.getString().str() : std::string();
}

}  // namespace

loaded_code_object::loaded_code_object(std::span<const uint8_t> bytes) {
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

  const auto& elf = obj.getELFFile();
  // The loadable image's span: ROCr maps every PT_LOAD segment at its virtual address from one base.
  auto phdrs = elf.program_headers();
  if (!phdrs) throw sim_error("code object program headers: " + llvm::toString(phdrs.takeError()));
  for (const auto& ph : *phdrs) {
    if (ph.p_type != llvm::ELF::PT_LOAD) continue;
    if (ph.p_filesz > ph.p_memsz || ph.p_offset + ph.p_filesz > bytes.size())
      throw sim_error("code object PT_LOAD segment at " + hex(uint64_t(ph.p_vaddr)) + " lies outside the file");
    image_bytes_ = std::max<uint64_t>(image_bytes_, ph.p_vaddr + ph.p_memsz);
    image_align_ = std::max<uint64_t>(image_align_, ph.p_align);
  }

  // Metadata note.
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
      if (kd_addr >= s.addr && kd_addr + sizeof(llvm::amdhsa::kernel_descriptor_t) <= s.addr + s.data.size()) {
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

void loaded_code_object::place_image(uint8_t* dst, uint64_t base) {
  const auto& elf = elf_->getELFFile();
  const std::span<const uint8_t> file(elf.base(), elf.getBufSize());
  std::memset(dst, 0, image_bytes_);
  for (const auto& ph : cantFail(elf.program_headers()))
    if (ph.p_type == llvm::ELF::PT_LOAD) std::memcpy(dst + ph.p_vaddr, file.data() + ph.p_offset, ph.p_filesz);
  // The dynamic relocations: what the linker left for the loader, in the allocated SHT_RELA sections.
  for (const auto& sh : cantFail(elf.sections())) {
    if (sh.sh_type != llvm::ELF::SHT_RELA || !(sh.sh_flags & llvm::ELF::SHF_ALLOC)) continue;
    auto symtab = elf.getSection(sh.sh_link);
    if (!symtab) throw sim_error("code object relocation section: " + llvm::toString(symtab.takeError()));
    auto relas = elf.relas(sh);
    if (!relas) throw sim_error("code object relocations: " + llvm::toString(relas.takeError()));
    for (const auto& r : *relas) {
      const uint32_t type = r.getType(false);
      if (type == llvm::ELF::R_AMDGPU_NONE) continue;
      const uint64_t at = r.r_offset;
      const int64_t addend = r.r_addend;
      uint64_t symbol = 0;  // S: the symbol's device address (RELATIVE64 has none)
      if (type != llvm::ELF::R_AMDGPU_RELATIVE64 && r.getSymbol(false) != 0) {
        auto sym = elf.getRelocationSymbol(r, *symtab);
        if (!sym || !*sym) throw sim_error("code object relocation at " + hex(at) + ": its symbol cannot be read");
        if ((*sym)->st_shndx == llvm::ELF::SHN_UNDEF)
          throw sim_error("code object relocation at " + hex(at) + " names an undefined symbol (the simulator links " +
                          "no other code object)");
        symbol = base + (*sym)->st_value;
      }
      const unsigned width = type == llvm::ELF::R_AMDGPU_RELATIVE64 || type == llvm::ELF::R_AMDGPU_ABS64 ? 8 : 4;
      if (at + width > image_bytes_) throw sim_error("code object relocation at " + hex(at) + " lies outside the image");
      uint64_t value = 0;
      switch (type) {
        case llvm::ELF::R_AMDGPU_RELATIVE64: value = base + uint64_t(addend); break;
        case llvm::ELF::R_AMDGPU_ABS64: value = symbol + uint64_t(addend); break;
        case llvm::ELF::R_AMDGPU_ABS32:
        case llvm::ELF::R_AMDGPU_ABS32_LO: value = uint32_t(symbol + uint64_t(addend)); break;
        case llvm::ELF::R_AMDGPU_ABS32_HI: value = uint32_t((symbol + uint64_t(addend)) >> 32); break;
        default:
          throw sim_error("code object relocation at " + hex(at) + ": type " + std::to_string(type) +
                          " is not one the simulator's loader resolves (RELATIVE64, ABS64, ABS32, ABS32_LO/HI)");
      }
      std::memcpy(dst + at, &value, width);
    }
  }
  prog_.load_base = base;
}

const kernel_info* loaded_code_object::find(const std::string& name) const {
  for (const kernel_info& k : infos_)
    if (k.name == name) return &k;
  return nullptr;
}

code_location loaded_code_object::locate(uint64_t pc) const {
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

// The innermost frame at the PC outside the dialect's simt/simt.h (its one-line smem/gmem ld/st wrappers: the source
// is the kernel line that called them, as the CPU emulator's std::source_location reports it); line 0 when the
// compiler gave the instruction none; file empty when the line tables say nothing. Each file as the line table names
// it, without the compile's working folder: a file compiled by an absolute path keeps it, one the compile remapped
// (-ffile-prefix-map, as kernels/fattn_tree names a beellama tree's files by its variant: tree-fixed/ggml/...) keeps
// that name rather than a folder of the build that never held it.
loaded_code_object::source_frame loaded_code_object::frame_at(uint64_t pc) const {
  llvm::DILineInfoSpecifier spec(llvm::DILineInfoSpecifier::FileLineInfoKind::RelativeFilePath,
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


const program& program_of(const code_object& co) { return static_cast<const loaded_code_object&>(co).prog(); }
uint64_t executed_instructions(const code_object& co) {
  return static_cast<const loaded_code_object&>(co).executed_instructions;
}
std::vector<uint32_t> entry_indices(const code_object& co) {
  return static_cast<const loaded_code_object&>(co).entry_indices();
}

}  // namespace machine

bool arch_supported(const std::string& arch) {
  return arch == "gfx1200" || arch == "gfx1201" || arch == "gfx1100" || arch == "gfx1101" || arch == "gfx1102";
}

std::unique_ptr<code_object> load_code_object(std::span<const uint8_t> elf) {
  return std::make_unique<machine::loaded_code_object>(elf);
}

}  // namespace tp::amdgpu_sim
