// Host-side interface of the flash-attention family (plain host types; no dialect, no GPU headers).
// A probe or test reaches one variant's kernels through tp::fattn::ops, found with
// tp::find_variant<tp::fattn::ops>("fattn", variant, backend).
//
// The model keeps upstream's names and phases (docs/bugs/fattn-kernel.md §5, §6, §7, §8) and simplifies where the bugs
// do not live: plain fp32 dot products instead of MMA tiles, fp32 accumulators, Q/K/V stored as fp32 holding fp16
// values, K and V read straight from global memory (upstream stages them through tile_K/tile_V; only tile_Q matters
// here), no mask, no sinks. GQA packing is modelled (ncols = ncols1 · ncols2: a tile is ncols1 tokens × ncols2 Q heads
// of one K/V head, heads past gqa padded and never stored), and so are the three kernel kinds of kernel_kind.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace tp::fattn {

// One row of upstream's config table (docs/bugs/fattn-kernel.md §2, §10). Counts of half2 columns are kept in half2
// units, as upstream does (nbatch_combine), so `iters = (DV/2) / nbatch_combine` reads as in docs/bugs/fattn-kernel.md.
struct kernel_config {
  const char* name;
  int DKQ, DV;
  int ncols;           // Q columns (tokens) per tile
  int nwarps;
  int cols_per_warp;   // T_B_KQ::I
  int nbatch_fa;       // KV rows per softmax step; upstream's RDNA value where the row is the PR's kernel, else 32
                       // (smaller than upstream's 64..128, to keep the emulator fast; it moves no barrier)
  int nbatch_combine;  // half2 columns of VKQ per combine pass
  constexpr int np() const { return cols_per_warp > ncols ? nwarps : nwarps * cols_per_warp / ncols; }
  constexpr int combine_iters() const { return (DV / 2) / nbatch_combine; }
  constexpr int nthreads() const { return nwarps * 32; }
};

// The configurations of docs/bugs/fattn-kernel.md §10. Warps, cols_per_warp, np and combine iterations are exactly as
// tabulated.
inline constexpr kernel_config configs[] = {
    // race-prone: np 1, 2 iterations (live in pre-fix beellama once the KVarN route lifts the DKQ>128 gate). The KVarN
    // prefill kernel PR #149 ran: RDNA's D256 ncols-64 row, 128 threads, nbatch_fa 64, nbatch_combine 64.
    {"rdna-d256-ncols64", 256, 256, 64, 4, 16, 64, 64},
    // np 2: the pre-fix `if (np > 1)` barrier fires, safe
    {"rdna-d256-ncols32", 256, 256, 32, 4, 16, 32, 64},
    // D128: nbatch_combine 64 = DV/2, one iteration; np 1: only the inter-tile race can bite
    {"rdna-d128-ncols64", 128, 128, 64, 4, 16, 32, 64},
    // D512: np 1, 2 iterations
    {"rdna-d512-ncols64", 512, 512, 64, 4, 16, 32, 128},
    // the "Bee KVarN wide 16x8 verification tile": 8 warps, np 1, 2 iterations
    {"rdna-d256-ncols128", 256, 256, 128, 8, 16, 32, 64},
    // Ampere D256: nbatch_combine 128 = DV/2, one iteration: the k00 race cannot occur
    {"ampere-d256-ncols64", 256, 256, 64, 4, 16, 32, 128},
    // post-fix retune (S6): 8 warps, nbatch_combine 32, np 2, 4 iterations
    {"rdna-d256-ncols64-retuned", 256, 256, 64, 8, 16, 32, 32},
};
inline constexpr int n_configs = int(sizeof(configs) / sizeof(configs[0]));

// -1 if unknown.
inline int find_config(std::string_view name) {
  for (int i = 0; i < n_configs; ++i)
    if (name == configs[i].name) return i;
  return -1;
}

// A gfx1100-like device as launch_fattn sees it: max resident blocks = nsm * max_blocks_per_sm. Defaults: an RX 7900
// XTX (gfx1100) as the pre-fix launch sees it (docs/bugs/fattn-kernel.md §7): nsm is the runtime's
// multiProcessorCount, which HIP reports as 48 there (one per WGP in the default WGP mode); max_blocks_per_sm is the
// runtime's occupancy answer for the KVarN D256 prefill kernel, one block (its ~38 KB of shared memory plus its
// registers; an inference, which the PR's own ubatch edge corroborates).
struct device_model {
  int nsm = 48;
  int max_blocks_per_sm = 1;
  bool stream_k_always = true; // "on any AMD WMMA device" (launch_fattn's use_stream_k)
};

