// The (m, l, acc) triple: chunked updates and merges reproduce one-pass attention; the -20 flush; the KVarN
// tail-merge rule, including the (0, 0) body meta that makes a row tail-only (bug B's symptom).
#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_floating_point.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "reference/attention.h"
#include "reference/online_softmax.h"

using namespace tp::ref;
using Catch::Matchers::WithinRel;
using Catch::Matchers::WithinAbs;

namespace {
const double ninf = -std::numeric_limits<double>::infinity();

struct problem {
  std::size_t n_kv, dv;
  std::vector<double> scores, v;
};

problem random_problem(std::uint64_t seed, std::size_t n_kv, std::size_t dv) {
  std::mt19937_64 rng(seed);
  // Scores within 10 of each other: no chunk maximum is 20 below the global one, so the flush never fires
  // and chunked results must agree with one pass to rounding.
  std::uniform_real_distribution<double> s(-5.0, 5.0);
  std::normal_distribution<double> nd;
  problem p{n_kv, dv, std::vector<double>(n_kv), std::vector<double>(n_kv * dv)};
  for (auto& x : p.scores) x = s(rng);
  for (auto& x : p.v) x = nd(rng);
  return p;
}

// One-pass reference through attention(): a 1-dim query of 1 and keys equal to the scores give exactly those scores.
std::vector<double> one_pass(const problem& p) {
  const std::vector<double> q{1.0};
  return attention({q.data(), 1, 1}, {p.scores.data(), p.n_kv, 1}, {p.v.data(), p.n_kv, p.dv}, 1.0).o.data;
}

softmax_triple chunk(const problem& p, std::size_t begin, std::size_t end) {
  softmax_triple t(p.dv);
  t.update(std::span<const double>(p.scores).subspan(begin, end - begin),
           matrix_view<double>(p.v.data() + begin * p.dv, end - begin, p.dv));
  return t;
}
}  // namespace

TEST_CASE("A hand-computed update gives the expected triple", "[online_softmax]") {
  // scores 0, ln 3 and values 4, 8: m = ln 3, l = 1/3 + 1, acc = 4/3 + 8, output 7
  softmax_triple t(1);
  const std::vector<double> s{0.0, std::log(3.0)}, v{4.0, 8.0};
  t.update(s, {v.data(), 2, 1});
  CHECK_THAT(t.m, WithinRel(std::log(3.0), 1e-15));
  CHECK_THAT(t.l, WithinRel(4.0 / 3.0, 1e-15));
  CHECK_THAT(t.acc[0], WithinRel(28.0 / 3.0, 1e-15));
  CHECK_THAT(t.output()[0], WithinRel(7.0, 1e-15));
}

TEST_CASE("Chunked updates and merges of chunks equal one-pass softmax attention to 1e-12", "[online_softmax]") {
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    CAPTURE(seed);
    const auto p = random_problem(seed, 97, 6);
    const auto ref = one_pass(p);
    std::mt19937_64 rng(seed * 7919);
    std::vector<std::size_t> cuts{0, p.n_kv};
    for (int i = 0; i < 4; ++i) cuts.push_back(std::uniform_int_distribution<std::size_t>(1, p.n_kv - 1)(rng));
    std::sort(cuts.begin(), cuts.end());
    CAPTURE(cuts);

    softmax_triple running(p.dv), merged(p.dv), merged_reverse(p.dv);
    for (std::size_t c = 0; c + 1 < cuts.size(); ++c) {
      running.update(std::span<const double>(p.scores).subspan(cuts[c], cuts[c + 1] - cuts[c]),
                     matrix_view<double>(p.v.data() + cuts[c] * p.dv, cuts[c + 1] - cuts[c], p.dv));
      merged = merge(merged, chunk(p, cuts[c], cuts[c + 1]));
    }
    for (std::size_t c = cuts.size() - 1; c > 0; --c) merged_reverse = merge(chunk(p, cuts[c - 1], cuts[c]), merged_reverse);
    for (std::size_t j = 0; j < p.dv; ++j) {
      CHECK_THAT(running.output()[j], WithinAbs(ref[j], 1e-12));
      CHECK_THAT(merged.output()[j], WithinAbs(ref[j], 1e-12));
      CHECK_THAT(merged_reverse.output()[j], WithinAbs(ref[j], 1e-12));
    }
  }
}

