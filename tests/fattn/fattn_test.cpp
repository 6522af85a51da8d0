// Unit tests of the flash-attention model: launch_fattn's block count and fixup choice, the stream-k partition the
// kernel runs, the merge algebra of the fixup / combine kernels and of the KVarN tail merge against hand values,
// and the config table's derived np / combine iterations (docs/bugs/fattn-kernel.md §6, §7, §8, §10;
// docs/bugs/fa-missing-tile-meta.md §6).
#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_floating_point.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "kernels/fattn/api.h"
#include "simt/cpu/emulator.h"
#include "simt/host.h"
#include "simt/registry.h"

// The merge kernels directly, outside the variant builder: the fix series does not touch fattn-common.cuh, so the
// source tree's copy is every variant's copy.
#undef TP_VARIANT_NS  // simt.h (via host.h) defined its default
#define TP_VARIANT_NS fattn_unit
#include "kernels/fattn/fattn-mma-f16.cuh"
#undef TP_VARIANT_NS

namespace api = tp::fattn;
using Catch::Matchers::WithinRel;

namespace {

const api::ops& variant(const char* name) {
  const auto* ops = tp::find_variant<api::ops>("fattn", name, tp::backend::cpu);
  REQUIRE(ops != nullptr);
  return *ops;
}

int config(const char* name) {
  const int c = api::find_config(name);
  REQUIRE(c >= 0);
  return c;
}

// A problem with the given sizes; plan() reads sizes only, run() needs the data (zeros are fine for the partition).
struct sized_problem {
  std::vector<float> q, kb, vb, kt, vt;
  api::problem p;
  sized_problem(int cfg, int n_q, int n_kv, int n_head, int n_tail = 0) {
    const auto& c = api::configs[cfg];
    q.assign(std::size_t(n_head) * n_q * c.DKQ, 0.0f);
    kb.assign(std::size_t(n_head) * n_kv * c.DKQ, 0.0f);
    vb.assign(std::size_t(n_head) * n_kv * c.DV, 0.0f);
    kt.assign(std::size_t(n_head) * n_tail * c.DKQ, 0.0f);
    vt.assign(std::size_t(n_head) * n_tail * c.DV, 0.0f);
    p.n_q = n_q; p.n_kv = n_kv; p.n_head = n_head; p.n_tail = n_tail;
    p.scale = 1.0f / std::sqrt(float(c.DKQ));
    p.q = q; p.k_body = kb; p.v_body = vb; p.k_tail = kt; p.v_tail = vt;
  }
};

api::launch_plan plan_of(const char* cfg, int n_q, int n_kv, int n_head, int nsm, int occupancy = 1) {
  const int c = config(cfg);
  sized_problem sp(c, n_q, n_kv, n_head);
  return variant("fixed").plan(c, sp.p, api::device_model{nsm, occupancy, true});
}

// Whole and split tile counts from the kernel's own segment log: a tile is whole iff one segment ran it unflagged.
std::pair<int, int> whole_split(const api::run_result& r) {
  std::vector<int> whole(r.plan.ntiles, 0);
  for (const auto& s : r.segments) whole[s.tile] += !s.needs_fixup && !s.is_fixup;
  const int n = int(std::count(whole.begin(), whole.end(), 1));
  return {n, r.plan.ntiles - n};
}

}  // namespace

TEST_CASE("Every fattn variant of the series and the mutants is registered on the CPU backend") {
  for (const char* v : {"upstream", "fixed", "fixed-minus-0001", "fixed-minus-0002", "fixed-minus-0003",
                        "mutant-k00-barrier-last-only", "mutant-k00-barrier-np1-only",
                        "mutant-intertile-barrier-np-only", "mutant-intertile-barrier-skip-tail",
                        "mutant-meta-np-only", "mutant-meta-partner-unmerged"})
    CHECK(tp::find_variant<api::ops>("fattn", v, tp::backend::cpu) != nullptr);
}

