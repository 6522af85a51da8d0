// tileprobe-report's logic: merge probe JSON reports (shards, machines, backends) into one Markdown document, with
// shard bookkeeping (duplicates, missing shard indices, case ids in two shards) and an optional mutation matrix.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "probes/common/run.h"

namespace tp::report {

struct loaded_report {
  std::string path;
  probe::run_record record;
};

// One probe run reassembled from its shards (or a single unsharded report).
struct merged_run {
  probe::run_record record;           // cases back in unsharded order; verdict re-evaluated over all shards
  std::vector<std::string> sources;   // report paths, in shard order
  std::vector<std::string> commands;  // each shard's command line
  std::vector<std::string> problems;  // duplicate shards, missing shard indices, duplicated or missing cases
};

// Reports of one run share probe, backend, family, expect, seed, fuzz, variant list and shard count.
std::vector<merged_run> merge_reports(const std::vector<loaded_report>& reports);

// The mutation matrix (README of probes/common, "Mutation matrix"): rows of variants, each probe's exit status when
// run with `--variant V --expect pass` (0 passes, 1 caught, 77 unavailable), and which probes must catch the row.
struct matrix_row {
  std::string variant, family;
  bool any_target = true;                 // no "targets" field: at least one probe must catch it (a mutant)
  std::vector<std::string> targets;       // otherwise exactly these probes must catch it
  std::map<std::string, int> exit_codes;  // probe -> exit status
};
struct mutation_matrix {
  std::vector<matrix_row> rows;
  std::string backend;                  // optional: where the probes ran
  std::vector<std::string> probe_args;  // optional: arguments every probe run was given (e.g. --fuzz 50)
};
mutation_matrix parse_matrix(const nlohmann::json& j);  // throws std::runtime_error naming the bad field
// One line per row whose caught set is not what it must be.
std::vector<std::string> matrix_problems(const mutation_matrix& m);

// One probe run on two backends, variant by variant (report_compare.cpp): d_digest and d_digest_cases (where the probe
// records them) and passed/failed counts must be equal. Runs match when probe, seed, fuzz count, variant list and case
// count agree; a run on one backend only is a problem too.
struct backend_comparison {
  std::string a, b;
  struct cell {
    std::string what, on_a, on_b;
  };
  struct row {
    std::string probe, variant;
    std::vector<cell> cells;
    bool equal = true;
  };
  std::vector<row> rows;
  std::vector<std::string> problems;
};
backend_comparison compare_backends(const std::vector<merged_run>& runs, const std::string& a, const std::string& b);

// The Markdown document for a pull request (report_render.cpp): a headline table (probe, backend, each buggy and fixed
// variant's failed / cases, verdict, linked to the probe's section), where it ran, then one section per run and the
// mutation matrix, one table per kernel family.
std::string render_document(const std::vector<merged_run>& runs, const mutation_matrix* matrix,
                            const backend_comparison* comparison = nullptr);

// Helpers of the renderer, public for their tests.
// Words of a command line quoted the way probes record it (POSIX single quotes, backslash escapes).
std::vector<std::string> shell_words(std::string_view command);
// One line of a code block, wrapped at `width`: at spaces, and after commas inside a longer word (a case id);
// continuation lines indented by four spaces.
std::string wrap_text_line(const std::string& line, std::size_t width);
// The anchor GitHub (and pandoc's gfm) gives a heading: lower case, spaces to '-', punctuation other than '-' and
// '_' dropped.
std::string github_anchor(std::string_view heading);
// A hazard or unwritten-read line made readable: build-tree variant paths cut to the source-tree path, compiler
// pretty function names cut to the function's name.
std::string readable_evidence(std::string line);

// The whole tool; returns the exit code (0 merged and as expected, 1 a problem or broken verdict, 2 bad usage/input).
int tileprobe_report_main(int argc, char** argv);

}  // namespace tp::report
