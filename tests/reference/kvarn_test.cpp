// KVarN-style quantiser: Hadamard hand vectors and self-inverse, a Sinkhorn step worked by hand, quantiser
// exactness on tiny tiles, and the derived per-element error bounds with and without fp16 parameters.
#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_floating_point.hpp>

#include <cmath>
#include <random>
#include <vector>

#include "reference/codecs.h"
#include "reference/kvarn.h"

using namespace tp::ref;
using Catch::Matchers::WithinAbs;
using Catch::Matchers::WithinRel;

namespace {
kvarn_options exact_options(int bits) {
  kvarn_options o;
  o.bits = bits;
  o.rotate = false;
  o.round_params_fp16 = false;
  o.sinkhorn.iterations = 0;  // identity scales: the quantiser alone
  return o;
}

// 16 x 128 tile, Gaussian with three outlier channels (x20, x50, x0.05), like K with outlier dims.
std::vector<double> outlier_tile(std::uint64_t seed, std::size_t rows, std::size_t cols) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> nd;
  std::vector<double> t(rows * cols);
  for (std::size_t r = 0; r < rows; ++r)
    for (std::size_t c = 0; c < cols; ++c)
      t[r * cols + c] = nd(rng) * (c == 5 ? 20.0 : c == 77 ? 50.0 : c == 100 ? 0.05 : 1.0) + (r == 3 ? 2.0 : 0.0);
  return t;
}
}  // namespace

TEST_CASE("Walsh-Hadamard matches hand vectors for n = 4 and n = 128", "[kvarn]") {
  // H4 rows (Sylvester): ++++, +-+-, ++--, +--+ ; [1,2,3,4] -> [10,-2,-4,0]/2
  std::vector<double> x{1, 2, 3, 4};
  walsh_hadamard(x);
  CHECK(x == std::vector<double>{5, -1, -2, 0});
  // n = 128: e_0 -> every entry 1/sqrt(128); the all-ones vector -> sqrt(128)·e_0
  std::vector<double> e0(128, 0.0);
  e0[0] = 1.0;
  walsh_hadamard(e0);
  for (double v : e0) CHECK_THAT(v, WithinRel(1.0 / std::sqrt(128.0), 1e-15));
  std::vector<double> ones(128, 1.0);
  walsh_hadamard(ones);
  CHECK_THAT(ones[0], WithinRel(std::sqrt(128.0), 1e-15));
  for (std::size_t i = 1; i < 128; ++i) CHECK(ones[i] == 0.0);
  // e_1 -> row 1 of H: alternating signs.
  std::vector<double> e1(128, 0.0);
  e1[1] = 1.0;
  walsh_hadamard(e1);
  for (std::size_t i = 0; i < 128; ++i) CHECK_THAT(e1[i], WithinRel((i % 2 ? -1.0 : 1.0) / std::sqrt(128.0), 1e-15));
}

TEST_CASE("Walsh-Hadamard is its own inverse and refuses non-power-of-two lengths", "[kvarn]") {
  const std::uint64_t seed = 0xAD;
  CAPTURE(seed);
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> nd;
  std::vector<double> x(128), y;
  for (auto& v : x) v = nd(rng);
  y = x;
  walsh_hadamard(y);
  walsh_hadamard(y);
  for (std::size_t i = 0; i < x.size(); ++i) CHECK_THAT(y[i], WithinAbs(x[i], 1e-13));
  std::vector<double> bad(96);
  CHECK_THROWS_AS(walsh_hadamard(bad), std::invalid_argument);
}

TEST_CASE("One Sinkhorn iteration on a hand tile equalises column spreads", "[kvarn]") {
  // T = [[1,-2,3,-4],[-1,2,-3,4]]: column stds 1,2,3,4 -> s_c = (1,2,3,4); then B = ±1 everywhere and rows have
  // std 1 -> s_r = (1,1). Imbalance: initially 4/1 + 1 = 5 (both rows have the same std), after iteration 1: 1 + 1 = 2;
  // iteration 2 changes nothing, so the first iterate is kept.
  const std::vector<double> t{1, -2, 3, -4, -1, 2, -3, 4};
  const auto s = sinkhorn({t.data(), 2, 4});
  for (std::size_t c = 0; c < 4; ++c) CHECK_THAT(s.col_scale[c], WithinRel(double(c + 1), 1e-14));
  CHECK_THAT(s.row_scale[0], WithinRel(1.0, 1e-14));
  CHECK_THAT(s.row_scale[1], WithinRel(1.0, 1e-14));
  CHECK_THAT(s.imbalance_initial, WithinRel(5.0, 1e-14));
  CHECK_THAT(s.imbalance_best, WithinRel(2.0, 1e-14));
  CHECK(s.best_iteration == 1);
}

