#include "probes/common/run.h"

#include <algorithm>
#include <map>
#include <tuple>
#include <unordered_map>

namespace tp::probe {

namespace {
bool must_pass_everywhere(source_kind source, on_buggy buggy) {
  return source == source_kind::control || buggy == on_buggy::pass;
}

std::string count_line(std::uint64_t failed, std::uint64_t total) {
  return std::to_string(failed) + "/" + std::to_string(total) + " failed";
}

// The id at the smallest position among the tallies `take` accepts, of field `id` / `at` of the variant's counts.
template <class Take, class Id, class At>
std::string first_of(const std::vector<case_tally>& ts, std::size_t v, Take take, Id id, At at) {
  const std::string* best = nullptr;
  std::uint64_t best_at = 0;
  for (const auto& t : ts) {
    if (!take(t)) continue;
    const auto& pv = t.variants[v];
    if (id(pv).empty()) continue;
    if (!best || at(pv) < best_at) {
      best = &id(pv);
      best_at = at(pv);
    }
  }
  return best ? *best : std::string();
}
}  // namespace

std::string_view expectation_broken(expect_mode expect, variant_role role, source_kind source, on_buggy buggy,
                                    bool pass) {
  switch (expect) {
    case expect_mode::pass: return pass ? "" : "failed; every case must pass";
    case expect_mode::fail: return "";
    case expect_mode::fail_pass:
      if (role == variant_role::fixed && !pass) return "fixed variant failed";
      if (must_pass_everywhere(source, buggy) && !pass) return "control case failed (must pass on every variant)";
      if (role == variant_role::buggy && buggy == on_buggy::fail && source != source_kind::control && pass)
        return "passed on the buggy variant but must fail";
      return "";
  }
  return "";
}

std::vector<case_tally> tallies_of(const run_record& r) {
  if (!r.tallies.empty() || r.cases.empty()) return r.tallies;
  std::vector<case_tally> out;
  std::map<std::tuple<std::string_view, source_kind, on_buggy>, std::size_t> index;
  for (std::size_t i = 0; i < r.cases.size(); ++i) {
    const auto& c = r.cases[i];
    const std::string_view group = c.group.empty() ? to_string(c.source) : std::string_view(c.group);
    auto [it, fresh] = index.try_emplace({group, c.source, c.buggy}, out.size());
    if (fresh) {
      out.push_back({std::string(group), c.source, c.buggy, 0, c.position, {}});
      out.back().variants.resize(r.variants.size());
    }
    auto& t = out[it->second];
    ++t.cases;
    for (std::size_t v = 0; v < r.variants.size() && v < c.passed.size(); ++v) {
      auto& pv = t.variants[v];
      if (!c.passed[v]) {
        if (pv.failed++ == 0) pv.first_failed = c.id, pv.first_failed_at = c.position;
      } else if (pv.first_passed.empty()) {
        pv.first_passed = c.id;
        pv.first_passed_at = c.position;
      }
    }
  }
  // Index keys view the rows' strings; the tallies own copies.
  return out;
}

std::uint64_t cases_in(const run_record& r) {
  if (r.tallies.empty()) return r.cases.size();
  std::uint64_t n = 0;
  for (const auto& t : r.tallies) n += t.cases;
  return n;
}

std::vector<expectation_check> expectations(const run_record& r, bool check_must_catch) {
  std::vector<expectation_check> out;
  const auto check = [&](std::string id, std::string broken) { out.push_back({std::move(id), std::move(broken)}); };
  const auto ts = tallies_of(r);
  std::uint64_t total = 0;
  for (const auto& t : ts) total += t.cases;
  if (total == 0) {
    check("cases-ran", "no case ran, so nothing was shown");
    return out;
  }
  const auto failed_id = [](const case_tally::per_variant& p) -> const std::string& { return p.first_failed; };
  const auto failed_at = [](const case_tally::per_variant& p) { return p.first_failed_at; };
  const auto passed_id = [](const case_tally::per_variant& p) -> const std::string& { return p.first_passed; };
  const auto passed_at = [](const case_tally::per_variant& p) { return p.first_passed_at; };
  const auto any = [](const case_tally&) { return true; };
  const auto control = [](const case_tally& t) { return must_pass_everywhere(t.source, t.buggy); };
  const auto must_fail = [](const case_tally& t) { return t.buggy == on_buggy::fail && t.source != source_kind::control; };
  const std::size_t nv = r.variants.size();
  for (std::size_t v = 0; v < nv; ++v) {
    const auto& var = r.variants[v];
    std::uint64_t failed = 0;
    for (const auto& t : ts) failed += t.variants[v].failed;

    if (r.expect == expect_mode::pass || (r.expect == expect_mode::fail_pass && var.role == variant_role::fixed)) {
      check(var.name + ".passes-every-case",
            failed ? std::string(r.expect == expect_mode::pass ? "variant " : "fixed variant ") + var.name + " failed " +
                         std::to_string(failed) + " of " + std::to_string(total) +
                         " cases (expected every case to pass); first: " + first_of(ts, v, any, failed_id, failed_at)
                   : std::string());
      continue;
    }
    if (r.expect == expect_mode::fail) {
      check(var.name + ".fails-a-case",
            failed ? std::string()
                   : "variant " + var.name + " passed all " + std::to_string(total) +
                         " cases (expected at least one failure: the variant is not caught)");
      continue;
    }

    // fail-pass, buggy or other: control cases must pass here too.
    std::uint64_t control_failed = 0, control_total = 0;
    for (const auto& t : ts)
      if (control(t)) {
        control_total += t.cases;
        control_failed += t.variants[v].failed;
      }
    if (control_total)
      check(var.name + ".passes-controls",
            control_failed ? std::string(to_string(var.role)) + " variant " + var.name + " failed " +
                                 std::to_string(control_failed) + " of " + std::to_string(control_total) +
                                 " control case(s) (controls must pass on every variant); first: " +
                                 first_of(ts, v, control, failed_id, failed_at)
                           : std::string());
    if (var.role != variant_role::buggy) continue;

    std::uint64_t must_fail_total = 0, must_fail_passed = 0;
    for (const auto& t : ts)
      if (must_fail(t)) {
        must_fail_total += t.cases;
        must_fail_passed += t.cases - t.variants[v].failed;
      }
    if (must_fail_total)
      check(var.name + ".fails-the-cases-marked-to-fail",
            must_fail_passed ? "buggy variant " + var.name + " passed " + std::to_string(must_fail_passed) +
                                   " case(s) that must fail on it; first: " +
                                   first_of(ts, v, must_fail, passed_id, passed_at)
                             : std::string());

    if (!check_must_catch) continue;
    for (source_kind k : r.must_catch) {
      std::uint64_t kind_total = 0, kind_failed = 0;
      for (const auto& t : ts)
        if (t.source == k) {
          kind_total += t.cases;
          kind_failed += t.variants[v].failed;
        }
      const std::string id = var.name + ".fails-a-" + std::string(to_string(k)) + "-case";
      // A kind the run's own filters (--fixture, --fuzz 0, --case, --input) left without cases is not demanded.
      if (kind_total == 0) {
        if (!r.filtered)
          check(id, "no " + std::string(to_string(k)) + " case ran, so the probe cannot show that buggy variant " +
                        var.name + " fails on " + std::string(to_string(k)) + " cases");
      } else {
        check(id, kind_failed ? std::string()
                              : "buggy variant " + var.name + " failed no " + std::string(to_string(k)) + " case (" +
                                    count_line(0, kind_total) + "): the probe no longer catches its bug there");
      }
    }
  }
  return out;
}

std::vector<std::string> evaluate(const run_record& r, bool check_must_catch) {
  std::vector<std::string> broken;
  for (auto& e : expectations(r, check_must_catch))
    if (!e.broken.empty()) broken.push_back(std::move(e.broken));
  return broken;
}

std::string shell_quote(const std::string& s) {
  if (!s.empty() && s.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./:=,+@%") ==
                        std::string::npos)
    return s;
  std::string out = "'";
  for (char c : s) {
    if (c == '\'') out += "'\\''";
    else out += c;
  }
  return out + "'";
}

namespace {
constexpr std::size_t kept_evidence_lines = 8;
// The first `kept_evidence_lines` distinct lines, in order of arrival.
void keep_first_lines(std::vector<std::string>& into, const std::vector<std::string>& from) {
  for (const auto& f : from)
    if (into.size() < kept_evidence_lines && std::find(into.begin(), into.end(), f) == into.end()) into.push_back(f);
}
// What an outcome and a summary both carry, added from one into a summary.
void add_measurements(variant_summary& s, const std::map<std::string, metric>& metrics,
                      const std::map<std::string, std::uint64_t>& coverage, const hazard_evidence& hazards,
                      const unwritten_evidence& unwritten) {
  for (const auto& [k, m] : metrics) {
    auto [it, fresh] = s.metrics.try_emplace(k, m);
    if (fresh) continue;
    if (m.merge == metric_merge::sum)
      it->second.value += m.value;
    else
      it->second.value = std::max(it->second.value, m.value);
  }
  for (const auto& [k, n] : coverage) s.coverage[k] += n;
  s.hazards.raw += hazards.raw;
  s.hazards.war += hazards.war;
  s.hazards.waw += hazards.waw;
  keep_first_lines(s.hazards.first, hazards.first);
  s.unwritten.host_initialised += unwritten.host_initialised;
  s.unwritten.never_written += unwritten.never_written;
  keep_first_lines(s.unwritten.first, unwritten.first);
}
}  // namespace

void accumulate(variant_summary& s, const outcome& o) {
  if (o.pass)
    ++s.passed;
  else
    ++s.failed;
  if (!o.error.empty()) ++s.errors;
  add_measurements(s, o.metrics, o.coverage, o.hazards, o.unwritten);
}

void merge_summary(variant_summary& into, const variant_summary& from) {
  into.passed += from.passed;
  into.failed += from.failed;
  into.errors += from.errors;
  into.seconds += from.seconds;
  add_measurements(into, from.metrics, from.coverage, from.hazards, from.unwritten);
}

fail_pass_table make_table(const run_record& r) {
  fail_pass_table t;
  for (const auto& v : r.variants) t.columns.push_back(v.name);
  auto ts = tallies_of(r);
  std::stable_sort(ts.begin(), ts.end(), [](const case_tally& a, const case_tally& b) { return a.first_at < b.first_at; });
  std::map<std::string, std::size_t> row_of;
  for (const auto& tally : ts) {
    auto [it, fresh] = row_of.try_emplace(tally.group, t.rows.size());
    if (fresh) {
      t.rows.push_back(tally.group);
      t.cells.emplace_back(r.variants.size());
    }
    auto& line = t.cells[it->second];
    for (std::size_t v = 0; v < r.variants.size(); ++v) {
      line[v].total += tally.cases;
      line[v].passed += tally.cases - tally.variants[v].failed;
    }
  }
  return t;
}

shrink_result shrink_case(const case_def& failing, const std::function<case_list(const case_def&)>& candidates,
                          const std::function<bool(const case_def&)>& still_fails, unsigned budget) {
  shrink_result res{failing, 0, 0, false};
  if (!candidates) return res;
  for (;;) {
    bool improved = false;
    for (auto& cand : candidates(res.shrunk)) {
      if (res.runs >= budget) {
        res.budget_exhausted = true;
        return res;
      }
      ++res.runs;
      if (still_fails(cand)) {
        res.shrunk = std::move(cand);
        ++res.steps;
        improved = true;
        break;
      }
    }
    if (!improved) return res;
  }
}

}  // namespace tp::probe
