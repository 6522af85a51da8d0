#include "probes/common/run.h"

#include <algorithm>
#include <unordered_map>

namespace tp::probe {

std::string_view to_string(expect_mode m) {
  switch (m) {
    case expect_mode::fail_pass: return "fail-pass";
    case expect_mode::pass: return "pass";
    case expect_mode::fail: return "fail";
  }
  return "?";
}

std::string_view to_string(variant_role r) {
  switch (r) {
    case variant_role::buggy: return "buggy";
    case variant_role::fixed: return "fixed";
    case variant_role::other: return "other";
  }
  return "?";
}

namespace {
bool must_pass_everywhere(const case_row& c) { return c.source == source_kind::control || c.buggy == on_buggy::pass; }

std::string count_line(std::uint64_t failed, std::uint64_t total) {
  return std::to_string(failed) + "/" + std::to_string(total) + " failed";
}
}  // namespace

std::vector<std::string> evaluate(const run_record& r, bool check_must_catch) {
  std::vector<std::string> broken;
  if (r.cases.empty()) {
    broken.push_back("no case ran, so nothing was shown");
    return broken;
  }
  const std::size_t nv = r.variants.size();
  for (std::size_t v = 0; v < nv; ++v) {
    const auto& var = r.variants[v];
    std::uint64_t failed = 0;
    const case_row* first_failed = nullptr;
    for (const auto& c : r.cases)
      if (!c.passed[v]) {
        ++failed;
        if (!first_failed) first_failed = &c;
      }
    const std::uint64_t total = r.cases.size();

    if (r.expect == expect_mode::pass || (r.expect == expect_mode::fail_pass && var.role == variant_role::fixed)) {
      if (failed)
        broken.push_back(std::string(r.expect == expect_mode::pass ? "variant " : "fixed variant ") + var.name +
                         " failed " + std::to_string(failed) + " of " + std::to_string(total) +
                         " cases (expected every case to pass); first: " + first_failed->id);
      continue;
    }
    if (r.expect == expect_mode::fail) {
      if (!failed)
        broken.push_back("variant " + var.name + " passed all " + std::to_string(total) +
                         " cases (expected at least one failure: the variant is not caught)");
      continue;
    }

    // fail-pass, buggy or other: control cases must pass here too.
    std::uint64_t control_failed = 0, control_total = 0;
    const case_row* first_control = nullptr;
    for (const auto& c : r.cases)
      if (must_pass_everywhere(c)) {
        ++control_total;
        if (!c.passed[v]) {
          ++control_failed;
          if (!first_control) first_control = &c;
        }
      }
    if (control_failed)
      broken.push_back(std::string(to_string(var.role)) + " variant " + var.name + " failed " +
                       std::to_string(control_failed) + " of " + std::to_string(control_total) +
                       " control case(s) (controls must pass on every variant); first: " + first_control->id);
    if (var.role != variant_role::buggy) continue;

    std::uint64_t must_fail_passed = 0;
    const case_row* first_must_fail = nullptr;
    for (const auto& c : r.cases)
      if (c.buggy == on_buggy::fail && c.source != source_kind::control && c.passed[v]) {
        ++must_fail_passed;
        if (!first_must_fail) first_must_fail = &c;
      }
    if (must_fail_passed)
      broken.push_back("buggy variant " + var.name + " passed " + std::to_string(must_fail_passed) +
                       " case(s) that must fail on it; first: " + first_must_fail->id);

    if (!check_must_catch) continue;
    for (source_kind k : r.must_catch) {
      std::uint64_t kind_total = 0, kind_failed = 0;
      for (const auto& c : r.cases)
        if (c.source == k) {
          ++kind_total;
          if (!c.passed[v]) ++kind_failed;
        }
      if (kind_total == 0) {
        if (!r.filtered)
          broken.push_back("no " + std::string(to_string(k)) + " case ran, so the probe cannot show that buggy variant " +
                           var.name + " fails on " + std::string(to_string(k)) + " cases");
      } else if (kind_failed == 0) {
        broken.push_back("buggy variant " + var.name + " failed no " + std::string(to_string(k)) + " case (" +
                         count_line(0, kind_total) + "): the probe no longer catches its bug there");
      }
    }
  }
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
  // Views into r.cases; consecutive cases mostly share a row, so the last row is tried before the map.
  std::unordered_map<std::string_view, std::size_t> row_of;
  std::string_view last_row;
  std::size_t last_index = 0;
  for (const auto& c : r.cases) {
    const std::string_view row = c.group.empty() ? to_string(c.source) : std::string_view(c.group);
    std::size_t index = last_index;
    if (t.rows.empty() || row != last_row) {
      auto [it, fresh] = row_of.try_emplace(row, t.rows.size());
      if (fresh) {
        t.rows.emplace_back(row);
        t.cells.emplace_back(r.variants.size());
      }
      index = it->second;
      last_row = row;
      last_index = index;
    }
    auto& line = t.cells[index];
    for (std::size_t v = 0; v < r.variants.size(); ++v) {
      ++line[v].total;
      line[v].passed += c.passed[v] ? 1 : 0;
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
