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
}

TEST_CASE("Shards whose counted cases do not add up to the unsharded list are reported", "[merge]") {
  auto a = shard_report(1, 2), b = shard_report(2, 2);
  REQUIRE(!b.record.tallies.empty());
  b.record.tallies[0].cases -= 1;
  const auto merged = report::merge_reports({a, b});
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
  for (auto* part : {&a, &b}) {
    for (auto& c : part->record.cases) c.buggy = probe::on_buggy::any;
    part->record.tallies.clear();  // counted again from the edited rows
  }
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
  // Two backends: the headline has a backend column and says where each ran.
  CHECK(doc.find("| probe | backend | buggy variant | fixed variant | verdict |") != std::string::npos);
  CHECK(doc.find("| [probe-toy](#probe-toy-on-cuda) | cuda |") != std::string::npos);
  CHECK(doc.find("- **cuda**: device: toy cuda") != std::string::npos);
  // Cases by source, failed / total: fixture, adversarial, control, fuzz, all.
  CHECK(doc.find("| `upstream` (buggy) | 1 / 2 | 4 / 6 | 0 / 1 |") != std::string::npos);
  CHECK(doc.find("```sh\nprobe-toy --fuzz 4") != std::string::npos);
}

TEST_CASE("The headline table of a two-shard merge counts the whole run's failures per variant", "[merge][render]") {
  const auto whole = probe::from_json(toy::run({"--fuzz", "20"}).report);
  const auto merged = report::merge_reports({shard_report(2, 2), shard_report(1, 2)});
  REQUIRE(merged.size() == 1);
  const auto doc = report::render_document(merged, nullptr);
  const auto failed = [&](std::size_t v) {
    std::size_t n = 0;
    for (const auto& c : whole.cases) n += c.passed[v] ? 0 : 1;
    return n;
  };
  REQUIRE(failed(0) > 0);
  const auto total = whole.cases.size();
  CHECK(doc.rfind("# tileprobe report\n", 0) == 0);
  CHECK(doc.find("1 probe run on cpu, merged from 2 shard reports.") != std::string::npos);
  // One backend: no backend column; the row links to the probe's section, whose heading makes that anchor.
  CHECK(doc.find("| probe | buggy variant | fixed variant | verdict |") != std::string::npos);
  const auto n = std::to_string(total);
  CHECK(doc.find("| [probe-toy](#probe-toy-on-cpu) | `upstream` " + std::to_string(failed(0)) + " / " + n +
                 " | `fixed` 0 / " + n + " | fail → pass |") != std::string::npos);
  CHECK(doc.find("\n## probe-toy on cpu\n") != std::string::npos);
  CHECK(doc.find("Every verdict is as expected.") != std::string::npos);
  CHECK(doc.find("2 shards merged") != std::string::npos);
  CHECK(doc.find("Reports merged: `shard1.json`, `shard2.json`") != std::string::npos);
  // The headline comes before any probe section.
  CHECK(doc.find("| [probe-toy]") < doc.find("## probe-toy on cpu"));
}

TEST_CASE("A missing shard shows in the headline verdict, not only in the probe's section", "[merge][render]") {
  const auto merged = report::merge_reports({shard_report(1, 3), shard_report(3, 3)});
  const auto doc = report::render_document(merged, nullptr);
  CHECK(doc.find("**shards do not add up** |") != std::string::npos);
  CHECK(doc.find("**Some verdicts are NOT as expected**") != std::string::npos);
  CHECK(doc.find("- shard 2/3 is missing") != std::string::npos);
}

