// Error metrics of a kernel's float output against an fp64 reference. In every function `actual` is the
// output under test and `ref` the oracle; sizes must match (std::invalid_argument otherwise).
// Non-finite values: an element is "equal" only if both sides are the same infinity or both NaN; any other
// pairing with a NaN or an infinity has error +inf (so max_abs_err reports it and count_wrong counts it).
#pragma once

#include <cstddef>
#include <functional>
#include <span>

namespace tp::ref {

// |actual_i - ref_i| under the rule above.
double abs_err(double actual, double ref);

struct max_abs_result {
  double value = 0.0;       // 0 for empty input
  std::size_t index = 0;    // first index attaining value (0 for empty input)
};
max_abs_result max_abs_err(std::span<const float> actual, std::span<const double> ref);
max_abs_result max_abs_err(std::span<const double> actual, std::span<const double> ref);

// Elements with abs_err > bound (a NaN bound counts every element as wrong).
std::size_t count_wrong(std::span<const float> actual, std::span<const double> ref, double bound);
std::size_t count_wrong(std::span<const double> actual, std::span<const double> ref, double bound);
// Per-element bound: bound(i, ref_i).
using bound_fn = std::function<double(std::size_t index, double ref)>;
std::size_t count_wrong(std::span<const float> actual, std::span<const double> ref, const bound_fn& bound);
std::size_t count_wrong(std::span<const double> actual, std::span<const double> ref, const bound_fn& bound);

// sqrt(Σ (a-b)² / n); 0 for empty input.
double rmse(std::span<const float> actual, std::span<const double> ref);
double rmse(std::span<const double> actual, std::span<const double> ref);
// NMSE = Σ (a-b)² / Σ b², b = the REFERENCE (upstream test-backend-ops divides by Σa² with a = its CPU reference:
// the same side). 0/0 -> 0; x/0 with x > 0 -> +inf.
double nmse(std::span<const float> actual, std::span<const double> ref);
double nmse(std::span<const double> actual, std::span<const double> ref);

// Rows of logits (row-major rows x cols). Per row, P = softmax(ref row), Q = softmax(actual row), both in fp64
// (max-subtracted); KL(P || Q) = Σ_v P_v (log P_v - log Q_v), terms with P_v = 0 contribute 0 (the direction of
// llama.cpp's --kl-divergence: reference first). same_top: argmax equal (ties -> lowest index).
struct logit_comparison {
  std::size_t rows = 0;
  double mean_kld = 0.0;
  double max_kld = 0.0;
  std::size_t max_kld_row = 0;
  double same_top_rate = 0.0;  // fraction of rows in [0, 1]; 0 rows -> 0
};
logit_comparison compare_logits(std::span<const float> actual, std::span<const double> ref, std::size_t rows,
                                std::size_t cols);
logit_comparison compare_logits(std::span<const double> actual, std::span<const double> ref, std::size_t rows,
                                std::size_t cols);

}  // namespace tp::ref
