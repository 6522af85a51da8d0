// The probe app end to end on the toy probe: the common CLI, exit codes 0/1/2/77, --case reruns, sharding,
// counterexamples, coverage, bench, batch runners.
#include <catch2/catch_test_macros.hpp>

#include <algorithm>
#include <map>
#include <set>

#include "run_helper.h"

using nlohmann::json;

namespace {
std::vector<std::string> lines_of(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  for (std::string l; std::getline(ss, l);) out.push_back(l);
  return out;
}
const json& variant_json(const json& report, std::string_view name) {
  for (const auto& v : report.at("variants"))
    if (v.at("name") == name) return v;
  throw std::runtime_error("no variant " + std::string(name));
}
// A usage error: exit 2, exactly one line on stderr that mentions `what`, nothing run (no report written).
void require_usage_error(std::vector<std::string> args, std::string_view what) {
  const auto r = toy::run(std::move(args));
  INFO(r.err);
  CHECK(r.code == 2);
  CHECK(lines_of(r.err).size() == 1);
  CHECK(r.err.find(what) != std::string::npos);
  CHECK(r.report.is_null());
}
}  // namespace

TEST_CASE("The toy probe in fail-pass mode exits 0 with upstream failing and fixed passing", "[app]") {
  const auto r = toy::run({});
  INFO(r.err);
  REQUIRE(r.code == 0);
  const auto& j = r.report;
  CHECK(j.at("verdict").at("as_expected") == true);
  // 2 fixture + 6 adversarial + 1 control + 10 fuzz (default_fuzz).
  CHECK(j.at("cases").size() == 19);
  CHECK(variant_json(j, "fixed").at("failed") == 0);
  CHECK(variant_json(j, "upstream").at("failed").get<int>() > 0);
  CHECK(variant_json(j, "upstream").at("role") == "buggy");
}

TEST_CASE("A probe whose buggy variant no longer fails exits 1 and says where", "[app]") {
  const auto r = toy::run({"--variant", "clone,fixed", "--buggy", "clone"});
  REQUIRE(r.code == 1);
  const auto broken = r.report.at("verdict").at("broken");
  REQUIRE(broken.size() == 3);
  CHECK(broken[0].get<std::string>().find("buggy variant clone passed 4 case(s) that must fail") == 0);
  CHECK(broken[1].get<std::string>().find("buggy variant clone failed no fixture case") == 0);
  CHECK(broken[2].get<std::string>().find("buggy variant clone failed no adversarial case") == 0);
}

TEST_CASE("A regression in a fixed variant exits 1", "[app]") {
  const auto r = toy::run({"--variant", "upstream,broken-long", "--fixed", "broken-long"});
  REQUIRE(r.code == 1);
  CHECK(r.report.at("verdict").at("broken")[0].get<std::string>().find("fixed variant broken-long failed") == 0);
}

TEST_CASE("pass and fail expectations give the mutation matrix its answers", "[app]") {
  CHECK(toy::run({"--variant", "fixed", "--expect", "pass"}).code == 0);
  CHECK(toy::run({"--variant", "upstream", "--expect", "pass"}).code == 1);
  CHECK(toy::run({"--variant", "upstream", "--expect", "fail"}).code == 0);
  CHECK(toy::run({"--variant", "fixed", "--expect", "fail"}).code == 1);
}

TEST_CASE("Bad usage and bad input exit 2 with one line and run nothing", "[app]") {
  require_usage_error({"--no-such-option"}, "--no-such-option");
  require_usage_error({"--shard", "0/3"}, "--shard '0/3'");
  require_usage_error({"--shard", "x"}, "--shard 'x'");
  require_usage_error({"--variant", "nope"}, "--variant 'nope': no such variant of toy on cpu");
  require_usage_error({"--backend", "tpu"}, "--backend 'tpu'");
  require_usage_error({"--expect", "maybe"}, "--expect 'maybe'");
  require_usage_error({"--seed", "12z"}, "--seed '12z'");
  require_usage_error({"--input", "/nonexistent/tile.txt"}, "cannot open");
  require_usage_error({"--case", "no-such-case"}, "--case 'no-such-case' matches no case");
  require_usage_error({"--report", "pdf"}, "--report 'pdf'");
  require_usage_error({"--report", "text,md"}, "several --report formats would go to stdout");
  require_usage_error({"--buggy", "fixed"}, "both buggy and fixed");
  require_usage_error({"--out-md", "/tmp/x.md"}, "--report does not include md");
  require_usage_error({"--fuzz", "notanumber"}, "--fuzz");
  const std::string bad_input = toy::temp_path("bad-input.txt");
  std::ofstream(bad_input) << "tileprobe-input v1\nprobe probe-toy\nlist 1 2 three\n";
  require_usage_error({"--input", bad_input}, ":3: 'list' value 3 'three' is not an integer");
  std::ofstream(bad_input) << "tileprobe-input v1\nprobe probe-other\nlist 1\n";
  require_usage_error({"--input", bad_input}, ":2: this file is for probe 'probe-other', not probe-toy");
  std::filesystem::remove(bad_input);
}