TEST_CASE("A probe section reads as failed / cases everywhere, explains metrics and reruns its counterexample",
          "[merge][render]") {
  const auto merged = report::merge_reports({{"toy.json", probe::from_json(toy::run({"--fuzz", "20"}).report)}});
  const auto doc = report::render_document(merged, nullptr);
  // The per-group table counts failures too (the probe's own Markdown counts passes; the merged document never).
  CHECK(doc.find("| case group | `upstream` (buggy) | `fixed` (fixed) |") != std::string::npos);
  CHECK(doc.find("| iota | 4 / 6 | 0 / 6 |") != std::string::npos);
  // A known metric has its meaning; an unknown one says where to look; each says how it aggregates.
  CHECK(doc.find("| metric | over the cases | `upstream` | `fixed` |") != std::string::npos);
  CHECK(doc.find("| `wrong` | sum | ") != std::string::npos);
  CHECK(doc.find("| `abs_err` | max | ") != std::string::npos);
  CHECK(doc.find("- `wrong`: output elements that differ from the oracle") != std::string::npos);
  CHECK(doc.find("- `abs_err`: the probe's own (see its README)") != std::string::npos);
  // Coverage counters equal on both variants (same inputs) go into one column.
  CHECK(doc.find("| counter (equal on every variant) | count |") != std::string::npos);
  // The counterexample: ids in a code block, both variants' outputs, a rerun command without the report options.
  const auto ce = doc.find("### Shrunk counterexample");
  REQUIRE(ce != std::string::npos);
  CHECK(doc.find("```text\nshrunk: toy(v=1.2.3,src=shrunk:shrunk:fixture,drop=0,drop=0)\n", ce) != std::string::npos);
  CHECK(doc.find("**On `upstream`: FAIL** (abs_err 3, wrong 1)", ce) != std::string::npos);
  CHECK(doc.find("**On `fixed`: pass** (abs_err 0, wrong 0)", ce) != std::string::npos);
  const auto rerun = doc.find("Rerun the unshrunk case on both variants:\n\n```sh\nprobe-toy --fuzz 20 ", ce);
  REQUIRE(rerun != std::string::npos);
  const auto rerun_end = doc.find("```\n", rerun + 50);
  const auto rerun_text = doc.substr(rerun, rerun_end - rerun);
  CHECK(rerun_text.find("--variant upstream,fixed --case 'toy(v=1.2.3,src=fixture)'") != std::string::npos);
  CHECK(rerun_text.find("--report") == std::string::npos);
  CHECK(rerun_text.find("--out-json") == std::string::npos);
  CHECK(doc.find("- toy note: lists are summed") != std::string::npos);
}

TEST_CASE("Two buggy variants that shrink to the same case with the same output print it once", "[merge][render]") {
  auto rec = probe::from_json(toy::run({"--fuzz", "4"}).report);
  REQUIRE(rec.counterexamples.size() == 1);
  auto twin = rec.counterexamples.front();
  twin.variant = "upstream-again";
  rec.counterexamples.push_back(twin);
  const auto doc = report::render_document(report::merge_reports({{"toy.json", rec}}), nullptr);
  CHECK(doc.find("### Shrunk counterexamples") != std::string::npos);
  CHECK(doc.find("`upstream-again` fails the same shrunk case with the same output as `upstream` above.") !=
        std::string::npos);
  CHECK(doc.find("**On `upstream-again`") == std::string::npos);
}

