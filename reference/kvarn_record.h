// beellama's KVarN cache as its store leaves it, decoded on the host: records (one per 128-token group and 128-wide
// head slice) and the f16 stage, read from their bytes. Written from the layout beellama's code defines
// (https://github.com/lolsoundsus/llama.cpp @8a39c216845f, ggml/src/ggml-cuda/kvarn.cu: the store's
// kvarn_quantize_stage* writes, kvarn_store_kernel_*'s stage slots; fattn-mma-kvarn.cuh: which group is read from
// where), independently of any code there or in kernels/: the oracle's reading of what the attention kernel must see.
//
// One record, `bits` in {2, 3, 4, 5, 6, 8}, record_bytes(bits) = 128·128·bits/8 + 3·128·2 bytes:
//   payload  128 x 128 codes, row-major; code i = row·128 + col occupies bits [i·bits, (i+1)·bits) of the payload
//            read as one little-endian bit string (bit k is bit k%8 of byte k/8), least significant bit of the code
//            first;
//   axes     then three arrays of 128 fp16 (little-endian): scale[row], zero[row], other[col];
//   value    x(row, col) = (code·scale[row] + zero[row])·other[col].
// K records are dimension-major (row = head dim, col = token of the group), V records token-major (row = token,
// col = head dim). Decoded exactly (in double every product and sum of these fp16 values and a code of at most 8 bits
// is exact unless the sum's operands lie more than 2^29 apart in magnitude: `value` is then within one double rounding).
//
// The cache of one stream (single stream, no SWA, records written when a group leaves the tail window, not eagerly):
//   stage    stage_groups slots of 128 positions x n_record_heads x 128 fp16: group 0 in slot 0, group g >= 1 in slot
//            1 + (g - 1) % tail_groups, position = token % 128;
//   records  groups_per_stream x n_record_heads records of record_bytes, group-major;
//   routing  with live = the last stored token's group: group 0 and the groups in (live - tail_groups, live] come
//            from the stage, groups 1 .. live - tail_groups from their records.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace tp::ref {

inline constexpr int kvarn_group = 128;  // tokens per group, values per slice

// Bytes of one record; std::invalid_argument for widths beellama's store does not take.
int kvarn_record_bytes(int bits);

// The code at (row, col) of a record's payload.
std::uint32_t kvarn_record_code(std::span<const std::uint8_t> record, int bits, int row, int col);

// The three fp16 axis codes of a record at index i (row for scale and zero, column for other).
struct kvarn_record_axes {
  std::uint16_t scale, zero, other;
};
kvarn_record_axes kvarn_record_axis(std::span<const std::uint8_t> record, int bits, int i);

// x(row, col) of a record, exactly as the layout defines it.
double kvarn_record_value(std::span<const std::uint8_t> record, int bits, int row, int col);

// A K (value = false) or V (value = true) record's value for token position `pos` (0..127) of its group and head
// dimension `dim` of its slice.
double kvarn_record_at(std::span<const std::uint8_t> record, int bits, bool value, int pos, int dim);

// What beellama's attention loader puts in its fp16 tile for that element (fattn-mma-kvarn-impl.cuh,
// flash_attn_ext_kvarn_load_tile): (float(code)·scale + zero)·other in binary32, then make_half2, round to nearest
// even. code·scale is exact in binary32 (8 + 11 significant bits), so a fused multiply-add rounds the sum the same
// way; the sum and the product are each rounded to binary32, then the product to binary16. Returned as the float
// holding that fp16 value.
float kvarn_record_loaded(std::span<const std::uint8_t> record, int bits, bool value, int pos, int dim);

struct kvarn_cache_layout {
  int bits = 4, n_record_heads = 1, groups_per_stream = 1, stage_groups = 2, tail_groups = 1;
  int n_kv = 1;  // tokens 0..n_kv-1 stored
  bool value = false;
};

// Whether token group `group` of the cache is read from its record (else from the stage).
bool kvarn_group_from_record(const kvarn_cache_layout& l, int group);

// The whole side decoded: [record head][token][128] values (stage codes and record values alike), checking the buffer
// sizes (std::invalid_argument). as_loaded: record values as kvarn_record_loaded gives them (what the attention
// kernel reads), else exact.
std::vector<double> kvarn_decode_cache(const kvarn_cache_layout& l, std::span<const std::uint16_t> stage,
                                       std::span<const std::uint8_t> records, bool as_loaded = false);

}  // namespace tp::ref
