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

mutation_matrix parse_matrix(const nlohmann::json& j) {
  mutation_matrix m;
  if (!j.is_object() || !j.contains("matrix_version") || j.at("matrix_version") != 1)
    throw std::runtime_error("matrix: missing or unsupported matrix_version (expected 1)");
  if (!j.contains("rows") || !j.at("rows").is_array()) throw std::runtime_error("matrix: missing rows");
  try {
    m.backend = j.value("backend", std::string());
    if (j.contains("probe_args")) m.probe_args = j.at("probe_args").get<std::vector<std::string>>();
  } catch (const nlohmann::json::exception& e) {
    throw std::runtime_error(std::string("matrix: bad backend or probe_args: ") + e.what());
  }
  for (const auto& jr : j.at("rows")) {
    matrix_row row;
    try {
      row.variant = jr.at("variant").get<std::string>();
      row.family = jr.value("family", std::string());
      if (jr.contains("targets")) {
        row.any_target = false;
        row.targets = jr.at("targets").get<std::vector<std::string>>();
      }
      row.exit_codes = jr.at("exit").get<std::map<std::string, int>>();
    } catch (const nlohmann::json::exception& e) {
      throw std::runtime_error(std::string("matrix: bad row: ") + e.what());
    }
    m.rows.push_back(std::move(row));
  }
  return m;
}

namespace {
std::set<std::string> caught_by(const matrix_row& r) {
  std::set<std::string> s;
  for (const auto& [p, code] : r.exit_codes)
    if (code == 1) s.insert(p);
  return s;
}
std::string join(const std::set<std::string>& s) {
  std::string out;
  for (const auto& x : s) out += (out.empty() ? "" : ", ") + x;
  return out.empty() ? "none" : out;
}
}  // namespace

std::vector<std::string> matrix_problems(const mutation_matrix& m) {
  std::vector<std::string> problems;
  for (const auto& r : m.rows) {
    for (const auto& [p, code] : r.exit_codes)
      if (code != 0 && code != 1 && code != 77)
        problems.push_back(fmt::format("{} on {}: exit {} (usage or input error)", p, r.variant, code));
    const auto caught = caught_by(r);
    if (r.any_target) {
      if (caught.empty()) problems.push_back("mutant " + r.variant + " survives: no probe catches it");
    } else {
      const std::set<std::string> want(r.targets.begin(), r.targets.end());
      if (caught != want)
        problems.push_back("variant " + r.variant + " is caught by " + join(caught) + ", expected exactly " +
                           join(want));
    }
  }
  return problems;
}

int tileprobe_report_main(int argc, char** argv) {
  CLI::App cli("Merge tileprobe probe reports (JSON) into one Markdown document", "tileprobe-report");
  std::vector<std::string> inputs;
  std::string out_path, matrix_path;
  cli.add_option("reports", inputs, "probe JSON reports (shards, machines, backends); optional with --matrix");
  cli.add_option("--out", out_path, "Markdown output file (default: stdout)");
  cli.add_option("--matrix", matrix_path, "mutation matrix JSON");
  std::string compare_arg;
  cli.add_option("--compare-backends", compare_arg,
                 "A,B: every probe run on backend A must have a run on B with the same cases, and agree with it per "
                 "variant on d_digest, d_digest_cases, passed and failed (exit 1 otherwise); a section of the document");
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
  if (inputs.empty() && matrix_path.empty()) {
    std::cerr << "tileprobe-report: give at least one report, or --matrix FILE (see --help)\n";
    return 2;
  }
  const auto read_json = [](const std::string& path) {
    std::ifstream in(path);
    if (!in) throw std::runtime_error(path + ": cannot open the file");
    try {
      return nlohmann::json::parse(in);
    } catch (const nlohmann::json::exception& e) {
      throw std::runtime_error(path + ": not JSON (" + e.what() + ")");
    }
  };
  std::vector<loaded_report> reports;
  mutation_matrix matrix;
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
  } catch (const std::runtime_error& e) {
    std::cerr << "tileprobe-report: " << e.what() << '\n';
    return 2;
  }
  const auto runs = merge_reports(reports);
  std::optional<backend_comparison> comparison;
  if (!compare_arg.empty()) {
    const auto comma = compare_arg.find(',');
    if (comma == std::string::npos || comma == 0 || comma + 1 == compare_arg.size() ||
        compare_arg.find(',', comma + 1) != std::string::npos) {
      std::cerr << "tileprobe-report: --compare-backends: '" << compare_arg << "' is not A,B (e.g. cpu,hip)\n";
      return 2;
    }
    comparison = compare_backends(runs, compare_arg.substr(0, comma), compare_arg.substr(comma + 1));
  }
  const std::string doc = render_document(runs, matrix_path.empty() ? nullptr : &matrix,
                                          comparison ? &*comparison : nullptr);
  if (out_path.empty()) {
    std::cout << doc;
  } else {
    std::ofstream out(out_path, std::ios::binary | std::ios::trunc);
    out << doc;
    if (!out) {
      std::cerr << "tileprobe-report: " << out_path << ": cannot write\n";
      return 2;
    }
  }
  int rc = 0;
  for (const auto& m : runs) {
    for (const auto& p : m.problems) std::cerr << "tileprobe-report: " << m.record.probe << ": " << p << '\n', rc = 1;
    for (const auto& b : m.record.broken)
      std::cerr << "tileprobe-report: " << m.record.probe << " (" << m.record.backend << "): " << b << '\n', rc = 1;
  }
  if (!matrix_path.empty())
    for (const auto& p : matrix_problems(matrix)) std::cerr << "tileprobe-report: matrix: " << p << '\n', rc = 1;
  if (comparison)
    for (const auto& p : comparison->problems) std::cerr << "tileprobe-report: backends: " << p << '\n', rc = 1;
  return rc;
}

}  // namespace tp::report
