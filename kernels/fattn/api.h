// Host-side interface of the flash-attention family (plain host types; no dialect, no GPU headers).
// A probe or test reaches one variant's kernels through tp::fattn::ops, found with
// tp::find_variant<tp::fattn::ops>("fattn", variant, backend).
//
// The model keeps upstream's names and phases (spec/fattn.md §3.4-§3.6, §5) and simplifies where the bugs do not
// live: plain fp32 dot products instead of MMA tiles, fp32 accumulators, Q/K/V stored as fp32 holding fp16 values,
// K and V read straight from global memory (upstream stages them through tile_K/tile_V; only tile_Q matters here),
// no mask, no sinks, no GQA packing (ncols2 = 1: one Q head per K/V head).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace tp::fattn {

// One row of upstream's config table (spec §3.1, §4.2). Counts of half2 columns are kept in half2 units, as
// upstream does (nbatch_combine), so `iters = (DV/2) / nbatch_combine` reads the same as in the spec.
struct kernel_config {
  const char* name;
  int DKQ, DV;
  int ncols;           // Q columns (tokens) per tile
  int nwarps;
  int cols_per_warp;   // T_B_KQ::I
  int nbatch_fa;       // KV rows per softmax step; upstream tabulates 64..128, we use 32 to keep the emulator fast
  int nbatch_combine;  // half2 columns of VKQ per combine pass
  constexpr int np() const { return cols_per_warp > ncols ? nwarps : nwarps * cols_per_warp / ncols; }
  constexpr int combine_iters() const { return (DV / 2) / nbatch_combine; }
  constexpr int nthreads() const { return nwarps * 32; }
};

// The configurations of spec §4.2. Warps, cols_per_warp, np and combine iterations are exactly as tabulated.
inline constexpr kernel_config configs[] = {
    // race-prone: np 1, 2 iterations (live in pre-fix beellama once the KVarN route lifts the DKQ>128 gate)
    {"rdna-d256-ncols64", 256, 256, 64, 4, 16, 32, 64},
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

// A gfx1100-like device as launch_fattn sees it: max resident blocks = nsm * max_blocks_per_sm.
struct device_model {
  int nsm = 96;                // RX 7900 XTX: 96 CUs (48 WGPs; spec §11 Q1 leaves which one HIP reports open)
  int max_blocks_per_sm = 1;   // occupancy of the D256 kernels
  bool stream_k_always = true; // "on any AMD WMMA device" (spec §3.6)
};

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
  int iter_k = 0, iter_j = 0, ntiles = 0;  // ntiles = ntiles_dst = iter_j * n_head
  long long units = 0;                     // iter_k * ntiles
  int blocks = 0;
  bool stream_k = true;
  fixup_kind fixup = fixup_kind::none;
};

// One attention problem: n_head heads, each with its own K/V (ncols2 = 1). Row-major, fp32 holding fp16 values:
//   q      [n_head][n_q][DKQ]        k_body [n_head][n_kv][DKQ]    v_body [n_head][n_kv][DV]
//   k_tail [n_head][n_tail][DKQ]     v_tail [n_head][n_tail][DV]
// Output row r = h*n_q + q.
struct problem {
  int n_q = 0, n_kv = 0, n_tail = 0, n_head = 1;
  float scale = 0.0f;      // applied to Q in P0 (upstream: 1/sqrt(DKQ))
  bool is_kvarn_kv = true; // the body K/V are KVarN records (gates the whole-tile meta stores pre-fix)
  std::span<const float> q, k_body, v_body, k_tail, v_tail;
};

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

// Entry points of one variant. All throw std::invalid_argument on a bad problem (sizes), and the backend's
// kernel_error / device_error on a failed launch.
struct ops {
  const char* variant;
  launch_plan (*plan)(int config, const problem&, const device_model&);
  run_result (*run)(int config, const problem&, const device_model&, const run_options&);
  // The non-stream-k parallel_blocks path (flash_attn_combine_results): each tile split over `parallel_blocks`
  // blocks, merged by the combine kernel, which also stores body meta. Used by tests of the merge algebra.
  run_result (*run_parallel_blocks)(int config, const problem&, int parallel_blocks);
};

}  // namespace tp::fattn
