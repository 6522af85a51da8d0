#include "reference/attention.h"

#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

namespace tp::ref {
namespace {

constexpr double neg_inf = -std::numeric_limits<double>::infinity();

struct kv_segment {
  matrix_view<double> k, v;
  const matrix_view<double>* mask;
};

void check_segment(const matrix_view<double>& q, const kv_segment& s, std::size_t dv, const char* name) {
  if (s.k.cols != q.cols)
    throw std::invalid_argument(std::string("attention: ") + name + " K has " + std::to_string(s.k.cols) +
                                " columns, Q has " + std::to_string(q.cols));
  if (s.v.rows != s.k.rows)
    throw std::invalid_argument(std::string("attention: ") + name + " V has " + std::to_string(s.v.rows) +
                                " rows, K has " + std::to_string(s.k.rows));
  if (s.v.cols != dv) throw std::invalid_argument("attention: body and tail V widths differ");
  if (s.mask && (s.mask->rows != q.rows || s.mask->cols != s.k.rows))
    throw std::invalid_argument(std::string("attention: ") + name + " mask must be " + std::to_string(q.rows) + "x" +
                                std::to_string(s.k.rows));
}

attention_result attend(matrix_view<double> q, const std::vector<kv_segment>& segs, double scale,
                        std::optional<double> sink) {
  const std::size_t dv = segs.front().v.cols;
  const char* names[] = {"body", "tail"};
  for (std::size_t s = 0; s < segs.size(); ++s) check_segment(q, segs[s], dv, segs.size() == 1 ? "" : names[s]);

  attention_result r{matrix<double>(q.rows, dv, 0.0), std::vector<double>(q.rows), std::vector<double>(q.rows)};
  std::vector<double> scores;
  for (std::size_t i = 0; i < q.rows; ++i) {
    scores.clear();
    double m = sink ? *sink : neg_inf;
    bool nan = sink && std::isnan(*sink);
    for (const auto& seg : segs)
      for (std::size_t j = 0; j < seg.k.rows; ++j) {
        double dot = 0.0;
        for (std::size_t d = 0; d < q.cols; ++d) dot += q(i, d) * seg.k(j, d);
        double s = scale * dot + (seg.mask ? (*seg.mask)(i, j) : 0.0);
        nan = nan || std::isnan(s);
        if (s > m) m = s;
        scores.push_back(s);
      }
    if (nan) {
      r.m[i] = r.l[i] = std::numeric_limits<double>::quiet_NaN();
      for (std::size_t c = 0; c < dv; ++c) r.o(i, c) = std::numeric_limits<double>::quiet_NaN();
      continue;
    }
    r.m[i] = m;
    if (m == neg_inf) {  // every key masked and no sink: no contribution at all
      r.l[i] = 0.0;
      continue;
    }
    double l = sink ? std::exp(*sink - m) : 0.0;
    std::size_t idx = 0;
    for (const auto& seg : segs)
      for (std::size_t j = 0; j < seg.k.rows; ++j, ++idx) {
        const double p = std::exp(scores[idx] - m);  // exp(-inf) = 0 for masked keys
        l += p;
        if (p != 0.0)
          for (std::size_t c = 0; c < dv; ++c) r.o(i, c) += p * seg.v(j, c);
      }
    r.l[i] = l;
    for (std::size_t c = 0; c < dv; ++c) r.o(i, c) /= l;
  }
  return r;
}

}  // namespace

attention_result attention(matrix_view<double> q, matrix_view<double> k, matrix_view<double> v, double scale,
                           const matrix_view<double>* mask, std::optional<double> sink) {
  return attend(q, {kv_segment{k, v, mask}}, scale, sink);
}

attention_result attention_body_tail(matrix_view<double> q, matrix_view<double> k_body, matrix_view<double> v_body,
                                     matrix_view<double> k_tail, matrix_view<double> v_tail, double scale,
                                     const matrix_view<double>* mask_body, const matrix_view<double>* mask_tail,
                                     std::optional<double> sink) {
  return attend(q, {kv_segment{k_body, v_body, mask_body}, kv_segment{k_tail, v_tail, mask_tail}}, scale, sink);
}

}  // namespace tp::ref