TEST_CASE("Renderer helpers: shell words, GitHub anchors, readable hazard lines", "[merge][render]") {
  CHECK(report::shell_words("probe-x --case 'a(b=1,c=2)' --out x\\ y 'it'\\''s'") ==
        std::vector<std::string>{"probe-x", "--case", "a(b=1,c=2)", "--out", "x y", "it's"});
  CHECK(report::wrap_text_line("a b", 10) == "a b\n");
  // A case id longer than a line breaks after its commas; words move whole to an indented continuation line.
  CHECK(report::wrap_text_line("shrunk: toy(alpha=1,beta=2,gamma=3) done", 20) ==
        "shrunk: toy(alpha=1,\n    beta=2,gamma=3)\n    done\n");
  CHECK(report::github_anchor("ck-phantom-fallback on cpu") == "ck-phantom-fallback-on-cpu");
  CHECK(report::github_anchor("probe-toy on cpu (run 2)") == "probe-toy-on-cpu-run-2");
  CHECK(report::github_anchor("Mutation matrix") == "mutation-matrix");
  CHECK(report::readable_evidence(
            "RAW hazard on shared byte 544 (block 0): write by warp 0 lane 0 at "
            "/work/b/kernels/fattn/variants/upstream/kernels/fattn/fattn-mma-f16.cuh:238 (void tpv_x::process_tile("
            "const args&, tp::smem<float>, int) [with C = cfg<256, 64>]), then read by warp 1 lane 0 at "
            "/work/b/kernels/fattn/variants/upstream/kernels/fattn/fattn-mma-f16.cuh:254 (void tpv_x::combine(int)) "
            "in the same barrier epoch") ==
        "RAW hazard on shared byte 544 (block 0): write by warp 0 lane 0 at kernels/fattn/fattn-mma-f16.cuh:238 "
        "(process_tile), then read by warp 1 lane 0 at kernels/fattn/fattn-mma-f16.cuh:254 (combine) in the same "
        "barrier epoch");
  // Nothing that looks like a location: unchanged.
  const std::string plain = "element 3 (host-initialised) read by block 0 thread 0";
  CHECK(report::readable_evidence(plain) == plain);
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
  CHECK(doc.find("| fixed-minus-0001 | exactly the bold ones | **caught** | pass | yes |") != std::string::npos);
  CHECK(doc.find("| fixed-minus-0002 | exactly the bold ones | caught | **caught** | **NO** |") != std::string::npos);
  CHECK(doc.find("| mutant-default-field-3 | any probe | pass | pass | **NO** |") != std::string::npos);
  CHECK(doc.find("| mutant-x | any probe | exit 2 | - | **NO** |") != std::string::npos);
  CHECK_THROWS(report::parse_matrix(json::parse(R"({"rows": []})")));
}

TEST_CASE("The mutation matrix gets one table per kernel family, with that family's probes only", "[merge][matrix]") {
  const auto m = report::parse_matrix(json::parse(R"({"matrix_version": 1, "rows": [
    {"variant": "fixed", "family": "ck", "targets": [], "exit": {"probe-a": 0}},
    {"variant": "upstream", "family": "ck", "targets": ["probe-a"], "exit": {"probe-a": 1}},
    {"variant": "fixed", "family": "fa", "targets": [], "exit": {"probe-b": 0, "probe-c": 0}},
    {"variant": "upstream", "family": "fa", "targets": ["probe-b", "probe-c"], "exit": {"probe-b": 1, "probe-c": 1}}
  ]})"));
  const auto doc = report::render_document({}, &m);
  const auto ck = doc.find("\n## Kernel family `ck`"), fa = doc.find("\n## Kernel family `fa`");
  REQUIRE(ck != std::string::npos);
  REQUIRE(fa != std::string::npos);
  CHECK(doc.find("| variant | must be caught by | probe-a | holds |", ck) < fa);
  CHECK(doc.find("| fixed | no probe | pass | yes |", ck) < fa);
  CHECK(doc.find("| variant | must be caught by | probe-b | probe-c | holds |", fa) != std::string::npos);
  CHECK(doc.find("| upstream | exactly the bold ones | **caught** | **caught** | yes |", fa) != std::string::npos);
  CHECK(doc.find("probe-b", ck) > fa);  // no fa probe column in the ck table
}

namespace {
// tileprobe-report in-process: exit code and everything it printed.
std::pair<int, std::string> report_tool(std::vector<std::string> args) {
  args.insert(args.begin(), "tileprobe-report");
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  std::ostringstream sink;
  auto* old_err = std::cerr.rdbuf(sink.rdbuf());
  auto* old_out = std::cout.rdbuf(sink.rdbuf());
  const int rc = report::tileprobe_report_main(int(argv.size()), argv.data());
  std::cerr.rdbuf(old_err);
  std::cout.rdbuf(old_out);
  return {rc, sink.str()};
}
}  // namespace

TEST_CASE("tileprobe-report exits 2 on an unreadable or malformed report and 1 on a merge problem", "[merge]") {
  const auto call = report_tool;
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
  CHECK(doc.find("| mutant-m | any probe | caught | yes |") != std::string::npos);
  CHECK(doc.find("\n## Kernel family `toy`") != std::string::npos);  // a matrix alone: its tables are sections
  std::ofstream(matrix) << R"({"matrix_version": 1, "rows": [{"variant": "mutant-m", "exit": {"a": 0}}]})";
  const auto survived = call({"--matrix", matrix, "--out", out});
  CHECK(survived.first == 1);
  CHECK(survived.second.find("mutant mutant-m survives") != std::string::npos);
  for (const auto& p : {junk, s1, out, whole, matrix}) std::filesystem::remove(p);
}

