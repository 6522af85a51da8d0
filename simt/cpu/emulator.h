// Host side of the CPU backend: run options, the hazard report, global-memory shadows, and the launch entry point
// that tp::launch (simt/host.h) calls. Blocks run one after another on the calling OS thread; each GPU thread of a
// block is a fiber with its own stack (pooled per OS thread, guard page below each stack).
#pragma once

#include <cstddef>
#include <cstdint>
#include <source_location>
#include <string>
#include <vector>

#include "simt/backend.h"
#include "simt/cpu/device.h"

namespace tp::cpu {

// Who runs next when the running fiber parks (barrier, warp collective) or finishes.
//   in_order    threads 0..n-1, round robin: woken threads queue behind the ones already runnable
//   reverse     threads n-1..0, round robin
//   random      a uniformly random runnable thread each time, from `seed` (same seed, same schedule)
//   adversarial run one warp, all its lanes, until every lane parks at a block barrier (or exits) before touching
//               the next warp: warp 0 races ahead through its warp collectives to the barrier
using policy = ::tp::schedule_policy;
const char* to_string(policy);

struct run_options {
  policy sched = policy::in_order;
  std::uint64_t seed = 0;
  bool hazards = false;           // record shared-memory accesses per barrier epoch and report races between warps
  unsigned warp_size = 32;        // 32, or 64 to model gfx9 wave64
  std::size_t stack_bytes = 64 * 1024;
};

// Thread-local: applies to later launches from the calling OS thread.
void set_run_options(const run_options&);
const run_options& get_run_options();

// A fiber stack overflow hits the guard page; a SIGSEGV handler (on an alternate signal stack) turns that into a
// tp::kernel_error. The first launch of each OS thread installs it; call this again if something else (a test
// framework) replaced the SIGSEGV handler since. Under ASan, ASan's handler reports the overflow instead.
void install_stack_overflow_handler();

enum class hazard_kind { raw, war, waw };
const char* to_string(hazard_kind);

// One conflicting pair: `earlier` happened first, `later` is the access that completed the conflict. Both are in the
// same block and barrier epoch, from different warps; `offset` is the byte offset in the block's shared arena.
struct hazard_site {
  unsigned warp = 0, lane = 0;
  bool write = false;
  std::source_location where;
};
struct hazard_pair {
  hazard_kind kind = hazard_kind::raw;
  unsigned block = 0;
  std::size_t offset = 0;
  hazard_site earlier, later;
};
std::string describe(const hazard_pair&);  // "RAW at smem+64 (block 0): write warp 0 lane 3 at f.cu:12 (fn) ..."

struct hazard_report {
  std::uint64_t raw = 0, war = 0, waw = 0;
  std::vector<hazard_pair> first;  // at most hazard_report_pairs_kept, in order of detection
  std::uint64_t total() const { return raw + war + waw; }
};
inline constexpr std::size_t hazard_report_pairs_kept = 16;

// Hazards of all launches since the last take (calling thread). Hazard granularity is the byte: two warps writing
// neighbouring bytes of one word do not conflict; each access counts at most once per kind.
hazard_report take_hazard_report();

using tp::access_site;
using tp::access_report;
// struct shadow (global-memory bookkeeping of one CPU device_buffer) is defined in simt/cpu/device.h, whose inline
// record_global reads it on every kernel access.

// What runs CPU-backend kernels, for report environment blocks: "CPU fiber emulator on <model> (<n> hardware threads)".
std::string host_description();

// The type-erased launch tp::launch builds: `body(packed)` runs the kernel (function pointer and argument tuple
// in `packed`) for the current thread. `kernel_name` (may be null) only labels error messages.
using kernel_body = void (*)(void* packed);
void run_kernel(unsigned grid, unsigned block, std::size_t dyn_smem, kernel_body body, void* packed,
                const char* kernel_name);

}  // namespace tp::cpu
