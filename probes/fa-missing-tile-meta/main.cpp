// fa-missing-tile-meta: pre-fix, process_tile stores a whole tile's final (max, rowsum) into dst_final_meta only
// when !is_kvarn_kv; the stream-k fixup never visits tiles done by one block, so those rows keep the memset's (0, 0)
// and the KVarN tail merge drops their body. The sweep over ubatch (query rows) on a gfx1100-like device moves the
// fixup from uniform (every tile split: clean) to general / none (whole tiles: wrong). Bound derivation: probes/fa_support/fa_support.h.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <CLI/CLI.hpp>

#include "probes/fa_support/fa_support.h"
#include "simt/cpu/emulator.h"
#include "simt/registry.h"

namespace {
using namespace fa_probe;
using tp::probe::case_def;
using tp::probe::case_list;
using tp::probe::source_kind;

tile_bench bench;
const char* probe_name = "fa-missing-tile-meta";
int cus = 96, occupancy = 1;
std::string meta_init = "memset";
constexpr int sweep_tail = 4;

std::shared_ptr<const prepared> data_for(const geometry& g) {
  static std::map<std::string, std::shared_ptr<const prepared>> cache;
  const std::string key = geometry_id("data", g).str();
  if (auto it = cache.find(key); it != cache.end()) return it->second;
  // Holds a whole run's data (a few MB per case): the variants of a batch, the shrinker and the reference re-run of a
  // counterexample all come back to the same geometries; shrink candidates beyond that evict everything.
  if (cache.size() > 32) cache.clear();
  return cache[key] = prepare(g);
}

tp::fattn::launch_plan plan_of(const geometry& g) {
  const auto* ops = tp::find_variant<tp::fattn::ops>("fattn", "fixed", tp::backend::cpu);
  if (!ops) throw tp::probe::usage_error("fattn variant `fixed` is not built");
  return ops->plan(g.config, prepared{}.problem(g), tp::fattn::device_model{g.cus, g.occupancy, true});
}

// What the probe asserts beyond pass/fail, checked after the run: a failing variant fails on exactly the rows of
// whole tiles (a superset when the hazard detector also saw a race), and those are exactly the rows whose body meta
// no kernel wrote.
std::vector<std::string> shape_violations;
struct sweep_point { int ub, tiles, blocks, whole; std::string fixup; bool failed; };
std::map<std::string, std::map<int, sweep_point>> sweep;  // config -> ub -> upstream result

// Whole tiles (covered by one block) predicted from the plan alone; the run checks it against the kernel's segments.
int predicted_whole_tiles(const geometry& g) {
  const auto lp = plan_of(g);
  std::vector<int> per_tile(lp.ntiles, 0);
  for (int b = 0; b < lp.blocks; ++b) {
    const long long s = (long long)b * lp.units / lp.blocks, e = (long long)(b + 1) * lp.units / lp.blocks;
    if (e > s) for (long long t = s / lp.iter_k; t <= (e - 1) / lp.iter_k; ++t) ++per_tile[t];
  }
  return int(std::count(per_tile.begin(), per_tile.end(), 1));
}

void add_case(case_list& out, geometry g, const char* group_prefix) {
  const auto lp = plan_of(g);
  const int whole = predicted_whole_tiles(g);
  const source_kind kind = whole == 0 ? source_kind::control : source_kind::adversarial;
  std::string group = std::string(group_prefix) + ", fixup " + tp::fattn::to_string(lp.fixup) +
                      (whole ? ", whole tiles" : ", all tiles split (control)");
  out.push_back({.id = geometry_id(probe_name, g)("ub", g.n_q).str(), .source = kind, .group = group, .payload = g});
}

}  // namespace

