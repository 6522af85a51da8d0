// tp-rocjitsu-runner: one recorded launch (simt/amdgpu_sim/runtime/launch_record.h) run under AMD's rocJITsu emulator
// through its internal C++ API, the way its own tests/vector_add_test.cpp drives it at commit a3c6becc8b
// (https://github.com/ROCm/rocm-systems/tree/a3c6becc8b/emulation/rocjitsu): load the code object, build the engine
// from a device config, write memory, submit an AQL dispatch packet, run, read back.
//
//   tp-rocjitsu-runner --config CONFIG.json --code KEY.co --launch ID.tplaunch --out ID.tpresult
//                      --executor "rocjitsu <commit> <config>" [--race] [--trace FILE [--trace-workgroup N] [--trace-wave W]]
//                      [--max-ticks N] [--dump DIR]
//
// The launch is the one this simulator would run (tileprobe's runtime builds both): the kernarg segment is the
// recorded one, whose hidden arguments are checked here against the code object's metadata (runtime/kernarg.h fills
// them: rocJITsu leaves them zero), and the dispatch packet is runtime/kernarg.h's build_dispatch_packet (grid,
// block, static + dynamic LDS, private segment), with rocJITsu's header and kernel object. The target is checked:
// the code object's arch must be the launch's, and the config's ISA family the arch's (gfx1201 rdna4, gfx1100 rdna3).
// Buffers sit at their canonical addresses (launch_record.h), so the recorded kernarg and the addresses buffers hold
// (buffer_relocations) run unrelocated.
//
// --race attaches rocJITsu's race detector plugin and prints its summary (docs/race-detectors.md).
// --trace FILE writes, for wave 0 of workgroup 0 (--trace-workgroup N: of workgroup N, linear id), one line per
// executed instruction: its address in the code object and every VGPR that changed since the wave's previous
// instruction, all 32 lanes ("0x1a4 v3=0x0,0x1,..."; a load's data, which lands between instructions here, shows on
// the next line). tp-sim-replay --trace writes the same lines for this simulator: comparing per VGPR the values each
// side wrote finds the first instruction the two executors disagree on (README.md).
// Exit: 0 result written; 2 bad usage or input (a file that does not parse, a target mismatch); 3 rocJITsu failed to
// load the code object, did not finish the dispatch, or halted a wave anywhere but at its s_endpgm (halt_watch).
#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include <nlohmann/json.hpp>

// rocJITsu's internal API (its lib/rocjitsu/src and the build's generated headers; tools/rocjitsu-runner/CMakeLists.txt).
#include "embedded_schema.h"
#include "rocjitsu/code/executable.h"
#include "rocjitsu/config/config_loader.h"
#include "rocjitsu/vm/amdgpu/command_processor.h"
#include "rocjitsu/vm/amdgpu/compute_unit.h"
#include "rocjitsu/vm/amdgpu/wavefront.h"
#include "rocjitsu/vm/amdgpu/gpu_memory.h"
#include "rocjitsu/vm/amdgpu/xcd.h"
#include "rocjitsu/vm/plugins/execution_plugin_group.h"
#include "rocjitsu/vm/plugins/race_detector/plugin.h"
#include "rocjitsu/vm/soc.h"
#include "simdojo/sim/simulation.h"
#include "simdojo/sim/topology.h"

#include "simt/amdgpu_sim/machine.h"
#include "simt/amdgpu_sim/machine/wave.h"
#include "simt/amdgpu_sim/runtime/kernarg.h"
#include "simt/amdgpu_sim/runtime/launch_record.h"

