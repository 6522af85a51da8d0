// The pipe between a tree variant (tree_variant.cpp, in the probe) and its harness process (harness/harness.cpp, the
// user's sparse_transforms.hpp built by clang). Both ends are built on the same host, so the structs travel as they
// sit in memory (little-endian, no padding beyond what is spelled out).
//
// request, then lanes * vector_bytes bytes: each lane's physical vector as api.h stores elements.
// response, then payload_bytes bytes:
//   status ok:               per lane: vector_bytes/2 compressed bytes, idx_words uint32 (the tree's SparseIdxPack),
//                            frags_k uint32 (extract_fragment_idx of fragment 0..frags_k-1; none when frags_k is 0)
//   status bad_request:      one line of text (unsupported size or type)
//   status sanitizer_report: the child's stderr (a sanitizer's report, or the signal that stopped it)
#pragma once

#include <cstdint>

namespace tp::ck_tree {

inline constexpr std::uint32_t kMagic = 0x4b435054u;  // "TPCK"

enum class dtype : std::uint8_t { int8 = 0, pk_int4 = 1, fp8 = 2, fp16 = 3 };  // api.h's order
enum class status : std::uint8_t { ok = 0, bad_request = 1, sanitizer_report = 2 };

struct request {
  std::uint32_t magic = kMagic;
  std::uint8_t type = 0;      // dtype
  std::uint8_t lanes = 0;     // 1 (a compress-level vector) .. 32 (a wave)
  std::uint8_t frags_k = 0;   // 0: no fragment extraction; else 1, 2, 4 or 8
  std::uint8_t reserved = 0;
  std::uint32_t vector_bytes = 0;
};
static_assert(sizeof(request) == 12);

struct response {
  std::uint32_t magic = kMagic;
  status result = status::ok;
  std::uint8_t reserved[3] = {};
  std::uint32_t fields = 0;     // idx fields per lane the tree's compress_a_impl emits
  std::uint32_t idx_words = 0;  // words of its SparseIdxPack
  std::uint32_t payload_bytes = 0;
};
static_assert(sizeof(response) == 20);

}  // namespace tp::ck_tree