TEST_CASE("An --input file runs only the tile given as data", "[app]") {
  const std::string path = toy::temp_path("input.txt");
  std::ofstream(path) << "tileprobe-input v1\nprobe probe-toy\n# the toy's body: one list\nlist 7 3 1\n";
  const auto r = toy::run({"--input", path, "--expect", "fail", "--variant", "upstream"});
  std::filesystem::remove(path);
  REQUIRE(r.code == 0);
  REQUIRE(r.report.at("cases").size() == 1);
  CHECK(r.report.at("cases")[0].at("id") == "toy(v=7.3.1,src=input)");
  CHECK(r.report.at("cases")[0].at("source") == "input");
}

TEST_CASE("A backend that is not built or has no device exits 77", "[app]") {
  const auto r = toy::run({"--backend", "hip"});
  CHECK(r.code == 77);
  CHECK(r.err.find("backend hip is not built into this probe (built: cpu, cuda)") != std::string::npos);
  const auto r2 = toy::run({"--backend", "cuda"});
  CHECK(r2.code == 77);
  CHECK(r2.err.find("not available on this machine") != std::string::npos);
  toy::config gpu;
  gpu.gpu_available = true;
  CHECK(toy::run({"--backend", "cuda"}, gpu).code == 0);
}

TEST_CASE("A printed fuzz id given to --case reruns exactly that case, whatever --fuzz is", "[app]") {
  const auto listed = toy::run({"--fuzz", "25", "--seed", "99", "--list-cases"}, {}, false);
  REQUIRE(listed.code == 0);
  const auto ids = lines_of(listed.out);
  REQUIRE(ids.size() == 9 + 25);
  const std::string fuzz_id = ids[9 + 17];
  REQUIRE(fuzz_id.find("seed=0x") != std::string::npos);
  CHECK(tp::probe::id_seed(fuzz_id) == tp::probe::fuzz_case_seed(99, 17));

  const auto rerun = toy::run({"--fuzz", "0", "--case", fuzz_id, "--variant", "fixed", "--expect", "pass"});
  REQUIRE(rerun.code == 0);
  REQUIRE(rerun.report.at("cases").size() == 1);
  CHECK(rerun.report.at("cases")[0].at("id") == fuzz_id);
  CHECK(rerun.report.at("cases")[0].at("source") == "fuzz");
  CHECK(rerun.report.at("filtered") == true);
}

TEST_CASE("The --case filter takes globs and substrings and may be repeated", "[app]") {
  const auto r = toy::run({"--case", "*src=iota*", "--case", "v=1.2.3,", "--list-cases"}, {}, false);
  REQUIRE(r.code == 0);
  const auto ids = lines_of(r.out);
  CHECK(ids.size() == 7);  // six iota cases (one of them is 1.2.3) plus the fixture 1.2.3
  CHECK(std::count(ids.begin(), ids.end(), "toy(v=1.2.3,src=fixture)") == 1);
}

TEST_CASE("Shards run disjoint parts of the case list that cover it", "[app]") {
  const auto all = lines_of(toy::run({"--list-cases", "--fuzz", "30"}, {}, false).out);
  std::multiset<std::string> union_of_shards;
  for (int i = 1; i <= 4; ++i) {
    const auto part = lines_of(toy::run({"--list-cases", "--fuzz", "30", "--shard", std::to_string(i) + "/4"}, {},
                                        false).out);
    union_of_shards.insert(part.begin(), part.end());
  }
  CHECK(union_of_shards == std::multiset<std::string>(all.begin(), all.end()));
  const auto shard = toy::run({"--shard", "2/4", "--fuzz", "30"});
  CHECK(shard.report.at("shard").at("index") == 2);
  CHECK(shard.report.at("unsharded_cases") == all.size());
}