TEST_CASE("Sinkhorn clamps each measured std to [1e-3, 1e3] and each accumulated log scale to [-0.3, 10]", "[kvarn]") {
  sinkhorn_options one;
  one.iterations = 1;
  // Column 0 has std 1e5: the std clamp (1e3) bites first; with the std clamp widened, log 11.5 is clamped to 10.
  const std::vector<double> big{1e5, 1, -1e5, -1};
  CHECK_THAT(sinkhorn({big.data(), 2, 2}, one).col_scale[0], WithinRel(1e3, 1e-14));
  sinkhorn_options wide = one;
  wide.std_max = 1e9;
  CHECK_THAT(sinkhorn({big.data(), 2, 2}, wide).col_scale[0], WithinRel(std::exp(10.0), 1e-14));
  // Column 0 has std 0.1: log -2.3 is clamped to -0.3.
  const std::vector<double> small{0.1, 1, -0.1, -1};
  const auto s = sinkhorn({small.data(), 2, 2}, one);
  CHECK(s.best_iteration == 1);
  CHECK_THAT(s.col_scale[0], WithinRel(std::exp(-0.3), 1e-14));
  CHECK_THAT(s.col_scale[1], WithinRel(1.0, 1e-14));
}

TEST_CASE("Sinkhorn never returns an iterate worse than the identity and reduces outlier imbalance", "[kvarn]") {
  const std::uint64_t seed = 0xC0FFEE;
  CAPTURE(seed);
  const auto t = outlier_tile(seed, 16, 128);
  const auto s = sinkhorn({t.data(), 16, 128});
  CHECK(s.imbalance_best <= s.imbalance_initial);
  CHECK(s.best_iteration > 0);
  CHECK(s.imbalance_best < s.imbalance_initial / 4);  // outlier columns x20 and x50 dominate the initial ratio
  CHECK(s.col_scale[77] > s.col_scale[0]);
}

TEST_CASE("The quantiser is exact on tiny hand tiles", "[kvarn]") {
  // 2 bits, row [0,1,2,3]: lo 0, step 1, q = 0..3, exact.  Row [0,0.4,0.6,3]: q = [0,0,1,3] -> [0,0,1,3].
  // Row [0,1.5,3,3]: 1.5 is a tie and rounds up (half away from zero) -> q = [0,2,3,3].
  const std::vector<double> t{0, 1, 2, 3, 0, 0.4, 0.6, 3, 0, 1.5, 3, 3};
  const auto r = quantize_dequantize({t.data(), 3, 4}, exact_options(2));
  CHECK(r.tile.data == std::vector<double>{0, 1, 2, 3, 0, 0, 1, 3, 0, 2, 3, 3});
  CHECK(r.stats.q.data == std::vector<int>{0, 1, 2, 3, 0, 0, 1, 3, 0, 2, 3, 3});
  CHECK(r.stats.row_step == std::vector<double>{1, 1, 1});
  CHECK(r.stats.max_abs_err == 0.5);
  // 3 bits, row [-1,0,6]: step 7/7 = 1, lo -1 -> q = [0,1,7], exact; fp16 parameters (1, -1, 1) are exact too.
  auto o = exact_options(3);
  o.round_params_fp16 = true;
  const std::vector<double> u{-1, 0, 6};
  const auto ru = quantize_dequantize({u.data(), 1, 3}, o);
  CHECK(ru.tile.data == u);
  CHECK(ru.stats.q.data == std::vector<int>{0, 1, 7});
  CHECK(ru.stats.row_a == std::vector<double>{1});
  CHECK(ru.stats.row_b == std::vector<double>{-1});
  // A constant row has step 1e-10 and reconstructs exactly.
  const std::vector<double> c{2.5, 2.5, 2.5, 2.5};
  CHECK(quantize_dequantize({c.data(), 1, 4}, exact_options(6)).tile.data == c);
}

TEST_CASE("Each row's minimum maps to code 0 and its maximum to 2^b - 1", "[kvarn]") {
  const auto bits = 6;
  const auto t = outlier_tile(0xB175, 16, 128);
  kvarn_options o;
  o.bits = bits;
  const auto r = quantize_dequantize({t.data(), 16, 128}, o);
  for (std::size_t row = 0; row < 16; ++row) {
    int lo = 1 << 30, hi = -1;
    for (std::size_t c = 0; c < 128; ++c) {
      lo = std::min(lo, r.stats.q(row, c));
      hi = std::max(hi, r.stats.q(row, c));
    }
    CHECK(lo == 0);
    CHECK(hi == (1 << bits) - 1);
  }
}

