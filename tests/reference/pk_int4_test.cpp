// pk_int4: raw (low nibble first) vs CK logical (high nibble first) order, two's-complement vs offset-binary codes.
#include <catch2/catch_test_macros.hpp>

#include <cstdint>
#include <vector>

#include "reference/pk_int4.h"

using namespace tp::ref;

TEST_CASE("Byte 0x8F decodes per order and code as documented", "[pk_int4]") {
  const std::vector<std::uint8_t> b{0x8F};
  CHECK(unpack_int4(b, 2, nibble_order::raw, int4_code::twos_complement) == std::vector<std::int8_t>{-1, -8});
  CHECK(unpack_int4(b, 2, nibble_order::raw, int4_code::offset_binary) == std::vector<std::int8_t>{7, 0});
  CHECK(unpack_int4(b, 2, nibble_order::ck_logical, int4_code::twos_complement) == std::vector<std::int8_t>{-8, -1});
  CHECK(unpack_int4(b, 2, nibble_order::ck_logical, int4_code::offset_binary) == std::vector<std::int8_t>{0, 7});
}

TEST_CASE("Nibble codes map to -8..7 under both codes", "[pk_int4]") {
  const int twos[16] = {0, 1, 2, 3, 4, 5, 6, 7, -8, -7, -6, -5, -4, -3, -2, -1};
  for (int n = 0; n < 16; ++n) {
    CAPTURE(n);
    CHECK(decode_int4(static_cast<std::uint8_t>(n), int4_code::twos_complement) == twos[n]);
    CHECK(decode_int4(static_cast<std::uint8_t>(n), int4_code::offset_binary) == n - 8);
    CHECK(encode_int4(twos[n], int4_code::twos_complement) == n);
    CHECK(encode_int4(n - 8, int4_code::offset_binary) == n);
  }
  CHECK_THROWS_AS(encode_int4(8, int4_code::twos_complement), std::invalid_argument);
  CHECK_THROWS_AS(encode_int4(-9, int4_code::offset_binary), std::invalid_argument);
}

TEST_CASE("Packing places element 2b low in raw order and high in CK order", "[pk_int4]") {
  const std::vector<std::int8_t> v{1, 2, 3, -8};
  // raw: byte0 = 2<<4 | 1 = 0x21, byte1 = 0x8<<4 | 3 = 0x83; CK: the nibbles swapped
  CHECK(pack_int4(v, nibble_order::raw) == std::vector<std::uint8_t>{0x21, 0x83});
  CHECK(pack_int4(v, nibble_order::ck_logical) == std::vector<std::uint8_t>{0x12, 0x38});
  // offset binary raw: 1->9, 2->A, 3->B, -8->0
  CHECK(pack_int4(v, nibble_order::raw, int4_code::offset_binary) == std::vector<std::uint8_t>{0xA9, 0x0B});
  // An odd count leaves the unused nibble as code 0.
  CHECK(pack_int4(std::vector<std::int8_t>{-1}, nibble_order::raw) == std::vector<std::uint8_t>{0x0F});
  CHECK(pack_int4(std::vector<std::int8_t>{-1}, nibble_order::ck_logical) == std::vector<std::uint8_t>{0xF0});
}

TEST_CASE("Swapping nibbles converts between the two orders and element e maps to e^1", "[pk_int4]") {
  std::vector<std::int8_t> all;
  for (int a = -8; a <= 7; ++a)
    for (int b = -8; b <= 7; ++b) {
      all.push_back(static_cast<std::int8_t>(a));
      all.push_back(static_cast<std::int8_t>(b));
    }
  const auto raw = pack_int4(all, nibble_order::raw), ck = pack_int4(all, nibble_order::ck_logical);
  CHECK(swap_nibbles(raw) == ck);
  CHECK(swap_nibbles(ck) == raw);
  CHECK(unpack_int4(raw, all.size(), nibble_order::raw) == all);
  CHECK(unpack_int4(ck, all.size(), nibble_order::ck_logical) == all);
  for (std::size_t e = 0; e < all.size(); ++e) {
    CHECK(get_int4(ck, e, nibble_order::ck_logical, int4_code::twos_complement) ==
          get_int4(ck, ck_logical_to_raw(e), nibble_order::raw, int4_code::twos_complement));
  }
  CHECK(ck_logical_to_raw(0) == 1);
  CHECK(raw_to_ck_logical(5) == 4);
  CHECK(nibble_shift(0, nibble_order::raw) == 0);
  CHECK(nibble_shift(0, nibble_order::ck_logical) == 4);
  CHECK(nibble_shift(3, nibble_order::raw) == 4);
}

TEST_CASE("Unpacking more elements than the bytes hold is refused", "[pk_int4]") {
  const std::vector<std::uint8_t> b{0x12};
  CHECK_THROWS_AS(unpack_int4(b, 3, nibble_order::raw), std::invalid_argument);
  CHECK_THROWS_AS(get_int4(b, 2, nibble_order::raw, int4_code::twos_complement), std::invalid_argument);
}
