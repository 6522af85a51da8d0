#include "tools/report_merge.h"

#include <algorithm>
#include <set>
#include <tuple>

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
    rec.setup_seconds = 0;

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
      rec.setup_seconds += r.setup_seconds;
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

}  // namespace tp::report
