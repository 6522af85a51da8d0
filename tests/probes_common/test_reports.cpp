// Each reporter's output parses: JSON against report.schema.json (and back into a run record), JUnit as well-formed
// XML whose failures are exactly the broken expectations, Markdown and text carrying the table and the reproduce line.
#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers.hpp>

#include "probes/common/report.h"
#include "run_helper.h"
#include "xml_check.h"

using nlohmann::json;

namespace {
json schema() {
  static const json s = json::parse(toy::slurp(TP_REPORT_SCHEMA));
  return s;
}
std::string render(const std::vector<std::string>& args, const char* format) {
  const std::string path = toy::temp_path(std::string("report.") + format);
  auto full = args;
  full.insert(full.end(), {"--report", format, "--out", path});
  toy::run(full, {}, false);
  std::string text = toy::slurp(path);
  std::filesystem::remove(path);
  return text;
}
}  // namespace

TEST_CASE("The JSON report validates against report.schema.json", "[report][json]") {
  for (const auto& args : std::vector<std::vector<std::string>>{
           {}, {"--bench"}, {"--variant", "all"}, {"--variant", "throws", "--expect", "fail"}, {"--shard", "2/3"}}) {
    const auto r = toy::run(args);
    REQUIRE(!r.report.is_null());
    const auto errors = tp::probe::schema_violations(schema(), r.report);
    INFO((errors.empty() ? std::string() : errors.front()));
    CHECK(errors.empty());
  }
}

TEST_CASE("The schema checker rejects reports that break the schema", "[report][json]") {
  auto doc = toy::run({}).report;
  REQUIRE(tp::probe::schema_violations(schema(), doc).empty());
  auto missing = doc;
  missing.erase("verdict");
  CHECK_FALSE(tp::probe::schema_violations(schema(), missing).empty());
  auto wrong_type = doc;
  wrong_type["cases"][0]["failed_on"] = "upstream";
  CHECK(tp::probe::schema_violations(schema(), wrong_type).front().find("/cases/0/failed_on") == 0);
  auto bad_enum = doc;
  bad_enum["backend"] = "tpu";
  CHECK_FALSE(tp::probe::schema_violations(schema(), bad_enum).empty());
  auto extra = doc;
  extra["variants"][0]["surprise"] = 1;
  CHECK_FALSE(tp::probe::schema_violations(schema(), extra).empty());
  auto negative = doc;
  negative["fuzz"] = -1;
  CHECK_FALSE(tp::probe::schema_violations(schema(), negative).empty());
  auto bad_ref = doc;
  bad_ref["counterexamples"][0]["reference_outcome"] = json::object();
  CHECK_FALSE(tp::probe::schema_violations(schema(), bad_ref).empty());
}

TEST_CASE("The JSON report reads back into the same run record", "[report][json]") {
  const auto doc = toy::run({"--fuzz", "12"}).report;
  const auto rec = tp::probe::from_json(doc);
  CHECK(rec.probe == "probe-toy");
  CHECK(rec.cases.size() == 21);
  CHECK(rec.seed == 5);
  CHECK(tp::probe::to_json(rec, false) == doc);
  CHECK(tp::probe::evaluate(rec, true).empty());
  auto broken = doc;
  broken["cases"][0].erase("id");
  CHECK_THROWS_WITH(tp::probe::from_json(broken), "report of probe-toy: missing field 'id'");
}

TEST_CASE("The JUnit report is well-formed XML and fails only the broken expectations", "[report][junit]") {
  xmlcheck::element root;
  const auto ok = render({}, "junit");
  REQUIRE(xmlcheck::well_formed(ok, &root).empty());
  CHECK(root.name == "testsuites");
  CHECK(root.attrs.at("failures") == "0");
  REQUIRE(root.children.size() == 3);  // upstream, fixed, verdict
  CHECK(root.children[0].attrs.at("name") == "probe-toy.upstream");
  CHECK(root.children[0].attrs.at("tests") == "19");

  const auto regression = render({"--variant", "upstream,broken-long", "--fixed", "broken-long", "--fuzz", "0"},
                                 "junit");
  REQUIRE(xmlcheck::well_formed(regression, &root).empty());
  // broken-long fails the one iota case longer than five, and the verdict suite fails once for it.
  CHECK(root.attrs.at("failures") == "2");
  CHECK(root.children[1].attrs.at("failures") == "1");
  CHECK(root.children[2].attrs.at("failures") == "1");
}