TEST_CASE("Each config derives np and combine iterations as spec 4.2 tabulates, in the table and in the kernel") {
  struct row { const char* name; int nwarps, np, iters; };
  const row want[] = {{"rdna-d256-ncols64", 4, 1, 2},  {"rdna-d256-ncols32", 4, 2, 2},
                      {"rdna-d128-ncols64", 4, 1, 1},  {"rdna-d512-ncols64", 4, 1, 2},
                      {"rdna-d256-ncols128", 8, 1, 2}, {"ampere-d256-ncols64", 4, 1, 1},
                      {"rdna-d256-ncols64-retuned", 8, 2, 4}};
  REQUIRE(api::n_configs == int(std::size(want)));
  for (const row& w : want) {
    INFO(w.name);
    const auto& c = api::configs[config(w.name)];
    CHECK(c.nwarps == w.nwarps);
    CHECK(c.np() == w.np);
    CHECK(c.combine_iters() == w.iters);
    CHECK(c.cols_per_warp == 16);  // T_B_KQ::I on RDNA/Ampere
  }
  // The kernel's compile-time copy of the derivation agrees with the table's.
  using d256n64 = fattn_unit::fattn_cfg<256, 256, 64, 4, 16, 64, 64>;
  using d256n32 = fattn_unit::fattn_cfg<256, 256, 32, 4, 16, 32, 64>;
  using retuned = fattn_unit::fattn_cfg<256, 256, 64, 8, 16, 32, 32>;
  using d256n128 = fattn_unit::fattn_cfg<256, 256, 128, 8, 16, 32, 64>;
  STATIC_CHECK(d256n64::np == 1);
  STATIC_CHECK(d256n32::np == 2);
  STATIC_CHECK(retuned::np == 2);
  STATIC_CHECK(d256n128::np == 1);
}

TEST_CASE("launch_fattn's block count and fixup choice match hand-computed geometries (96 CUs x 1)") {
  // rdna-d256-ncols32, 4 heads, n_kv 128: iter_k 4, ntiles = 4*ceil(ub/32). The probe's sweep points.
  struct row { int ub, ntiles, units, blocks; api::fixup_kind fixup; };
  const row want[] = {
      {32, 4, 16, 16, api::fixup_kind::uniform},     // raw = units = 16, a multiple of 4, 16 > 4
      {256, 32, 128, 96, api::fixup_kind::uniform},  // raw 96 = 3*32
      {320, 40, 160, 96, api::fixup_kind::general},  // 96 -> 80 would lose 16.7% > 5%: stays 96; 40 % 96 != 0
      {384, 48, 192, 96, api::fixup_kind::uniform},  // 96 = 2*48
      {736, 92, 368, 92, api::fixup_kind::none},     // 96 -> 92 loses 4.2% <= 5%: 92 blocks, one per tile
      {768, 96, 384, 96, api::fixup_kind::none},     // blocks == ntiles
      {1024, 128, 512, 96, api::fixup_kind::general},
  };
  for (const row& w : want) {
    INFO("ub " << w.ub);
    const auto lp = plan_of("rdna-d256-ncols32", w.ub, 128, 4, 96);
    CHECK(lp.iter_k == 4);
    CHECK(lp.ntiles == w.ntiles);
    CHECK(lp.units == w.units);
    CHECK(lp.blocks == w.blocks);
    CHECK(lp.fixup == w.fixup);
    CHECK(lp.stream_k);
  }
}

