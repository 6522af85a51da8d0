// tileprobe-report's command line: what to read (probe reports, a matrix or matrix runs, pairs to compare), what
// to write (the Markdown document, split for comments when long; --json-out; --matrix-out), and the exit code from
// everything it found. The merging is report_merge.cpp's, the comparisons report_compare.cpp's.
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "probes/common/cli.h"
#include "probes/common/report.h"
#include "tools/report_merge.h"

namespace tp::report {

namespace {
nlohmann::json read_json(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error(path + ": cannot open the file");
  try {
    return nlohmann::json::parse(in);
  } catch (const nlohmann::json::exception& e) {
    throw std::runtime_error(path + ": not JSON (" + e.what() + ")");
  }
}
bool write_file(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  out.flush();
  return bool(out);
}
// "A,B" with two non-empty names.
std::optional<std::pair<std::string, std::string>> pair_of(const std::string& s) {
  const auto comma = s.find(',');
  if (comma == std::string::npos || comma == 0 || comma + 1 == s.size() || s.find(',', comma + 1) != std::string::npos)
    return std::nullopt;
  return std::pair{s.substr(0, comma), s.substr(comma + 1)};
}
}  // namespace

nlohmann::json result_json(const tool_result& r) {
  using nlohmann::json;
  // Non-finite figures as the strings the reports print (JSON has no literal for them).
  const auto number = [](double v) { return std::isfinite(v) ? json(v) : json(probe::format_number(v)); };
  const auto maybe = [&](const std::optional<double>& v) { return v ? number(*v) : json(nullptr); };
  json j = {{"tileprobe_report_version", 1}, {"exit_code", r.exit_code}, {"problems", r.problems}};
  j["runs"] = json::array();
  for (const auto& m : r.runs) {
    const auto& rec = m.record;
    std::string commit;
    for (const auto& [key, value] : rec.environment)
      if (key == "git commit") commit = value;
    json variants = json::array();
    for (const auto& v : rec.variants) {
      json metrics = json::object();
      for (const auto& [key, m] : v.metrics) metrics[key] = number(m.value);
      variants.push_back({{"name", v.name}, {"role", probe::to_string(v.role)}, {"passed", v.passed},
                          {"failed", v.failed}, {"errors", v.errors}, {"metrics", std::move(metrics)}});
    }
    j["runs"].push_back({{"probe", rec.probe},
                         {"backend", rec.backend},
                         {"family", rec.family},
                         {"expect", probe::to_string(rec.expect)},
                         {"sources", m.sources},
                         {"commit", commit.empty() ? json(nullptr) : json(commit)},
                         {"run_seconds", number(rec.run_seconds)},
                         {"variants", std::move(variants)},
                         {"as_expected", m.as_expected()},
                         {"broken", rec.broken},
                         {"problems", m.problems}});
  }
  j["comparison"] = nullptr;
  if (r.comparison && !r.comparison->a.empty()) {
    json rows = json::array();
    for (const auto& row : r.comparison->rows) {
      json cells = json::array();
      for (const auto& c : row.cells) cells.push_back({{"what", c.what}, {"a", c.on_a}, {"b", c.on_b}});
      rows.push_back({{"probe", row.probe}, {"variant", row.variant}, {"equal", row.equal}, {"cells", cells}});
    }
    j["comparison"] = {{"a", r.comparison->a}, {"b", r.comparison->b}, {"rows", rows},
                       {"problems", r.comparison->problems}};
  }
  j["throughput"] = nullptr;
  if (r.throughput) {
    j["throughput"] = json::array();
    for (const auto& t : r.comparison->rates)
      j["throughput"].push_back({{"probe", t.probe},
                                 {"backend", t.backend},
                                 {"run", t.what},
                                 {"case_runs", t.case_runs},
                                 {"seconds", number(t.seconds)},
                                 {"case_runs_per_second", number(t.case_runs_per_second)},
                                 {"host_threads", t.host_threads},
                                 {"vs_cpu_one_process", maybe(t.vs_cpu_one_process)},
                                 {"cpu_us_per_tile_case_run", maybe(t.cpu_us_per_tile_case_run)},
                                 {"host_us_per_tile_case_run", maybe(t.host_us_per_tile_case_run)},
                                 {"at_most", maybe(t.at_most)}});
  }
  j["matrix"] = nullptr;
  if (r.matrix) {
    j["matrix"] = to_json(*r.matrix);
    j["matrix"]["problems"] = matrix_problems(*r.matrix);
    j["matrix"]["exit_code"] = matrix_exit_code(*r.matrix);
  }
  return j;
}

namespace {
// The problems of a call, one line each (printed on stderr and listed in --json-out), and its exit code: 1 when
// anything is broken, else the matrix's 77 when part of it could not run, else 0.
void judge(tool_result& r) {
  for (const auto& m : r.runs) {
    for (const auto& p : m.problems) r.problems.push_back(m.record.probe + ": " + p);
    for (const auto& b : m.record.broken) r.problems.push_back(m.record.probe + " (" + m.record.backend + "): " + b);
  }
  if (r.comparison)
    for (const auto& p : r.comparison->problems) r.problems.push_back("compare: " + p);
  const std::size_t outside_matrix = r.problems.size();
  int matrix_rc = 0;
  if (r.matrix) {
    for (const auto& p : matrix_problems(*r.matrix)) r.problems.push_back("matrix: " + p);
    matrix_rc = matrix_exit_code(*r.matrix);
  }
  r.exit_code = outside_matrix > 0 ? 1 : matrix_rc;
}
}  // namespace

namespace {
// tileprobe-report's command line: what to read, what to write, and the three jobs besides merging (each its own
// group in --help).
struct tool_options {
  std::vector<std::string> inputs, compare_files, probe_args;
  std::string out_path, json_out, matrix_path, matrix_runs, targets_dir, matrix_out, compare_arg;
  bool throughput = false, no_run_sections = false;
  std::size_t comment_limit = github_comment_limit;
};

void declare_output(CLI::App& cli, tool_options& o) {
  cli.add_option("reports", o.inputs, "probe JSON reports (shards, machines, backends)");
  cli.add_option("--out", o.out_path,
                 "Markdown output file (default: stdout); a document over --comment-limit is also written as "
                 "numbered parts beside it, FILE.part1.md ...");
  cli.add_option("--json-out", o.json_out,
                 "also write what this call found as JSON (tools/tileprobe-report.schema.json): every run's verdict "
                 "and problems, the comparison rows, the throughput figures, the matrix, every problem line and the "
                 "exit code");
  cli.add_flag("--no-run-sections", o.no_run_sections,
               "leave the title, headline table and per-run sections out of the Markdown: only the comparison, "
               "throughput and matrix sections (for a summary that embeds them)");
  cli.add_option("--comment-limit", o.comment_limit,
                 "characters a part may have (GitHub's comment limit); longer documents are split, with a warning")
      ->capture_default_str();
  add_version_flag(cli, probe::version_line("tileprobe-report"));
}

void declare_matrix(CLI::App& cli, tool_options& o) {
  auto& g = *cli.add_option_group("Mutation matrix", "check a matrix file, or compute one from matrix runs");
  g.add_option("--matrix", o.matrix_path, "a mutation matrix JSON file (matrix_version 1) to check and render");
  g.add_option("--matrix-runs", o.matrix_runs,
               "a directory of matrix runs, PROBE@VARIANT.exit (exit status) and PROBE@VARIANT.json (the report of "
               "`--variant VARIANT --expect pass --report json`): computes the mutation matrix (needs --targets-dir)");
  g.add_option("--targets-dir", o.targets_dir,
               "where FAMILY/targets declares which probe must catch which variant (the repository's patches/)");
  g.add_option("--matrix-out", o.matrix_out, "write the computed mutation matrix as JSON (matrix_version 1)");
  g.add_option("--matrix-probe-args", o.probe_args, "the arguments every matrix run was given, for the document");
}

void declare_comparison(CLI::App& cli, tool_options& o) {
  auto& g = *cli.add_option_group("Comparisons", "two backends, or two reports, variant by variant; throughput");
  const std::string agree = "agree per variant on " + std::string(compared_per_variant) + " (exit 1 otherwise)";
  g.add_option("--compare-pair,--compare-backends", o.compare_arg,
               "A,B: every probe run on backend A must have a run on B with the same cases, and " + agree);
  g.add_option("--compare-reports", o.compare_files,
               "X.json,Y.json (repeatable): the two reports must be the same run (probe, seed, fuzz, variants, case "
               "list), whatever backend each names, and " + agree + "; not merged into the document's runs")
      ->allow_extra_args(false);  // one pair per --compare-reports: the words after it stay reports
  g.add_flag("--throughput", o.throughput,
             "a section of case runs per second per run, from the reports' run_seconds and bench fields");
}
}  // namespace

namespace {
// Writes a file, or says on stderr that it cannot.
bool written(const std::string& path, const std::string& text) {
  if (write_file(path, text)) return true;
  std::cerr << "tileprobe-report: " << path << ": cannot write\n";
  return false;
}

// The document to --out (stdout without it); one over --comment-limit also as numbered parts beside it, with a warning.
bool write_markdown(const std::string& doc, const tool_options& o) {
  const auto parts = split_document(doc, o.comment_limit);
  const auto warning = fmt::format("tileprobe-report: warning: the document has {} characters, more than one comment "
                                   "takes ({}); ",
                                   doc.size(), o.comment_limit);
  if (o.out_path.empty()) {
    std::cout << doc;
    if (parts.size() > 1) std::cerr << warning << "give --out FILE to have it split into numbered parts\n";
    return true;
  }
  if (!written(o.out_path, doc)) return false;
  if (parts.size() == 1) return true;
  const auto stem = o.out_path.ends_with(".md") ? o.out_path.substr(0, o.out_path.size() - 3) : o.out_path;
  std::string names;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    const std::string name = fmt::format("{}.part{}.md", stem, i + 1);
    if (!written(name, parts[i])) return false;
    names += (names.empty() ? "" : ", ") + name;
  }
  std::cerr << warning << fmt::format("also written in {} parts: {}\n", parts.size(), names);
  return true;
}
}  // namespace

