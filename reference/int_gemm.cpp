#include "reference/int_gemm.h"

#include <cmath>
#include <limits>
#include <string>

namespace tp::ref {
namespace {

template <class TA, class TB, class Acc>
matrix<Acc> gemm(matrix_view<TA> a, matrix_view<TB> b, const char* who) {
  check_gemm_shapes(a.rows, a.cols, b.rows, b.cols, who);
  matrix<Acc> d(a.rows, b.cols, Acc{});
  for (std::size_t i = 0; i < a.rows; ++i)
    for (std::size_t j = 0; j < b.cols; ++j) {
      Acc s{};
      for (std::size_t k = 0; k < a.cols; ++k) s += static_cast<Acc>(a(i, k)) * static_cast<Acc>(b(k, j));
      d(i, j) = s;
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
  return gemm<std::int8_t, std::int8_t, std::int64_t>(a, b, "int8_gemm");
}

matrix<std::int64_t> int4_gemm(matrix_view<std::int8_t> a, matrix_view<std::int8_t> b) {
  check_int4(a, "A");
  check_int4(b, "B");
  return gemm<std::int8_t, std::int8_t, std::int64_t>(a, b, "int4_gemm");
}

matrix<std::int64_t> int_gemm(matrix_view<std::int8_t> a, matrix_view<std::int8_t> b) {
  return gemm<std::int8_t, std::int8_t, std::int64_t>(a, b, "int_gemm");
}

matrix<std::int64_t> int_gemm(matrix_view<std::int8_t> a, matrix_view<std::int8_t> b, matrix_view<std::int32_t> c) {
  auto d = gemm<std::int8_t, std::int8_t, std::int64_t>(a, b, "int_gemm");
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

matrix<double> float_gemm_abs(matrix_view<double> a, matrix_view<double> b) {
  check_gemm_shapes(a.rows, a.cols, b.rows, b.cols, "float_gemm_abs");
  matrix<double> d(a.rows, b.cols, 0.0);
  for (std::size_t i = 0; i < a.rows; ++i)
    for (std::size_t j = 0; j < b.cols; ++j) {
      double s = 0.0;
      for (std::size_t k = 0; k < a.cols; ++k) s += std::fabs(a(i, k)) * std::fabs(b(k, j));
      d(i, j) = s;
    }
  return d;
}

}  // namespace tp::ref
