#include "simt/amdgpu_sim/runtime/simulator.h"
#include "simt/amdgpu_sim/format.h"
#include "simt/amdgpu_sim/machine/plugins/lds_race_detector.h"
#include "simt/amdgpu_sim/machine/schedule.h"
#include "simt/amdgpu_sim/runtime/global_checks.h"

#include <chrono>
#include <optional>

#include <cstdio>
#include <cstring>
#include <iostream>

namespace tp::amdgpu_sim {
namespace {
std::string join(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : ", ") + x;
  return s;
}
}  // namespace

// The boards the archs ship on, for the properties a program may print or size work by: AMD's specifications of the
// Radeon RX 9070 XT (gfx1201: 64 compute units, 16 GB) and RX 7900 XTX (gfx1100: 96 compute units, 24 GB). Both
// give a workgroup 64 KiB of LDS and at most 1024 work-items (RDNA3/RDNA4 ISA guides, "Local Data Share").
device_limits limits_of(const std::string& arch) {
  device_limits l;
  l.arch = arch;
  if (arch == "gfx1100") {
    l.compute_units = 96;
    l.global_bytes = std::size_t(24) << 30;
  } else {
    l.compute_units = 64;
    l.global_bytes = std::size_t(16) << 30;
  }
  return l;
}

simulator::simulator(std::string arch) : arch_(std::move(arch)), limits_(limits_of(arch_)) {}

void* simulator::register_fatbin(const void* wrapper) {
  auto f = std::make_unique<fatbin>();
  try {
    if (!wrapper) throw sim_error("null fat binary wrapper");
    hip_fatbin_wrapper w{};
    std::memcpy(&w, wrapper, sizeof w);
    if (w.magic != hip_fatbin_magic)
      throw sim_error("fat binary wrapper: magic " + hex(w.magic) + ", expected " + hex(hip_fatbin_magic) + " (HIPF)");
    f->bundle = static_cast<const uint8_t*>(w.bundle);
    const auto entries = parse_offload_bundle(offload_bundle_extent(f->bundle));
    for (const auto& e : entries) f->ids.push_back(e.id);
    f->code = find_code_object(entries, arch_);
  } catch (const sim_error& e) {
    f->bundle_error = e.what();
  }
  fatbins_.push_back(std::move(f));
  return fatbins_.back().get();
}

void simulator::unregister_fatbin(void* handle) {
  for (auto it = functions_.begin(); it != functions_.end();)
    it = it->second.bin == handle ? functions_.erase(it) : std::next(it);
  std::erase_if(fatbins_, [&](const auto& f) {
    if (f.get() == handle && f->image) memory_.free(f->image);
    return f.get() == handle;
  });
}

void simulator::register_function(void* handle, const void* host_stub, const char* device_name) {
  functions_[host_stub] = function{static_cast<fatbin*>(handle), device_name ? device_name : ""};
}

uint64_t simulator::malloc(std::size_t bytes) {
  const uint64_t a = memory_.allocate(bytes);
  if (!a) throw sim_api_error(sim_status::out_of_memory, "allocation of " + std::to_string(bytes) + " bytes failed");
  return a;
}

void simulator::free(uint64_t addr) {
  if (addr == 0) return;
  if (!memory_.free(addr))
    throw sim_api_error(sim_status::invalid_value, "free of " + hex(addr) + ": not an address hipMalloc returned");
}

