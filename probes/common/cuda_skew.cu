// The nvcc side of --skew. The framework is host-compiled and cannot see tp::set_skew, which exists only where nvcc
// compiles simt/host.h; the setters it calls are registered by every CUDA translation unit of the probe (each kernel
// variant has its own copy of the skew constants), so one call here reaches them all.
#include "simt/host.h"

namespace tp::probe::detail {
void cuda_set_skew(unsigned warp_mask, unsigned cycles) { tp::set_skew(warp_mask, cycles); }
}  // namespace tp::probe::detail