TEST_CASE("The 5% rounding keeps a loss of exactly 5% and refuses 6%") {
  // 100 resident blocks; rdna-d256-ncols32 with one head, n_kv 192 (iter_k 6) so units >= 100.
  auto lp = plan_of("rdna-d256-ncols32", 19 * 32, 192, 1, 100);  // 100 % 19 = 5: 95 blocks, 5 per tile
  CHECK(lp.blocks == 95);
  CHECK(lp.fixup == api::fixup_kind::uniform);
  lp = plan_of("rdna-d256-ncols32", 95 * 32, 192, 1, 100);  // 100 % 95 = 5: 95 blocks, one per tile
  CHECK(lp.blocks == 95);
  CHECK(lp.fixup == api::fixup_kind::none);
  lp = plan_of("rdna-d256-ncols32", 94 * 32, 192, 1, 100);  // 100 % 94 = 6 > 5% of 100: keeps 100
  CHECK(lp.blocks == 100);
  CHECK(lp.fixup == api::fixup_kind::general);
  lp = plan_of("rdna-d256-ncols32", 3 * 32, 32, 1, 100);  // units 3 < 100: raw 3, one block per tile
  CHECK(lp.blocks == 3);
  CHECK(lp.fixup == api::fixup_kind::none);
  lp = plan_of("rdna-d256-ncols32", 32, 128, 1, 50, 2);  // occupancy multiplies: max 100, but units = 4
  CHECK(lp.blocks == 4);
  CHECK(lp.fixup == api::fixup_kind::uniform);
}

TEST_CASE("The 5% rule is tested in integer percent, truncated, as launch_fattn computes it") {
  // 96 resident blocks, 91 tiles: rounding to 91 loses 5 blocks = 5.2%, which truncates to 5 <= 5: 91 blocks, one
  // whole tile each (a real-number 5% rule would keep 96 and a general fixup).
  auto lp = plan_of("rdna-d256-ncols32", 91 * 32, 192, 1, 96);
  CHECK(lp.blocks == 91);
  CHECK(lp.fixup == api::fixup_kind::none);
  // 90 tiles: 6 blocks lost = 6.25% -> 6 > 5: stays 96, general.
  lp = plan_of("rdna-d256-ncols32", 90 * 32, 192, 1, 96);
  CHECK(lp.blocks == 96);
  CHECK(lp.fixup == api::fixup_kind::general);
}

TEST_CASE("GQA packing: ntiles = ceil(ub/ncols1) x ceil(gqa/ncols2) x KV heads, padding heads never stored") {
  // PR #149's geometry: D256 ncols 64 = 8 tokens x 8 heads, 4 KV heads x gqa 6 (24 Q heads), n_kv 128 (2 batches).
  const int c = config("rdna-d256-ncols64");
  auto plan_gqa = [&](int ub, int nsm) {
    std::vector<float> q(std::size_t(24) * ub * 256), kv(std::size_t(4) * 128 * 256);
    api::problem p;
    p.n_q = ub; p.n_kv = 128; p.n_head = 4; p.gqa = 6; p.ncols2 = 8;
    p.q = q; p.k_body = kv; p.v_body = kv;
    return variant("fixed").plan(c, p, api::device_model{nsm, 1, true});
  };
  auto lp = plan_gqa(64, 48);
  CHECK(lp.iter_j == 8);
  CHECK(lp.iter_z == 1);
  CHECK(lp.ntiles == 32);
  CHECK(lp.blocks == 48);  // 48 -> 32 would lose 33%
  CHECK(lp.fixup == api::fixup_kind::general);
  lp = plan_gqa(96, 48);
  CHECK(lp.ntiles == 48);
  CHECK(lp.blocks == 48);
  CHECK(lp.fixup == api::fixup_kind::none);
  // One tile's rows, run on the emulator: tokens 0..7 of Q heads 0..5 are stored, heads 6..7 of the tile are padding.
  std::vector<float> q(std::size_t(6) * 8 * 256, 0.5f), k(std::size_t(128) * 256, 0.25f), v(std::size_t(128) * 256);
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = float(i % 7);
  api::problem p;
  p.n_q = 8; p.n_kv = 128; p.n_head = 1; p.gqa = 6; p.ncols2 = 8;
  p.scale = 1.0f / 16;
  p.q = q; p.k_body = k; p.v_body = v;
  const auto r = variant("fixed").run(c, p, api::device_model{1, 1, true}, api::run_options{.with_tail_merge = false});
  REQUIRE(r.out.size() == std::size_t(6) * 8 * 256);
  // equal scores: every row is the mean of V's rows, element d: mean over kv of ((kv*256 + d) % 7). The combine
  // passes VKQ through fp16 (tile_Q, as upstream's half2): relative error 2^-11 at most, plus fp32 sums (1e-5).
  for (int d : {0, 1, 255}) {
    double mean = 0;
    for (int i = 0; i < 128; ++i) mean += double((i * 256 + d) % 7) / 128;
    for (int row = 0; row < 48; ++row)
      CHECK_THAT(r.out[std::size_t(row) * 256 + d], WithinRel(mean, 1.0 / 2048 + 1e-5));
  }
  CHECK(std::count(r.body_meta_written.begin(), r.body_meta_written.end(), true) == 48);  // fixed stores every row
}

