// Matrix instructions for kernel code: one device function per instruction, named after the mnemonic.
// On the architecture that has the instruction the real builtin is called; everywhere else (CPU emulator, CUDA, other
// AMD archs) the software form from soft.cuh, which has the same lane semantics. Register contents follow the
// instruction's own layout (docs/bugs/gfx12-swmmac.md §5; proven against AMD's tables in tests/isa).
//
//   gfx12 (tp::mma::):     swmmac_i32_16x16x32_iu4, swmmac_i32_16x16x64_iu4, swmmac_i32_16x16x32_iu8,
//                          swmmac_f32_16x16x32_{fp8,bf8}_{fp8,bf8}, swmmac_f32_16x16x32_{f16,bf16},
//                          wmma_i32_16x16x32_iu4, wmma_i32_16x16x16_iu8, wmma_f32_16x16x16_f16      (wave32)
//   gfx11 (tp::mma::gfx11): wmma_f32_16x16x16_f16, wmma_i32_16x16x16_iu8   (wave32; A/B replicated in lanes x, x+16)
//   gfx9  (tp::mma::gfx9):  smfmac_f32_16x16x32_f16, smfmac_i32_16x16x64_i8 (wave64)
//
// All lanes of the wave must call (full EXEC), as on hardware. The index is an int32 per lane; IndexKey (0/1) selects
// bits [15:0] or [31:16] for the K=32 gfx12 forms (the builtin sees `index >> 16`, which the backend folds into
// index_key:1). clang-19 declares the index `short`, clang-21+ `int`: for the K=32 forms 16 bits are all the
// instruction reads, so an int passes on both; the K=64 iu4 form reads 32 and goes through inline asm before clang 21.
#pragma once
#include "kernels/mma/soft.cuh"

#if TP_BACKEND_HIP && (defined(__gfx1200__) || defined(__gfx1201__))
  #define TP_MMA_HW_GFX12 1
#endif
// The gfx11 builtins must never be compiled for gfx12: clang-19/22 pass Sema and then crash in instruction selection.
#if TP_BACKEND_HIP && (defined(__gfx1100__) || defined(__gfx1101__) || defined(__gfx1102__) || defined(__gfx1103__))
  #define TP_MMA_HW_GFX11 1
#endif
#if TP_BACKEND_HIP && (defined(__gfx940__) || defined(__gfx941__) || defined(__gfx942__) || defined(__gfx950__))
  #define TP_MMA_HW_GFX94 1
#endif

