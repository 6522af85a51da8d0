// tileprobe-report: shards merge back into the unsharded run with no duplicated or missing case; duplicates and
// missing shard indices are reported; must_catch is judged over the merged shards; the mutation matrix is checked.
#include <catch2/catch_test_macros.hpp>

#include "probes/common/report.h"
#include "run_helper.h"
#include "tools/report_merge.h"

using namespace tp;
using nlohmann::json;

namespace {
report::loaded_report shard_report(int index, int count, std::vector<std::string> extra = {}) {
  std::vector<std::string> args{"--fuzz", "20", "--shard", std::to_string(index) + "/" + std::to_string(count)};
  args.insert(args.end(), extra.begin(), extra.end());
  const auto r = toy::run(args);
  REQUIRE(!r.report.is_null());
  return {"shard" + std::to_string(index) + ".json", probe::from_json(r.report)};
}
bool mentions(const std::vector<std::string>& lines, std::string_view what) {
  for (const auto& l : lines)
    if (l.find(what) != std::string::npos) return true;
  return false;
}
}  // namespace

TEST_CASE("Merging every shard gives back the unsharded run's cases, order and verdict", "[merge]") {
  const auto whole = probe::from_json(toy::run({"--fuzz", "20"}).report);
  std::vector<report::loaded_report> parts;
  for (int i = 3; i >= 1; --i) parts.push_back(shard_report(i, 3));  // arrival order does not matter
  const auto merged = report::merge_reports(parts);
  REQUIRE(merged.size() == 1);
  const auto& m = merged[0];
  CHECK(m.problems.empty());
  REQUIRE(m.record.cases.size() == whole.cases.size());
  for (std::size_t i = 0; i < whole.cases.size(); ++i) {
    REQUIRE(m.record.cases[i].id == whole.cases[i].id);
    REQUIRE(m.record.cases[i].passed == whole.cases[i].passed);
  }
  CHECK(m.record.broken.empty());
  CHECK(m.record.variants[0].failed == whole.variants[0].failed);
  CHECK(m.record.variants[1].coverage == whole.variants[1].coverage);
  CHECK(m.sources.size() == 3);
}

TEST_CASE("A missing shard index is reported", "[merge]") {
  const auto merged = report::merge_reports({shard_report(1, 3), shard_report(3, 3)});
  REQUIRE(merged.size() == 1);
  CHECK(mentions(merged[0].problems, "shard 2/3 is missing"));
}

TEST_CASE("A shard given twice is reported and its cases are not counted twice", "[merge]") {
  const auto merged = report::merge_reports({shard_report(1, 2), shard_report(2, 2), shard_report(2, 2)});
  REQUIRE(merged.size() == 1);
  CHECK(mentions(merged[0].problems, "shard 2/2 appears twice"));
  CHECK(merged[0].record.cases.size() == merged[0].record.unsharded_cases);
}

TEST_CASE("A case id found in two shards is reported", "[merge]") {
  auto a = shard_report(1, 2), b = shard_report(2, 2);
  b.record.cases[0].id = a.record.cases[0].id;
  const auto merged = report::merge_reports({a, b});
  CHECK(mentions(merged[0].problems, "appears in more than one shard"));
  CHECK(mentions(merged[0].problems, "cases are missing"));
}

TEST_CASE("must_catch is judged over the merged shards", "[merge]") {
  // With two shards, one shard may have no failing fixture case; only the merged run can say.
  auto a = shard_report(1, 2), b = shard_report(2, 2);
  CHECK(a.record.broken.empty());
  CHECK(b.record.broken.empty());
  for (auto* part : {&a, &b})
    for (auto& c : part->record.cases)
      if (c.source == probe::source_kind::adversarial) c.passed[0] = 1;  // upstream "no longer fails" adversarial
  for (auto* part : {&a, &b})
    for (auto& c : part->record.cases) c.buggy = probe::on_buggy::any;
  const auto merged = report::merge_reports({a, b});
  CHECK(mentions(merged[0].record.broken, "buggy variant upstream failed no adversarial case"));
}

TEST_CASE("Different runs stay apart and the document shows each with its table", "[merge]") {
  const auto cpu = probe::from_json(toy::run({"--fuzz", "4"}).report);
  toy::config gpu;
  gpu.gpu_available = true;
  const auto cuda = probe::from_json(toy::run({"--fuzz", "4", "--backend", "cuda"}, gpu).report);
  const auto merged = report::merge_reports({{"a.json", cpu}, {"b.json", cuda}});
  REQUIRE(merged.size() == 2);
  const auto doc = report::render_document(merged, nullptr);
  CHECK(doc.find("## probe-toy on cpu") != std::string::npos);
  CHECK(doc.find("## probe-toy on cuda") != std::string::npos);
  CHECK(doc.find("### cuda") != std::string::npos);
  CHECK(doc.find("| upstream (buggy) | 1/2 | 4/6 | 0/1 |") != std::string::npos);  // cases by source: failed/total
  CHECK(doc.find("```sh\nprobe-toy --fuzz 4") != std::string::npos);
}

