// The ways into a tree's SparseCompressTransform the harness knows, one per shape sparse_transforms.hpp has declared
// (the generations in kernels/ck_sparse/tree/README.md), and what each gives back, made uniform: the compressed
// bytes, the idx as the tree returned it, the field count, each fragment's idx. Included after the tree's file by the
// harness (harness.cpp) and by configure's questions to the file (declares.cpp): the entry a check approves is the
// code the harness runs.
//
// Configure (tree.cmake) picks, per element type, the first entry that compiles with the tree: TP_CK_TREE_ENTRY for
// int8/fp8/fp16, TP_CK_TREE_ENTRY_PK_INT4 for pk_int4; TP_CK_TREE_EXTRACT is 1 when the file's extract_fragment_idx
// takes what that entry returns.
#pragma once

// Light on headers: configure compiles this once per question.
#include <array>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <type_traits>
#include <utility>

namespace tp::ck_tree {

namespace mma = ck_tile::core::arch::mma;
using ck_tile::index_t;

// In the order configure tries them: the pipeline's own route first, the vector kept beside it last. The numbers are
// what configure passes (-DTP_CK_TREE_ENTRY=1) and what tree.cmake's generation table names.
enum class entry : int {
  tensor = 1,      // exec(ATensor&) or exec(const ATensor&): the pipeline's thread tensor, DataType the logical type
  vector = 2,      // exec(VecType&) -> (VecCompressed&, idx): the thread buffer as one ext_vector (pk_int4 as int8)
  vector_out = 3,  // exec(VecType&&, int32_t& idx) -> VecCompressed&: the idx word through a parameter
  vector_old = 4,  // execOld(VecType&) -> (VecCompressed&, idx): the vector route kept beside exec(ATensor&)
};

inline const char* entry_name(entry e) {
  switch (e) {
    case entry::tensor: return "exec(ATensor&)";
    case entry::vector: return "exec(VecType&)";
    case entry::vector_out: return "exec(VecType&&, int32_t&)";
    case entry::vector_old: return "execOld(VecType&)";
  }
  return "?";
}

// What CK's pipeline hands exec(ATensor&): a static_distributed_tensor whose DataType is the logical element type and
// whose thread buffer reads as one ext_vector by reference (get_as<VecType>().at<0>()), which the non-const exec
// compresses in place and returns a reference into.
template <typename T, index_t N>
struct host_thread_tensor {
  using DataType = T;
  using VecType = ck_tile::ext_vector_t<T, N>;
  struct buffer {
    VecType value;
    template <typename V>
    buffer& get_as() {
      static_assert(std::is_same_v<V, VecType>, "the pipeline reads the thread buffer as one vector");
      return *this;
    }
    template <typename V>
    const buffer& get_as() const {
      static_assert(std::is_same_v<V, VecType>, "the pipeline reads the thread buffer as one vector");
      return *this;
    }
    template <index_t I>
    VecType& at() {
      static_assert(I == 0, "one vector");
      return value;
    }
    template <index_t I>
    const VecType& at() const {
      static_assert(I == 0, "one vector");
      return value;
    }
  };
  buffer thread_buffer;
  static constexpr index_t get_thread_buffer_size() { return N; }
  buffer& get_thread_buffer() { return thread_buffer; }
  const buffer& get_thread_buffer() const { return thread_buffer; }
};

template <std::size_t Bytes, typename Idx>
struct lane_compressed {
  std::array<std::uint8_t, Bytes> bytes;  // the compressed vector (half the input's bytes)
  Idx idx;                                // as the tree returned it: one int32_t, or its SparseIdxPack
};

// One lane vector through entry E. Transform is a template parameter so that only the chosen entry's member is
// looked up: the others may not exist in this tree.
template <entry E, typename Logical, index_t N, typename Transform = mma::SparseCompressTransform<2>>
auto compress(const ck_tile::ext_vector_t<Logical, N>& input) {
  using VecType = ck_tile::ext_vector_t<Logical, N>;
  auto keep = [](const auto& compressed, const auto& idx) {
    static_assert(sizeof(compressed) * 2 == sizeof(VecType), "the compressed vector is half the input");
    lane_compressed<sizeof(VecType) / 2, std::remove_cvref_t<decltype(idx)>> r{{}, idx};
    std::memcpy(r.bytes.data(), &compressed, sizeof(compressed));
    return r;
  };
  VecType v = input;
  if constexpr (E == entry::tensor) {
    host_thread_tensor<Logical, N> t{{v}};
    auto&& [compressed, idx] = Transform::exec(t);
    return keep(compressed, idx);
  } else if constexpr (E == entry::vector) {
    auto&& [compressed, idx] = Transform::exec(v);
    return keep(compressed, idx);
  } else if constexpr (E == entry::vector_out) {
    std::int32_t idx = 0;
    auto&& compressed = Transform::exec(v, idx);
    return keep(compressed, idx);
  } else {
    auto&& [compressed, idx] = Transform::execOld(v);
    return keep(compressed, idx);
  }
}

template <entry E, typename Logical, index_t N>
using idx_of = decltype(compress<E, Logical, N>(std::declval<const ck_tile::ext_vector_t<Logical, N>&>()).idx);

template <typename Idx>
inline constexpr bool idx_is_one_word = std::is_integral_v<Idx>;

template <typename Idx>
constexpr std::size_t idx_words() {
  if constexpr (idx_is_one_word<Idx>)
    return 1;
  else
    return sizeof(Idx::words) / sizeof(Idx::words[0]);
}

template <typename Idx>
std::array<std::uint32_t, idx_words<Idx>()> words_of(const Idx& idx) {
  if constexpr (idx_is_one_word<Idx>) {
    return {std::uint32_t(idx)};
  } else {
    std::array<std::uint32_t, idx_words<Idx>()> w{};
    for (std::size_t i = 0; i < w.size(); ++i) w[i] = std::uint32_t(idx.words[i]);
    return w;
  }
}

// The idx fields compress_a_impl emits for one lane: one per compressed element, and for pk_int4 one per nibble where
// the tree scans logical elements (PR #3759's fix). The idx pack of a 128-byte pk_int4 vector tells which: 8 words
// hold 128 nibble fields, 4 words the 64 byte fields of a byte scan. A one-word idx is older than packed types.
template <entry E, typename Logical, index_t N>
constexpr unsigned fields() {
  constexpr unsigned per_element = unsigned(N / 2);
  if constexpr (!std::is_same_v<Logical, ck_tile::pk_int4_t>) {
    return per_element;
  } else {
    using widest = idx_of<E, Logical, 128>;
    if constexpr (!idx_is_one_word<widest> && idx_words<widest>() == 8)
      return 2 * per_element;
    else
      return per_element;
  }
}

// Fragment k's idx of a lane whose fields are shared by FragsK fragments, FragFields each (bm = 0: no M composition).
template <std::uint32_t FragFields, std::uint32_t FragsK, typename Idx>
std::uint32_t fragment_idx(const Idx& idx, std::uint32_t k) {
#if TP_CK_TREE_EXTRACT
  return std::uint32_t(mma::sparse::detail::extract_fragment_idx<FragFields, FragsK>(idx, 0u, k));
#else
  // The file has no extract_fragment_idx (its pipeline had no K composition yet): fragment k reads the FragFields
  // fields from field k * FragFields on, as extract_fragment_idx slices them where it exists (ours, not the tree's).
  const auto w = words_of(idx);
  const std::uint32_t bit = k * FragFields * 2, at = bit / 32;
  const std::uint64_t two = w[at] | (at + 1 < w.size() ? std::uint64_t(w[at + 1]) << 32 : 0);
  return std::uint32_t(two >> (bit % 32));
#endif
}

// The harness's routes through this tree as one line of key=value words: what configure matches against the
// generations it knows (tree.cmake) and harness --api prints.
template <entry Scalar, entry PkInt4>
void print_signature(std::FILE* out) {
  const bool one_word = idx_is_one_word<idx_of<Scalar, std::int8_t, 16>>;
  const bool per_nibble = fields<PkInt4, ck_tile::pk_int4_t, 128>() == 128;
  std::fprintf(out, "entry=%s entry_pk_int4=%s idx=%s pk_int4_fields=%s fragment_idx=%s\n", entry_name(Scalar),
               entry_name(PkInt4), one_word ? "int32_t" : "SparseIdxPack", per_nibble ? "nibble" : "byte",
               TP_CK_TREE_EXTRACT ? "tree" : "harness");
}

}  // namespace tp::ck_tree