// The kernel instantiation by K/V types (upstream: flash_attn_ext_f16_process_tile's type_K, type_V template
// arguments). Two properties follow from it:
//   is_kvarn_kv (K or V is a KVarN type): the nstages-0 KVarN load path, and pre-fix the whole-tile dst_final_meta
//     stores are gated off (bug B);
//   both K and V KVarN (the rotated domain): the tile begins with thread 0 writing the record-axis group tags into
//     shared memory past tile_mask, then a __syncthreads() -- an entry barrier that separates consecutive tiles of
//     one stream-k block, so the inter-tile race (patch 0002) cannot happen in this kernel.
// On HIP the KVarN attention domain is always the rotated one, so ROCm runs kvarn_kvarn; the original-V domain
// (kvarn_k_original_v) is CUDA-only; f16 is the plain kernel (no KVarN, no tail merge upstream).
enum class kernel_kind { f16, kvarn_kvarn, kvarn_k_original_v };
inline const char* to_string(kernel_kind k) {
  switch (k) {
    case kernel_kind::f16: return "f16";
    case kernel_kind::kvarn_kvarn: return "kvarn-kvarn";
    case kernel_kind::kvarn_k_original_v: return "kvarn-k-orig-v";
  }
  return "?";
}
// false if `name` is none of to_string's answers.
inline bool parse_kernel_kind(std::string_view name, kernel_kind& out) {
  for (kernel_kind k : {kernel_kind::f16, kernel_kind::kvarn_kvarn, kernel_kind::kvarn_k_original_v})
    if (name == to_string(k)) {
      out = k;
      return true;
    }
  return false;
}
inline bool is_kvarn_kv(kernel_kind k) { return k != kernel_kind::f16; }
inline bool has_entry_barrier(kernel_kind k) { return k == kernel_kind::kvarn_kvarn; }

enum class fixup_kind { none, uniform, general };
inline const char* to_string(fixup_kind f) {
  switch (f) {
    case fixup_kind::none: return "none";
    case fixup_kind::uniform: return "uniform";
    case fixup_kind::general: return "general";
  }
  return "?";
}

// launch_fattn's decisions for one problem (computed by the variant, so a patch could change it).
struct launch_plan {
  int iter_k = 0, iter_j = 0, iter_z = 0, ntiles = 0;  // ntiles = ntiles_dst = iter_j * iter_z * n_head
  long long units = 0;                     // iter_k * ntiles
  int blocks = 0;
  bool stream_k = true;
  fixup_kind fixup = fixup_kind::none;
};

// Per tile: how many stream-k blocks of the plan cover it (1: a whole tile). Block b takes units
// [b·units/blocks, (b+1)·units/blocks), tile t units [t·iter_k, (t+1)·iter_k).
inline std::vector<int> blocks_per_tile(const launch_plan& lp) {
  std::vector<int> n(lp.ntiles, 0);
  for (int b = 0; b < lp.blocks; ++b) {
    const long long begin = (long long)b * lp.units / lp.blocks, end = (long long)(b + 1) * lp.units / lp.blocks;
    if (begin == end) continue;
    for (long long t = begin / lp.iter_k; t <= (end - 1) / lp.iter_k; ++t) ++n[t];
  }
  return n;
}

// One attention problem: n_head K/V heads, each shared by gqa Q heads (Q head hq uses K/V head hq / gqa). Row-major,
// fp32 holding fp16 values:
//   q      [n_head·gqa][n_q][DKQ]    k_body [n_head][n_kv][DKQ]    v_body [n_head][n_kv][DV]
//   k_tail [n_head][n_tail][DKQ]     v_tail [n_head][n_tail][DV]
// Output row r = hq*n_q + q. ncols2 is the launch's GQA packing (Q heads per tile; ncols1 = ncols / ncols2 tokens).
// KVarN K/V as a beellama tree's own store kernels leave them (kernels/fattn_tree/kvarn_store.cu runs them): per side
// (K, V) the f16 stage, stage_groups slots of 128 token rows x n_record_heads x 128 (fp16 bits), and the records,
// one per (group, record head) of record_bytes (a `bits`-bit code per value, then three fp16 axes of 128; the layout
// reference/kvarn_record.h decodes). tail_groups is the stage's lossless window after the sink group 0: the groups
// 1..live-tail_groups are read from records, the others from the stage. One stream; a record head is a 128-wide
// slice of a K/V head (head h, slice s: h·DKQ/128 + s).
struct kvarn_store_params {
  int bits = 4;         // 2, 3, 4, 5, 6 or 8 (the tree's ggml_cuda_kvarn_valid_bits)
  int iterations = 2;   // the store's Sinkhorn iterations (ggml_kvarn_store's sinkhorn_iters)
  int tail_groups = 1;  // lossless tail groups within the stage (op param 8); stage_groups = tail_groups + 1
};
struct kvarn_store_side {
  std::vector<std::uint16_t> stage;
  std::vector<std::uint8_t> records;
};
struct kvarn_records {
  kvarn_store_params params;
  int n_record_heads = 0, groups_per_stream = 0, stage_groups = 0, record_bytes = 0;
  int n_kv = 0;  // tokens stored (indices 0..n_kv-1 of stream 0)
  kvarn_store_side k, v;
};

