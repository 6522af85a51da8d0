// tp-bench-amdgpu-sim --fa-tree: one fa probe case through beellama's own kernels (the tree variant tree-fixed,
// kernels/fattn_tree) on the simulator, beside the model's kernel (fixed) on the simulator and the model on the CPU
// emulator, in one process, alternating: tiles/s of each (the variant's run(): body, fixups; no oracle), and on the
// simulator the wave-instructions/s (tpHipSimExecutedInstructions over the run), the median of `repeat` runs with
// the spread, and the ratios side by side. The case is the race probe's tree case "4 tiles on 2 blocks" (D256 KVarN,
// 8 tokens x 8 Q heads per tile, 128 KV rows), run as the probe runs it: adversarial schedule, race detector on.
// Runs in a child with TILEPROBE_HIP=sim:<arch> (the runtime picks the simulator at load time, before main).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "kernels/fattn/api.h"
#include "probes/fa_support/fa_support.h"
#include "simt/hip/runtime_ext.h"
#include "simt/host.h"
#include "simt/registry.h"

int fa_tree_rates(unsigned repeat) {
  struct runner {
    const char* label;
    const char* variant;
    tp::backend backend;
    std::vector<double> tiles_per_s, winstr_per_s;
    const tp::fattn::ops* ops = nullptr;
  };
  std::vector<runner> runs = {{"model fixed, CPU emulator", "fixed", tp::backend::cpu, {}, {}},
                              {"model fixed, simulator", "fixed", tp::backend::hip, {}, {}},
                              {"tree-fixed (beellama's kernels), simulator", "tree-fixed", tp::backend::hip, {}, {}}};
  if (!tpHipRuntimeIsSimulator()) {
    std::fprintf(stderr, "bench --fa-tree: needs TILEPROBE_HIP=sim:<arch> (the simulator)\n");
    return 2;
  }
  for (auto& r : runs)
    if (!(r.ops = tp::find_variant<tp::fattn::ops>("fattn", r.variant, r.backend))) {
      std::printf("fa tree  %s: not built (-DTP_FA_ROOT, TP_HIP_VARIANTS with fattn/%s)\n", r.variant, r.variant);
      return 0;
    }
  const fa_probe::geometry g = fa_probe::tree_geometry("rdna-d256-ncols64", 4, 2, tp::fattn::kernel_kind::kvarn_kvarn);
  const auto data = fa_probe::prepare(g);
  const tp::fattn::device_model dev{g.cus, g.occupancy, true};
  for (unsigned i = 0; i <= repeat; ++i)  // run 0 warms up (the simulator decodes each code object at its first launch)
    for (auto& r : runs) {
      (void)tp::set_schedule(r.backend, tp::schedule_policy::adversarial, 0, true);
      const unsigned long long w0 = tpHipSimExecutedInstructions();
      const auto t0 = std::chrono::steady_clock::now();
      const auto res = r.ops->run(g.config, data->problem(g), dev, tp::fattn::run_options{.with_tail_merge = false});
      const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      const unsigned long long w = tpHipSimExecutedInstructions() - w0;
      (void)tp::take_races(r.backend);
      if (i == 0) continue;
      r.tiles_per_s.push_back(res.plan.ntiles / s);
      if (r.backend == tp::backend::hip) r.winstr_per_s.push_back(double(w) / s);
    }
  const auto median = [](std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v.empty() ? 0.0 : v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
  };
  const auto spread = [](const std::vector<double>& v) {
    const auto [lo, hi] = std::minmax_element(v.begin(), v.end());
    char s[64];
    std::snprintf(s, sizeof s, "[%.3g..%.3g]", *lo, *hi);
    return std::string(s);
  };
  std::printf("\nfa tree: %s (4 tiles on 2 blocks, D256 KVarN, 8 tokens x 8 Q heads per tile, 128 KV rows; adversarial "
              "schedule, race detector on), median of %u alternating runs [spread]\n",
              fa_probe::geometry_id("fa-k00-combine-race", g).str().c_str(), repeat);
  std::printf("  %-46s %12s %-20s %16s %-20s\n", "", "tiles/s", "[spread]", "M wave-instr/s", "[spread]");
  for (auto& r : runs) {
    std::vector<double> m;
    for (double x : r.winstr_per_s) m.push_back(x / 1e6);
    std::printf("  %-46s %12.2f %-20s", r.label, median(r.tiles_per_s), spread(r.tiles_per_s).c_str());
    if (m.empty())
      std::printf(" %16s %-20s\n", "-", "(CPU emulator)");
    else
      std::printf(" %16.2f %-20s\n", median(m), spread(m).c_str());
  }
  const double cpu = median(runs[0].tiles_per_s), model = median(runs[1].tiles_per_s),
               tree = median(runs[2].tiles_per_s);
  std::printf("  ratios (tiles/s): model simulator / model CPU %.3f, tree simulator / model simulator %.3f, "
              "tree simulator / model CPU %.3f\n",
              model / cpu, tree / model, tree / cpu);
  return 0;
}
