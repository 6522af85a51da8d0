// Shared pieces of the flash-attention model (upstream fattn-common.cuh, fattn-tail.cuh; docs/bugs/fattn-kernel.md
// §4, §7, §8): softmax constants, the partial-merge algebra, the stream-k fixups, the parallel_blocks combine, the f16
// tail pass and the KVarN tail merge. Device code only; wrapped in the variant namespace by the includer.
#pragma once

#include "simt/simt.h"

#if TP_BACKEND_CPU
  #include <cmath>
#endif

namespace TP_VARIANT_NS {

// Lanes per warp the model is written for (RDNA3 wave32, NVIDIA). Each lane owns head-dim elements
// d = lane + fa_warp*n, so every D here is a multiple of 32.
inline constexpr int fa_warp = 32;

// exp(x - m') with m' raised by 3·ln2 above the batch max keeps fp16 VKQ finite upstream; it cancels in A/l.
inline constexpr float FATTN_KQ_MAX_OFFSET = 3.0f * 0.6931f;
inline constexpr float SOFTMAX_FTZ_THRESHOLD = -20.0f;
// Initial running max: finite, so exp(m - m') never sees inf - inf.
inline constexpr float fa_kq_max_init = -3.402823466e38f / 2.0f;

TP_DEVICE float fa_expf(float x) {
#if TP_BACKEND_CPU
  return std::exp(x);
#elif TP_BACKEND_CUDA
  return expf(x);
#else
  return __builtin_expf(x);
#endif
}
TP_DEVICE float fa_fmaxf(float a, float b) { return a > b ? a : b; }
TP_DEVICE bool fa_isfinite(float x) { return __builtin_isfinite(x); }

// fp16 storage of tile_Q (upstream keeps Q and the combine's VKQ there as half2): IEEE binary16 bits, round to
// nearest even, in integer and exact fp32 arithmetic, so every backend rounds identically (no half type in the
// dialect; __float2half and _Float16 are not on all three compilers).
#if TP_BACKEND_HIP
  // Debian's clang 19.1.7 stops with "Cannot scavenge register in FI elimination!" compiling this file for gfx1100
  // when this conversion is inlined into the body kernels (measured 2026-12-05); as a call it compiles. Same
  // arithmetic either way.
  #define FA_FLOAT2HALF_LINKAGE __attribute__((noinline))
#else
  #define FA_FLOAT2HALF_LINKAGE
#endif
FA_FLOAT2HALF_LINKAGE TP_DEVICE unsigned short fa_float2half(float f) {
  const unsigned x = __builtin_bit_cast(unsigned, f);
  const unsigned sign = (x >> 16) & 0x8000u, ax = x & 0x7fffffffu;
  if (ax > 0x7f800000u) return (unsigned short)(sign | 0x7e00u);  // NaN: quiet
  if (ax >= 0x47800000u) return (unsigned short)(sign | 0x7c00u);  // |f| >= 65536 (and inf): inf
  if (ax < 0x38800000u) {
    // below 2^-14, the half subnormals m·2^-24: m = |f|·2^24 (exact) rounded to an integer by adding and removing
    // 2^23, which rounds to nearest even in fp32 because m < 2^10
    const float m = __builtin_bit_cast(float, ax) * 16777216.0f;
    return (unsigned short)(sign | (unsigned)((m + 8388608.0f) - 8388608.0f));
  }
  // normal: rebias the exponent (127 -> 15), drop 13 mantissa bits rounding to nearest even; a carry out of the
  // mantissa moves into the exponent, which is exactly the rounded value (65520 and up become inf = 0x7c00)
  const unsigned r = ax - 0x38000000u;
  return (unsigned short)(sign | ((r + 0x0fffu + ((r >> 13) & 1u)) >> 13));
}
TP_DEVICE float fa_half2float(unsigned short h) {
  const unsigned sign = (unsigned)(h & 0x8000u) << 16, e = (h >> 10) & 0x1fu, m = h & 0x3ffu;
  if (e == 0) {
    const float v = float(m) * 5.9604644775390625e-8f;  // m·2^-24, exact
    return sign ? -v : v;
  }
  if (e == 31) return __builtin_bit_cast(float, sign | 0x7f800000u | (m << 13));
  return __builtin_bit_cast(float, sign | ((e + 112u) << 23) | (m << 13));
}

// e^(m - M), flushed to zero below SOFTMAX_FTZ_THRESHOLD like upstream's combine code.
TP_DEVICE float fa_merge_scale(float m, float M) {
  const float diff = m - M;
  return diff < SOFTMAX_FTZ_THRESHOLD ? 0.0f : fa_expf(diff);
}

// Sum of v[0..N) over the lanes of the warp, result on every lane. The CPU emulator parks once per collective,
// so it gathers all lanes' vectors at once; GPUs use a butterfly.
template <int N>
TP_DEVICE void fa_warp_sum(float (&v)[N]) {
#if TP_BACKEND_CPU
  struct vec { float x[N]; };
  vec mine;
  for (int i = 0; i < N; ++i) mine.x[i] = v[i];
  const tp::warp_lanes<vec> all = tp::warp_allgather(mine);
  for (int i = 0; i < N; ++i) {
    float s = 0.0f;
    for (int l = 0; l < fa_warp; ++l) s += all.lane[l].x[i];
    v[i] = s;
  }
#else
  for (int i = 0; i < N; ++i)
    for (int off = fa_warp / 2; off > 0; off >>= 1) v[i] += tp::shfl_xor(v[i], off);
#endif
}

// Unit arithmetic of the stream-k split (docs/bugs/fattn-kernel.md §6): block b owns units [b·U/G, (b+1)·U/G).
TP_DEVICE long long fa_kbc_begin(int b, long long units, int blocks) { return (long long)b * units / blocks; }

// Where tiles and their columns land (upstream flash_attn_ext_f16's kbc decomposition, GQA packing): tile
// t = (z_KV·iter_z + zt_gqa)·iter_j + jt; column jc of a tile is token j = jc / ncols2, head c = jc % ncols2, i.e.
// token jt·ncols1 + j of Q head z_KV·gqa + zt_gqa·ncols2 + c, valid while that token exists and zt_gqa·ncols2 + c <
// gqa (padding heads are neither loaded nor stored). Output row = Q head · n_q + token.
struct fa_tiling {
  int n_q, gqa, ncols1, ncols2, iter_j, iter_z;
  TP_DEVICE int kv_head(int tile) const { return tile / (iter_z * iter_j); }
  // -1 for a padding column.
  TP_DEVICE long long row(int tile, int jc) const {
    const int jt = tile % iter_j, zt = (tile / iter_j) % iter_z;
    const int q = jt * ncols1 + jc / ncols2, c = zt * ncols2 + jc % ncols2;
    if (q >= n_q || c >= gqa) return -1;
    return ((long long)kv_head(tile) * gqa + c) * n_q + q;
  }
};

// flash_attn_stream_k_fixup_uniform: blocks % ntiles == 0 && blocks > ntiles, so every tile is split over exactly
// blocks/ntiles blocks. One block of one warp per tile: start from the last block's unnormalised dst piece and its
// needs_fixup meta, fold the earlier blocks' fixup data in reverse, write O = A/L and the final (M, L).
template <int DV, int ncols>
TP_GLOBAL void flash_attn_stream_k_fixup_uniform(tp::gmem<float> dst, tp::gmem<float> dst_final_meta,
                                                 tp::gmem<float> fix_meta, tp::gmem<float> fix_data, fa_tiling tl,
                                                 int stream_k_blocks) {
  const int tile = int(tp::block_idx());
  const int lane = int(tp::lane_id());
  const int ntiles = int(tp::grid_dim());
  const int per_tile = stream_k_blocks / ntiles;
  const int b_last = tile * per_tile + per_tile - 1;
  for (int jc = 0; jc < ncols; ++jc) {
    const long long row = tl.row(tile, jc);
    if (row < 0) continue;
    float M = fix_meta.ld(2 * ((long long)b_last * ncols + jc) + 0);
    float L = fix_meta.ld(2 * ((long long)b_last * ncols + jc) + 1);
    float A[DV / fa_warp];
    for (int n = 0; n < DV / fa_warp; ++n) A[n] = dst.ld(row * DV + lane + fa_warp * n);
    for (int b = b_last - 1; b >= tile * per_tile; --b) {
      const long long slot = (long long)(stream_k_blocks + b) * ncols + jc;
      const float m_b = fix_meta.ld(2 * slot + 0), l_b = fix_meta.ld(2 * slot + 1);
      const float M_new = fa_fmaxf(M, m_b);
      const float s_old = fa_merge_scale(M, M_new), s_b = fa_merge_scale(m_b, M_new);
      for (int n = 0; n < DV / fa_warp; ++n)
        A[n] = s_old * A[n] + s_b * fix_data.ld(((long long)b * ncols + jc) * DV + lane + fa_warp * n);
      L = s_old * L + s_b * l_b;
      M = M_new;
    }
    for (int n = 0; n < DV / fa_warp; ++n) dst.st(row * DV + lane + fa_warp * n, A[n] / L);
    if (lane == 0) {
      dst_final_meta.st(2 * row + 0, M);
      dst_final_meta.st(2 * row + 1, L);
    }
  }
}

// flash_attn_stream_k_fixup_general: one fixup block per stream-k block b. Only a block that started mid-tile and
// reached that tile's end owns a fixup; it walks back over the blocks before it until one began at or before the
// tile start. Returns at once otherwise, so a tile done by a single block is never visited (docs/bugs/fattn-kernel.md
// §7).
template <int DV, int ncols>
TP_GLOBAL void flash_attn_stream_k_fixup_general(tp::gmem<float> dst, tp::gmem<float> dst_final_meta,
                                                 tp::gmem<float> fix_meta, tp::gmem<float> fix_data, fa_tiling tl,
                                                 int iter_k, long long units) {
  const int b = int(tp::block_idx());
  const int G = int(tp::grid_dim());
  const int lane = int(tp::lane_id());
  const long long kbc0 = fa_kbc_begin(b, units, G);
  const long long kbc0_stop = fa_kbc_begin(b + 1, units, G);
  if (kbc0 == kbc0_stop) return;          // no data
  if (kbc0 % iter_k == 0) return;         // started on a tile boundary
  const long long tile = kbc0 / iter_k;
  const long long tile_start = tile * iter_k;
  if (kbc0_stop < tile_start + iter_k) return;  // never reached the tile's end
  for (int jc = 0; jc < ncols; ++jc) {
    const long long row = tl.row(int(tile), jc);
    if (row < 0) continue;
    float M = fix_meta.ld(2 * ((long long)b * ncols + jc) + 0);
    float L = fix_meta.ld(2 * ((long long)b * ncols + jc) + 1);
    float A[DV / fa_warp];
    for (int n = 0; n < DV / fa_warp; ++n) A[n] = dst.ld(row * DV + lane + fa_warp * n);
    for (int bp = b - 1; bp >= 0; --bp) {
      const long long slot = (long long)(G + bp) * ncols + jc;
      const float m_b = fix_meta.ld(2 * slot + 0), l_b = fix_meta.ld(2 * slot + 1);
      const float M_new = fa_fmaxf(M, m_b);
      const float s_old = fa_merge_scale(M, M_new), s_b = fa_merge_scale(m_b, M_new);
      for (int n = 0; n < DV / fa_warp; ++n)
        A[n] = s_old * A[n] + s_b * fix_data.ld(((long long)bp * ncols + jc) * DV + lane + fa_warp * n);
      L = s_old * L + s_b * l_b;
      M = M_new;
      if (fa_kbc_begin(bp, units, G) <= tile_start) break;
    }
    for (int n = 0; n < DV / fa_warp; ++n) dst.st(row * DV + lane + fa_warp * n, A[n] / L);
    if (lane == 0) {
      dst_final_meta.st(2 * row + 0, M);
      dst_final_meta.st(2 * row + 1, L);
    }
  }
}

// flash_attn_combine_results (non-stream-k parallel_blocks path): O = Σ e^(m_l-M) A_l / Σ e^(m_l-M) l_l over the
// `parallel_blocks` partials of one tile; stores (kqmax, denominator) as beellama does. One warp per tile.
template <int DV, int ncols>
TP_GLOBAL void flash_attn_combine_results(tp::gmem<float> dst, tp::gmem<float> dst_final_meta,
                                          tp::gmem<float> parts_meta, tp::gmem<float> parts_data, fa_tiling tl,
                                          int parallel_blocks, int meta_offset_blocks) {
  const int tile = int(tp::block_idx());
  const int lane = int(tp::lane_id());
  for (int jc = 0; jc < ncols; ++jc) {
    const long long row = tl.row(tile, jc);
    if (row < 0) continue;
    float kqmax = fa_kq_max_init;
    for (int p = 0; p < parallel_blocks; ++p) {
      const long long slot = (long long)(meta_offset_blocks + tile * parallel_blocks + p) * ncols + jc;
      kqmax = fa_fmaxf(kqmax, parts_meta.ld(2 * slot + 0));
    }
    float num[DV / fa_warp] = {};
    float den = 0.0f;
    for (int p = 0; p < parallel_blocks; ++p) {
      const long long slot = (long long)(meta_offset_blocks + tile * parallel_blocks + p) * ncols + jc;
      const float s = fa_merge_scale(parts_meta.ld(2 * slot + 0), kqmax);
      den += s * parts_meta.ld(2 * slot + 1);
      const long long data = ((long long)(tile * parallel_blocks + p) * ncols + jc) * DV;
      for (int n = 0; n < DV / fa_warp; ++n) num[n] += s * parts_data.ld(data + lane + fa_warp * n);
    }
    for (int n = 0; n < DV / fa_warp; ++n) dst.st(row * DV + lane + fa_warp * n, num[n] / den);
    if (lane == 0) {
      dst_final_meta.st(2 * row + 0, kqmax);
      dst_final_meta.st(2 * row + 1, den);
    }
  }
}

// The tail pass over the recent unquantised f16 tokens: one warp per output row, one online-softmax sweep.
// Writes normalised O_t and (m_t, l_t); with no tail rows l_t = 0 (an invalid part for the merge). Row hq·n_q + q
// reads K/V head hq / gqa.
template <int DKQ, int DV>
TP_GLOBAL void flash_attn_ext_tail_f16(tp::gmem<float> Q, tp::gmem<float> K, tp::gmem<float> V,
                                       tp::gmem<float> dst, tp::gmem<float> meta, int n_q, int gqa, int n_tail,
                                       float scale) {
  const long long row = tp::block_idx();
  const int head = int(row / n_q) / gqa;
  const int lane = int(tp::lane_id());
  float q[DKQ / fa_warp];
  for (int n = 0; n < DKQ / fa_warp; ++n) q[n] = Q.ld(row * DKQ + lane + fa_warp * n) * scale;
  float m = fa_kq_max_init, l = 0.0f;
  float acc[DV / fa_warp] = {};
  for (int i = 0; i < n_tail; ++i) {
    const long long kv = (long long)head * n_tail + i;
    float s[1] = {0.0f};
    for (int n = 0; n < DKQ / fa_warp; ++n) s[0] += q[n] * K.ld(kv * DKQ + lane + fa_warp * n);
    fa_warp_sum(s);
    const float m_new = fa_fmaxf(m, s[0] + FATTN_KQ_MAX_OFFSET);
    const float alpha = fa_merge_scale(m, m_new);
    const float p = fa_expf(s[0] - m_new);
    l = alpha * l + p;
    for (int n = 0; n < DV / fa_warp; ++n) acc[n] = alpha * acc[n] + p * V.ld(kv * DV + lane + fa_warp * n);
    m = m_new;
  }
  for (int n = 0; n < DV / fa_warp; ++n) dst.st(row * DV + lane + fa_warp * n, l > 0.0f ? acc[n] / l : 0.0f);
  if (lane == 0) {
    meta.st(2 * row + 0, m);
    meta.st(2 * row + 1, l);
  }
}

// k_flash_attn_ext_tail_partials_merge (fattn-tail.cuh): merge the normalised body output with the tail output by
// their meta. A part is valid iff l > 0 and (m, l) finite; invalid parts weigh 0. A body row whose meta was never
// published still holds the memset's (0, 0): it is dropped and the row becomes tail-only attention
// (docs/bugs/fattn-kernel.md §8).
template <int DV>
TP_GLOBAL void k_flash_attn_ext_tail_partials_merge(tp::gmem<float> body, tp::gmem<float> body_meta,
                                                    tp::gmem<float> tail, tp::gmem<float> tail_meta,
                                                    tp::gmem<float> out) {
  const long long row = tp::block_idx();
  const int lane = int(tp::lane_id());
  const float m_b = body_meta.ld(2 * row + 0), l_b = body_meta.ld(2 * row + 1);
  const float m_t = tail_meta.ld(2 * row + 0), l_t = tail_meta.ld(2 * row + 1);
  const bool bv = l_b > 0.0f && fa_isfinite(m_b) && fa_isfinite(l_b);
  const bool tv = l_t > 0.0f && fa_isfinite(m_t) && fa_isfinite(l_t);
  const float M = bv && tv ? fa_fmaxf(m_b, m_t) : (bv ? m_b : m_t);
  const float w_b = bv ? l_b * fa_expf(m_b - M) : 0.0f;
  const float w_t = tv ? l_t * fa_expf(m_t - M) : 0.0f;
  const float den = w_b + w_t;
  for (int n = 0; n < DV / fa_warp; ++n) {
    const long long i = row * DV + lane + fa_warp * n;
    const float o_b = bv ? body.ld(i) : 0.0f;
    const float o_t = tv ? tail.ld(i) : 0.0f;
    out.st(i, den > 0.0f ? (o_b * w_b + o_t * w_t) / den : 0.0f);
  }
}

}  // namespace TP_VARIANT_NS
