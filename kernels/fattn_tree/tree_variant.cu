// A tree variant of the fattn family: a user's own beellama kernels (their ggml/src/ggml-cuda headers, included as
// they are) launched by tileprobe. Compiled once per tree variant with TP_VARIANT_NS / TP_VARIANT_NAME and the
// variant's tree first on the include path, as HIP (clang, for the tree archs; the HIP 5.2.3 compatibility layer
// force-included on Debian's toolchain, hip-compat/) or as CUDA (nvcc, sm_90).
//
// Upstream's: every kernel launched here (flash_attn_ext_f16, flash_attn_stream_k_fixup_uniform/_general,
// flash_attn_mask_to_KV_max, k_flash_attn_ext_tail_indexed_small) and the host helpers that size them (the config
// table getters, get_cols_per_warp, ggml_cuda_fattn_mma_get_nstages, ggml_cuda_fattn_kvarn_mma_shared_bytes,
// init_fastdiv_values, amd_wmma_available). Ours: the launch plan and launch sequence below, which mirror upstream's
// host functions named at each step (those need a ggml graph, a backend context and ggml-cuda.cu's device table, so
// they are not called), the KVarN descriptors (kvarn_stage_kv), the data layout conversion from tp::fattn::problem, and
// the registration.
//
// Through the HIP runtime tileprobe links (tp_hip_runtime): TILEPROBE_HIP=sim:gfx1100 runs the code objects on the
// simulator, unset a real card's ROCm runs them; nothing here knows which.
#if defined(__clang__)
  #pragma clang diagnostic push
  #pragma clang diagnostic ignored "-Wunused-function"
#endif
#include "fattn-mma-kvarn-case.cuh"  // flash_attn_ext_f16 with its KVarN loader, fattn-common.cuh's fixups
#include "fattn.cuh"
// fattn-tail.cuh is a fragment of fattn.cu (included at its end) and its host function, ggml_cuda_flash_attn_ext_tail,
// names two things fattn.cu defines before it. tileprobe launches the fragment's kernels and never that function, so
// the two are only declared, for the fragment to parse: a call of either would fail to link, not run.
#if defined(__clang__)
  #pragma clang diagnostic ignored "-Wundefined-internal"
#endif
static void ggml_cuda_flash_attn_ext_dispatch(ggml_backend_cuda_context& ctx, ggml_tensor* dst);
static constexpr int GGML_CUDA_FATTN_OP_PARAM_FORCE_VEC = -1;  // read only by ggml_cuda_flash_attn_ext_tail
#include "fattn-tail.cuh"
#if defined(__clang__)
  #pragma clang diagnostic pop
#endif

#include <algorithm>
#include <cstddef>
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "kernels/fattn/api.h"
#include "kernels/fattn_tree/instances.h"
#include "simt/host.h"
#include "simt/registry.h"

#if !defined(TP_VARIANT_NS) || !defined(TP_VARIANT_NAME)
  #error "TP_VARIANT_NS and TP_VARIANT_NAME are defined by kernels/fattn_tree/CMakeLists.txt"
#endif

