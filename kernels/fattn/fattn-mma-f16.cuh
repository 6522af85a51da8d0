// The flash-attention forward kernel as beellama had it before PR #149 (docs/bugs/fattn-kernel.md §5, §6;
// docs/bugs/fa-k00-combine-race.md, fa-missing-tile-meta.md): flash_attn_ext_f16_process_tile and the stream-k driver
// flash_attn_ext_f16. Upstream names and phases; plain fp32 dot products stand in for the MMA tiles (see api.h for what
// else is simplified and why it does not matter here).
//
// Lane layout (ours): lane l of a warp owns head-dim elements d = l + 32·n of Q, of VKQ and of the output. A Q·K
// score needs a warp-wide sum, after which every lane holds every score of its warp, so the online softmax state
// (m, l) of a column is the same on all lanes of the warp that owns it.
//
// tile_Q holds fp16 as upstream's half2 does (fa_float2half: round to nearest even): one Q row is DKQ halves plus an
// 8-half pad (upstream: DKQ/2 + 4 half2), so the shared memory is upstream's size (D256 ncols 64: 33 KiB, inside the
// 64 KiB of an RDNA workgroup). The combine scratch reuses the same memory with row stride 2·nbatch_combine + 8
// halves, one row per (warp, column) pair, VKQ rounded to fp16 as upstream's half2 tile, and the meta (m, l) as a
// float2 at half offset 2·nbatch_combine: the pad W never touches. Past both (upstream: past tile_mask, in the KVarN
// scratch) lie the KVARN/KVARN kernel's record-axis group tags, as floats.
#pragma once

#include "simt/simt.h"
#include "fattn-common.cuh"