TEST_CASE("A runner exception fails the case and carries its message", "[app]") {
  const auto r = toy::run({"--variant", "throws", "--expect", "fail"});
  REQUIRE(r.code == 0);
  const auto& v = variant_json(r.report, "throws");
  CHECK(v.at("errors") == r.report.at("cases").size());
  CHECK(r.report.at("failures")[0].at("outcome").at("error") == "divergent barrier at toy.cu:12");
}

TEST_CASE("The variant list `all` selects every variant registered on the backend", "[app]") {
  const auto r = toy::run({"--variant", "all", "--list-cases"}, {}, false);
  REQUIRE(r.code == 0);
  const auto j = toy::run({"--variant", "all"});
  std::set<std::string> names;
  for (const auto& v : j.report.at("variants")) names.insert(v.at("name").get<std::string>());
  CHECK(names == std::set<std::string>{"upstream", "fixed", "clone", "broken-long", "throws"});
  CHECK(variant_json(j.report, "clone").at("role") == "other");
}

TEST_CASE("Failures are shrunk and the shrunk case is shown on the fixed variant", "[app][shrink]") {
  const auto r = toy::run({});
  REQUIRE(r.code == 0);
  const auto& ces = r.report.at("counterexamples");
  REQUIRE(ces.size() == 1);
  const auto& ce = ces[0];
  CHECK(ce.at("variant") == "upstream");
  CHECK(ce.at("original") == "toy(v=1.2.3,src=fixture)");
  CHECK(ce.at("shrunk") == "toy(v=1.2.3,src=shrunk:shrunk:fixture,drop=0,drop=0)");
  CHECK(ce.at("outcome").at("pass") == false);
  CHECK(ce.at("reference_variant") == "fixed");
  CHECK(ce.at("reference_outcome").at("pass") == true);
  CHECK(ce.at("outcome").at("detail")[0] == "sum 0, expected 3");

  const auto unshrunk = toy::run({"--no-shrink"});
  CHECK(unshrunk.report.at("counterexamples")[0].at("shrunk") == "toy(v=1.2.3,src=fixture)");
}

TEST_CASE("The fixed variant is used for the side-by-side even when only the buggy one was selected", "[shrink]") {
  const auto r = toy::run({"--variant", "upstream", "--case", "toy(v=1.2.3,src=fixture)"});
  REQUIRE(r.report.at("counterexamples").size() == 1);
  CHECK(r.report.at("counterexamples")[0].at("reference_variant") == "fixed");
}

TEST_CASE("Coverage counters are summed per variant over the run", "[app]") {
  const auto r = toy::run({"--fuzz", "0"});
  const auto& cov = variant_json(r.report, "fixed").at("coverage");
  CHECK(cov.at("lists") == 9);
  CHECK(cov.at("threes") == 5);  // 1.2.3 in the fixture and iota n = 3..6
  CHECK(variant_json(r.report, "upstream").at("metrics").at("wrong").at("value") == 5);
}

TEST_CASE("Probe notes reach every report", "[app]") {
  const auto r = toy::run({});
  REQUIRE(r.report.at("notes").size() == 1);
  CHECK(r.report.at("notes")[0] == "toy note: lists are summed");
  const auto text = toy::run({"--report", "text"}, {}, false);
  CHECK(text.out.find("notes\n  toy note: lists are summed") != std::string::npos);
}

TEST_CASE("The --bench flag reports cases per second measured in the run", "[app]") {
  const auto r = toy::run({"--bench", "--fuzz", "200"});
  REQUIRE(r.code == 0);
  CHECK(variant_json(r.report, "fixed").contains("cases_per_second"));
  CHECK(variant_json(r.report, "fixed").at("cases_per_second").get<double>() > 0);
  const auto text = toy::run({"--bench", "--report", "text"}, {}, false);
  CHECK(text.out.find("cases/s") != std::string::npos);
}

TEST_CASE("A batch runner sees batches no larger than batch_size", "[app]") {
  std::vector<std::size_t> sizes;
  toy::config cfg;
  cfg.batch = true;
  cfg.batch_size = 4;
  cfg.batch_sizes_seen = &sizes;
  const auto r = toy::run({"--fuzz", "7"}, cfg);
  REQUIRE(r.code == 0);
  CHECK(!sizes.empty());
  CHECK(*std::max_element(sizes.begin(), sizes.end()) <= 4);
  // 16 cases per variant in batches of 4, twice, then single-case shrink runs.
  CHECK(std::count(sizes.begin(), sizes.end(), 4u) == 8);
}