namespace {

using namespace tp::amdgpu_sim;

struct usage_error : std::runtime_error {
  using std::runtime_error::runtime_error;
};
struct rocjitsu_failure : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Where the runner puts what the launch does not place itself: all below 4 GiB, under the buffers' canonical
// addresses (launch_record.h).
constexpr uint64_t code_base = record::canonical_code_base;  // the code object's image (.rodata, .text above it)
constexpr uint64_t kernarg_address = 0x40000000;   // the kernarg segment
constexpr uint64_t ring_address = 0xF0000000;      // the AQL ring: one 64-byte packet slot used of 64
constexpr uint32_t ring_bytes = 4096;
constexpr uint64_t read_index_address = 0xF0010000, write_index_address = 0xF0010008, doorbell_address = 0xF0010010;
// The dispatch pointer rocJITsu gives the waves (user SGPRs, when the kernel descriptor enables it): at a3c6becc8b
// its command processor sets it (and the queue pointer) only for a host-accessible KFD queue
// (vm/amdgpu/command_processor.cpp, `if (host_accessible)`), else it is 0. Kernels read blockDim and gridDim from
// their dispatch packet through it (`s_load_b32 s0, s[0:1], 0xc`), so a copy of the packet sits at that address;
// without it they read zeros (D constant across lanes, NaN in the fa fixup kernels).
constexpr uint64_t dispatch_packet_copy_address = 0;
// hsa_packet_type_t HSA_PACKET_TYPE_KERNEL_DISPATCH (HSA Platform System Architecture Specification, 2.9.1): the
// header's type field, bits [7:0]; acquire/release fences left 0 (none: one dispatch, read back after the engine ends).
constexpr uint16_t kernel_dispatch_packet_type = 2;
// The engine's default tick budget (--max-ticks): the configs' own 100000 ends before a 64-workgroup WMMA batch does.
constexpr uint64_t default_max_ticks = 200'000'000;

// The rocJITsu ISA family a config names ("vm": {"arch": ...}) that runs `arch`'s code.
std::string family_of(const std::string& arch) {
  if (arch == "gfx1201") return "rdna4";
  if (arch == "gfx1100") return "rdna3";
  throw usage_error("launch arch " + arch + ": the runner knows gfx1201 (rdna4) and gfx1100 (rdna3)");
}

// The recorded kernarg's hidden arguments must be what kernarg.h derives from the code object's metadata for this
// launch shape: the explicit arguments are taken from the recording, the hidden ones rebuilt and compared.
void check_hidden_arguments(const kernel_info& k, const record::launch& l) {
  std::vector<const void*> explicit_args;
  for (const auto& a : k.args)
    if (a.value_kind.rfind("hidden_", 0) != 0) {
      if (uint64_t(a.offset) + a.size > l.kernarg.size()) throw usage_error("kernarg shorter than its arguments");
      explicit_args.push_back(l.kernarg.data() + a.offset);
    }
  const launch_shape shape{l.grid_blocks, l.block_threads, l.dynamic_lds_bytes};
  const auto rebuilt = build_kernarg(k, const_cast<void* const*>(explicit_args.data()), shape);
  const std::size_t n = std::min(rebuilt.size(), l.kernarg.size());
  if (rebuilt.size() != l.kernarg.size() || std::memcmp(rebuilt.data(), l.kernarg.data(), n) != 0)
    throw usage_error("the recorded kernarg segment of " + l.kernel +
                      " is not the one its code object's metadata gives for this launch");
}

// The waves of a dispatch that has not finished, each with its state and program counter (as an offset into the
// code object's image): empty when every wave slot is free again.
std::string unfinished_waves(rocjitsu::amdgpu::CommandProcessor& cp, uint64_t image_base) {
  static constexpr const char* state_names[] = {"halted", "running", "at s_waitcnt", "at a barrier", "ending"};
  std::string out;
  unsigned shown = 0, total = 0;
  for (std::size_t c = 0; c < cp.compute_units().size(); ++c) {
    auto* cu = cp.compute_units()[c];
    for (uint32_t w = 0; w < cu->num_wf_slots(); ++w) {
      const auto* wf = cu->wf(w);
      if (wf->is_halted()) continue;
      ++total;
      if (shown++ < 4) {
        char line[160];
        std::snprintf(line, sizeof line, "\n  cu %zu slot %u: workgroup %u %s, pc image+0x%llx", c, w, wf->wg_id(),
                      state_names[std::min<std::size_t>(std::size_t(wf->state()), 4)],
                      static_cast<unsigned long long>(wf->pc - image_base));
        out += line;
      }
    }
  }
  if (total > shown) out += "\n  and " + std::to_string(total - shown) + " more waves";
  return out;
}

// Every wave must end at s_endpgm. At a3c6becc8b rocJITsu's compute unit also halts a wave, silently unless its VM
// log group is compiled in, when the words at its program counter do not decode (vm/amdgpu/compute_unit.cpp,
// issue_instruction: InvalidInst or a null decode) and when s_setpc/s_swappc jumps to address 0; the dispatch then
// "finishes" with that wave's remaining stores never made. This watch keeps, per wave, the instruction it last began
// (s_endpgm halts the wave inside its own execution, before any after-hook), and reports the first wave that halted
// after anything but s_endpgm: where it stopped and what it had begun last.
class halt_watch final : public rocjitsu::ExecutionPlugin {
 public:
  explicit halt_watch(uint64_t image_base) : ExecutionPlugin("tileprobe-halt-watch"), base_(image_base) {}
  void onAmdgpuWavefrontDispatched(rocjitsu::amdgpu::Wavefront& wf) override { last_[&wf] = {}; }
  void onAmdgpuBeforeExecuteInstruction(uint64_t pc, const rocjitsu::Instruction& inst,
                                        rocjitsu::amdgpu::Wavefront& wf) override {
    began& b = last_[&wf];
    b.pc = pc;
    b.mnemonic = inst.mnemonic();
  }
  void onAmdgpuWavefrontHalted(rocjitsu::amdgpu::Wavefront& wf) override {
    const began& b = last_[&wf];
    if (b.mnemonic == "s_endpgm" || !first_.empty()) return;
    char line[256];
    std::snprintf(line, sizeof line, "workgroup %u wave %u halted at image+0x%llx without s_endpgm (last began: %s at image+0x%llx)",
                  wf.wg_id(), wf.wf_id(), static_cast<unsigned long long>(wf.pc - base_),
                  b.mnemonic.empty() ? "nothing" : b.mnemonic.c_str(), static_cast<unsigned long long>(b.pc - base_));
    first_ = line;
  }
  // Empty when every wave ended at s_endpgm.
  const std::string& first_abnormal_halt() const { return first_; }

