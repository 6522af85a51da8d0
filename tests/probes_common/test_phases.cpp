// The run's phases (probes/common/phases/phases.h) one at a time, on a small declaration of the toy probe's kind:
// variant resolution, case planning (filters, rebuilt ids, shards), the record keeper's bookkeeping, shrinking.
#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

#include <numeric>
#include <sstream>

#include "probes/common/phases/phases.h"
#include "toy_probe.h"

using namespace tp::probe;
using Catch::Matchers::ContainsSubstring;

namespace {

std::vector<registered_variant> toy_registry() {
  return {{"toy", "upstream", "cpu", &toy::upstream_ops},
          {"toy", "fixed", "cpu", &toy::fixed_ops},
          {"toy", "clone", "cpu", &toy::clone_ops},
          {"toy", "fixed", "cuda", &toy::fixed_ops}};
}

phase::declaration toy_declaration() {
  phase::declaration d;
  d.name = "probe-toy";
  d.family = "toy";
  d.sources.emplace_back(source_kind::adversarial, [](case_list& out) {
    for (int n = 1; n <= 3; ++n)
      out.push_back({.id = case_name("toy")("n", n)("src", "table"), .payload = toy::list(std::size_t(n), 3)});
  });
  d.fuzz = [](std::uint64_t seed, case_list& out) {
    out.push_back({.id = case_name("toy")("n", 2).seed(seed), .payload = toy::list{int(seed % 7), 3}});
  };
  d.runner = [](const case_def& c, const variant& v) {
    outcome o;
    o.pass = v.ops_as<toy::ops>().sum(c.as<toy::list>()) == toy::sum_correct(c.as<toy::list>());
    return o;
  };
  d.shrinker = toy::drop_one;
  d.parent_of = [](std::string_view id) { return shrunk_parent(id, 1); };
  d.input_text = [](const case_def& c) -> std::optional<std::string> {
    return input_writer("probe-toy").record("list", {std::to_string(c.as<toy::list>().size())}).str();
  };
  return d;
}

std::vector<std::pair<std::string, std::uint64_t>> selected(const phase::case_plan& plan) {
  std::vector<std::pair<std::string, std::uint64_t>> out;
  plan.for_each_selected([&](case_def&& c, std::uint64_t pos) { out.emplace_back(c.id, pos); });
  return out;
}

}  // namespace

TEST_CASE("Variant resolution keeps the --variant order, gives each its role and finds the reference variant",
          "[phases]") {
  const auto d = toy_declaration();
  options opt;
  phase::raw_options raw;
  raw.variant = {"fixed,upstream", "fixed", "clone"};
  const auto sel = phase::resolve_variants(toy_registry(), d, raw, opt);
  REQUIRE(sel.selected.size() == 3);
  CHECK(sel.selected[0].name == "fixed");
  CHECK(sel.selected[0].role == variant_role::fixed);
  CHECK(sel.selected[1].role == variant_role::buggy);
  CHECK(sel.selected[2].role == variant_role::other);
  CHECK(opt.variants == std::vector<std::string>{"fixed", "upstream", "clone"});
  REQUIRE(sel.reference);
  CHECK(sel.reference->name == "fixed");

  // Only the buggy variant selected: the counterexample is still shown beside the declared fixed one.
  raw.variant = {"upstream"};
  const auto alone = phase::resolve_variants(toy_registry(), d, raw, opt);
  REQUIRE(alone.selected.size() == 1);
  REQUIRE(alone.reference);
  CHECK(alone.reference->name == "fixed");
  CHECK(alone.reference->role == variant_role::fixed);

  raw.variant = {"all"};
  CHECK(phase::resolve_variants(toy_registry(), d, raw, opt).selected.size() == 3);
  opt.backend = "cuda";
  CHECK(phase::resolve_variants(toy_registry(), d, raw, opt).selected.size() == 1);
}

