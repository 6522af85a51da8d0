// What a beellama tree's ggml-cuda kernels need from a HIP installation and Debian bookworm's HIP 5.2.3 lacks
// (clang-19 + libamdhip64-dev, no ROCm). Force-included (-include) before the tree's headers, only on that toolchain;
// with a user's ROCm (TP_ROCM_PATH) none of this is compiled. Each block names its gap. The other gaps are whole
// headers (include/hipblas/hipblas.h, include/hip/hip_bf16.h) and one header that must change
// (derive_hip_fp16.cmake: __half2's .x/.y).
//
// Everything here is ours, written from what the names mean in ROCm's HIP API and device libraries; nothing is taken
// from ROCm's sources.
#pragma once

#include <hip/hip_runtime.h>
#include <hip/hip_fp16.h>

// Gap: HIP 5.2.3's __shfl* take int, unsigned, float, double and 64-bit integers; ROCm 6 adds __half and __half2,
// which the tree's warp reductions shuffle (common.cuh's warp_reduce_sum/max over half2). A shuffle moves bits, so
// each form moves the value's bits through the 32-bit one.
namespace tp_fa_hip_compat {
template <class To, class From>
__device__ inline To bits_as(From v) {
  static_assert(sizeof(To) == sizeof(From));
  To r;
  __builtin_memcpy(&r, &v, sizeof r);
  return r;
}
}  // namespace tp_fa_hip_compat

#define TP_FA_HALF_SHUFFLE(name, lane_type)                                                              \
  __device__ inline __half name(__half v, lane_type lane, int width = warpSize) {                        \
    using namespace tp_fa_hip_compat;                                                                    \
    return bits_as<__half>(static_cast<unsigned short>(name(unsigned(bits_as<unsigned short>(v)), lane, width))); \
  }                                                                                                      \
  __device__ inline __half2 name(__half2 v, lane_type lane, int width = warpSize) {                      \
    using namespace tp_fa_hip_compat;                                                                    \
    return bits_as<__half2>(name(bits_as<unsigned>(v), lane, width));                                    \
  }
TP_FA_HALF_SHUFFLE(__shfl, int)
TP_FA_HALF_SHUFFLE(__shfl_xor, int)
TP_FA_HALF_SHUFFLE(__shfl_up, unsigned int)
TP_FA_HALF_SHUFFLE(__shfl_down, unsigned int)
#undef TP_FA_HALF_SHUFFLE

// Gap: HIP 5.2.3 has no __hmax / __hmin for __half (common.cuh's ggml_cuda_hmax and its half2 form). ROCm defines
// them as IEEE maxNum / minNum: a NaN operand yields the other operand. Either operand comes back unchanged, so the
// comparison may go through float (exact for every half).
__device__ inline __half __hmax(__half a, __half b) {
  const float fa = __half2float(a), fb = __half2float(b);
  return fa != fa ? b : fb != fb ? a : fa < fb ? b : a;
}
__device__ inline __half __hmin(__half a, __half b) {
  const float fa = __half2float(a), fb = __half2float(b);
  return fa != fa ? b : fb != fb ? a : fb < fa ? b : a;
}

// Gap: HIP 5.2.3 has no __syncwarp (the KVarN loader's warp-level Walsh-Hadamard steps). On AMD it is a wave-level
// barrier ordered as release before and acquire after, so LDS written by one lane is seen by the others.
__device__ inline void __syncwarp(unsigned = 0xffffffffu) {
  __builtin_amdgcn_fence(__ATOMIC_RELEASE, "wavefront");
  __builtin_amdgcn_wave_barrier();
  __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "wavefront");
}

// Gap: no gfx11/gfx12 device-library bitcode (ROCm's ockl/ocml) in Debian bookworm, so these objects are built with
// -nogpulib and the functions HIP 5.2.3's headers call are defined here, each through the compiler builtin that means
// the same: work-item and work-group ids, and sizes from the dispatch's implicit arguments (what the dialect,
// simt/simt.h, reads too). HIP never launches a partial work-group, so the group count is a plain division.
extern "C" __device__ inline size_t __ockl_get_local_id(uint dim) {
  return dim == 0 ? __builtin_amdgcn_workitem_id_x() : dim == 1 ? __builtin_amdgcn_workitem_id_y()
                                                     : dim == 2 ? __builtin_amdgcn_workitem_id_z() : 0;
}
extern "C" __device__ inline size_t __ockl_get_group_id(uint dim) {
  return dim == 0 ? __builtin_amdgcn_workgroup_id_x() : dim == 1 ? __builtin_amdgcn_workgroup_id_y()
                                                      : dim == 2 ? __builtin_amdgcn_workgroup_id_z() : 0;
}
extern "C" __device__ inline size_t __ockl_get_local_size(uint dim) {
  return dim == 0 ? __builtin_amdgcn_workgroup_size_x() : dim == 1 ? __builtin_amdgcn_workgroup_size_y()
                                                        : dim == 2 ? __builtin_amdgcn_workgroup_size_z() : 1;
}
extern "C" __device__ inline size_t __ockl_get_num_groups(uint dim) {
  const unsigned grid = dim == 0 ? __builtin_amdgcn_grid_size_x() : dim == 1 ? __builtin_amdgcn_grid_size_y()
                                                                  : dim == 2 ? __builtin_amdgcn_grid_size_z() : 1;
  return grid / __ockl_get_local_size(dim);
}
extern "C" __device__ inline uint __ockl_mul_hi_u32(uint a, uint b) { return uint((unsigned long long)a * b >> 32); }