TEST_CASE("Merge flushes a part whose maximum is more than 20 below the other", "[online_softmax]") {
  softmax_triple a(1), b(1);
  a.m = 0.0; a.l = 1.0; a.acc = {1.0};
  b.m = 25.0; b.l = 2.0; b.acc = {4.0};
  auto r = merge(a, b);
  CHECK(r.m == 25.0);
  CHECK(r.l == 2.0);      // σ_a = e^-25 flushed to 0 exactly
  CHECK(r.acc[0] == 4.0);
  b.m = 19.0;             // e^-19 is above the threshold and kept
  r = merge(a, b);
  CHECK_THAT(r.l, WithinRel(2.0 + std::exp(-19.0), 1e-15));
  CHECK(softmax_scale(-20.5, 0.0) == 0.0);
  CHECK(softmax_scale(-20.0, 0.0) == std::exp(-20.0));
  CHECK(softmax_scale(ninf, ninf) == 0.0);
}

TEST_CASE("An empty triple is the identity of merge and outputs zeros", "[online_softmax]") {
  softmax_triple e(2), t(2);
  const std::vector<double> s{1.0, ninf}, v{1, 2, 3, 4};
  t.update(s, {v.data(), 2, 2});
  const auto r = merge(e, t);
  CHECK(r.m == t.m);
  CHECK(r.l == t.l);
  CHECK(r.acc == t.acc);
  CHECK(e.output() == std::vector<double>{0.0, 0.0});
  // Only masked scores: nothing changes.
  const std::vector<double> masked{ninf, ninf};
  e.update(masked, {v.data(), 2, 2});
  CHECK(e.m == ninf);
  CHECK(e.l == 0.0);
  CHECK_THROWS_AS(e.update(masked, {v.data(), 1, 2}), std::invalid_argument);
}

TEST_CASE("The KVarN tail merge weighs parts by l·e^(m-M) and drops a part with zero meta", "[online_softmax]") {
  // body O=1 (m=0, l=1), tail O=3 (m=ln 3, l=1): w_b = 1/3, w_t = 1, O = (1/3 + 3) / (4/3) = 2.5
  const std::vector<double> ob{1.0}, ot{3.0};
  CHECK_THAT(kvarn_tail_merge(ob, 0.0, 1.0, ot, std::log(3.0), 1.0)[0], WithinRel(2.5, 1e-15));
  CHECK(kvarn_tail_merge(ob, 0.0, 0.0, ot, std::log(3.0), 1.0)[0] == 3.0);  // body meta (0, 0): tail only
  CHECK(kvarn_tail_merge(ob, 0.0, 1.0, ot, ninf, 0.0)[0] == 1.0);
  CHECK(kvarn_tail_merge(ob, 0.0, 0.0, ot, 0.0, 0.0)[0] == 0.0);
}

TEST_CASE("Merging normalised body and tail results reproduces body+tail attention", "[online_softmax]") {
  const std::uint64_t seed = 0x7A11;
  CAPTURE(seed);
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> nd;
  const std::size_t nq = 4, d = 16, nb = 40, nt = 9, dv = 8;
  std::vector<double> q(nq * d), kb(nb * d), vb(nb * dv), kt(nt * d), vt(nt * dv);
  for (auto* vec : {&q, &kb, &vb, &kt, &vt}) for (auto& x : *vec) x = nd(rng);
  const double scale = 1.0 / 4.0;
  const auto body = attention({q.data(), nq, d}, {kb.data(), nb, d}, {vb.data(), nb, dv}, scale);
  const auto tail = attention({q.data(), nq, d}, {kt.data(), nt, d}, {vt.data(), nt, dv}, scale);
  const auto whole = attention_body_tail({q.data(), nq, d}, {kb.data(), nb, d}, {vb.data(), nb, dv},
                                         {kt.data(), nt, d}, {vt.data(), nt, dv}, scale);
  for (std::size_t i = 0; i < nq; ++i) {
    const auto o = kvarn_tail_merge(std::span<const double>(body.o.data).subspan(i * dv, dv), body.m[i], body.l[i],
                                    std::span<const double>(tail.o.data).subspan(i * dv, dv), tail.m[i], tail.l[i]);
    for (std::size_t j = 0; j < dv; ++j) CHECK_THAT(o[j], WithinAbs(whole.o(i, j), 1e-12));
  }
}
