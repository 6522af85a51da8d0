// What both flash-attention probes share: input data (seeded random or real-weight fixtures, KVarN-quantised body),
// the fp64 oracle over body + tail, the derived fp32 error bound, row comparison, geometry shrinking and the accuracy
// ladder. Linked by fa-k00-combine-race, fa-missing-tile-meta (and tests/fattn) as tp_fa_probe_support.
//
//
// Error bound (per output element, fp32 kernel vs fp64 oracle), first order in u = 2^-24, γ(n) = n·u/(1 - n·u):
//   scores    s = scale·q·k over DKQ terms: |δs| <= γ(DKQ+2)·S, S = max over (query, key) of scale·Σ|q_d·k_d|
//   weights   p = exp(s - m): relative error <= |δs| + |s - m|·u + 2u <= ε_p = γ(DKQ+2)·S + (2S + 4)·u + 2u
//             (m itself cancels: the same fp32 m' scales numerator and denominator; so do α and the fixup σ, up to
//             one rounding per multiply, counted in the n below)
//   sums      Σ p and Σ p·v over n = n_kv + n_tail + 2·(blocks of one tile) + 8 terms: γ(n) relative to Σ p·|v|
//   O = A/L   |δO| <= (2·(ε_p + γ(n)) + u)·vmax
//   tail merge weights w = l·e^(m - M): relative error ε_w = γ(n) + (2S + 4)·u, |δO| <= 2·ε_w·vmax more
//   fp16 tile_Q   the body's Q is rounded to fp16 as the kernel does (q' = fp16(fp32(q·scale))), in the oracle too,
//             so it costs nothing here beyond S growing by 2^-11; the combine's VKQ in fp16 adds 2^-11·vmax plus
//             n_parts·2^-25·8 for fp16 subnormals (fa_support.cpp prepare() derives both)
// bound = vmax·(2·(ε_p + γ(n)) + 2·ε_w + 4u + 2^-11) + 8·n_parts·2^-25, vmax = max |v| over body and tail. Nothing
// here is fitted to the kernel's observed error; the probe prints error/bound so a reader can see the margin (observed: at most 0.11 of it on
// the default cases of both probes, fixed variant, CPU emulator; the fp16 VKQ term dominates).
#pragma once

#include <cmath>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "kernels/fattn/api.h"
#include "simt/backend.h"
#include "probes/common/probe.h"

