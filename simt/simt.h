// The tileprobe kernel dialect: one header, included by every file under kernels/.
//
// A kernel file is written once, CUDA-style, against the names in namespace `tp` below, and compiles three ways:
//   TP_BACKEND_CPU   host compiler (g++/clang++), runs on the fiber emulator in simt/cpu/
//   TP_BACKEND_CUDA  nvcc (sm_90), runs on an NVIDIA GPU
//   TP_BACKEND_HIP   clang -x hip (gfx1201, gfx1100, gfx942); freestanding (-nogpuinc -nogpulib) unless
//                    TP_HIP_RUNTIME is defined, in which case <hip/hip_runtime.h> provides launches and buffers.
// The backend is picked from the compiler (nvcc defines __CUDACC__, clang -x hip defines __HIP__); the host build
// defines nothing and gets the CPU emulator.
//
// Memory is reached only through tp::smem<T> (block-shared) and tp::gmem<T> (global) views so that the CPU backend
// can record every access: the shared-memory hazard detector needs (warp, lane, barrier epoch, read/write, source
// location), and initcheck-like global checks need written bits. On GPUs the views are plain pointers.
//
// Grids and blocks are one-dimensional (x only): a kernel derives its warp index as thread_idx()/warp_size().
#pragma once

#if defined(__HIP__)
  #define TP_BACKEND_HIP 1
#elif defined(__CUDACC__)
  #define TP_BACKEND_CUDA 1
#else
  #define TP_BACKEND_CPU 1
#endif

#if TP_BACKEND_CPU
  #include <cstddef>
  #include <cstdint>
  #include <source_location>
  #include "simt/cpu/device.h"   // tp::cpu::* device-side runtime (current fiber, parking, access recording)
  #define TP_GLOBAL
  #define TP_DEVICE inline
  #define TP_HOST_DEVICE inline
  // Source location of an access or barrier, captured at the call site (CPU only; GPUs drop it).
  #define TP_LOC_PARAM , ::std::source_location tp_loc_ = ::std::source_location::current()
  #define TP_LOC_ONLY_PARAM ::std::source_location tp_loc_ = ::std::source_location::current()
  #define TP_LOC_ARG , tp_loc_
#elif TP_BACKEND_CUDA
  #include <cstddef>
  #include <cstdint>
  #include <cuda_runtime.h>
  #define TP_GLOBAL __global__
  #define TP_DEVICE __device__ __forceinline__
  #define TP_HOST_DEVICE __host__ __device__ __forceinline__
  #define TP_LOC_PARAM
  #define TP_LOC_ONLY_PARAM
  #define TP_LOC_ARG
#elif TP_BACKEND_HIP
  #if defined(TP_HIP_RUNTIME)
    #include <hip/hip_runtime.h>
  #else
    #define __global__ __attribute__((global))
    #define __device__ __attribute__((device))
    #define __host__ __attribute__((host))
    #define __shared__ __attribute__((shared))
    #define __forceinline__ inline __attribute__((always_inline))
    typedef __SIZE_TYPE__ size_t;
    namespace std { using size_t = ::size_t; }
  #endif
  #include <stdint.h>
  #define TP_GLOBAL __global__
  #define TP_DEVICE __device__ __forceinline__
  #define TP_HOST_DEVICE __host__ __device__ __forceinline__
  #define TP_LOC_PARAM
  #define TP_LOC_ONLY_PARAM
  #define TP_LOC_ARG
  // Wave size per arch macro: __AMDGCN_WAVEFRONT_SIZE__ is gone in clang-22 (docs/bugs/amdgpu-toolchain.md §3).
  #if defined(__gfx900__) || defined(__gfx906__) || defined(__gfx908__) || defined(__gfx90a__) || \
      defined(__gfx940__) || defined(__gfx941__) || defined(__gfx942__) || defined(__gfx950__)
    #define TP_HIP_WAVE 64
  #else
    #define TP_HIP_WAVE 32
  #endif
#endif

// A loop with a constant trip count, fully unrolled: the matrix ops' layout arithmetic (lane, register and bit of each
// element) then folds to constants instead of being recomputed per element at run time.
#if defined(__CUDACC__) || defined(__clang__)
  #define TP_UNROLL _Pragma("unroll")
#elif defined(__GNUC__)
  #define TP_UNROLL _Pragma("GCC unroll 64")
#else
  #define TP_UNROLL
#endif