TEST_CASE("The KVARN/KVARN kernel's entry barrier orders tiles of one block; f16 and KVARN-K/original-V race") {
  // fixed-minus-0002: no inter-tile barrier. rdna-d256-ncols64 (np 1, two combine iterations), 4 tiles on 2 blocks:
  // two whole tiles per block. The adversarial schedule makes a warp run ahead into the next tile's Q load.
  const int c = config("rdna-d256-ncols64");
  sized_problem sp(c, 4 * 64, 128, 1);
  for (auto k : {api::kernel_kind::f16, api::kernel_kind::kvarn_k_original_v, api::kernel_kind::kvarn_kvarn}) {
    INFO(api::to_string(k));
    sp.p.kernel = k;
    tp::cpu::run_options ro;
    ro.sched = tp::cpu::policy::adversarial;
    ro.hazards = true;
    tp::cpu::set_run_options(ro);
    (void)tp::cpu::take_hazard_report();
    (void)variant("fixed-minus-0002").run(c, sp.p, api::device_model{2, 1, true}, api::run_options{.with_tail_merge = false});
    const auto hz = tp::cpu::take_hazard_report();
    CHECK((hz.raw + hz.war + hz.waw > 0) == (k != api::kernel_kind::kvarn_kvarn));
  }
  tp::cpu::set_run_options(tp::cpu::run_options{});
}

TEST_CASE("Spec 5.4's ubatch table: blocks, fixup and whole/split tile counts at iter_k 6 on 96 blocks") {
  // ntiles_dst 16..256 as in spec 5.4 (there: ncols1 8 x ncols2 8 x 4 KV heads; here ncols 32 x 4 heads, the same
  // tile counts), n_kv 192: iter_k 6. Whole tiles by the partition rule: a tile is whole iff it lies inside one
  // block's unit range [b*U/G, (b+1)*U/G); the kernel runs that rule, as the scaled run below shows.
  auto whole_by_rule = [](const api::launch_plan& p) {
    int whole = 0;
    for (long long t = 0; t < p.ntiles; ++t) {
      const long long b = t * p.iter_k * p.blocks / p.units;  // the block owning the tile's first unit
      whole += b * p.units / p.blocks <= t * p.iter_k && (b + 1) * p.units / p.blocks >= (t + 1) * p.iter_k;
    }
    return whole;
  };
  struct row { int ntiles, blocks; api::fixup_kind fixup; int whole; };
  const row want[] = {{16, 96, api::fixup_kind::uniform, 0},   {32, 96, api::fixup_kind::uniform, 0},
                      {48, 96, api::fixup_kind::uniform, 0},   {64, 96, api::fixup_kind::general, 0},
                      {128, 96, api::fixup_kind::general, 64}, {256, 96, api::fixup_kind::general, 192}};
  for (const row& w : want) {
    INFO("ntiles " << w.ntiles);
    const auto lp = plan_of("rdna-d256-ncols32", w.ntiles / 4 * 32, 6 * 32, 4, 96);
    CHECK(lp.ntiles == w.ntiles);
    CHECK(lp.blocks == w.blocks);
    CHECK(lp.fixup == w.fixup);
    CHECK(whole_by_rule(lp) == w.whole);  // split = ntiles - whole
  }
  // docs/bugs/fa-missing-tile-meta.md §6's aside for 16 tiles: with iter_k 4 there are only 64 units, so 64 blocks
  // (still uniform).
  const auto lp = plan_of("rdna-d256-ncols32", 4 * 32, 4 * 32, 4, 96);
  CHECK(lp.blocks == 64);
  CHECK(lp.fixup == api::fixup_kind::uniform);
  // The 128-tile row's pattern (4 tiles per 3 blocks), scaled down so the emulator runs it quickly: 4 tiles x 6 KV
  // batches on 3 blocks, [0,8) [8,16) [16,24): tiles 0 and 3 whole, 1 and 2 split, from the kernel's segment log.
  sized_problem sp(config("rdna-d128-ncols64"), 64, 6 * 32, 4);
  const auto r = variant("fixed").run(config("rdna-d128-ncols64"), sp.p, api::device_model{3, 1, true},
                                      api::run_options{.with_tail_merge = false});
  CHECK(r.plan.blocks == 3);
  CHECK(r.plan.fixup == api::fixup_kind::general);
  CHECK(whole_split(r) == std::pair<int, int>{2, 2});
  CHECK(whole_by_rule(r.plan) == 2);
}