namespace fa_probe {

using tp::fattn::configs;

// One geometry + data recipe; every field appears in the case id, so the id alone rebuilds the case.
struct geometry {
  int config = 0;
  int n_q = 64, n_kv = 128, n_tail = 16, n_head = 1;  // n_tail 0: body only, no tail merge; n_head: K/V heads
  int gqa = 1, ncols2 = 1;             // Q heads per K/V head; Q heads per tile (ncols1 = ncols / ncols2 tokens)
  tp::fattn::kernel_kind kernel = tp::fattn::kernel_kind::kvarn_kvarn;
  int cus = 48, occupancy = 1;         // device_model: max resident blocks = cus·occupancy (api.h: gfx1100 defaults)
  std::string data = "random";         // random | fixture
  std::uint64_t data_seed = 1;
  double q_gain = 1.0;                 // fixture Q is small; a larger gain makes the softmax peaked (said in the id)
  bool kvarn = true;                   // quantise the body KVarN-style (reference/kvarn.h)
  // > 0: KVarN records made by a beellama tree's own store kernels (tp::fattn::ops::kvarn_store of the first tree
  // variant built, run on the data as drawn, kvarn off): this many bits, records_tail lossless tail groups; the body's
  // K/V become what the stage and records decode to (reference/kvarn_record.h), which the oracle attends over, and a
  // tree variant's KVarN kernel reads the records themselves. Needs n_kv > 128·(records_tail + 1) for any record.
  int records_bits = 0;
  int records_tail = 1;
  // data == "given": the rows an input file gave, used as they are (no KVarN step); `label` names the file in ids.
  struct given_data {
    std::string label;
    std::vector<float> q, kb, vb, kt, vt;
  };
  std::shared_ptr<const given_data> given;
};

inline int dkq(const geometry& g) { return configs[g.config].DKQ; }
inline int dv(const geometry& g) { return configs[g.config].DV; }
inline int q_heads(const geometry& g) { return g.n_head * g.gqa; }

struct prepared {
  std::vector<float> q, kb, vb, kt, vt;
  std::vector<double> ref;  // [rows][DV]
  double bound = 0, S = 0, vmax = 0;
  // records_bits > 0: what the tree's store kernels left (kb / vb are its decoding), the store's variant, and how
  // many (group, record head) records per side the body reads.
  std::shared_ptr<const tp::fattn::kvarn_records> records;
  std::string records_by;
  int records_per_side = 0;
  tp::fattn::problem problem(const geometry& g) const {
    tp::fattn::problem p;
    p.n_q = g.n_q; p.n_kv = g.n_kv; p.n_tail = g.n_tail; p.n_head = g.n_head;
    p.gqa = g.gqa; p.ncols2 = g.ncols2;
    p.scale = float(1.0 / std::sqrt(double(dkq(g))));
    p.kernel = g.kernel;
    p.q = q; p.k_body = kb; p.v_body = vb; p.k_tail = kt; p.v_tail = vt;
    p.records = records.get();
    return p;
  }
};

float to_fp16_value(double x);

// Q, K, V (body KVarN-quantised when g.kvarn), the fp64 oracle output and the bound for one geometry.
std::shared_ptr<const prepared> prepare(const geometry& g);

// Rows (h·n_q + q) whose output differs from the oracle by more than the bound anywhere.
struct row_check {
  std::set<long long> wrong;
  double max_err = 0, rmse = 0;
};
row_check check_rows(const std::vector<float>& out, const prepared& p, int Dv);
// FNV-1a (32-bit) over a case's wrong rows (ascending, 8 bytes each, least significant first). Summed over a run as
// the metric wrong_rows_digest, it lets tileprobe-report --compare-backends check that two runs of the same cases got
// the same rows wrong (the case id stays out: a case rerun from its --input file has another id, the same rows).
std::uint32_t wrong_rows_digest(const std::set<long long>& rows);

// The backend a run uses (--backend cpu|cuda|hip).
tp::backend backend_named(const std::string& name);
// Before a case: the warp schedule where the backend can choose it (the CPU emulator; HIP on tileprobe's simulator)
// and the backend's shared-memory race detector on, earlier findings dropped. A real GPU schedules as it will.
void schedule_case(tp::backend b, tp::schedule_policy p, std::uint64_t seed);
// The race detector's findings since schedule_case, with at most `keep_pairs` readable pairs (both accesses'
// locations: source lines on the CPU emulator, PCs, instructions and source lines on the simulator); nullopt where the
// backend has no detector (a real GPU).
std::optional<tp::probe::hazard_evidence> take_hazards(tp::backend b, std::size_t keep_pairs);

tp::probe::case_name geometry_id(const char* probe, const geometry& g);

// Smaller geometries, most aggressive first: all at the floor, then fewer heads, fewer tiles, shorter KV, shorter
// tail, fewer blocks.
std::vector<geometry> shrink_geometry(const geometry& g);

// The one field a shrink step adds to its candidate's id (probe::shrunk_id(parent, {{"to", shrink_step(g)}})): the
// sizes that changed, so the id differs from its parent's and shrunk_parent(id, 1) finds the parent.
std::string shrink_step(const geometry& g);

// The tree variants (kernels/fattn_tree: a user's own beellama kernels, registered as tree-*) build only the
// instances kernels/fattn_tree/instances.h lists, all GQA-packed (ncols2 8): RDNA's device guard compiles ncols2 1 out
// in every tree, and the probes' own lists are gqa 1. A run that selects a tree variant takes the probe's tree list
// instead of its own; the model's variants selected beside them run that list too (tests/fa_tree's differential).
bool is_tree_variant(std::string_view name);
bool tree_run(const tp::probe::app& app);
// A GQA-packed geometry of a tree instance: one K/V head, gqa = ncols2 = 8 Q heads, `tiles` tiles of ncols / 8
// tokens, no tail.
geometry tree_geometry(const char* config, int tiles, int cus, tp::fattn::kernel_kind kernel, int n_kv = 128);

// Per tile: its rows (h·n_q + q) in the output.
std::set<long long> rows_of_tiles(const geometry& g, const std::vector<int>& tile_blocks, bool whole);


// --ladder: head dim 128/256/512 x KV length 256..max_kv (the upstream accuracy ladder), one whole tile on one block,
// RMSE of each variant against the fp64 oracle per cell, printed to stdout, on the run's --backend. `sched` is the
// schedule policy (the race probe uses the adversarial one). With a tree variant among them (tree_run) every variant
// runs the tile GQA-packed as the tree instances are (8 tokens x 8 Q heads; D128 f16, D256 KVarN), and a cell whose
// kernel the variant's tree compiles out or does not build says so ("n/a") instead of an RMSE. Registered as CLI11
// options by add_ladder_options; run from the app's before_run hook (nothing else runs), so its exit code is the
// probe's: 0, or 2 for a variant that is not built.
struct ladder_options {
  bool on = false;
  int max_kv = 8192;
};
void add_ladder_options(tp::probe::app& app, ladder_options& lo);
int run_ladder(const std::vector<std::string>& variants, tp::backend backend, const char* probe, const char* sched,
               int n_tail, int max_kv);

// --bench companion: tiles per second of the variant's run() (body, fixup, tail and merge kernels on the emulator;
// oracle and checks excluded), per variant, shrink runs included; shown as report notes when --bench is given.
struct tile_bench {
  std::map<std::string, std::pair<long long, double>> per_variant;  // tiles, seconds
  void add(const std::string& variant, long long tiles, double seconds);
  std::vector<std::string> lines() const;
};

// The oracle data of a run's geometries: each variant of a batch, every shrink candidate and the reference rerun of a
// counterexample come back to the same few; holds at most `cap` (then starts over).
class data_cache {
 public:
  explicit data_cache(std::size_t cap) : cap_(cap) {}
  std::shared_ptr<const prepared> get(const geometry& g);

