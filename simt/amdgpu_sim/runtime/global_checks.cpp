#include "simt/amdgpu_sim/runtime/global_checks.h"

#include <bit>
#include <cstdint>

namespace tp::amdgpu_sim {

// Most of a wave's accesses fall in one allocation that is already written through (~8% of a ck fuzz loop's simulator
// time once went to a lookup per lane): one lookup of their span answers for all of them, and only where it cannot
// (bookkeeping due, or the span leaves the allocation) each lane goes through load/store, in ascending lane order, so
// the first lane out of bounds is the one reported.
void global_checks::memory(const machine::wave&, const machine::op&, const machine::memory_access& a) {
  if (a.space != machine::memory_space::global) return;
  uint64_t lo = UINT64_MAX, hi = 0;
  for (uint32_t m = a.lanes; m; m &= m - 1) {
    const unsigned l = unsigned(std::countr_zero(m));
    lo = a.address[l] < lo ? a.address[l] : lo;
    hi = a.address[l] > hi ? a.address[l] : hi;
  }
  if (hi <= UINT64_MAX - a.bytes && mem_.plain_range(lo, hi + a.bytes)) return;
  for (uint32_t m = a.lanes; m; m &= m - 1) {
    const unsigned l = unsigned(std::countr_zero(m));
    if (a.write) (void)mem_.store(a.address[l], a.bytes);
    else (void)mem_.load(a.address[l], a.bytes);
  }
}

}  // namespace tp::amdgpu_sim