TEST_CASE("The stream-k kernel splits 5 tiles x 2 KV batches over 4 blocks into the hand-derived segments") {
  // units 10, block b owns [floor(10b/4), floor(10(b+1)/4)) = [0,2) [2,5) [5,7) [7,10); tile t = units [2t, 2t+2).
  const int c = config("rdna-d256-ncols32");
  sized_problem sp(c, 5 * 32, 64, 1);
  const auto r = variant("upstream").run(c, sp.p, api::device_model{4, 1, true}, api::run_options{.with_tail_merge = false});
  REQUIRE(r.plan.blocks == 4);
  CHECK(r.plan.fixup == api::fixup_kind::general);
  using S = api::segment;
  const std::vector<S> want = {
      {0, 0, 0, 2, false, false},  // block 0: tile 0 whole
      {1, 1, 0, 2, false, false},  // block 1: tile 1 whole, then tile 2 batch 0 (ends mid-tile)
      {1, 2, 0, 1, false, true},
      {2, 2, 1, 2, true, false},   // block 2: tile 2 batch 1 (started mid-tile, reached its end), tile 3 batch 0
      {2, 3, 0, 1, false, true},
      {3, 3, 1, 2, true, false},   // block 3: tile 3 batch 1, then tile 4 whole
      {3, 4, 0, 2, false, false},
  };
  REQUIRE(r.segments.size() == want.size());
  for (std::size_t i = 0; i < want.size(); ++i) {
    INFO("segment " << i);
    CHECK(r.segments[i].block == want[i].block);
    CHECK(r.segments[i].tile == want[i].tile);
    CHECK(r.segments[i].kb0_start == want[i].kb0_start);
    CHECK(r.segments[i].kb0_stop == want[i].kb0_stop);
    CHECK(r.segments[i].needs_fixup == want[i].needs_fixup);
    CHECK(r.segments[i].is_fixup == want[i].is_fixup);
  }
  CHECK(r.tile_blocks == std::vector<int>{1, 1, 2, 2, 1});
}

TEST_CASE("A uniform split of one tile over 4 blocks is three is_fixup segments and one needs_fixup segment") {
  const int c = config("rdna-d256-ncols32");
  sized_problem sp(c, 32, 128, 1);  // iter_k 4, 1 tile, 4 units: one unit per block
  const auto r = variant("upstream").run(c, sp.p, api::device_model{96, 1, true}, api::run_options{.with_tail_merge = false});
  REQUIRE(r.plan.blocks == 4);
  CHECK(r.plan.fixup == api::fixup_kind::uniform);
  REQUIRE(r.segments.size() == 4);
  for (int b = 0; b < 4; ++b) {
    INFO("block " << b);
    CHECK(r.segments[b].block == b);
    CHECK(r.segments[b].tile == 0);
    CHECK(r.segments[b].kb0_start == b);
    CHECK(r.segments[b].kb0_stop == b + 1);
    CHECK(r.segments[b].needs_fixup == (b == 3));
    CHECK(r.segments[b].is_fixup == (b != 3));
  }
}

