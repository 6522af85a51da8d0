// Host-side interface of the ck_sparse kernel family: what every variant (upstream, fixed, fixed-minus-N, mutant-*)
// registers as its ops struct. Plain host types only, shared by the probes and kernels/ck_sparse/variant.cu.
//
// Storage (all little-endian, "physical" = as the bytes sit in memory and registers):
//   A  tiles x 16 rows x K, row-major.       B  tiles x 16 columns x K, column-major (K contiguous per column).
//   int8: one int8 per element. fp8_e4m3: one OCP E4M3 code per element. fp16: one binary16 code (2 bytes).
//   pk_int4: two elements per byte along K in CK's convention (CK_TILE_USE_PK4_LAYOUT_SHUFFLE): logical element 2b
//            is the HIGH nibble of byte b, element 2b+1 the low nibble, both two's complement.
//   D  tiles x 16 x 16 row-major: int32 for int8/pk_int4, float for fp8/fp16.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace tp::ck_sparse {

enum class dtype : std::uint8_t { int8, pk_int4, fp8_e4m3, fp16 };
// Which SWMMAC one fragment is: 16x16x32 for every type, or v_swmmac_i32_16x16x64_iu4 for pk_int4 only.
enum class instruction : std::uint8_t { k32, iu4_k64 };

inline const char* to_string(dtype t) {
  switch (t) {
    case dtype::int8: return "int8";
    case dtype::pk_int4: return "pk_int4";
    case dtype::fp8_e4m3: return "fp8";
    case dtype::fp16: return "fp16";
  }
  return "?";
}
inline const char* to_string(instruction i) { return i == instruction::k32 ? "16x16x32" : "16x16x64"; }
inline bool is_integer(dtype t) { return t == dtype::int8 || t == dtype::pk_int4; }

struct tile_shape {
  dtype type = dtype::int8;
  unsigned k = 32;                        // 32, 64, 128, 256 (iu4_k64: 64, 128, 256)
  instruction instr = instruction::k32;

  unsigned kk() const { return instr == instruction::k32 ? 32u : 64u; }
  unsigned frags_k() const { return k / kk(); }
  // Bytes of one 16 x K operand (A or B).
  std::size_t operand_bytes() const {
    return type == dtype::pk_int4 ? 16u * k / 2 : type == dtype::fp16 ? 16u * k * 2 : 16u * k;
  }
  // One lane's compressed A of the whole wave tile: half its K block, all fragments.
  std::size_t compressed_bytes_per_lane() const { return operand_bytes() / 32 / 2; }
  // Fields the instruction reads per lane: one per compressed (logical) value.
  // A lane holds half of the row's K (k/2 logical values) and keeps half of those.
  unsigned logical_fields_per_lane() const { return k / 4; }
  unsigned idx_words_per_lane() const { return (2 * logical_fields_per_lane() + 31) / 32; }
  bool operator==(const tile_shape&) const = default;
  bool valid() const {
    if (instr == instruction::iu4_k64 && type != dtype::pk_int4) return false;
    return k >= kk() && k <= 256 && k % kk() == 0 && ((k / kk()) & (k / kk() - 1)) == 0;
  }
};

// A batch of independent 16 x 16 x K tiles, one wave per tile.
struct tile_batch {
  tile_shape shape;
  std::size_t tiles = 0;
  std::vector<std::uint8_t> a;  // tiles * shape.operand_bytes()
  std::vector<std::uint8_t> b;  // tiles * shape.operand_bytes()
};

// What the kernel produced, and what it would have done out of bounds upstream.
struct tile_results {
  std::vector<std::int32_t> d_int;    // integer types: tiles * 256
  std::vector<float> d_float;         // fp8/fp16: tiles * 256
  std::vector<std::uint8_t> compressed;  // tiles * 32 lanes * compressed_bytes_per_lane(), lane order
  std::vector<std::uint32_t> idx;        // tiles * 32 lanes * idx_words_per_lane(); words past the variant's own fields are 0
  std::vector<std::uint32_t> oob_survivor_writes;  // tiles * 32: writes past nonzero_elems[1] (UB upstream)
  std::vector<std::uint32_t> oob_field_writes;     // tiles * 32: idx fields written at or past the field count
  unsigned idx_fields_per_lane = 0;   // how many idx fields this variant's compress_a_impl emits per lane
  // Tree variants (kernels/ck_sparse/tree): per tile, the sanitizer's report (first frames) when the tile's run in the
  // user's code was stopped by one; empty otherwise. The model variants leave it empty.
  std::vector<std::string> sanitizer_reports;
};

// compress_a_impl on one lane vector, through SparseCompressTransform (the route upstream kernels take).
struct compress_result {
  std::vector<std::uint8_t> compressed;  // the first half of the vector after compression (physical bytes)
  std::vector<std::uint32_t> idx;        // the variant's SparseIdxPack words
  unsigned fields = 0;                   // its field count
  std::uint32_t oob_survivor_writes = 0, oob_field_writes = 0;
  std::string sanitizer_report;          // tree variants: the run was stopped by a sanitizer (nothing else is set)
};

struct ops {
  const char* name;
  // Throws std::invalid_argument for a shape or buffer size the family does not support.
  void (*run_tiles)(const tile_batch& in, tile_results& out);
  // `vector` holds 8, 16, 32, 64 or 128 physical elements of `type` (fp16: 2 bytes each, pk_int4: 1 byte per 2).
  compress_result (*compress)(dtype type, std::span<const std::uint8_t> vector);
  // Tree variants (kernels/ck_sparse/tree): where their code came from, key, value, ..., nullptr (file, layout, git
  // commit, sha256, API generation), for the reports' environment block. The model variants leave it null.
  const char* const* provenance = nullptr;
};

}  // namespace tp::ck_sparse
