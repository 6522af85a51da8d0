// fa-k00-combine-race: process_tile's combine loop reuses tile_Q; upstream ends a k00 iteration with a barrier only
// when np > 1, and the stream-k loop has no barrier between tiles. Every race-prone config runs under every
// scheduling policy with the race detector on (the CPU emulator's, or on --backend hip under tileprobe's AMDGPU simulator
// the machine's: the same policies at LDS/global memory instructions and barriers, an LDS race detector on the compiled
// code); on a real GPU the policy is only a label and there is no detector; controls (np > 1; one combine iteration with one
// tile per block) must pass on upstream too. Which kernel kind each race lives in (kernels/fattn/api.h kernel_kind):
// the k00 race in all three; the inter-tile race only in f16 and KVARN-K/original-V, since the KVARN/KVARN kernel's
// entry barrier already separates the tiles of a block (that group shows it: fixed-minus-0002 passes there).
// Bound derivation: probes/fa_support/fa_support.h.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <map>
#include <optional>
#include <set>
#include <string>

#include "probes/fa_support/fa_input.h"
#include "probes/fa_support/fa_support.h"
#include "simt/cpu/emulator.h"
#include "simt/registry.h"

namespace {
using namespace fa_probe;
using tp::cpu::policy;
using tp::probe::case_def;
using tp::probe::case_list;
using tp::probe::source_kind;

struct race_case {
  geometry g;
  policy sched = policy::adversarial;
  std::uint64_t sched_seed = 0;
};

const char* const probe_name = "fa-k00-combine-race";
const policy all_policies[] = {policy::in_order, policy::reverse, policy::random, policy::adversarial};

std::string case_id(const race_case& c) {
  auto n = geometry_id(probe_name, c.g);
  n("sched", tp::cpu::to_string(c.sched));
  if (c.sched == policy::random) n("sseed", c.sched_seed);
  return n.str();
}

void add(case_list& out, const race_case& c, std::string group, tp::probe::on_buggy b = tp::probe::on_buggy::any) {
  out.push_back({.id = case_id(c), .group = std::move(group), .buggy = b, .payload = c});
}

// Every policy, random twice (two schedules).
void add_all_policies(case_list& out, geometry g, const std::string& group,
                      tp::probe::on_buggy b = tp::probe::on_buggy::any) {
  for (policy p : all_policies) {
    add(out, {g, p, 0}, group, b);
    if (p == policy::random) add(out, {g, p, 1}, group, b);
  }
}

// No tail: the race lives in the body pass, and without the tail merge the body output does not depend on the
// whole-tile meta (bug 0003), so this probe sees the races alone.
geometry geo(const char* cfg, int tiles, int cus, tp::fattn::kernel_kind kernel, int n_kv = 128, int n_tail = 0) {
  geometry g;
  g.config = tp::fattn::find_config(cfg);
  g.kernel = kernel;
  g.n_q = tiles * configs[g.config].ncols;
  g.n_kv = n_kv;
  g.n_tail = n_tail;
  g.cus = cus;
  return g;
}

using tp::fattn::kernel_kind;
const std::string group_k00 = "np=1, >=2 combine iterations (k00 race), kvarn-kvarn";
std::string group_tile(kernel_kind k) {
  return std::string("np=1, >=2 tiles/block (inter-tile race), ") + tp::fattn::to_string(k);
}
const std::string group_records =
    "np=1, >=2 combine iterations (k00 race), kvarn-kvarn, K/V groups from the tree's own 4-bit records";
const std::string group_entry = "np=1, >=2 tiles/block, kvarn-kvarn: entry barrier, k00 race only";
const std::string group_np2 = "np>1 (barrier fires) - control";
const std::string group_one = "np=1, 1 iteration (Q stride = combine stride) - control";
const std::string group_fix = "real weights (fixture), kvarn-kvarn";
const std::string group_live = "D128 (live before PR #149): np=1, 1 combine iteration, >=2 tiles/block, f16";

}  // namespace

