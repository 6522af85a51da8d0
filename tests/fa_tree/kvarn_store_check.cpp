// The tree's own KVarN store kernels (ops.kvarn_store: kernels/fattn_tree/kvarn_store.cu) checked on their output,
// decoded by the oracle's reader of the record layout (reference/kvarn_record.h), never by the tree's code.
//
//   tp-fa-tree-kvarn-store --variant tree-fixed [--config rdna-d256-ncols64] [--n-kv 512] [--bits 4] [--seed 1]
//
// Two stores of the same seeded rows (one K/V head, normal values, fp16): A with a one-group tail window (groups
// 1..live-1 become records), B with a window of every group (nothing recorded: every group stays in the stage, as the
// store rotated it). Checked:
//   exact  A's and B's stage hold the same bits for group 0 and the live group (the same rotation, the same slots);
//          every record row holds code 0 and code 2^bits - 1 (its min and max map to the range ends: q = round(0) and
//          round(qmax)), unless the row is constant;
//   bound  B's stage is the normalised Walsh-Hadamard transform of the rows per 128-wide slice, rounded to fp16:
//          |stage - W·x| <= 2^-11·|W·x| + 2^-25 + 9·2^-24·0.0884·Σ|x| (seven binary32 butterfly adds, the scale's
//          rounding and its own, each at most 2^-24 of a partial sum <= Σ|x|; then fp16 round to nearest);
//          each recorded value ŷ = (q·s + z)·o against the value y it quantised (B's stage):
//          |ŷ - y| <= (1 + 4η)·[o·(s/2 + 3u·qmax·s) + 3u·|y| + η·o·(2·|q·s| + 2·|z|) + o·(q + 1)·2^-25],
//          u = 2^-24, η = 2^-11 + 2^-23. Derivation: with R, C the store's binary32 row and column factors, x = y/(C·R)
//          is within 2u of exact; |x - (lo + q·scale)| <= scale/2 + 2u·(hi - lo) (q = round of a binary32 quotient
//          within 2u, hi - lo <= qmax·scale·(1 + u)); the stored s = fp16(R·scale), z = fp16(R·lo), o = fp16(C) are
//          each within η relative (+2^-25 for fp16 subnormals) of R·scale, R·lo, C; so ŷ differs from
//          (lo + q·scale)·R·C by at most η·o·(|q·s| + |z|)·2 + o·(q + 1)·2^-25, and (lo + q·scale)·R·C from y by
//          o·(s/2 + 2u·qmax·s) + 2u·|y|, each to first order (the 1 + 4η covers the second).
// Exit: 0 all checks hold; 1 a check failed (each failure printed with its group, head, row and column); 2 bad usage;
// 3 a device error; 77 no HIP device.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "kernels/fattn/api.h"
#include "probes/common/probe.h"
#include "reference/codecs.h"
#include "reference/kvarn.h"
#include "reference/kvarn_record.h"
#include "simt/host.h"
#include "simt/registry.h"

namespace {

constexpr int G = tp::ref::kvarn_group;

struct counts {
  long long checked = 0, failed = 0;
  double worst = 0;  // max error / bound
  void add(bool ok, double ratio) {
    ++checked;
    failed += !ok;
    worst = std::max(worst, ratio);
  }
};

}  // namespace

