// Packed int4: two 4-bit elements per byte. Two conventions meet in the ck_sparse bugs (docs/bugs/ck-sparse.md §6):
//   raw order        element 2b is the LOW nibble (bits 3:0) of byte b, element 2b+1 the HIGH nibble. This is the
//                    order the gfx12 iu4 instructions read (compressed nibble 0 = low nibble, docs/bugs/gfx12-swmmac.md
//                    §5).
//   CK logical order element 2b is the HIGH nibble of byte b (CK_TILE_USE_PK4_LAYOUT_SHUFFLE=1: the conversions
//                    return {hi, lo}). So logical element e lives at raw element e ^ 1.
// and two value codes:
//   twos_complement  nibble n -> n < 8 ? n : n - 16  (-8..7); SWMMAC iu4 signed, pk_int4_t_to_int8x2_t, compress_a_impl
//   offset_binary    nibble n -> n - 8               (-8..7); pk_int4_t_to_fp32x2_t
// Example, byte 0x8F: low nibble 0xF, high nibble 0x8.
//   raw order:        element0 = 0xF, element1 = 0x8 -> twos (-1, -8), offset (7, 0)
//   CK logical order: element0 = 0x8, element1 = 0xF -> twos (-8, -1), offset (0, 7)
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "reference/sparse24.h"

namespace tp::ref {

enum class nibble_order { raw, ck_logical };
enum class int4_code { twos_complement, offset_binary };

constexpr int decode_int4(std::uint8_t nibble, int4_code code) {
  const int n = nibble & 0xF;
  return code == int4_code::twos_complement ? (n < 8 ? n : n - 16) : n - 8;
}
// std::invalid_argument for values outside -8..7 (the range of both codes).
std::uint8_t encode_int4(int value, int4_code code);

// Bit shift (0 or 4) of element e inside its byte e/2.
constexpr unsigned nibble_shift(std::size_t element, nibble_order order) {
  const bool low = (element % 2 == 0) == (order == nibble_order::raw);
  return low ? 0u : 4u;
}
// Change of coordinates between the two orders: the same nibble has index e in one and e ^ 1 in the other.
constexpr std::size_t ck_logical_to_raw(std::size_t e) { return e ^ 1u; }
constexpr std::size_t raw_to_ck_logical(std::size_t e) { return e ^ 1u; }

// Element e of a packed buffer (no bounds beyond the span's).
int get_int4(std::span<const std::uint8_t> bytes, std::size_t element, nibble_order order, int4_code code);

// Pack logical values (-8..7, one per int8) into ceil(n/2) bytes; an odd count leaves the unused nibble as code 0.
std::vector<std::uint8_t> pack_int4(std::span<const std::int8_t> values, nibble_order order,
                                    int4_code code = int4_code::twos_complement);
// Unpack `count` elements (count <= 2 * bytes.size(), std::invalid_argument otherwise).
std::vector<std::int8_t> unpack_int4(std::span<const std::uint8_t> bytes, std::size_t count, nibble_order order,
                                     int4_code code = int4_code::twos_complement);
// The 4-bit index value of one group (bits 1:0 field 2i, bits 3:2 field 2i+1) that SWMMAC iu4 needs for a pk_int4 A
// kept in CK's logical order, i.e. what the fixed compress_a_impl writes (docs/bugs/ck-idx-swap-xor.md §4, §6):
// survivor s (s = 0 the lower logical position) goes to field 2i + (1 - s) holding raw position p ^ 1; a field
// without a survivor keeps CK's default position 2 (0b10). Examples:
//   pair (0,2): field 2i+1 = 0^1 = 1, field 2i = 2^1 = 3        -> 0b01'11 = 0x7
//   single 3:   field 2i+1 = 3^1 = 2, field 2i = default 2      -> 0b10'10 = 0xA
//   none:       both fields default 2                           -> 0xA
constexpr unsigned pk_int4_group_idx(group_kind k) {
  constexpr unsigned value[] = {0x4, 0x7, 0x6, 0x3, 0x2, 0xE, 0x6, 0x2, 0xE, 0xA, 0xA};
  return value[unsigned(k)];
}

// Re-pack a buffer from one order to the other: swaps the two nibbles of every byte (the operation is its own inverse).
std::vector<std::uint8_t> swap_nibbles(std::span<const std::uint8_t> bytes);

}  // namespace tp::ref