TEST_CASE("Reconstruction error stays within the derived per-element bounds", "[kvarn]") {
  const std::uint64_t seed = 0xE77;
  CAPTURE(seed);
  const std::size_t rows = 16, cols = 128;
  const auto t = outlier_tile(seed, rows, cols);
  const double u = unit_roundoff(fp_format::fp16), sub = min_subnormal(fp_format::fp16) / 2;
  for (int bits : {2, 4, 6, 8}) {
    CAPTURE(bits);
    // Exact parameters, no rotation: |X̂ - X| <= s_r·s_c·step/2 (the rounding of B to the nearest level), plus
    // fp64 noise of a few ulps of the magnitudes involved.
    kvarn_options o;
    o.bits = bits;
    o.rotate = false;
    o.round_params_fp16 = false;
    const auto r = quantize_dequantize({t.data(), rows, cols}, o);
    const auto& sk = r.stats.sinkhorn;
    for (std::size_t i = 0; i < rows; ++i)
      for (std::size_t c = 0; c < cols; ++c) {
        const double bound = sk.row_scale[i] * sk.col_scale[c] * r.stats.row_step[i] / 2 +
                             1e-12 * (std::fabs(t[i * cols + c]) + 1.0);
        REQUIRE(std::fabs(r.tile(i, c) - t[i * cols + c]) <= bound);
      }

    // fp16 parameters: â = a(1+ε1)+η1, b̂ = b(1+ε2)+η2, ŝ_c = s_c(1+ε3)+η3 with |ε| <= u, |η| <= 2^-25.
    // With Y = q·a + b (exact parameters), |Ŷ - Y| <= u(q|a| + |b|) + (q+1)·2^-25, and
    // |Ŷ·ŝ_c - Y·s_c| <= |Ŷ - Y|·|ŝ_c| + |Y|·|ŝ_c - s_c|; add the quantisation bound above.
    o.round_params_fp16 = true;
    const auto h = quantize_dequantize({t.data(), rows, cols}, o);
    for (std::size_t i = 0; i < rows; ++i) {
      const double a = r.stats.row_a[i], b = r.stats.row_b[i];  // exact a_r, b_r from the first run
      for (std::size_t c = 0; c < cols; ++c) {
        const double q = h.stats.q(i, c);
        const double sc = sk.col_scale[c], sc_hat = h.stats.col_s[c];
        const double y = q * a + b;
        const double dy = u * (q * std::fabs(a) + std::fabs(b)) + (q + 1) * sub;
        const double bound = dy * std::fabs(sc_hat) + std::fabs(y) * std::fabs(sc_hat - sc) +
                             sk.row_scale[i] * sc * r.stats.row_step[i] / 2 + 1e-12 * (std::fabs(t[i * cols + c]) + 1.0);
        REQUIRE(std::fabs(h.tile(i, c) - t[i * cols + c]) <= bound);
        REQUIRE(std::fabs(sc_hat - sc) <= u * sc + sub);
      }
    }
  }
}

TEST_CASE("With rotation the result is the inverse rotation of quantising the rotated tile", "[kvarn]") {
  const std::uint64_t seed = 0x407;
  CAPTURE(seed);
  const std::size_t rows = 8, cols = 128;
  const auto t = outlier_tile(seed, rows, cols);
  std::vector<double> rotated = t;
  for (std::size_t i = 0; i < rows; ++i) walsh_hadamard(std::span<double>(rotated.data() + i * cols, cols));
  kvarn_options with;
  kvarn_options without;
  without.rotate = false;
  const auto a = quantize_dequantize({t.data(), rows, cols}, with);
  auto b = quantize_dequantize({rotated.data(), rows, cols}, without);
  CHECK(a.stats.q.data == b.stats.q.data);
  for (std::size_t i = 0; i < rows; ++i) {
    // Rotation is orthogonal: the row's error norm is preserved, so max |err| <= ||rotated-domain error||_2.
    double e_rot = 0.0, e_out = 0.0;
    for (std::size_t c = 0; c < cols; ++c) {
      e_rot += std::pow(b.tile(i, c) - rotated[i * cols + c], 2);
      e_out += std::pow(a.tile(i, c) - t[i * cols + c], 2);
    }
    CHECK_THAT(std::sqrt(e_out), WithinRel(std::sqrt(e_rot), 1e-9));
    walsh_hadamard(std::span<double>(&b.tile(i, 0), cols));
    for (std::size_t c = 0; c < cols; ++c) {
      CHECK_THAT(a.tile(i, c), WithinAbs(b.tile(i, c), 1e-12));
      CHECK(std::fabs(a.tile(i, c) - t[i * cols + c]) <= std::sqrt(e_rot) * (1 + 1e-9));
    }
  }
}

TEST_CASE("The quantiser refuses bad bit widths, widths that cannot rotate and non-finite input", "[kvarn]") {
  const std::vector<double> t(12, 1.0);
  kvarn_options o;
  o.bits = 9;
  CHECK_THROWS_AS(quantize_dequantize({t.data(), 1, 8}, o), std::invalid_argument);
  o.bits = 6;
  CHECK_THROWS_AS(quantize_dequantize({t.data(), 1, 12}, o), std::invalid_argument);
  std::vector<double> n(8, 1.0);
  n[3] = std::nan("");
  CHECK_THROWS_AS(quantize_dequantize({n.data(), 1, 8}, o), std::invalid_argument);
}