 private:
  std::size_t cap_;
  std::map<std::string, std::shared_ptr<const prepared>> map_;
};

// What both fa probes wire the same way, owned by their main: --ladder / --ladder-max-kv (run from before_run,
// nothing else runs), the --bench tiles/s lines after the probe's own notes, and shrunk ids that name their parent
// (probe::shrunk_parent(id, 1), matching shrink_cases).
// Which configs the backend's device can launch. A body kernel needs fattn ops.smem_bytes(config) of shared memory
// per block: the CPU emulator has no limit, a GPU its per-block maximum (an RDNA workgroup's 64 KiB: D512 ncols 64 and
// D256 ncols 128 do not fit there, as on a real RX 7900 XTX or RX 9070; the CUDA opt-in maximum on an H200 takes all).
// The probes leave such cases out of their lists on that backend and say so in the run's notes; a case asked for by
// --input or a fuzz id is refused (exit 2) with the sizes.
class device_fit {
 public:
  // Drops the cases whose config (config_of(payload)) does not fit, counting them for notes().
  template <class Payload, class ConfigOf>
  void leave_out(const tp::probe::app& app, tp::probe::case_list& cases, ConfigOf config_of) {
    std::erase_if(cases, [&](const tp::probe::case_def& c) {
      const int config = config_of(c.template as<Payload>());
      if (fits(app, config)) return false;
      ++left_out_[config];
      return true;
    });
  }
  bool fits(const tp::probe::app& app, int config);
  // Throws usage_error naming the sizes when `config` does not fit.
  void require(const tp::probe::app& app, int config, const std::string& case_id);
  std::vector<std::string> notes() const;

 private:
  void init(const tp::probe::app& app);
  bool known_ = false;
  std::string backend_;
  std::optional<std::size_t> limit_;  // nullopt: no limit
  std::function<int(int)> smem_bytes_;
  std::map<int, std::size_t> left_out_;
};

struct common_state {
  ladder_options ladder;
  tile_bench bench;
  device_fit fit;
};
void install_common(tp::probe::app& app, common_state& st, const char* probe, const char* ladder_sched, int ladder_tail,
                    std::function<std::vector<std::string>()> probe_notes);

// The shrinker's candidates for a case whose payload carries geometry `g`: `with(g')` builds the payload of a
// smaller geometry; ids are probe::shrunk_id(parent, {{"to", shrink_step(g')}}).
template <class Payload, class With>
tp::probe::case_list shrink_cases(const tp::probe::case_def& cd, const geometry& g, With with) {
  tp::probe::case_list out;
  for (const geometry& s : shrink_geometry(g))
    out.push_back({.id = tp::probe::shrunk_id(cd.id, {{"to", shrink_step(s)}}), .source = cd.source,
                   .group = cd.group, .payload = Payload(with(s))});
  return out;
}

}  // namespace fa_probe
