// Exact integer GEMM and the fp64 GEMM against products worked out by hand.
#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "reference/int_gemm.h"

using namespace tp::ref;

namespace {
// A = [[1,-2,3],[-4,5,-6]], B = [[7,8],[9,10],[11,12]]:
// row 0: 7-18+33 = 22, 8-20+36 = 24;  row 1: -28+45-66 = -49, -32+50-72 = -54
const std::vector<std::int8_t> a_row{1, -2, 3, -4, 5, -6};
const std::vector<std::int8_t> b_row{7, 8, 9, 10, 11, 12};
const std::vector<std::int64_t> ab{22, 24, -49, -54};
}  // namespace

TEST_CASE("Integer GEMM matches a hand-computed 2x3 by 3x2 product", "[int_gemm]") {
  const auto d = int8_gemm({a_row.data(), 2, 3}, {b_row.data(), 3, 2});
  REQUIRE(d.rows == 2);
  REQUIRE(d.cols == 2);
  CHECK(d.data == ab);
}

TEST_CASE("Column-major and strided views give the same product as row-major", "[int_gemm]") {
  const std::vector<std::int8_t> a_col{1, -4, -2, 5, 3, -6};
  const std::vector<std::int8_t> b_col{7, 9, 11, 8, 10, 12};
  CHECK(int8_gemm({a_col.data(), 2, 3, layout::col_major}, {b_col.data(), 3, 2, layout::col_major}).data == ab);
  CHECK(int8_gemm({a_row.data(), 2, 3}, {b_col.data(), 3, 2, layout::col_major}).data == ab);
  // A inside a 2x5 buffer (ld 5): the padding columns hold values that would change the result if read.
  const std::vector<std::int8_t> a_padded{1, -2, 3, 99, 99, -4, 5, -6, 99, 99};
  CHECK(int8_gemm({a_padded.data(), 2, 3, layout::row_major, 5}, {b_row.data(), 3, 2}).data == ab);
}

TEST_CASE("int8 extremes accumulate in int64 and wrap_int32 shows what a 32-bit accumulator holds", "[int_gemm]") {
  // K = 131073 products of (-128)·(-128) = 16384: 2147500032 = INT32_MAX + 16385, so a 32-bit sum wraps to
  // 2147500032 - 2^32 = -2147467264.
  const std::size_t k = 131073;
  const std::vector<std::int8_t> a(k, -128), b(k, -128);
  const auto d = int8_gemm({a.data(), 1, k}, {b.data(), k, 1});
  CHECK(d(0, 0) == 2147500032LL);
  CHECK_FALSE(fits_int32(d));
  CHECK(wrap_int32(d)(0, 0) == -2147467264);
}

TEST_CASE("wrap_int32 is two's-complement reduction modulo 2^32", "[int_gemm]") {
  CHECK(wrap_int32(std::int64_t{2147483648}) == std::numeric_limits<std::int32_t>::min());
  CHECK(wrap_int32(std::int64_t{-2147483649}) == std::numeric_limits<std::int32_t>::max());
  CHECK(wrap_int32(std::int64_t{4294967296 + 5}) == 5);
  CHECK(wrap_int32(std::int64_t{-7}) == -7);
}

TEST_CASE("The accumulator input C is added to the product", "[int_gemm]") {
  const std::vector<std::int32_t> c{std::numeric_limits<std::int32_t>::max(), -100, 0, 54};
  const auto d = int_gemm({a_row.data(), 2, 3}, {b_row.data(), 3, 2}, {c.data(), 2, 2});
  CHECK(d.data == std::vector<std::int64_t>{2147483669LL, -76, -49, 0});
  CHECK(wrap_int32(d).data == std::vector<std::int32_t>{-2147483627, -76, -49, 0});
  const std::vector<std::int32_t> c_small{1, 2, 3};
  CHECK_THROWS_AS(int_gemm({a_row.data(), 2, 3}, {b_row.data(), 3, 2}, {c_small.data(), 1, 3}),
                  std::invalid_argument);
}

TEST_CASE("int4 GEMM uses the full -8..7 range and refuses values outside it by position", "[int_gemm]") {
  // [-8, 7]·[-8, 7]^T = 64 + 49 = 113
  const std::vector<std::int8_t> a{-8, 7}, b{-8, 7};
  CHECK(int4_gemm({a.data(), 1, 2}, {b.data(), 2, 1})(0, 0) == 113);
  const std::vector<std::int8_t> bad{-8, 8};
  CHECK_THROWS_WITH(int4_gemm({bad.data(), 1, 2}, {b.data(), 2, 1}),
                    Catch::Matchers::ContainsSubstring("A[0][1] = 8"));
  CHECK_THROWS_WITH(int4_gemm({a.data(), 1, 2}, {bad.data(), 2, 1}),
                    Catch::Matchers::ContainsSubstring("B[1][0] = 8"));
}

