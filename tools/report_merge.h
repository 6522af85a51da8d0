// tileprobe-report's logic: merge probe JSON reports (shards, machines, backends) into one Markdown document
// (probes/common/markdown.h, the renderer the probes use), with shard bookkeeping (duplicates, missing shard indices,
// case ids in two shards), the mutation matrix (probes/common/matrix.h) and backend comparisons.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "probes/common/markdown.h"
#include "probes/common/matrix.h"
#include "probes/common/run.h"

namespace tp::report {

struct loaded_report {
  std::string path;
  probe::run_record record;
};

// Reports of one run share probe, backend, family, expect, seed, fuzz, variant list and shard count.
std::vector<merged_run> merge_reports(const std::vector<loaded_report>& reports);

// What two runs of one probe must agree on, per variant, to count as the same computation on two backends.
inline constexpr std::string_view compared_per_variant = "d_digest, d_digest_cases, passed and failed";

// One probe run on two backends, variant by variant (report_compare.cpp): d_digest and d_digest_cases (where the probe
// records them) and passed/failed counts must be equal.
backend_comparison compare_backends(const std::vector<merged_run>& runs, const std::string& a, const std::string& b);
// Pairs of reports, each the same run (probe, seed, fuzz, variants, case list) made twice, compared as above whatever
// backend each names: ci/gpu compares every ck probe's cpu and cuda report this way, and its --cpu-dry-run, where both
// ran on cpu, the same way. Sides are named after the backends of each side's reports.
backend_comparison compare_reports(const std::vector<std::pair<loaded_report, loaded_report>>& pairs);
// Each run's case runs per second from its JSON (run_seconds; for shards run side by side, the slowest shard's), with
// the probe's bench figures where it recorded them: ratios against the same probe's one-process cpu run and, from
// that run's own split of CPU time (host work vs kernels), the most a backend with free kernels could reach.
void add_throughput(backend_comparison& into, const std::vector<merged_run>& runs);

// What one tileprobe-report call found: the merged runs, the matrix, the comparison (with the throughput figures when
// asked), every problem line (as printed on stderr) and the exit code.
struct tool_result {
  std::vector<merged_run> runs;
  std::optional<mutation_matrix> matrix;
  std::optional<backend_comparison> comparison;  // --compare-backends, --compare-reports, --throughput
  bool throughput = false;
  std::vector<std::string> problems;
  int exit_code = 0;
};
// --json-out: tools/tileprobe-report.schema.json.
nlohmann::json result_json(const tool_result& r);

// The whole tool; returns the exit code (0 merged and as expected, 1 a problem or broken verdict, 2 bad usage/input).
int tileprobe_report_main(int argc, char** argv);

}  // namespace tp::report