TEST_CASE("Host threads and batch sizes (options jobs and batch) change nothing in the report but its timings", "[app]") {
  // The bookkeeping of a batch is split into parts of 1024 outcomes on --jobs threads: summaries, the kept failures
  // (only failing cases, the first per row) and the case rows must come out as they do one by one.
  const auto strip = [](json j) {
    j.erase("command");
    j.erase("run_seconds");
    for (auto& v : j.at("variants")) v.erase("seconds");
    for (auto& ce : j.at("counterexamples")) {  // they name the input file beside each run's (temporary) report
      ce.erase("input_file");
      ce.erase("reproduce");
    }
    return j;
  };
  const auto one = toy::run({"--fuzz", "3000", "--no-shrink"});
  REQUIRE(one.code == 0);
  REQUIRE(!one.report.at("failures").empty());
  for (const auto& f : one.report.at("failures")) CHECK(f.at("variant") == "upstream");
  for (const auto& opts : {std::vector<std::string>{"--jobs", "3", "--batch", "2500"},
                           std::vector<std::string>{"--jobs", "4", "--batch", "1"},
                           std::vector<std::string>{"--jobs", "2", "--batch", "100000"}}) {
    auto args = opts;
    args.insert(args.end(), {"--fuzz", "3000", "--no-shrink"});
    const auto other = toy::run(args);
    INFO(opts[1] + " " + opts[3]);
    REQUIRE(other.code == 0);
    CHECK(strip(other.report) == strip(one.report));
  }
}

TEST_CASE("The --out stem with several formats writes one file per format and prints the text report", "[app]") {
  const std::string stem = toy::temp_path("stem");
  const auto r = toy::run({"--report", "text,json", "--report", "md,junit", "--out", stem}, {}, false);
  REQUIRE(r.code == 0);
  for (const char* ext : {".txt", ".json", ".md", ".xml"}) {
    CHECK(std::filesystem::exists(stem + ext));
    std::filesystem::remove(stem + ext);
  }
  CHECK(r.out.find("fail->pass") != std::string::npos);
}

TEST_CASE("A fixture-less probe breaks fail-pass in an unfiltered run", "[app]") {
  toy::config cfg;
  cfg.with_fixture = false;
  const auto r = toy::run({}, cfg);
  CHECK(r.code == 1);
  CHECK(r.report.at("verdict").at("broken")[0].get<std::string>().find("no fixture case ran") == 0);
}

TEST_CASE("A case a source function declares control stays control and must pass on the buggy variant", "[app]") {
  toy::config clean;
  clean.control_in_adversarial = true;
  const auto ok = toy::run({}, clean);
  INFO(ok.err);
  REQUIRE(ok.code == 0);
  const auto& cases = ok.report.at("cases");
  const auto it = std::find_if(cases.begin(), cases.end(), [](const json& c) {
    return c.at("id").get<std::string>().find("sweep-clean-point") != std::string::npos;
  });
  REQUIRE(it != cases.end());
  CHECK(it->at("source") == "control");
  CHECK(it->at("group") == "sweep (control)");

  // The reported bug: an adversarial source's control case failing on upstream was counted as an adversarial catch.
  toy::config dirty = clean;
  dirty.control_fails_upstream = true;
  const auto bad = toy::run({}, dirty);
  REQUIRE(bad.code == 1);
  const auto broken = bad.report.at("verdict").at("broken");
  REQUIRE(broken.size() == 1);
  CHECK(broken[0].get<std::string>().find("buggy variant upstream failed 1 of 2 control case(s)") == 0);
}

TEST_CASE("A case without a source kind of its own takes the kind of the source that added it", "[app]") {
  const auto r = toy::run({});
  REQUIRE(r.code == 0);
  std::map<std::string, int> per_kind;
  for (const auto& c : r.report.at("cases")) ++per_kind[c.at("source").get<std::string>()];
  CHECK(per_kind == std::map<std::string, int>{{"adversarial", 6}, {"control", 1}, {"fixture", 2}, {"fuzz", 10}});
}

