// ck_tile's 2:4 compression of the A operand (include/ck_tile/core/arch/mma/sparse/sparse_transforms.hpp), modelled
// as develop had it before PR #3759 (docs/bugs/ck-sparse.md §4, "V3"). The fixes live in patches/ck_sparse/.
//
// compress_a_impl turns one lane's vector of 2*CompressedSize physical elements into CompressedSize survivors (in
// place, front of the vector) plus one 2-bit field per survivor: the survivor's position 0..3 inside its 4-group.
// Fields are packed LSB-first, 16 per 32-bit word (SparseIdxPack). The SWMMAC instruction pairs compressed value c of
// a lane with index bits [2c+1:2c], so field f must describe compressed element f.
//
// Upstream writes a third or fourth survivor past the end of its two-element survivor array (undefined behaviour).
// The model never does: checked_survivors counts the attempted write, drops it, and the kernel reports the count.
#pragma once

#include "kernels/ck_sparse/types.cuh"

namespace TP_VARIANT_NS {
namespace ck_sparse {

// What upstream would have written out of bounds, per lane.
struct ub_counters {
  uint32_t survivor_writes = 0;  // writes past nonzero_elems[1]
  uint32_t field_writes = 0;     // idx fields at or past the field count
};

TP_HOST_DEVICE constexpr int idx_words_needed(int fields) { return (2 * fields + 31) / 32; }

template <int NumFields>
struct SparseIdxPack {
  static constexpr int fields = NumFields;
  static constexpr int words = idx_words_needed(NumFields);
  uint32_t w[words];

  TP_HOST_DEVICE uint32_t get(int f) const { return (w[f / 16] >> (2 * (f % 16))) & 3u; }
  TP_HOST_DEVICE void set(int f, uint32_t v, ub_counters& ub) {
    if (f < 0 || f >= NumFields) {
      ++ub.field_writes;
      return;
    }
    const int sh = 2 * (f % 16);
    w[f / 16] = (w[f / 16] & ~(3u << sh)) | ((v & 3u) << sh);
  }
};

// Every field starts at position 2: an unused survivor slot claims position 2 of its group.
template <int NumFields>
TP_HOST_DEVICE SparseIdxPack<NumFields> default_fields() {
  SparseIdxPack<NumFields> idx{};
  ub_counters none;
  for (int f = 0; f < NumFields; ++f) idx.set(f, 2u, none);
  return idx;
}

// upstream: ElementType nonzero_elems[2]. Index 2 and 3 are past its end.
template <class T>
struct checked_survivors {
  T e[2];
  ub_counters* ub;
  TP_HOST_DEVICE void set(int p, T v) {
    if (p < 2)
      e[p] = v;
    else
      ++ub->survivor_writes;
  }
};

TP_HOST_DEVICE bool is_nonzero(int8_t v) { return type_convert_float(v) != 0.0f; }
TP_HOST_DEVICE bool is_nonzero(half_t v) { return type_convert_float(v) != 0.0f; }
// CK tests `static_cast<float>(a) != 0.0f`. In CK's default build (CK_TILE_USE_CUSTOM_DATA_TYPE 0) fp8_t is the raw
// _BitInt(8), so that is an integer conversion of the code: 0x80 (-0 in E4M3) is -128, a survivor. With the custom
// type (1) the conversion decodes, and -0 is zero.
#ifndef TP_CK_USE_CUSTOM_DATA_TYPE
#define TP_CK_USE_CUSTOM_DATA_TYPE 0
#endif
TP_HOST_DEVICE bool is_nonzero(fp8_e4m3_t v) {
#if TP_CK_USE_CUSTOM_DATA_TYPE
  return type_convert_float(v) != 0.0f;
#else
  return v.data != 0;
#endif
}

// Which idx field survivor s of group i fills, and what it records for logical position j. In natural order the
// survivors' fields follow the survivors and record their positions as they are.
template <int PackedSize>
struct idx_field_order {
  TP_HOST_DEVICE static constexpr int field(int i, int s) { return 2 * i + s; }
  TP_HOST_DEVICE static constexpr uint32_t position(int j) { return uint32_t(j); }
};

// The scan over one element per slot (int8, fp8, fp16, bf16, and pk_int4 once vector_traits has made it int8).
template <class T, int CompressedSize, int NumFields>
TP_HOST_DEVICE void compress_groups_scalar(T* v, SparseIdxPack<NumFields>& idx, ub_counters& ub) {
  using order = idx_field_order<1>;
  for (int i = 0; i < CompressedSize / 2; ++i) {
    // The survivors a group does not fill keep these seeds, while their fields keep the default position 2.
    checked_survivors<T> nonzero_elems{{v[4 * i + 2], v[4 * i + 3]}, &ub};
    int p = 0;
    for (int j = 0; j < 4; ++j) {
      if (is_nonzero(v[4 * i + j])) {
        nonzero_elems.set(p, v[4 * i + j]);
        idx.set(order::field(i, p), order::position(j), ub);
        ++p;
      }
    }
    // In place: slots 2i, 2i+1 were read by groups <= i already.
    v[2 * i] = nonzero_elems.e[0];
    v[2 * i + 1] = nonzero_elems.e[1];
  }
}

template <class ADataType, int CompressedSize>
TP_HOST_DEVICE SparseIdxPack<CompressedSize> compress_a_impl(ADataType* v, ub_counters& ub) {
  constexpr int NumFields = CompressedSize;
  SparseIdxPack<NumFields> idx = default_fields<NumFields>();
  compress_groups_scalar<ADataType, CompressedSize>(v, idx, ub);
  return idx;
}

// The A transform of a SPARSE mma op: compresses the thread buffer of an (uncompressed) A tensor in place and returns
// the idx. ATensor::DataType is the tensor's element type; its vector_type goes through vector_traits.
struct SparseCompressTransform {
  template <class ATensor>
  TP_HOST_DEVICE static auto exec(ATensor& a, ub_counters& ub) {
    using VecType = typename ATensor::vector_type;
    using scalar_type = typename vector_traits<VecType>::scalar_type;
    constexpr int CompressedSize = vector_traits<VecType>::vector_size / 2;
    return compress_a_impl<scalar_type, CompressedSize>(a.thread_buffer.data, ub);
  }
};

// A tensor's per-lane view: the element type and the register vector holding the lane's elements.
template <class DataType_, int N>
struct thread_tensor {
  using DataType = DataType_;
  using vector_type = ext_vector<DataType_, N>;
  vector_type thread_buffer;
};

}  // namespace ck_sparse
}  // namespace TP_VARIANT_NS