// Code that is not per variant but is compiled by several backends into one binary (a kernel template in a shared
// namespace, instantiated by the cpu and the hip object of the hip build) goes into this inline namespace, as
// simt/host.h does for the host classes. A `__global__` function's host symbol is a different kind of thing per
// backend (CPU: the function; clang HIP: a kernel handle variable the launch loads the stub address from), so under
// one mangled name the linker keeps one of the two and the other backend's launch jumps through the wrong bytes.
#if TP_BACKEND_CPU
  #define TP_BACKEND_NS cpu_backend
#elif TP_BACKEND_CUDA
  #define TP_BACKEND_NS cuda_backend
#else
  #define TP_BACKEND_NS hip_backend
#endif

// Each variant of a kernel family compiles into its own namespace (cmake/variants.cmake defines these).
#ifndef TP_VARIANT_NS
  #define TP_VARIANT_NS tp_variant_default
#endif
#ifndef TP_VARIANT_NAME
  #define TP_VARIANT_NAME "default"
#endif

namespace tp {

// The largest warp any backend uses (gfx9 wave64); warp_lanes<T> is sized by it.
inline constexpr unsigned max_warp_size = 64;

#if TP_BACKEND_CPU
TP_DEVICE unsigned thread_idx() { return cpu::self().thread; }
TP_DEVICE unsigned block_idx()  { return cpu::self().block; }
TP_DEVICE unsigned block_dim()  { return cpu::self().launch->block_dim; }
TP_DEVICE unsigned grid_dim()   { return cpu::self().launch->grid_dim; }
TP_DEVICE unsigned warp_size()  { return cpu::self().launch->warp_size; }
#elif TP_BACKEND_CUDA
TP_DEVICE unsigned thread_idx() { return threadIdx.x; }
TP_DEVICE unsigned block_idx()  { return blockIdx.x; }
TP_DEVICE unsigned block_dim()  { return blockDim.x; }
TP_DEVICE unsigned grid_dim()   { return gridDim.x; }
TP_DEVICE constexpr unsigned warp_size() { return 32; }
#elif TP_BACKEND_HIP
TP_DEVICE unsigned thread_idx() { return __builtin_amdgcn_workitem_id_x(); }
TP_DEVICE unsigned block_idx()  { return __builtin_amdgcn_workgroup_id_x(); }
TP_DEVICE unsigned block_dim()  { return __builtin_amdgcn_workgroup_size_x(); }
TP_DEVICE unsigned grid_dim()   { return __builtin_amdgcn_grid_size_x() / __builtin_amdgcn_workgroup_size_x(); }
TP_DEVICE constexpr unsigned warp_size() { return TP_HIP_WAVE; }
#endif
TP_DEVICE unsigned lane_id() { return thread_idx() % warp_size(); }
TP_DEVICE unsigned warp_id() { return thread_idx() / warp_size(); }

// __syncthreads. On the CPU backend a barrier reached by only part of the block is reported (divergent barrier).
TP_DEVICE void sync_threads(TP_LOC_ONLY_PARAM) {
#if TP_BACKEND_CPU
  cpu::block_barrier(tp_loc_);
#elif TP_BACKEND_CUDA
  __syncthreads();
#elif TP_BACKEND_HIP
  __builtin_amdgcn_fence(__ATOMIC_RELEASE, "workgroup");
  __builtin_amdgcn_s_barrier();
  __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "workgroup");
#endif
}

// Warp shuffles over 32-bit-word-sized types (all lanes of the warp must call; full mask).
template <class T>
TP_DEVICE T shfl(T v, int src_lane TP_LOC_PARAM) {
  static_assert(sizeof(T) == 4, "tp::shfl moves one 32-bit word; use warp_allgather for larger values");
#if TP_BACKEND_CPU
  return cpu::warp_shfl(v, src_lane TP_LOC_ARG);
#elif TP_BACKEND_CUDA
  return __shfl_sync(0xffffffffu, v, src_lane);
#elif TP_BACKEND_HIP
  int w = __builtin_bit_cast(int, v);
  w = __builtin_amdgcn_ds_bpermute(src_lane << 2, w);
  return __builtin_bit_cast(T, w);
#endif
}
template <class T>
TP_DEVICE T shfl_xor(T v, int lane_mask TP_LOC_PARAM) { return shfl(v, int(lane_id() ^ unsigned(lane_mask)) TP_LOC_ARG); }

// The warp collective: every lane contributes one value and receives every lane's value, indexed by lane.
// The matrix instructions' software form is built on this (kernels/mma/): a lane gathers the operand registers of
// the whole wave and computes its own output registers. On the CPU backend this is one park per call.
template <class T>
struct warp_lanes { T lane[max_warp_size]; };

