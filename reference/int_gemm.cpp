#include "reference/int_gemm.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

namespace tp::ref {
namespace {

// B is first copied row-major as Acc (any input layout), so each D row is built by plain row updates over k:
// d(i, j) starts at zero and gets a(i, k) * b(k, j) added for k = 0, 1, ... in that order, the same sums in the same
// order as the textbook triple loop (so fp64 results are unchanged bit for bit), with contiguous inner loops.
//
// A zero a(i, k) is skipped when row k of B is finite: its products are then +-0, and adding +-0 changes no partial
// sum. (A sum that starts at +0 can never become -0 in round-to-nearest, since x + (-x) = +0, so there is no -0
// for a +0 addend to flip.) A row of B holding an infinity or NaN is never skipped: 0 * inf is NaN. The 2:4-sparse
// operands the probes check are half zeros, so this halves the oracle's work without changing a bit of its result.
//
// With `magnitude`, the same loop also sums |a(i, k)| * |b(k, j)| into it, in the same order (the error-bound scale
// a caller wants beside D), so both come from one pass over A and B.
template <class TA, class TB, class Acc>
matrix<Acc> gemm(matrix_view<TA> a, matrix_view<TB> b, const char* who, matrix<Acc>* magnitude = nullptr) {
  check_gemm_shapes(a.rows, a.cols, b.rows, b.cols, who);
  const std::size_t n = b.cols;
  std::vector<Acc> bk(b.rows * n), bk_abs(magnitude ? b.rows * n : 0);
  std::vector<char> finite_row(b.rows, 1);
  for (std::size_t k = 0; k < b.rows; ++k)
    for (std::size_t j = 0; j < n; ++j) {
      bk[k * n + j] = static_cast<Acc>(b(k, j));
      if (magnitude) bk_abs[k * n + j] = std::fabs(bk[k * n + j]);
      if (!std::isfinite(bk[k * n + j])) finite_row[k] = 0;
    }
  matrix<Acc> d(a.rows, n, Acc{});
  if (magnitude) *magnitude = matrix<Acc>(a.rows, n, Acc{});
  for (std::size_t i = 0; i < a.rows; ++i) {
    Acc* row = d.data.data() + i * n;
    for (std::size_t k = 0; k < a.cols; ++k) {
      const Acc aik = static_cast<Acc>(a(i, k));
      if (aik == Acc{} && finite_row[k]) continue;
      const Acc* bk_row = bk.data() + k * n;
      for (std::size_t j = 0; j < n; ++j) row[j] += aik * bk_row[j];
      if (magnitude) {
        Acc* row_abs = magnitude->data.data() + i * n;
        const Acc aik_abs = std::fabs(aik);
        const Acc* bk_abs_row = bk_abs.data() + k * n;
        for (std::size_t j = 0; j < n; ++j) row_abs[j] += aik_abs * bk_abs_row[j];
      }
    }
  }
  return d;
}

// int8 x int8 products lie in [-16256, 16384], so an int32 partial sum of at most 2^16 of them stays within
// +-2^30: each chunk of k is summed exactly in int32 (a loop compilers vectorise) and then added into the int64 row.
matrix<std::int64_t> gemm_int8(matrix_view<std::int8_t> a, matrix_view<std::int8_t> b, const char* who) {
  check_gemm_shapes(a.rows, a.cols, b.rows, b.cols, who);
  constexpr std::size_t chunk = std::size_t(1) << 16;
  const std::size_t n = b.cols;
  std::vector<std::int32_t> bk(b.rows * n), partial(n);
  for (std::size_t k = 0; k < b.rows; ++k)
    for (std::size_t j = 0; j < n; ++j) bk[k * n + j] = b(k, j);
  matrix<std::int64_t> d(a.rows, n, 0);
  for (std::size_t i = 0; i < a.rows; ++i) {
    std::int64_t* row = d.data.data() + i * n;
    for (std::size_t k0 = 0; k0 < a.cols; k0 += chunk) {
      std::fill(partial.begin(), partial.end(), 0);
      for (std::size_t k = k0; k < std::min(a.cols, k0 + chunk); ++k) {
        const std::int32_t aik = a(i, k);
        if (aik == 0) continue;  // adds nothing (the probes' 2:4-sparse A is half zeros)
        const std::int32_t* bk_row = bk.data() + k * n;
        for (std::size_t j = 0; j < n; ++j) partial[j] += aik * bk_row[j];
      }
      for (std::size_t j = 0; j < n; ++j) row[j] += partial[j];
    }
  }
  return d;
}

void check_int4(matrix_view<std::int8_t> m, const char* name) {
  for (std::size_t r = 0; r < m.rows; ++r)
    for (std::size_t c = 0; c < m.cols; ++c) {
      const int v = m(r, c);
      if (v < -8 || v > 7)
        throw std::invalid_argument(std::string("int4_gemm: ") + name + "[" + std::to_string(r) + "][" +
                                    std::to_string(c) + "] = " + std::to_string(v) + " is outside -8..7");
    }
}

}  // namespace

matrix<std::int64_t> int8_gemm(matrix_view<std::int8_t> a, matrix_view<std::int8_t> b) {
  return gemm_int8(a, b, "int8_gemm");
}

matrix<std::int64_t> int4_gemm(matrix_view<std::int8_t> a, matrix_view<std::int8_t> b) {
  check_int4(a, "A");
  check_int4(b, "B");
  return gemm_int8(a, b, "int4_gemm");
}

matrix<std::int64_t> int_gemm(matrix_view<std::int8_t> a, matrix_view<std::int8_t> b) {
  return gemm_int8(a, b, "int_gemm");
}

matrix<std::int64_t> int_gemm(matrix_view<std::int8_t> a, matrix_view<std::int8_t> b, matrix_view<std::int32_t> c) {
  auto d = gemm_int8(a, b, "int_gemm");
  if (c.rows != d.rows || c.cols != d.cols)
    throw std::invalid_argument("int_gemm: C is " + std::to_string(c.rows) + "x" + std::to_string(c.cols) +
                                ", expected " + std::to_string(d.rows) + "x" + std::to_string(d.cols));
  for (std::size_t i = 0; i < d.rows; ++i)
    for (std::size_t j = 0; j < d.cols; ++j) d(i, j) += c(i, j);
  return d;
}

matrix<std::int32_t> wrap_int32(const matrix<std::int64_t>& m) {
  matrix<std::int32_t> w(m.rows, m.cols);
  for (std::size_t i = 0; i < m.data.size(); ++i) w.data[i] = wrap_int32(m.data[i]);
  return w;
}

bool fits_int32(const matrix<std::int64_t>& m) {
  for (auto v : m.data)
    if (v < std::numeric_limits<std::int32_t>::min() || v > std::numeric_limits<std::int32_t>::max()) return false;
  return true;
}

matrix<double> float_gemm(matrix_view<double> a, matrix_view<double> b) {
  return gemm<double, double, double>(a, b, "float_gemm");
}

matrix<double> float_gemm(matrix_view<float> a, matrix_view<float> b) {
  return gemm<float, float, double>(a, b, "float_gemm");
}

gemm_with_magnitude float_gemm_with_abs(matrix_view<double> a, matrix_view<double> b) {
  gemm_with_magnitude r;
  r.d = gemm<double, double, double>(a, b, "float_gemm_with_abs", &r.magnitude);
  return r;
}

matrix<double> float_gemm_abs(matrix_view<double> a, matrix_view<double> b) {
  check_gemm_shapes(a.rows, a.cols, b.rows, b.cols, "float_gemm_abs");
  std::vector<double> abs_a(a.rows * a.cols), abs_b(b.rows * b.cols);
  for (std::size_t i = 0; i < a.rows; ++i)
    for (std::size_t k = 0; k < a.cols; ++k) abs_a[i * a.cols + k] = std::fabs(a(i, k));
  for (std::size_t k = 0; k < b.rows; ++k)
    for (std::size_t j = 0; j < b.cols; ++j) abs_b[k * b.cols + j] = std::fabs(b(k, j));
  return gemm<double, double, double>(matrix_view<double>(abs_a.data(), a.rows, a.cols),
                                      matrix_view<double>(abs_b.data(), b.rows, b.cols), "float_gemm_abs");
}

}  // namespace tp::ref
