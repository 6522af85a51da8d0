// Device side of the CPU backend: what simt/simt.h calls from inside a kernel running on the fiber emulator.
// Every function here runs on a fiber; `detail::current` is the running GPU thread (set by the scheduler before
// each switch, so reads of it are plain thread-local loads).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <source_location>
#include <type_traits>
#include <vector>

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
// Global-memory bookkeeping for one CPU device_buffer: element states and kernel reads of elements no kernel wrote.
struct shadow {
  unsigned char* base = nullptr;  // first byte of the buffer
  std::size_t elem_bytes = 1, count = 0;
  std::vector<elem_state> state;
  access_report unwritten;  // since the last host write of the whole buffer

  void reset(void* data, std::size_t elem_size, std::size_t n, elem_state initial);
  void set_all(elem_state s);
};

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

void record_global_slow(shadow* sh, const void* p, std::size_t bytes, bool write, std::source_location loc);

// Every kernel global access comes here. The common case, one whole in-bounds element that is written, or read
// after a kernel wrote it, changes nothing but the state byte and is done inline (bytes is the constant sizeof(T)
// of the gmem view, so the division is a shift); everything else (bounds errors, reads of unwritten elements,
// accesses spanning elements) takes the out-of-line path, which handles every case.
inline void record_global(shadow* sh, const void* p, std::size_t bytes, bool write, std::source_location loc) {
  const std::uintptr_t a = reinterpret_cast<std::uintptr_t>(p), b = reinterpret_cast<std::uintptr_t>(sh->base);
  if (bytes == sh->elem_bytes && a >= b) {
    const std::size_t off = std::size_t(a - b), i = off / bytes;
    if (i < sh->count && i * bytes == off) {
      if (write) {
        sh->state[i] = elem_state::kernel_written;
        return;
      }
      const elem_state s = sh->state[i];
      if (s == elem_state::kernel_written) return;
      // Reading what the host uploaded is every kernel's normal input: once the first sites are kept, only count it.
      if (s == elem_state::host_initialised && sh->unwritten.first.size() >= access_report_sites_kept) {
        ++sh->unwritten.host_initialised_reads;
        return;
      }
    }
  }
  record_global_slow(sh, p, bytes, write, loc);
}

template <class T>
inline T* shared_static(std::size_t n, std::source_location loc = std::source_location::current()) {
  return static_cast<T*>(detail::shared_static(n * sizeof(T), alignof(T) < 16 ? 16 : alignof(T), loc));
}
inline void* shared_dynamic() { return detail::shared_dynamic(); }

}  // namespace tp::cpu
