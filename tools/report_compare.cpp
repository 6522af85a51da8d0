// tileprobe-report --compare-backends A,B: the same probe run on two backends must agree, variant by variant, on what
// the kernels computed and what the verdicts were. The ck probes record d_digest (a checksum of every tile's raw D
// bits) and d_digest_cases: equal digests over the same cases mean the two backends' machine code computed the same
// D bit for bit (integer and float paths alike). Every probe is compared on passed/failed counts per variant.
#include <map>
#include <string>
#include <vector>

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
}  // namespace

backend_comparison compare_backends(const std::vector<merged_run>& runs, const std::string& a, const std::string& b) {
  backend_comparison out{a, b, {}, {}};
  std::map<std::string, const probe::run_record*> on_a, on_b;
  for (const auto& m : runs) {
    if (m.record.backend == a) on_a[run_key(m.record)] = &m.record;
    if (m.record.backend == b) on_b[run_key(m.record)] = &m.record;
  }
  for (const auto& [key, ra] : on_a) {
    const auto it = on_b.find(key);
    if (it == on_b.end()) {
      out.problems.push_back(ra->probe + ": run on " + a + " but not on " + b + " with the same cases and variants");
      continue;
    }
    const auto& rb = *it->second;
    for (std::size_t i = 0; i < ra->variants.size(); ++i) {
      const auto& va = ra->variants[i];
      const auto& vb = rb.variants[i];
      backend_comparison::row row{ra->probe, va.name, {}, true};
      for (const std::string key2 : {"d_digest", "d_digest_cases"}) {
        const std::string xa = fmt_metric(va, key2), xb = fmt_metric(vb, key2);
        row.cells.push_back({key2, xa, xb});
        row.equal &= xa == xb;
      }
      for (const auto& [what, xa, xb] :
           {std::tuple{"passed", va.passed, vb.passed}, std::tuple{"failed", va.failed, vb.failed}}) {
        row.cells.push_back({what, std::to_string(xa), std::to_string(xb)});
        row.equal &= xa == xb;
      }
      if (!row.equal) out.problems.push_back(ra->probe + " " + va.name + ": " + a + " and " + b + " differ");
      out.rows.push_back(std::move(row));
    }
  }
  for (const auto& [key, rb] : on_b)
    if (!on_a.count(key))
      out.problems.push_back(rb->probe + ": run on " + b + " but not on " + a + " with the same cases and variants");
  return out;
}

}  // namespace tp::report