TEST_CASE("Mismatched inner dimensions are refused", "[int_gemm]") {
  CHECK_THROWS_WITH(int8_gemm({a_row.data(), 2, 3}, {b_row.data(), 2, 3}),
                    Catch::Matchers::ContainsSubstring("A is 2x3 but B is 2x3"));
  CHECK_THROWS_AS(matrix_view<std::int8_t>(a_row.data(), 2, 3, layout::row_major, 2), std::invalid_argument);
}

TEST_CASE("fp64 GEMM and its magnitude sum match hand values", "[int_gemm]") {
  // [[0.5,-1.25],[3,0.125]] · [[2,-4],[8,0.5]] = [[1-10, -2-0.625], [6+1, -12+0.0625]]
  const std::vector<double> a{0.5, -1.25, 3, 0.125}, b{2, -4, 8, 0.5};
  CHECK(float_gemm({a.data(), 2, 2}, {b.data(), 2, 2}).data == std::vector<double>{-9, -2.625, 7, -11.9375});
  CHECK(float_gemm_abs({a.data(), 2, 2}, {b.data(), 2, 2}).data == std::vector<double>{11, 2.625, 7, 12.0625});
  const std::vector<float> af{0.5f, -1.25f, 3, 0.125f}, bf{2, -4, 8, 0.5f};
  CHECK(float_gemm({af.data(), 2, 2}, {bf.data(), 2, 2}).data == std::vector<double>{-9, -2.625, 7, -11.9375});
}

TEST_CASE("fp64 GEMM (alone and with its magnitude) skips zeros of A without changing a bit, never where B holds inf or NaN", "[int_gemm]") {
  // Against the textbook triple loop, on half-zero A (signed zeros included) and B with huge, tiny and negative
  // values: bit-identical results (the skip may not even flip the sign of a zero).
  std::uint64_t s = 12345;
  auto next = [&] {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    return s >> 33;
  };
  const std::size_t m = 5, k = 24, n = 7;
  std::vector<double> a(m * k), b(k * n);
  for (auto& x : a) {
    const auto r = next();
    x = r % 2 ? 0.0 : (r % 3 ? double(std::int64_t(r % 2001) - 1000) / 8.0 : -0.0);
  }
  for (auto& x : b) {
    const auto r = next();
    x = r % 5 == 0 ? -0.0 : double(std::int64_t(r % 200001) - 100000) * (r % 7 ? 1e-3 : 1e290);
  }
  const auto d = float_gemm({a.data(), m, k}, {b.data(), k, n});
  const auto both = float_gemm_with_abs({a.data(), m, k}, {b.data(), k, n});
  const auto mag = float_gemm_abs({a.data(), m, k}, {b.data(), k, n});
  for (std::size_t e = 0; e < m * n; ++e) {
    CHECK(std::bit_cast<std::uint64_t>(both.d.data[e]) == std::bit_cast<std::uint64_t>(d.data[e]));
    CHECK(std::bit_cast<std::uint64_t>(both.magnitude.data[e]) == std::bit_cast<std::uint64_t>(mag.data[e]));
  }
  for (std::size_t i = 0; i < m; ++i)
    for (std::size_t j = 0; j < n; ++j) {
      double acc = 0.0;
      for (std::size_t kk = 0; kk < k; ++kk) acc += a[i * k + kk] * b[kk * n + j];
      INFO("D[" << i << "][" << j << "]");
      CHECK(std::bit_cast<std::uint64_t>(d(i, j)) == std::bit_cast<std::uint64_t>(acc));
    }
  // 0 * inf is NaN: a zero of A facing an infinite B row must still be multiplied.
  const std::vector<double> a2{0.0, 1.0}, b2{std::numeric_limits<double>::infinity(), 2.0};
  CHECK(std::isnan(float_gemm({a2.data(), 1, 2}, {b2.data(), 2, 1})(0, 0)));
  const std::vector<double> b3{std::numeric_limits<double>::quiet_NaN(), 2.0};
  CHECK(std::isnan(float_gemm({a2.data(), 1, 2}, {b3.data(), 2, 1})(0, 0)));
}
