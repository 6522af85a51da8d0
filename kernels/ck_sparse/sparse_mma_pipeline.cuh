// ck_tile's SparseMmaPipeline (include/ck_tile/core/arch/mma/sparse/sparse_mma_pipeline.hpp) for one wave and one
// 16 x 16 x K tile, pre-fix (docs/bugs/ck-sparse.md §7), over the gfx12 SWMMAC wrappers of sparse_gfx12.cuh.
//
// A arrives uncompressed: each lane loads its K block of one row for every fragment, fragment after fragment. The
// whole vector is compressed once; because each fragment's 4-groups are contiguous in it, compressed fragment bk is
// elements [bk*InternalAVecSize, (bk+1)*InternalAVecSize) and its fields start at field bk*FragCompressedSize.
// extract_fragment_idx slices the idx for each fragment; the fragments accumulate into one C.
#pragma once

#include "kernels/ck_sparse/sparse_gfx12.cuh"
#include "kernels/ck_sparse/sparse_transforms.cuh"

namespace TP_VARIANT_NS {
namespace ck_sparse {

// The idx of fragment (bm, bk): the bits from (bm*FragsK + bk) * FragCompressedSize * 2 on, shifted down and
// stitched across words, filling the fragment's own idx words.
template <int FragCompressedSize, int FragsK, int NumFields>
TP_HOST_DEVICE SparseIdxPack<FragCompressedSize> extract_fragment_idx(const SparseIdxPack<NumFields>& idx, int bm,
                                                                      int bk) {
  using Src = SparseIdxPack<NumFields>;
  SparseIdxPack<FragCompressedSize> frag{};
  const int first_bit = (bm * FragsK + bk) * FragCompressedSize * 2;
  for (int w = 0; w < frag.words; ++w) {
    const int bit = first_bit + 32 * w, src = bit / 32, sh = bit % 32;
    // Upstream stitches in the next word only when the fragment's own fields cross the word boundary
    // (bitInWord + IdxBitsPerFrag > 32); otherwise the bits above them are the shifted-in zeros, not the next word's.
    const int frag_bits = 2 * FragCompressedSize - 32 * w < 32 ? 2 * FragCompressedSize - 32 * w : 32;
    const uint32_t lo = src < Src::words ? idx.w[src] >> sh : 0u;
    const uint32_t hi = (sh != 0 && sh + frag_bits > 32 && src + 1 < Src::words) ? idx.w[src + 1] << (32 - sh) : 0u;
    frag.w[w] = lo | hi;
  }
  return frag;
}

// Per-tile diagnostics the host reads back (the probes print them).
struct pipeline_outputs {
  tp::gmem<uint32_t> compressed;  // 32 lanes x compressed words per lane
  tp::gmem<uint32_t> idx;         // 32 lanes x IdxOutWords
  tp::gmem<uint32_t> oob;         // 32 lanes x {survivor writes, field writes}
};

template <class MmaOp, int FragsK>
struct SparseMmaPipeline {
  using ADataType = typename MmaOp::ADataType;
  using AccType = typename MmaOp::AccType;
  static constexpr int FragsM = 1, FragsN = 1;
  static constexpr int kK = MmaOp::kK;
  static constexpr int WaveTileK = FragsK * kK;
  // Physical elements of one fragment's compressed A per lane (pk_int4: bytes).
  static constexpr int InternalAVecSize = MmaOp::kCompressedAPhysical;
  static constexpr int APackedSize = numeric_traits<ADataType>::PackedSize;
  static constexpr int FragCompressedSize = InternalAVecSize;

  using ATensor = thread_tensor<ADataType, FragsM * FragsK * InternalAVecSize * 2>;
  static constexpr int kALaneWords = int(sizeof(typename ATensor::vector_type)) / 4;
  static constexpr int kCompressedLaneWords = kALaneWords / 2;

  // Words of one 16 x WaveTileK operand, and one lane's word w of fragment bk in it (row/column major along K).
  static constexpr unsigned kOperandWords = 16u * WaveTileK / MmaOp::kElemsPerWord;
  TP_DEVICE static unsigned operand_word(unsigned row_or_col, unsigned h, int bk, int w) {
    const unsigned k = unsigned(bk * kK) + MmaOp::lane_k(h, w);
    return (row_or_col * unsigned(WaveTileK) + k) / MmaOp::kElemsPerWord;
  }

