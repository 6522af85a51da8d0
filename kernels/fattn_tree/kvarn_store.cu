// The tree's own KVarN store kernels (ggml/src/ggml-cuda/kvarn.cu: kvarn_store_kernel_lowshmem / _hishmem), run by
// tileprobe to make the records a KVarN body reads. Compiled once per tree variant, as HIP for the tree archs (CUDA:
// nvcc), with TP_VARIANT_NS and the variant's tree first on the include path, like tree_variant.cu.
//
// Why a translation unit that includes kvarn.cu, not the HIP module API: the store kernels are `static`, so only a
// translation unit that includes the file can name them; launched with <<<>>> from here they go through the same HIP
// runtime (tp_hip_runtime: the simulator, or a card's ROCm) with the argument list checked by the compiler against the
// tree's own signature, and their line tables name the tree's lines like the attention kernels'. The module API would
// need the runtime to load a second code object, look kernels up by their internal mangled names and marshal the 17
// arguments by hand from metadata, with nothing checking them against the source.
//
// kvarn.cu's host code (ggml_cuda_op_kvarn_store and friends) needs ggml's runtime, so it is compiled but never
// called: the file is included inside a namespace of this variant (every variant includes it; its external host
// functions would otherwise collide at link time), the few ggml runtime functions those bodies name are stood in for
// once, by the first tree variant (TP_FA_KVARN_HOST_STANDINS), and the HIP runtime functions they name are renamed in
// this file only (below); each throws if ever reached. What the host code
// decides is mirrored in store_side() below, step by step, with upstream's names.
#if defined(__clang__)
  #pragma clang diagnostic push
  #pragma clang diagnostic ignored "-Wunused-function"
  #pragma clang diagnostic ignored "-Wunused-variable"
#endif
#include <stdexcept>
#include <string>

#if defined(GGML_USE_HIP)
#include <hip/hip_runtime.h>
// kvarn.cu's host code (its profiler, and common.cuh's inline stream and event helpers it reaches) calls HIP runtime
// functions that tileprobe's runtime does not provide. In this translation unit those calls become calls of a function
// that throws: nothing of the runtime's own is defined or interposed here, and none of it is ever reached.
namespace tp_fa_kvarn_host {
[[noreturn]] inline hipError_t unreached(const char* what) {
  throw std::logic_error(std::string("fattn tree: kvarn.cu's host code reached ") + what +
                         ", which tileprobe does not run (kernels/fattn_tree/kvarn_store.cu launches the store kernels "
                         "itself)");
}
}  // namespace tp_fa_kvarn_host
#define hipEventCreateWithFlags(...) tp_fa_kvarn_host::unreached("hipEventCreateWithFlags")
#define hipEventDestroy(...) tp_fa_kvarn_host::unreached("hipEventDestroy")
#define hipEventElapsedTime(...) tp_fa_kvarn_host::unreached("hipEventElapsedTime")
#define hipEventRecord(...) tp_fa_kvarn_host::unreached("hipEventRecord")
#define hipEventSynchronize(...) tp_fa_kvarn_host::unreached("hipEventSynchronize")
#define hipStreamCreateWithFlags(...) tp_fa_kvarn_host::unreached("hipStreamCreateWithFlags")
#endif

// Everything kvarn.cu includes, at global scope first: inside the namespace below its includes are then empty.
#include "kvarn.cuh"

#include <algorithm>
#include <array>
#include <atomic>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <vector>

namespace TP_VARIANT_NS::kvarn_tree {
#include "kvarn.cu"
}  // namespace TP_VARIANT_NS::kvarn_tree
#if defined(__clang__)
  #pragma clang diagnostic pop
#endif

#include <cstdint>
#include <cstring>

#include "kernels/fattn/api.h"
#include "simt/host.h"

#if !defined(TP_VARIANT_NS)
  #error "TP_VARIANT_NS is defined by kernels/fattn_tree/CMakeLists.txt"
#endif