int main(int argc, char** argv) {
  CLI::App cli{"the tree's KVarN store kernels, decoded by the oracle's record reader"};
  std::string variant, config = "rdna-d256-ncols64";
  int n_kv = 512, bits = 4;
  std::uint64_t seed = 1;
  cli.add_option("--variant", variant, "tree variant whose store kernels run")->required();
  cli.add_option("--config", config, "a config of kernels/fattn/api.h (its head dim: 128-wide slices)");
  cli.add_option("--n-kv", n_kv, "tokens stored (>= 384: at least one record)")->check(CLI::Range(384, 8192));
  cli.add_option("--bits", bits, "record bits")->check(CLI::IsMember({2, 3, 4, 5, 6, 8}));
  cli.add_option("--seed", seed, "data seed");
  try {
    cli.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return cli.exit(e) == 0 ? 0 : 2;
  }
  const int cfg = tp::fattn::find_config(config);
  const auto* ops = tp::find_variant<tp::fattn::ops>("fattn", variant, tp::backend::hip);
  if (cfg < 0 || !ops || !ops->kvarn_store) {
    std::fprintf(stderr, "tp-fa-tree-kvarn-store: unknown --config %s, or no tree variant %s on hip\n", config.c_str(),
                 variant.c_str());
    return 2;
  }
  if (!tp::backend_available(tp::backend::hip)) {
    std::printf("skipped: no HIP device (TILEPROBE_HIP=sim:gfx1100 runs the store on tileprobe's simulator)\n");
    return 77;
  }
  const int D = tp::fattn::configs[cfg].DKQ, slices = D / G, live = (n_kv - 1) / G;
  std::printf("device: %s\nstore: %s, D%d (%d record heads), %d tokens, %d bits, seed %llu\n",
              tp::device_description(tp::backend::hip).c_str(), variant.c_str(), D, slices, n_kv, bits,
              (unsigned long long)seed);
  // One K/V head of normal fp16 values (the probes' draw: splitmix64 + Box-Muller), the same rows for K and V.
  std::vector<float> rows(std::size_t(n_kv) * D), q(std::size_t(8) * D, 0.0f);
  tp::probe::rng r(seed);
  for (float& x : rows) {
    const double u1 = std::max(r.unit(), 1e-300), u2 = r.unit();
    x = tp::ref::fp16_to_float(
        tp::ref::double_to_fp16(std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2), true));
  }
  tp::fattn::problem p;
  p.n_q = 1;
  p.n_kv = n_kv;
  p.n_head = 1;
  p.kernel = tp::fattn::kernel_kind::kvarn_kvarn;
  p.k_body = rows;
  p.v_body = rows;
  try {
    tp::fattn::kvarn_store_params a_params, b_params;
    a_params.bits = b_params.bits = bits;
    a_params.tail_groups = 1;
    b_params.tail_groups = live;
    const auto A = ops->kvarn_store(cfg, p, a_params), B = ops->kvarn_store(cfg, p, b_params);
    const double u = std::ldexp(1.0, -24), eta = std::ldexp(1.0, -11) + std::ldexp(1.0, -23);
    const int qmax = (1 << bits) - 1, rb = tp::ref::kvarn_record_bytes(bits);
    int shown = 0;
    auto fail = [&](const char* what, int side, int group, int head, int row, int col, double got, double want,
                    double bound) {
      if (shown++ < 10)
        std::printf("FAIL %s: %s group %d head %d row %d col %d: %.9g vs %.9g (bound %.3g)\n", what,
                    side ? "V" : "K", group, head, row, col, got, want, bound);
    };
    counts stage_exact, rotation, ends, values;
    for (int side = 0; side < 2; ++side) {
      const auto& a = side ? A.v : A.k;
      const auto& b = side ? B.v : B.k;
      const int nh = A.n_record_heads;
      auto stage_at = [&](const tp::fattn::kvarn_store_side& s, int tail, int token, int h, int d) {
        const int g = token / G, slot = g == 0 ? 0 : 1 + (g - 1) % tail;
        return s.stage[((std::size_t(slot) * G + token % G) * nh + h) * G + d];
      };
      for (int h = 0; h < nh; ++h)
        for (int t = 0; t < n_kv; ++t) {
          const int g = t / G;
          // B's stage: the normalised WHT of each 128-wide slice, fp16.
          std::vector<double> w(G);
          double l1 = 0;
          for (int d = 0; d < G; ++d) {
            w[d] = rows[std::size_t(t) * D + h * G + d];
            l1 += std::fabs(w[d]);
          }
          tp::ref::walsh_hadamard(w);
          for (int d = 0; d < G; ++d) {
            const double y = tp::ref::fp16_to_double(stage_at(b, live, t, h, d));
            const double bound = std::ldexp(std::fabs(w[d]), -11) + std::ldexp(1.0, -25) + 9 * u * 0.0884 * l1;
            const double err = std::fabs(y - w[d]);
            rotation.add(err <= bound, err / bound);
            if (err > bound) fail("rotation", side, g, h, t % G, d, y, w[d], bound);
            if (g == 0 || g == live) {  // staged in both stores: the same bits
              const bool same = stage_at(a, 1, t, h, d) == stage_at(b, live, t, h, d);
              stage_exact.add(same, same ? 0 : 1);
              if (!same) fail("stage bits", side, g, h, t % G, d, stage_at(a, 1, t, h, d), stage_at(b, live, t, h, d), 0);
            }
          }
        }
      tp::ref::kvarn_cache_layout la;
      la.bits = bits;
      la.n_record_heads = nh;
      la.groups_per_stream = A.groups_per_stream;
      la.stage_groups = A.stage_groups;
      la.tail_groups = 1;
      la.n_kv = n_kv;
      la.value = side == 1;
      for (int g = 1; g <= live - 1; ++g) {
        if (!tp::ref::kvarn_group_from_record(la, g)) {
          std::printf("FAIL routing: group %d is not read from a record with a one-group tail\n", g);
          return 1;
        }
        for (int h = 0; h < nh; ++h) {
          const auto rec = std::span<const std::uint8_t>(a.records).subspan((std::size_t(g) * nh + h) * rb, rb);
          for (int row = 0; row < G; ++row) {
            std::uint32_t lo = 0xFFFFFFFF, hi = 0;
            double ymin = 1e300, ymax = -1e300;
            for (int col = 0; col < G; ++col) {
              const std::uint32_t code = tp::ref::kvarn_record_code(rec, bits, row, col);
              lo = std::min(lo, code);
              hi = std::max(hi, code);
              // K records: row = dim, col = token; V: row = token, col = dim.
              const int token = g * G + (side ? row : col), dim = side ? col : row;
              const double y = tp::ref::fp16_to_double(stage_at(b, live, token, h, dim));
              ymin = std::min(ymin, y);
              ymax = std::max(ymax, y);
              const auto ra = tp::ref::kvarn_record_axis(rec, bits, row), ca = tp::ref::kvarn_record_axis(rec, bits, col);
              const double s = tp::ref::fp16_to_double(ra.scale), z = tp::ref::fp16_to_double(ra.zero),
                           o = tp::ref::fp16_to_double(ca.other);
              const double yhat = tp::ref::kvarn_record_value(rec, bits, row, col);
              const double bound = (1 + 4 * eta) * (o * (s / 2 + 3 * u * qmax * s) + 3 * u * std::fabs(y) +
                                                    eta * o * (2 * std::fabs(code * s) + 2 * std::fabs(z)) +
                                                    o * (code + 1.0) * std::ldexp(1.0, -25));
              const double err = std::fabs(yhat - y);
              values.add(err <= bound, bound > 0 ? err / bound : 0);
              if (!(err <= bound)) fail("record value", side, g, h, row, col, yhat, y, bound);
            }
            if (ymax > ymin) {
              const bool ok = lo == 0 && hi == std::uint32_t(qmax);
              ends.add(ok, ok ? 0 : 1);
              if (!ok) fail("code range", side, g, h, row, -1, lo, hi, qmax);
            }
          }
        }
      }
    }
    std::printf("stage bits equal (group 0 and live group, both stores): %lld of %lld\n",
                stage_exact.checked - stage_exact.failed, stage_exact.checked);
    std::printf("stage = fp16(WHT(x)) within bound: %lld of %lld (max err/bound %.3f)\n",
                rotation.checked - rotation.failed, rotation.checked, rotation.worst);
    std::printf("record rows spanning codes 0..%d: %lld of %lld\n", qmax, ends.checked - ends.failed, ends.checked);
    std::printf("record values within the derived quantisation bound: %lld of %lld (max err/bound %.3f)\n",
                values.checked - values.failed, values.checked, values.worst);
    const bool ok = stage_exact.failed + rotation.failed + ends.failed + values.failed == 0 && values.checked > 0 &&
                    ends.checked > 0;
    std::printf("%s\n", ok ? "PASS" : "FAIL");
    return ok ? 0 : 1;
  } catch (const std::invalid_argument& e) {
    std::fprintf(stderr, "tp-fa-tree-kvarn-store: %s\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    std::printf("device error: %s\n", e.what());
    return 3;
  }
}
