// Softmax attention in fp64, one head: the oracle for the flash-attention probes (docs/bugs/fattn-kernel.md §4, §8;
// docs/bugs/fa-missing-tile-meta.md §6).
//
//   s_ij = scale · q_i·k_j + mask_ij            (mask optional; -inf entries remove key j for query i)
//   m_i  = max(max_j s_ij, sink)                 (sink optional, one logit per head)
//   l_i  = Σ_j e^(s_ij - m_i) + e^(sink - m_i)   (the sink term only when a sink is given)
//   O_i  = Σ_j e^(s_ij - m_i) · v_j / l_i        (the sink adds to the denominator only, it has no value row)
// (m, l) are the same quantities as the kernel's final row meta (KQ_max, KQ_rowsum after the sink step P5).
// A row whose every key is masked and that has no sink has m = -inf, l = 0 and O = 0 (the convention of the
// KVarN tail merge, which treats l = 0 as "no contribution"). With a sink and all keys masked: m = sink, l = 1,
// O = 0.
#pragma once

#include <cstddef>
#include <optional>
#include <vector>

#include "reference/matrix.h"

namespace tp::ref {

struct attention_result {
  matrix<double> o;         // n_q x dv
  std::vector<double> m;    // per query row
  std::vector<double> l;    // per query row
};

// q: n_q x d, k: n_kv x d, v: n_kv x dv, mask: n_q x n_kv (nullptr = no mask). NaN in the mask or in the scores
// propagates (the oracle does not hide NaN). Shape mismatches throw std::invalid_argument.
attention_result attention(matrix_view<double> q, matrix_view<double> k, matrix_view<double> v, double scale,
                           const matrix_view<double>* mask = nullptr, std::optional<double> sink = std::nullopt);

// KVarN body + tail as the oracle sees it: attention over the concatenated keys [K_body; K_tail] and values
// [V_body; V_tail], computed in one pass (NOT by merging two partial results; docs/bugs/fa-missing-tile-meta.md §6).
// Masks, if given, are n_q x n_body and n_q x n_tail.
attention_result attention_body_tail(matrix_view<double> q, matrix_view<double> k_body, matrix_view<double> v_body,
                                     matrix_view<double> k_tail, matrix_view<double> v_tail, double scale,
                                     const matrix_view<double>* mask_body = nullptr,
                                     const matrix_view<double>* mask_tail = nullptr,
                                     std::optional<double> sink = std::nullopt);

}  // namespace tp::ref