struct problem {
  int n_q = 0, n_kv = 0, n_tail = 0, n_head = 1;
  int gqa = 1, ncols2 = 1;
  float scale = 0.0f;      // applied to Q in P0 (upstream: 1/sqrt(DKQ))
  kernel_kind kernel = kernel_kind::kvarn_kvarn;
  std::span<const float> q, k_body, v_body, k_tail, v_tail;
  // KVarN kernels of a tree variant: when set, the body's K/V are these records and stages (what k_body / v_body
  // decode to); otherwise every group is staged from k_body / v_body. The model's variants read k_body / v_body.
  const kvarn_records* records = nullptr;
};

// launch_fattn's grid for a kernel that takes nbatch_fa KV rows per step and ncols1 tokens per tile (upstream's
// fattn-common.cuh; docs/bugs/fattn-kernel.md §7): stream-k when the device always takes it (launch_fattn: Ada and
// newer, any AMD WMMA device) or when whole-tile waves would leave more than 25% of the blocks idle; the stream-k
// block count min(max_blocks, units), rounded down to a multiple of ntiles_dst when the loss, in integer percent of
// the raw count (truncated, as upstream computes it), is at most 5; a fixup when the blocks do not divide the tiles
// (uniform when every tile gets the same number of blocks). Shared by the model (kernels/fattn/variant.cu) and the
// tree variants (kernels/fattn_tree), which differ only in where nbatch_fa and the device's answer come from.
inline launch_plan stream_k_plan(int nbatch_fa, int ncols1, const problem& p, const device_model& dev,
                                 bool device_always_stream_k) {
  launch_plan lp;
  lp.iter_k = (p.n_kv + nbatch_fa - 1) / nbatch_fa;
  lp.iter_j = (p.n_q + ncols1 - 1) / ncols1;
  lp.iter_z = (p.gqa + p.ncols2 - 1) / p.ncols2;
  lp.ntiles = lp.iter_j * lp.iter_z * p.n_head;
  lp.units = (long long)lp.iter_k * lp.ntiles;
  const int max_blocks = dev.nsm * dev.max_blocks_per_sm;
  if (max_blocks < 1) throw std::invalid_argument("fattn: device has no resident blocks (nsm * occupancy < 1)");
  const int waves = (lp.ntiles + max_blocks - 1) / max_blocks;
  const int efficiency_percent = int(100LL * lp.ntiles / ((long long)max_blocks * waves));
  lp.stream_k = device_always_stream_k || efficiency_percent < 75;
  lp.blocks = lp.ntiles;
  lp.fixup = fixup_kind::none;
  if (!lp.stream_k) return lp;
  const int raw = int(std::min<long long>(max_blocks, lp.units));
  const int rounded = raw / lp.ntiles * lp.ntiles;
  const int max_efficiency_loss_percent = 5;
  const int efficiency_loss_percent = rounded > 0 ? int(100LL * (raw - rounded) / raw) : 100;
  lp.blocks = efficiency_loss_percent <= max_efficiency_loss_percent ? rounded : raw;
  if (lp.blocks % lp.ntiles == 0 && lp.blocks > lp.ntiles)
    lp.fixup = fixup_kind::uniform;
  else if (lp.ntiles % lp.blocks != 0)
    lp.fixup = fixup_kind::general;
  return lp;
}