namespace tp::mma {

#if TP_BACKEND_HIP
namespace hw {
typedef int32_t i32x2 __attribute__((ext_vector_type(2)));
typedef int32_t i32x4 __attribute__((ext_vector_type(4)));
typedef int32_t i32x8 __attribute__((ext_vector_type(8)));
typedef float f32x4 __attribute__((ext_vector_type(4)));
typedef float f32x8 __attribute__((ext_vector_type(8)));
typedef _Float16 f16x4 __attribute__((ext_vector_type(4)));
typedef _Float16 f16x8 __attribute__((ext_vector_type(8)));
typedef _Float16 f16x16 __attribute__((ext_vector_type(16)));
typedef short i16x8 __attribute__((ext_vector_type(8)));
typedef short i16x16 __attribute__((ext_vector_type(16)));
template <class To, class From>
TP_DEVICE To as(const From& f) {
  static_assert(sizeof(To) == sizeof(From), "register vector sizes differ");
  return __builtin_bit_cast(To, f);
}
}  // namespace hw
#endif

template <bool SignedA, bool SignedB, bool Clamp = false, int IndexKey = 0>
TP_DEVICE v8i swmmac_i32_16x16x32_iu4(int32_t a, v2i b, v8i c, int32_t index) {
#if TP_MMA_HW_GFX12
  static_assert(IndexKey == 0 || IndexKey == 1, "index_key is 0 or 1 for K=32");
  const int sel = index >> (16 * IndexKey);
  return hw::as<v8i>(__builtin_amdgcn_swmmac_i32_16x16x32_iu4_w32(SignedA, a, SignedB, hw::as<hw::i32x2>(b),
                                                                  hw::as<hw::i32x8>(c), sel, Clamp));
#else
  return soft::swmmac_i32_16x16x32_iu4<SignedA, SignedB, Clamp, IndexKey>(a, b, c, index);
#endif
}

// The K=64 form reads all 32 bits of its index VGPR (16 groups of 2x2 bits; no index_key). clang < 21 declares the
// builtin's index `short` (llvm/llvm-project#129101, "Use 32-bit index for SWMMAC builtins"), and the intrinsic it
// lowers to takes an i16: bits [31:16] of the VGPR are then whatever the register allocator left there, so half of
// the sparsity pattern is garbage whenever the index is computed rather than loaded. There the instruction is emitted
// through inline asm with the whole 32-bit index register; clang >= 21 gets the builtin. The asm has no side effects
// (not volatile) and its operands are tied exactly as the instruction ties them (D is C: "+v").
#if TP_MMA_HW_GFX12 && __clang_major__ < 21
  #define TP_MMA_SWMMAC_K64_IU4_ASM(modifiers)                                                                      \
    asm("v_swmmac_i32_16x16x64_iu4 %0, %1, %2, %3" modifiers : "+v"(d) : "v"(av), "v"(bv), "v"(index))
#endif
template <bool SignedA, bool SignedB, bool Clamp = false>
TP_DEVICE v8i swmmac_i32_16x16x64_iu4(v2i a, v4i b, v8i c, int32_t index) {
#if TP_MMA_HW_GFX12 && __clang_major__ < 21
  // neg_lo:[A,B,0] carries the signedness of A and B for the integer forms; clamp saturates the i32 accumulation.
  hw::i32x8 d = hw::as<hw::i32x8>(c);
  const hw::i32x2 av = hw::as<hw::i32x2>(a);
  const hw::i32x4 bv = hw::as<hw::i32x4>(b);
  if constexpr (SignedA && SignedB && Clamp) TP_MMA_SWMMAC_K64_IU4_ASM(" neg_lo:[1,1,0] clamp");
  else if constexpr (SignedA && SignedB) TP_MMA_SWMMAC_K64_IU4_ASM(" neg_lo:[1,1,0]");
  else if constexpr (SignedA && Clamp) TP_MMA_SWMMAC_K64_IU4_ASM(" neg_lo:[1,0,0] clamp");
  else if constexpr (SignedA) TP_MMA_SWMMAC_K64_IU4_ASM(" neg_lo:[1,0,0]");
  else if constexpr (SignedB && Clamp) TP_MMA_SWMMAC_K64_IU4_ASM(" neg_lo:[0,1,0] clamp");
  else if constexpr (SignedB) TP_MMA_SWMMAC_K64_IU4_ASM(" neg_lo:[0,1,0]");
  else if constexpr (Clamp) TP_MMA_SWMMAC_K64_IU4_ASM(" clamp");
  else TP_MMA_SWMMAC_K64_IU4_ASM("");
  return hw::as<v8i>(d);
#elif TP_MMA_HW_GFX12
  return hw::as<v8i>(__builtin_amdgcn_swmmac_i32_16x16x64_iu4_w32(SignedA, hw::as<hw::i32x2>(a), SignedB,
                                                                  hw::as<hw::i32x4>(b), hw::as<hw::i32x8>(c), index,
                                                                  Clamp));
#else
  return soft::swmmac_i32_16x16x64_iu4<SignedA, SignedB, Clamp>(a, b, c, index);
#endif
}
#undef TP_MMA_SWMMAC_K64_IU4_ASM

template <bool SignedA, bool SignedB, bool Clamp = false, int IndexKey = 0>
TP_DEVICE v8i swmmac_i32_16x16x32_iu8(v2i a, v4i b, v8i c, int32_t index) {
#if TP_MMA_HW_GFX12
  static_assert(IndexKey == 0 || IndexKey == 1, "index_key is 0 or 1 for K=32");
  const int sel = index >> (16 * IndexKey);
  return hw::as<v8i>(__builtin_amdgcn_swmmac_i32_16x16x32_iu8_w32(SignedA, hw::as<hw::i32x2>(a), SignedB,
                                                                  hw::as<hw::i32x4>(b), hw::as<hw::i32x8>(c), sel, Clamp));
#else
  return soft::swmmac_i32_16x16x32_iu8<SignedA, SignedB, Clamp, IndexKey>(a, b, c, index);
#endif
}

#if TP_MMA_HW_GFX12
  #define TP_MMA_SWMMAC_F8_BODY(builtin, softname)                                                                \
    static_assert(IndexKey == 0 || IndexKey == 1, "index_key is 0 or 1 for K=32");                                \
    const int sel = index >> (16 * IndexKey);                                                                     \
    return hw::as<v8f>(builtin(hw::as<hw::i32x2>(a), hw::as<hw::i32x4>(b), hw::as<hw::f32x8>(c), sel));
#else
  #define TP_MMA_SWMMAC_F8_BODY(builtin, softname) return soft::softname<IndexKey>(a, b, c, index);
#endif
template <int IndexKey = 0>
TP_DEVICE v8f swmmac_f32_16x16x32_fp8_fp8(v2i a, v4i b, v8f c, int32_t index) {
  TP_MMA_SWMMAC_F8_BODY(__builtin_amdgcn_swmmac_f32_16x16x32_fp8_fp8_w32, swmmac_f32_16x16x32_fp8_fp8)
}
template <int IndexKey = 0>
TP_DEVICE v8f swmmac_f32_16x16x32_fp8_bf8(v2i a, v4i b, v8f c, int32_t index) {
  TP_MMA_SWMMAC_F8_BODY(__builtin_amdgcn_swmmac_f32_16x16x32_fp8_bf8_w32, swmmac_f32_16x16x32_fp8_bf8)
}
template <int IndexKey = 0>
TP_DEVICE v8f swmmac_f32_16x16x32_bf8_fp8(v2i a, v4i b, v8f c, int32_t index) {
  TP_MMA_SWMMAC_F8_BODY(__builtin_amdgcn_swmmac_f32_16x16x32_bf8_fp8_w32, swmmac_f32_16x16x32_bf8_fp8)
}
template <int IndexKey = 0>
TP_DEVICE v8f swmmac_f32_16x16x32_bf8_bf8(v2i a, v4i b, v8f c, int32_t index) {
  TP_MMA_SWMMAC_F8_BODY(__builtin_amdgcn_swmmac_f32_16x16x32_bf8_bf8_w32, swmmac_f32_16x16x32_bf8_bf8)
}
#undef TP_MMA_SWMMAC_F8_BODY

template <int IndexKey = 0>
TP_DEVICE v8f swmmac_f32_16x16x32_f16(v8h a, v16h b, v8f c, int32_t index) {
#if TP_MMA_HW_GFX12
  static_assert(IndexKey == 0 || IndexKey == 1, "index_key is 0 or 1 for K=32");
  const int sel = index >> (16 * IndexKey);
  return hw::as<v8f>(__builtin_amdgcn_swmmac_f32_16x16x32_f16_w32(hw::as<hw::f16x8>(a), hw::as<hw::f16x16>(b),
                                                                  hw::as<hw::f32x8>(c), sel));
#else
  return soft::swmmac_f32_16x16x32_f16<IndexKey>(a, b, c, index);
#endif
}

template <int IndexKey = 0>
TP_DEVICE v8f swmmac_f32_16x16x32_bf16(v8bf a, v16bf b, v8f c, int32_t index) {
#if TP_MMA_HW_GFX12
  static_assert(IndexKey == 0 || IndexKey == 1, "index_key is 0 or 1 for K=32");
  const int sel = index >> (16 * IndexKey);
  return hw::as<v8f>(__builtin_amdgcn_swmmac_f32_16x16x32_bf16_w32(hw::as<hw::i16x8>(a), hw::as<hw::i16x16>(b),
                                                                   hw::as<hw::f32x8>(c), sel));
#else
  return soft::swmmac_f32_16x16x32_bf16<IndexKey>(a, b, c, index);
#endif
}

template <bool SignedA, bool SignedB, bool Clamp = false>
TP_DEVICE v8i wmma_i32_16x16x32_iu4(v2i a, v2i b, v8i c) {
#if TP_MMA_HW_GFX12
  return hw::as<v8i>(__builtin_amdgcn_wmma_i32_16x16x32_iu4_w32_gfx12(SignedA, hw::as<hw::i32x2>(a), SignedB,
                                                                      hw::as<hw::i32x2>(b), hw::as<hw::i32x8>(c), Clamp));
#else
  return soft::wmma_i32_16x16x32_iu4<SignedA, SignedB, Clamp>(a, b, c);
#endif
}

template <bool SignedA, bool SignedB, bool Clamp = false>
TP_DEVICE v8i wmma_i32_16x16x16_iu8(v2i a, v2i b, v8i c) {
#if TP_MMA_HW_GFX12
  return hw::as<v8i>(__builtin_amdgcn_wmma_i32_16x16x16_iu8_w32_gfx12(SignedA, hw::as<hw::i32x2>(a), SignedB,
                                                                      hw::as<hw::i32x2>(b), hw::as<hw::i32x8>(c), Clamp));
#else
  return soft::wmma_i32_16x16x16_iu8<SignedA, SignedB, Clamp>(a, b, c);
#endif
}

TP_DEVICE v8f wmma_f32_16x16x16_f16(v8h a, v8h b, v8f c) {
#if TP_MMA_HW_GFX12
  return hw::as<v8f>(__builtin_amdgcn_wmma_f32_16x16x16_f16_w32_gfx12(hw::as<hw::f16x8>(a), hw::as<hw::f16x8>(b),
                                                                      hw::as<hw::f32x8>(c)));
#else
  return soft::wmma_f32_16x16x16_f16(a, b, c);
#endif
}

namespace gfx11 {
TP_DEVICE v8f wmma_f32_16x16x16_f16(v16h a, v16h b, v8f c) {
#if TP_MMA_HW_GFX11
  return hw::as<v8f>(__builtin_amdgcn_wmma_f32_16x16x16_f16_w32(hw::as<hw::f16x16>(a), hw::as<hw::f16x16>(b),
                                                                hw::as<hw::f32x8>(c)));
#else
  return soft::gfx11::wmma_f32_16x16x16_f16(a, b, c);
#endif
}

template <bool SignedA, bool SignedB, bool Clamp = false>
TP_DEVICE v8i wmma_i32_16x16x16_iu8(v4i a, v4i b, v8i c) {
#if TP_MMA_HW_GFX11
  return hw::as<v8i>(__builtin_amdgcn_wmma_i32_16x16x16_iu8_w32(SignedA, hw::as<hw::i32x4>(a), SignedB,
                                                                hw::as<hw::i32x4>(b), hw::as<hw::i32x8>(c), Clamp));
#else
  return soft::gfx11::wmma_i32_16x16x16_iu8<SignedA, SignedB, Clamp>(a, b, c);
#endif
}
}  // namespace gfx11

namespace gfx9 {
template <int Abid = 0>
TP_DEVICE v4f smfmac_f32_16x16x32_f16(v4h a, v8h b, v4f c, int32_t index) {
#if TP_MMA_HW_GFX94
  return hw::as<v4f>(__builtin_amdgcn_smfmac_f32_16x16x32_f16(hw::as<hw::f16x4>(a), hw::as<hw::f16x8>(b),
                                                              hw::as<hw::f32x4>(c), index, 0, Abid));
#else
  return soft::gfx9::smfmac_f32_16x16x32_f16<Abid>(a, b, c, index);
#endif
}

template <int Abid = 0>
TP_DEVICE v4i smfmac_i32_16x16x64_i8(v2i a, v4i b, v4i c, int32_t index) {
#if TP_MMA_HW_GFX94
  return hw::as<v4i>(__builtin_amdgcn_smfmac_i32_16x16x64_i8(hw::as<hw::i32x2>(a), hw::as<hw::i32x4>(b),
                                                             hw::as<hw::i32x4>(c), index, 0, Abid));
#else
  return soft::gfx9::smfmac_i32_16x16x64_i8<Abid>(a, b, c, index);
#endif
}
}  // namespace gfx9

}  // namespace tp::mma