// ---- merge algebra, one warp, DV 32 (one element per lane), hand-chosen partials ----

namespace {
constexpr int mDV = 32;

// O = Σ σ_x A_x / Σ σ_x l_x, σ_x = e^(m_x - M) (0 below -20), in double: the triple algebra of
// docs/bugs/fattn-kernel.md §7.
struct partial { double m, l; std::vector<double> A; };
std::pair<std::vector<double>, double> merged(const std::vector<partial>& ps, double& M) {
  M = -std::numeric_limits<double>::infinity();
  for (const auto& p : ps) M = std::max(M, p.m);
  std::vector<double> num(mDV, 0.0);
  double den = 0;
  for (const auto& p : ps) {
    const double s = p.m - M < -20 ? 0.0 : std::exp(p.m - M);
    den += s * p.l;
    for (int d = 0; d < mDV; ++d) num[d] += s * p.A[d];
  }
  for (auto& x : num) x /= den;
  return {num, den};
}
std::vector<double> ramp(double a, double b) {
  std::vector<double> v(mDV);
  for (int d = 0; d < mDV; ++d) v[d] = a + b * d;
  return v;
}
void check_close(const std::vector<float>& got, std::size_t off, const std::vector<double>& want) {
  for (int d = 0; d < mDV; ++d) {
    INFO("element " << d);
    CHECK_THAT(got[off + d], WithinRel(want[d], 1e-5));
  }
}
}  // namespace

TEST_CASE("The uniform fixup folds a tile's blocks as the triple algebra says and stores the final meta") {
  // 1 tile (ncols 1), 3 stream-k blocks: blocks 0 and 1 are is_fixup (slots G+b), block 2 needs_fixup (slot 2,
  // its unnormalised data in dst).
  const int G = 3;
  const std::vector<partial> ps = {{1.0, 2.0, ramp(1, 0.5)}, {3.0, 1.5, ramp(-2, 0.25)}, {2.0, 4.0, ramp(0.5, -0.125)}};
  tp::device_buffer<float> dst(mDV), final_meta(2), fix_meta(2 * 2 * G), fix_data(G * mDV);
  std::vector<float> fm(2 * 2 * G, 0.0f), fd(G * mDV, 0.0f), d(mDV);
  for (int b = 0; b < 2; ++b) {
    fm[2 * (G + b)] = float(ps[b].m);
    fm[2 * (G + b) + 1] = float(ps[b].l);
    for (int k = 0; k < mDV; ++k) fd[b * mDV + k] = float(ps[b].A[k]);
  }
  fm[2 * 2] = float(ps[2].m);
  fm[2 * 2 + 1] = float(ps[2].l);
  for (int k = 0; k < mDV; ++k) d[k] = float(ps[2].A[k]);
  fix_meta.upload(fm.data(), fm.size());
  fix_data.upload(fd.data(), fd.size());
  dst.upload(d.data(), d.size());
  final_meta.fill(0.0f);
  TP_LAUNCH((fattn_unit::flash_attn_stream_k_fixup_uniform<mDV, 1>), tp::dims{1, 32}, dst.view(), final_meta.view(),
            fix_meta.view(), fix_data.view(), fattn_unit::fa_tiling{1, 1, 1, 1, 1, 1}, G);
  double M = 0;
  const auto [O, L] = merged(ps, M);
  check_close(dst.to_host(), 0, O);
  const auto meta = final_meta.to_host();
  CHECK(meta[0] == float(M));
  CHECK_THAT(meta[1], WithinRel(L, 1e-6));
}