void simulator::load(fatbin& f) {
  if (f.loaded || !f.load_error.empty() || !f.bundle_error.empty() || f.code.empty()) return;
  const auto t0 = std::chrono::steady_clock::now();
  try {
    f.loaded = load_code_object(f.code);
    f.image = place_image(memory_, *f.loaded);
    if (!executed_dir_.empty()) f.executed = std::make_unique<machine::executed_mnemonics>(*f.loaded);
    if (!record_dir_.empty()) f.recorder = std::make_unique<launch_recorder>(memory_, f.code, *f.loaded, record_dir_);
  } catch (const std::exception& e) {  // sim_error, or the host out of memory: either is the launch's error
    f.load_error = e.what();
  }
  load_seconds_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

uint64_t simulator::executed_instructions() const {
  uint64_t n = 0;
  for (const auto& f : fatbins_)
    if (f->loaded) n += machine::executed_instructions(*f->loaded);
  return n;
}

simulator::fatbin& simulator::loaded_fatbin(fatbin& f, const std::string& kernel) {
  if (!f.bundle_error.empty())
    throw sim_api_error(sim_status::no_binary_for_gpu, "kernel " + kernel + ": its fat binary is unusable: " +
                                                           f.bundle_error);
  if (f.code.empty())
    throw sim_api_error(sim_status::no_binary_for_gpu, "kernel " + kernel + ": this binary has no code object for " +
                                                           arch_ + " (bundle entries: " + join(f.ids) + ")");
  load(f);
  if (!f.load_error.empty())
    throw sim_api_error(sim_status::launch_failure, "kernel " + kernel + ": loading the " + arch_ +
                                                        " code object: " + f.load_error);
  return f;
}

void simulator::launch(const void* host_stub, dim3u grid, dim3u block, void** args, std::size_t dynamic_lds) {
  const auto fn = functions_.find(host_stub);
  if (fn == functions_.end())
    throw sim_api_error(sim_status::invalid_device_function,
                        "launch of " + hex(reinterpret_cast<uint64_t>(host_stub)) + ": no kernel registered there");
  const std::string& name = fn->second.name;
  fatbin& bin = loaded_fatbin(*fn->second.bin, name);
  code_object& co = *bin.loaded;
  const kernel_info* k = co.find(name);
  if (!k)
    throw sim_api_error(sim_status::invalid_device_function,
                        "kernel " + name + ": not in the " + arch_ + " code object");
  const uint64_t threads = uint64_t(block.x) * block.y * block.z;
  if (threads == 0 || uint64_t(grid.x) * grid.y * grid.z == 0)
    throw sim_api_error(sim_status::invalid_configuration, "kernel " + name + ": empty grid or block");
  if (threads > limits_.max_threads_per_block)
    throw sim_api_error(sim_status::invalid_configuration,
                        "kernel " + name + ": " + std::to_string(threads) + " threads per block, the device allows " +
                            std::to_string(limits_.max_threads_per_block));
  if (k->max_flat_workgroup_size && threads > k->max_flat_workgroup_size)
    throw sim_api_error(sim_status::invalid_configuration,
                        "kernel " + name + ": " + std::to_string(threads) + " threads per block, the kernel was " +
                            "compiled for at most " + std::to_string(k->max_flat_workgroup_size));
  if (k->group_segment_size + dynamic_lds > limits_.lds_bytes_per_workgroup)
    throw sim_api_error(sim_status::invalid_configuration,
                        "kernel " + name + ": " + std::to_string(k->group_segment_size) + " static + " +
                            std::to_string(dynamic_lds) + " dynamic LDS bytes, the device has " +
                            std::to_string(limits_.lds_bytes_per_workgroup) + " per workgroup");

  launch_shape shape{grid, block, uint32_t(dynamic_lds)};
  std::vector<uint8_t> kernarg;
  try {
    kernarg = build_kernarg(*k, args, shape);
  } catch (const sim_error& e) {
    throw sim_api_error(sim_status::invalid_value, e.what());
  }
  // The kernarg segment lives in global memory, as the hardware's does (the kernel reads it with s_load through
  // the kernarg pointer), written once and freed after the launch.
  const uint64_t seg = memory_.allocate(std::max<std::size_t>(kernarg.size(), 1), std::max<uint32_t>(k->kernarg_align, 16));
  if (!seg) throw sim_api_error(sim_status::out_of_memory, "kernel " + name + ": kernarg segment");
  memory_.host_write(seg, kernarg.data(), kernarg.size());
  // The dispatch packet, for kernels that read it through the dispatch-ptr SGPRs (grid_size_x: the dialect's
  // grid_dim()); handed over where machine.h's dispatch has the field.
  const auto packet = build_dispatch_packet(*k, shape, seg);
  const uint64_t packet_addr = memory_.allocate(packet.size(), 64);
  if (!packet_addr) {
    memory_.free(seg);
    throw sim_api_error(sim_status::out_of_memory, "kernel " + name + ": dispatch packet");
  }
  memory_.host_write(packet_addr, packet.data(), packet.size());
  dispatch d;
  d.dispatch_packet_address = packet_addr;
  d.kernel = name;
  d.grid_blocks = grid;
  d.block_threads = block;
  d.dynamic_lds_bytes = uint32_t(dynamic_lds);
  d.kernarg_address = seg;
  d.kernarg = std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(seg), kernarg.size());
  d.schedule = schedule_;
  d.schedule_seed = schedule_seed_;
  // The plugins of this launch: the checks of global memory always, the rest where asked for.
  global_checks checks(memory_);
  lds_hazard_report found;
  std::optional<machine::lds_race_detector> races;
  d.plugins.push_back(&checks);
  if (detect_lds_races_) d.plugins.push_back(&races.emplace(co, found));
  if (bin.executed) d.plugins.push_back(bin.executed.get());
  if (bin.recorder) d.plugins.push_back(bin.recorder.get());
  d.plugins.insert(d.plugins.end(), extra_plugins_.begin(), extra_plugins_.end());
  (void)memory_.take_unwritten_loads();
  try {
    co.run(d);
    record_executed(bin);
  } catch (const sim_error& e) {
    record_executed(bin);
    memory_.free(seg);
    memory_.free(packet_addr);
    // The machine names the kernel and PC of what it stopped on; a fault raised by the memory checks may not.
    const std::string what = e.what();
    throw sim_api_error(sim_status::launch_failure, "tileprobe simulator (" + arch_ + "): " +
                                                        (what.find(name) == std::string::npos ? "kernel " + name + ": " : "") +
                                                        what);
  }
  memory_.free(seg);
  memory_.free(packet_addr);
  hazards_.raw += found.raw;
  hazards_.war += found.war;
  hazards_.waw += found.waw;
  for (auto& h : found.first)
    if (hazards_.first.size() < lds_hazard_pairs_kept) hazards_.first.push_back(std::move(h));
  const unwritten_loads u = memory_.take_unwritten_loads();
  if (u.loads) {
    last_warning_ = "tileprobe simulator: warning: kernel " + name + " made " + std::to_string(u.loads) +
                    " global loads of bytes no one wrote (first at";
    for (uint64_t a : u.first) (last_warning_ += ' ') += hex(a);
    last_warning_ += ")";
    // Every launch's warning would drown a fuzz loop's output: the first few, then one line saying more exist.
    if (++warnings_ <= warnings_printed)
      std::cerr << last_warning_ << '\n';
    else if (warnings_ == warnings_printed + 1)
      std::cerr << "tileprobe simulator: warning: more launches loaded never-written bytes; not shown\n";
  } else {
    last_warning_.clear();
  }
}

void simulator::record_executed(fatbin& f) {
  if (f.executed && f.executed->take_news()) f.executed->write(executed_dir_);
}

}  // namespace tp::amdgpu_sim