TEST_CASE("The XML checker rejects malformed documents", "[report][junit]") {
  CHECK(xmlcheck::well_formed("<a><b></a>").find("closes") != std::string::npos);
  CHECK_FALSE(xmlcheck::well_formed("<a x=1/>").empty());
  CHECK_FALSE(xmlcheck::well_formed("<a>1 < 2</a>").empty());
  CHECK_FALSE(xmlcheck::well_formed("<a>&nbsp;</a>").empty());
  CHECK_FALSE(xmlcheck::well_formed("<a x='1' x='2'/>").empty());
  CHECK_FALSE(xmlcheck::well_formed("<a/><b/>").empty());
  CHECK(xmlcheck::well_formed("<?xml version=\"1.0\"?>\n<a q=\"&lt;&amp;\">t&gt;<b/><!-- c --></a>\n").empty());
}

TEST_CASE("Special characters in ids survive the JUnit escaping", "[report][junit]") {
  tp::probe::run_record r;
  r.probe = "p<&>\"'";
  tp::probe::variant_summary v;
  v.name = "fixed";
  v.role = tp::probe::variant_role::fixed;
  r.variants = {v};
  tp::probe::case_row c;
  c.id = "x(v=<&\"'>)";
  c.passed = {0};
  r.cases = {c};
  r.broken = tp::probe::evaluate(r, true);
  tp::probe::outcome o;
  o.detail = {"bad \x01 byte & <tag>"};
  r.failures.push_back({0, 0, o});
  xmlcheck::element root;
  REQUIRE(xmlcheck::well_formed(tp::probe::render_junit(r), &root).empty());
  CHECK(root.children[0].children[1].attrs.at("name") == "x(v=<&\"'>)");
}

TEST_CASE("The Markdown report has the fail->pass table, counterexample and reproduce command", "[report][md]") {
  const auto md = render({"--fuzz", "3"}, "md");
  CHECK(md.find("# tileprobe report") == 0);  // the same renderer as tileprobe-report's merged document
  CHECK(md.find("| case group | `upstream` (buggy) | `fixed` (fixed) |") != std::string::npos);
  CHECK(md.find("| iota | 4 / 6 | 0 / 6 |") != std::string::npos);  // failed / cases run
  CHECK(md.find("### Shrunk counterexample") != std::string::npos);
  CHECK(md.find("toy(v=1.2.3,src=shrunk:shrunk:fixture,drop=0,drop=0)") != std::string::npos);
  CHECK(md.find("### Reproduce") != std::string::npos);
  CHECK(md.find("probe-toy --fuzz 3 --report md --out ") != std::string::npos);
  CHECK(md.find("git commit: ") != std::string::npos);
  CHECK(md.find("device: toy cpu") != std::string::npos);
}

TEST_CASE("The text report shows the table, coverage, environment and verdict without colour in a file",
          "[report][text]") {
  const auto text = render({"--fuzz", "0"}, "text");
  CHECK(text.find("fail->pass (failed / cases run)") != std::string::npos);
  CHECK(text.find("iota ") != std::string::npos);
  CHECK(text.find("4 / 6") != std::string::npos);
  CHECK(text.find("coverage") != std::string::npos);
  CHECK(text.find("threes") != std::string::npos);
  CHECK(text.find("hostname: ") != std::string::npos);
  CHECK(text.find("verdicts as expected") != std::string::npos);
  CHECK(text.find('\x1b') == std::string::npos);
  const auto broken = render({"--variant", "clone,fixed", "--buggy", "clone"}, "text");
  CHECK(broken.find("verdicts NOT as expected:") != std::string::npos);
}