namespace TP_VARIANT_NS {

// Everything a launch passes, by value. Row r = hq*n_q + q for Q, dst and dst_final_meta (tl maps a tile's columns to
// rows); K/V are [kv_head][kv][D].
// fix_meta holds float2 slots: [0, G·ncols) needs_fixup meta, [G·ncols, 2G·ncols) is_fixup meta
// (docs/bugs/fattn-kernel.md §6); fix_data holds G·ncols rows of DV floats, the is_fixup blocks' unnormalised VKQ.
struct fattn_args {
  tp::gmem<float> Q, K, V, dst, dst_final_meta, fix_meta, fix_data;
  int n_q, n_kv, n_head;  // n_head: K/V heads
  int iter_k, iter_j;
  fa_tiling tl;
  float scale;
  int is_kvarn_kv;     // upstream: a compile-time property of the K/V types (K or V KVarN)
  int kvarn_kvarn;     // upstream: type_K and type_V both KVarN (the record-axis tags and their entry barrier)
  int has_final_meta;  // upstream: dst_final_meta != nullptr
  // Not upstream: thread 0 of a block records each process_tile call (tile, kb0_start, kb0_stop, needs_fixup,
  // is_fixup) at slot [block][segment], so tests see the stream-k partition the kernel really ran. seg_cap slots per
  // block; with seg_cap == 1 every block runs one segment (the parallel_blocks path relies on that).
  int seg_cap;
  tp::gmem<int> seg_log;
};
// No padding: the struct is the kernel's argument by value, and padding bytes would be whatever the host's stack held,
// so a recorded launch (the rocJITsu corpus: tests/amdgpu_sim/rocjitsu) would differ from run to run. seg_cap sits
// before seg_log for that reason.
static_assert(sizeof(fattn_args) == 7 * sizeof(tp::gmem<float>) + sizeof(tp::gmem<int>) + 9 * sizeof(int) +
                                        sizeof(fa_tiling) + sizeof(float),
              "fattn_args has padding: its kernarg bytes would not be a function of its members");

template <int DKQ_, int DV_, int ncols_, int nwarps_, int cols_per_warp_, int nbatch_fa_, int nbatch_combine_>
struct fattn_cfg {
  static constexpr int DKQ = DKQ_, DV = DV_, ncols = ncols_, nwarps = nwarps_, cols_per_warp = cols_per_warp_;
  static constexpr int nbatch_fa = nbatch_fa_, nbatch_combine = nbatch_combine_;
  static constexpr int np = cols_per_warp > ncols ? nwarps : nwarps * cols_per_warp / ncols;
  static constexpr int nthreads = nwarps * fa_warp;
  static constexpr int kv_subblock = 16;  // T_A_KQ::I: rows of one warp's KV sub-block
  static constexpr int rows_per_warp = nbatch_fa / np;
  static constexpr int stride_tile_Q = DKQ + 8;              // halves
  static constexpr int stride_combine = 2 * nbatch_combine + 8;  // halves; even, so the meta float2 is aligned
  static constexpr int smem_halves = ncols * stride_tile_Q > nwarps * cols_per_warp * stride_combine
                                         ? ncols * stride_tile_Q
                                         : nwarps * cols_per_warp * stride_combine;
  // The KVARN/KVARN kernel's record-axis group tags: two per 128-wide head-dim slice, clear of Q and combine scratch,
  // at float index tag_float0 (smem_halves is even).
  static constexpr int axis_tag_count = 2 * (DKQ / 128);
  static constexpr int tag_float0 = smem_halves / 2;
  static constexpr int smem_bytes = smem_halves * 2 + axis_tag_count * 4;
  static_assert(DKQ % fa_warp == 0 && DV % fa_warp == 0, "a lane owns d = lane + 32n");
  static_assert((2 * nbatch_combine) % fa_warp == 0 && (DV / 2) % nbatch_combine == 0);
  static_assert(nbatch_fa % (np * kv_subblock) == 0);
  static_assert(np * ncols == nwarps * cols_per_warp, "every warp owns cols_per_warp columns of one np group");
  static_assert(DKQ % 128 == 0, "KVarN slices the head dim by 128");
};

// One KV batch of flash_attn_ext_f16_iter: Q·K^T for this warp's rows (sub-blocks (w%np)·16 + n·np·16), online
// softmax per column, P·V into this warp's accumulators.
template <class C>
TP_DEVICE void flash_attn_ext_f16_iter(const fattn_args& a, int kv_head, int kb0, const float (&Q_reg)[C::cols_per_warp][C::DKQ / fa_warp],
                                       float (&KQ_max)[C::cols_per_warp], float (&KQ_rowsum)[C::cols_per_warp],
                                       float (&VKQ)[C::cols_per_warp][C::DV / fa_warp]) {
  constexpr int cpw = C::cols_per_warp, np = C::np, DKQ = C::DKQ, DV = C::DV;
  const int w = int(tp::warp_id()), lane = int(tp::lane_id());
  const float neg_inf = -__builtin_inff();
  float KQ[C::rows_per_warp][cpw];
  int kv_row[C::rows_per_warp];
  int r = 0;
  for (int sb = (w % np) * C::kv_subblock; sb < C::nbatch_fa; sb += np * C::kv_subblock) {
    for (int ii = 0; ii < C::kv_subblock; ++ii, ++r) {
      const int i = kb0 * C::nbatch_fa + sb + ii;
      kv_row[r] = i;
      float part[cpw] = {};
      if (i < a.n_kv) {
        const long long base = ((long long)kv_head * a.n_kv + i) * DKQ;
        for (int n = 0; n < DKQ / fa_warp; ++n) {
          const float k = a.K.ld(base + lane + fa_warp * n);
          for (int jj = 0; jj < cpw; ++jj) part[jj] += Q_reg[jj][n] * k;
        }
      }
      fa_warp_sum(part);
      for (int jj = 0; jj < cpw; ++jj) KQ[r][jj] = i < a.n_kv ? part[jj] : neg_inf;
    }
  }
  for (int jj = 0; jj < cpw; ++jj) {
    float batch_max = neg_inf;
    for (int rr = 0; rr < C::rows_per_warp; ++rr) batch_max = fa_fmaxf(batch_max, KQ[rr][jj]);
    const float m_new = fa_fmaxf(KQ_max[jj], batch_max + FATTN_KQ_MAX_OFFSET);
    const float alpha = fa_merge_scale(KQ_max[jj], m_new);
    float sum = 0.0f;
    for (int rr = 0; rr < C::rows_per_warp; ++rr) {
      KQ[rr][jj] = fa_expf(KQ[rr][jj] - m_new);
      sum += KQ[rr][jj];
    }
    KQ_rowsum[jj] = alpha * KQ_rowsum[jj] + sum;
    KQ_max[jj] = m_new;
    for (int n = 0; n < DV / fa_warp; ++n) VKQ[jj][n] *= alpha;
  }
  for (int rr = 0; rr < C::rows_per_warp; ++rr) {
    if (kv_row[rr] >= a.n_kv) continue;
    const long long base = ((long long)kv_head * a.n_kv + kv_row[rr]) * DV;
    for (int n = 0; n < DV / fa_warp; ++n) {
      const float v = a.V.ld(base + lane + fa_warp * n);
      for (int jj = 0; jj < cpw; ++jj) VKQ[jj][n] += KQ[rr][jj] * v;
    }
  }
}

// One tile (ncols1 tokens x ncols2 Q heads of one K/V head) over KV batches [kb0_start, kb0_stop). Phases as
// docs/bugs/fattn-kernel.md §5.
//   whole tile   (!needs_fixup && !is_fixup): normalised output to dst, final meta to dst_final_meta
//   needs_fixup  (started mid-tile, reached its end): unnormalised output to dst, (m, l) to fix_meta[b]
//   is_fixup     (ends mid-tile): unnormalised output to fix_data[b], (m, l) to fix_meta[G + b]
template <class C>
TP_DEVICE void flash_attn_ext_f16_process_tile(const fattn_args& a, tp::smem<float> tile_Q, int tile, int kb0_start,
                                               int kb0_stop, bool needs_fixup, bool is_fixup) {
  constexpr int cpw = C::cols_per_warp, np = C::np, nwarps = C::nwarps, ncols = C::ncols;
  constexpr int DKQ = C::DKQ, DV = C::DV, nbatch_combine = C::nbatch_combine;
  constexpr int meta_col = 2 * nbatch_combine;  // the pad of a combine row (a half offset)
  // tile_Q as halves (Q, VKQ); tile_Q itself addresses floats (meta, tags): meta of combine row r at float
  // (r·stride_combine + meta_col) / 2, + 1 for the row sum.
  const tp::smem<unsigned short> tile_Q_h = tile_Q.template as<unsigned short>();
  const auto meta_at = [](int row) { return (row * C::stride_combine + meta_col) / 2; };
  const int w = int(tp::warp_id()), lane = int(tp::lane_id());
  const int b = int(tp::block_idx()), G = int(tp::grid_dim());
  const int c0 = (w / np) * cpw;  // first Q column owned by this warp
  const bool whole = !needs_fixup && !is_fixup;
  if (tp::thread_idx() == 0) {
    const long long units = (long long)a.iter_k * a.iter_j * a.tl.iter_z * a.n_head;
    const int seg = a.seg_cap == 1 ? 0 : tile - int(fa_kbc_begin(b, units, G) / a.iter_k);
    const long long at = ((long long)b * a.seg_cap + seg) * 5;
    a.seg_log.st(at + 0, tile);
    a.seg_log.st(at + 1, kb0_start);
    a.seg_log.st(at + 2, kb0_stop);
    a.seg_log.st(at + 3, needs_fixup ? 1 : 0);
    a.seg_log.st(at + 4, is_fixup ? 1 : 0);
  }

  // KVARN/KVARN only: thread 0 resets the record-axis group tags (the K/V loads cache which 128-token group's axes
  // they hold), then every thread waits. The barrier also orders this tile's P0 after the previous tile's combine.
  if (a.kvarn_kvarn) {
    if (tp::thread_idx() == 0)
      for (int i = 0; i < C::axis_tag_count; ++i) tile_Q.st(C::tag_float0 + i, -1.0f);
    tp::sync_threads();
  }

  // P0: scaled Q into tile_Q; warp w fills rows w, w+nwarps, ... (rows other warps will own).
  for (int jc = w; jc < ncols; jc += nwarps) {
    const long long q_row = a.tl.row(tile, jc);  // -1: past n_q or a padding head, loaded as zeros
    for (int k = lane; k < DKQ; k += fa_warp) {
      const float v = q_row >= 0 ? a.Q.ld(q_row * DKQ + k) * a.scale : 0.0f;
      tile_Q_h.st(jc * C::stride_tile_Q + k, fa_float2half(v));
    }
  }
  tp::sync_threads();

  // P1: Q_in_reg: each warp loads its own columns.
  float Q_reg[cpw][DKQ / fa_warp];
  for (int jj = 0; jj < cpw; ++jj)
    for (int n = 0; n < DKQ / fa_warp; ++n)
      Q_reg[jj][n] = fa_half2float(tile_Q_h.ld((c0 + jj) * C::stride_tile_Q + lane + fa_warp * n));
  tp::sync_threads();

  // P3: the KV batches of this tile segment.
  float KQ_max[cpw], KQ_rowsum[cpw], VKQ[cpw][DV / fa_warp];
  for (int jj = 0; jj < cpw; ++jj) {
    KQ_max[jj] = fa_kq_max_init;
    KQ_rowsum[jj] = 0.0f;
    for (int n = 0; n < DV / fa_warp; ++n) VKQ[jj][n] = 0.0f;
  }
  for (int kb0 = kb0_start; kb0 < kb0_stop; ++kb0) flash_attn_ext_f16_iter<C>(a, a.tl.kv_head(tile), kb0, Q_reg, KQ_max, KQ_rowsum, VKQ);

  // P6: meta (m, l) into the pad of this warp's combine rows; fixup meta for np == 1.
  if (whole || np > 1) {
    for (int jj = 0; jj < cpw; ++jj) {
      if (lane != jj) continue;
      const int row = w * cpw + jj;
      tile_Q.st(meta_at(row) + 0, KQ_max[jj]);
      tile_Q.st(meta_at(row) + 1, KQ_rowsum[jj]);
    }
  }
  if (np == 1) {
    for (int jj = 0; jj < cpw; ++jj) {
      const long long out_row = a.tl.row(tile, c0 + jj);
      if (lane != jj || out_row < 0) continue;
      if (!a.is_kvarn_kv && !needs_fixup && !is_fixup && a.has_final_meta) {
        a.dst_final_meta.st(2 * out_row + 0, KQ_max[jj]);
        a.dst_final_meta.st(2 * out_row + 1, KQ_rowsum[jj]);
      }
    }
  }
  tp::sync_threads();
  if (np == 1 && (needs_fixup || is_fixup)) {
    const long long slot0 = (long long)(needs_fixup ? b : G + b) * ncols;
    for (int jj = 0; jj < cpw; ++jj) {
      if (lane != jj) continue;
      a.fix_meta.st(2 * (slot0 + c0 + jj) + 0, KQ_max[jj]);
      a.fix_meta.st(2 * (slot0 + c0 + jj) + 1, KQ_rowsum[jj]);
    }
  }

  // P7: np > 1: the first warp of each np group merges its partners' meta and writes (s_p, L) back.
  if constexpr (np > 1) {
    float M[cpw], L[cpw], s_p[cpw][np];
    const bool merger = w % np == 0;
    if (merger) {
      for (int jj = 0; jj < cpw; ++jj) {
        float m_p[np], l_p[np];
        M[jj] = fa_kq_max_init;
        for (int p = 0; p < np; ++p) {
          const int row = (w + p) * cpw + jj;
          m_p[p] = tile_Q.ld(meta_at(row) + 0);
          l_p[p] = tile_Q.ld(meta_at(row) + 1);
          M[jj] = fa_fmaxf(M[jj], m_p[p]);
        }
        L[jj] = 0.0f;
        for (int p = 0; p < np; ++p) {
          s_p[jj][p] = fa_merge_scale(m_p[p], M[jj]);
          L[jj] += s_p[jj][p] * l_p[p];
        }
      }
    }
    tp::sync_threads();
    if (merger) {
      for (int jj = 0; jj < cpw; ++jj) {
        if (lane != jj) continue;
        for (int p = 0; p < np; ++p) {
          const int row = (w + p) * cpw + jj;
          tile_Q.st(meta_at(row) + 0, s_p[jj][p]);
          tile_Q.st(meta_at(row) + 1, L[jj]);
        }
        if (needs_fixup || is_fixup) {
          const long long slot = (long long)(needs_fixup ? b : G + b) * ncols + c0 + jj;
          a.fix_meta.st(2 * slot + 0, M[jj]);
          a.fix_meta.st(2 * slot + 1, L[jj]);
        }
        const long long out_row = a.tl.row(tile, c0 + jj);
        if (!a.is_kvarn_kv && !needs_fixup && !is_fixup && a.has_final_meta && out_row >= 0) {
          a.dst_final_meta.st(2 * out_row + 0, M[jj]);
          a.dst_final_meta.st(2 * out_row + 1, L[jj]);
        }
      }
    }
  }

  // P8: the k00 combine loop on the reused tile_Q.
  for (int k00 = 0; k00 < DV / 2; k00 += nbatch_combine) {
    // W: this warp's VKQ columns [2·k00, 2·k00 + 2·nbatch_combine) into its own rows.
    for (int jj = 0; jj < cpw; ++jj)
      for (int n = 0; n < 2 * nbatch_combine / fa_warp; ++n)
        tile_Q_h.st((w * cpw + jj) * C::stride_combine + lane + fa_warp * n, fa_float2half(VKQ[jj][2 * k00 / fa_warp + n]));
    tp::sync_threads();
    tp::skew_point();
    // R: read back by a different mapping: warp w takes columns w/np, w/np + nwarps/np, ...
    if (np == 1 || w % np == 0) {
      for (int jc = w / np; jc < ncols; jc += nwarps / np) {
        const long long out_row = a.tl.row(tile, jc);
        if (out_row < 0) continue;
        const int row0 = (jc / cpw) * np * cpw + jc % cpw;  // partner p's row: row0 + p·cpw
        float s[np];
        for (int p = 0; p < np; ++p)
          s[p] = np == 1 ? 1.0f : tile_Q.ld(meta_at(row0 + p * cpw) + 0);
        const float L = whole ? tile_Q.ld(meta_at(row0) + 1) : 1.0f;
        for (int k = lane; k < 2 * nbatch_combine; k += fa_warp) {
          float v = 0.0f;
          for (int p = 0; p < np; ++p) v += s[p] * fa_half2float(tile_Q_h.ld((row0 + p * cpw) * C::stride_combine + k));
          if (whole) v /= L;
          if (is_fixup)
            a.fix_data.st(((long long)b * ncols + jc) * DV + 2 * k00 + k, v);
          else
            a.dst.st(out_row * DV + 2 * k00 + k, v);
        }
      }
    }
    if (np > 1) {
      tp::sync_threads();
    }
  }
}

// The stream-k driver: units = tiles × KV batches, block b takes [b·U/G, (b+1)·U/G). Whole tiles and the
// tile-end segment run in the loop, one after the other; the segment that ends mid-tile runs last as is_fixup.
template <class C>
TP_GLOBAL void flash_attn_ext_f16(fattn_args a) {
  TP_DYNAMIC_SHARED(float, tile_Q);
  const int iter_k = a.iter_k;
  const long long units = (long long)iter_k * a.iter_j * a.tl.iter_z * a.n_head;
  const int b = int(tp::block_idx()), G = int(tp::grid_dim());
  long long kbc = fa_kbc_begin(b, units, G);
  const long long kbc_stop = fa_kbc_begin(b + 1, units, G);
  int kb0_start = int(kbc % iter_k);
  int kb0_stop = int(kb0_start + (kbc_stop - kbc) < iter_k ? kb0_start + (kbc_stop - kbc) : iter_k);
  while (kbc < kbc_stop && kb0_stop == iter_k) {
    const int tile = int(kbc / iter_k);
    flash_attn_ext_f16_process_tile<C>(a, tile_Q, tile, kb0_start, kb0_stop, kb0_start != 0, false);
    kbc += iter_k - kb0_start;
    kb0_start = 0;
    kb0_stop = int(kbc_stop - kbc < iter_k ? kbc_stop - kbc : iter_k);
  }
  if (kbc >= kbc_stop) return;
  flash_attn_ext_f16_process_tile<C>(a, tile_Q, int(kbc / iter_k), kb0_start, kb0_stop, false, true);
}

// The non-stream-k parallel_blocks path: block b = tile·P + p does KV batches [p·iter_k/P, (p+1)·iter_k/P) as an
// is_fixup segment; flash_attn_combine_results merges the P parts.
template <class C>
TP_GLOBAL void flash_attn_ext_f16_parallel_blocks(fattn_args a, int parallel_blocks) {
  TP_DYNAMIC_SHARED(float, tile_Q);
  const int b = int(tp::block_idx());
  const int tile = b / parallel_blocks, p = b % parallel_blocks;
  flash_attn_ext_f16_process_tile<C>(a, tile_Q, tile, p * a.iter_k / parallel_blocks,
                                     (p + 1) * a.iter_k / parallel_blocks, false, true);
}

}  // namespace TP_VARIANT_NS