TEST_CASE("The general fixup merges back to the block that began at the tile start and skips whole tiles") {
  // 2 tiles x 3 KV batches over 3 blocks: units 6, blocks [0,2) [2,4) [4,6); tile t = units [3t, 3t+3).
  // Block 0 ends mid tile 0 (is_fixup). Block 1 finishes tile 0 (needs_fixup: owns tile 0's fixup, walks back to
  // block 0), then ends mid tile 1 (is_fixup). Block 2 finishes tile 1 (needs_fixup: owns it, walks back to block 1).
  const int G = 3, ncols = 1, iter_k = 3, iter_j = 2;
  const std::vector<partial> t0 = {{0.5, 1.0, ramp(1, 1)}, {2.5, 2.0, ramp(3, -0.5)}};   // blocks 0, 1
  const std::vector<partial> t1 = {{-30.0, 7.0, ramp(9, 9)}, {1.0, 0.5, ramp(-1, 0.75)}};  // blocks 1, 2
  std::vector<float> fm(2 * 2 * G * ncols, 0.0f), fd(G * mDV, 0.0f), d(2 * mDV, 0.0f);
  auto put_fixup = [&](int b, const partial& p) {
    fm[2 * (G + b)] = float(p.m);
    fm[2 * (G + b) + 1] = float(p.l);
    for (int k = 0; k < mDV; ++k) fd[b * mDV + k] = float(p.A[k]);
  };
  auto put_needs = [&](int b, int row, const partial& p) {
    fm[2 * b] = float(p.m);
    fm[2 * b + 1] = float(p.l);
    for (int k = 0; k < mDV; ++k) d[row * mDV + k] = float(p.A[k]);
  };
  put_fixup(0, t0[0]);
  put_needs(1, 0, t0[1]);
  put_fixup(1, t1[0]);
  put_needs(2, 1, t1[1]);
  tp::device_buffer<float> dst(2 * mDV), final_meta(4), fix_meta(fm.size()), fix_data(fd.size());
  fix_meta.upload(fm.data(), fm.size());
  fix_data.upload(fd.data(), fd.size());
  dst.upload(d.data(), d.size());
  final_meta.fill(0.0f);
  TP_LAUNCH((fattn_unit::flash_attn_stream_k_fixup_general<mDV, 1>), tp::dims{unsigned(G), 32}, dst.view(),
            final_meta.view(), fix_meta.view(), fix_data.view(), fattn_unit::fa_tiling{iter_j, 1, 1, 1, iter_j, 1}, iter_k,
            6LL);
  const auto out = dst.to_host();
  const auto meta = final_meta.to_host();
  double M0 = 0, M1 = 0;
  const auto [O0, L0] = merged(t0, M0);
  const auto [O1, L1] = merged(t1, M1);
  check_close(out, 0, O0);
  check_close(out, mDV, O1);  // block 1's part is 31 below the max: flushed to weight 0, O = A_2 / l_2
  CHECK(meta[0] == float(M0));
  CHECK_THAT(meta[1], WithinRel(L0, 1e-6));
  CHECK(meta[2] == float(M1));
  CHECK(meta[3] == float(t1[1].l));

  // One tile on one block (started on a tile boundary): the general fixup returns at once and writes nothing.
  tp::device_buffer<float> dst2(mDV), meta2(2), fm2(2 * 2), fd2(mDV);
  dst2.fill(0.25f);
  meta2.fill(0.0f);
  fm2.fill(0.0f);
  fd2.fill(0.0f);
  TP_LAUNCH((fattn_unit::flash_attn_stream_k_fixup_general<mDV, 1>), tp::dims{1, 32}, dst2.view(), meta2.view(),
            fm2.view(), fd2.view(), fattn_unit::fa_tiling{1, 1, 1, 1, 1, 1}, 3, 3LL);
  const auto w = meta2.kernel_written();
  REQUIRE(w.has_value());
  CHECK(std::count(w->begin(), w->end(), true) == 0);
  CHECK(dst2.to_host() == std::vector<float>(mDV, 0.25f));
}

