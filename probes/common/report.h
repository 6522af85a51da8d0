// Reporters over a run_record: text (terminal), Markdown (PR), JSON (report_json.h: report.schema.json,
// tileprobe-report's input), JUnit XML (CI); the environment block. json_schema.h checks a JSON report against its
// schema.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "probes/common/json_schema.h"
#include "probes/common/names.h"
#include "probes/common/report_json.h"
#include "probes/common/run.h"

namespace tp::probe {

enum class report_format { text, md, json, junit };
constexpr std::string_view names_of(report_format) { return "text md json junit"; }
constexpr std::string_view file_extension(report_format f) { return word_at("txt md json xml", std::size_t(f)); }
report_format parse_report_format(std::string_view s);  // throws usage_error

// probe-independent lines: compiler, build type, git commit (configure time), hostname; the app adds probe, backend,
// device and the probe's own env() lines.
std::vector<std::pair<std::string, std::string>> build_environment();
// "TOOL VERSION (git COMMIT)": what --version prints for every tileprobe executable built with this library, the
// commit being the one the build was configured from.
std::string version_line(std::string_view tool);

// A number as every report prints it: integers exactly, others to 6 significant digits, and "inf", "-inf", "nan"
// (JSON writes non-finite values as these strings too).
std::string format_number(double v);

std::string render_text(const run_record& r, bool colour, bool bench);
// The run as tileprobe-report would render its one report (probes/common/markdown.h): the same renderer. `report_dir`:
// the folder the Markdown is written in (render_options::report_dir).
std::string render_markdown(const run_record& r, bool bench, const std::string& report_dir = {});
// JUnit: one testsuite per variant, a testcase per listed case named by its id (passing ones up to
// junit_passing_listed_max per variant, then one testcase for the rest), each failure with the command that reruns
// it; then one testcase per expectation of the verdict, named by its stable id (expectations() in run.h).
inline constexpr std::uint64_t junit_passing_listed_max = 2000;
struct junit_options {
  bool failing_only = false;  // list only the testcases that fail (and the verdict's), for a large --fuzz
};
std::string render_junit(const run_record& r, const junit_options& options = {});

}  // namespace tp::probe