namespace {
json tool_schema() { return json::parse(toy::slurp(TP_REPORT_TOOL_SCHEMA)); }
std::string write_report(const json& j, const std::string& stem) {
  const auto path = toy::temp_path(stem);
  std::ofstream(path) << j.dump();
  return path;
}
}  // namespace

TEST_CASE("tileprobe-report --compare-reports: the same run twice agrees; a digest or count that differs is exit 1, "
          "in the JSON too",
          "[merge][compare]") {
  json a = toy::run({"--fuzz", "20"}).report;
  // A digest as the ck probes record it, on every variant.
  for (auto& v : a["variants"]) {
    v["metrics"]["d_digest"] = {{"value", 12345.0}, {"merge", "sum"}};
    v["metrics"]["d_digest_cases"] = {{"value", 20.0}, {"merge", "sum"}};
  }
  const auto x = write_report(a, "x.json"), y = write_report(a, "y.json"), out = toy::temp_path("cmp.md"),
             jout = toy::temp_path("cmp.json");
  auto r = report_tool({"--compare-reports", x + "," + y, "--no-run-sections", "--json-out", jout, "--out", out});
  CHECK(r.first == 0);
  json j = json::parse(toy::slurp(jout));
  CHECK(probe::schema_violations(tool_schema(), j).empty());
  CHECK(j["exit_code"] == 0);
  CHECK(j["runs"].empty());  // compared reports are not the document's runs
  REQUIRE(!j["comparison"].is_null());
  CHECK(j["comparison"]["a"] == "cpu (first)");  // both ran on cpu: the sides say which is which
  REQUIRE(j["comparison"]["rows"].size() == a["variants"].size());
  for (const auto& row : j["comparison"]["rows"]) {
    CHECK(row["equal"] == true);
    CHECK(row["cells"][0]["what"] == "d_digest");
    CHECK(row["cells"][0]["a"] == "12345");
  }
  const std::string doc = toy::slurp(out);
  CHECK(doc.rfind("\n## Backends compared: cpu (first) and cpu (second)\n", 0) == 0);  // no title: a section

  json b = a;
  b["variants"][0]["metrics"]["d_digest"]["value"] = 12346.0;
  const auto z = write_report(b, "z.json");
  r = report_tool({"--compare-reports", x + "," + z, "--json-out", jout, "--out", out});
  CHECK(r.first == 1);
  j = json::parse(toy::slurp(jout));
  CHECK(probe::schema_violations(tool_schema(), j).empty());
  CHECK(j["exit_code"] == 1);
  CHECK(j["comparison"]["rows"][0]["equal"] == false);
  CHECK(j["comparison"]["rows"][1]["equal"] == true);
  REQUIRE(j["problems"].size() == 1);
  CHECK(j["problems"][0].get<std::string>().rfind("compare: probe-toy ", 0) == 0);
  CHECK(r.second.find("tileprobe-report: compare: probe-toy ") != std::string::npos);

  // Another seed is another run: not compared, a problem.
  const auto w = write_report(toy::run({"--fuzz", "20", "--seed", "7"}).report, "w.json");
  r = report_tool({"--compare-reports", x + "," + w, "--json-out", jout, "--out", out});
  CHECK(r.first == 1);
  CHECK(r.second.find("not the same run") != std::string::npos);
  CHECK(report_tool({"--compare-reports", x}).first == 2);  // not X,Y
  CHECK(report_tool({"--compare-reports", x + "," + y, "--compare-backends", "cpu,hip"}).first == 2);
  for (const auto& p : {x, y, z, w, out, jout}) std::filesystem::remove(p);
}

