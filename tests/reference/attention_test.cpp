// fp64 softmax attention: hand-computed weights (scores 0 and ln 3 give weights 1/4 and 3/4), sinks, masks,
// the all-masked convention and the body+tail concatenation.
#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_floating_point.hpp>

#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "reference/attention.h"

using namespace tp::ref;
using Catch::Matchers::WithinRel;
using Catch::Matchers::WithinAbs;

namespace {
const double ninf = -std::numeric_limits<double>::infinity();
// One query q = [1], keys 0 and ln 3, values 4 and 8.
const std::vector<double> q1{1.0}, k2{0.0, std::log(3.0)}, v2{4.0, 8.0};
}  // namespace

TEST_CASE("Attention weights follow the softmax of the scores", "[attention]") {
  // weights 1/4, 3/4: O = 4/4 + 3·8/4 = 7; m = ln 3; l = e^-ln3 + 1 = 4/3
  const auto r = attention({q1.data(), 1, 1}, {k2.data(), 2, 1}, {v2.data(), 2, 1}, 1.0);
  CHECK_THAT(r.o(0, 0), WithinRel(7.0, 1e-15));
  CHECK_THAT(r.m[0], WithinRel(std::log(3.0), 1e-15));
  CHECK_THAT(r.l[0], WithinRel(4.0 / 3.0, 1e-15));
  // The scale multiplies q·k: q = [2] with scale 0.5 is the same problem.
  const std::vector<double> q2{2.0};
  CHECK_THAT(attention({q2.data(), 1, 1}, {k2.data(), 2, 1}, {v2.data(), 2, 1}, 0.5).o(0, 0), WithinRel(7.0, 1e-15));
}

TEST_CASE("A sink logit adds to the denominator only", "[attention]") {
  // relative weights 1, 3 and sink 4: O = (4 + 24) / 8 = 3.5; m = ln 4; l = 8/4 = 2
  const auto r = attention({q1.data(), 1, 1}, {k2.data(), 2, 1}, {v2.data(), 2, 1}, 1.0, nullptr, std::log(4.0));
  CHECK_THAT(r.o(0, 0), WithinRel(3.5, 1e-15));
  CHECK_THAT(r.m[0], WithinRel(std::log(4.0), 1e-15));
  CHECK_THAT(r.l[0], WithinRel(2.0, 1e-15));
}

TEST_CASE("Masked keys drop out and an all-masked row gives zero output and l = 0", "[attention]") {
  const std::vector<double> mask_one{0.0, ninf}, mask_all{ninf, ninf};
  const matrix_view<double> m1(mask_one.data(), 1, 2), m2(mask_all.data(), 1, 2);
  const auto r = attention({q1.data(), 1, 1}, {k2.data(), 2, 1}, {v2.data(), 2, 1}, 1.0, &m1);
  CHECK(r.o(0, 0) == 4.0);
  CHECK(r.m[0] == 0.0);
  CHECK(r.l[0] == 1.0);
  const auto z = attention({q1.data(), 1, 1}, {k2.data(), 2, 1}, {v2.data(), 2, 1}, 1.0, &m2);
  CHECK(z.o(0, 0) == 0.0);
  CHECK(z.m[0] == ninf);
  CHECK(z.l[0] == 0.0);
  // With a sink, the sink alone is left: m = sink, l = 1, O = 0.
  const auto s = attention({q1.data(), 1, 1}, {k2.data(), 2, 1}, {v2.data(), 2, 1}, 1.0, &m2, 2.5);
  CHECK(s.o(0, 0) == 0.0);
  CHECK(s.m[0] == 2.5);
  CHECK(s.l[0] == 1.0);
  // A finite additive mask shifts the score: mask [ln 3, 0] turns the weights into 1/2, 1/2.
  const std::vector<double> bias{std::log(3.0), 0.0};
  const matrix_view<double> mb(bias.data(), 1, 2);
  CHECK_THAT(attention({q1.data(), 1, 1}, {k2.data(), 2, 1}, {v2.data(), 2, 1}, 1.0, &mb).o(0, 0),
             WithinRel(6.0, 1e-15));
}

