// The one Markdown renderer: a probe's own `--report md` and tileprobe-report's merged document (shards, machines,
// backends, the mutation matrix, a backend comparison) are the same code, so they agree on every count. Counts read
// "failed / cases run" everywhere; numbers print as probe::format_number does in every format.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "probes/common/matrix.h"
#include "probes/common/run.h"

namespace tp::report {

// One probe run reassembled from its shards (or a single unsharded report, or the run a probe just made).
struct merged_run {
  probe::run_record record;           // cases back in unsharded order; verdict re-evaluated over all shards
  std::vector<std::string> sources;   // report paths, in shard order (empty: the run itself, not read from a file)
  std::vector<std::string> commands;  // each shard's command line
  std::vector<std::string> problems;  // duplicate shards, missing shard indices, duplicated or missing cases
  double slowest_shard_seconds = 0;   // the largest run_seconds of its shards (shards side by side: the wall clock)
  // As expected: the verdict holds and the shards add up (a merge with a shard missing is never "as expected").
  bool as_expected() const { return record.as_expected() && problems.empty(); }
};

// One probe run on two backends, variant by variant (tools/report_compare.cpp): d_digest and d_digest_cases (where the
// probe records them) and passed/failed counts must be equal. Runs match when probe, seed, fuzz count, variant list
// and case count agree; a run on one backend only is a problem too.
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
  // Throughput (tileprobe-report --throughput): case runs per second of each run, from its JSON (run_seconds and the
  // bench fields), never from its prose notes.
  struct rate {
    std::string probe, backend, what;  // what: how it ran, e.g. "1 process, --jobs 16" or "16 shards side by side"
    std::uint64_t case_runs = 0;       // cases x variants
    double seconds = 0;                // run_seconds (shards side by side: the slowest shard's)
    double case_runs_per_second = 0;
    unsigned host_threads = 1;         // --jobs, or the shards side by side
    // Against the same probe's cpu run in one process with one host thread (the emulator on one core), if there is
    // one and this is not it.
    std::optional<double> vs_cpu_one_process;
    // From that cpu run's own split of CPU time: per tile-case run, all of it and the host work (generation, oracle,
    // judging); with `host_threads` threads and kernels that cost nothing a run cannot beat
    // host_threads x all / host work times the cpu run's rate (`at_most`).
    std::optional<double> cpu_us_per_tile_case_run, host_us_per_tile_case_run, at_most;
  };
  std::vector<rate> rates;
};

struct render_options {
  bool bench = false;        // a Speed section per run (the probe ran with --bench)
  // The folder the document is written in (empty: the current one). An absolute path a run recorded (its command's
  // --out, a counterexample's input file, a merged report's name) is shown relative to it: the document names no
  // folder of the machine that wrote it.
  std::string report_dir = {};
  bool run_sections = true;  // false: no title, headline table or run sections, only the comparison, throughput and
                             // matrix sections (a part of another document, e.g. ci/gpu's summary)
};

// The document: a headline table (probe, backend, each buggy and fixed variant's failed / cases, verdict, linked to
// the probe's section), where it ran, then one section per run, the backend comparison and the mutation matrix (one
// table per kernel family). Long sections are collapsed (<details>).
std::string render_document(const std::vector<merged_run>& runs, const mutation_matrix* matrix,
                            const backend_comparison* comparison = nullptr, const render_options& options = {});

// A document longer than `limit` characters (GitHub's comment limit is 65,536) cut into numbered parts, each at most
// `limit` long and headed "Part i of n", cut between sections (never inside a code block or a <details>); a
// document that fits is one part, unchanged.
std::vector<std::string> split_document(const std::string& doc, std::size_t limit);
inline constexpr std::size_t github_comment_limit = 65536;

// Helpers of the renderer, public for their tests.
// Words of a command line quoted the way probes record it (POSIX single quotes, backslash escapes).
std::vector<std::string> shell_words(std::string_view command);
// One line of a code block, wrapped at `width`: at spaces, and after commas inside a longer word (a case id);
// continuation lines indented by four spaces.
std::string wrap_text_line(const std::string& line, std::size_t width);
// The anchor GitHub (and pandoc's gfm) gives a heading: lower case, spaces to '-', punctuation other than '-' and
// '_' dropped.
std::string github_anchor(std::string_view heading);
// A hazard or unwritten-read line made readable: build-tree variant paths (BUILD/kernels/<family>/variants/<v>/...)
// cut to the source-tree path (kernels/...), which the variant's code mirrors, and compiler pretty function names cut
// to the function's name, which is the upstream function the kernel models (kernels/ keeps upstream's names).
std::string readable_evidence(std::string line);

}  // namespace tp::report