TEST_CASE("list-variants prints the family's variants on the selected backend and exits 0", "[app]") {
  const auto cpu = toy::run({"--list-variants"}, {}, false);
  CHECK(cpu.code == 0);
  CHECK(lines_of(cpu.out) == std::vector<std::string>{"upstream", "fixed", "clone", "broken-long", "throws"});
  toy::config gpu;
  gpu.gpu_available = true;
  const auto cuda = toy::run({"--list-variants", "--backend", "cuda"}, gpu, false);
  CHECK(cuda.code == 0);
  CHECK(lines_of(cuda.out) == std::vector<std::string>{"upstream", "fixed"});
  const auto hip = toy::run({"--list-variants", "--backend", "hip"}, {}, false);
  CHECK(hip.code == 77);
  CHECK(hip.out.empty());
  CHECK(toy::run({"--list-variants", "--backend", "tpu"}, {}, false).code == 2);
}

TEST_CASE("The environment's device line comes from simt's device_description", "[app]") {
  const auto hooks = tp::probe::default_backend_hooks();
  REQUIRE(hooks.device_name);
#if defined(TP_PROBE_TESTS_HAVE_SIMT)
  CHECK(hooks.device_name("cpu").rfind("CPU fiber emulator on ", 0) == 0);
  CHECK(hooks.device_name("cpu").find("hardware threads)") != std::string::npos);
  // No HIP runtime is linked into this test, so simt says the backend is not built rather than naming a device.
  CHECK(hooks.device_name("hip") == "hip backend not built into this program");
#else
  CHECK(hooks.device_name("cpu").rfind("CPU on ", 0) == 0);
#endif
}

TEST_CASE("A malformed --skew, or --skew off CUDA, exits 2 and names the CPU backend's scheduling policies", "[app][gpu]") {
  require_usage_error({"--backend", "cuda", "--skew", "5"}, "--skew '5': expected MASK:CYCLES");
  require_usage_error({"--backend", "cuda", "--skew", "0x0:100"}, "--skew '0x0:100'");
  require_usage_error({"--backend", "cuda", "--skew", "0x1:0"}, "--skew '0x1:0'");
  require_usage_error({"--backend", "cuda", "--skew", "zz:100"}, "--skew 'zz:100'");
  require_usage_error({"--backend", "cuda", "--skew", "0x1:-5"}, "--skew '0x1:-5'");
  require_usage_error({"--backend", "cuda", "--skew", "0x1:4294967296"}, "--skew '0x1:4294967296'");
  require_usage_error({"--skew", "0x1:1000"}, "the CPU backend orders warps by its scheduling policies");
  require_usage_error({"--backend", "hip", "--skew", "0x1:1000"}, "--skew is for --backend cuda only");
}

TEST_CASE("The skew option on CUDA sets the mask and cycles before any case runs and the environment records it", "[app][gpu]") {
  std::vector<std::pair<unsigned, unsigned>> seen;
  toy::config gpu;
  gpu.gpu_available = true;
  gpu.skews_set = &seen;
  const auto r = toy::run({"--backend", "cuda", "--skew", "0xA:20000"}, gpu);
  REQUIRE(r.code == 0);
  REQUIRE(seen.size() == 1);
  CHECK(seen[0] == std::pair<unsigned, unsigned>{0xA, 20000});
  bool found = false;
  for (const auto& e : r.report.at("environment"))
    if (e.dump().find("warp mask 0xa, 20000 cycles") != std::string::npos) found = true;
  CHECK(found);
  // Without the hook (a probe built without nvcc) the option is refused rather than ignored.
  toy::config no_hook;
  no_hook.gpu_available = true;
  const auto refused = toy::run({"--backend", "cuda", "--skew", "0xA:20000"}, no_hook);
  CHECK(refused.code == 2);
  CHECK(refused.err.find("built without the CUDA backend") != std::string::npos);
}

TEST_CASE("The sanitize option takes four tools, only on CUDA, and needs compute-sanitizer on PATH", "[app][gpu]") {
  require_usage_error({"--sanitize", "racecheck"}, "only with --backend cuda");
  require_usage_error({"--backend", "cuda", "--sanitize", "leakcheck"}, "--sanitize 'leakcheck': expected racecheck");
  const char* old_path = std::getenv("PATH");
  const std::string saved = old_path ? old_path : "";
  const std::string empty_dir = toy::temp_path("empty-path");
  std::filesystem::create_directory(empty_dir);
  setenv("PATH", empty_dir.c_str(), 1);
  const auto r = toy::run({"--backend", "cuda", "--sanitize", "initcheck"}, {}, false);
  setenv("PATH", saved.c_str(), 1);
  std::filesystem::remove(empty_dir);
  CHECK(r.code == 2);
  CHECK(r.err.find("compute-sanitizer is not on PATH") != std::string::npos);
}