// __all / __any (the tree's warp_reduce_all/any through its __all_sync macro): over the wave's active lanes, a ballot
// of the predicate against the ballot of true (the active mask).
extern "C" __device__ inline bool __ockl_wfall_i32(int x) {
#if __AMDGCN_WAVEFRONT_SIZE == 64
  return __builtin_amdgcn_ballot_w64(x != 0) == __builtin_amdgcn_ballot_w64(true);
#else
  return __builtin_amdgcn_ballot_w32(x != 0) == __builtin_amdgcn_ballot_w32(true);
#endif
}
extern "C" __device__ inline bool __ockl_wfany_i32(int x) {
#if __AMDGCN_WAVEFRONT_SIZE == 64
  return __builtin_amdgcn_ballot_w64(x != 0) != 0;
#else
  return __builtin_amdgcn_ballot_w32(x != 0) != 0;
#endif
}

// __syncthreads and __threadfence* in HIP 5.2.3 call this OpenCL-style fence. Global and local memory are ordered
// together (the flags are not consulted, as HSA ties the two happens-before orders), at the scope asked for; a relaxed
// order or the work-item scope needs no fence.
extern "C" __device__ inline void __atomic_work_item_fence(__cl_mem_fence_flags, __memory_order order,
                                                           __memory_scope scope) {
#define TP_FA_FENCE(scope_name)                                                                        \
  switch (order) {                                                                                     \
    case __memory_order_acquire: __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, scope_name); break;          \
    case __memory_order_release: __builtin_amdgcn_fence(__ATOMIC_RELEASE, scope_name); break;          \
    case __memory_order_acq_rel: __builtin_amdgcn_fence(__ATOMIC_ACQ_REL, scope_name); break;          \
    case __memory_order_seq_cst: __builtin_amdgcn_fence(__ATOMIC_SEQ_CST, scope_name); break;          \
    default: break;                                                                                    \
  }
  switch (scope) {
    case __memory_scope_work_item: break;
    case __memory_scope_sub_group: TP_FA_FENCE("wavefront") break;
    case __memory_scope_work_group: TP_FA_FENCE("workgroup") break;
    case __memory_scope_device: TP_FA_FENCE("agent") break;
    default: TP_FA_FENCE("") break;
  }
#undef TP_FA_FENCE
}

// log2f: the tail kernel's ALiBi preamble takes floor(log2(n_head)) on every launch; logf: the KVarN store's
// log-domain Sinkhorn (kvarn.cu). LLVM lowers both for AMDGPU itself, without a library (log2: v_log_f32 with denormal
// inputs scaled into range; log: the same plus an extended-precision multiply by ln 2), which is what ROCm's ocml
// functions compile to as well.
extern "C" __device__ inline float __ocml_log2_f32(float x) { return __builtin_log2f(x); }
extern "C" __device__ inline float __ocml_log_f32(float x) { return __builtin_logf(x); }

// Reached only on paths tileprobe never takes, so they stop the wave (s_trap) rather than compute with a stand-in:
//   device printf (HIP's hostcall buffer): the tree's no_device_code(), the body of a kernel the tree compiles out
//     for the arch; tileprobe reports such a kernel before launching it (kernels/fattn_tree/README.md);
//   powf: ALiBi slopes, only with max_bias > 0;  tanhf: the logit softcap, only with softcap != 0.
// The printf signatures are the ones clang's HIP printf lowering calls (AMDGPU hostcall ABI); those three are not
// inline because the calls are the compiler's, not the source's, and an inline definition would not be emitted.
extern "C" __device__ unsigned long __ockl_printf_begin(unsigned long) { __builtin_trap(); }
extern "C" __device__ unsigned long __ockl_printf_append_string_n(unsigned long, const char*, unsigned long,
                                                                         unsigned) {
  __builtin_trap();
}
extern "C" __device__ unsigned long __ockl_printf_append_args(unsigned long, unsigned, unsigned long,
                                                                     unsigned long, unsigned long, unsigned long,
                                                                     unsigned long, unsigned long, unsigned long,
                                                                     unsigned) {
  __builtin_trap();
}
extern "C" __device__ inline float __ocml_pow_f32(float, float) { __builtin_trap(); }
extern "C" __device__ inline float __ocml_tanh_f32(float) { __builtin_trap(); }
