// app::main as named phases. Each is a function (or a small object) of what the probe declared, the command line and
// what the earlier phases produced, so each can be tested alone (tests/probes_common/test_phases.cpp). app.cpp's
// run() is their sequence:
//
//   parse (CLI11)          the command line into raw_options
//   check_target           --backend, --color, --skew, --sanitize       (all --list-variants depends on)
//   list_variants          --list-variants: print and stop
//   check_run_options      every other option; where the reports go    (usage errors: exit 2, nothing run)
//   resolve_variants       --variant/--buggy/--fixed against the registry; the reference variant
//   prepare_backend        device present (else 77), --sanitize re-exec, --skew
//   case_plan              the fixed cases, lazily generated fuzz cases, --case filters, shards
//   execute                batches through every variant; tallies, listed rows, kept failures
//   shrink_failures        each variant's first failure made small and shown beside the reference variant
//   finish_record          verdict and environment
//   write_reports          input files of the counterexamples, then every report
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <iosfwd>
#include <map>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <tuple>
#include <unordered_set>
#include <utility>
#include <vector>

#include "probes/common/probe.h"
#include "probes/common/report.h"
#include "probes/common/run.h"

namespace tp::probe::phase {

// What a probe declared through app's builder calls (probe.h says what each one means).
struct declaration {
  std::string name, summary, family;
  std::string default_variant_list = "upstream,fixed";
  std::vector<std::string> buggy_default{"upstream"}, fixed_default{"fixed"};
  std::set<source_kind> must_catch{source_kind::fixture, source_kind::adversarial};
  std::uint64_t fuzz_default = 0, seed_default = 1;
  std::size_t batch = 256;
  std::vector<std::pair<std::string, std::string>> extra_env;
  std::vector<std::pair<source_kind, app::source_fn>> sources;
  app::fuzz_fn fuzz;
  app::input_fn input;
  app::runner_fn runner;
  app::batch_runner_fn batch_runner;
  app::shrink_fn shrinker;
  app::parent_fn parent_of;
  app::before_run_fn before;
  app::input_text_fn input_text;
  std::vector<std::string> fixture_list;
  app::notes_fn notes;
  app::bench_figures_fn bench_figures;
  bool skew_points = false;
};

// The command line as CLI11 stored it: strings, interpreted by the checks below so that every error is one line.
struct raw_options {
  std::string backend = "cpu";
  std::vector<std::string> variant, buggy, fixed, fixture, report, case_filters;
  std::string expect = "fail-pass", shard = "1/1", seed, out, skew, fuzz, jobs = "1", batch, shrink_budget = "200";
  std::string colour = "auto", input, sanitize;
  bool list_cases = false, list_variants = false, bench = false, shrink = true, junit_failing_only = false;
  std::map<report_format, std::string> out_per_format{};
  std::set<std::string> given{};  // the options among --fuzz, --seed, --fixture, --shrink-budget given at all
  bool was_given(const std::string& option) const { return given.count(option) > 0; }
};

// The comma lists of repeatable options (--variant a,b --variant c), empty parts dropped.
std::vector<std::string> split_list(const std::vector<std::string>& items);

// 1. The options that decide where the run happens, into `opt`: --backend, --color, --skew, --sanitize. Throws
// usage_error.
void check_target(const raw_options& raw, options& opt);

// 2. --list-variants: the family's variants built for the backend, registry order, one per line (exit 0); none:
// backend_unavailable (77). Depends on --backend alone: scripts enumerate variants with it.
int list_variants(const std::vector<registered_variant>& registry, const std::string& family,
                  const std::string& backend, std::ostream& out);

// Where the reports go: a file per format in `destination`, at most one format on stdout.
struct report_plan {
  std::map<report_format, std::string> destination;
  std::vector<report_format> to_stdout;
  std::string colour = "auto";  // --color, checked
  bool junit_failing_only = false;
  // Counterexample input files are written beside the first report file, as STEM.VARIANT.tpin; empty when every
  // report goes to stdout (then none is written).
  std::string input_stem() const;
};

// 3. Every other option, into `opt`; returns where the reports go (their folders are checked writable now, so a run
// refused later leaves no file). Throws usage_error.
report_plan check_run_options(const raw_options& raw, const declaration& d, options& opt);

// The selected variants in --variant order with their roles, and the fixed variant a counterexample is shown beside
// (the first selected fixed one, else the first declared fixed variant built for the backend; none: nullopt).
struct variant_selection {
  std::vector<variant> selected;
  std::optional<variant> reference;
};

// 4. --variant (or the probe's default list; `all` = every variant on the backend), --buggy and --fixed against the
// registry. Throws backend_unavailable when nothing of the family is built for the backend, usage_error for an
// unknown or contradictory name.
// Fills opt.variants with the selected names.
variant_selection resolve_variants(const std::vector<registered_variant>& registry, const declaration& d,
                                   const raw_options& raw, options& opt);

// 5. The backend answers for its device (none: backend_unavailable, 77); --sanitize re-executes the command under
// compute-sanitizer (does not return when it execs); --skew is set before any case runs.
void prepare_backend(const backend_hooks& hooks, const options& opt);

// 6. The case list of the run: the fixed cases (the --input file's, or every source's), built once; fuzz case i
// generated from fuzz_case_seed(--seed, i) when it is reached; every --case filter checked over the whole list before
// anything runs (an exact id outside the list is rebuilt: a fuzz id from its seed, a shrunk id through its parent and
// the shrinker). Positions count the selected cases of the unsharded list. Throws usage_error for a filter that takes
// no case or an --input file without cases, std::logic_error for a probe defect (two cases with one id, a fuzz case
// without its seed in the id).
class case_plan {
 public:
  case_plan(const declaration& d, const options& opt);

