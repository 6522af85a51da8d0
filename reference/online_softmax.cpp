#include "reference/online_softmax.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace tp::ref {

double softmax_scale(double x, double max, double threshold) {
  if (x == -std::numeric_limits<double>::infinity()) return 0.0;
  const double diff = x - max;
  return diff < threshold ? 0.0 : std::exp(diff);
}

void softmax_triple::update(std::span<const double> scores, matrix_view<double> v_rows, double threshold) {
  if (v_rows.rows != scores.size() || v_rows.cols != acc.size())
    throw std::invalid_argument("softmax_triple::update: " + std::to_string(scores.size()) + " scores need " +
                                std::to_string(scores.size()) + "x" + std::to_string(acc.size()) + " V rows, got " +
                                std::to_string(v_rows.rows) + "x" + std::to_string(v_rows.cols));
  double m_new = m;
  for (double s : scores)
    if (s > m_new || std::isnan(s)) m_new = s;
  if (m_new == -std::numeric_limits<double>::infinity()) return;  // nothing seen yet and nothing new
  const double alpha = softmax_scale(m, m_new, threshold);
  l *= alpha;
  for (auto& a : acc) a *= alpha;
  for (std::size_t j = 0; j < scores.size(); ++j) {
    const double p = std::exp(scores[j] - m_new);
    l += p;
    if (p != 0.0)
      for (std::size_t c = 0; c < acc.size(); ++c) acc[c] += p * v_rows(j, c);
  }
  m = m_new;
}

std::vector<double> softmax_triple::output() const {
  std::vector<double> o(acc.size(), 0.0);
  if (l != 0.0)
    for (std::size_t c = 0; c < acc.size(); ++c) o[c] = acc[c] / l;
  return o;
}

softmax_triple merge(const softmax_triple& a, const softmax_triple& b, double threshold) {
  if (a.acc.size() != b.acc.size()) throw std::invalid_argument("merge: the two triples have different widths");
  softmax_triple r(a.acc.size());
  r.m = std::max(a.m, b.m);
  if (std::isnan(a.m) || std::isnan(b.m)) r.m = std::numeric_limits<double>::quiet_NaN();
  if (r.m == -std::numeric_limits<double>::infinity()) return r;
  const double sa = softmax_scale(a.m, r.m, threshold), sb = softmax_scale(b.m, r.m, threshold);
  r.l = sa * a.l + sb * b.l;
  for (std::size_t c = 0; c < r.acc.size(); ++c) r.acc[c] = sa * a.acc[c] + sb * b.acc[c];
  return r;
}

std::vector<double> kvarn_tail_merge(std::span<const double> o_body, double m_body, double l_body,
                                     std::span<const double> o_tail, double m_tail, double l_tail) {
  if (o_body.size() != o_tail.size()) throw std::invalid_argument("kvarn_tail_merge: body and tail widths differ");
  const bool bv = l_body > 0 && std::isfinite(m_body) && std::isfinite(l_body);
  const bool tv = l_tail > 0 && std::isfinite(m_tail) && std::isfinite(l_tail);
  std::vector<double> o(o_body.size(), 0.0);
  if (!bv && !tv) return o;
  const double M = bv && tv ? std::max(m_body, m_tail) : (bv ? m_body : m_tail);
  const double wb = bv ? l_body * std::exp(m_body - M) : 0.0;
  const double wt = tv ? l_tail * std::exp(m_tail - M) : 0.0;
  for (std::size_t c = 0; c < o.size(); ++c)
    o[c] = ((bv ? o_body[c] * wb : 0.0) + (tv ? o_tail[c] * wt : 0.0)) / (wb + wt);
  return o;
}

}  // namespace tp::ref
