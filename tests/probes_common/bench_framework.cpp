// The framework's own cost per case: a probe whose "kernel" does nothing, so the wall time of app::main is case
// generation (ids with seeds), running (outcomes, summaries, case rows), the verdict and the reports.
//   tp-bench-probe-framework --fuzz 1000000 --variant a,b --expect pass [--typical] [--report json --out F]
// prints "framework: N cases x V variants in T s: X cases/s" on stderr. --typical makes each outcome carry what a
// real probe's does (two metrics, a coverage counter; a detail line on failure only).
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "probes/common/probe.h"

namespace {
struct noop_ops {
  int tag;
};
const noop_ops ops_a{1}, ops_b{2};
bool typical = false;
}  // namespace

int main(int argc, char** argv) {
  using namespace tp::probe;
  app probe("bench-framework", "no-op kernel: measures the probe framework's per-case overhead");
  probe.family("noop").default_variants("a").buggy({}).fixed({"a", "b"}).must_catch({}).default_fuzz(100000, 1);
  probe.use_variant_provider([](std::string_view) {
    return std::vector<registered_variant>{{"noop", "a", "cpu", &ops_a}, {"noop", "b", "cpu", &ops_b}};
  });
  probe.use_backend_hooks({[](std::string_view b) { return b == "cpu"; }, [](std::string_view) { return "none"; }});
  probe.cli().add_flag("--typical", typical, "outcomes carry two metrics and a coverage counter, like a real probe's");
  probe.fuzz([](std::uint64_t seed, case_list& out) {
    rng r(seed);
    const auto k = r.below(4) * 32 + 32;
    out.push_back({.id = case_name("noop")("dtype", "int8")("K", k).seed(seed), .seed = seed, .payload = k});
  });
  probe.runner([](const case_def& c, const variant& v) {
    outcome o;
    o.pass = true;
    if (typical) {
      const auto k = c.as<std::uint64_t>();
      o.metric_max("max_abs_err", 0.0).metric_sum("wrong", 0.0);
      o.count(k == 32 ? "tiles.k32" : "tiles.wide");
      if (!o.pass) o.note("never");
      (void)v;
    }
    return o;
  });
  const auto t0 = std::chrono::steady_clock::now();
  const int rc = probe.main(argc, argv);
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const auto& o = probe.opts();
  if (rc == 0 && !o.list_cases && !o.list_variants) {
    const double runs = double(o.fuzz) * double(o.variants.size());
    std::fprintf(stderr, "framework: %llu cases x %zu variants in %.3f s: %.0f cases/s\n",
                 (unsigned long long)o.fuzz, o.variants.size(), s, runs / s);
  }
  return rc;
}
