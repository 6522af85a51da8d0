// The mutation matrix's rules, once (probes/common/README.md, "Mutation matrix"): every variant of a kernel family run
// by each probe of the family with `--variant V --expect pass`; which probes must catch it comes from
// patches/<family>/targets, the same file cmake/probes.cmake turns into the kill/pass ctests.
#pragma once

#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "probes/common/run.h"

namespace tp::report {

// One row: a variant, each probe's exit status (0 passes, 1 caught, 77 not available, anything else broken), and the
// probes that must catch it.
struct matrix_row {
  std::string variant, family;
  enum class rule { exactly, at_least } kind = rule::at_least;
  std::vector<std::string> targets;       // exactly these (fixed: none; upstream, fixed-minus-NNNN), or at least
                                          // these (a mutant; and at least one probe, whatever the list)
  std::map<std::string, int> exit_codes;  // probe -> exit status
};
struct mutation_matrix {
  std::vector<matrix_row> rows;
  std::string backend;                  // optional: where the probes ran
  std::vector<std::string> probe_args;  // optional: arguments every probe run was given (e.g. --fuzz 50)
  std::vector<std::string> problems;    // what kept the matrix from being built as declared (missing runs, lines)
};

// A matrix file (matrix_version 1): {"rows": [{"variant", "family", "targets"?, "at_least"?, "exit"}]}. A row with
// "targets" must be caught by exactly those, one with "at_least" (or neither) by at least those and by one probe.
mutation_matrix parse_matrix(const nlohmann::json& j);  // throws std::runtime_error naming the bad field
nlohmann::json to_json(const mutation_matrix& m);

// One line per row whose caught set is not what it must be, per exit status that is neither 0, 1 nor 77, and the
// matrix's own problems. A 77 ("not available") breaks no rule but leaves its row unjudged: see matrix_exit_code.
std::vector<std::string> matrix_problems(const mutation_matrix& m);
// Whether a row holds: no problem on it and no unjudged (77) cell.
bool row_holds(const matrix_row& r);
// 0: every row judged and holding; 1: a problem; 77: no problem, but some cell was not available (a skip, never a
// pass: the same meaning as a probe's 77).
int matrix_exit_code(const mutation_matrix& m);

// patches/<family>/targets: per variant (upstream, fixed-minus-NNNN, mutant-NAME), the probes listed for it, in file
// order. Throws std::runtime_error "PATH:LINE: what" on a malformed line or a variant listed twice.
struct family_targets {
  std::vector<std::string> variants;
  std::map<std::string, std::vector<std::string>> probes;
};
family_targets read_targets(const std::string& path);

// One probe run of the matrix: the exit status, and the JSON report when the run wrote one (0 and 1 always do).
struct matrix_run {
  std::string probe, variant;  // probe without its "probe-" prefix
  int exit_code = 0;
  std::optional<probe::run_record> report;
  std::string source;  // where it was read from, for messages
};
// Reads DIR/<probe>@<variant>.exit (the exit status as a decimal line) and, beside it, DIR/<probe>@<variant>.json.
// Throws std::runtime_error on an unreadable or malformed file.
std::vector<matrix_run> read_matrix_runs(const std::string& dir);
// The matrix of those runs: one row per variant of each family (families and roles from the reports), the targets of
// TARGETS_DIR/<family>/targets. Where a run, a report or a line is missing or disagrees with the exit status, the
// matrix's problems say so.
mutation_matrix matrix_from_runs(const std::vector<matrix_run>& runs, const std::string& targets_dir);

}  // namespace tp::report
