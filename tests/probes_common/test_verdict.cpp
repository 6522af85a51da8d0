// The verdict rules (fail-pass, pass, fail; the control-case rule; must_catch) and greedy shrinking, on hand-built
// run records so each rule is seen breaking on its own.
#include <catch2/catch_test_macros.hpp>

#include <algorithm>

#include "probes/common/run.h"

using namespace tp::probe;

namespace {
// Variants: 0 upstream (buggy), 1 fixed (fixed). Each case: source and whether it passed on each.
run_record record(std::vector<std::tuple<source_kind, bool, bool>> rows, expect_mode mode = expect_mode::fail_pass) {
  run_record r;
  r.probe = "p";
  r.expect = mode;
  r.must_catch = {source_kind::fixture, source_kind::adversarial};
  variant_summary up, fx;
  up.name = "upstream";
  up.role = variant_role::buggy;
  fx.name = "fixed";
  fx.role = variant_role::fixed;
  r.variants = {up, fx};
  int i = 0;
  for (auto [src, up_pass, fixed_pass] : rows) {
    case_row c;
    c.id = "c(" + std::to_string(i++) + ")";
    c.source = src;
    if (src == source_kind::control) c.buggy = on_buggy::pass;
    c.passed = {std::uint8_t(up_pass), std::uint8_t(fixed_pass)};
    r.cases.push_back(c);
  }
  return r;
}
bool mentions(const std::vector<std::string>& lines, std::string_view what) {
  return std::any_of(lines.begin(), lines.end(), [&](const std::string& l) { return l.find(what) != l.npos; });
}
using K = source_kind;
}  // namespace

TEST_CASE("fail-pass holds when fixed passes everything and buggy fails on every must_catch kind", "[verdict]") {
  auto r = record({{K::fixture, false, true}, {K::fixture, true, true}, {K::adversarial, false, true},
                   {K::control, true, true}, {K::fuzz, true, true}});
  CHECK(evaluate(r, true).empty());
}

TEST_CASE("fail-pass breaks when the fixed variant fails any case", "[verdict]") {
  auto r = record({{K::fixture, false, true}, {K::adversarial, false, true}, {K::fuzz, true, false}});
  const auto b = evaluate(r, true);
  REQUIRE(b.size() == 1);
  CHECK(mentions(b, "fixed variant fixed failed 1 of 3"));
  CHECK(mentions(b, "c(2)"));
}

TEST_CASE("fail-pass breaks when the buggy variant fails no case of a must_catch kind", "[verdict]") {
  auto r = record({{K::fixture, false, true}, {K::adversarial, true, true}, {K::fuzz, false, true}});
  const auto b = evaluate(r, true);
  REQUIRE(b.size() == 1);
  CHECK(mentions(b, "buggy variant upstream failed no adversarial case (0/1 failed)"));
}

TEST_CASE("A control case failing on the buggy variant breaks fail-pass", "[verdict]") {
  auto r = record({{K::fixture, false, true}, {K::adversarial, false, true}, {K::control, false, true}});
  const auto b = evaluate(r, true);
  REQUIRE(b.size() == 1);
  CHECK(mentions(b, "buggy variant upstream failed 1 of 1 control case(s)"));
}

TEST_CASE("A control case applies to variants with no role as well", "[verdict]") {
  auto r = record({{K::fixture, false, true}, {K::adversarial, false, true}, {K::control, true, true}});
  variant_summary other;
  other.name = "fixed-minus-0002";
  r.variants.push_back(other);
  for (auto& c : r.cases) c.passed.push_back(c.source == K::control ? 0 : 1);
  const auto b = evaluate(r, true);
  REQUIRE(b.size() == 1);
  CHECK(mentions(b, "other variant fixed-minus-0002 failed 1 of 1 control"));
}

TEST_CASE("A case that must fail on the buggy variant breaks fail-pass when it passes", "[verdict]") {
  auto r = record({{K::fixture, false, true}, {K::adversarial, false, true}, {K::adversarial, true, true}});
  r.cases[2].buggy = on_buggy::fail;
  const auto b = evaluate(r, true);
  REQUIRE(b.size() == 1);
  CHECK(mentions(b, "passed 1 case(s) that must fail on it; first: c(2)"));
}

