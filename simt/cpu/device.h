// Device side of the CPU backend: what simt/simt.h calls from inside a kernel running on the fiber emulator.
// Every function here runs on a fiber; `detail::current` is the running GPU thread (set by the scheduler before
// each switch, so reads of it are plain thread-local loads).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <source_location>
#include <type_traits>

#include "simt/backend.h"

namespace tp::cpu {

// Per launch, shared by every thread of every block.
struct launch_info {
  unsigned grid_dim = 1, block_dim = 32, warp_size = 32;
  std::size_t dyn_smem = 0;
  bool hazards = false;
};

// Per GPU thread of the block that is running now.
struct thread_state {
  unsigned thread = 0, block = 0;
  const launch_info* launch = nullptr;
  unsigned warp = 0, lane = 0;
  std::size_t smem_cursor = 0;  // next TP_SHARED offset for this thread (each thread makes the same calls)
};

using tp::elem_state;
// Per-buffer bookkeeping for tracked global memory (owned by a CPU device_buffer).
struct shadow;  // defined in simt/cpu/emulator.h; kernels only carry the pointer

namespace detail {
extern thread_local constinit thread_state* current;
extern thread_local constinit bool hazards_on;

void barrier(std::source_location loc);
void shfl_word(std::uint32_t mine, int src_lane, std::uint32_t* result, std::source_location loc);
void allgather(const void* mine, std::size_t bytes, void* out, std::source_location loc);
void record_shared_slow(const void* p, std::size_t bytes, bool write, std::source_location loc);
void* shared_static(std::size_t bytes, std::size_t align, std::source_location loc);
void* shared_dynamic();
}  // namespace detail

inline const thread_state& self() { return *detail::current; }

inline void block_barrier(std::source_location loc) { detail::barrier(loc); }

template <class T>
inline T warp_shfl(T v, int src_lane, std::source_location loc = std::source_location::current()) {
  static_assert(sizeof(T) == 4 && std::is_trivially_copyable_v<T>);
  std::uint32_t w, r;
  std::memcpy(&w, &v, 4);
  detail::shfl_word(w, src_lane, &r, loc);
  T out;
  std::memcpy(&out, &r, 4);
  return out;
}

// out receives warp_size() values of `bytes` each, lane-indexed and densely packed (as warp_lanes<T>::lane[]).
inline void warp_allgather_bytes(const void* mine, std::size_t bytes, void* out,
                                 std::source_location loc = std::source_location::current()) {
  detail::allgather(mine, bytes, out, loc);
}

inline void record_shared(const void* p, std::size_t bytes, bool write, std::source_location loc) {
  if (detail::hazards_on) detail::record_shared_slow(p, bytes, write, loc);
}

void record_global(shadow* sh, const void* p, std::size_t bytes, bool write, std::source_location loc);

template <class T>
inline T* shared_static(std::size_t n, std::source_location loc = std::source_location::current()) {
  return static_cast<T*>(detail::shared_static(n * sizeof(T), alignof(T) < 16 ? 16 : alignof(T), loc));
}
inline void* shared_dynamic() { return detail::shared_dynamic(); }

}  // namespace tp::cpu