 private:
  struct began {
    uint64_t pc = 0;
    std::string mnemonic;  // the instruction's (rocJITsu's Instruction does not outlive its execution)
  };
  uint64_t base_;
  std::unordered_map<const rocjitsu::amdgpu::Wavefront*, began> last_;
  std::string first_;
};

// --trace: wave 0 of one workgroup (the first wave rocJITsu dispatches for it), each instruction's changed VGPRs.
class wave_trace final : public rocjitsu::ExecutionPlugin {
 public:
  // `wave`: the workgroup's waves in the order rocJITsu dispatches them (its wave i is the one with wave id i here).
  wave_trace(std::ostream& out, uint64_t image_base, uint32_t workgroup, uint32_t wave)
      : ExecutionPlugin("tileprobe-wave-trace"), out_(out), base_(image_base), workgroup_(workgroup), wave_(wave) {}
  void onAmdgpuWavefrontDispatched(rocjitsu::amdgpu::Wavefront& wf) override {
    if (!traced_ && !done_ && wf.wg_id() == workgroup_ && seen_++ == wave_) traced_ = &wf;
  }
  void onAmdgpuWavefrontHalted(rocjitsu::amdgpu::Wavefront& wf) override {
    if (&wf == traced_) traced_ = nullptr, done_ = true;
  }
  // The instruction's own address is the one the before-hook gets (after a taken branch the after-hook's is not).
  // A load's data lands between instructions here (rocJITsu models memory latency): each line compares with the
  // state after the wave's previous instruction, so such a write shows on the next instruction of the wave.
  void onAmdgpuBeforeExecuteInstruction(uint64_t pc, const rocjitsu::Instruction&, rocjitsu::amdgpu::Wavefront& wf) override {
    if (&wf != traced_) return;
    if (before_.empty()) snapshot(wf, before_);
    pc_ = pc;
  }
  void onAmdgpuAfterExecuteInstruction(uint64_t, const rocjitsu::Instruction&, rocjitsu::amdgpu::Wavefront& wf) override {
    if (&wf != traced_) return;
    snapshot(wf, after_);
    char buf[32];
    std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(pc_ - base_));
    out_ << buf;
    for (std::size_t r = 0; r * 32 < after_.size(); ++r) {
      if (std::equal(after_.begin() + r * 32, after_.begin() + r * 32 + 32, before_.begin() + r * 32)) continue;
      out_ << " v" << r << '=';
      for (unsigned l = 0; l < 32; ++l) {
        std::snprintf(buf, sizeof buf, l ? ",0x%x" : "0x%x", after_[r * 32 + l]);
        out_ << buf;
      }
    }
    out_ << '\n';
    before_.swap(after_);
  }

