// tileprobe-report's logic: merge probe JSON reports (shards, machines, backends) into one Markdown document
// (probes/common/markdown.h, the renderer the probes use), with shard bookkeeping (duplicates, missing shard indices,
// case ids in two shards), the mutation matrix (probes/common/matrix.h) and backend comparisons.
#pragma once

#include <map>
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

// One probe run on two backends, variant by variant (report_compare.cpp): d_digest and d_digest_cases (where the probe
// records them) and passed/failed counts must be equal.
backend_comparison compare_backends(const std::vector<merged_run>& runs, const std::string& a, const std::string& b);
// Each run's case runs per second from its JSON (run_seconds; for shards run side by side, the slowest shard's), with
// the probe's bench figures where it recorded them: ratios against the same probe's one-process cpu run and, from
// that run's own split of CPU time (host work vs kernels), the most a backend with free kernels could reach.
void add_throughput(backend_comparison& into, const std::vector<merged_run>& runs);

// The whole tool; returns the exit code (0 merged and as expected, 1 a problem or broken verdict, 2 bad usage/input).
int tileprobe_report_main(int argc, char** argv);

}  // namespace tp::report
