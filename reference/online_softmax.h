// The online-softmax triple (m, l, acc) and its merge (docs/bugs/fattn-kernel.md §4, §7), in fp64. This exists so the
// oracle's own tests can show that chunked/merged softmax equals the one-pass attention() (to ~1e-12), and so a
// probe can state what a CORRECT partial merge gives. Kernels never use it (kernels never include reference/).
//
//   update(scores, V rows):  m' = max(m, max_i s_i);  α = e^(m - m');  p_i = e^(s_i - m')
//                            l' = α·l + Σ p_i;  acc' = α·acc + Σ p_i·v_i
//   merge(a, b):             M = max(m_a, m_b);  σ_x = e^(m_x - M);  l = σ_a l_a + σ_b l_b;  acc = σ_a acc_a + σ_b
//   acc_b
// α and σ are flushed to 0 when the exponent is below softmax_ftz_threshold (-20, SOFTMAX_FTZ_THRESHOLD upstream);
// p_i are not flushed. A part with m = -inf (nothing seen yet) has weight 0. No FATTN_KQ_MAX_OFFSET is applied:
// the offset cancels exactly in O = acc / l and exists upstream only to keep fp16 accumulators finite.
#pragma once

#include <cstddef>
#include <limits>
#include <span>
#include <vector>

#include "reference/matrix.h"

namespace tp::ref {

inline constexpr double softmax_ftz_threshold = -20.0;

// e^(x - M) with the upstream flush: 0 if x - M < threshold or x = -inf.
double softmax_scale(double x, double max, double threshold = softmax_ftz_threshold);

struct softmax_triple {
  double m = -std::numeric_limits<double>::infinity();
  double l = 0.0;
  std::vector<double> acc;  // dv, unnormalised Σ p·v

  softmax_triple() = default;
  explicit softmax_triple(std::size_t dv) : acc(dv, 0.0) {}

  // scores.size() == v_rows.rows, v_rows.cols == acc.size(); -inf scores contribute nothing.
  void update(std::span<const double> scores, matrix_view<double> v_rows,
              double threshold = softmax_ftz_threshold);
  // acc / l, or all zeros when l == 0.
  std::vector<double> output() const;
};

softmax_triple merge(const softmax_triple& a, const softmax_triple& b, double threshold = softmax_ftz_threshold);

// The KVarN exact-tail merge rule as upstream's consumer applies it to NORMALISED partial outputs
// (docs/bugs/fattn-kernel.md §8): a part is valid iff l > 0 and m, l finite; M = max over valid parts; w_x = l_x·e^(m_x
// - M); O = (O_b·w_b + O_t·w_t) / (w_b + w_t); invalid parts weigh 0; both invalid -> zeros.
// Here so a probe can predict the wrong answer exactly: body meta (0, 0) yields tail-only attention.
std::vector<double> kvarn_tail_merge(std::span<const double> o_body, double m_body, double l_body,
                                     std::span<const double> o_tail, double m_tail, double l_tail);

}  // namespace tp::ref