  // Upstream static_asserts the compressed vector's size and alignment, and the idx type too: it must be the
  // SparseIdxPack the pipeline's own accounting expects. Pre-fix that accounting counts pk_int4 bytes, as the byte
  // scan does, so the check agreed with the scan and a pk_int4 idx with half its fields went through. The model keeps
  // the size checks only.
  template <class IdxType>
  TP_DEVICE static void checkATransformResult(const ATensor&, const IdxType&) {
    static_assert(sizeof(typename ATensor::vector_type) == 4 * kALaneWords, "the A vector fills whole registers");
    static_assert(kCompressedLaneWords == FragsK * MmaOp::kCompressedAWords, "compressed fragments fill whole registers");
  }

  TP_DEVICE static void run(tp::gmem<uint32_t> a, tp::gmem<uint32_t> b, tp::gmem<AccType> d, pipeline_outputs out,
                            unsigned idx_out_words) {
    const unsigned lane = tp::lane_id(), h = lane >> 4, row = lane & 15u;

    ATensor a_tensor;
    for (int bk = 0; bk < FragsK; ++bk)
      for (int w = 0; w < MmaOp::kALaneWordsPerFrag; ++w) {
        const uint32_t word = a.ld(operand_word(row, h, bk, w));
        __builtin_memcpy(reinterpret_cast<unsigned char*>(a_tensor.thread_buffer.data) +
                             4 * (bk * MmaOp::kALaneWordsPerFrag + w),
                         &word, 4);
      }

    ub_counters ub;
    const auto idx = SparseCompressTransform::exec(a_tensor, ub);
    checkATransformResult(a_tensor, idx);

    uint32_t compressed[kCompressedLaneWords];
    __builtin_memcpy(compressed, a_tensor.thread_buffer.data, sizeof compressed);

    typename MmaOp::CVec c{};
    for (int bk = 0; bk < FragsK; ++bk) {
      const auto frag_idx = extract_fragment_idx<FragCompressedSize, FragsK>(idx, 0, bk);
      uint32_t b_words[MmaOp::kBLaneWords];
      for (int w = 0; w < MmaOp::kBLaneWords; ++w) b_words[w] = b.ld(operand_word(row, h, bk, w));
      c = MmaOp::exec(compressed + bk * MmaOp::kCompressedAWords, b_words, c, int32_t(frag_idx.w[0]));
    }

    // D: lane 16*(i>>3)+j holds rows 8*(lane>>4) .. +7 of column lane&15, one per register.
    for (int r = 0; r < 8; ++r) d.st((8u * h + unsigned(r)) * 16u + row, c.v[r]);

    for (int w = 0; w < kCompressedLaneWords; ++w) out.compressed.st(lane * unsigned(kCompressedLaneWords) + w, compressed[w]);
    for (unsigned w = 0; w < idx_out_words; ++w)
      out.idx.st(lane * idx_out_words + w, int(w) < idx.words ? idx.w[w] : 0u);
    out.oob.st(2 * lane, ub.survivor_writes);
    out.oob.st(2 * lane + 1, ub.field_writes);
  }
};

// One block per tile, one wave per block.
template <class MmaOp, int FragsK>
TP_GLOBAL void sparse_tile_kernel(tp::gmem<uint32_t> a, tp::gmem<uint32_t> b, tp::gmem<typename MmaOp::AccType> d,
                                  tp::gmem<uint32_t> compressed, tp::gmem<uint32_t> idx, tp::gmem<uint32_t> oob,
                                  unsigned idx_out_words) {
  using Pipeline = SparseMmaPipeline<MmaOp, FragsK>;
  const unsigned t = tp::block_idx();
  pipeline_outputs out{compressed + t * 32u * unsigned(Pipeline::kCompressedLaneWords), idx + t * 32u * idx_out_words,
                       oob + t * 64u};
  Pipeline::run(a + t * Pipeline::kOperandWords, b + t * Pipeline::kOperandWords, d + t * 256u, out, idx_out_words);
}

}  // namespace ck_sparse
}  // namespace TP_VARIANT_NS