namespace TP_VARIANT_NS {

namespace {

namespace kt = kvarn_tree;

void check(cudaError_t e, const char* what, const char* kernel) { tp::gpu_detail::check(e, what, kernel); }

template <class T>
T* ptr(tp::device_buffer<T>& b) {
  return reinterpret_cast<T*>(b.view().p);
}

// The per-block shared memory ggml_cuda_info() records as smpbo: sharedMemPerBlock on HIP (ggml-cuda.cu), the opt-in
// maximum on CUDA.
std::size_t device_smpbo() {
  int dev = 0;
  cudaDeviceProp prop{};
  check(cudaGetDevice(&dev), "get device", nullptr);
  check(cudaGetDeviceProperties(&prop, dev), "get device properties", nullptr);
#if defined(GGML_USE_HIP)
  return prop.sharedMemPerBlock;
#else
  return prop.sharedMemPerBlockOptin;
#endif
}

// One ggml_kvarn_store op (ggml_cuda_op_kvarn_store) for one side, the KV cache's K (value false) or V (value true):
//   current  f32 [128, n_heads, n_tokens], the batch's rows before the store's rotation (a record head per 128-wide
//            slice of a K/V head)
//   indices  i64 [n_tokens], the cells written: 0..n_kv-1, stream 0
//   stage    f16 [128, n_heads, 128·stage_groups·n_stream], records i8 [record_bytes, n_heads, groups_per_stream·n_stream]
// with op params bits, iterations, value, tokens_per_stream_hint 0 (unset: neither the workspace nor the direct
// route, whose conditions start with hint_well_formed), swa 0, head_slices 1, stage_groups, tail_groups, eager_records
// 0. With those the host function takes, in its own order: no headwide route (head_slices 1), no workspace, no direct
// store; then kvarn_store_kernel_hishmem when smpbo >= KVAR_N_SHARED_BYTES (69,704 bytes: not on RDNA's 64 KiB, nor
// on the simulated gfx1100/gfx1201), else kvarn_store_kernel_lowshmem (GGML_ASSERT(smpbo >= KVAR_N_LOWSHMEM_BYTES)).
struct store_geometry {
  int n_heads, n_tokens, n_stream, groups_per_stream, record_bytes, stage_groups, tail_groups, bits, iterations;
};
void store_side(const store_geometry& g, bool value, tp::device_buffer<float>& current,
                tp::device_buffer<std::int64_t>& indices, tp::device_buffer<std::uint16_t>& stage,
                tp::device_buffer<std::uint8_t>& records) {
  const int head_slices = 1;
  const bool swa = false, eager_records = false;
  const std::size_t smpbo = device_smpbo();
  half* stage_p = reinterpret_cast<half*>(ptr(stage));
  if (smpbo >= std::size_t(kt::KVAR_N_SHARED_BYTES)) {
    // g_kvarn_store_high_shared_fallback's branch: the shared-memory limit raised, then one block per head.
    const auto kernel = kt::kvarn_store_kernel_hishmem;
    check(cudaFuncSetAttribute(reinterpret_cast<const void*>(kernel), cudaFuncAttributeMaxDynamicSharedMemorySize,
                               kt::KVAR_N_SHARED_BYTES),
          "allow the store's dynamic shared memory", "kvarn_store_kernel_hishmem");
    kernel<<<g.n_heads, kt::KVAR_N_DIM, kt::KVAR_N_SHARED_BYTES>>>(
        ptr(current), ptr(indices), stage_p, ptr(records), g.n_heads, g.n_tokens, g.n_stream, g.groups_per_stream,
        g.record_bytes, g.bits, g.iterations, value, swa, g.stage_groups, g.tail_groups, eager_records, nullptr);
    check(cudaGetLastError(), "launch", "kvarn_store_kernel_hishmem");
    check(cudaDeviceSynchronize(), "synchronize after launch", "kvarn_store_kernel_hishmem");
    return;
  }
  // g_kvarn_store_low_shared_store's branch.
  if (smpbo < std::size_t(kt::KVAR_N_LOWSHMEM_BYTES))
    throw tp::device_error("fattn tree: the device's " + std::to_string(smpbo) + " bytes of shared memory per block "
                           "are fewer than the tree's KVarN store needs (KVAR_N_LOWSHMEM_BYTES " +
                           std::to_string(kt::KVAR_N_LOWSHMEM_BYTES) + ")");
  kt::kvarn_store_kernel_lowshmem<<<g.n_heads / head_slices, kt::KVAR_N_DIM, kt::KVAR_N_LOWSHMEM_BYTES>>>(
      ptr(current), ptr(indices), stage_p, ptr(records), g.n_heads, g.n_tokens, g.n_stream, g.groups_per_stream,
      g.record_bytes, g.bits, g.iterations, value, swa, g.stage_groups, g.tail_groups, head_slices, eager_records);
  check(cudaGetLastError(), "launch", "kvarn_store_kernel_lowshmem");
  check(cudaDeviceSynchronize(), "synchronize after launch", "kvarn_store_kernel_lowshmem");
}

// The archs this variant's code objects were built for (TP_FA_TREE_ARCHS), as tree_variant.cu refuses another device
// before a launch would get the runtime's "no code object".
void refuse_other_arch() {
#if defined(TP_FA_TREE_ARCHS_BUILT) && defined(GGML_USE_HIP)
  int dev = 0;
  cudaDeviceProp prop{};
  check(cudaGetDevice(&dev), "get device", nullptr);
  check(cudaGetDeviceProperties(&prop, dev), "get device properties", nullptr);
  std::string arch = prop.gcnArchName;
  arch = arch.substr(0, arch.find(':'));
  const std::string built = TP_FA_TREE_ARCHS_BUILT;
  if (("," + built + ",").find("," + arch + ",") == std::string::npos)
    throw tp::device_error("fattn tree: the tree variants were compiled for " + built + " (TP_FA_TREE_ARCHS); this "
                           "device is " + arch);
#endif
}

}  // namespace

tp::fattn::kvarn_records kvarn_store(int config, const tp::fattn::problem& p,
                                     const tp::fattn::kvarn_store_params& params) {
  refuse_other_arch();
  if (config < 0 || config >= tp::fattn::n_configs)
    throw std::invalid_argument("fattn: unknown config index " + std::to_string(config));
  const auto& c = tp::fattn::configs[config];
  constexpr int dim = kt::KVAR_N_DIM;
  if (c.DKQ != c.DV || c.DKQ % dim != 0)
    throw std::invalid_argument(std::string("fattn tree: KVarN records need DKQ == DV, a multiple of 128; ") + c.name);
  if (!kt::ggml_cuda_kvarn_valid_bits(params.bits))
    throw std::invalid_argument("fattn tree: KVarN bits " + std::to_string(params.bits) +
                                " (the tree's store takes 2, 3, 4, 5, 6 or 8)");
  if (params.tail_groups < 1 || params.iterations < 0)
    throw std::invalid_argument("fattn tree: KVarN tail_groups must be >= 1 and iterations >= 0");
  if (p.n_kv < 1 || p.n_head < 1 || p.k_body.size() != std::size_t(p.n_head) * p.n_kv * c.DKQ ||
      p.v_body.size() != std::size_t(p.n_head) * p.n_kv * c.DV)
    throw std::invalid_argument("fattn tree: KVarN store: k_body / v_body do not match n_head x n_kv x D");
  const int slices = c.DKQ / dim;
  tp::fattn::kvarn_records out;
  out.params = params;
  out.n_kv = p.n_kv;
  out.n_record_heads = p.n_head * slices;
  out.stage_groups = params.tail_groups + 1;
  // One record slot per group the stream holds (records->ne[2] / n_stream); the payload of 128 x 128 codes of `bits`
  // bits, then the three fp16 axes the store writes after it (kvarn_quantize_stage_lowshmem: scale, zero point,
  // other axis), the bytes of one record (records->ne[0]).
  out.groups_per_stream = (p.n_kv - 1) / dim + 1;
  out.record_bytes = dim * dim * params.bits / 8 + 3 * dim * int(sizeof(half));
  const store_geometry g{out.n_record_heads, p.n_kv, 1, out.groups_per_stream, out.record_bytes, out.stage_groups,
                         params.tail_groups, params.bits, params.iterations};
  std::vector<std::int64_t> idx(p.n_kv);
  for (int t = 0; t < p.n_kv; ++t) idx[t] = t;
  tp::device_buffer<std::int64_t> indices(idx.size());
  indices.upload(idx);
  const std::size_t stage_halves = std::size_t(out.stage_groups) * dim * out.n_record_heads * dim;
  const std::size_t record_total = std::size_t(out.groups_per_stream) * out.n_record_heads * out.record_bytes;
  for (int side = 0; side < 2; ++side) {
    const std::span<const float> rows = side == 0 ? p.k_body : p.v_body;
    // current[t][h·slices + s][d] = the problem's row (h, t), columns s·128 + d.
    std::vector<float> cur(std::size_t(p.n_kv) * out.n_record_heads * dim);
    for (int h = 0; h < p.n_head; ++h)
      for (int t = 0; t < p.n_kv; ++t)
        for (int s = 0; s < slices; ++s)
          std::copy_n(rows.begin() + (std::size_t(h) * p.n_kv + t) * c.DKQ + s * dim, dim,
                      cur.begin() + (std::size_t(t) * out.n_record_heads + h * slices + s) * dim);
    tp::device_buffer<float> current(cur.size());
    current.upload(cur);
    // A fresh cache: ggml clears the KV buffers when it allocates them.
    tp::device_buffer<std::uint16_t> stage(stage_halves);
    tp::device_buffer<std::uint8_t> records(record_total);
    stage.fill(0);
    records.fill(0);
    store_side(g, side == 1, current, indices, stage, records);
    auto& dst = side == 0 ? out.k : out.v;
    dst.stage = stage.to_host();
    dst.records = records.to_host();
  }
  return out;
}

}  // namespace TP_VARIANT_NS

