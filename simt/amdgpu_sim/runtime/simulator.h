// The simulated device behind the HIP entry points (hip_runtime.cpp): what clang's host code registers (fat binaries,
// kernels), device memory, and launches run to completion on the machine half (machine.h). No HIP headers here: the
// entry points translate HIP types and map sim_api_error's status to a hipError_t.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "simt/amdgpu_sim/machine.h"
#include "simt/amdgpu_sim/machine/plugins/executed_mnemonics.h"
#include "simt/amdgpu_sim/runtime/device_memory.h"
#include "simt/amdgpu_sim/runtime/kernarg.h"
#include "simt/amdgpu_sim/runtime/launch_recorder.h"
#include "simt/amdgpu_sim/runtime/offload_bundle.h"

namespace tp::amdgpu_sim {

// How a failed call reads to the HIP program (hip_runtime.cpp maps each to its hipError_t).
enum class sim_status {
  invalid_value,            // hipErrorInvalidValue
  out_of_memory,            // hipErrorOutOfMemory
  invalid_device_function,  // hipErrorInvalidDeviceFunction: no registered kernel at that host address
  no_binary_for_gpu,        // hipErrorNoBinaryForGpu: the fat binary has no code object for the simulated arch
  invalid_configuration,    // hipErrorInvalidConfiguration: block or LDS beyond the device's limits
  launch_failure,           // hipErrorLaunchFailure: the machine stopped (sim_error)
};
struct sim_api_error : sim_error {
  sim_api_error(sim_status s, const std::string& what) : sim_error(what), status(s) {}
  sim_status status;
};

// The simulated device's limits (hipGetDeviceProperties reports them; launches are checked against them).
struct device_limits {
  std::string arch;                               // "gfx1201"
  unsigned compute_units = 0;                     // multiProcessorCount
  std::size_t global_bytes = 0;                   // totalGlobalMem
  std::size_t lds_bytes_per_workgroup = 64 * 1024;  // sharedMemPerBlock
  unsigned max_threads_per_block = 1024;
};
device_limits limits_of(const std::string& arch);

class simulator {
 public:
  explicit simulator(std::string arch);
  const device_limits& limits() const { return limits_; }

  // __hipRegisterFatBinary: the wrapper's bundle, parsed now (a malformed bundle is reported at the first launch
  // of one of its kernels: registration runs before main, where nothing can be reported well). Returns a handle.
  void* register_fatbin(const void* wrapper);
  void unregister_fatbin(void* handle);
  // Wall-clock seconds spent decoding code objects (once per fat binary, at the first launch of one of its kernels)
  // since the last take: the one-time part of a launch, which a probe's --bench figures keep out of its variants'
  // seconds and report on their own (tpHipSimTakeLoadSeconds).
  double take_load_seconds() { return std::exchange(load_seconds_, 0.0); }
  // Wave-instructions the machine executed in every code object loaded so far (machine::executed_instructions), for
  // a benchmark's rate (tpHipSimExecutedInstructions).
  uint64_t executed_instructions() const;
  // __hipRegisterFunction: the host stub address that hipLaunchKernel receives -> the kernel's symbol.
  void register_function(void* handle, const void* host_stub, const char* device_name);

  uint64_t malloc(std::size_t bytes);  // throws sim_api_error(out_of_memory)
  void free(uint64_t addr);            // throws sim_api_error(invalid_value) for an address not from malloc
  device_memory& memory() { return memory_; }

  // Runs every workgroup; throws sim_api_error. After a launch that loaded never-written bytes, one warning line
  // goes to stderr (unwritten_warning() has it too, for tests).
  void launch(const void* host_stub, dim3u grid, dim3u block, void** args, std::size_t dynamic_lds);
  const std::string& last_unwritten_warning() const { return last_warning_; }

  // The wave schedule of later launches and whether the LDS race detector runs (tpHipSimSetSchedule); hazards it
  // found accumulate until take_lds_hazards().
  void set_schedule(wave_schedule s, uint64_t seed, bool detect_lds_races) {
    schedule_ = s;
    schedule_seed_ = seed;
    detect_lds_races_ = detect_lds_races;
  }
  lds_hazard_report take_lds_hazards() { return std::exchange(hazards_, {}); }
  // Further plugins (machine/plugin.h) attached to every later launch, after the simulator's own (the global memory
  // checks, the LDS race detector when set_schedule asks for it, the executed-instruction record when
  // TILEPROBE_SIM_EXECUTED_DIR names a folder, the launch recorder when TILEPROBE_SIM_RECORD_DIR does). The caller
  // keeps them alive; an empty list detaches them.
  void set_plugins(std::vector<machine::plugin*> plugins) { extra_plugins_ = std::move(plugins); }

  // For dynamic LDS above 48 KiB (hipFuncSetAttribute): whether the stub is a registered kernel.
  bool knows(const void* host_stub) const { return functions_.count(host_stub) != 0; }

  std::mutex& lock() { return mutex_; }

 private:
  struct fatbin {
    const uint8_t* bundle = nullptr;
    std::string bundle_error;            // set when parsing failed
    std::span<const uint8_t> code;       // the arch's code object (empty: none)
    std::vector<std::string> ids;        // the bundle's entry IDs, for "no code object" messages
    std::unique_ptr<code_object> loaded; // at the first launch
    uint64_t image = 0;                  // where its image lies in global memory (place_image), 0: none
    std::string load_error;              // decoding failed: reported at every launch of its kernels
    std::unique_ptr<machine::executed_mnemonics> executed;  // where TILEPROBE_SIM_EXECUTED_DIR asks for it
    std::unique_ptr<launch_recorder> recorder;              // where TILEPROBE_SIM_RECORD_DIR asks for it
  };
  struct function {
    fatbin* bin;
    std::string name;
  };
  void load(fatbin& f);
  fatbin& loaded_fatbin(fatbin& f, const std::string& kernel);  // loaded at its first launch; throws sim_api_error
  void record_executed(fatbin& f);  // rewrites its executed-instruction file when something ran for the first time

  std::string arch_;
  device_limits limits_;
  device_memory memory_;
  std::vector<std::unique_ptr<fatbin>> fatbins_;
  double load_seconds_ = 0;
  std::map<const void*, function> functions_;
  wave_schedule schedule_ = wave_schedule::adversarial;
  uint64_t schedule_seed_ = 0;
  bool detect_lds_races_ = false;
  lds_hazard_report hazards_;
  std::vector<machine::plugin*> extra_plugins_;
  std::string executed_dir_ = machine::executed_mnemonics::directory();
  std::string record_dir_ = launch_recorder::directory();
  std::string last_warning_;
  static constexpr unsigned warnings_printed = 3;
  unsigned warnings_ = 0;
  std::mutex mutex_;
};

}  // namespace tp::amdgpu_sim