TEST_CASE("Two query rows and two output columns are computed independently", "[attention]") {
  // q0 = [1, 0] sees scores (0, ln 3) -> weights 1/4, 3/4; q1 = [0, 1] sees scores (ln 3, 0) -> 3/4, 1/4.
  const double l3 = std::log(3.0);
  const std::vector<double> q{1, 0, 0, 1}, k{0, l3, l3, 0}, v{4, -1, 8, 1};
  const auto r = attention({q.data(), 2, 2}, {k.data(), 2, 2}, {v.data(), 2, 2}, 1.0);
  CHECK_THAT(r.o(0, 0), WithinRel(7.0, 1e-15));
  CHECK_THAT(r.o(0, 1), WithinRel(0.5, 1e-15));
  CHECK_THAT(r.o(1, 0), WithinRel(5.0, 1e-15));
  CHECK_THAT(r.o(1, 1), WithinRel(-0.5, 1e-15));
}

TEST_CASE("Body plus tail attention equals attention over the concatenated keys", "[attention]") {
  const std::uint64_t seed = 0x5EED0001;
  CAPTURE(seed);
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> nd;
  const std::size_t nq = 3, d = 8, nb = 20, nt = 5, dv = 4;
  std::vector<double> q(nq * d), kb(nb * d), vb(nb * dv), kt(nt * d), vt(nt * dv), mb(nq * nb), mt(nq * nt);
  for (auto* vec : {&q, &kb, &vb, &kt, &vt}) for (auto& x : *vec) x = nd(rng);
  for (std::size_t i = 0; i < mb.size(); ++i) mb[i] = (i % 7 == 3) ? ninf : 0.1 * nd(rng);
  for (std::size_t i = 0; i < mt.size(); ++i) mt[i] = (i % 4 == 1) ? ninf : 0.1 * nd(rng);
  std::vector<double> k(kb), v(vb), mask;
  k.insert(k.end(), kt.begin(), kt.end());
  v.insert(v.end(), vt.begin(), vt.end());
  for (std::size_t i = 0; i < nq; ++i) {
    mask.insert(mask.end(), mb.begin() + i * nb, mb.begin() + (i + 1) * nb);
    mask.insert(mask.end(), mt.begin() + i * nt, mt.begin() + (i + 1) * nt);
  }
  const matrix_view<double> mbv(mb.data(), nq, nb), mtv(mt.data(), nq, nt), mv(mask.data(), nq, nb + nt);
  const auto whole = attention({q.data(), nq, d}, {k.data(), nb + nt, d}, {v.data(), nb + nt, dv}, 0.35, &mv, 0.2);
  const auto split = attention_body_tail({q.data(), nq, d}, {kb.data(), nb, d}, {vb.data(), nb, dv},
                                         {kt.data(), nt, d}, {vt.data(), nt, dv}, 0.35, &mbv, &mtv, 0.2);
  CHECK(split.o.data == whole.o.data);  // same arithmetic in the same order: bit-identical
  CHECK(split.m == whole.m);
  CHECK(split.l == whole.l);
}

TEST_CASE("Attention refuses mismatched shapes", "[attention]") {
  const std::vector<double> buf(16, 0.0);
  CHECK_THROWS_AS(attention({buf.data(), 1, 2}, {buf.data(), 2, 3}, {buf.data(), 2, 1}, 1.0), std::invalid_argument);
  CHECK_THROWS_AS(attention({buf.data(), 1, 2}, {buf.data(), 2, 2}, {buf.data(), 3, 1}, 1.0), std::invalid_argument);
  const matrix_view<double> bad_mask(buf.data(), 2, 2);
  CHECK_THROWS_AS(attention({buf.data(), 1, 2}, {buf.data(), 2, 2}, {buf.data(), 2, 1}, 1.0, &bad_mask),
                  std::invalid_argument);
}
