// Entry file of the fattn family: compiled once per variant (upstream, fixed, fixed-minus-NNNN, mutant-*) and backend.
// Device code is in the .cuh files; the host side below mirrors launch_fattn (block count, stream-k fixup choice)
// and the KVarN body + tail flow: memset body meta, body pass, fixup, tail pass, tail merge.
#include "fattn-mma-f16.cuh"  // relative: each variant tree has its own patched copy

#if !defined(TP_DEVICE_ONLY)
#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

#include "api.h"
#include "simt/host.h"
#include "simt/registry.h"

namespace TP_VARIANT_NS {
namespace {

using tp::fattn::device_model;
using tp::fattn::fixup_kind;
using tp::fattn::launch_plan;
using tp::fattn::problem;
using tp::fattn::run_result;

// Instantiations of the config table in api.h (index -> template), checked against it at compile time.
template <int I>
using cfg_at = fattn_cfg<tp::fattn::configs[I].DKQ, tp::fattn::configs[I].DV, tp::fattn::configs[I].ncols,
                         tp::fattn::configs[I].nwarps, tp::fattn::configs[I].cols_per_warp,
                         tp::fattn::configs[I].nbatch_fa, tp::fattn::configs[I].nbatch_combine>;
static_assert(tp::fattn::n_configs == 7, "extend dispatch() when the config table grows");

template <class F>
decltype(auto) dispatch(int config, F&& f) {
  switch (config) {
    case 0: return f(cfg_at<0>{});
    case 1: return f(cfg_at<1>{});
    case 2: return f(cfg_at<2>{});
    case 3: return f(cfg_at<3>{});
    case 4: return f(cfg_at<4>{});
    case 5: return f(cfg_at<5>{});
    case 6: return f(cfg_at<6>{});
  }
  throw std::invalid_argument("fattn: unknown config index " + std::to_string(config));
}

const tp::fattn::kernel_config& config_row(int config) {
  if (config < 0 || config >= tp::fattn::n_configs)
    throw std::invalid_argument("fattn: unknown config index " + std::to_string(config));
  return tp::fattn::configs[config];
}

// launch_fattn (docs/bugs/fattn-kernel.md §7), with the config's nbatch_fa; api.h's stream_k_plan.
launch_plan plan(int config, const problem& p, const device_model& dev) {
  const auto& c = config_row(config);
  return tp::fattn::stream_k_plan(c.nbatch_fa, c.ncols / p.ncols2, p, dev, dev.stream_k_always);
}

// Most tiles any block touches: the segment-log slots per block.
int max_segments_per_block(const launch_plan& lp) {
  long long most = 1;
  for (int b = 0; b < lp.blocks; ++b) {
    const long long begin = (long long)b * lp.units / lp.blocks, end = (long long)(b + 1) * lp.units / lp.blocks;
    if (end > begin) most = std::max(most, (end - 1) / lp.iter_k - begin / lp.iter_k + 1);
  }
  return int(most);
}

struct body_buffers {
  tp::device_buffer<float> Q, K, V, dst, final_meta, fix_meta, fix_data;
  tp::device_buffer<int> seg_log;
  int seg_cap;
  body_buffers(std::size_t q, std::size_t k, std::size_t v, std::size_t rows, std::size_t dv, std::size_t slots,
               int blocks, int seg_cap, bool meta_uninitialised = false)
      : Q(q), K(k), V(v), dst(rows * dv),
        final_meta(meta_uninitialised ? tp::device_buffer<float>(rows * 2, tp::uninitialised)
                                      : tp::device_buffer<float>(rows * 2)),
        fix_meta(2 * slots * 2), fix_data(slots * dv),
        seg_log(std::size_t(blocks) * seg_cap * 5), seg_cap(seg_cap) {
    seg_log.fill(-1);
  }
  fattn_args args(const problem& p, const launch_plan& lp, int ncols) {
    return fattn_args{Q.view(), K.view(), V.view(), dst.view(), final_meta.view(), fix_meta.view(), fix_data.view(),
                      p.n_q, p.n_kv, p.n_head, lp.iter_k, lp.iter_j, tiling(p, lp, ncols), p.scale,
                      tp::fattn::is_kvarn_kv(p.kernel) ? 1 : 0, tp::fattn::has_entry_barrier(p.kernel) ? 1 : 0, 1,
                      seg_cap, seg_log.view()};
  }
  static fa_tiling tiling(const problem& p, const launch_plan& lp, int ncols) {
    return fa_tiling{p.n_q, p.gqa, ncols / p.ncols2, p.ncols2, lp.iter_j, lp.iter_z};
  }
  std::vector<tp::fattn::segment> segments() const {
    const std::vector<int> log = seg_log.to_host();
    std::vector<tp::fattn::segment> out;
    for (std::size_t i = 0; i + 5 <= log.size(); i += 5) {
      if (log[i] < 0) continue;
      out.push_back({int(i / 5 / seg_cap), log[i], log[i + 1], log[i + 2], log[i + 3] != 0, log[i + 4] != 0});
    }
    return out;
  }
};

// The tail pass, the merge, and the CPU backend's evidence about body meta.
template <class C>
void finish(const problem& p, body_buffers& bb, run_result& r, const tp::fattn::run_options& opt) {
  const std::size_t rows = std::size_t(p.n_head) * p.gqa * p.n_q;
  r.body = bb.dst.to_host();
  r.segments = bb.segments();
  r.body_meta = bb.final_meta.to_host();
  if (auto w = bb.final_meta.kernel_written()) {
    r.body_meta_written.assign(rows, false);
    for (std::size_t i = 0; i < rows; ++i) r.body_meta_written[i] = (*w)[2 * i] && (*w)[2 * i + 1];
  }
  if (!opt.with_tail_merge) {
    r.out = r.body;
    return;
  }
  tp::device_buffer<float> Kt(p.k_tail.size()), Vt(p.v_tail.size()), tail(rows * C::DV), tail_meta(rows * 2),
      out(rows * C::DV);
  Kt.upload(p.k_tail.data(), p.k_tail.size());
  Vt.upload(p.v_tail.data(), p.v_tail.size());
  TP_LAUNCH((flash_attn_ext_tail_f16<C::DKQ, C::DV>), tp::dims{unsigned(rows), unsigned(fa_warp)}, bb.Q.view(),
            Kt.view(), Vt.view(), tail.view(), tail_meta.view(), p.n_q, p.gqa, p.n_tail, p.scale);
  TP_LAUNCH(k_flash_attn_ext_tail_partials_merge<C::DV>, tp::dims{unsigned(rows), unsigned(fa_warp)}, bb.dst.view(),
            bb.final_meta.view(), tail.view(), tail_meta.view(), out.view());
  r.out = out.to_host();
  if (auto u = bb.final_meta.unwritten_reads()) {
    r.merge_unwritten_meta_reads = u->total();
    if (!u->first.empty()) r.first_unwritten_meta_read = tp::describe(u->first.front());
  }
}

template <class C>
body_buffers make_buffers(const problem& p, std::size_t slots, int blocks, int seg_cap, bool memset_meta = true) {
  const std::size_t rows = std::size_t(p.n_head) * p.gqa * p.n_q;
  body_buffers bb(p.q.size(), p.k_body.size(), p.v_body.size(), rows, C::DV, slots, blocks, seg_cap, !memset_meta);
  bb.Q.upload(p.q.data(), p.q.size());
  bb.K.upload(p.k_body.data(), p.k_body.size());
  bb.V.upload(p.v_body.data(), p.v_body.size());
  if (memset_meta) bb.final_meta.fill(0.0f);  // the memset before the body pass (fattn-tail.cuh)
  return bb;
}

run_result run(int config, const problem& p, const device_model& dev, const tp::fattn::run_options& opt) {
  tp::fattn::check_problem(config_row(config), p);
  return dispatch(config, [&](auto cfg) {
    using C = decltype(cfg);
    run_result r;
    r.plan = plan(config, p, dev);
    r.tile_blocks = tp::fattn::blocks_per_tile(r.plan);
    const launch_plan& lp = r.plan;
    body_buffers bb = make_buffers<C>(p, std::size_t(lp.blocks) * C::ncols, lp.blocks, max_segments_per_block(lp),
                                      opt.memset_body_meta);
    const fattn_args a = bb.args(p, lp, C::ncols);
    TP_LAUNCH(flash_attn_ext_f16<C>, tp::dims{unsigned(lp.blocks), unsigned(C::nthreads), std::size_t(C::smem_bytes)}, a);
    if (lp.fixup == fixup_kind::uniform)
      TP_LAUNCH((flash_attn_stream_k_fixup_uniform<C::DV, C::ncols>), tp::dims{unsigned(lp.ntiles), unsigned(fa_warp)},
                bb.dst.view(), bb.final_meta.view(), bb.fix_meta.view(), bb.fix_data.view(), a.tl, lp.blocks);
    else if (lp.fixup == fixup_kind::general)
      TP_LAUNCH((flash_attn_stream_k_fixup_general<C::DV, C::ncols>), tp::dims{unsigned(lp.blocks), unsigned(fa_warp)},
                bb.dst.view(), bb.final_meta.view(), bb.fix_meta.view(), bb.fix_data.view(), a.tl, lp.iter_k,
                lp.units);
    finish<C>(p, bb, r, opt);
    return r;
  });
}

run_result run_parallel_blocks(int config, const problem& p, int parallel_blocks) {
  tp::fattn::check_problem(config_row(config), p);
  if (parallel_blocks < 1) throw std::invalid_argument("fattn: parallel_blocks must be >= 1");
  return dispatch(config, [&](auto cfg) {
    using C = decltype(cfg);
    run_result r;
    launch_plan& lp = r.plan;
    lp.iter_k = (p.n_kv + C::nbatch_fa - 1) / C::nbatch_fa;
    lp.iter_j = (p.n_q + C::ncols / p.ncols2 - 1) / (C::ncols / p.ncols2);
    lp.iter_z = (p.gqa + p.ncols2 - 1) / p.ncols2;
    lp.ntiles = lp.iter_j * lp.iter_z * p.n_head;
    lp.units = (long long)lp.iter_k * lp.ntiles;
    lp.blocks = lp.ntiles * parallel_blocks;
    lp.stream_k = false;
    r.tile_blocks.assign(lp.ntiles, parallel_blocks);
    body_buffers bb = make_buffers<C>(p, std::size_t(lp.blocks) * C::ncols, lp.blocks, 1);
    const fattn_args a = bb.args(p, lp, C::ncols);
    TP_LAUNCH(flash_attn_ext_f16_parallel_blocks<C>, tp::dims{unsigned(lp.blocks), unsigned(C::nthreads), std::size_t(C::smem_bytes)}, a, parallel_blocks);
    TP_LAUNCH((flash_attn_combine_results<C::DV, C::ncols>), tp::dims{unsigned(lp.ntiles), unsigned(fa_warp)},
              bb.dst.view(), bb.final_meta.view(), bb.fix_meta.view(), bb.fix_data.view(), a.tl, parallel_blocks,
              lp.blocks);
    finish<C>(p, bb, r, tp::fattn::run_options{});
    return r;
  });
}

int smem_bytes(int config) {
  return dispatch(config, [](auto cfg) { return int(decltype(cfg)::smem_bytes); });
}

}  // namespace

const tp::fattn::ops fattn_ops{TP_VARIANT_NAME, &plan, &run, &run_parallel_blocks, &smem_bytes};
TP_REGISTER_VARIANT(fattn, tp::fattn::ops, fattn_ops);

}  // namespace TP_VARIANT_NS
#endif  // !TP_DEVICE_ONLY
