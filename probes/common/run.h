// The record of one probe run: what ran, what passed, what the verdict is. Reporters render it, the JSON report is
// its serialisation, and tileprobe-report rebuilds it from JSON to merge shards and re-evaluate the verdict.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "probes/common/case.h"
#include "probes/common/outcome.h"
#include "probes/common/probe.h"

namespace tp::probe {

struct variant_summary {
  std::string name;
  variant_role role = variant_role::other;
  std::uint64_t passed = 0, failed = 0, errors = 0;  // errors: runner threw (counted in failed as well)
  std::map<std::string, metric> metrics{};
  std::map<std::string, std::uint64_t> coverage{};
  hazard_evidence hazards{};         // counts summed; first few pairs kept
  unwritten_evidence unwritten{};
  double seconds = 0;                // time inside the runner, for --bench
};

// One listed case (see run_record::all_cases_listed).
struct case_row {
  std::string id;
  source_kind source = source_kind::fixture;
  std::string group;
  std::vector<std::string> tags;
  std::optional<std::uint64_t> seed;
  on_buggy buggy = on_buggy::any;
  std::vector<std::uint8_t> passed;  // per variant (index into run_record::variants): 1 pass, 0 fail
  std::uint64_t position = 0;        // in the run's unsharded case list
};

// The counts of one kind of case: one table row (group), source kind and demand on the buggy variants. The verdict,
// the tables and the JUnit totals come from these, so they are exact at any --fuzz, while a large run lists only some
// cases (run_record::all_cases_listed).
struct case_tally {
  std::string group;
  source_kind source = source_kind::fixture;
  on_buggy buggy = on_buggy::any;
  std::uint64_t cases = 0;
  std::uint64_t first_at = 0;  // position of its first case (rows of the tables keep first-seen order)
  struct per_variant {
    std::uint64_t failed = 0;
    std::string first_failed{}, first_passed{};  // ids; empty when none
    std::uint64_t first_failed_at = 0, first_passed_at = 0;
  };
  std::vector<per_variant> variants;  // index into run_record::variants
};

// A run lists every case when it has at most this many; above, only the cases that failed on some variant: the first
// `listed_failures_per_row` per (table row, variant) and the first `listed_broken_per_variant` per variant that break
// an expectation. The counts (tallies, summaries) always cover every case.
inline constexpr std::uint64_t listed_cases_max = 10000, listed_failures_per_row = 50,
                               listed_broken_per_variant = 1000;

// A failing (case, variant) kept with its full outcome (the first few per variant and row).
struct kept_failure {
  std::size_t case_index = 0, variant_index = 0;
  outcome result;
};

struct counterexample {
  std::string variant, original_id, shrunk_id;
  unsigned steps = 0, runs = 0;
  bool budget_exhausted = false;
  outcome on_variant;
  std::string reference_variant;         // the fixed variant it was compared with; empty if none
  std::optional<outcome> on_reference;
  std::string input_text;                // the shrunk case as a tileprobe-input file's text; empty if the probe writes none
  std::string input_file;                // where it is written, beside the report; empty if none
  std::vector<std::string> reproduce;    // command lines that rerun the shrunk case alone
};

struct run_record {
  std::string probe, summary, family, backend;
  expect_mode expect = expect_mode::fail_pass;
  std::set<source_kind> must_catch;
  shard_spec shard;
  std::uint64_t seed = 0, fuzz = 0;
  bool filtered = false;                 // --case / --input narrowed the list
  std::uint64_t unsharded_cases = 0;     // size of the full list the shard was cut from
  std::vector<variant_summary> variants;
  std::vector<case_row> cases;           // every case, or (all_cases_listed false) the listed ones
  bool all_cases_listed = true;
  std::vector<case_tally> tallies;       // every case counted; empty in a record built from rows alone (tests)
  std::vector<kept_failure> failures;
  std::vector<counterexample> counterexamples;
  std::vector<std::string> notes;        // from the probe's notes() callback
  // --bench: the probe's measured figures by name (its bench_figures() callback), for tools that compare runs
  // (tileprobe-report --throughput) without reading the notes' prose.
  std::map<std::string, double> bench;
  std::vector<std::pair<std::string, std::string>> environment;
  std::string command;                   // the command line, for reproducing
  // Wall clock of the run proper: generating the cases, running every batch on every variant and the framework's
  // bookkeeping (not shrinking or reporting). Merged shards add theirs up.
  double run_seconds = 0;
  // Of which one-time runtime setup inside the runners (backend_hooks::setup_seconds), not in any variant's seconds.
  double setup_seconds = 0;
  std::vector<std::string> broken;       // filled by evaluate()
  bool as_expected() const { return broken.empty(); }
};

// The tallies of a record: its own, or (none) counted from its rows. cases_in() is the number of cases they count.
std::vector<case_tally> tallies_of(const run_record& r);
std::uint64_t cases_in(const run_record& r);
// Whether a case's result on a variant breaks an expectation of the run; the reason, or empty.
std::string_view expectation_broken(expect_mode expect, variant_role role, source_kind source, on_buggy buggy, bool pass);

// The verdict rules (README "Verdicts"), one check per expectation that applies to the run: a stable id (the same
// in every run, e.g. "upstream.fails-a-fuzz-case", JUnit's testcase name) and, when broken, why (with counts).
// check_must_catch is false for a single shard (the rule needs the whole list) and true otherwise.
struct expectation_check {
  std::string id, broken;  // broken: empty when it holds
};
std::vector<expectation_check> expectations(const run_record& r, bool check_must_catch);
// The broken ones' reasons, in order; empty means as expected.
std::vector<std::string> evaluate(const run_record& r, bool check_must_catch);

// Adds one case's outcome on one variant into the record's summaries (not the case row).
void accumulate(variant_summary& s, const outcome& o);
// Adds the summary of further cases (accumulated apart: a part of a batch, another shard) as if they had been
// accumulated into `into` one by one after its own: counts and sum metrics add, max metrics keep the larger, the
// first evidence lines stay the first distinct ones.
void merge_summary(variant_summary& into, const variant_summary& from);
// `s` as one POSIX shell word: as it is when it holds only safe characters, else single-quoted (reproduce lines).
std::string shell_quote(const std::string& s);

// Fail->pass table: rows (case groups, first-seen order) × variants, cells passed/total.
struct table_cell {
  std::uint64_t passed = 0, total = 0;
};
struct fail_pass_table {
  std::vector<std::string> rows;
  std::vector<std::string> columns;
  std::vector<std::vector<table_cell>> cells;  // [row][column]
};
fail_pass_table make_table(const run_record& r);

// Greedy shrinking: repeatedly replace the case by the first candidate that still fails, until no candidate fails or
// `budget` candidate runs are spent.
struct shrink_result {
  case_def shrunk;
  unsigned steps = 0, runs = 0;
  bool budget_exhausted = false;
};
shrink_result shrink_case(const case_def& failing, const std::function<case_list(const case_def&)>& candidates,
                          const std::function<bool(const case_def&)>& still_fails, unsigned budget);

}  // namespace tp::probe