 private:
  static void snapshot(rocjitsu::amdgpu::Wavefront& wf, std::vector<uint32_t>& into) {
    const auto& alloc = wf.vgpr_alloc();
    into.resize(std::size_t(alloc.count) * 32);
    for (uint32_t r = 0; r < alloc.count; ++r)
      for (uint32_t l = 0; l < 32; ++l) into[r * 32 + l] = wf.cu().read_vgpr(alloc.base + r, l);
  }
  std::ostream& out_;
  uint64_t base_;
  uint32_t workgroup_;
  uint32_t wave_, seen_ = 0;
  uint64_t pc_ = 0;
  rocjitsu::amdgpu::Wavefront* traced_ = nullptr;
  bool done_ = false;
  std::vector<uint32_t> before_, after_;
};

int run(int argc, char** argv) {
  std::string config_path, code_path, launch_path, out_path, executor, trace_path, dump;
  uint32_t trace_workgroup = 0, trace_wave = 0;
  bool race = false;
  uint64_t max_ticks = default_max_ticks;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const auto value = [&]() -> std::string {
      if (i + 1 >= argc) throw usage_error(a + " needs a value");
      return argv[++i];
    };
    if (a == "--config") config_path = value();
    else if (a == "--code") code_path = value();
    else if (a == "--launch") launch_path = value();
    else if (a == "--out") out_path = value();
    else if (a == "--executor") executor = value();
    else if (a == "--race") race = true;
    else if (a == "--trace") trace_path = value();
    else if (a == "--dump") dump = value();
    else if (a == "--trace-workgroup") trace_workgroup = uint32_t(std::stoul(value()));
    else if (a == "--trace-wave") trace_wave = uint32_t(std::stoul(value()));
    else if (a == "--max-ticks") {
      const std::string v = value();
      char* end = nullptr;
      max_ticks = std::strtoull(v.c_str(), &end, 10);
      if (v.empty() || *end || max_ticks == 0) throw usage_error("--max-ticks needs a positive number, not " + v);
    }
    else if (a == "-h" || a == "--help") {
      std::cout << "usage: tp-rocjitsu-runner --config CONFIG.json --code KEY.co --launch ID.tplaunch --out ID.tpresult\n"
                   "                          --executor TEXT [--race] [--trace FILE [--trace-workgroup N] [--trace-wave W]] [--max-ticks N]\n"
                   "                          [--dump DIR]\n"
                   "  runs one recorded launch under rocJITsu and writes its result; --race attaches rocJITsu's race\n"
                   "  detector and prints its summary; --trace writes wave W (0) of workgroup N (0)'s changed VGPRs per\n"
                   "  instruction to FILE (tp-sim-replay --trace writes the same for the simulator); --dump DIR writes\n"
                   "  rocJITsu's final buffers as DIR/<id>.<buffer>.bin (tp-sim-replay --dump: the simulator's);\n"
                   "  --max-ticks caps the engine's simulated time (default " +
                   std::to_string(default_max_ticks) + ").\n  Exit 0 written, 2 bad input, 3 rocJITsu failed (did not load the code object or finish\n"
                   "  the dispatch, or halted a wave anywhere but at its s_endpgm).\n";
      return 0;
    } else throw usage_error("unknown option " + a);
  }
  if (config_path.empty() || code_path.empty() || launch_path.empty() || out_path.empty() || executor.empty())
    throw usage_error("--config, --code, --launch, --out and --executor are required");

  const std::vector<uint8_t> launch_bytes = record::read_file(launch_path);
  const record::launch l = record::decode_launch(launch_bytes);
  const std::vector<uint8_t> elf = record::read_file(code_path);
  if (record::code_object_key(elf, l.kernel) != l.code_object)
    throw usage_error(code_path + " is not the code object the launch names (key " + l.code_object + ")");
  const auto ours = load_code_object(elf);
  if (ours->arch() != l.arch) throw usage_error("the code object is " + ours->arch() + ", the launch " + l.arch);
  const kernel_info* k = ours->find(l.kernel);
  if (!k) throw usage_error("the code object has no kernel " + l.kernel);
  check_hidden_arguments(*k, l);

  std::ifstream cf(config_path);
  if (!cf) throw usage_error("cannot read " + config_path);
  const auto config_json = nlohmann::json::parse(cf, nullptr, /*allow_exceptions=*/false);
  if (config_json.is_discarded()) throw usage_error(config_path + ": not JSON");
  const std::string family = config_json.value("/vm/arch"_json_pointer, std::string());
  if (family != family_of(l.arch))
    throw usage_error(config_path + " simulates " + family + ", the launch's " + l.arch + " is " + family_of(l.arch));

  // rocJITsu's side: from here on its failures are exit 3.
  rocjitsu::Executable exe(code_path);
  if (!exe.is_valid()) throw rocjitsu_failure("rocJITsu did not load " + code_path);
  const rocjitsu::AmdGpuCodeObject* co = nullptr;
  // gfx1100 has no rocJITsu target id at this commit (the code object registers as INVALID; the ISA comes from the
  // config), so every id is looked at, INVALID included.
  for (int t = 0; t <= int(ROCJITSU_CODE_TARGET_INVALID) && !co; ++t)
    if (exe.num_code_objects(rj_code_target_id_t(t)) > 0) co = exe.code_object(rj_code_target_id_t(t), 0);
  if (!co) throw rocjitsu_failure("rocJITsu found no code object in " + code_path);

  auto loaded = rocjitsu::config::load_config(config_path, rocjitsu::kEmbeddedSchema);
  auto* soc = loaded.soc();
  // The flat apertures. rocJITsu's SoC starts with every aperture at 0 and only its simulated KFD programs them
  // (kmd/linux/simulated_kfd.cpp), so on this bare path src_private_base / src_shared_base read 0 and a kernel's flat
  // access to its own stack (a local array the compiler keeps in scratch) went to global memory at the bare offset,
  // one location for every lane: the ck kernels' out-of-bounds counters came out wrong (tests/amdgpu_sim/rocjitsu/
  // README.md). Programmed as the KFD programs them, which are also this simulator's apertures (machine/wave.h).
  soc->set_apertures(uint64_t(machine::shared_aperture_hi) << 32, (uint64_t(machine::shared_aperture_hi) << 32) | 0xffffffffull,
                     uint64_t(machine::private_aperture_hi) << 32, (uint64_t(machine::private_aperture_hi) << 32) | 0xffffffffull);
  auto* memory = loaded.memory();
  // The configs cap a run at max_ticks (100000 in gfx1201_r9700.json), which a long kernel passes with the dispatch
  // unfinished. Uncapped (0) is no answer either: at this commit the engine then never returns, the command processor
  // staying registered as its primary with no event queued (seen on a finished 8-workgroup dispatch). So the cap is
  // ours (--max-ticks); the engine ends at it, and the dispatch counts as finished only when its packet was consumed
  // and every wave slot is free again (else its waves are reported).
  loaded.engine_config.max_ticks = max_ticks;
  auto engine = std::make_unique<simdojo::SimulationEngine>(loaded.engine_config);
  engine->topology().set_root(loaded.take_root());
  loaded.wire_links(engine->topology());
  engine->build();

  std::shared_ptr<rocjitsu::ExecutionPluginGroup> plugins;
  rocjitsu::plugins::race_detector::RaceDetectorPlugin* detector = nullptr;
  halt_watch* watch = nullptr;
  std::ofstream trace_file;
  {
    plugins = std::make_shared<rocjitsu::ExecutionPluginGroup>();
    auto w = std::make_unique<halt_watch>(code_base);
    watch = w.get();
    plugins->add(std::move(w));
    if (race) {
      auto p = std::make_unique<rocjitsu::plugins::race_detector::RaceDetectorPlugin>();
      detector = p.get();
      plugins->add(std::move(p));
    }
    if (!trace_path.empty()) {
      trace_file.open(trace_path);
      if (!trace_file) throw usage_error("cannot write " + trace_path);
      plugins->add(std::make_unique<wave_trace>(trace_file, code_base, trace_workgroup, trace_wave));
    }
    soc->set_plugin_group(plugins);
    plugins->onInit();
  }

  co->load_to_memory(memory, code_base);
  // ROCr's loader step, which rocJITsu's bare load_to_memory leaves out (it copies the PT_LOAD segments only): the
  // dynamic relocations resolved for code_base (R_AMDGPU_RELATIVE64: a __device__ table of pointers into the image)
  // and .bss zeroed. The image as ROCr would place it, from the simulator's loader step (code_object::place_image);
  // its .text bytes are the segment copy's, so only those words change.
  if (const uint64_t image_bytes = ours->image_bytes(); image_bytes > 0) {
    if (code_base % ours->image_align() != 0) throw usage_error("the code object needs a more aligned image");
    std::vector<uint8_t> image(image_bytes);
    ours->place_image(image.data(), code_base);
    memory->load_image(image.data(), image.size(), code_base);
  }
  const uint64_t kd_offset = co->kernel_descriptor_offset(l.kernel);
  if (kd_offset == 0) throw rocjitsu_failure("rocJITsu finds no kernel descriptor " + l.kernel + ".kd");
  for (std::size_t i = 0; i < l.buffers.size(); ++i)
    if (!l.buffers[i].empty())
      memory->load_image(l.buffers[i].data(), l.buffers[i].size(), record::canonical_address(uint32_t(i)));
  if (!l.kernarg.empty()) memory->load_image(l.kernarg.data(), l.kernarg.size(), kernarg_address);

  const launch_shape shape{l.grid_blocks, l.block_threads, l.dynamic_lds_bytes};
  auto packet = build_dispatch_packet(*k, shape, kernarg_address);
  const uint64_t kernel_object = code_base + kd_offset;
  std::memcpy(packet.data(), &kernel_dispatch_packet_type, 2);
  std::memcpy(packet.data() + 32, &kernel_object, 8);

  const uint64_t zero = 0, one = 1;
  for (uint64_t a : {read_index_address, write_index_address, doorbell_address})
    memory->load_image(reinterpret_cast<const uint8_t*>(&zero), 8, a);
  auto* cp = soc->xcd(0)->command_processor();
  rocjitsu::amdgpu::HwQueue q{};
  q.queue_id = 1;
  q.ring_base_va = ring_address;
  q.ring_size = ring_bytes;
  q.read_ptr_va = read_index_address;
  q.write_ptr_va = write_index_address;
  q.doorbell_va = doorbell_address;
  cp->register_queue(std::move(q));
  memory->load_image(packet.data(), packet.size(), ring_address);
  memory->load_image(packet.data(), packet.size(), dispatch_packet_copy_address);
  memory->load_image(reinterpret_cast<const uint8_t*>(&one), 8, write_index_address);
  memory->load_image(reinterpret_cast<const uint8_t*>(&one), 8, doorbell_address);
  cp->engine()->schedule_event_now(cp->doorbell_event());

  engine->run();
  soc->flush_all();
  const auto& exit = engine->last_exit();
  const uint64_t consumed = memory->read32(read_index_address) | uint64_t(memory->read32(read_index_address + 4)) << 32;
  const std::string waves = unfinished_waves(*cp, code_base);
  if (exit.reason != simdojo::ExitReason::COMPLETED || consumed != 1 || !waves.empty())
    throw rocjitsu_failure("rocJITsu did not finish the dispatch (" + exit.message + " at tick " +
                           std::to_string(exit.tick) + ", " + std::to_string(consumed) + " packets consumed)" + waves);
  if (!watch->first_abnormal_halt().empty())
    throw rocjitsu_failure("rocJITsu stopped a wave early: " + watch->first_abnormal_halt());

  record::result r;
  r.executor = executor;
  r.launch_id = record::launch_id(launch_bytes);
  for (std::size_t i = 0; i < l.buffers.size(); ++i) {
    std::vector<uint8_t> b(l.buffers[i].size());
    const uint64_t base = record::canonical_address(uint32_t(i));
    for (std::size_t j = 0; j < b.size(); ++j) b[j] = memory->read8(base + j);
    if (!dump.empty()) {
      std::filesystem::create_directories(dump);
      record::write_file(dump + "/" + r.launch_id + "." + std::to_string(i) + ".bin", b);
    }
    r.buffers.push_back(record::summarize(b));
  }
  record::write_file(out_path, record::encode(r));
  if (detector) std::cout << detector->getSummary() << '\n';
  if (plugins) plugins->onShutdown();
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const usage_error& e) {
    std::cerr << "tp-rocjitsu-runner: " << e.what() << '\n';
    return 2;
  } catch (const sim_error& e) {
    std::cerr << "tp-rocjitsu-runner: " << e.what() << '\n';
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "tp-rocjitsu-runner: rocJITsu: " << e.what() << '\n';
    return 3;
  }
}