TEST_CASE("Variant resolution refuses unknown and contradictory names, and an absent backend is unavailable",
          "[phases]") {
  const auto d = toy_declaration();
  options opt;
  phase::raw_options raw;
  raw.variant = {"nope"};
  CHECK_THROWS_WITH(phase::resolve_variants(toy_registry(), d, raw, opt),
                    "--variant 'nope': no such variant of toy on cpu (known: upstream, fixed, clone)");
  raw.variant = {};
  raw.buggy = {"fixed"};
  CHECK_THROWS_WITH(phase::resolve_variants(toy_registry(), d, raw, opt),
                    "variant 'fixed' is declared both buggy and fixed");
  raw.buggy = {"ghost"};
  CHECK_THROWS_AS(phase::resolve_variants(toy_registry(), d, raw, opt), usage_error);
  raw.buggy = {};
  opt.backend = "hip";
  CHECK_THROWS_AS(phase::resolve_variants(toy_registry(), d, raw, opt), backend_unavailable);
  CHECK_THROWS_WITH(phase::resolve_variants(toy_registry(), d, raw, opt),
                    ContainsSubstring("backend hip is not built into this probe (built: cpu, cuda)"));
  CHECK_THROWS_WITH(phase::resolve_variants({}, d, raw, opt), ContainsSubstring("is registered in this executable"));
}

TEST_CASE("The case plan lists the fixed cases, then the fuzz cases, numbering only the selected ones", "[phases]") {
  const auto d = toy_declaration();
  options opt;
  opt.fuzz = 4;
  opt.seed = 9;
  const phase::case_plan all(d, opt);
  const auto every = selected(all);
  REQUIRE(every.size() == 7);
  CHECK(every[0].first == "toy(n=1,src=table)");
  CHECK(every[3].first == case_name("toy")("n", 2).seed(fuzz_case_seed(9, 0)).str());
  for (std::size_t i = 0; i < every.size(); ++i) CHECK(every[i].second == i);

  // A filter keeps the list order; positions count the selected cases, so shards split what the filter left.
  opt.case_filters = {"*seed=*", "n=3"};
  const phase::case_plan filtered(d, opt);
  const auto some = selected(filtered);
  REQUIRE(some.size() == 5);
  CHECK(some[0] == std::pair<std::string, std::uint64_t>{"toy(n=3,src=table)", 0});
  CHECK(some[4].second == 4);
  std::ostringstream shard2;
  filtered.list({2, 2}, shard2);
  CHECK(shard2.str() == some[1].first + "\n" + some[3].first + "\n");
}

TEST_CASE("An exact id outside the list is rebuilt: a fuzz id from its seed, a shrunk id through its parent",
          "[phases]") {
  const auto d = toy_declaration();
  options opt;  // --fuzz 0: no fuzz case in the list
  const std::string fuzz_id = case_name("toy")("n", 2).seed(12345).str();
  const std::string shrunk = shrunk_id(fuzz_id, {{"drop", "1"}});
  opt.case_filters = {shrunk, fuzz_id};
  const phase::case_plan plan(d, opt);
  const auto rows = selected(plan);
  REQUIRE(rows.size() == 2);
  CHECK(rows[0].first == shrunk);
  CHECK(rows[1].first == fuzz_id);
  const auto rebuilt = plan.rebuild(shrunk);
  REQUIRE(rebuilt);
  CHECK(rebuilt->source == source_kind::fuzz);
  CHECK(rebuilt->as<toy::list>() == toy::list{int(12345 % 7)});
  CHECK_FALSE(plan.rebuild("toy(n=9,src=nowhere)"));
}

TEST_CASE("The case plan refuses a filter that takes no case and a probe defect before anything runs", "[phases]") {
  auto d = toy_declaration();
  options opt;
  opt.case_filters = {"no-such-case"};
  CHECK_THROWS_WITH(phase::case_plan(d, opt), "--case 'no-such-case' matches no case (see --list-cases)");
  opt.case_filters = {};
  d.sources.emplace_back(source_kind::control, [](case_list& out) {
    out.push_back({.id = "toy(n=1,src=table)", .payload = toy::list{1}});
  });
  CHECK_THROWS_WITH(phase::case_plan(d, opt), "two cases share the id toy(n=1,src=table)");
  d = toy_declaration();
  d.fuzz = [](std::uint64_t, case_list& out) { out.push_back({.id = "toy(n=2)", .payload = toy::list{1}}); };
  opt.fuzz = 1;
  const phase::case_plan lazy(d, opt);  // fuzz cases are made when reached
  CHECK_THROWS_AS(selected(lazy), std::logic_error);
}

