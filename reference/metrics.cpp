#include "reference/metrics.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

namespace tp::ref {
namespace {

constexpr double inf = std::numeric_limits<double>::infinity();

void check_sizes(std::size_t a, std::size_t b, const char* who) {
  if (a != b)
    throw std::invalid_argument(std::string(who) + ": actual has " + std::to_string(a) + " elements, reference " +
                                std::to_string(b));
}

template <class A>
max_abs_result max_abs(std::span<const A> actual, std::span<const double> ref) {
  check_sizes(actual.size(), ref.size(), "max_abs_err");
  max_abs_result r;
  for (std::size_t i = 0; i < actual.size(); ++i) {
    const double e = abs_err(actual[i], ref[i]);
    if (e > r.value) {
      r.value = e;
      r.index = i;
    }
  }
  return r;
}

template <class A, class Bound>
std::size_t wrong(std::span<const A> actual, std::span<const double> ref, const Bound& bound) {
  check_sizes(actual.size(), ref.size(), "count_wrong");
  std::size_t n = 0;
  for (std::size_t i = 0; i < actual.size(); ++i)
    if (!(abs_err(actual[i], ref[i]) <= bound(i, ref[i]))) ++n;
  return n;
}

template <class A>
double sum_sq_err(std::span<const A> actual, std::span<const double> ref) {
  double s = 0.0;
  for (std::size_t i = 0; i < actual.size(); ++i) {
    const double e = abs_err(actual[i], ref[i]);
    s += e * e;
  }
  return s;
}

template <class A>
double rmse_impl(std::span<const A> actual, std::span<const double> ref) {
  check_sizes(actual.size(), ref.size(), "rmse");
  if (actual.empty()) return 0.0;
  return std::sqrt(sum_sq_err(actual, ref) / static_cast<double>(actual.size()));
}

template <class A>
double nmse_impl(std::span<const A> actual, std::span<const double> ref) {
  check_sizes(actual.size(), ref.size(), "nmse");
  const double num = sum_sq_err(actual, ref);
  double den = 0.0;
  for (double b : ref) den += b * b;
  if (den == 0.0) return num == 0.0 ? 0.0 : inf;
  return num / den;
}

// log-softmax of one row in fp64, max-subtracted.
template <class T>
std::vector<double> log_softmax(std::span<const T> row) {
  double m = -inf;
  for (T x : row) m = std::max(m, static_cast<double>(x));
  double s = 0.0;
  for (T x : row) s += std::exp(static_cast<double>(x) - m);
  const double lse = m + std::log(s);
  std::vector<double> out(row.size());
  for (std::size_t i = 0; i < row.size(); ++i) out[i] = static_cast<double>(row[i]) - lse;
  return out;
}

template <class T>
std::size_t argmax(std::span<const T> row) {
  std::size_t best = 0;
  for (std::size_t i = 1; i < row.size(); ++i)
    if (row[i] > row[best]) best = i;
  return best;
}

template <class A>
logit_comparison compare(std::span<const A> actual, std::span<const double> ref, std::size_t rows,
                         std::size_t cols) {
  check_sizes(actual.size(), ref.size(), "compare_logits");
  if (ref.size() != rows * cols)
    throw std::invalid_argument("compare_logits: " + std::to_string(ref.size()) + " logits are not " +
                                std::to_string(rows) + "x" + std::to_string(cols));
  logit_comparison c;
  c.rows = rows;
  if (rows == 0 || cols == 0) return c;
  std::size_t same = 0;
  double total = 0.0;
  for (std::size_t r = 0; r < rows; ++r) {
    const auto a = actual.subspan(r * cols, cols);
    const auto b = ref.subspan(r * cols, cols);
    const auto lq = log_softmax(a), lp = log_softmax(b);
    double kld = 0.0;
    for (std::size_t v = 0; v < cols; ++v) {
      const double p = std::exp(lp[v]);
      if (p != 0.0) kld += p * (lp[v] - lq[v]);
    }
    total += kld;
    // A NaN row is the worst row and stays reported once seen.
    if (r == 0 || (std::isnan(kld) && !std::isnan(c.max_kld)) || kld > c.max_kld) {
      c.max_kld = kld;
      c.max_kld_row = r;
    }
    if (argmax(a) == argmax(b)) ++same;
  }
  c.mean_kld = total / static_cast<double>(rows);
  c.same_top_rate = static_cast<double>(same) / static_cast<double>(rows);
  return c;
}

}  // namespace

double abs_err(double actual, double ref) {
  if (std::isnan(actual) || std::isnan(ref)) return std::isnan(actual) && std::isnan(ref) ? 0.0 : inf;
  if (std::isinf(actual) || std::isinf(ref)) return actual == ref ? 0.0 : inf;
  return std::fabs(actual - ref);
}

max_abs_result max_abs_err(std::span<const float> a, std::span<const double> r) { return max_abs(a, r); }
max_abs_result max_abs_err(std::span<const double> a, std::span<const double> r) { return max_abs(a, r); }

std::size_t count_wrong(std::span<const float> a, std::span<const double> r, double bound) {
  return wrong(a, r, [bound](std::size_t, double) { return bound; });
}
std::size_t count_wrong(std::span<const double> a, std::span<const double> r, double bound) {
  return wrong(a, r, [bound](std::size_t, double) { return bound; });
}
std::size_t count_wrong(std::span<const float> a, std::span<const double> r, const bound_fn& bound) {
  return wrong(a, r, bound);
}
std::size_t count_wrong(std::span<const double> a, std::span<const double> r, const bound_fn& bound) {
  return wrong(a, r, bound);
}

double rmse(std::span<const float> a, std::span<const double> r) { return rmse_impl(a, r); }
double rmse(std::span<const double> a, std::span<const double> r) { return rmse_impl(a, r); }
double nmse(std::span<const float> a, std::span<const double> r) { return nmse_impl(a, r); }
double nmse(std::span<const double> a, std::span<const double> r) { return nmse_impl(a, r); }

logit_comparison compare_logits(std::span<const float> a, std::span<const double> r, std::size_t rows,
                                std::size_t cols) {
  return compare(a, r, rows, cols);
}
logit_comparison compare_logits(std::span<const double> a, std::span<const double> r, std::size_t rows,
                                std::size_t cols) {
  return compare(a, r, rows, cols);
}

}  // namespace tp::ref