TEST_CASE("The sanitize option re-executes the same command without --sanitize", "[app][gpu]") {
  // A stand-in compute-sanitizer on PATH gets past the PATH check; the recording hook stands in for the exec.
  const std::string dir = toy::temp_path("fake-cuda-bin");
  std::filesystem::create_directory(dir);
  const std::string fake = dir + "/compute-sanitizer";
  std::ofstream(fake) << "#!/bin/sh\nexit 0\n";
  std::filesystem::permissions(fake, std::filesystem::perms::owner_all);
  const char* old_path = std::getenv("PATH");
  const std::string saved = old_path ? old_path : "";
  setenv("PATH", (dir + ":" + saved).c_str(), 1);
  for (const auto& form : {std::vector<std::string>{"--sanitize", "racecheck"}, {"--sanitize=racecheck"}}) {
    std::vector<std::string> seen;
    toy::config gpu;
    gpu.gpu_available = true;
    gpu.sanitizer_args = &seen;
    std::vector<std::string> args{"--backend", "cuda"};
    args.insert(args.end(), form.begin(), form.end());
    args.insert(args.end(), {"--variant", "fixed", "--expect", "pass"});
    const auto r = toy::run(args, gpu, false);
    CHECK(r.code == 0);
    REQUIRE(seen.size() == 8);
    CHECK(seen[0] == "racecheck");
    CHECK(std::filesystem::path(seen[1]).is_absolute());
    CHECK(std::vector<std::string>(seen.begin() + 2, seen.end()) ==
          std::vector<std::string>{"--backend", "cuda", "--variant", "fixed", "--expect", "pass"});
  }
  setenv("PATH", saved.c_str(), 1);
  std::filesystem::remove_all(dir);
}

TEST_CASE("A printed shrunk id reruns alone, rebuilt through its parent and the shrinker", "[app][shrink][rerun]") {
  const auto r = toy::run({});
  REQUIRE(r.code == 0);
  const auto& ce = r.report.at("counterexamples").at(0);
  const std::string shrunk = ce.at("shrunk");
  CHECK(shrunk == "toy(v=1.2.3,src=shrunk:shrunk:fixture,drop=0,drop=0)");
  for (const auto& fuzz : {"0", "10"}) {
    const auto again = toy::run({"--variant", "upstream,fixed", "--case", shrunk, "--fuzz", fuzz});
    INFO(again.err);
    REQUIRE(again.code == 0);
    REQUIRE(again.report.at("cases").size() == 1);
    CHECK(again.report.at("cases")[0].at("id") == shrunk);
    CHECK(again.report.at("cases")[0].at("source") == "fixture");
    CHECK(again.report.at("cases")[0].at("failed_on") == json::array({"upstream"}));
    CHECK(again.report.at("failures")[0].at("outcome").at("detail") == ce.at("outcome").at("detail"));
  }
  // A shrunk id whose step names no candidate of its parent is no case.
  require_usage_error({"--case", "toy(v=1.2.3,src=shrunk:fixture,drop=7)"}, "matches no case");
}

TEST_CASE("A shrunk counterexample is written as an input file beside the report and its reproduce lines rerun it",
          "[app][shrink][rerun]") {
  const std::string stem = toy::temp_path("ce");
  const auto r = toy::run({"--report", "json", "--out", stem + ".json"}, {}, false);
  REQUIRE(r.code == 0);
  const auto report = json::parse(toy::slurp(stem + ".json"));
  const auto& ce = report.at("counterexamples").at(0);
  CHECK(ce.at("input_file") == stem + ".upstream.tpin");
  CHECK(toy::slurp(stem + ".upstream.tpin") == "tileprobe-input v1\nprobe probe-toy\nlist 3\n");
  REQUIRE(ce.at("reproduce").size() == 2);
  CHECK(ce.at("reproduce")[0].get<std::string>().find("--variant upstream,fixed --input " + stem + ".upstream.tpin") !=
        std::string::npos);
  const auto again = toy::run({"--variant", "upstream,fixed", "--input", stem + ".upstream.tpin"});
  REQUIRE(again.code == 0);
  CHECK(again.report.at("cases")[0].at("failed_on") == json::array({"upstream"}));
  std::filesystem::remove(stem + ".json");
  std::filesystem::remove(stem + ".upstream.tpin");
}