template <class T>
TP_DEVICE warp_lanes<T> warp_allgather(const T& mine TP_LOC_PARAM) {
#if TP_BACKEND_CPU
  warp_lanes<T> out;
  cpu::warp_allgather_bytes(&mine, sizeof(T), out.lane TP_LOC_ARG);
  return out;
#else
  static_assert(sizeof(T) % 4 == 0, "warp_allgather moves whole 32-bit words");
  constexpr unsigned words = sizeof(T) / 4;
  warp_lanes<T> out;
  uint32_t src[words];
  __builtin_memcpy(src, &mine, sizeof(T));
  for (unsigned l = 0; l < warp_size(); ++l) {
    uint32_t dst[words];
    for (unsigned w = 0; w < words; ++w) dst[w] = shfl(src[w], int(l));
    __builtin_memcpy(&out.lane[l], dst, sizeof(T));
  }
  return out;
#endif
}

// A point where the CUDA backend may delay chosen warps (--skew) to make races show on real hardware.
// Semantics never change: it only spins. On the CPU backend the scheduling policy does this job.
#if TP_BACKEND_CUDA
// One copy per translation unit (whole-program compilation, no -rdc); simt/host.h's tp::set_skew sets every copy.
static __constant__ unsigned tp_skew_warp_mask = 0;
static __constant__ unsigned tp_skew_cycles = 0;
#endif
TP_DEVICE void skew_point() {
#if TP_BACKEND_CUDA
  if (tp_skew_cycles && ((tp_skew_warp_mask >> (warp_id() & 31)) & 1u)) {
    long long t0 = clock64();
    while (clock64() - t0 < (long long)tp_skew_cycles) { }
  }
#endif
}

// Views of memory. ld/st carry the call site's source location on the CPU backend.
template <class T>
struct smem {
  T* p = nullptr;
#if TP_BACKEND_CPU
  TP_DEVICE T ld(std::size_t i TP_LOC_PARAM) const { cpu::record_shared(p + i, sizeof(T), false, tp_loc_); return p[i]; }
  TP_DEVICE void st(std::size_t i, T v TP_LOC_PARAM) const { cpu::record_shared(p + i, sizeof(T), true, tp_loc_); p[i] = v; }
#else
  TP_DEVICE T ld(size_t i) const { return p[i]; }
  TP_DEVICE void st(size_t i, T v) const { p[i] = v; }
#endif
  TP_DEVICE smem<T> operator+(std::size_t off) const { return smem<T>{p + off}; }
  template <class U> TP_DEVICE smem<U> as() const { return smem<U>{reinterpret_cast<U*>(p)}; }
};

template <class T>
struct gmem {
  T* p = nullptr;
#if TP_BACKEND_CPU
  cpu::shadow* sh = nullptr;  // written bits + poison bookkeeping of the owning buffer (null: untracked)
  TP_DEVICE T ld(std::size_t i TP_LOC_PARAM) const { if (sh) cpu::record_global(sh, p + i, sizeof(T), false, tp_loc_); return p[i]; }
  TP_DEVICE void st(std::size_t i, T v TP_LOC_PARAM) const { if (sh) cpu::record_global(sh, p + i, sizeof(T), true, tp_loc_); p[i] = v; }
  TP_DEVICE gmem<T> operator+(std::size_t off) const { return gmem<T>{p + off, sh}; }
#else
  TP_DEVICE T ld(size_t i) const { return p[i]; }
  TP_DEVICE void st(size_t i, T v) const { p[i] = v; }
  TP_DEVICE gmem<T> operator+(size_t off) const { return gmem<T>{p + off}; }
#endif
};

}  // namespace tp

// Block-shared arrays. TP_SHARED(float, tile, 256) declares `tp::smem<float> tile`.
// Dynamic shared memory (size given at launch) is reached with TP_DYNAMIC_SHARED(T, name).
#if TP_BACKEND_CPU
  #define TP_SHARED(T, name, n) ::tp::smem<T> name{::tp::cpu::shared_static<T>(n)}
  #define TP_DYNAMIC_SHARED(T, name) ::tp::smem<T> name{reinterpret_cast<T*>(::tp::cpu::shared_dynamic())}
#else
  #define TP_SHARED(T, name, n) __shared__ T name##_storage_[n]; ::tp::smem<T> name{name##_storage_}
  #define TP_DYNAMIC_SHARED(T, name) extern __shared__ unsigned char tp_dyn_smem_[]; \
    ::tp::smem<T> name{reinterpret_cast<T*>(tp_dyn_smem_)}
#endif