TEST_CASE("tileprobe-report --throughput: rates, the ratio to the one-core cpu run and its bound come from JSON fields",
          "[merge][compare]") {
  json one = toy::run({"--fuzz", "20"}).report;
  one["run_seconds"] = 2.0;
  one["bench"] = {{"cpu_seconds", 2.0}, {"tile_case_runs", 100.0}, {"host_cpu_us_per_tile_case_run", 5000.0},
                  {"host_threads", 1.0}};
  // The same probe "on a GPU" (another fuzz count: another run), with 4 host threads, 8 times as fast.
  json fast = toy::run({"--fuzz", "40"}).report;
  fast["backend"] = "cuda";
  fast["run_seconds"] = 0.5;
  fast["bench"] = {{"host_threads", 4.0}};
  const auto a = write_report(one, "one.json"), b = write_report(fast, "fast.json"), out = toy::temp_path("t.md"),
             jout = toy::temp_path("t.json");
  const auto r = report_tool({"--throughput", "--no-run-sections", "--json-out", jout, "--out", out, a, b});
  CHECK(r.first == 0);
  const json j = json::parse(toy::slurp(jout));
  CHECK(probe::schema_violations(tool_schema(), j).empty());
  CHECK(j["comparison"].is_null());
  REQUIRE(j["throughput"].size() == 2);
  const auto& ref = j["throughput"][0];
  const auto& gpu = j["throughput"][1];
  const double runs_one = ref["case_runs"].get<double>(), runs_fast = gpu["case_runs"].get<double>();
  CHECK(ref["vs_cpu_one_process"].is_null());
  CHECK(ref["case_runs_per_second"].get<double>() == runs_one / 2.0);
  CHECK(gpu["host_threads"] == 4);
  CHECK(gpu["run"] == "1 process, --jobs 4");
  CHECK(gpu["vs_cpu_one_process"].get<double>() == (runs_fast / 0.5) / (runs_one / 2.0));
  // 20000 us CPU per tile-case run, 5000 of them host work: 4 threads cannot beat 4 x 20000 / 5000 = 16x.
  CHECK(gpu["cpu_us_per_tile_case_run"].get<double>() == 20000.0);
  CHECK(gpu["at_most"].get<double>() == 16.0);
  CHECK(toy::slurp(out).find("at most 16x with free kernels on 4 host thread(s)") != std::string::npos);
  CHECK(report_tool({"--throughput"}).first == 2);  // nothing to measure
  for (const auto& p : {a, b, out, jout}) std::filesystem::remove(p);
}

TEST_CASE("tileprobe-report --json-out lists every run's verdict and every problem line, and matches the exit code",
          "[merge]") {
  const auto s1 = write_report(toy::run({"--shard", "1/2"}).report, "s1.json");
  const auto jout = toy::temp_path("j.json"), out = toy::temp_path("j.md");
  const auto r = report_tool({s1, "--out", out, "--json-out", jout});
  CHECK(r.first == 1);
  const json j = json::parse(toy::slurp(jout));
  CHECK(probe::schema_violations(tool_schema(), j).empty());
  CHECK(j["exit_code"] == 1);
  REQUIRE(j["runs"].size() == 1);
  CHECK(j["runs"][0]["as_expected"] == false);
  CHECK(j["runs"][0]["problems"][0] == "shard 2/2 is missing");
  CHECK(j["runs"][0]["commit"].is_string());
  CHECK(j["problems"][0] == "probe-toy: shard 2/2 is missing");
  CHECK(r.second.find("tileprobe-report: probe-toy: shard 2/2 is missing") != std::string::npos);
  CHECK(j["matrix"].is_null());
  CHECK(j["throughput"].is_null());
  for (const auto& p : {s1, jout, out}) std::filesystem::remove(p);
}