TEST_CASE("The record keeper counts every case, lists them all up to the limit, then only the notable ones",
          "[phases]") {
  run_record rec;
  rec.expect = expect_mode::fail_pass;
  rec.variants.resize(2);
  rec.variants[0].name = "upstream";
  rec.variants[0].role = variant_role::buggy;
  rec.variants[1].name = "fixed";
  rec.variants[1].role = variant_role::fixed;
  phase::record_keeper keeper(rec);
  const std::uint8_t both_pass[] = {1, 1}, buggy_fails[] = {0, 1};
  for (std::size_t k = 0; k < 4; ++k) CHECK(keeper.keep_failure(0, "row") == (k < phase::record_keeper::kept_per_row));
  CHECK(keeper.keep_failure(1, "row"));
  std::uint64_t position = 0;
  const auto add = [&](std::string_view row, std::span<const std::uint8_t> passed) {
    case_def c{.id = "c" + std::to_string(position), .source = source_kind::fuzz, .group = std::string(row)};
    return keeper.add(c, position++, passed);
  };
  CHECK(add("quiet", both_pass) == 0);
  CHECK(add("loud", buggy_fails) == 1);
  while (position < listed_cases_max) add("quiet", both_pass);
  keeper.end_batch();
  CHECK(rec.all_cases_listed);
  CHECK(rec.cases.size() == listed_cases_max);
  add("quiet", both_pass);
  keeper.end_batch();
  // Over the limit: only the failing row stays listed; the tallies still count every case.
  CHECK_FALSE(rec.all_cases_listed);
  REQUIRE(rec.cases.size() == 1);
  CHECK(rec.cases[0].id == "c1");
  CHECK(add("quiet", both_pass) == phase::record_keeper::npos);
  CHECK(add("loud", buggy_fails) == 1);
  REQUIRE(rec.tallies.size() == 2);
  CHECK(rec.tallies[0].cases + rec.tallies[1].cases == listed_cases_max + 3);
  CHECK(rec.tallies[1].variants[0].failed == 2);
  CHECK(rec.tallies[1].variants[0].first_failed == "c1");
  CHECK(rec.tallies[1].variants[1].first_passed_at == 1);
}

TEST_CASE("Shrinking keeps the smallest failing candidate, reruns it beside the reference and says how to rerun it",
          "[phases][shrink]") {
  const auto d = toy_declaration();
  const backend_hooks hooks;
  const phase::case_runner run{d, hooks};
  options opt;
  phase::raw_options raw;
  raw.variant = {"upstream"};
  const auto sel = phase::resolve_variants(toy_registry(), d, raw, opt);
  phase::execution ran;
  ran.first_failing = {case_def{.id = "toy(n=3,src=table)", .source = source_kind::adversarial,
                                .payload = toy::list{5, 3, 4}}};

  auto ces = phase::shrink_failures(run, d, opt, sel, ran, "/out/r");
  REQUIRE(ces.size() == 1);
  const auto& ce = ces[0];
  CHECK(ce.shrunk_id == "toy(n=3,src=shrunk:shrunk:table,drop=0,drop=1)");  // {5,3,4} -> {3,4} -> {3}
  CHECK(ce.steps == 2);
  CHECK(ce.runs == 3);
  CHECK_FALSE(ce.on_variant.pass);
  REQUIRE(ce.on_reference);
  CHECK(ce.on_reference->pass);
  CHECK(ce.reference_variant == "fixed");
  CHECK(ce.input_text == "tileprobe-input v1\nprobe probe-toy\nlist 1\n");
  CHECK(ce.input_file == "/out/r.upstream.tpin");
  CHECK(ce.reproduce == std::vector<std::string>{
                           "probe-toy --backend cpu --variant upstream,fixed --input /out/r.upstream.tpin",
                           "probe-toy --backend cpu --variant upstream,fixed --case "
                           "'toy(n=3,src=shrunk:shrunk:table,drop=0,drop=1)'"});

  // No report file: no input file; an --input run's cases have no id to rerun by; a budget of 1 run stops early.
  opt.input = "given.tpin";
  opt.shrink_budget = 1;
  ces = phase::shrink_failures(run, d, opt, sel, ran, "");
  CHECK(ces[0].input_file.empty());
  CHECK(ces[0].reproduce.empty());
  CHECK(ces[0].budget_exhausted);
  CHECK(ces[0].steps == 1);
  opt.shrink = false;
  CHECK(phase::shrink_failures(run, d, opt, sel, ran, "")[0].shrunk_id == "toy(n=3,src=table)");
}

TEST_CASE("Counterexample input files go beside the first report file", "[phases]") {
  phase::report_plan plan;
  CHECK(plan.input_stem().empty());
  plan.destination[report_format::json] = "out/r.json";
  plan.destination[report_format::md] = "out.d/r.md";
  CHECK(plan.input_stem() == "out.d/r");
  plan.destination[report_format::text] = "out.d/noext";
  CHECK(plan.input_stem() == "out.d/noext");
}