int main(int argc, char** argv) {
  using namespace tp::probe;
  app probe(probe_name, "whole-tile dst_final_meta stores are gated off for KVarN; the stream-k fixup skips tiles "
                        "done by one block, so the tail merge drops their body rows");
  probe.family("fattn").default_variants("upstream,fixed-minus-0003,fixed").buggy({"upstream", "fixed-minus-0003"})
      .fixed({"fixed"}).must_catch({source_kind::adversarial}).default_fuzz(4, 1);
  probe.cli().add_option("--cus", cus, "compute units of the gfx1100-like device (RX 7900 XTX: 96)");
  probe.cli().add_option("--occupancy", occupancy, "resident blocks per CU of the D256 kernels");
  probe.cli()
      .add_option("--meta-init", meta_init,
                  "body dst_final_meta before the body pass: memset (upstream's zeros) or none (no host write: "
                  "poisoned on cpu, uninitialised device memory on GPUs, for compute-sanitizer initcheck)")
      ->check(CLI::IsMember({"memset", "none"}))
      ->capture_default_str();

  // ubatch sweep: 4 KV heads (Qwen3.6-27B has n_head_kv = 4), one KVarN group of body rows, 4 f16 tail rows (the
  // tail only has to be a valid part of the merge; its length does not move the bug).
  probe.source(source_kind::adversarial, [](case_list& out) {
    // Only configs upstream runs race-free (np 2; np 1 with one combine iteration), so every wrong row is this bug's;
    // rdna-d256-ncols64 would add the k00 race (fa-k00-combine-race's business). Fixed points show each fixup kind;
    // the threshold pair is the first ub (a multiple of ncols) whose plan has a whole tile, and the ub just below,
    // so the run confirms the edge on upstream instead of assuming it.
    const std::pair<const char*, std::vector<int>> sweeps[] = {{"rdna-d256-ncols32", {32, 128, 256, 768}},
                                                               {"rdna-d128-ncols64", {64, 256}}};
    for (const auto& [cfg, fixed_ubs] : sweeps) {
      geometry g;
      g.config = tp::fattn::find_config(cfg);
      g.n_kv = 128;
      g.n_tail = sweep_tail;
      g.n_head = 4;
      g.cus = cus;
      g.occupancy = occupancy;
      const int ncols = configs[g.config].ncols;
      std::set<int> ubs(fixed_ubs.begin(), fixed_ubs.end());
      for (g.n_q = ncols; g.n_q <= 64 * ncols; g.n_q += ncols)
        if (predicted_whole_tiles(g) > 0) {
          if (g.n_q > ncols) ubs.insert(g.n_q - ncols);
          ubs.insert(g.n_q);
          break;
        }
      for (int ub : ubs) {
        g.n_q = ub;
        add_case(out, g, cfg);
      }
    }
  });
  probe.source(source_kind::fixture, [](case_list& out) {
    for (const char* cfg : {"rdna-d256-ncols32", "rdna-d128-ncols64"}) {
      geometry g;
      g.config = tp::fattn::find_config(cfg);
      g.n_q = 512;
      g.n_kv = 256;
      g.n_tail = 32;
      g.n_head = 2;
      g.cus = cus;
      g.occupancy = occupancy;
      g.data = "fixture";
      g.q_gain = 16;
      g.cus = 4;  // a small device, so 16 tiles on 4 blocks are whole (the id says cus=4)
      add_case(out, g, "real weights");
      out.back().source = source_kind::fixture;
      out.back().group = std::string("real weights (fixture) ") + cfg;
    }
  });
  probe.fuzz([](std::uint64_t seed, case_list& out) {
    rng r(seed);
    geometry g;
    const char* cfgs[] = {"rdna-d256-ncols32", "rdna-d128-ncols64", "rdna-d256-ncols64-retuned"};
    g.config = tp::fattn::find_config(cfgs[r.below(3)]);
    g.n_head = int(r.range(1, 4));
    g.n_q = int(r.range(1, 6) * configs[g.config].ncols - r.below(2) * 5);
    g.n_kv = 128;
    g.n_tail = int(r.range(1, 64));
    g.cus = int(r.range(2, 24));
    g.occupancy = int(r.range(1, 2));
    g.data_seed = r.next() & 0xffff;
    out.push_back({.id = geometry_id(probe_name, g)("ub", g.n_q).seed(seed).str(), .seed = seed, .payload = g});
  });

  probe.runner([&probe](const case_def& cd, const variant& v) {
    const geometry& g = cd.as<geometry>();
    const auto data = data_for(g);
    const bool cpu = probe.opts().backend == "cpu";
    if (cpu) {
      tp::cpu::run_options ro;
      ro.hazards = true;
      tp::cpu::set_run_options(ro);
      (void)tp::cpu::take_hazard_report();
    }
    const auto t0 = std::chrono::steady_clock::now();
    const bool meta_memset = meta_init == "memset";
    const auto r = v.ops_as<tp::fattn::ops>().run(g.config, data->problem(g),
                                                  tp::fattn::device_model{g.cus, g.occupancy, true},
                                                  tp::fattn::run_options{.memset_body_meta = meta_memset});
    bench.add(v.name, r.plan.ntiles, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    const auto rc = check_rows(r.out, *data, dv(g));
    outcome o;
    if (cpu) o.hazards = fa_probe::take_cpu_hazards(2);
    // With the memset the merge reads the host's zeros; without it, poison nobody wrote.
    (meta_memset ? o.unwritten.host_initialised : o.unwritten.never_written) = r.merge_unwritten_meta_reads;
    if (!r.first_unwritten_meta_read.empty()) o.unwritten.first.push_back(r.first_unwritten_meta_read);
    o.pass = rc.wrong.empty();

    const auto whole_rows = rows_of_tiles(g, r.tile_blocks, true);
    std::set<long long> unwritten_rows;
    for (std::size_t i = 0; i < r.body_meta_written.size(); ++i)
      if (!r.body_meta_written[i]) unwritten_rows.insert((long long)i);
    const int whole = int(std::count(r.tile_blocks.begin(), r.tile_blocks.end(), 1));
    // The host's whole-tile count (from the plan) must be what the kernel ran (its segment log): the row-set
    // assertion below compares against the host's count.
    std::vector<int> unflagged(r.plan.ntiles, 0);
    for (const auto& s : r.segments) unflagged[s.tile] += !s.needs_fixup && !s.is_fixup;
    if (!r.segments.empty() && int(std::count(unflagged.begin(), unflagged.end(), 1)) != whole)
      shape_violations.push_back(v.name + " " + cd.id + ": the kernel's whole segments differ from the plan's whole tiles");
    o.count("tiles.whole", whole).count("tiles.split", r.tile_blocks.size() - whole);
    o.count(std::string("fixup.") + tp::fattn::to_string(r.plan.fixup));
    o.metric_max("max_abs_err", rc.max_err).metric_max("err_over_bound", rc.max_err / data->bound);
    o.metric_max("rmse", rc.rmse).metric_sum("wrong_rows", double(rc.wrong.size()));
    o.metric_sum("rows_without_body_meta", double(unwritten_rows.size()));
    char line[320];
    std::snprintf(line, sizeof line,
                  "ub %d x %d heads: %d tiles x %d KV batches on %d blocks (%d CUs x %d), fixup %s: %d whole, %zu split",
                  g.n_q, g.n_head, r.plan.ntiles, r.plan.iter_k, r.plan.blocks, g.cus, g.occupancy,
                  tp::fattn::to_string(r.plan.fixup), whole, r.tile_blocks.size() - whole);
    o.note(line);
    const bool rows_are_whole = rc.wrong == whole_rows;
    std::snprintf(line, sizeof line,
                  "wrong rows %zu (whole-tile rows %zu, same set: %s), rows without body meta %zu, merge read "
                  "host-initialised meta %llu times, rmse %.3g, bound %.3g, hazards %llu",
                  rc.wrong.size(), whole_rows.size(), rows_are_whole ? "yes" : "no", unwritten_rows.size(),
                  (unsigned long long)r.merge_unwritten_meta_reads, rc.rmse, data->bound,
                  (unsigned long long)o.hazards.total());
    o.note(line);

    // The shape is this bug's signature, so it is demanded of the buggy-role variants only (a mutant may fail
    // differently and still be killed). On a GPU without the memset, the rows no kernel stored read undefined
    // memory: which of them come out wrong is not the probe's to predict (initcheck is the evidence there).
    if (!meta_memset && !cpu) {
      if (v.role == tp::probe::variant_role::buggy)
        o.note("--meta-init none on a GPU: rows without body meta read uninitialised memory; their values are "
               "undefined");
    } else if (v.role != tp::probe::variant_role::buggy) {
    } else if (!rc.wrong.empty()) {
      const bool raced = o.hazards.total() > 0;
      const bool superset = std::includes(rc.wrong.begin(), rc.wrong.end(), whole_rows.begin(), whole_rows.end());
      if (raced ? !superset : !rows_are_whole)
        shape_violations.push_back(v.name + " " + cd.id + ": failing rows are not " +
                                   (raced ? "a superset of" : "exactly") + " the whole-tile rows");
      // Written bits exist on the CPU backend only; on GPUs compute-sanitizer initcheck (--meta-init none) is the
      // evidence of which rows read meta no kernel stored.
      if (cpu && unwritten_rows != whole_rows)
        shape_violations.push_back(v.name + " " + cd.id + ": rows without body meta differ from whole-tile rows");
    } else if (!unwritten_rows.empty() && cpu) {  // meta missing, yet no row wrong: the probe would miss the bug
      shape_violations.push_back(v.name + " " + cd.id + ": rows without body meta, yet every row is right");
    }
    const bool sweep_case = cd.source != source_kind::fuzz && g.data == "random" && g.n_head == 4 && g.cus == cus &&
                            g.n_kv == 128 && g.n_tail == sweep_tail;  // not a shrink candidate
    if (v.name == "upstream" && sweep_case)
      sweep[configs[g.config].name][g.n_q] = {g.n_q, r.plan.ntiles, r.plan.blocks, whole,
                                               tp::fattn::to_string(r.plan.fixup), !o.pass};
    return o;
  });
  probe.shrinker([](const case_def& cd) {
    case_list out;
    for (const geometry& g : shrink_geometry(cd.as<geometry>()))
      out.push_back({.id = geometry_id(probe_name, g)("ub", g.n_q).str(), .source = cd.source, .group = cd.group,
                     .payload = g});
    return out;
  });
  if (int rc = fa_probe::maybe_ladder(argc, argv, probe_name, "in_order", 32); rc >= 0) return rc;
  int rc = probe.main(argc, argv);
  bench.print_if_asked(argc, argv);

  for (const auto& [cfg, points] : sweep) {
    int clean_max = 0, wrong_min = 0;
    std::fprintf(stderr, "ubatch sweep on upstream, %s, %d CUs x %d:\n  %6s %6s %6s %8s %6s %6s %s\n", cfg.c_str(), cus,
                 occupancy, "ub", "tiles", "blocks", "fixup", "whole", "split", "upstream");
    for (const auto& [ub, p] : points) {
      std::fprintf(stderr, "  %6d %6d %6d %8s %6d %6d %s\n", ub, p.tiles, p.blocks, p.fixup.c_str(), p.whole,
                   p.tiles - p.whole, p.failed ? "WRONG" : "clean");
      if (!p.failed && !wrong_min) clean_max = ub;
      if (p.failed && !wrong_min) wrong_min = ub;
    }
    if (wrong_min) std::fprintf(stderr, "  threshold: clean up to ub=%d, wrong from ub=%d\n", clean_max, wrong_min);
    else std::fprintf(stderr, "  threshold: clean at every ub swept\n");
  }
  if (!shape_violations.empty()) {
    std::fprintf(stderr, "%s: the failures do not have the bug's shape:\n", probe_name);
    for (const auto& s : shape_violations) std::fprintf(stderr, "  - %s\n", s.c_str());
    if (rc == 0) rc = 1;
  }
  return rc;
}