TEST_CASE("flash_attn_combine_results merges parallel_blocks parts by the triple algebra and stores (kqmax, den)") {
  const int P = 3;
  const std::vector<partial> ps = {{0.0, 1.0, ramp(1, 0)}, {-1.0, 3.0, ramp(0, 1)}, {0.75, 0.5, ramp(-4, 0.5)}};
  std::vector<float> pm(2 * P, 0.0f), pd(P * mDV);
  for (int p = 0; p < P; ++p) {
    pm[2 * p] = float(ps[p].m);
    pm[2 * p + 1] = float(ps[p].l);
    for (int k = 0; k < mDV; ++k) pd[p * mDV + k] = float(ps[p].A[k]);
  }
  tp::device_buffer<float> dst(mDV), meta(2), parts_meta(pm.size()), parts_data(pd.size());
  parts_meta.upload(pm.data(), pm.size());
  parts_data.upload(pd.data(), pd.size());
  TP_LAUNCH((fattn_unit::flash_attn_combine_results<mDV, 1>), tp::dims{1, 32}, dst.view(), meta.view(),
            parts_meta.view(), parts_data.view(), fattn_unit::fa_tiling{1, 1, 1, 1, 1, 1}, P, 0);
  double M = 0;
  const auto [O, L] = merged(ps, M);
  check_close(dst.to_host(), 0, O);
  CHECK(meta.to_host()[0] == float(M));
  CHECK_THAT(meta.to_host()[1], WithinRel(L, 1e-6));
}

TEST_CASE("The KVarN tail merge weighs a body row with meta (0, 0) zero and otherwise by l*e^(m-M)") {
  // Row 0: body meta (0, 0) (the memset, never published): the output is the tail's row exactly.
  // Row 1: both valid: O = (O_b w_b + O_t w_t) / (w_b + w_t), w = l e^(m - M).
  // Row 2: tail empty (l_t = 0): the body row exactly. Row 3: body meta NaN: invalid, the tail row.
  const int rows = 4;
  std::vector<float> body(rows * mDV), tail(rows * mDV);
  for (int r = 0; r < rows; ++r)
    for (int k = 0; k < mDV; ++k) {
      body[r * mDV + k] = float(1 + r + 0.125 * k);
      tail[r * mDV + k] = float(-2 - r + 0.0625 * k);
    }
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const std::vector<float> bm = {0.0f, 0.0f, 2.0f, 3.0f, 1.0f, 2.0f, nan, 1.0f};
  const std::vector<float> tm = {1.5f, 4.0f, 0.5f, 5.0f, 1.0f, 0.0f, 0.0f, 2.0f};
  tp::device_buffer<float> b(body.size()), t(tail.size()), bmeta(bm.size()), tmeta(tm.size()), out(rows * mDV);
  b.upload(body.data(), body.size());
  t.upload(tail.data(), tail.size());
  bmeta.upload(bm.data(), bm.size());
  tmeta.upload(tm.data(), tm.size());
  TP_LAUNCH(fattn_unit::k_flash_attn_ext_tail_partials_merge<mDV>, tp::dims{unsigned(rows), 32}, b.view(),
            bmeta.view(), t.view(), tmeta.view(), out.view());
  const auto o = out.to_host();
  const double wb = 3.0 * std::exp(2.0 - 2.0), wt = 5.0 * std::exp(0.5 - 2.0);
  for (int k = 0; k < mDV; ++k) {
    INFO("element " << k);
    CHECK(o[0 * mDV + k] == tail[0 * mDV + k]);
    CHECK_THAT(o[1 * mDV + k], WithinRel((body[mDV + k] * wb + tail[mDV + k] * wt) / (wb + wt), 1e-6));
    CHECK(o[2 * mDV + k] == body[2 * mDV + k]);
    CHECK(o[3 * mDV + k] == tail[3 * mDV + k]);
  }
}