TEST_CASE("A runner that runs out of memory ends the run with exit 3 and one line, never a verdict", "[app]") {
  toy::config cfg;
  cfg.out_of_memory_variant = true;
  const auto r = toy::run({"--variant", "fixed,out-of-memory"}, cfg);
  CHECK(r.code == 3);
  CHECK(r.err == "probe-toy: internal error: out of memory\n");
}

TEST_CASE("Numeric options out of their range exit 2 and say the range", "[app]") {
  require_usage_error({"--fuzz", "-1"}, "--fuzz '-1': expected a whole number from 0 to 1000000000");
  require_usage_error({"--fuzz", "18446744073709551615"}, "--fuzz '18446744073709551615'");
  require_usage_error({"--shrink-budget", "-1"}, "--shrink-budget '-1'");
  require_usage_error({"--jobs", "0"}, "--jobs '0': expected a whole number from 1 to 1024");
  require_usage_error({"--batch", "-5"}, "--batch '-5'");
  require_usage_error({"--no-shrink", "--shrink-budget", "4"}, "contradict");
}

TEST_CASE("must_catch applies only to the source kinds the run's filters left with cases", "[app][verdict]") {
  toy::config no_fixture;
  no_fixture.with_fixture = false;
  CHECK(toy::run({}, no_fixture).code == 1);  // unfiltered: a kind without cases is a probe defect
  for (const auto& filter : {std::vector<std::string>{"--fuzz", "0"}, {"--case", "*src=iota*"}, {"--fixture", "x"}}) {
    const auto r = toy::run(filter, no_fixture);
    INFO(filter[0]);
    CHECK(r.code == 0);
    CHECK(r.report.at("filtered") == true);
  }
  // Filtered to adversarial cases only, the kind that has cases must still be caught.
  const auto clone = toy::run({"--case", "*src=iota*", "--variant", "clone,fixed", "--buggy", "clone"});
  CHECK(clone.code == 1);
}

TEST_CASE("A run of more than 10000 cases lists only failing cases, and its counts cover every case", "[app][memory]") {
  const auto r = toy::run({"--fuzz", "30000", "--no-shrink"});
  REQUIRE(r.code == 0);
  const auto& j = r.report;
  CHECK(j.at("all_cases_listed") == false);
  std::uint64_t counted = 0;
  for (const auto& t : j.at("tallies")) counted += t.at("cases").get<std::uint64_t>();
  CHECK(counted == 30009);
  CHECK(variant_json(j, "upstream").at("passed").get<std::uint64_t>() +
            variant_json(j, "upstream").at("failed").get<std::uint64_t>() == 30009);
  CHECK(j.at("cases").size() < 500);
  for (const auto& c : j.at("cases")) CHECK(!c.at("failed_on").empty());
  // The text table still counts every case; the JUnit report says what it does not list.
  const auto text = toy::run({"--fuzz", "30000", "--no-shrink", "--report", "text"}, {}, false);
  CHECK(text.out.find("the reports list") != std::string::npos);
  const std::string xml = toy::temp_path("big.xml");
  CHECK(toy::run({"--fuzz", "30000", "--no-shrink", "--report", "junit", "--out", xml}, {}, false).code == 0);
  CHECK(toy::slurp(xml).find("further cases (not listed)") != std::string::npos);
  std::filesystem::remove(xml);
}

TEST_CASE("Shards and --case see the same lazily generated fuzz cases as the whole run", "[app][memory]") {
  const auto whole = lines_of(toy::run({"--list-cases", "--fuzz", "50000"}, {}, false).out);
  REQUIRE(whole.size() == 50009);
  const auto shard = lines_of(toy::run({"--list-cases", "--fuzz", "50000", "--shard", "3/7"}, {}, false).out);
  for (std::size_t k = 0; k < shard.size(); ++k) REQUIRE(shard[k] == whole[k * 7 + 2]);
  const auto one = toy::run({"--case", whole[40000], "--fuzz", "50000", "--variant", "fixed", "--expect", "pass"});
  REQUIRE(one.report.at("cases").size() == 1);
  CHECK(one.report.at("cases")[0].at("id") == whole[40000]);
}