int main(int argc, char** argv) {
  using namespace tp::probe;
  app probe(probe_name, "process_tile reuses tile_Q for the k00 combine; the end-of-iteration barrier fires only "
                        "for np > 1 and there is no barrier between tiles of one stream-k block");
  probe.family("fattn").default_variants("upstream,fixed").buggy({"upstream"}).fixed({"fixed"})
      .must_catch({source_kind::adversarial}).default_fuzz(8, 1).skew_points();

  common_state st;
  data_cache cache(64);  // a run's geometries are few and small
  // Configs the device cannot launch (shared memory per block) leave every source's list, named in the run's notes.
  const auto fit = [&probe, &st](case_list& out) {
    st.fit.leave_out<race_case>(probe, out, [](const race_case& c) { return c.g.config; });
  };
  // A run selecting a tree variant (fa_support tree_run) takes this list instead of the sources' own: the same races
  // on the GQA-packed instances the tree variants build (tree_geometry: 8 Q heads of one K/V head per tile), each
  // geometry under the adversarial policy and one random schedule (the simulator costs ~100x the emulator per tile).
  const auto tree_list = [&probe](source_kind kind, case_list& out) {
    if (!tree_run(probe)) return false;
    const auto add_tree = [&out](const geometry& g, const std::string& group, tp::probe::on_buggy b) {
      for (const auto& [p, seed] : {std::pair{policy::adversarial, 0}, std::pair{policy::random, 1}})
        add(out, {g, p, std::uint64_t(seed)}, "tree: " + group, b);
    };
    if (kind == source_kind::adversarial) {
      // D256 (live with PR #149's route): the k00 race inside one tile, whole on one block and split over the uniform
      // fixup; the inter-tile race in the f16 kernel (4 whole tiles on 2 blocks; 5 tiles: general fixup); the KVarN
      // kernel's entry barrier with 4 tiles on 2 blocks (the k00 race only).
      for (int cus : {1, 48}) add_tree(tree_geometry("rdna-d256-ncols64", 1, cus, kernel_kind::kvarn_kvarn), group_k00,
                                       tp::probe::on_buggy::fail);
      for (int tiles : {4, 5})
        add_tree(tree_geometry("rdna-d256-ncols64", tiles, 2, kernel_kind::f16), group_tile(kernel_kind::f16),
                 tp::probe::on_buggy::fail);
      add_tree(tree_geometry("rdna-d256-ncols64", 4, 2, kernel_kind::kvarn_kvarn), group_entry,
               tp::probe::on_buggy::fail);
      // The k00 race in one tile whose K/V come through the KVarN loader's record path: 4 groups, 1 and 2 stored as
      // 4-bit records by the tree's own store kernels (fa_support records_bits), the oracle over their decoding. The
      // race does not live in the record path; the case shows the real loader reading records, judged as the others.
      geometry records = tree_geometry("rdna-d256-ncols64", 1, 1, kernel_kind::kvarn_kvarn, 512);
      records.records_bits = 4;
      records.kvarn = false;
      add_tree(records, group_records, tp::probe::on_buggy::fail);
      // D128, the route live before PR #149 (np 1, one combine iteration), with several tiles per stream-k block: the
      // question of kernels/fattn_tree/README.md ("does the shipped pre-fix kernel race?"). Not a control: the answer
      // is the run's, on whichever variant, and a fixed variant must still pass.
      for (int tiles : {4, 5})
        add_tree(tree_geometry("rdna-d128-ncols64", tiles, 2, kernel_kind::f16), group_live, tp::probe::on_buggy::any);
    }
    return true;
  };
  probe.source(source_kind::adversarial, [&fit, &tree_list](case_list& out) {
    if (tree_list(source_kind::adversarial, out)) return fit(out);
    // one tile: whole (1 block) and split over the uniform stream-k fixup (iter_k blocks), on the KVARN/KVARN kernel
    // ROCm runs (the k00 race is inside one tile: every kernel kind has it)
    for (const char* cfg : {"rdna-d256-ncols64", "rdna-d512-ncols64", "rdna-d256-ncols128"})
      for (int cus : {1, 48}) add_all_policies(out, geo(cfg, 1, cus, kernel_kind::kvarn_kvarn), group_k00);
    // two whole tiles per block (no fixup), and 5 tiles over 2 blocks (general fixup: whole tiles, then an is_fixup
    // segment): the next tile's P0 Q load (row stride DKQ+8) lands on combine rows (stride 2*nbatch_combine+8) that
    // other warps read back in the last iteration, which ends without a barrier when np == 1. Only the kernels with
    // no entry barrier can race so: f16 and KVARN-K/original-V (CUDA's original-V domain).
    for (kernel_kind k : {kernel_kind::f16, kernel_kind::kvarn_k_original_v})
      for (const char* cfg : {"rdna-d256-ncols64", "rdna-d512-ncols64"}) {
        add_all_policies(out, geo(cfg, 4, 2, k), group_tile(k));
        add_all_policies(out, geo(cfg, 5, 2, k), group_tile(k));
      }
    // The same geometries on KVARN/KVARN: its entry barrier orders the next tile's P0 after this tile's read-back, so
    // only the k00 race is left (upstream still fails; fixed-minus-0002 passes: ctest pass.fixed-minus-0002.kvarn-kvarn).
    add_all_policies(out, geo("rdna-d256-ncols64", 4, 2, kernel_kind::kvarn_kvarn), group_entry);
    add_all_policies(out, geo("rdna-d256-ncols64", 5, 2, kernel_kind::kvarn_kvarn), group_entry);
    fit(out);
  });
  probe.source(source_kind::control, [&fit, &tree_list](case_list& out) {
    if (tree_list(source_kind::control, out)) return fit(out);
    for (const char* cfg : {"rdna-d256-ncols32", "rdna-d256-ncols64-retuned"})
      add_all_policies(out, geo(cfg, 5, 2, kernel_kind::f16), group_np2);
    // One combine iteration (nbatch_combine = DKQ/2) makes the combine row stride equal the Q row stride, and P0's
    // warp w writes exactly the rows warp w read back: no other warp's bytes, so no race even with several tiles per
    // block, even in the f16 kernel, which has no entry barrier (our answer to fattn-kernel.md §13 Q3 for DKQ == DV;
    // DKQ != DV would differ).
    for (const char* cfg : {"rdna-d128-ncols64", "ampere-d256-ncols64"}) {
      add_all_policies(out, geo(cfg, 4, 2, kernel_kind::f16), group_one);
      add_all_policies(out, geo(cfg, 5, 2, kernel_kind::f16), group_one);
    }
    fit(out);
  });
  probe.source(source_kind::fixture, [&fit, &tree_list](case_list& out) {
    if (tree_list(source_kind::fixture, out)) return fit(out);
    // face-api conv filters as Q/K/V (head dim 256), Q gain 16 for a peaked softmax
    for (const char* cfg : {"rdna-d256-ncols64", "rdna-d256-ncols128"}) {
      geometry g = geo(cfg, 4, 2, kernel_kind::kvarn_kvarn, 256);
      g.data = "fixture";
      g.q_gain = 16;
      add(out, {g, policy::adversarial, 0}, group_fix);
      add(out, {g, policy::random, 7}, group_fix);
    }
    fit(out);
  });
  probe.fuzz([&fit, &probe](std::uint64_t seed, case_list& out) {
    rng r(seed);
    race_case c;
    if (tree_run(probe)) {
      // a tree instance (instances.h), 1..4 tiles of 8 tokens x 8 Q heads, ragged Q heads (gqa 5..8) sometimes
      const std::pair<const char*, kernel_kind> built[] = {{"rdna-d256-ncols64", kernel_kind::kvarn_kvarn},
                                                           {"rdna-d256-ncols64", kernel_kind::f16},
                                                           {"rdna-d128-ncols64", kernel_kind::f16}};
      const auto& [cfg, kind] = built[r.below(3)];
      c.g = tree_geometry(cfg, int(r.range(1, 4)), 1, kind);
      c.g.gqa -= int(r.below(4));
    } else {
      c.g.config = int(r.below(tp::fattn::n_configs));
      c.g.n_q = int(r.range(1, 4) * configs[c.g.config].ncols - r.below(3) * 7);  // ragged last tile sometimes
      c.g.kernel = kernel_kind(r.below(3));
    }
    c.g.n_kv = int(r.range(1, 2)) * 128;
    c.g.n_tail = 0;
    c.g.cus = int(r.range(1, 4));
    c.g.data_seed = r.next() & 0xffff;
    c.sched = all_policies[r.below(4)];
    c.sched_seed = r.next() & 0xffff;
    out.push_back({.id = geometry_id(probe_name, c.g)("sched", tp::cpu::to_string(c.sched))("sseed", c.sched_seed)
                             .seed(seed)
                             .str(),
                   .seed = seed,
                   .payload = c});
    fit(out);
  });

  install_common(probe, st, probe_name, "adversarial", 0, {});
  probe.runner([&probe, &st, &cache](const case_def& cd, const variant& v) {
    const race_case& c = cd.as<race_case>();
    st.fit.require(probe, c.g.config, cd.id);  // --input or a fuzz id can name a config the device cannot launch
    const auto data = cache.get(c.g);
    const auto& ops = v.ops_as<tp::fattn::ops>();
    const tp::backend be = backend_named(probe.opts().backend);
    schedule_case(be, c.sched, c.sched_seed);
    const tp::fattn::device_model dev{c.g.cus, c.g.occupancy, true};
    const auto t0 = std::chrono::steady_clock::now();
    const auto r = ops.run(c.g.config, data->problem(c.g), dev, tp::fattn::run_options{.with_tail_merge = c.g.n_tail > 0});
    st.bench.add(v.name, r.plan.ntiles, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    const auto rc = check_rows(r.out, *data, dv(c.g));
    outcome o;
    const auto hazards = take_hazards(be, 4);
    if (hazards) o.hazards = *hazards;
    o.pass = rc.wrong.empty() && o.hazards.total() == 0;
    o.metric_max("max_abs_err", rc.max_err).metric_max("err_over_bound", rc.max_err / data->bound);
    o.metric_sum("wrong_rows", double(rc.wrong.size())).metric_sum("hazards", double(o.hazards.total()));
    const auto& k = configs[c.g.config];
    int whole = 0, multi = 0;
    for (int n : r.tile_blocks) whole += n == 1;
    for (int b = 0; b < r.plan.blocks; ++b) {
      const long long s = (long long)b * r.plan.units / r.plan.blocks, e = (long long)(b + 1) * r.plan.units / r.plan.blocks;
      if (e > s && (e - 1) / r.plan.iter_k > s / r.plan.iter_k) ++multi;
    }
    if (k.np() == 1 && k.combine_iters() > 1) o.count("np1.multi_iteration_segments", r.plan.blocks);
    o.count("tiles.whole", whole).count("tiles.split", r.tile_blocks.size() - whole).count("blocks.multi_tile", multi);
    o.note(std::string("kernel ") + tp::fattn::to_string(c.g.kernel) +
           (tp::fattn::has_entry_barrier(c.g.kernel) ? " (entry barrier between tiles)" : " (no entry barrier)"));
    o.note("plan: " + std::to_string(r.plan.ntiles) + " tiles x " + std::to_string(r.plan.iter_k) + " KV batches on " +
           std::to_string(r.plan.blocks) + " blocks, fixup " + tp::fattn::to_string(r.plan.fixup) + ", np " +
           std::to_string(k.np()) + ", combine iterations " + std::to_string(k.combine_iters()) + ", blocks with >=2 tiles " +
           std::to_string(multi));
    char line[256];
    std::snprintf(line, sizeof line, "wrong rows %zu of %zu (bound %.3g, max err %.3g = %.3g x bound), hazards %llu",
                  rc.wrong.size(), data->ref.size() / dv(c.g), data->bound, rc.max_err, rc.max_err / data->bound,
                  (unsigned long long)o.hazards.total());
    o.note(line);
    if (!rc.wrong.empty()) o.note("first wrong row " + std::to_string(*rc.wrong.begin()));
    return o;
  });
  probe.shrinker([](const case_def& cd) {
    const race_case& c = cd.as<race_case>();
    return shrink_cases<race_case>(cd, c.g, [&c](const geometry& g) { return race_case{g, c.sched, c.sched_seed}; });
  });
  probe.input([](const std::string& path, case_list& out) {
    const input_case ic = read_input(path, probe_name, true);
    race_case c{ic.g, *ic.sched, ic.sched_seed};
    auto n = geometry_id(probe_name, c.g);
    n("sched", tp::cpu::to_string(c.sched));
    if (c.sched == policy::random) n("sseed", c.sched_seed);
    if (!c.g.given) n("src", ic.label);
    out.push_back({.id = n.str(), .group = "input", .payload = c});
  });
  probe.input_text([](const case_def& cd) -> std::optional<std::string> {
    const race_case& c = cd.as<race_case>();
    return fa_probe::input_text(probe_name, c.g, c.sched, c.sched_seed);
  });
  return probe.main(argc, argv);
}