namespace TP_VARIANT_NS {
// The kernels this variant's tree compiles out, per arch (generated at build time from the code objects; empty for
// CUDA, whose objects are not analysed).
extern const tp::fattn_tree::compiled_out compiled_out_table[];
extern const int compiled_out_count;

namespace {

using tp::fattn::fixup_kind;
using tp::fattn::kernel_kind;
using tp::fattn::launch_plan;
using tp::fattn::problem;
using tp::fattn::run_result;

void check(cudaError_t e, const char* what, const char* kernel = nullptr) { tp::gpu_detail::check(e, what, kernel); }

// The device as ggml-cuda sees it: its compute capability code (AMD: ggml_cuda_parse_id of the arch name,
// GGML_CUDA_CC_OFFSET_AMD + major * 0x100 + the last two hex digits; NVIDIA: 100 * major + 10 * minor), its wave size
// and base arch name.
struct device_info {
  int cc = 0, warp_size = 32;
  std::string arch;
};
const device_info& device() {
  static const device_info info = [] {
    device_info d;
    int dev = 0;
    cudaDeviceProp p{};
    check(cudaGetDevice(&dev), "get device");
    check(cudaGetDeviceProperties(&p, dev), "get device properties");
    d.warp_size = p.warpSize;
#if defined(GGML_USE_HIP)
    d.arch = p.gcnArchName;
    d.arch = d.arch.substr(0, d.arch.find(':'));  // gfx1100:sramecc-:xnack- -> gfx1100
    const std::string digits = d.arch.rfind("gfx", 0) == 0 ? d.arch.substr(3) : std::string();
    if (digits.size() < 3 || digits.find_first_not_of("0123456789abcdef") != std::string::npos)
      throw tp::device_error("fattn tree: cannot read an arch from the device name '" + std::string(p.gcnArchName) +
                             "'");
    d.cc = GGML_CUDA_CC_OFFSET_AMD + int(std::stoul(digits.substr(0, digits.size() - 2), nullptr, 16)) * 0x100 +
           int(std::stoul(digits.substr(digits.size() - 2), nullptr, 16));
#else
    d.arch = "sm_" + std::to_string(p.major * 10 + p.minor);
    d.cc = 100 * p.major + 10 * p.minor;
#endif
    return d;
  }();
  return info;
}

// The K/V types of flash_attn_ext_f16 for a kernel kind (api.h): f16, or the tree's KVarN template types (both K and
// V rotated, or rotated K with original-domain V).
template <kernel_kind K>
struct kv_types;
template <>
struct kv_types<kernel_kind::f16> {
  static constexpr ggml_type K = GGML_TYPE_F16, V = GGML_TYPE_F16;
};
template <>
struct kv_types<kernel_kind::kvarn_kvarn> {
  static constexpr ggml_type K = GGML_CUDA_FATTN_KVARN_TYPE, V = GGML_CUDA_FATTN_KVARN_TYPE;
};
template <>
struct kv_types<kernel_kind::kvarn_k_original_v> {
  static constexpr ggml_type K = GGML_CUDA_FATTN_KVARN_TYPE, V = GGML_CUDA_FATTN_KVARN_ORIGINAL_TYPE;
};

// The host setup of ggml_cuda_flash_attn_ext_mma_f16_case (f16) and ggml_cuda_flash_attn_ext_mma_kvarn_case (KVarN):
// the tree's own config table for the device, and the dynamic shared memory of the body kernel.
struct body_config {
  int DKQ, DV, ncols1, ncols2;
  int nthreads, nwarps, nbatch_fa, nbatch_combine;
  std::size_t nbytes_shared;
};
template <int DKQ, int DV, int ncols1, int ncols2>
body_config body_config_for(kernel_kind kind, int cc, int warp_size) {
  constexpr int ncols = ncols1 * ncols2;
  body_config c{DKQ, DV, ncols1, ncols2, 0, 0, 0, 0, 0};
  c.nthreads = ggml_cuda_fattn_mma_get_nthreads(DKQ, DV, ncols, cc);
  c.nbatch_fa = ggml_cuda_fattn_mma_get_nbatch_fa(DKQ, DV, ncols, cc);
  c.nbatch_combine = ggml_cuda_fattn_mma_get_nbatch_combine(DKQ, DV, ncols, cc);
  c.nwarps = c.nthreads / warp_size;
  if (c.nbatch_fa <= 0)
    throw std::invalid_argument("fattn tree: the tree's config table has no row for D" + std::to_string(DKQ) +
                                " ncols " + std::to_string(ncols) + " on this device");
  if (kind != kernel_kind::f16) {
    const bool original_domain = kind != kernel_kind::kvarn_kvarn;
    c.nbytes_shared = ggml_cuda_fattn_kvarn_mma_shared_bytes<DKQ, DV, ncols1, ncols2>(cc, warp_size, original_domain);
    return c;
  }
  // ggml_cuda_flash_attn_ext_mma_f16_case's sum, term by term.
  const int nbatch_K2 = ggml_cuda_fattn_mma_get_nbatch_K2(DKQ, DV, ncols, cc);
  const int nbatch_V2 = ggml_cuda_fattn_mma_get_nbatch_V2(DKQ, DV, ncols, cc);
  const bool Q_in_reg = ggml_cuda_fattn_mma_get_Q_in_reg(DKQ, DV, ncols, cc);
  const int nstages = ggml_cuda_fattn_mma_get_nstages(DKQ, DV, ncols1, ncols2, cc);
  const int cols_per_warp = std::min(ncols, get_cols_per_warp(cc));
  const std::size_t KV_1stage = std::size_t(c.nbatch_fa) * std::max(nbatch_K2 + 4, nbatch_V2 + 4) * sizeof(half2);
  const std::size_t KV_2stage = std::size_t(c.nbatch_fa) * (nbatch_K2 + 4 + nbatch_V2 + 4) * sizeof(half2);
  const std::size_t Q = std::size_t(ncols) * (DKQ / 2 + 4) * sizeof(half2);
  const std::size_t mask = std::size_t(ncols1) * (c.nbatch_fa / 2 + 4) * sizeof(half2);
  const std::size_t combine = std::size_t(c.nwarps) * cols_per_warp * (c.nbatch_combine + 4) * sizeof(half2);
  const std::size_t KV = nstages <= 1 ? KV_1stage : KV_2stage;
  c.nbytes_shared = std::max(combine, Q_in_reg ? std::max(Q, KV + mask) : Q + KV + mask);
  return c;
}

// The instance table (instances.h) as templates: calls f.template operator()<DKQ, DV, ncols1, ncols2, kind>().
template <int I, class F>
decltype(auto) with_instance(F&& f) {
  constexpr tp::fattn_tree::instance in = tp::fattn_tree::instances[I];
  constexpr auto& cfg = tp::fattn::configs[tp::fattn_tree::config_index(in.config)];
  static_assert(tp::fattn_tree::config_index(in.config) >= 0, "instances.h names a config api.h does not have");
  static_assert(cfg.ncols % in.ncols2 == 0, "instances.h: ncols2 must divide the config's ncols");
  return f.template operator()<cfg.DKQ, cfg.DV, cfg.ncols / in.ncols2, in.ncols2, in.kind>();
}
template <class F, int... I>
decltype(auto) dispatch_instance(int index, F&& f, std::integer_sequence<int, I...>) {
  using R = decltype(with_instance<0>(f));
  R r{};
  const bool found = ((index == I ? (r = with_instance<I>(f), true) : false) || ...);
  if (!found) throw std::logic_error("fattn tree: instance index out of range");
  return r;
}
template <class F>
decltype(auto) dispatch_instance(int index, F&& f) {
  return dispatch_instance(index, std::forward<F>(f), std::make_integer_sequence<int, tp::fattn_tree::n_instances>{});
}

int instance_for(int config, const problem& p) {
  if (config < 0 || config >= tp::fattn::n_configs)
    throw std::invalid_argument("fattn: unknown config index " + std::to_string(config));
  const int i = tp::fattn_tree::find_instance(config, p.ncols2, p.kernel);
  if (i < 0)
    throw std::invalid_argument(std::string("fattn tree: tileprobe builds no instance of the tree's kernel for ") +
                                tp::fattn::configs[config].name + " with ncols2 " + std::to_string(p.ncols2) + ", " +
                                tp::fattn::to_string(p.kernel) + " (kernels/fattn_tree/instances.h lists those built)");
  return i;
}

// The name code_object.py gives a kernel in compiled_out_table: the demangled template, spaces and casts dropped.
std::string kernel_key(int DKQ, int DV, int ncols1, int ncols2, ggml_type K, ggml_type V) {
  char s[128];
  std::snprintf(s, sizeof s, "flash_attn_ext_f16<%d,%d,%d,%d,false,false,%d,%d>", DKQ, DV, ncols1, ncols2, int(K),
                int(V));
  return s;
}
// The archs this variant's code objects were built for (TP_FA_TREE_ARCHS), on hip; a device of another arch would get
// the runtime's "no kernel image" at the first launch, so it is refused first, saying which archs there are.
void refuse_other_arch() {
#if defined(TP_FA_TREE_ARCHS_BUILT)
  const std::string built = TP_FA_TREE_ARCHS_BUILT, arch = device().arch;
  if (("," + built + ",").find("," + arch + ",") == std::string::npos)
    throw tp::device_error("fattn tree: the tree variants were compiled for " + built + " (TP_FA_TREE_ARCHS); this "
                           "device is " + arch);
#endif
}

void refuse_if_compiled_out(const std::string& key) {
  refuse_other_arch();
  const std::string& arch = device().arch;
  for (int i = 0; i < compiled_out_count; ++i)
    if (arch == compiled_out_table[i].arch && key == compiled_out_table[i].kernel)
      throw tp::fattn::no_device_code(std::string("no device code for this config on this arch: the tree (") +
                                      TP_VARIANT_NAME + ") compiles " + key + " out on " + arch + ", guard " +
                                      compiled_out_table[i].guard);
}

int checked_int(std::size_t v, const char* what) {
  if (v > std::size_t(INT32_MAX)) throw std::invalid_argument(std::string("fattn tree: ") + what + " exceeds int32");
  return int(v);
}

// launch_fattn's grid (api.h's stream_k_plan) with the tree's nbatch_fa and ncols1, stream-k as launch_fattn decides
// it for the device: always on Ada and newer and on any AMD WMMA device. max_blocks is the modelled device's
// (api.h device_model), where upstream asks the runtime's occupancy query.
launch_plan plan_for(const body_config& c, const problem& p, const tp::fattn::device_model& dev, int cc) {
  const bool always = cc >= GGML_CUDA_CC_ADA_LOVELACE || amd_wmma_available(cc);
  return tp::fattn::stream_k_plan(c.nbatch_fa, c.ncols1, p, dev, always);
}

// fp16 bit patterns of values the problem promises are fp16 (api.h): the conversion is exact.
std::vector<std::uint16_t> to_half_bits(std::span<const float> v) {
  std::vector<std::uint16_t> out(v.size());
  for (std::size_t i = 0; i < v.size(); ++i) {
    const half h = __float2half(v[i]);
    std::memcpy(&out[i], &h, sizeof h);
  }
  return out;
}

template <class Kernel, class... A>
void launch(const char* name, Kernel kernel, dim3 grid, dim3 block, std::size_t smem, A... args) {
  if (smem > 48 * 1024)  // as upstream raises the limit (cudaFuncSetAttribute before launch_fattn)
    check(cudaFuncSetAttribute(reinterpret_cast<const void*>(kernel), cudaFuncAttributeMaxDynamicSharedMemorySize,
                               int(smem)),
          "allow dynamic shared memory above 48 KiB", name);
  kernel<<<grid, block, smem>>>(args...);
  check(cudaGetLastError(), "launch", name);
  check(cudaDeviceSynchronize(), "synchronize after launch", name);
}

template <class T>
T* ptr(tp::device_buffer<T>& b) {
  return reinterpret_cast<T*>(b.view().p);
}

// ggml's dst rows are q*H + h (token-major), the problem's h*n_q + q: `width` values per row.
template <class T>
std::vector<T> to_problem_rows(const std::vector<T>& ggml, int H, int n_q, std::size_t width) {
  std::vector<T> out(ggml.size());
  for (int h = 0; h < H; ++h)
    for (int q = 0; q < n_q; ++q)
      std::copy_n(ggml.begin() + (std::size_t(q) * H + h) * width, width,
                  out.begin() + (std::size_t(h) * n_q + q) * width);
  return out;
}

// The tail pass and merge in one launch, as ggml_cuda_flash_attn_ext_tail runs a tail of at most 256 tokens
// (indexed_small): one stream, every query active in order (query_order[q] = q), one run descriptor whose n_tail
// (desc[4]) and slot list (desc[6 + t] = t) name the tail rows; tail K/V f16 [D, n_tail, n_head]; no tail mask. Q, the
// body's dst and meta as the body pass left them (ggml's layouts); returns the merged output in ggml's row order.
template <int DKQ, int DV>
std::vector<float> tail_merge(const problem& p, tp::device_buffer<float>& Q, tp::device_buffer<float>& body,
                              tp::device_buffer<float>& body_meta) {
  constexpr int max_tail = 256;
  if (p.n_tail > max_tail)
    throw std::invalid_argument("fattn tree: tails over 256 tokens take the tree's packed tail pass, which tileprobe "
                                "does not launch; n_tail " + std::to_string(p.n_tail));
  const int H = p.n_head * p.gqa, n_tail = p.n_tail, slots = std::max(n_tail, 1), desc_stride = 6 + n_tail;
  tp::device_buffer<std::uint16_t> Kt(std::max<std::size_t>(p.k_tail.size(), 1)),
      Vt(std::max<std::size_t>(p.v_tail.size(), 1)), mt(std::size_t(slots) * p.n_q);
  if (n_tail > 0) {
    Kt.upload(to_half_bits(p.k_tail));
    Vt.upload(to_half_bits(p.v_tail));
  }
  mt.fill(0);
  std::vector<std::int32_t> order(p.n_q), desc(desc_stride, 0);
  for (int q = 0; q < p.n_q; ++q) order[q] = q;
  desc[4] = n_tail;
  for (int t = 0; t < n_tail; ++t) desc[6 + t] = t;
  tp::device_buffer<std::int32_t> qo(order.size()), rd(desc.size());
  qo.upload(order);
  rd.upload(desc);
  tp::device_buffer<float> out(std::size_t(H) * p.n_q * DV);
  const std::size_t q_nb1 = std::size_t(DKQ) * sizeof(float), q_nb2 = q_nb1 * p.n_q, q_nb3 = q_nb2 * H;
  const std::size_t kt_nb1 = std::size_t(DKQ) * sizeof(half), kt_nb2 = kt_nb1 * n_tail;
  const std::size_t vt_nb1 = std::size_t(DV) * sizeof(half), vt_nb2 = vt_nb1 * n_tail;
  const std::size_t o_nb1 = std::size_t(DV) * sizeof(float), o_nb2 = o_nb1 * H, o_nb3 = o_nb2 * p.n_q;
  const std::size_t mt_nb1 = std::size_t(slots) * sizeof(half), mt_nb3 = mt_nb1 * p.n_q;
  const std::size_t none = 0;  // the strides of the current-batch tail K/V, which tileprobe does not pass
  launch("k_flash_attn_ext_tail_indexed_small", k_flash_attn_ext_tail_indexed_small<half, half, max_tail>,
         dim3(p.n_q, H, 1), dim3(256, 1, 1), 0, static_cast<const float*>(ptr(Q)),
         reinterpret_cast<const char*>(ptr(Kt)), reinterpret_cast<const char*>(ptr(Vt)),
         static_cast<const char*>(nullptr), static_cast<const char*>(nullptr), reinterpret_cast<const half*>(ptr(mt)),
         static_cast<const std::int32_t*>(ptr(qo)), static_cast<const std::int32_t*>(ptr(rd)),
         static_cast<const float*>(ptr(body)), reinterpret_cast<const float2*>(ptr(body_meta)), ptr(out), DKQ, DV,
         p.n_q, H, 1, p.n_q, 1, p.n_head, p.n_head, desc_stride, p.scale, 0.0f, 0.0f, q_nb1, q_nb2, q_nb3, slots,
         sizeof(half), kt_nb1, kt_nb2, sizeof(half), vt_nb1, vt_nb2, none, none, none, none, none, none, mt_nb1,
         mt_nb3, false, false, o_nb1, o_nb2, o_nb3, o_nb1, o_nb2, o_nb3);
  return out.to_host();
}

// K and V as the body kernel reads them, with launch_fattn's strides of its K and V tensors (nb11..nb23).
struct body_kv {
  tp::device_buffer<std::uint16_t> K{1}, V{1};                  // f16 rows, or the KVarN descriptors' f16 stage
  tp::device_buffer<ggml_cuda_fattn_kvarn_desc> K_desc{1}, V_desc{1};
  tp::device_buffer<std::uint8_t> K_records{1}, V_records{1};  // KVarN records made by the tree's store kernels
  const char *k = nullptr, *v = nullptr;
  std::size_t nb11 = 0, nb12 = 0, nb13 = 0, nb21 = 0, nb22 = 0, nb23 = 0;
};

// f16: the problem's K/V as ggml's f16 tensors [D, n_kv, n_head].
template <int DKQ, int DV>
void f16_kv(const problem& p, body_kv& kv) {
  kv.K.resize(p.k_body.size());
  kv.V.resize(p.v_body.size());
  kv.K.upload(to_half_bits(p.k_body));
  kv.V.upload(to_half_bits(p.v_body));
  kv.k = reinterpret_cast<const char*>(ptr(kv.K));
  kv.v = reinterpret_cast<const char*>(ptr(kv.V));
  kv.nb11 = std::size_t(DKQ) * sizeof(half), kv.nb12 = kv.nb11 * p.n_kv, kv.nb13 = kv.nb12 * p.n_head;
  kv.nb21 = std::size_t(DV) * sizeof(half), kv.nb22 = kv.nb21 * p.n_kv, kv.nb23 = kv.nb22 * p.n_head;
}

// launch_fattn's view of KVarN K and V, as ggml_cuda_flash_attn_ext_mma_kvarn_case hands it the descriptors in place of
// K and V: `descs` holds the K descriptors of every head, then the V ones; nb1 0, nb2 one descriptor, nb3 one
// stream's.
void hand_descriptors(const std::vector<ggml_cuda_fattn_kvarn_desc>& descs, int n_head, body_kv& kv) {
  kv.K_desc.resize(n_head);
  kv.V_desc.resize(n_head);
  kv.K_desc.upload(descs.data(), n_head);
  kv.V_desc.upload(descs.data() + n_head, n_head);
  // The descriptors' pointers, so that a launch recorded on the simulator for another executor carries the stage and
  // records they point to (tests/amdgpu_sim/rocjitsu).
  for (auto* d : {&kv.K_desc, &kv.V_desc})
    d->holds_device_addresses({offsetof(ggml_cuda_fattn_kvarn_desc, records), offsetof(ggml_cuda_fattn_kvarn_desc, stage),
                               offsetof(ggml_cuda_fattn_kvarn_desc, indices)});
  kv.k = reinterpret_cast<const char*>(ptr(kv.K_desc));
  kv.v = reinterpret_cast<const char*>(ptr(kv.V_desc));
  kv.nb11 = kv.nb21 = 0;
  kv.nb12 = kv.nb22 = sizeof(ggml_cuda_fattn_kvarn_desc);
  kv.nb13 = kv.nb23 = sizeof(ggml_cuda_fattn_kvarn_desc) * n_head;
}

// KVarN K/V as the tree's own store kernels left them (ops.kvarn_store, kvarn_store.cu): their stage and records
// uploaded as they are, one descriptor per stream and K/V head filled as ggml_cuda_fattn_kvarn_init_descs_kernel fills
// it (fattn-kvarn-dispatch.cu): records and stage of the side, n_record_heads = the view's ne[1] (K/V heads x slices),
// live_group / live_pos from the highest stored index (n_kv - 1: indices 0..n_kv-1 were stored), head_base h·slices,
// groups_per_stream = records->ne[2] / streams, record_bytes = records->ne[0], the store's stage/tail groups and bits,
// value 0 for K and 1 for V, not SWA, not eager, no indirect reads, head_slices 1 (each 128-wide slice rotated on its
// own, as the store ran), the rotated domain. The kernel's own group logic (ggml_cuda_fattn_kvarn_group_from_stage /
// _from_record) then sends the tail window and group 0 to the stage and the groups before the window to the records.
template <int DKQ>
void kvarn_records_kv(const problem& p, const tp::fattn::kvarn_records& rec, body_kv& kv) {
  constexpr int dim = GGML_CUDA_FATTN_KVARN_DIM, slices = DKQ / dim;
  if (rec.n_kv != p.n_kv || rec.n_record_heads != p.n_head * slices)
    throw std::invalid_argument("fattn tree: the problem's KVarN records were stored for " + std::to_string(rec.n_kv) +
                                " tokens and " + std::to_string(rec.n_record_heads) + " record heads; the problem has " +
                                std::to_string(p.n_kv) + " tokens and " + std::to_string(p.n_head * slices));
  const std::size_t stage_halves = std::size_t(rec.stage_groups) * dim * rec.n_record_heads * dim;
  const std::size_t record_bytes = std::size_t(rec.groups_per_stream) * rec.n_record_heads * rec.record_bytes;
  for (const auto* side : {&rec.k, &rec.v})
    if (side->stage.size() != stage_halves || side->records.size() != record_bytes)
      throw std::invalid_argument("fattn tree: KVarN stage/records of the wrong size");
  kv.K.resize(stage_halves);
  kv.V.resize(stage_halves);
  kv.K.upload(rec.k.stage);
  kv.V.upload(rec.v.stage);
  kv.K_records.resize(record_bytes);
  kv.V_records.resize(record_bytes);
  kv.K_records.upload(rec.k.records);
  kv.V_records.upload(rec.v.records);
  const int live = rec.n_kv - 1;
  std::vector<ggml_cuda_fattn_kvarn_desc> descs(2 * std::size_t(p.n_head));
  for (int side = 0; side < 2; ++side)
    for (int h = 0; h < p.n_head; ++h) {
      ggml_cuda_fattn_kvarn_desc& d = descs[std::size_t(side) * p.n_head + h];
      d = {};
      d.records = ptr(side == 0 ? kv.K_records : kv.V_records);
      d.stage = reinterpret_cast<const half*>(ptr(side == 0 ? kv.K : kv.V));
      d.indices = nullptr;  // read only for SWA or indirect reads
      d.n_record_heads = rec.n_record_heads;
      d.live_group = live / dim;
      d.live_pos = live % dim;
      d.stream = 0;
      d.head_base = h * slices;
      d.groups_per_stream = rec.groups_per_stream;
      d.record_bytes = rec.record_bytes;
      d.stage_groups = rec.stage_groups;
      d.tail_groups = rec.params.tail_groups;
      d.bits = rec.params.bits;
      d.value = side;
      d.head_slices = 1;
      d.original_domain = 0;
    }
  hand_descriptors(descs, p.n_head, kv);
}

// KVarN (both sides rotated, the kind ROCm runs): the body reads K and V through the tree's descriptors
// (ggml_cuda_fattn_kvarn_desc, one per stream and K/V head), filled here as ggml_cuda_fattn_kvarn_init_descs_kernel
// fills them, and ggml_cuda_flash_attn_ext_mma_kvarn_case hands them to launch_fattn in place of K and V (nb1 0, nb2 one
// descriptor, nb3 one stream's). Every 128-token group lies in the descriptor's f16 stage, the tree's lossless window
// (group 0, the attention-sink group, always; groups 1..live_group as its tail window, tail_groups = live_group), at
// the stage position the tree's store kernels write (kvarn_store_kernel_*: stream base, slot 0 for group 0 and
// 1 + (g-1) % tail_groups after, then [record head][128]), so the kernel's fast stage path copies them as they are.
// No group comes from a quantised record: records is null, so a read of one faults on the device instead of reading
// zeros. The rotated domain is the kernel's own (the graph rotates Q before it and the output after): the problem's
// Q, K and V are taken as rotated-domain values, so the kernel computes plain attention over them, which the oracle
// computes too.
template <int DKQ, int DV>
void kvarn_stage_kv(const problem& p, body_kv& kv) {
  static_assert(DKQ == DV && DKQ % GGML_CUDA_FATTN_KVARN_DIM == 0, "rotated KVarN K/V: 128-wide slices, DKQ == DV");
  constexpr int dim = GGML_CUDA_FATTN_KVARN_DIM, slices = DKQ / dim;
  if (p.records) {
    kvarn_records_kv<DKQ>(p, *p.records, kv);
    return;
  }
  const int live_group = (p.n_kv - 1) / dim, live_pos = (p.n_kv - 1) % dim;
  const int tail_groups = std::max(1, live_group), stage_groups = tail_groups + 1, n_record_heads = p.n_head * slices;
  const std::size_t stage_halves = std::size_t(stage_groups) * dim * n_record_heads * dim;
  const auto stage_of = [&](std::span<const float> rows, tp::device_buffer<std::uint16_t>& stage) {
    std::vector<float> staged(stage_halves, 0.0f);
    for (int h = 0; h < p.n_head; ++h)
      for (int t = 0; t < p.n_kv; ++t) {
        const int group = t / dim, pos = t % dim, slot = group == 0 ? 0 : 1 + (group - 1) % tail_groups;
        for (int s = 0; s < slices; ++s)
          std::copy_n(rows.begin() + (std::size_t(h) * p.n_kv + t) * DKQ + s * dim, dim,
                      staged.begin() + ((std::size_t(slot) * dim + pos) * n_record_heads + h * slices + s) * dim);
      }
    stage.resize(stage_halves);
    stage.upload(to_half_bits(staged));
  };
  stage_of(p.k_body, kv.K);
  stage_of(p.v_body, kv.V);
  std::vector<ggml_cuda_fattn_kvarn_desc> descs(2 * std::size_t(p.n_head));
  for (int side = 0; side < 2; ++side)
    for (int h = 0; h < p.n_head; ++h) {
      ggml_cuda_fattn_kvarn_desc& d = descs[std::size_t(side) * p.n_head + h];
      d = {};
      d.records = nullptr;
      d.stage = reinterpret_cast<const half*>(ptr(side == 0 ? kv.K : kv.V));
      d.indices = nullptr;  // read only for SWA or indirect reads
      d.n_record_heads = n_record_heads;
      d.live_group = live_group;
      d.live_pos = live_pos;
      d.stream = 0;
      d.head_base = h * slices;
      d.groups_per_stream = live_group + 1;
      d.record_bytes = 0;
      d.stage_groups = stage_groups;
      d.tail_groups = tail_groups;
      d.bits = 4;  // a valid width (ggml_cuda_fattn_kvarn_valid_bits); no record is decoded
      d.value = side;
      d.head_slices = 1;
      d.original_domain = 0;
    }
  hand_descriptors(descs, p.n_head, kv);
}

template <int DKQ, int DV, int ncols1, int ncols2, kernel_kind KIND>
run_result run_instance(const problem& p, const tp::fattn::device_model& dev, const tp::fattn::run_options& opt) {
  constexpr ggml_type type_K = kv_types<KIND>::K, type_V = kv_types<KIND>::V;
  constexpr int ncols = ncols1 * ncols2;
  // The original-V domain reconstructs V in the loader, a CUDA-only route (api.h) with descriptors of its own.
  static_assert(KIND != kernel_kind::kvarn_k_original_v, "instances.h: the KVarN original-V domain is not launched");
  const auto body_kernel = flash_attn_ext_f16<DKQ, DV, ncols1, ncols2, false, false, type_K, type_V>;
  refuse_if_compiled_out(kernel_key(DKQ, DV, ncols1, ncols2, type_K, type_V));
  const device_info& d = device();
  const body_config c = body_config_for<DKQ, DV, ncols1, ncols2>(KIND, d.cc, d.warp_size);
  // The body reads K/V in whole batches of nbatch_fa rows. Upstream's graph pads K/V to FATTN_KQ_STRIDE and the mask
  // holds -inf over the padding; this launcher passes the problem's K/V unpadded and a zero mask, so a KV length
  // between batches would read past K/V: refused rather than run wrong.
  if (p.n_kv % c.nbatch_fa != 0)
    throw std::invalid_argument("fattn tree: a body KV length of " + std::to_string(p.n_kv) + " is not a multiple of " +
                                "the instance's KV batch (nbatch_fa " + std::to_string(c.nbatch_fa) + "): tileprobe " +
                                "does not pad K/V and mask the padding as upstream's graph does");
  run_result r;
  r.plan = plan_for(c, p, dev, d.cc);
  const launch_plan& lp = r.plan;
  r.tile_blocks = tp::fattn::blocks_per_tile(lp);
  const int H = p.n_head * p.gqa;  // Q heads
  const std::size_t rows = std::size_t(H) * p.n_q;

  // ggml's tensors, as launch_fattn reads them: Q f32 [DKQ, n_q, H] (the problem's q, as it lies), K/V (f16
  // [D, n_kv, n_head], or the KVarN descriptors), the mask f16 [KV, tokens] (zeros: the problem has none; one row per
  // token of every tile and one column per KV row of every batch, what the kernel may read), dst f32 [DV, H, n_q]
  // (row q*H + h), the body meta float2 per dst row (fattn-tail.cuh's memset to zero first), the stream-k fixup
  // buffer.
  tp::device_buffer<float> Q(p.q.size());
  Q.upload(p.q.data(), p.q.size());
  body_kv kv;
  if constexpr (KIND == kernel_kind::f16)
    f16_kv<DKQ, DV>(p, kv);
  else
    kvarn_stage_kv<DKQ, DV>(p, kv);
  const int mask_cols = lp.iter_k * c.nbatch_fa, mask_rows = lp.iter_j * ncols1;
  tp::device_buffer<std::uint16_t> mask(std::size_t(mask_cols) * mask_rows);
  mask.fill(0);
  tp::device_buffer<float> dst(rows * DV);
  tp::device_buffer<float> final_meta = opt.memset_body_meta ? tp::device_buffer<float>(rows * 2)
                                                             : tp::device_buffer<float>(rows * 2, tp::uninitialised);
  if (opt.memset_body_meta) final_meta.fill(0.0f);
  const bool needs_fixup_buffer = lp.ntiles % lp.blocks != 0;
  tp::device_buffer<float> fixup(needs_fixup_buffer ? std::size_t(lp.blocks) * ncols * (2 + DV / 2) * 2 : 1);

  const std::size_t nb01 = std::size_t(DKQ) * sizeof(float), nb02 = nb01 * p.n_q, nb03 = nb02 * H;
  const std::size_t nb31 = std::size_t(mask_cols) * sizeof(half), nb32 = nb31 * mask_rows, nb33 = nb32;

  // The mask scan, when launch_fattn runs it: a KV length that is a multiple of FATTN_KQ_STRIDE and >= 1024 tokens.
  tp::device_buffer<int> KV_max(std::size_t(lp.iter_j));
  const bool scan = p.n_kv % FATTN_KQ_STRIDE == 0 && p.n_q >= 1024;
  if (scan)
    launch("flash_attn_mask_to_KV_max", flash_attn_mask_to_KV_max<ncols1>, dim3(lp.iter_j, 1, 1),
           dim3(FATTN_KQ_STRIDE / 2, 1, 1), 0, reinterpret_cast<const half2*>(ptr(mask)), ptr(KV_max),
           p.n_kv / FATTN_KQ_STRIDE, std::int64_t(nb31 / sizeof(half2)), std::int64_t(nb33 / sizeof(half2)));

  // launch_fattn's scalars with no ALiBi and no softcap: m0 = m1 = 2^0, n_head_log2 the largest power of two <= H.
  std::uint32_t n_head_log2 = 1;
  while (n_head_log2 * 2 <= std::uint32_t(H)) n_head_log2 *= 2;
  launch("flash_attn_ext_f16", body_kernel, dim3(lp.blocks, 1, 1), dim3(d.warp_size, c.nwarps, 1), c.nbytes_shared,
         reinterpret_cast<const char*>(ptr(Q)), kv.k, kv.v, reinterpret_cast<const char*>(ptr(mask)),
         static_cast<const char*>(nullptr), scan ? static_cast<const int*>(ptr(KV_max)) : nullptr, ptr(dst),
         needs_fixup_buffer ? reinterpret_cast<float2*>(ptr(fixup)) : nullptr,
         reinterpret_cast<float2*>(ptr(final_meta)), p.scale, 0.0f, 1.0f, 1.0f, n_head_log2, 0.0f, DKQ,
         init_fastdiv_values(p.n_q), H, 1, checked_int(nb01, "nb01"), checked_int(nb02, "nb02"),
         checked_int(nb03, "nb03"), DKQ, p.n_kv, p.n_head, 1, checked_int(kv.nb11, "nb11"),
         checked_int(kv.nb12, "nb12"), std::int64_t(kv.nb13), checked_int(kv.nb21, "nb21"),
         checked_int(kv.nb22, "nb22"), std::int64_t(kv.nb23), mask_rows, 1,
         1, checked_int(nb31, "nb31"), checked_int(nb32, "nb32"), std::int64_t(nb33));

  const int gqa_ratio = p.gqa;
  if (lp.fixup == fixup_kind::uniform) {
    const uint3 fd0 = init_fastdiv_values(lp.iter_j * lp.iter_z * p.n_head);
    const uint3 fd1 = init_fastdiv_values(lp.iter_j * lp.iter_z);
    const uint3 fd2 = init_fastdiv_values(lp.iter_j);
    launch("flash_attn_stream_k_fixup_uniform", flash_attn_stream_k_fixup_uniform<DV, ncols1, ncols2>,
           dim3(lp.ntiles, ncols1, ncols2), dim3(DV, 1, 1), 0, ptr(dst),
           reinterpret_cast<const float2*>(ptr(fixup)), reinterpret_cast<float2*>(ptr(final_meta)), p.n_q, H,
           p.n_head, lp.blocks, gqa_ratio, lp.blocks / lp.ntiles, fd0, fd1, fd2);
  } else if (lp.fixup == fixup_kind::general) {
    const uint3 fd_k_j_z_ne12 = init_fastdiv_values(lp.iter_k * lp.iter_j * lp.iter_z * p.n_head);
    const uint3 fd_k_j_z = init_fastdiv_values(lp.iter_k * lp.iter_j * lp.iter_z);
    const uint3 fd_k_j = init_fastdiv_values(lp.iter_k * lp.iter_j);
    const uint3 fd_k = init_fastdiv_values(lp.iter_k);
    launch("flash_attn_stream_k_fixup_general", flash_attn_stream_k_fixup_general<DV, ncols1, ncols2>,
           dim3(lp.blocks, ncols1, ncols2), dim3(DV, 1, 1), 0, ptr(dst),
           reinterpret_cast<const float2*>(ptr(fixup)), reinterpret_cast<float2*>(ptr(final_meta)), p.n_q, H,
           gqa_ratio, checked_int(std::size_t(lp.units), "units"), fd_k_j_z_ne12, fd_k_j_z, fd_k_j, fd_k);
  }

  r.body = to_problem_rows(dst.to_host(), H, p.n_q, DV);
  r.body_meta = to_problem_rows(final_meta.to_host(), H, p.n_q, 2);
  if (auto w = final_meta.kernel_written()) {
    const std::vector<bool> written = to_problem_rows(*w, H, p.n_q, 2);
    r.body_meta_written.assign(rows, false);
    for (std::size_t i = 0; i < rows; ++i) r.body_meta_written[i] = written[2 * i] && written[2 * i + 1];
  }
  if (!opt.with_tail_merge) {
    r.out = r.body;
    return r;
  }
  r.out = to_problem_rows(tail_merge<DKQ, DV>(p, Q, dst, final_meta), H, p.n_q, DV);
  if (auto u = final_meta.unwritten_reads()) r.merge_unwritten_meta_reads = u->total();
  return r;
}

run_result run(int config, const problem& p, const tp::fattn::device_model& dev, const tp::fattn::run_options& opt) {
  const int i = instance_for(config, p);
  tp::fattn::check_problem(tp::fattn::configs[config], p);
  return dispatch_instance(i, [&]<int DKQ, int DV, int ncols1, int ncols2, kernel_kind KIND>() {
    return run_instance<DKQ, DV, ncols1, ncols2, KIND>(p, dev, opt);
  });
}

launch_plan plan(int config, const problem& p, const tp::fattn::device_model& dev) {
  const int i = instance_for(config, p);
  const device_info& d = device();
  return dispatch_instance(i, [&]<int DKQ, int DV, int ncols1, int ncols2, kernel_kind KIND>() {
    return plan_for(body_config_for<DKQ, DV, ncols1, ncols2>(KIND, d.cc, d.warp_size), p, dev, d.cc);
  });
}

run_result run_parallel_blocks(int, const problem&, int) {
  throw std::invalid_argument("fattn tree: the tree's MMA kernel is always launched stream-k (launch_fattn's "
                              "stream_k = true); flash_attn_combine_results' parallel_blocks path is not its route");
}

// The largest body kernel among the config's instances (the f16 and KVarN sums differ), for the device's arch.
int smem_bytes(int config) {
  const device_info& d = device();
  std::size_t most = 0;
  for (int i = 0; i < tp::fattn_tree::n_instances; ++i)
    if (tp::fattn_tree::config_index(tp::fattn_tree::instances[i].config) == config)
      most = std::max(most, dispatch_instance(i, [&]<int DKQ, int DV, int ncols1, int ncols2, kernel_kind KIND>() {
                        return body_config_for<DKQ, DV, ncols1, ncols2>(KIND, d.cc, d.warp_size).nbytes_shared;
                      }));
  return int(most);
}

}  // namespace

// kvarn_store.cu, compiled with this variant's tree: its own KVarN store kernels.
tp::fattn::kvarn_records kvarn_store(int config, const problem& p, const tp::fattn::kvarn_store_params& params);

const tp::fattn::ops fattn_ops{TP_VARIANT_NAME, &plan, &run, &run_parallel_blocks, &smem_bytes, &kvarn_store};
TP_REGISTER_VARIANT(fattn, tp::fattn::ops, fattn_ops);

}  // namespace TP_VARIANT_NS