TEST_CASE("The mutation matrix flags a surviving mutant and a revert caught by the wrong probe", "[merge][matrix]") {
  const json j = json::parse(R"({"matrix_version": 1, "rows": [
    {"variant": "fixed", "targets": [], "exit": {"probe-a": 0, "probe-b": 0}},
    {"variant": "fixed-minus-0001", "targets": ["probe-a"], "exit": {"probe-a": 1, "probe-b": 0}},
    {"variant": "fixed-minus-0002", "targets": ["probe-b"], "exit": {"probe-a": 1, "probe-b": 1}},
    {"variant": "mutant-swap-without-xor", "exit": {"probe-a": 0, "probe-b": 1}},
    {"variant": "mutant-default-field-3", "exit": {"probe-a": 0, "probe-b": 0}},
    {"variant": "mutant-x", "exit": {"probe-a": 2}}
  ]})");
  const auto m = report::parse_matrix(j);
  const auto problems = report::matrix_problems(m);
  REQUIRE(problems.size() == 4);
  CHECK(mentions(problems, "fixed-minus-0002 is caught by probe-a, probe-b, expected exactly probe-b"));
  CHECK(mentions(problems, "mutant mutant-default-field-3 survives"));
  CHECK(mentions(problems, "probe-a on mutant-x: exit 2"));
  CHECK(mentions(problems, "mutant mutant-x survives"));
  const auto doc = report::render_document({}, &m);
  CHECK(doc.find("| fixed-minus-0001 | probe-a | **caught** | pass | yes |") != std::string::npos);
  CHECK_THROWS(report::parse_matrix(json::parse(R"({"rows": []})")));
}

TEST_CASE("tileprobe-report exits 2 on an unreadable or malformed report and 1 on a merge problem", "[merge]") {
  const auto call = [](std::vector<std::string> args) {
    args.insert(args.begin(), "tileprobe-report");
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    std::ostringstream sink;
    auto* old_err = std::cerr.rdbuf(sink.rdbuf());
    auto* old_out = std::cout.rdbuf(sink.rdbuf());
    const int rc = report::tileprobe_report_main(int(argv.size()), argv.data());
    std::cerr.rdbuf(old_err);
    std::cout.rdbuf(old_out);
    return std::pair{rc, sink.str()};
  };
  CHECK(call({"/nonexistent.json"}).first == 2);
  const std::string junk = toy::temp_path("junk.json");
  std::ofstream(junk) << "{\"schema_version\": 1}";
  const auto bad = call({junk});
  CHECK(bad.first == 2);
  CHECK(bad.second.find("missing field 'probe'") != std::string::npos);

  const std::string s1 = toy::temp_path("s1.json"), out = toy::temp_path("merged.md");
  std::ofstream(s1) << toy::run({"--shard", "1/2"}).report.dump();
  CHECK(call({s1, "--out", out}).first == 1);  // shard 2/2 missing
  CHECK(toy::slurp(out).find("shard 2/2 is missing") != std::string::npos);
  const std::string whole = toy::temp_path("whole.json");
  std::ofstream(whole) << toy::run({}).report.dump();
  CHECK(call({whole, "--out", out}).first == 0);

  // A matrix alone (ci/mutation-matrix): no probe report needed; a broken requirement exits 1.
  CHECK(call({}).first == 2);
  const std::string matrix = toy::temp_path("matrix.json");
  std::ofstream(matrix) << R"({"matrix_version": 1, "backend": "cpu", "probe_args": ["--fuzz", "50"], "rows": [
    {"variant": "fixed", "family": "toy", "targets": [], "exit": {"a": 0}},
    {"variant": "mutant-m", "family": "toy", "exit": {"a": 1}}]})";
  CHECK(call({"--matrix", matrix, "--out", out}).first == 0);
  const std::string doc = toy::slurp(out);
  CHECK(doc.rfind("# tileprobe mutation matrix\n", 0) == 0);
  CHECK(doc.find("Backend: cpu; every probe run also given: `--fuzz 50`.") != std::string::npos);
  CHECK(doc.find("| mutant-m | any | caught | yes |") != std::string::npos);
  std::ofstream(matrix) << R"({"matrix_version": 1, "rows": [{"variant": "mutant-m", "exit": {"a": 0}}]})";
  const auto survived = call({"--matrix", matrix, "--out", out});
  CHECK(survived.first == 1);
  CHECK(survived.second.find("mutant mutant-m survives") != std::string::npos);
  for (const auto& p : {junk, s1, out, whole, matrix}) std::filesystem::remove(p);
}
