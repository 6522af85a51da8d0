// tileprobe-report --compare-backends A,B: the same probe run on two backends must agree, variant by variant, on what
// the kernels computed and what the verdicts were. The ck probes record d_digest (a checksum of every tile's raw D
// bits) and d_digest_cases: equal digests over the same cases mean the two backends' machine code computed the same
// D bit for bit (integer and float paths alike). fa-missing-tile-meta records wrong_rows_digest (each case's wrong
// rows) and wrong_rows_digest_cases: equal, the same rows were wrong. Every probe is compared
// on passed/failed counts per variant.
#include <algorithm>
#include <cstdio>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include <fmt/format.h>

#include "tools/report_merge.h"

namespace tp::report {

namespace {
std::string fmt_metric(const probe::variant_summary& s, const std::string& key) {
  const auto it = s.metrics.find(key);
  if (it == s.metrics.end()) return "-";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.17g", it->second.value);
  return buf;
}
// The settings that make two runs of one probe the same run on two backends.
std::string run_key(const probe::run_record& r) {
  std::string variants;
  for (const auto& v : r.variants) variants += v.name + ",";
  return r.probe + "|" + std::to_string(r.seed) + "|" + std::to_string(r.fuzz) + "|" + variants + "|" +
         std::to_string(r.unsharded_cases) + "|" + (r.filtered ? "filtered" : "all");
}

// Two runs of one probe with the same cases, variant by variant, into `out` (whose a and b name the two sides).
void compare_runs(const probe::run_record& ra, const probe::run_record& rb, backend_comparison& out) {
  for (std::size_t i = 0; i < ra.variants.size(); ++i) {
    const auto& va = ra.variants[i];
    const auto& vb = rb.variants[i];
    backend_comparison::row row{ra.probe, va.name, {}, true};
    for (const std::string key : {"d_digest", "d_digest_cases", "wrong_rows_digest", "wrong_rows_digest_cases"}) {
      const std::string xa = fmt_metric(va, key), xb = fmt_metric(vb, key);
      row.cells.push_back({key, xa, xb});
      row.equal &= xa == xb;
    }
    for (const auto& [what, xa, xb] :
         {std::tuple{"passed", va.passed, vb.passed}, std::tuple{"failed", va.failed, vb.failed}}) {
      row.cells.push_back({what, std::to_string(xa), std::to_string(xb)});
      row.equal &= xa == xb;
    }
    if (!row.equal) out.problems.push_back(ra.probe + " " + va.name + ": " + out.a + " and " + out.b + " differ");
    out.rows.push_back(std::move(row));
  }
}
}  // namespace

backend_comparison compare_backends(const std::vector<merged_run>& runs, const std::string& a, const std::string& b) {
  backend_comparison out{a, b, {}, {}, {}};
  std::map<std::string, const probe::run_record*> on_a, on_b;
  for (const auto& m : runs) {
    if (m.record.backend == a) on_a[run_key(m.record)] = &m.record;
    if (m.record.backend == b) on_b[run_key(m.record)] = &m.record;
  }
  for (const auto& [key, ra] : on_a) {
    const auto it = on_b.find(key);
    if (it == on_b.end())
      out.problems.push_back(ra->probe + ": run on " + a + " but not on " + b + " with the same cases and variants");
    else
      compare_runs(*ra, *it->second, out);
  }
  for (const auto& [key, rb] : on_b)
    if (!on_a.count(key))
      out.problems.push_back(rb->probe + ": run on " + b + " but not on " + a + " with the same cases and variants");
  return out;
}

backend_comparison compare_reports(const std::vector<std::pair<loaded_report, loaded_report>>& pairs) {
  backend_comparison out;
  if (pairs.empty()) return out;
  // The sides are named after their backends; where both are the same (ci/gpu --cpu-dry-run stands cpu in for cuda)
  // the names say which side is which.
  std::set<std::string> left, right;
  for (const auto& [x, y] : pairs) left.insert(x.record.backend), right.insert(y.record.backend);
  const auto side = [](const std::set<std::string>& s, const char* fallback) {
    return s.size() == 1 ? *s.begin() : std::string(fallback);
  };
  out.a = side(left, "first");
  out.b = side(right, "second");
  if (out.a == out.b) out.a += " (first)", out.b += " (second)";
  for (const auto& [x, y] : pairs) {
    if (run_key(x.record) != run_key(y.record))
      out.problems.push_back(x.path + " and " + y.path +
                             ": not the same run (probe, seed, fuzz, variants and case list must agree)");
    else
      compare_runs(x.record, y.record, out);
  }
  return out;
}

namespace {
std::uint64_t case_runs(const probe::run_record& r) {
  std::uint64_t n = 0;
  for (const auto& v : r.variants) n += v.passed + v.failed;
  return n;
}
// Host threads of a run: the bench figure host_threads where the probe recorded it, else its --jobs, else 1.
unsigned host_threads(const merged_run& m) {
  if (const auto it = m.record.bench.find("host_threads"); it != m.record.bench.end() && it->second >= 1)
    return unsigned(it->second);
  if (m.commands.empty()) return 1;
  const auto words = shell_words(m.commands.front());
  for (std::size_t i = 0; i + 1 < words.size(); ++i)
    if (words[i] == "--jobs") return unsigned(std::max(1, std::atoi(words[i + 1].c_str())));
  return 1;
}
double figure(const probe::run_record& r, const char* name) {
  const auto it = r.bench.find(name);
  return it == r.bench.end() ? 0.0 : it->second;
}
}  // namespace

void add_throughput(backend_comparison& into, const std::vector<merged_run>& runs) {
  // The reference of each probe: its cpu run in one process (one shard) with one host thread, the emulator on one core.
  std::map<std::string, const merged_run*> cpu_one;
  for (const auto& m : runs)
    if (m.record.backend == "cpu" && m.sources.size() <= 1 && host_threads(m) == 1 && !cpu_one.count(m.record.probe))
      cpu_one[m.record.probe] = &m;
  for (const auto& m : runs) {
    const auto& r = m.record;
    const double seconds = m.slowest_shard_seconds > 0 ? m.slowest_shard_seconds : r.run_seconds;
    if (seconds <= 0) {
      into.problems.push_back(r.probe + " on " + r.backend + ": no run_seconds, so no rate");
      continue;
    }
    const unsigned shards = unsigned(std::max<std::size_t>(1, m.sources.size())), jobs = host_threads(m);
    backend_comparison::rate rate;
    rate.probe = r.probe;
    rate.backend = r.backend;
    rate.what = shards > 1 ? fmt::format("{} shards side by side", shards) : fmt::format("1 process, --jobs {}", jobs);
    rate.case_runs = case_runs(r);
    rate.seconds = seconds;
    rate.case_runs_per_second = double(rate.case_runs) / seconds;
    rate.host_threads = std::max(shards, jobs);
    const auto ref = cpu_one.find(r.probe);
    if (ref != cpu_one.end() && ref->second != &m && ref->second->record.run_seconds > 0) {
      const auto& c = ref->second->record;
      rate.vs_cpu_one_process = rate.case_runs_per_second / (double(case_runs(c)) / c.run_seconds);
      // The bound from the reference run's own split: with T host threads and kernels that cost nothing, a run
      // cannot beat T x (kernels + host work) / host work per tile-case run.
      const double cpu = figure(c, "cpu_seconds"), tiles = figure(c, "tile_case_runs"),
                   host_us = figure(c, "host_cpu_us_per_tile_case_run");
      if (cpu > 0 && tiles > 0 && host_us > 0) {
        rate.cpu_us_per_tile_case_run = 1e6 * cpu / tiles;
        rate.host_us_per_tile_case_run = host_us;
        rate.at_most = double(rate.host_threads) * *rate.cpu_us_per_tile_case_run / host_us;
      }
    }
    into.rates.push_back(std::move(rate));
  }
}

}  // namespace tp::report
