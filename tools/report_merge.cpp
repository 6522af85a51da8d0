#include "tools/report_merge.h"

#include <algorithm>
#include <fstream>
#include <iostream>
#include <set>
#include <sstream>
#include <tuple>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "probes/common/report.h"

namespace tp::report {

using probe::run_record;

namespace {
std::string run_key(const run_record& r) {
  std::string k = fmt::format("{}|{}|{}|{}|{}|{}|{}|{}", r.probe, r.backend, r.family, probe::to_string(r.expect),
                              r.seed, r.fuzz, r.shard.count, r.filtered);
  for (const auto& v : r.variants) k += "|" + v.name;
  return k;
}

}  // namespace

std::vector<merged_run> merge_reports(const std::vector<loaded_report>& reports) {
  std::vector<std::string> order;
  std::map<std::string, std::vector<const loaded_report*>> groups;
  for (const auto& r : reports) {
    const auto k = run_key(r.record);
    if (!groups.count(k)) order.push_back(k);
    groups[k].push_back(&r);
  }
  std::vector<merged_run> out;
  for (const auto& k : order) {
    auto& members = groups[k];
    merged_run m;
    const unsigned n = members.front()->record.shard.count;
    std::map<unsigned, const loaded_report*> by_index;
    for (const auto* r : members) {
      auto [it, fresh] = by_index.emplace(r->record.shard.index, r);
      if (!fresh)
        m.problems.push_back(fmt::format("shard {}/{} appears twice: {} and {}", r->record.shard.index, n,
                                         it->second->path, r->path));
    }
    for (unsigned i = 1; i <= n; ++i)
      if (!by_index.count(i)) m.problems.push_back(fmt::format("shard {}/{} is missing", i, n));

    const run_record& first = by_index.begin()->second->record;
    run_record& rec = m.record;
    rec = first;
    rec.cases.clear();
    rec.tallies.clear();
    rec.all_cases_listed = true;
    rec.failures.clear();
    rec.counterexamples.clear();
    rec.notes.clear();
    rec.broken.clear();
    for (auto& v : rec.variants) {
      probe::variant_summary fresh;
      fresh.name = v.name;
      fresh.role = v.role;
      v = std::move(fresh);
    }
    rec.shard = probe::shard_spec{1, 1};
    rec.run_seconds = 0;

    // Each listed case carries its position in the unsharded list (shard i holds the positions p % n == i-1).
    std::vector<std::tuple<std::uint64_t, const run_record*, std::size_t>> placed;
    std::map<std::tuple<std::string, probe::source_kind, probe::on_buggy>, std::size_t> tally_index;
    std::uint64_t counted = 0;
    std::set<std::uint64_t> unsharded_sizes;
    std::set<std::string> hosts;
    for (const auto& [index, lr] : by_index) {
      const run_record& r = lr->record;
      m.sources.push_back(lr->path);
      m.commands.push_back(r.command);
      unsharded_sizes.insert(r.unsharded_cases);
      rec.run_seconds += r.run_seconds;
      m.slowest_shard_seconds = std::max(m.slowest_shard_seconds, r.run_seconds);
      for (const auto& [key, value] : r.environment)
        if (key == "hostname") hosts.insert(value);
      for (std::size_t c = 0; c < r.cases.size(); ++c) placed.emplace_back(r.cases[c].position, &r, c);
      for (std::size_t v = 0; v < r.variants.size(); ++v) probe::merge_summary(rec.variants[v], r.variants[v]);
      rec.all_cases_listed = rec.all_cases_listed && r.all_cases_listed;
      // Tallies add up; each first case is the one at the smallest position over the shards.
      for (const auto& t : probe::tallies_of(r)) {
        counted += t.cases;
        auto [it, fresh] = tally_index.try_emplace({t.group, t.source, t.buggy}, rec.tallies.size());
        if (fresh) {
          rec.tallies.push_back(t);
          continue;
        }
        auto& into = rec.tallies[it->second];
        into.cases += t.cases;
        into.first_at = std::min(into.first_at, t.first_at);
        for (std::size_t v = 0; v < into.variants.size() && v < t.variants.size(); ++v) {
          auto& a = into.variants[v];
          const auto& b = t.variants[v];
          a.failed += b.failed;
          if (!b.first_failed.empty() && (a.first_failed.empty() || b.first_failed_at < a.first_failed_at))
            a.first_failed = b.first_failed, a.first_failed_at = b.first_failed_at;
          if (!b.first_passed.empty() && (a.first_passed.empty() || b.first_passed_at < a.first_passed_at))
            a.first_passed = b.first_passed, a.first_passed_at = b.first_passed_at;
        }
      }
    }
    std::sort(placed.begin(), placed.end(),
              [](const auto& a, const auto& b) { return std::get<0>(a) < std::get<0>(b); });
    std::map<std::pair<const run_record*, std::size_t>, std::size_t> new_index;
    std::map<std::string, std::size_t> seen_ids;
    for (const auto& [pos, r, c] : placed) {
      const auto& row = r->cases[c];
      auto [it, fresh] = seen_ids.emplace(row.id, rec.cases.size());
      if (!fresh) {
        m.problems.push_back("case " + row.id + " appears in more than one shard");
        continue;
      }
      new_index[{r, c}] = rec.cases.size();
      rec.cases.push_back(row);
    }
    if (unsharded_sizes.size() > 1)
      m.problems.push_back("the shards were cut from case lists of different sizes (different options?)");
    else if (!unsharded_sizes.empty() && by_index.size() == n && counted != *unsharded_sizes.begin())
      m.problems.push_back(fmt::format("{} cases merged, but the unsharded list had {}: cases are missing",
                                       counted, *unsharded_sizes.begin()));
    for (const auto& [index, lr] : by_index) {
      for (const auto& f : lr->record.failures) {
        auto it = new_index.find({&lr->record, f.case_index});
        if (it != new_index.end()) rec.failures.push_back({it->second, f.variant_index, f.result});
      }
      for (const auto& ce : lr->record.counterexamples) rec.counterexamples.push_back(ce);
      for (const auto& note : lr->record.notes)
        if (std::find(rec.notes.begin(), rec.notes.end(), note) == rec.notes.end()) rec.notes.push_back(note);
    }
    if (hosts.size() > 1) {
      std::string all;
      for (const auto& h : hosts) all += (all.empty() ? "" : ", ") + h;
      for (auto& [key, value] : rec.environment)
        if (key == "hostname") value = all;
    }
    rec.broken = probe::evaluate(rec, m.problems.empty());
    out.push_back(std::move(m));
  }
  return out;
}

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

int tileprobe_report_main(int argc, char** argv) {
  CLI::App cli("Merge tileprobe probe reports (JSON) into one Markdown document; compute the mutation matrix and "
               "backend comparisons from JSON. Exit 0: everything as expected; 1: a broken verdict, merge, matrix "
               "or comparison; 2: bad usage or input; 77: nothing broken, but part of the matrix could not run "
               "(backend not available): a skip, never a pass.",
               "tileprobe-report");
  std::vector<std::string> inputs;
  std::string out_path, matrix_path, matrix_runs, targets_dir, matrix_out, compare_arg;
  std::vector<std::string> probe_args;
  bool throughput = false;
  std::size_t comment_limit = github_comment_limit;
  cli.add_option("reports", inputs, "probe JSON reports (shards, machines, backends)");
  cli.add_option("--out", out_path,
                 "Markdown output file (default: stdout); a document over --comment-limit is also written as "
                 "numbered parts beside it, FILE.part1.md ...");
  cli.add_option("--matrix", matrix_path, "a mutation matrix JSON file (matrix_version 1) to check and render");
  cli.add_option("--matrix-runs", matrix_runs,
                 "a directory of matrix runs, PROBE@VARIANT.exit (exit status) and PROBE@VARIANT.json (the report of "
                 "`--variant VARIANT --expect pass --report json`): computes the mutation matrix (needs --targets-dir)");
  cli.add_option("--targets-dir", targets_dir, "where FAMILY/targets declares which probe must catch which variant "
                                               "(the repository's patches/)");
  cli.add_option("--matrix-out", matrix_out, "write the computed mutation matrix as JSON (matrix_version 1)");
  cli.add_option("--matrix-probe-args", probe_args, "the arguments every matrix run was given, for the document");
  cli.add_option("--compare-pair,--compare-backends", compare_arg,
                 "A,B: every probe run on backend A must have a run on B with the same cases, and agree with it per "
                 "variant on d_digest, d_digest_cases, passed and failed (exit 1 otherwise)");
  cli.add_flag("--throughput", throughput,
               "a section of case runs per second per run, from the reports' run_seconds and bench fields");
  cli.add_option("--comment-limit", comment_limit,
                 "characters a part may have (GitHub's comment limit); longer documents are split, with a warning")
      ->capture_default_str();
  try {
    cli.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return cli.exit(e);
  } catch (const CLI::ParseError& e) {
    std::string msg = e.what();
    std::replace(msg.begin(), msg.end(), '\n', ' ');
    std::cerr << "tileprobe-report: " << msg << " (see --help)\n";
    return 2;
  }
  const auto usage = [](const std::string& what) {
    std::cerr << "tileprobe-report: " << what << " (see --help)\n";
    return 2;
  };
  if (inputs.empty() && matrix_path.empty() && matrix_runs.empty())
    return usage("give at least one report, --matrix FILE or --matrix-runs DIR");
  if (!matrix_path.empty() && !matrix_runs.empty()) return usage("--matrix and --matrix-runs contradict each other");
  if (!matrix_runs.empty() && targets_dir.empty()) return usage("--matrix-runs needs --targets-dir (patches/)");
  if (matrix_runs.empty() && (!targets_dir.empty() || !matrix_out.empty()))
    return usage("--targets-dir and --matrix-out are for --matrix-runs");
  if (comment_limit < 1024) return usage("--comment-limit must be at least 1024");
  std::optional<std::pair<std::string, std::string>> pair;
  if (!compare_arg.empty() && !(pair = pair_of(compare_arg)))
    return usage("--compare-pair: '" + compare_arg + "' is not A,B (e.g. cpu,hip)");

  std::vector<loaded_report> reports;
  std::optional<mutation_matrix> matrix;
  try {
    for (const auto& path : inputs) {
      try {
        reports.push_back({path, probe::from_json(read_json(path))});
      } catch (const std::runtime_error& e) {
        const std::string what = e.what();
        throw std::runtime_error(what.rfind(path, 0) == 0 ? what : path + ": " + what);
      }
    }
    if (!matrix_path.empty()) matrix = parse_matrix(read_json(matrix_path));
    if (!matrix_runs.empty()) {
      matrix = matrix_from_runs(read_matrix_runs(matrix_runs), targets_dir);
      matrix->probe_args = probe_args;
    }
  } catch (const std::runtime_error& e) {
    std::cerr << "tileprobe-report: " << e.what() << '\n';
    return 2;
  }
  const auto runs = merge_reports(reports);
  std::optional<backend_comparison> comparison;
  if (pair) comparison = compare_backends(runs, pair->first, pair->second);
  if (throughput) {
    if (!comparison) comparison.emplace();
    add_throughput(*comparison, runs);
  }
  const std::string doc = render_document(runs, matrix ? &*matrix : nullptr, comparison ? &*comparison : nullptr);
  if (!matrix_out.empty() && !write_file(matrix_out, to_json(*matrix).dump(1) + "\n")) {
    std::cerr << "tileprobe-report: " << matrix_out << ": cannot write\n";
    return 2;
  }
  const auto parts = split_document(doc, comment_limit);
  if (out_path.empty()) {
    std::cout << doc;
  } else {
    if (!write_file(out_path, doc)) {
      std::cerr << "tileprobe-report: " << out_path << ": cannot write\n";
      return 2;
    }
    if (parts.size() > 1) {
      const auto stem = out_path.size() > 3 && out_path.ends_with(".md") ? out_path.substr(0, out_path.size() - 3)
                                                                          : out_path;
      std::string names;
      for (std::size_t i = 0; i < parts.size(); ++i) {
        const std::string name = fmt::format("{}.part{}.md", stem, i + 1);
        if (!write_file(name, parts[i])) {
          std::cerr << "tileprobe-report: " << name << ": cannot write\n";
          return 2;
        }
        names += (names.empty() ? "" : ", ") + name;
      }
      std::cerr << fmt::format("tileprobe-report: warning: the document has {} characters, more than one comment takes "
                               "({}); also written in {} parts: {}\n",
                               doc.size(), comment_limit, parts.size(), names);
    }
  }
  if (out_path.empty() && parts.size() > 1)
    std::cerr << fmt::format("tileprobe-report: warning: the document has {} characters, more than one comment takes "
                             "({}); give --out FILE to have it split into numbered parts\n",
                             doc.size(), comment_limit);
  int rc = 0;
  for (const auto& m : runs) {
    for (const auto& p : m.problems) std::cerr << "tileprobe-report: " << m.record.probe << ": " << p << '\n', rc = 1;
    for (const auto& b : m.record.broken)
      std::cerr << "tileprobe-report: " << m.record.probe << " (" << m.record.backend << "): " << b << '\n', rc = 1;
  }
  int matrix_rc = 0;
  if (matrix) {
    for (const auto& p : matrix_problems(*matrix)) std::cerr << "tileprobe-report: matrix: " << p << '\n';
    matrix_rc = matrix_exit_code(*matrix);
    if (matrix_rc == 77) std::cerr << "tileprobe-report: matrix: some runs were not available (exit 77): not judged\n";
  }
  if (comparison)
    for (const auto& p : comparison->problems) std::cerr << "tileprobe-report: compare: " << p << '\n', rc = 1;
  if (rc == 0 && matrix_rc != 0) rc = matrix_rc;
  return rc;
}

}  // namespace tp::report
