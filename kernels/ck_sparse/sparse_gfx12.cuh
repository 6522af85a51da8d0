// The gfx12 SWMMAC wrappers the sparse pipeline selects (CK's amdgcn_mma<..., SPARSE> in sparse_gfx12.hpp), with the
// per-lane register geometry of each (docs/bugs/gfx12-swmmac.md §5). Integer ops are signed on both sides, no clamp, as
// CK issues them. Every lane vector here is "word w of a lane's K block"; lane_k(h, w) is the first K index in word w
// for lane half h (lanes 0-15: h = 0, lanes 16-31: h = 1), the same for uncompressed A and for B.
#pragma once

#include "kernels/ck_sparse/types.cuh"
#include "kernels/mma/mma.cuh"

namespace TP_VARIANT_NS {
namespace ck_sparse {

template <class T, int N>
TP_DEVICE T words_as(const uint32_t* w) {
  T t;
  static_assert(sizeof(T) == 4 * N, "register vector size");
  __builtin_memcpy(&t, w, sizeof(T));
  return t;
}

// v_swmmac_i32_16x16x32_iu8: A v2i (8 compressed bytes), B v4i, lane K block [16h, 16h+16).
struct mma_i32_16x16x32_iu8 {
  using ADataType = int8_t;
  using AccType = int32_t;
  using CVec = tp::mma::v8i;
  static constexpr int kK = 32, kElemsPerWord = 4;
  static constexpr int kALaneWordsPerFrag = 4, kCompressedAPhysical = 8, kCompressedAWords = 2, kBLaneWords = 4;
  TP_DEVICE static unsigned lane_k(unsigned h, int w) { return 16u * h + 4u * unsigned(w); }
  TP_DEVICE static CVec exec(const uint32_t* a, const uint32_t* b, CVec c, int32_t idx) {
    return tp::mma::swmmac_i32_16x16x32_iu8<true, true>(words_as<tp::mma::v2i, 2>(a), words_as<tp::mma::v4i, 4>(b),
                                                        c, idx);
  }
};

// v_swmmac_f32_16x16x32_fp8_fp8: same registers as iu8, f32 accumulator.
struct mma_f32_16x16x32_fp8_fp8 {
  using ADataType = fp8_e4m3_t;
  using AccType = float;
  using CVec = tp::mma::v8f;
  static constexpr int kK = 32, kElemsPerWord = 4;
  static constexpr int kALaneWordsPerFrag = 4, kCompressedAPhysical = 8, kCompressedAWords = 2, kBLaneWords = 4;
  TP_DEVICE static unsigned lane_k(unsigned h, int w) { return 16u * h + 4u * unsigned(w); }
  TP_DEVICE static CVec exec(const uint32_t* a, const uint32_t* b, CVec c, int32_t idx) {
    return tp::mma::swmmac_f32_16x16x32_fp8_fp8(words_as<tp::mma::v2i, 2>(a), words_as<tp::mma::v4i, 4>(b), c, idx);
  }
};

// v_swmmac_f32_16x16x32_f16: not linear in k. Lane half h holds k in [8h, 8h+8) and [16+8h, 16+8h+8); word w of the
// lane's K block is VGPR w of B, and 4-group w/2 of A, so every 4-group stays contiguous in the lane vector.
struct mma_f32_16x16x32_f16 {
  using ADataType = half_t;
  using AccType = float;
  using CVec = tp::mma::v8f;
  static constexpr int kK = 32, kElemsPerWord = 2;
  static constexpr int kALaneWordsPerFrag = 8, kCompressedAPhysical = 8, kCompressedAWords = 4, kBLaneWords = 8;
  TP_DEVICE static unsigned lane_k(unsigned h, int w) { return 16u * unsigned(w >> 2) + 8u * h + 2u * unsigned(w & 3); }
  TP_DEVICE static CVec exec(const uint32_t* a, const uint32_t* b, CVec c, int32_t idx) {
    return tp::mma::swmmac_f32_16x16x32_f16(words_as<tp::mma::v8h, 4>(a), words_as<tp::mma::v16h, 8>(b), c, idx);
  }
};

// v_swmmac_i32_16x16x32_iu4: A one VGPR (8 compressed nibbles, group g in byte g), B v2i, lane K block [16h, 16h+16).
struct mma_i32_16x16x32_iu4 {
  using ADataType = pk_int4_t;
  using AccType = int32_t;
  using CVec = tp::mma::v8i;
  static constexpr int kK = 32, kElemsPerWord = 8;
  static constexpr int kALaneWordsPerFrag = 2, kCompressedAPhysical = 4, kCompressedAWords = 1, kBLaneWords = 2;
  TP_DEVICE static unsigned lane_k(unsigned h, int w) { return 16u * h + 8u * unsigned(w); }
  TP_DEVICE static CVec exec(const uint32_t* a, const uint32_t* b, CVec c, int32_t idx) {
    return tp::mma::swmmac_i32_16x16x32_iu4<true, true>(int32_t(a[0]), words_as<tp::mma::v2i, 2>(b), c, idx);
  }
};

// v_swmmac_i32_16x16x64_iu4: A v2i (16 compressed nibbles), B v4i, lane K block [32h, 32h+32), all 32 idx bits.
struct mma_i32_16x16x64_iu4 {
  using ADataType = pk_int4_t;
  using AccType = int32_t;
  using CVec = tp::mma::v8i;
  static constexpr int kK = 64, kElemsPerWord = 8;
  static constexpr int kALaneWordsPerFrag = 4, kCompressedAPhysical = 8, kCompressedAWords = 2, kBLaneWords = 4;
  TP_DEVICE static unsigned lane_k(unsigned h, int w) { return 32u * h + 8u * unsigned(w); }
  TP_DEVICE static CVec exec(const uint32_t* a, const uint32_t* b, CVec c, int32_t idx) {
    return tp::mma::swmmac_i32_16x16x64_iu4<true, true>(words_as<tp::mma::v2i, 2>(a), words_as<tp::mma::v4i, 4>(b), c,
                                                        idx);
  }
};

}  // namespace ck_sparse
}  // namespace TP_VARIANT_NS
