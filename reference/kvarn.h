// KVarN-style quantisation of one 128-wide tile (docs/bugs/fattn-kernel.md §9): used to make realistic quantised K/V
// bodies for the flash-attention probes. Not bit-compatible with beellama's records (docs/bugs/fattn-kernel.md §13 Q6);
// it reproduces the numerical pipeline:
//   1. (optional) normalised Walsh-Hadamard along each row: y = H x / sqrt(n), self-inverse, orthogonal;
//   2. Sinkhorn variance normalisation in the log domain, both axes (details at sinkhorn());
//   3. per-row asymmetric b-bit quantisation of B = T / (s_c ⊗ s_r):
//        lo = min_c B, hi = max_c B, scale = max((hi - lo) / (2^b - 1), 1e-10),
//        q = clamp(round_half_away((B - lo) / scale), 0, 2^b - 1)
//      stored parameters a_r = fp16(s_r·scale), b_r = fp16(s_r·lo), and fp16(s_c) per column;
//   4. dequantise X[r][c] = (q·a_r + b_r)·s_c with the stored (fp16-rounded) parameters, in fp64;
//   5. (optional) the inverse rotation (the same H), so the result is back in the input's domain.
// Error model (derived in quantize_dequantize's tests). With exact parameters (round_params_fp16 = false) and no
// rotation, per element |X̂ - X| <= s_r·s_c·scale_r / 2 (plus fp64 noise), because |B - (q·scale + lo)| <=
// scale/2 and X = B·s_r·s_c. fp16 parameters add |q·a_r|·u + |b_r|·u (u = 2^-11, + 2^-25 absolute per value
// for fp16 subnormals) times s_c, plus |q·a_r + b_r|·|s_c - fp16(s_c)|. With rotation the error vector of a row is
// H times the rotated-domain error: same Euclidean norm, max element <= that norm.
#pragma once

#include <cstddef>
#include <span>
#include <vector>

#include "reference/matrix.h"

namespace tp::ref {

// In-place normalised Walsh-Hadamard transform (Sylvester order, scaled by 1/sqrt(n)); n must be a power of two
// (std::invalid_argument otherwise). Applying it twice returns the input (up to rounding).
void walsh_hadamard(std::span<double> x);

struct sinkhorn_options {
  int iterations = 16;
  double std_min = 1e-3, std_max = 1e3;        // clamp of each measured std before taking its log
  double log_scale_min = -0.3, log_scale_max = 10.0;  // clamp of each accumulated log scale
};
struct sinkhorn_result {
  std::vector<double> col_scale;  // s_c, cols
  std::vector<double> row_scale;  // s_r, rows
  int best_iteration = 0;         // 0 = the identity scales (no iteration improved the imbalance)
  double imbalance_initial = 0.0;
  double imbalance_best = 0.0;
};
// Sinkhorn on a tile T (rows x cols). Starting from log s = 0, each iteration:
//   for every column c: std_c = population std over rows of T[r][c] / (s_c·s_r);
//                       log s_c += log(clamp(std_c, std_min, std_max)); then clamp log s_c to [log_scale_min,
//                       log_scale_max]
//   then the same for every row r with the updated column scales.
// imbalance(s) = max_c std_c / min_c std_c + max_r std_r / min_r std_r, measured on T/(s_c ⊗ s_r) with the same
// std clamp (so a constant row or column cannot divide by zero). The iterate with the smallest imbalance is kept,
// the identity included; ties keep the earlier iterate. Our reading of docs/bugs/fattn-kernel.md §9's one-line
// description: the clamps apply to the accumulated log scale, and std is the population std (n, not n-1) [I].
sinkhorn_result sinkhorn(matrix_view<double> tile, const sinkhorn_options& opt = {});

struct kvarn_options {
  int bits = 6;                 // 2..8
  bool rotate = true;           // Hadamard before, inverse after (cols must be a power of two; 128 in KVarN)
  bool round_params_fp16 = true;
  sinkhorn_options sinkhorn{};
};
struct kvarn_stats {
  sinkhorn_result sinkhorn;
  std::vector<double> row_step;        // scale_r (in the normalised domain B)
  std::vector<double> row_a, row_b;    // stored a_r, b_r (fp16-rounded when round_params_fp16)
  std::vector<double> col_s;           // stored s_c
  matrix<int> q;                       // the integer codes, rows x cols
  double max_abs_err = 0.0;            // of the returned tile against the input
  double rmse = 0.0;
};
struct kvarn_result {
  matrix<double> tile;  // reconstruction, same shape and domain as the input
  kvarn_stats stats;
};
// tile: rows x cols (cols = 128 for KVarN; any power of two when rotate, any width otherwise). Quantisation is per
// row; to quantise per column (KVarN's per-channel K) pass the transpose. std::invalid_argument on bad bits/shape
// or non-finite input.
kvarn_result quantize_dequantize(matrix_view<double> tile, const kvarn_options& opt = {});

}  // namespace tp::ref