TEST_CASE("must_catch is left to the merger for a single shard, and a missing kind breaks an unfiltered run",
          "[verdict]") {
  auto r = record({{K::fixture, false, true}, {K::fuzz, true, true}});
  CHECK(evaluate(r, false).empty());
  const auto b = evaluate(r, true);
  REQUIRE(b.size() == 1);
  CHECK(mentions(b, "no adversarial case ran"));
  r.filtered = true;  // --case narrowed the run: a kind with no selected case is not a defect
  CHECK(evaluate(r, true).empty());
}

TEST_CASE("pass mode demands every variant pass; fail mode demands every variant fail at least once", "[verdict]") {
  auto r = record({{K::fixture, false, true}, {K::adversarial, true, true}}, expect_mode::pass);
  auto b = evaluate(r, true);
  REQUIRE(b.size() == 1);
  CHECK(mentions(b, "variant upstream failed 1 of 2"));
  r.expect = expect_mode::fail;
  b = evaluate(r, true);
  REQUIRE(b.size() == 1);
  CHECK(mentions(b, "variant fixed passed all 2 cases"));
  r.cases[0].passed[1] = 0;
  CHECK(evaluate(r, true).empty());
}

TEST_CASE("A run with no case is never as expected", "[verdict]") {
  auto r = record({});
  CHECK(mentions(evaluate(r, true), "no case ran"));
}

TEST_CASE("The fail->pass table counts passes per group and variant", "[verdict]") {
  auto r = record({{K::fixture, false, true}, {K::fixture, true, true}, {K::adversarial, false, false}});
  r.cases[2].group = "single-at-3";
  const auto t = make_table(r);
  REQUIRE(t.rows == std::vector<std::string>{"fixture", "single-at-3"});
  CHECK(t.cells[0][0].passed == 1);
  CHECK(t.cells[0][0].total == 2);
  CHECK(t.cells[0][1].passed == 2);
  CHECK(t.cells[1][1].passed == 0);
}

TEST_CASE("Metrics merge by max or sum and coverage counters add up", "[verdict]") {
  variant_summary s;
  outcome a, b;
  a.pass = true;
  a.metric_max("max_abs_err", 2).metric_sum("wrong", 1).count("groups.single_at_3", 2);
  b.metric_max("max_abs_err", 5).metric_max("max_abs_err", 1).metric_sum("wrong", 3).count("groups.single_at_3");
  b.error = "kernel_error";
  accumulate(s, a);
  accumulate(s, b);
  CHECK(s.passed == 1);
  CHECK(s.failed == 1);
  CHECK(s.errors == 1);
  CHECK(s.metrics.at("max_abs_err").value == 5);
  CHECK(s.metrics.at("wrong").value == 4);
  CHECK(s.coverage.at("groups.single_at_3") == 3);
}

TEST_CASE("Shrinking keeps a candidate that still fails until none does, and the result still fails", "[shrink]") {
  // Fails iff the list holds a 3; the minimal failing list is {3}.
  const auto fails = [](const case_def& c) {
    const auto& l = c.as<std::vector<int>>();
    return std::find(l.begin(), l.end(), 3) != l.end();
  };
  const auto candidates = [](const case_def& c) {
    const auto& l = c.as<std::vector<int>>();
    case_list out;
    for (std::size_t i = 0; l.size() > 1 && i < l.size(); ++i) {
      auto s = l;
      s.erase(s.begin() + std::ptrdiff_t(i));
      out.push_back({.id = "l(n=" + std::to_string(s.size()) + ")", .payload = s});
    }
    return out;
  };
  const case_def start{.id = "l(n=6)", .payload = std::vector<int>{1, 2, 3, 4, 5, 6}};
  const auto r = shrink_case(start, candidates, fails, 1000);
  CHECK(r.shrunk.as<std::vector<int>>() == std::vector<int>{3});
  CHECK(fails(r.shrunk));
  CHECK(r.steps == 5);
  CHECK_FALSE(r.budget_exhausted);

  const auto limited = shrink_case(start, candidates, fails, 3);
  CHECK(limited.budget_exhausted);
  CHECK(limited.runs == 3);
  CHECK(fails(limited.shrunk));
  CHECK(limited.shrunk.as<std::vector<int>>().size() < 6);
}