TEST_CASE("tileprobe-report --matrix-runs judges ci/mutation-matrix's runs against patches/<family>/targets",
          "[merge][matrix]") {
  namespace fs = std::filesystem;
  const fs::path dir = toy::temp_path("matrix-runs"), runs = dir / "runs", patches = dir / "patches";
  fs::create_directories(runs);
  fs::create_directories(patches / "toy");
  std::ofstream(patches / "toy" / "targets") << "# which probe catches what\nupstream a\n";
  // Probes a and b (names from the files) on both variants of the toy family, as the matrix runs them.
  const auto record = [&](const std::string& probe, const std::string& variant) {
    const auto r = toy::run({"--variant", variant, "--expect", "pass", "--no-shrink"});
    std::ofstream(runs / (probe + "@" + variant + ".json")) << r.report.dump();
    std::ofstream(runs / (probe + "@" + variant + ".exit")) << r.code << "\n";
    return r.code;
  };
  for (const std::string p : {"a", "b"}) {
    CHECK(record(p, "upstream") == 1);
    CHECK(record(p, "fixed") == 0);
  }
  const auto out = (dir / "m.md").string(), jout = (dir / "m.json").string();
  const auto call = [&] {
    return report_tool({"--matrix-runs", runs.string(), "--targets-dir", patches.string(), "--json-out", jout,
                        "--out", out, "--matrix-probe-args=--fuzz", "--matrix-probe-args=5"});
  };
  // b catches upstream too, but the targets file says exactly a.
  auto r = call();
  CHECK(r.first == 1);
  json j = json::parse(toy::slurp(jout));
  CHECK(probe::schema_violations(tool_schema(), j).empty());
  CHECK(j["matrix"]["probe_args"] == json::array({"--fuzz", "5"}));
  REQUIRE(j["matrix"]["problems"].size() == 1);
  CHECK(j["matrix"]["problems"][0] == "variant upstream is caught by a, b, expected exactly a");
  CHECK(r.second.find("tileprobe-report: matrix: variant upstream is caught by a, b, expected exactly a") !=
        std::string::npos);

  std::ofstream(patches / "toy" / "targets") << "upstream a b\n";
  r = call();
  CHECK(r.first == 0);
  j = json::parse(toy::slurp(jout));
  CHECK(j["exit_code"] == 0);
  CHECK(j["matrix"]["rows"].size() == 2);

  // An exit status that is not the report's verdict, and a run that is missing, are problems too.
  std::ofstream(runs / "b@fixed.exit") << "1\n";
  fs::remove(runs / "a@fixed.exit");
  fs::remove(runs / "a@fixed.json");
  r = call();
  CHECK(r.first == 1);
  CHECK(r.second.find("b on fixed: exit 1 but the report's verdict is as expected") != std::string::npos);
  CHECK(r.second.find("a was not run on fixed") != std::string::npos);
  // A malformed exit file is bad input.
  std::ofstream(runs / "b@fixed.exit") << "one\n";
  CHECK(call().first == 2);
  fs::remove_all(dir);
}

TEST_CASE("tileprobe-report names the reports and input files it merges relative to its own --out, never by absolute "
          "path", "[merge]") {
  namespace fs = std::filesystem;
  const fs::path dir = toy::temp_path("relative"), shards = dir / "shard-1";
  fs::create_directories(shards);
  REQUIRE(toy::run({"--report", "json", "--out", (shards / "probe-toy.json").string()}, {}, false).code == 0);
  const auto out = (dir / "merged.md").string();
  REQUIRE(report_tool({(shards / "probe-toy.json").string(), "--out", out}).first == 0);
  const std::string doc = toy::slurp(out);
  CHECK(doc.find(dir.string()) == std::string::npos);
  CHECK(doc.find("Report: `shard-1/probe-toy.json`") != std::string::npos);
  CHECK(doc.find(" shard-1/probe-toy.upstream.tpin\n") != std::string::npos);  // the --input reproduce line
  CHECK(doc.find("probe-toy --backend cpu --variant upstream,fixed --input - <<'TPIN'\n") != std::string::npos);
  // A merge problem names the reports the same way.
  REQUIRE(report_tool({(shards / "probe-toy.json").string(), (shards / "probe-toy.json").string(), "--out", out}).first == 1);
  CHECK(toy::slurp(out).find(dir.string()) == std::string::npos);
  CHECK(toy::slurp(out).find("appears twice: shard-1/probe-toy.json and shard-1/probe-toy.json") != std::string::npos);
  fs::remove_all(dir);
}