  const case_list& fixed_cases() const { return fixed_; }
  // Every selected case, in list order, with its position; returns how many there are.
  std::uint64_t for_each_selected(const std::function<void(case_def&&, std::uint64_t position)>& on_case) const;
  // The ids of shard `shard`'s cases, one per line (--list-cases).
  void list(const shard_spec& shard, std::ostream& out) const;
  // The number of cases before filtering (for the progress estimate).
  std::uint64_t unfiltered_size() const { return fixed_.size() + n_fuzz_ + extra_.size(); }
  std::uint64_t fuzz_count() const { return n_fuzz_; }
  // An exact id that no fixed case has: a fuzz id regenerated from its seed, a shrunk id rebuilt from its parent.
  std::optional<case_def> rebuild(const std::string& id, int depth = 0) const;

 private:
  void admit(case_list&& batch, std::optional<source_kind> kind, std::optional<std::uint64_t> fuzz_seed,
             case_list& into) const;
  void fuzz_case(std::uint64_t i, case_list& out) const;
  bool matches(const std::string& id) const;

  const declaration& d_;
  const options& opt_;
  case_list fixed_, extra_;  // extra_: exact --case ids outside the list, rebuilt
  std::uint64_t n_fuzz_ = 0;
  std::unordered_set<std::string> fixed_ids_;
};

// Runs cases through the probe's runner (or batch runner). An exception from a runner is the case's own error, which
// fails the case(s) it came from, unless it ends the whole run: usage_error, backend_unavailable, internal_error
// (also an error the backend's `internal` hook recognises), std::bad_alloc, which propagate.
struct case_runner {
  const declaration& d;
  const backend_hooks& hooks;
  void operator()(std::span<const case_def* const> cases, const variant& v, std::span<outcome> out) const;
  outcome one(const case_def& c, const variant& v) const;
};

// The record of a run before anything ran: probe, options, the selected variants' empty summaries, the command line.
run_record new_record(const declaration& d, const options& opt, const raw_options& raw, const variant_selection& sel);

// What a run keeps of each batch for the reports, bounded whatever the number of cases: the tallies (every case
// counted), the listed rows (every case up to listed_cases_max, then only notable ones: failing somewhere, the first
// listed_failures_per_row per row and variant, the first listed_broken_per_variant per variant that break an
// expectation) and a few kept failures per variant and row.
class record_keeper {
 public:
  static constexpr std::size_t kept_per_row = 3;
  explicit record_keeper(run_record& rec) : rec_(rec), listed_broken_(rec.variants.size(), 0) {}
  // Whether a failure of variant v in table row `row` is kept with its outcome (the first kept_per_row of them).
  bool keep_failure(std::size_t v, std::string_view row);
  // One case's results on every variant (1 pass, 0 fail, by variant index): counted into its tally; listed when the
  // run lists it. Returns its index in rec.cases, or npos.
  std::size_t add(const case_def& c, std::uint64_t position, std::span<const std::uint8_t> passed);
  // After each batch: above listed_cases_max rows, drop the rows that are not notable (the run then lists some).
  void end_batch();
  static constexpr std::size_t npos = std::size_t(-1);

 private:
  run_record& rec_;
  std::map<std::pair<std::size_t, std::string>, std::size_t> kept_;
  std::map<std::pair<std::string, std::size_t>, std::uint64_t> listed_failures_;  // (row, variant)
  std::vector<std::uint64_t> listed_broken_;
  std::vector<bool> row_notable_;  // per listed row: kept when a large run drops the others
  std::map<std::tuple<std::string, source_kind, on_buggy>, std::size_t> tally_of_;
};

// 7. Runs the selected cases (shard `opt.shard` of the plan), batch by batch, each batch through every variant in
// turn (a batch runner sees many cases of one variant at once and can keep what the variants share for the next
// one), into `rec`: summaries, tallies, rows, kept failures (in report order), setup_seconds, run_seconds (the wall
// clock since `started`, before the plan was built), then the probe's notes and bench figures. Returns each variant's
// first failing case (to shrink).
struct execution {
  std::vector<std::optional<case_def>> first_failing;
};
execution execute(const case_plan& plan, const case_runner& run, const variant_selection& sel, const options& opt,
                  std::chrono::steady_clock::time_point started, run_record& rec);

// 8. Each variant's first failure, shrunk (unless --no-shrink or the probe has no shrinker), rerun on the variant and
// on the reference variant, with its input text (the probe's input_text), the input file it is written to
// (`input_stem`.VARIANT.tpin, when the probe writes input files and a report goes to a file) and its reproduce lines
// (the executable as the reports name it).
std::vector<counterexample> shrink_failures(const case_runner& run, const declaration& d, const options& opt,
                                            const variant_selection& sel, const execution& ran,
                                            const std::string& input_stem);

// 9. The verdict and the environment block (probe, backend, device, skew, sanitizer, build, the probe's own lines).
void finish_record(run_record& rec, const declaration& d, const options& opt, const backend_hooks& hooks);

// 10. The counterexamples' input files, then every report: each file of plan.destination, then the stdout format
// (or the text report again when it went to a file and stdout is otherwise unused). Returns the exit code the
// verdict gives (0 as expected, 1 not). Throws usage_error when a file cannot be written.
int write_reports(const run_record& rec, const report_plan& plan, bool bench, std::ostream& out);

// The executable as the reports name it: relative to a clone's root (build/default/bin/probe-X) when it is this
// build's own bin/ copy, so a reader can paste the line in their clone; otherwise as it was invoked.
std::string reported_executable(const std::string& argv0);

}  // namespace tp::probe::phase
