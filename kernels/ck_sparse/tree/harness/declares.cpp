// Configure's questions to a tree's sparse_transforms.hpp (tree.cmake), one per compile; a compile that fails is the
// answer no. They ask through entries.h, the code the harness runs, so an entry approved here is one the harness
// compiles.
//
//   -DTP_CK_TREE_CHECK=1 -DTP_CK_TREE_ENTRY=n          does entry n take int8, fp8 and fp16 lane vectors?
//   -DTP_CK_TREE_CHECK=2 -DTP_CK_TREE_ENTRY_PK_INT4=n  does entry n take pk_int4 lane vectors?
//   -DTP_CK_TREE_CHECK=3 -DTP_CK_TREE_ENTRY=n          does the file's extract_fragment_idx take entry n's idx?
//   no TP_CK_TREE_CHECK, both entries and TP_CK_TREE_EXTRACT given: a program printing the harness's signature
//   (entries.h), which configure matches against the generations it knows.
#include "ck_tile/core/arch/mma/sparse/sparse_transforms.hpp"
#ifndef TP_CK_TREE_EXTRACT
#define TP_CK_TREE_EXTRACT (TP_CK_TREE_CHECK == 3)
#endif
#include "kernels/ck_sparse/tree/harness/entries.h"

namespace tp::ck_tree {

template <entry E, typename Logical>
[[maybe_unused]] auto one_lane() {
  return compress<E, Logical, 16>(ck_tile::ext_vector_t<Logical, 16>{});
}

#if TP_CK_TREE_CHECK == 1
[[maybe_unused]] void check() {
  one_lane<entry(TP_CK_TREE_ENTRY), std::int8_t>();
  one_lane<entry(TP_CK_TREE_ENTRY), ck_tile::fp8_t>();
  one_lane<entry(TP_CK_TREE_ENTRY), ck_tile::fp16_t>();
}
#elif TP_CK_TREE_CHECK == 2
[[maybe_unused]] void check() { one_lane<entry(TP_CK_TREE_ENTRY_PK_INT4), ck_tile::pk_int4_t>(); }
#elif TP_CK_TREE_CHECK == 3
// 16 int8 elements: 8 fields, two fragments of 4 (the shape of a K = 64 tile over 16x16x32 fragments).
[[maybe_unused]] std::uint32_t check() { return fragment_idx<4, 2>(one_lane<entry(TP_CK_TREE_ENTRY), std::int8_t>().idx, 1); }
#endif

}  // namespace tp::ck_tree

#ifndef TP_CK_TREE_CHECK
int main() {
  using tp::ck_tree::entry;
  tp::ck_tree::print_signature<entry(TP_CK_TREE_ENTRY), entry(TP_CK_TREE_ENTRY_PK_INT4)>(stdout);
}
#endif