TEST_CASE("A probe offers only the options it honours: fixtures, fuzz, input, shrinking and skew need their sources",
          "[app]") {
  const std::vector<std::string> sourced{"--fixture", "--fuzz", "--seed", "--input", "--no-shrink", "--shrink-budget",
                                         "--skew"};
  toy::config bare;
  bare.bare = true;
  const auto full_help = toy::run({"--help"}, {}, false), bare_help = toy::run({"--help"}, bare, false);
  REQUIRE(full_help.code == 0);
  REQUIRE(bare_help.code == 0);
  for (const auto& option : sourced) {
    INFO(option);
    // An offered option's help line: the name, then its value or default ("--no-shrink{false}").
    const auto offered = [&](const std::string& help) {
      return help.find(option + " ") != std::string::npos || help.find(option + "{") != std::string::npos;
    };
    CHECK(offered(full_help.out));
    CHECK_FALSE(offered(bare_help.out));
    const auto r = toy::run({option, "1"}, bare, false);
    CHECK(r.code == 2);
    CHECK(r.err.find("not expected") != std::string::npos);
  }
  CHECK(bare_help.out.find("--sanitize ") != std::string::npos);  // every probe can rerun under compute-sanitizer
  CHECK(toy::run({}, bare).code == 0);  // the tables alone still judge upstream and fixed
}

TEST_CASE("An empty --case filter exits 2 with one line instead of selecting every case", "[app]") {
  require_usage_error({"--case", ""}, "--case '': an empty filter would select every case");
  require_usage_error({"--case", "v=1.2.3", "--case", ""}, "--case ''");
  const auto r = toy::run({"--case", "", "--list-cases"}, {}, false);
  CHECK(r.code == 2);
  CHECK(r.out.empty());
}

namespace {
// The shell block of a Markdown report that feeds a heredoc to --input -: its command line and the text.
std::pair<std::string, std::string> heredoc_in(const std::string& md) {
  const auto end_of_command = md.find(" <<'TPIN'\n");
  if (end_of_command == std::string::npos) return {};
  const auto start = md.rfind("```sh\n", end_of_command) + 6;
  const auto text_end = md.find("\nTPIN\n", end_of_command);
  return {md.substr(start, end_of_command - start),
          md.substr(end_of_command + 10, text_end + 1 - (end_of_command + 10))};
}
}  // namespace

TEST_CASE("The Markdown report names no absolute path and reruns its counterexample from the text it holds",
          "[app][shrink][rerun]") {
  const std::string stem = std::filesystem::absolute(toy::temp_path("md")).string();
  const auto r = toy::run({"--report", "md,json", "--out", stem}, {}, false);
  REQUIRE(r.code == 0);
  const std::string md = toy::slurp(stem + ".md");
  const auto report = json::parse(toy::slurp(stem + ".json"));
  const std::string dir = std::filesystem::path(stem).parent_path().string();
  CHECK(md.find(dir) == std::string::npos);
  // The recorded --out and the input file beside it, relative to the Markdown's folder (a long word may start a
  // continued line of a command).
  const std::string name = std::filesystem::path(stem).filename().string();
  CHECK(md.find(" " + name + "\n") != std::string::npos);
  CHECK(md.find(" " + name + ".upstream.tpin\n") != std::string::npos);

  const auto [command, text] = heredoc_in(md);
  CHECK(command == "probe-toy --backend cpu --variant upstream,fixed --input -");
  CHECK(text == "tileprobe-input v1\nprobe probe-toy\nlist 3\n");
  CHECK(text == report.at("counterexamples")[0].at("input_text"));
  std::istringstream in(text);
  auto* old = std::cin.rdbuf(in.rdbuf());
  const auto again = toy::run({"--variant", "upstream,fixed", "--input", "-"});
  std::cin.rdbuf(old);
  REQUIRE(again.code == 0);
  REQUIRE(again.report.at("cases").size() == 1);
  CHECK(again.report.at("cases")[0].at("id") == "toy(v=3,src=input)");
  CHECK(again.report.at("cases")[0].at("failed_on") == json::array({"upstream"}));
  for (const char* ext : {".md", ".json", ".upstream.tpin"}) std::filesystem::remove(stem + ext);
}
