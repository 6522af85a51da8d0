// Data, oracle, bound and ladder of the flash-attention probes (declarations and the bound's derivation: fa_support.h).
#include "probes/fa_support/fa_support.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <optional>
#include <span>
#include <sstream>

#include <CLI/CLI.hpp>

#include "fixture.h"
#include "reference/attention.h"
#include "reference/codecs.h"
#include "reference/kvarn.h"
#include "reference/kvarn_record.h"
#include "reference/metrics.h"
#include "reference/online_softmax.h"
#include "simt/cpu/emulator.h"
#include "simt/host.h"
#include "simt/registry.h"

namespace fa_probe {

float to_fp16_value(double x) { return tp::ref::fp16_to_float(tp::ref::double_to_fp16(x, true)); }

namespace {

// A standard normal from the probe framework's splitmix64 stream (Box-Muller), so data are the same everywhere.
struct normal_source {
  tp::probe::rng r;
  explicit normal_source(std::uint64_t s) : r(s) {}
  double next() {
    double u1 = r.unit(), u2 = r.unit();
    if (u1 < 1e-300) u1 = 1e-300;
    return std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
  }
};

// Fixture rows for head h, column window [0, D) (D128 takes the first 128 columns; D512 joins rows r and r+1).
struct fixture_rows {
  std::vector<float> vals;
  std::size_t rows = 0, cols = 0;
  float at(std::size_t row, std::size_t d, std::size_t D) const {
    if (D <= cols) return vals[(row % rows) * cols + d];
    const std::size_t r2 = (2 * row + d / cols) % rows;  // D512: two consecutive fixture rows make one
    return vals[r2 * cols + d % cols];
  }
};
const fixture_rows& fixture_tensor(const char* name) {
  static std::map<std::string, fixture_rows> cache;
  auto it = cache.find(name);
  if (it != cache.end()) return it->second;
  fixture_rows fr;
  try {
    const auto f = tp::fixtures::load(name);
    const auto codes = f.fp16_codes();
    fr.rows = f.rows();
    fr.cols = f.cols();
    fr.vals.resize(codes.size());
    for (std::size_t i = 0; i < codes.size(); ++i) fr.vals[i] = tp::ref::fp16_to_float(codes[i]);
  } catch (const tp::fixtures::fixture_error& e) {
    throw tp::probe::usage_error(e.what());
  }
  return cache.emplace(name, std::move(fr)).first->second;
}

// KVarN-style body: per 128-token group and 128-wide head-dim slice, Hadamard along the head dim, Sinkhorn, b-bit
// per-row quantisation. V is quantised per token (rows = tokens); K per channel (rows = head-dim channels), so K's
// slice is rotated by hand along the head dim and quantised transposed without kvarn's own rotation.
void kvarn_body(std::vector<float>& k, std::vector<float>& v, int n_head, int n_kv, int D, int Dv) {
  constexpr int G = 128;
  for (int h = 0; h < n_head; ++h)
    for (int t0 = 0; t0 + G <= n_kv; t0 += G) {
      for (int c0 = 0; c0 + G <= Dv; c0 += G) {
        tp::ref::matrix<double> tile(G, G);
        for (int t = 0; t < G; ++t)
          for (int c = 0; c < G; ++c) tile(t, c) = v[((std::size_t)h * n_kv + t0 + t) * Dv + c0 + c];
        const auto res = tp::ref::quantize_dequantize(tile.view(), tp::ref::kvarn_options{});
        for (int t = 0; t < G; ++t)
          for (int c = 0; c < G; ++c) v[((std::size_t)h * n_kv + t0 + t) * Dv + c0 + c] = to_fp16_value(res.tile(t, c));
      }
      for (int c0 = 0; c0 + G <= D; c0 += G) {
        tp::ref::matrix<double> rot(G, G);  // [token][channel], rotated along channels
        for (int t = 0; t < G; ++t) {
          std::vector<double> row(G);
          for (int c = 0; c < G; ++c) row[c] = k[((std::size_t)h * n_kv + t0 + t) * D + c0 + c];
          tp::ref::walsh_hadamard(row);
          for (int c = 0; c < G; ++c) rot(t, c) = row[c];
        }
        tp::ref::matrix<double> tr(G, G);  // [channel][token]: per-channel quantisation
        for (int t = 0; t < G; ++t)
          for (int c = 0; c < G; ++c) tr(c, t) = rot(t, c);
        tp::ref::kvarn_options opt;
        opt.rotate = false;
        const auto res = tp::ref::quantize_dequantize(tr.view(), opt);
        for (int t = 0; t < G; ++t) {
          std::vector<double> row(G);
          for (int c = 0; c < G; ++c) row[c] = res.tile(c, t);
          tp::ref::walsh_hadamard(row);  // self-inverse: back to the original domain
          for (int c = 0; c < G; ++c) k[((std::size_t)h * n_kv + t0 + t) * D + c0 + c] = to_fp16_value(row[c]);
        }
      }
    }
}

// The store of a records case: the first tree variant (by name) with the tree's store kernels, on hip, else cuda.
const tp::fattn::ops* kvarn_store_ops() {
  for (const tp::backend b : {tp::backend::hip, tp::backend::cuda})
    for (const auto& e : tp::variants("fattn"))
      if (e.where == b && is_tree_variant(e.variant))
        if (const auto* o = tp::find_variant<tp::fattn::ops>("fattn", e.variant, b); o && o->kvarn_store) return o;
  return nullptr;
}

// records_bits > 0: the tree's own store kernels quantise the drawn K/V; the body becomes what its stage and records
// decode to, each record value as the attention loader rounds it (reference/kvarn_record.h, kvarn_record_loaded), so
// the oracle sees exactly the kernel's K/V tiles and keeps its bound.
void store_records(const geometry& g, prepared& p) {
  if (g.kernel != tp::fattn::kernel_kind::kvarn_kvarn)
    throw tp::probe::usage_error("KVarN records cases need --kernel kvarn-kvarn");
  if (g.given) throw tp::probe::usage_error("KVarN records cases draw their data (not data=given)");
  const tp::fattn::ops* store = kvarn_store_ops();
  if (!store)
    throw tp::probe::usage_error("KVarN records cases run a beellama tree's own store kernels: configure with "
                                 "-DTP_FA_ROOT=<tree> and a GPU backend (kernels/fattn_tree)");
  if (!tp::backend_available(store == tp::find_variant<tp::fattn::ops>("fattn", store->variant, tp::backend::hip)
                                 ? tp::backend::hip
                                 : tp::backend::cuda))
    throw tp::device_error("KVarN records cases run the tree's store kernels on a GPU backend; none is available "
                           "(TILEPROBE_HIP=sim:gfx1100 runs them on tileprobe's simulator)");
  tp::fattn::kvarn_store_params params;
  params.bits = g.records_bits;
  params.tail_groups = g.records_tail;
  auto rec = std::make_shared<tp::fattn::kvarn_records>(store->kvarn_store(g.config, p.problem(g), params));
  const int D = dkq(g), slices = D / tp::ref::kvarn_group;
  for (int side = 0; side < 2; ++side) {
    tp::ref::kvarn_cache_layout l;
    l.bits = params.bits;
    l.n_record_heads = rec->n_record_heads;
    l.groups_per_stream = rec->groups_per_stream;
    l.stage_groups = rec->stage_groups;
    l.tail_groups = params.tail_groups;
    l.n_kv = g.n_kv;
    l.value = side == 1;
    const auto& s = side == 0 ? rec->k : rec->v;
    const auto dec = tp::ref::kvarn_decode_cache(l, s.stage, s.records, true);
    std::vector<float>& body = side == 0 ? p.kb : p.vb;
    for (int h = 0; h < g.n_head; ++h)
      for (int t = 0; t < g.n_kv; ++t)
        for (int sl = 0; sl < slices; ++sl)
          for (int d = 0; d < tp::ref::kvarn_group; ++d)
            body[((std::size_t)h * g.n_kv + t) * D + sl * tp::ref::kvarn_group + d] =
                float(dec[((std::size_t)(h * slices + sl) * g.n_kv + t) * tp::ref::kvarn_group + d]);
    if (side == 0) {
      tp::ref::kvarn_cache_layout k = l;
      for (int grp = 0; grp * tp::ref::kvarn_group < g.n_kv; ++grp)
        if (tp::ref::kvarn_group_from_record(k, grp)) p.records_per_side += rec->n_record_heads;
    }
  }
  p.records = std::move(rec);
  p.records_by = store->variant;
}

}  // namespace

std::shared_ptr<const prepared> prepare(const geometry& g) {
  auto p = std::make_shared<prepared>();
  const int D = dkq(g), Dv = dv(g);
  const auto fill = [&](std::vector<float>& out, std::size_t rows_per_head, int width, int which) {
    const int heads = which == 0 ? q_heads(g) : g.n_head;  // Q has gqa heads per K/V head
    out.assign((std::size_t)heads * rows_per_head * width, 0.0f);
    if (g.data == "fixture") {
      const char* names[] = {"fa-q", "fa-k", "fa-v", "fa-k", "fa-v"};
      const fixture_rows& fr = fixture_tensor(names[which]);
      // Heads and the tail take disjoint row windows where the fixture is long enough; longer KV repeats rows
      // (the id's n_kv says how many were asked for).
      const std::size_t offset = which >= 3 ? (std::size_t)g.n_kv : 0;
      for (int h = 0; h < heads; ++h)
        for (std::size_t r = 0; r < rows_per_head; ++r)
          for (int d = 0; d < width; ++d) {
            const std::size_t src_row = (std::size_t)h * 97 + offset + r;  // 97: heads start at different rows
            const double x = fr.at(src_row, d, width) * (which == 0 ? g.q_gain : 1.0);
            out[((std::size_t)h * rows_per_head + r) * width + d] = to_fp16_value(x);
          }
    } else {
      normal_source n(g.data_seed * 8 + which);
      for (auto& x : out) x = to_fp16_value(n.next() * (which == 0 ? g.q_gain : 1.0));
    }
  };
  if (g.data == "given") {
    if (!g.given) throw tp::probe::internal_error("fa geometry with data=given but no data");
    p->q = g.given->q; p->kb = g.given->kb; p->vb = g.given->vb; p->kt = g.given->kt; p->vt = g.given->vt;
  } else {
    fill(p->q, g.n_q, D, 0);
    fill(p->kb, g.n_kv, D, 1);
    fill(p->vb, g.n_kv, Dv, 2);
    fill(p->kt, g.n_tail, D, 3);
    fill(p->vt, g.n_tail, Dv, 4);
    if (g.records_bits > 0)
      store_records(g, *p);
    else if (g.kvarn)
      kvarn_body(p->kb, p->vb, g.n_head, g.n_kv, D, Dv);
  }

  const double scale = double(float(1.0 / std::sqrt(double(D))));
  p->ref.assign((std::size_t)q_heads(g) * g.n_q * Dv, 0.0);
  for (int h = 0; h < q_heads(g); ++h) {
    auto mat = [&](const std::vector<float>& src, int head, std::size_t rows, int width) {
      tp::ref::matrix<double> m(rows, width);
      for (std::size_t i = 0; i < rows * width; ++i) m.data[i] = src[(std::size_t)head * rows * width + i];
      return m;
    };
    const int kvh = h / g.gqa;  // the K/V head Q head h shares
    const auto Q = mat(p->q, h, g.n_q, D), K = mat(p->kb, kvh, g.n_kv, D), V = mat(p->vb, kvh, g.n_kv, Dv);
    const auto KT = mat(p->kt, kvh, g.n_tail, D), VT = mat(p->vt, kvh, g.n_tail, Dv);
    // The body pass reads Q through tile_Q, which holds fp16 as upstream's half2 does: q' = fp16(fp32(q·scale))
    // (kernels/fattn/fattn-mma-f16.cuh P0); the tail pass reads fp32 Q and scales in fp32. The oracle takes that
    // input rounding exactly, with its own fp16 codec, by concatenating features at scale 1: a body key scores
    // [q', q·scale]·[k, 0] = q'·k, a tail key [q', q·scale]·[0, k] = scale·q·k.
    const float scale_f = float(scale);
    tp::ref::matrix<double> Qx(g.n_q, 2 * D), Kx(g.n_kv, 2 * D), KTx(g.n_tail, 2 * D);
    for (int i = 0; i < g.n_q; ++i)
      for (int d = 0; d < D; ++d) {
        Qx(i, d) = to_fp16_value(double(float(Q(i, d)) * scale_f));
        Qx(i, D + d) = Q(i, d) * scale;
      }
    for (int j = 0; j < g.n_kv; ++j)
      for (int d = 0; d < D; ++d) Kx(j, d) = K(j, d);
    for (int j = 0; j < g.n_tail; ++j)
      for (int d = 0; d < D; ++d) KTx(j, D + d) = KT(j, d);
    const auto r = tp::ref::attention_body_tail(Qx.view(), Kx.view(), V.view(), KTx.view(), VT.view(), 1.0);
    std::copy(r.o.data.begin(), r.o.data.end(), p->ref.begin() + (std::ptrdiff_t)h * g.n_q * Dv);
    for (int i = 0; i < g.n_q; ++i) {
      auto S_of = [&](const tp::ref::matrix<double>& Km) {
        for (std::size_t j = 0; j < Km.rows; ++j) {
          double s = 0;
          for (int d = 0; d < D; ++d) s += std::fabs(Q(i, d) * Km(j, d));
          p->S = std::max(p->S, scale * s);
        }
      };
      S_of(K);
      S_of(KT);
    }
    for (double x : V.data) p->vmax = std::max(p->vmax, std::fabs(x));
    for (double x : VT.data) p->vmax = std::max(p->vmax, std::fabs(x));
  }
  const double u = std::ldexp(1.0, -24);
  auto gamma = [u](double n) { return n * u / (1 - n * u); };
  const double n_terms = g.n_kv + g.n_tail + 2.0 * g.cus * g.occupancy + 8;
  // S bounds |scale·q·k|; q' = fp16(q·scale) is within a factor (1 + 2^-11) of q·scale.
  const double S = p->S * (1 + std::ldexp(1.0, -11));
  const double eps_p = gamma(D + 2) * S + (2 * S + 4) * u + 2 * u;
  const double eps_w = gamma(n_terms) + (2 * S + 4) * u;
  // VKQ passes through fp16 in the combine (tile_Q): each stored partial A has |δA| <= 2^-11·|A| + 2^-25 (half an
  // fp16 subnormal step). Normalised, the relative part adds 2^-11·vmax (|A| <= L·vmax per partial); the absolute
  // part adds at most n_parts·2^-25 / L_min, where the partial holding the row max has weight 1 and row sum
  // L >= e^-FATTN_KQ_MAX_OFFSET = 1/8, over n_parts <= 2·blocks + 8 partials (np <= 8).
  const double n_parts = 2.0 * g.cus * g.occupancy + 8;
  p->bound = p->vmax * (2 * (eps_p + gamma(n_terms)) + 2 * eps_w + 4 * u + std::ldexp(1.0, -11)) +
             8 * n_parts * std::ldexp(1.0, -25);
  return p;
}

row_check check_rows(const std::vector<float>& out, const prepared& p, int Dv) {
  row_check rc;
  const std::size_t rows = p.ref.size() / Dv;
  for (std::size_t r = 0; r < rows; ++r) {
    const auto e = tp::ref::max_abs_err(std::span<const float>(out.data() + r * Dv, Dv),
                                        std::span<const double>(p.ref.data() + r * Dv, Dv));
    rc.max_err = std::max(rc.max_err, e.value);
    if (!(e.value <= p.bound)) rc.wrong.insert((long long)r);
  }
  rc.rmse = tp::ref::rmse(std::span<const float>(out), std::span<const double>(p.ref));
  return rc;
}

tp::probe::case_name geometry_id(const char* probe, const geometry& g) {
  tp::probe::case_name n(probe);
  n("cfg", configs[g.config].name)("kernel", tp::fattn::to_string(g.kernel))("nq", g.n_q)("nkv", g.n_kv)(
      "tail", g.n_tail)("heads", g.n_head);
  if (g.gqa != 1 || g.ncols2 != 1) n("gqa", g.gqa)("ncols2", g.ncols2);
  n("cus", g.cus)("occ", g.occupancy)("data", g.data == "given" && g.given ? g.given->label : g.data);
  if (g.data == "random") n("dseed", g.data_seed);
  if (g.q_gain != 1.0) n("qgain", g.q_gain);
  if (!g.kvarn) n("kvarn", false);
  if (g.records_bits > 0) n("records", g.records_bits)("rtail", g.records_tail);
  return n;
}

std::vector<geometry> shrink_geometry(const geometry& g) {
  std::vector<geometry> out;
  if (g.given) {  // given rows fix the sizes: only the device can shrink
    if (g.cus > 1) { auto s = g; s.cus = 1; s.occupancy = 1; out.push_back(s); }
    return out;
  }
  const int ncols1 = configs[g.config].ncols / g.ncols2, nb = configs[g.config].nbatch_fa;
  auto push = [&](geometry s) { out.push_back(s); };
  // A records case keeps a recorded group: group 0, one record, the tail window.
  const int kv_min = g.records_bits > 0 ? 128 * (g.records_tail + 2) : g.kvarn ? 128 : nb;
  {
    // Everything at its floor first (one head, one tile, one block, one tail row): one run settles most shrinks.
    geometry s = g;
    s.n_head = 1;
    s.n_q = std::min(g.n_q, ncols1);
    s.n_kv = std::min(g.n_kv, kv_min);
    s.n_tail = std::min(g.n_tail, 1);
    s.cus = 1;
    s.occupancy = 1;
    if (s.n_head != g.n_head || s.n_q != g.n_q || s.n_kv != g.n_kv || s.n_tail != g.n_tail || s.cus != g.cus ||
        s.occupancy != g.occupancy)
      push(s);
  }
  if (g.n_head > 1) { auto s = g; s.n_head = 1; push(s); s = g; s.n_head = g.n_head / 2; push(s); }
  if (g.n_q > ncols1) { auto s = g; s.n_q = std::max(ncols1, (g.n_q / 2 + ncols1 - 1) / ncols1 * ncols1); push(s); s = g; s.n_q -= ncols1; push(s); }
  if (g.n_kv > kv_min) { auto s = g; s.n_kv = std::max(kv_min, g.n_kv / 2 / kv_min * kv_min); push(s); }
  if (g.n_tail > 1) { auto s = g; s.n_tail = 1; push(s); }
  if (g.cus > 1) { auto s = g; s.cus = g.cus / 2; push(s); s = g; s.cus -= 1; push(s); }
  return out;
}

std::string shrink_step(const geometry& g) {
  return "h" + std::to_string(g.n_head) + ".q" + std::to_string(g.n_q) + ".kv" + std::to_string(g.n_kv) + ".t" +
         std::to_string(g.n_tail) + ".c" + std::to_string(g.cus) + ".o" + std::to_string(g.occupancy);
}

std::set<long long> rows_of_tiles(const geometry& g, const std::vector<int>& tile_blocks, bool whole) {
  // Tiles in launch order: K/V head, then Q-head group of ncols2, then token block of ncols1 (fattn-kernel.md §6).
  std::set<long long> rows;
  const int ncols1 = configs[g.config].ncols / g.ncols2, iter_j = (g.n_q + ncols1 - 1) / ncols1;
  const int iter_z = (g.gqa + g.ncols2 - 1) / g.ncols2;
  for (std::size_t t = 0; t < tile_blocks.size(); ++t) {
    if ((tile_blocks[t] == 1) != whole) continue;
    const int kvh = int(t) / (iter_j * iter_z), group = int(t) / iter_j % iter_z, jt = int(t) % iter_j;
    for (int c = group * g.ncols2; c < std::min(g.gqa, (group + 1) * g.ncols2); ++c)
      for (int q = jt * ncols1; q < std::min(g.n_q, (jt + 1) * ncols1); ++q)
        rows.insert(((long long)kvh * g.gqa + c) * g.n_q + q);
  }
  return rows;
}


void add_ladder_options(tp::probe::app& app, ladder_options& lo) {
  app.cli().add_flag("--ladder", lo.on,
                     "print the accuracy ladder (RMSE vs fp64 per head dim 128/256/512 and KV length) of the --variant "
                     "list instead of running the cases");
  app.cli()
      .add_option("--ladder-max-kv", lo.max_kv, "longest KV length of the ladder, 256..65536")
      ->check(CLI::Range(256, 65536))
      ->capture_default_str();
}

namespace {
// The ladder's yardstick for a binary16 VKQ accumulator (the tree's RDNA kernels accumulate P·V with
// v_wmma_f16_16x16x16_f16, whose C and D are binary16): fp64 online softmax over the body in 16-token steps (the K
// extent of one such instruction over KV tokens), the unnormalised accumulator rounded to binary16 after every step,
// as the instruction's D holds it until the next. Q enters as the kernels read it (fp16 of q·scale); nothing else is
// rounded. Its RMSE against the fp64 answer is what binary16 accumulation alone costs; no kernel code is involved.
// Body only: NaN when the case has a tail (the ladder's race-probe rungs have none).
double f16_accumulator_rmse(const prepared& d, const geometry& g) {
  if (g.n_tail != 0) return std::nan("");
  const int D = dkq(g), Dv = dv(g);
  const float scale_f = float(1.0 / std::sqrt(double(D)));
  const auto half = [](double x) { return tp::ref::fp16_to_double(tp::ref::double_to_fp16(x, true)); };
  constexpr int step = 16;
  double sq = 0;
  for (int h = 0; h < q_heads(g); ++h) {
    const int kvh = h / g.gqa;
    const float* K = d.kb.data() + (std::size_t)kvh * g.n_kv * D;
    const float* V = d.vb.data() + (std::size_t)kvh * g.n_kv * Dv;
    for (int i = 0; i < g.n_q; ++i) {
      const float* q = d.q.data() + ((std::size_t)h * g.n_q + i) * D;
      std::vector<double> qs(D), scores;
      for (int c = 0; c < D; ++c) qs[c] = half(double(q[c] * scale_f));
      tp::ref::softmax_triple t(Dv);
      std::vector<double> v_rows;
      for (int j0 = 0; j0 < g.n_kv; j0 += step) {
        const int n = std::min(step, g.n_kv - j0);
        scores.assign(n, 0.0);
        v_rows.assign((std::size_t)n * Dv, 0.0);
        for (int j = 0; j < n; ++j) {
          for (int c = 0; c < D; ++c) scores[j] += qs[c] * K[(std::size_t)(j0 + j) * D + c];
          for (int c = 0; c < Dv; ++c) v_rows[(std::size_t)j * Dv + c] = V[(std::size_t)(j0 + j) * Dv + c];
        }
        t.update(scores, tp::ref::matrix_view<double>(v_rows.data(), n, Dv));
        for (double& a : t.acc) a = half(a);
      }
      const auto o = t.output();
      for (int c = 0; c < Dv; ++c) {
        const double e = o[c] - d.ref[((std::size_t)h * g.n_q + i) * Dv + c];
        sq += e * e;
      }
    }
  }
  return std::sqrt(sq / double(d.ref.size()));
}
}  // namespace

int run_ladder(const std::vector<std::string>& variants, tp::backend backend, const char* probe, const char* sched,
               int n_tail, int max_kv) {
  std::vector<std::pair<std::string, const tp::fattn::ops*>> vs;
  for (const std::string& name : variants) {
    const auto* o = tp::find_variant<tp::fattn::ops>("fattn", name, backend);
    if (!o) {
      std::fprintf(stderr, "%s: --ladder: variant %s is not built for --backend %s\n", probe, name.c_str(),
                   tp::to_string(backend));
      return 2;
    }
    vs.emplace_back(name, o);
  }
  const bool packed = std::any_of(variants.begin(), variants.end(), [](const auto& n) { return is_tree_variant(n); });
  std::vector<std::string> refused;
  const auto policy = std::string(sched) == "adversarial" ? tp::schedule_policy::adversarial
                                                          : tp::schedule_policy::in_order;
  std::printf("%s accuracy ladder: RMSE vs fp64 (KVarN 6-bit body + %d f16 tail rows, one 64-column tile%s, one "
              "block, %s schedule, --backend %s); upstream convention RMSE <= 1e-2\n",
              probe, n_tail, packed ? " of 8 tokens x 8 Q heads" : "", sched, tp::to_string(backend));
  std::printf("%-6s %-6s", "D", "n_kv");
  for (auto& v : vs) std::printf(" %14s", v.first.c_str());
  std::printf(" %14s\n", "ref f16-acc");
  // The tree instances (kernels/fattn_tree/instances.h) of each head dim: D128 f16, D256 KVarN, no D512.
  const std::pair<const char*, tp::fattn::kernel_kind> rungs[] = {
      {"rdna-d128-ncols64", packed ? tp::fattn::kernel_kind::f16 : tp::fattn::kernel_kind::kvarn_kvarn},
      {"rdna-d256-ncols64", tp::fattn::kernel_kind::kvarn_kvarn},
      {"rdna-d512-ncols64", tp::fattn::kernel_kind::kvarn_kvarn}};
  for (const auto& [cfg, kind] : rungs)
    for (int kv = 256; kv <= max_kv; kv *= 2) {
      geometry g;
      if (packed) {
        g = tree_geometry(cfg, 1, 1, kind, kv);
      } else {
        g.config = tp::fattn::find_config(cfg);
        g.n_q = 64;
        g.n_kv = kv;
        g.cus = 1;
      }
      g.n_tail = n_tail;
      const auto data = prepare(g);
      std::printf("%-6d %-6d", dkq(g), kv);
      for (auto& v : vs) {
        (void)tp::set_schedule(backend, policy, 0, false);  // the ladder measures accuracy: no race detector
        try {
          const auto r = v.second->run(g.config, data->problem(g), tp::fattn::device_model{1, 1, true},
                                       tp::fattn::run_options{.with_tail_merge = n_tail > 0});
          std::printf(" %14.3e", tp::ref::rmse(std::span<const float>(r.out), std::span<const double>(data->ref)));
        } catch (const tp::fattn::no_device_code&) {
          std::printf(" %14s", "n/a (no code)");
        } catch (const std::invalid_argument&) {
          std::printf(" %14s", "n/a (not built)");
        } catch (const tp::device_error& e) {
          // The device refused or stopped the launch (e.g. more dynamic LDS than gfx1100's 64 KiB): no figure, and
          // the reason under the table.
          std::printf(" %14s", "n/a (device)");
          refused.push_back(v.first + " at D" + std::to_string(dkq(g)) + ", n_kv " + std::to_string(kv) + ": " +
                            e.what());
        }
        std::fflush(stdout);
      }
      std::printf(" %14.3e\n", f16_accumulator_rmse(*data, g));
    }
  std::printf("ref f16-acc: fp64 attention with the unnormalised P.V accumulator rounded to binary16 every 16 KV tokens "
              "(a binary16-accumulating WMMA's C/D), nothing else rounded but Q's fp16 input: what binary16 accumulation "
              "alone costs\n");
  for (const std::string& r : refused) std::printf("n/a (device): %s\n", r.c_str());
  return 0;
}

void tile_bench::add(const std::string& variant, long long tiles, double seconds) {
  auto& [t, s] = per_variant[variant];
  t += tiles;
  s += seconds;
}

std::vector<std::string> tile_bench::lines() const {
  std::vector<std::string> out{"tiles/s (kernel runs on the emulator, shrinking included):"};
  for (const auto& [v, ts] : per_variant) {
    char line[160];
    std::snprintf(line, sizeof line, "  %-20s %7lld tiles in %8.3f s = %8.1f tiles/s", v.c_str(), ts.first, ts.second,
                  ts.second > 0 ? double(ts.first) / ts.second : 0.0);
    out.emplace_back(line);
  }
  return out;
}

std::shared_ptr<const prepared> data_cache::get(const geometry& g) {
  const std::string key = geometry_id("data", g).str();
  if (auto it = map_.find(key); it != map_.end()) return it->second;
  if (map_.size() >= cap_) map_.clear();
  return map_[key] = prepare(g);
}

void device_fit::init(const tp::probe::app& app) {
  if (known_) return;
  known_ = true;
  backend_ = app.opts().backend;
  const tp::backend b = backend_named(backend_);
  limit_ = tp::shared_bytes_per_block(b);
  if (const auto* ops = tp::find_variant<tp::fattn::ops>("fattn", "fixed", b)) smem_bytes_ = ops->smem_bytes;
}

bool device_fit::fits(const tp::probe::app& app, int config) {
  init(app);
  return !limit_ || !smem_bytes_ || std::size_t(smem_bytes_(config)) <= *limit_;
}

void device_fit::require(const tp::probe::app& app, int config, const std::string& case_id) {
  if (fits(app, config)) return;
  throw tp::probe::usage_error("case " + case_id + ": config " + configs[config].name + " needs " +
                               std::to_string(smem_bytes_(config)) + " bytes of shared memory per block; the " +
                               backend_ + " device has " + std::to_string(*limit_));
}

std::vector<std::string> device_fit::notes() const {
  std::vector<std::string> out;
  for (const auto& [config, n] : left_out_)
    out.push_back("not run on this " + backend_ + " device: " + std::to_string(n) + " case(s) of config " +
                  configs[config].name + ", whose body kernel needs " + std::to_string(smem_bytes_(config)) +
                  " bytes of shared memory per block (the device has " + std::to_string(*limit_) + ")");
  return out;
}

void install_common(tp::probe::app& app, common_state& st, const char* probe, const char* ladder_sched, int ladder_tail,
                    std::function<std::vector<std::string>()> probe_notes) {
  add_ladder_options(app, st.ladder);
  app.before_run([&app, &st, probe, ladder_sched, ladder_tail](const tp::probe::case_list&) -> std::optional<int> {
    if (!st.ladder.on) return std::nullopt;
    return run_ladder(app.opts().variants, backend_named(app.opts().backend), probe, ladder_sched, ladder_tail,
                      st.ladder.max_kv);
  });
  app.notes([&app, &st, probe_notes = std::move(probe_notes)] {
    std::vector<std::string> out = probe_notes ? probe_notes() : std::vector<std::string>{};
    for (auto& l : st.fit.notes()) out.push_back(std::move(l));
    if (app.opts().bench)
      for (auto& l : st.bench.lines()) out.push_back(l);
    return out;
  });
  app.shrunk_parent([](std::string_view id) { return tp::probe::shrunk_parent(id, 1); });
}

bool is_tree_variant(std::string_view name) { return name.starts_with("tree-"); }

bool tree_run(const tp::probe::app& app) {
  const auto& v = app.opts().variants;
  return std::any_of(v.begin(), v.end(), [](const std::string& n) { return is_tree_variant(n); });
}

geometry tree_geometry(const char* config, int tiles, int cus, tp::fattn::kernel_kind kernel, int n_kv) {
  constexpr int packed = 8;  // instances.h: every tree instance packs 8 Q heads per tile
  geometry g;
  g.config = tp::fattn::find_config(config);
  g.kernel = kernel;
  g.gqa = g.ncols2 = packed;
  g.n_q = tiles * configs[g.config].ncols / packed;
  g.n_kv = n_kv;
  g.n_tail = 0;
  g.cus = cus;
  return g;
}

std::uint32_t wrong_rows_digest(const std::set<long long>& rows) {
  std::uint32_t h = 2166136261u;
  for (const long long r : rows)
    for (int b = 0; b < 8; ++b) {
      h ^= unsigned((unsigned long long)r >> (8 * b)) & 0xFFu;
      h *= 16777619u;
    }
  return h;
}

tp::backend backend_named(const std::string& name) {
  return name == "cuda" ? tp::backend::cuda : name == "hip" ? tp::backend::hip : tp::backend::cpu;
}

void schedule_case(tp::backend b, tp::schedule_policy p, std::uint64_t seed) {
  (void)tp::set_schedule(b, p, seed, true);
  (void)tp::take_races(b);
}

std::optional<tp::probe::hazard_evidence> take_hazards(tp::backend b, std::size_t keep_pairs) {
  auto r = tp::take_races(b);
  if (!r) return std::nullopt;
  tp::probe::hazard_evidence e;
  e.raw = r->raw;
  e.war = r->war;
  e.waw = r->waw;
  for (auto& f : r->first)
    if (e.first.size() < keep_pairs) e.first.push_back(std::move(f));
  return e;
}

}  // namespace fa_probe