// Sizes and shape of a problem for a config; throws std::invalid_argument naming what is wrong.
inline void check_problem(const kernel_config& c, const problem& p) {
  auto need = [](const char* what, std::size_t got, long long want) {
    if ((long long)got != want)
      throw std::invalid_argument(std::string("fattn: ") + what + " has " + std::to_string(got) + " values, expected " +
                                  std::to_string(want));
  };
  if (p.n_q < 1 || p.n_kv < 1 || p.n_head < 1 || p.n_tail < 0 || p.gqa < 1)
    throw std::invalid_argument("fattn: need n_q >= 1, n_kv >= 1, n_head >= 1, n_tail >= 0, gqa >= 1");
  if (p.ncols2 < 1 || c.ncols % p.ncols2 != 0)
    throw std::invalid_argument("fattn: ncols2 " + std::to_string(p.ncols2) + " does not divide the config's ncols " +
                                std::to_string(c.ncols));
  if (p.kernel == kernel_kind::kvarn_kvarn && c.DKQ != c.DV)
    throw std::invalid_argument("fattn: the KVARN/KVARN kernel needs DKQ == DV (rotated K/V axes)");
  need("q", p.q.size(), (long long)p.n_head * p.gqa * p.n_q * c.DKQ);
  need("k_body", p.k_body.size(), (long long)p.n_head * p.n_kv * c.DKQ);
  need("v_body", p.v_body.size(), (long long)p.n_head * p.n_kv * c.DV);
  need("k_tail", p.k_tail.size(), (long long)p.n_head * p.n_tail * c.DKQ);
  need("v_tail", p.v_tail.size(), (long long)p.n_head * p.n_tail * c.DV);
}

// One process_tile call as the kernel recorded it: block `block` ran KV batches [kb0_start, kb0_stop) of `tile`.
// Neither flag: a whole tile (normalised output and final meta); needs_fixup: started mid-tile and reached its end;
// is_fixup: ends mid-tile (its data go to the fixup buffer).
struct segment {
  int block = 0, tile = 0, kb0_start = 0, kb0_stop = 0;
  bool needs_fixup = false, is_fixup = false;
};

// What the kernels produced, plus the CPU backend's evidence.
struct run_result {
  launch_plan plan;
  std::vector<float> out;         // [rows][DV] after the tail merge (the answer)
  std::vector<float> body;        // [rows][DV] dst of the body pass (normalised where final)
  std::vector<float> body_meta;   // [rows][2] dst_final_meta after the body pass and its fixup
  // CPU only (empty on GPUs): per row, whether a kernel wrote its body meta; and the tail merge's reads of body
  // meta no kernel wrote (the memset's zeros).
  std::vector<bool> body_meta_written;
  std::uint64_t merge_unwritten_meta_reads = 0;
  std::string first_unwritten_meta_read;  // "element N (host-initialised) read by ... at file:line (fn)"
  // Per tile: how many stream-k blocks covered it (1 = whole tile).
  std::vector<int> tile_blocks;
  // Every process_tile call of the body pass, by block, in the order each block ran them.
  std::vector<segment> segments;
};

struct run_options {
  bool with_tail_merge = true;   // run the tail pass and k_flash_attn_ext_tail_partials_merge
  // Upstream memsets the body's dst_final_meta before the body pass. false: no host write at all (CPU: the buffer
  // stays poisoned and never-written; GPU: allocated only, so compute-sanitizer initcheck flags reads of rows no
  // kernel stored, and what those reads return is undefined).
  bool memset_body_meta = true;
};

// What a tree variant (kernels/fattn/tree) throws for a case whose kernel the user's tree compiles out on the device's
// arch (a device guard leaves a no_device_code stub): the message names the kernel, the arch and the guard. Never a
// pass; the case fails with it as its error, nothing is launched.
struct no_device_code : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Entry points of one variant. All throw std::invalid_argument on a bad problem (sizes), and the backend's
// kernel_error / device_error on a failed launch.
struct ops {
  const char* variant;
  launch_plan (*plan)(int config, const problem&, const device_model&);
  run_result (*run)(int config, const problem&, const device_model&, const run_options&);
  // The non-stream-k parallel_blocks path (flash_attn_combine_results): each tile split over `parallel_blocks`
  // blocks, merged by the combine kernel, which also stores body meta. Used by tests of the merge algebra.
  run_result (*run_parallel_blocks)(int config, const problem&, int parallel_blocks);
  // Dynamic shared memory of the body kernel for a config, in bytes (what a device must offer per block).
  int (*smem_bytes)(int config);
  // Tree variants only (nullptr elsewhere): the tree's own KVarN store kernels run over the problem's k_body / v_body
  // as one batch of n_kv tokens (the current rows, before the store's rotation), returning stage and records as they
  // left them. The rotated domain of the result is the kernel's: Q is taken as rotated already.
  kvarn_records (*kvarn_store)(int config, const problem&, const kvarn_store_params&) = nullptr;
};

}  // namespace tp::fattn