int tileprobe_report_main(int argc, char** argv) {
  CLI::App cli("Merge tileprobe probe reports (JSON) into one Markdown document; compute the mutation matrix, "
               "backend comparisons and throughput from JSON. Exit 0: everything as expected; 1: a broken verdict, "
               "merge, matrix or comparison; 2: bad usage or input; 77: nothing broken, but part of the matrix could "
               "not run (backend not available): a skip, never a pass.",
               "tileprobe-report");
  tool_options o;
  declare_output(cli, o);
  declare_matrix(cli, o);
  declare_comparison(cli, o);
  if (const auto stop = parse_command_line(cli, argc, argv)) {
    if (!stop->usage_error.empty()) std::cerr << "tileprobe-report: " << stop->usage_error << '\n';
    return stop->exit_code;
  }
  const auto usage = [](const std::string& what) {
    std::cerr << "tileprobe-report: " << what << " (see --help)\n";
    return 2;
  };
  if (o.inputs.empty() && o.matrix_path.empty() && o.matrix_runs.empty() && o.compare_files.empty())
    return usage("give at least one report, --compare-reports X,Y, --matrix FILE or --matrix-runs DIR");
  if (!o.matrix_path.empty() && !o.matrix_runs.empty()) return usage("--matrix and --matrix-runs contradict each other");
  if (!o.matrix_runs.empty() && o.targets_dir.empty()) return usage("--matrix-runs needs --targets-dir (patches/)");
  if (o.matrix_runs.empty() && (!o.targets_dir.empty() || !o.matrix_out.empty()))
    return usage("--targets-dir and --matrix-out are for --matrix-runs");
  if (!o.compare_arg.empty() && !o.compare_files.empty())
    return usage("--compare-backends and --compare-reports contradict each other (one comparison per call)");
  if (o.throughput && o.inputs.empty()) return usage("--throughput needs the reports to measure");
  if (o.comment_limit < 1024) return usage("--comment-limit must be at least 1024");
  std::optional<std::pair<std::string, std::string>> pair;
  if (!o.compare_arg.empty() && !(pair = pair_of(o.compare_arg)))
    return usage("--compare-pair: '" + o.compare_arg + "' is not A,B (e.g. cpu,hip)");
  std::vector<std::pair<std::string, std::string>> file_pairs;
  for (const auto& f : o.compare_files) {
    const auto p = pair_of(f);
    if (!p) return usage("--compare-reports: '" + f + "' is not X.json,Y.json");
    file_pairs.push_back(*p);
  }

  std::vector<loaded_report> reports;
  std::vector<std::pair<loaded_report, loaded_report>> compared;
  tool_result result;
  result.throughput = o.throughput;
  try {
    const auto load = [](const std::string& path) {
      try {
        return loaded_report{path, probe::from_json(read_json(path))};
      } catch (const std::runtime_error& e) {
        const std::string what = e.what();
        throw std::runtime_error(what.rfind(path, 0) == 0 ? what : path + ": " + what);
      }
    };
    for (const auto& path : o.inputs) reports.push_back(load(path));
    for (const auto& [x, y] : file_pairs) compared.emplace_back(load(x), load(y));
    if (!o.matrix_path.empty()) result.matrix = parse_matrix(read_json(o.matrix_path));
    if (!o.matrix_runs.empty()) {
      result.matrix = matrix_from_runs(read_matrix_runs(o.matrix_runs), o.targets_dir);
      result.matrix->probe_args = o.probe_args;
    }
  } catch (const std::runtime_error& e) {
    std::cerr << "tileprobe-report: " << e.what() << '\n';
    return 2;
  }
  result.runs = merge_reports(reports);
  if (pair) result.comparison = compare_backends(result.runs, pair->first, pair->second);
  if (!compared.empty()) result.comparison = compare_reports(compared);
  if (o.throughput) {
    if (!result.comparison) result.comparison.emplace();
    add_throughput(*result.comparison, result.runs);
  }
  judge(result);

  render_options options;
  options.run_sections = !o.no_run_sections;
  options.report_dir = std::filesystem::path(o.out_path).parent_path().string();
  const std::string doc = render_document(result.runs, result.matrix ? &*result.matrix : nullptr,
                                          result.comparison ? &*result.comparison : nullptr, options);
  if (!o.matrix_out.empty() && !written(o.matrix_out, to_json(*result.matrix).dump(1) + "\n")) return 2;
  if (!write_markdown(doc, o)) return 2;
  if (!o.json_out.empty() && !written(o.json_out, result_json(result).dump(1) + "\n")) return 2;
  for (const auto& p : result.problems) std::cerr << "tileprobe-report: " << p << '\n';
  if (result.exit_code == 77)
    std::cerr << "tileprobe-report: matrix: some runs were not available (exit 77): not judged\n";
  return result.exit_code;
}

}  // namespace tp::report
