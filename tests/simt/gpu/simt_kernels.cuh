// Dialect kernels that run on every backend: the same source is exercised by the CPU emulator tests, compiled for
// gfx1201/gfx1100/gfx942 (ISA checks: barrier and cross-lane ops present) and run on CUDA/HIP where a device exists.
#pragma once
#include "simt/simt.h"

namespace TP_VARIANT_NS {

// Warp-level sum by xor butterfly, then per-warp partials through shared memory and one barrier.
TP_GLOBAL void block_sum_shfl(tp::gmem<int> in, tp::gmem<int> out) {
  TP_SHARED(int, partial, 32);
  const unsigned t = tp::thread_idx();
  int v = in.ld(tp::block_idx() * tp::block_dim() + t);
  for (unsigned m = tp::warp_size() / 2; m > 0; m /= 2) v += tp::shfl_xor(v, int(m));
  if (tp::lane_id() == 0) partial.st(tp::warp_id(), v);
  tp::sync_threads();
  if (t == 0) {
    int s = 0;
    for (unsigned w = 0; w < tp::block_dim() / tp::warp_size(); ++w) s += partial.ld(w);
    out.st(tp::block_idx(), s);
  }
}

// Transpose of a 32x32 int tile by 32*8 threads: stage through shared memory; the barrier is what makes it correct.
TP_GLOBAL void transpose32(tp::gmem<int> in, tp::gmem<int> out) {
  TP_SHARED(int, tile, 32 * 33);
  const unsigned t = tp::thread_idx();
  for (unsigned k = t; k < 32 * 32; k += tp::block_dim()) tile.st((k / 32) * 33 + k % 32, in.ld(k));
  tp::sync_threads();
  for (unsigned k = t; k < 32 * 32; k += tp::block_dim()) out.st(k, tile.ld((k % 32) * 33 + k / 32));
}

// Each lane contributes (lane, lane^2, 7*lane); lane l writes the sum over lanes of the gathered triples, checked
// per lane against the closed form.
struct triple {
  int a, b, c;
};
TP_GLOBAL void allgather_sum(tp::gmem<int> out) {
  const int l = int(tp::lane_id());
  const tp::warp_lanes<triple> all = tp::warp_allgather(triple{l, l * l, 7 * l});
  int s = 0;
  for (unsigned k = 0; k < tp::warp_size(); ++k) s += all.lane[k].a + all.lane[k].b + all.lane[(k + l) % tp::warp_size()].c;
  out.st(tp::block_idx() * tp::block_dim() + tp::thread_idx(), s);
}

}  // namespace TP_VARIANT_NS
