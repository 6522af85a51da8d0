// Error metrics against hand-computed values, including the non-finite rules and the KL direction.
#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_floating_point.hpp>

#include <cmath>
#include <limits>
#include <vector>

#include "reference/metrics.h"

using namespace tp::ref;
using Catch::Matchers::WithinRel;

namespace {
const double qnan = std::numeric_limits<double>::quiet_NaN(), inf = std::numeric_limits<double>::infinity();
}

TEST_CASE("max_abs_err reports the largest error and its first index", "[metrics]") {
  const std::vector<double> a{1, 2.5, 3}, r{1, 2, 4};
  const auto m = max_abs_err(a, r);
  CHECK(m.value == 1.0);
  CHECK(m.index == 2);
  const std::vector<double> b{0, 1, 0, -1}, z(4, 0.0);
  CHECK(max_abs_err(b, z).index == 1);
  const std::vector<float> af{1.0f, 2.5f, 3.0f};
  CHECK(max_abs_err(af, r).value == 1.0);
  CHECK(max_abs_err(std::vector<double>{}, std::vector<double>{}).value == 0.0);
  CHECK_THROWS_AS(max_abs_err(a, z), std::invalid_argument);
}

TEST_CASE("Non-finite values count as infinitely wrong unless both sides agree", "[metrics]") {
  CHECK(abs_err(qnan, 1.0) == inf);
  CHECK(abs_err(1.0, qnan) == inf);
  CHECK(abs_err(qnan, qnan) == 0.0);
  CHECK(abs_err(inf, inf) == 0.0);
  CHECK(abs_err(inf, -inf) == inf);
  CHECK(abs_err(1e300, inf) == inf);
  const std::vector<double> a{0.0, qnan}, r{0.0, 0.0};
  CHECK(max_abs_err(a, r).index == 1);
  CHECK(count_wrong(a, r, 1e9) == 1);
}

TEST_CASE("count_wrong counts errors strictly above a scalar or per-element bound", "[metrics]") {
  const std::vector<double> a{1.0, 2.5, 4.0}, r{1.0, 2.0, 3.0};  // errors 0, 0.5, 1
  CHECK(count_wrong(a, r, 0.5) == 1);
  CHECK(count_wrong(a, r, 0.49) == 2);
  CHECK(count_wrong(a, r, 0.0) == 2);
  // bound 0.2·|ref|: 0 <= 0.2, 0.5 > 0.4, 1 > 0.6
  CHECK(count_wrong(a, r, [](std::size_t, double ref) { return 0.2 * std::fabs(ref); }) == 2);
  // bound by index: element 2 allowed 1.0
  CHECK(count_wrong(a, r, [](std::size_t i, double) { return i == 2 ? 1.0 : 0.5; }) == 0);
  const std::vector<float> af{1.0f, 2.5f, 4.0f};
  CHECK(count_wrong(af, r, 0.5) == 1);
  CHECK(count_wrong(a, r, qnan) == 3);
}

TEST_CASE("RMSE and NMSE match hand values and NMSE divides by the reference energy", "[metrics]") {
  const std::vector<double> a{3, 4}, r{0, 0};
  CHECK(rmse(a, r) == std::sqrt(12.5));
  // actual {1, 2} vs reference {1, 1}: Σ(a-b)² = 1, Σb² = 2 -> 0.5 (dividing by Σa² = 5 would give 0.2)
  const std::vector<double> a2{1, 2}, r2{1, 1};
  CHECK(nmse(a2, r2) == 0.5);
  const std::vector<float> a2f{1.0f, 2.0f};
  CHECK(nmse(a2f, r2) == 0.5);
  CHECK(rmse(a2f, r2) == std::sqrt(0.5));
  CHECK(nmse(r, r) == 0.0);
  CHECK(nmse(a, r) == inf);
}

TEST_CASE("KL divergence is KL(P_ref || P_actual) per row of logits and same-top compares argmaxes", "[metrics]") {
  // row 0: ref (0,0) -> P = (1/2, 1/2); actual (ln 3, 0) -> Q = (3/4, 1/4):
  //        KL = 1/2 ln(2/3) + 1/2 ln 2 = 1/2 ln(4/3); argmax 0 and 0 (tie -> lowest index): same top
  // row 1: ref (1,0), actual (0,1): P = (p, 1-p), Q = (1-p, p), p = e/(1+e): KL = (2p-1)·1 = (e-1)/(e+1); tops differ
  const std::vector<double> r{0, 0, 1, 0}, a{std::log(3.0), 0, 0, 1};
  const auto c = compare_logits(a, r, 2, 2);
  const double e = std::exp(1.0);
  const double k0 = 0.5 * std::log(4.0 / 3.0), k1 = (e - 1) / (e + 1);
  CHECK(c.rows == 2);
  CHECK_THAT(c.mean_kld, WithinRel((k0 + k1) / 2, 1e-14));
  CHECK_THAT(c.max_kld, WithinRel(k1, 1e-14));
  CHECK(c.max_kld_row == 1);
  CHECK(c.same_top_rate == 0.5);
  const auto same = compare_logits(r, r, 2, 2);
  CHECK(same.mean_kld == 0.0);
  CHECK(same.same_top_rate == 1.0);
  // A constant shift of a row does not change its softmax.
  const std::vector<float> shifted{100.0f, 100.0f, 101.0f, 100.0f};
  CHECK_THAT(compare_logits(shifted, r, 2, 2).mean_kld, Catch::Matchers::WithinAbs(0.0, 1e-12));
  CHECK_THROWS_AS(compare_logits(a, r, 3, 2), std::invalid_argument);
}
