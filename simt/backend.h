// Backend identity and the two error types every backend throws. Host-side only; no GPU headers.
#pragma once

#include <cstddef>
#include <cstdint>
#include <source_location>
#include <stdexcept>
#include <string>
#include <vector>

namespace tp {

enum class backend { cpu, cuda, hip };

inline const char* to_string(backend b) {
  switch (b) {
    case backend::cpu: return "cpu";
    case backend::cuda: return "cuda";
    case backend::hip: return "hip";
  }
  return "?";
}

// What the backend compiling this translation unit is. The registry stamps each variant with it.
#if defined(__HIP__)
inline constexpr backend this_backend = backend::hip;
#elif defined(__CUDACC__)
inline constexpr backend this_backend = backend::cuda;
#else
inline constexpr backend this_backend = backend::cpu;
#endif

// A kernel misbehaved in a way the emulator can name: divergent barrier, deadlock, a collective with an exited lane,
// an out-of-bounds tracked global access, a fiber stack overflow, or an exception escaping the kernel body.
struct kernel_error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// A GPU runtime call failed (launch, allocation, copy, synchronisation); the message names the call and the kernel.
struct device_error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// How the warps (waves) of a block are scheduled, where a backend can choose: the CPU emulator (simt/cpu/emulator.h
// says what each policy does) and the HIP build on tileprobe's AMDGPU simulator (the same policies at its switch
// points: simt/amdgpu_sim/machine.h). A real GPU schedules as it will.
enum class schedule_policy { in_order, reverse, random, adversarial };

// Races between warps of one block on shared memory (LDS) between two barriers, as a backend's detector reports them:
// counts per kind and the first few pairs, each with both accesses' locations.
struct race_report {
  std::uint64_t raw = 0, war = 0, waw = 0;
  std::vector<std::string> first;
  std::uint64_t total() const { return raw + war + waw; }
};

// Global-memory element states the CPU backend tracks per device_buffer element.
enum class elem_state : std::uint8_t { never_written = 0, host_initialised = 1, kernel_written = 2 };

inline const char* to_string(elem_state s) {
  switch (s) {
    case elem_state::never_written: return "never-written";
    case elem_state::host_initialised: return "host-initialised";
    case elem_state::kernel_written: return "kernel-written";
  }
  return "?";
}

// A kernel read of an element no kernel wrote (CPU backend; GPUs leave this to compute-sanitizer initcheck).
struct access_site {
  std::size_t element = 0;
  elem_state state = elem_state::never_written;  // the element's state when it was read
  unsigned block = 0, thread = 0;
  std::source_location where;
};
struct access_report {
  std::uint64_t host_initialised_reads = 0;  // a kernel read an element only the host wrote (upload / fill)
  std::uint64_t never_written_reads = 0;     // a kernel read a poisoned element nobody wrote
  std::vector<access_site> first;            // at most access_report_sites_kept, in order
  std::uint64_t total() const { return host_initialised_reads + never_written_reads; }
};
inline constexpr std::size_t access_report_sites_kept = 8;

inline std::string describe(const std::source_location& w) {
  return std::string(w.file_name()) + ":" + std::to_string(w.line()) + " (" + w.function_name() + ")";
}
inline std::string describe(const access_site& s) {
  return "element " + std::to_string(s.element) + " (" + to_string(s.state) + ") read by block " +
         std::to_string(s.block) + " thread " + std::to_string(s.thread) + " at " + describe(s.where);
}

}  // namespace tp