#if defined(TP_FA_KVARN_HOST_STANDINS)
// The ggml runtime functions kvarn.cu's host code names (ggml_cuda_op_kvarn_store's pool, device table and error
// path), which tileprobe never calls: defined once, by the first tree variant, so that the binaries link; each throws.
namespace {
[[noreturn]] void not_standing_in(const char* what) {
  throw std::logic_error(std::string("fattn tree: kvarn.cu's host code reached ") + what +
                         ", which tileprobe does not provide (kernels/fattn_tree/kvarn_store.cu launches the store "
                         "kernels itself)");
}
}  // namespace
const ggml_cuda_device_info& ggml_cuda_info() { not_standing_in("ggml_cuda_info"); }
void ggml_cuda_set_device(int) { not_standing_in("ggml_cuda_set_device"); }
int ggml_cuda_get_device() { not_standing_in("ggml_cuda_get_device"); }  // named by the CUDA build's host code
void ggml_cuda_error(const char* stmt, const char*, const char* file, int line, const char* msg) {
  throw tp::device_error(std::string("fattn tree: ") + stmt + " failed at " + file + ":" + std::to_string(line) +
                         ": " + msg);
}
std::unique_ptr<ggml_cuda_pool> ggml_backend_cuda_context::new_pool_for_device(int, int) {
  not_standing_in("ggml_backend_cuda_context::new_pool_for_device");
}
bool ggml_is_contiguous(const ggml_tensor*) { not_standing_in("ggml_is_contiguous"); }
// kvarn.cuh declares it; each variant's copy of kvarn.cu defines its own inside the variant's namespace, while the
// profiler's exit hook there names the global one (reached only with GGML_KVARN_PROFILE set in host code never run).
void ggml_cuda_kvarn_profile_dump() { not_standing_in("ggml_cuda_kvarn_profile_dump"); }
#endif
