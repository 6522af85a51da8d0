// beellama's KVarN record and cache layout (reference/kvarn_record.h) on records made by hand, byte by byte.
#include <catch2/catch_test_macros.hpp>

#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <vector>

#include "reference/kvarn_record.h"

using namespace tp::ref;

namespace {
std::vector<std::uint8_t> blank(int bits) { return std::vector<std::uint8_t>(kvarn_record_bytes(bits), 0); }
// fp16 code c at axis array a (0 scale, 1 zero, 2 other), index i.
void put_axis(std::vector<std::uint8_t>& r, int bits, int a, int i, std::uint16_t c) {
  const std::size_t off = 128 * 128 * bits / 8 + 2 * std::size_t(a * 128 + i);
  r[off] = std::uint8_t(c & 0xFF);
  r[off + 1] = std::uint8_t(c >> 8);
}
constexpr std::uint16_t half_one = 0x3C00, half_half = 0x3800, half_minus_one = 0xBC00, half_two = 0x4000;
}  // namespace

TEST_CASE("Record sizes: 128x128 codes then three fp16 axes of 128", "[kvarn_record]") {
  CHECK(kvarn_record_bytes(2) == 4096 + 768);
  CHECK(kvarn_record_bytes(3) == 6144 + 768);
  CHECK(kvarn_record_bytes(4) == 8192 + 768);
  CHECK(kvarn_record_bytes(5) == 10240 + 768);
  CHECK(kvarn_record_bytes(6) == 12288 + 768);
  CHECK(kvarn_record_bytes(8) == 16384 + 768);
  CHECK_THROWS_AS(kvarn_record_bytes(7), std::invalid_argument);
  CHECK_THROWS_AS(kvarn_record_bytes(1), std::invalid_argument);
}

TEST_CASE("Codes are packed least significant bit first, row-major", "[kvarn_record]") {
  auto r4 = blank(4);
  r4[0] = 0x21;  // codes 0 and 1 of row 0: low nibble first
  r4[64] = 0xF0; // byte 64 = codes 128, 129: row 1 col 0 = 0, col 1 = 15
  CHECK(kvarn_record_code(r4, 4, 0, 0) == 1);
  CHECK(kvarn_record_code(r4, 4, 0, 1) == 2);
  CHECK(kvarn_record_code(r4, 4, 1, 0) == 0);
  CHECK(kvarn_record_code(r4, 4, 1, 1) == 15);

  auto r3 = blank(3);
  r3[0] = 0x80;  // bit 7: bit 1 of code 2 (bits 6..8)
  r3[1] = 0x01;  // bit 8: bit 2 of code 2
  CHECK(kvarn_record_code(r3, 3, 0, 2) == 6);
  CHECK(kvarn_record_code(r3, 3, 0, 0) == 0);
  CHECK(kvarn_record_code(r3, 3, 0, 3) == 0);

  auto r5 = blank(5);
  r5[0] = 0xE0;  // bits 5..7: bits 0..2 of code 1
  r5[1] = 0x02;  // bit 9: bit 4 of code 1; bit 8 (bit 3) stays 0
  CHECK(kvarn_record_code(r5, 5, 0, 1) == 0b10111);

  auto r6 = blank(6);
  r6[96 * 127 + 95] = 0xFC;  // the last byte of a 6-bit payload: bits 2..7 = the last code (row 127, col 127)
  CHECK(kvarn_record_code(r6, 6, 127, 127) == 63);
  CHECK(kvarn_record_code(r6, 6, 127, 126) == 0);

  auto r8 = blank(8);
  r8[128 * 3 + 7] = 0xA5;
  CHECK(kvarn_record_code(r8, 8, 3, 7) == 0xA5);
  auto r2 = blank(2);
  r2[1] = 0x1B;  // codes 4..7 of row 0: 3, 2, 1, 0
  CHECK(kvarn_record_code(r2, 2, 0, 4) == 3);
  CHECK(kvarn_record_code(r2, 2, 0, 5) == 2);
  CHECK(kvarn_record_code(r2, 2, 0, 6) == 1);
  CHECK(kvarn_record_code(r2, 2, 0, 7) == 0);
  CHECK_THROWS_AS(kvarn_record_code(r2, 2, 128, 0), std::invalid_argument);
  CHECK_THROWS_AS(kvarn_record_code(std::vector<std::uint8_t>(100), 2, 0, 0), std::invalid_argument);
}

TEST_CASE("Value = (code * scale[row] + zero[row]) * other[col], K dimension-major, V token-major", "[kvarn_record]") {
  auto r = blank(4);
  r[(5 * 128 + 9) / 2] = 0x30;  // row 5, col 9 (odd: high nibble) = 3
  put_axis(r, 4, 0, 5, half_half);       // scale[5] = 0.5
  put_axis(r, 4, 1, 5, half_minus_one);  // zero[5] = -1
  put_axis(r, 4, 2, 9, half_two);        // other[9] = 2
  const auto ax = kvarn_record_axis(r, 4, 5);
  CHECK(ax.scale == half_half);
  CHECK(ax.zero == half_minus_one);
  CHECK(kvarn_record_value(r, 4, 5, 9) == 1.0);  // (3 * 0.5 - 1) * 2
  CHECK(kvarn_record_value(r, 4, 5, 8) == 0.0);  // other[8] is 0
  // K: row = dim, col = token position; V: row = token, col = dim.
  CHECK(kvarn_record_at(r, 4, false, 9, 5) == 1.0);
  CHECK(kvarn_record_at(r, 4, true, 5, 9) == 1.0);
  CHECK(kvarn_record_at(r, 4, true, 9, 5) == 0.0);
  put_axis(r, 4, 2, 8, half_one);
  CHECK(kvarn_record_value(r, 4, 5, 8) == -1.0);  // code 0: zero[5] * other[8]
}

TEST_CASE("Routing: group 0 and the tail window from the stage, the groups before the window from records",
          "[kvarn_record]") {
  kvarn_cache_layout l;
  l.groups_per_stream = 8;
  l.tail_groups = 1;
  l.n_kv = 512;  // groups 0..3, live 3
  CHECK_FALSE(kvarn_group_from_record(l, 0));
  CHECK(kvarn_group_from_record(l, 1));
  CHECK(kvarn_group_from_record(l, 2));
  CHECK_FALSE(kvarn_group_from_record(l, 3));
  l.n_kv = 513;  // live 4: a one-token live group; group 3 now recorded
  CHECK(kvarn_group_from_record(l, 3));
  CHECK_FALSE(kvarn_group_from_record(l, 4));
  l.tail_groups = 2;
  CHECK(kvarn_group_from_record(l, 2));
  CHECK_FALSE(kvarn_group_from_record(l, 3));
  l.n_kv = 256;  // live 1: nothing recorded yet
  l.tail_groups = 1;
  CHECK_FALSE(kvarn_group_from_record(l, 1));
}

TEST_CASE("A cache decodes stage slots and records per token", "[kvarn_record]") {
  kvarn_cache_layout l;
  l.bits = 8;
  l.n_record_heads = 2;
  l.groups_per_stream = 3;
  l.stage_groups = 2;
  l.tail_groups = 1;
  l.n_kv = 384;  // groups 0 (stage slot 0), 1 (record), 2 (stage slot 1)
  std::vector<std::uint16_t> stage(2 * 128 * 2 * 128, 0);
  std::vector<std::uint8_t> records(3 * 2 * kvarn_record_bytes(8), 0);
  // Token 5 of group 0, head 1, dim 7 -> slot 0; token 256 + 3 of group 2, head 0, dim 0 -> slot 1.
  stage[((0 * 128 + 5) * 2 + 1) * 128 + 7] = half_two;
  stage[((1 * 128 + 3) * 2 + 0) * 128 + 0] = half_minus_one;
  // Group 1, head 1's record: K, so row = dim 4, col = token position 10; code 2, scale 0.5, zero 0, other 2.
  const std::size_t rb = kvarn_record_bytes(8), rec = (1 * 2 + 1) * rb;
  records[rec + 4 * 128 + 10] = 2;
  const std::size_t axes = rec + 128 * 128;
  records[axes + 2 * 4] = 0x00;
  records[axes + 2 * 4 + 1] = 0x38;  // scale[4] = 0.5
  records[axes + 2 * (256 + 10)] = 0x00;
  records[axes + 2 * (256 + 10) + 1] = 0x40;  // other[10] = 2
  const auto d = kvarn_decode_cache(l, stage, records);
  auto at = [&](int h, int t, int dim) { return d[(std::size_t(h) * 384 + t) * 128 + dim]; };
  CHECK(at(1, 5, 7) == 2.0);
  CHECK(at(0, 259, 0) == -1.0);
  CHECK(at(1, 138, 4) == 2.0);  // (2 * 0.5 + 0) * 2
  CHECK(at(0, 138, 4) == 0.0);  // head 0's record is all zero
  l.value = true;               // the same bytes as a V record: row = token 10 -> (10, 4) is code 0
  CHECK(kvarn_decode_cache(l, stage, records)[(std::size_t(1) * 384 + 138) * 128 + 4] == 0.0);
  CHECK_THROWS_AS(kvarn_decode_cache(l, std::vector<std::uint16_t>(10), records), std::invalid_argument);
  l.groups_per_stream = 2;  // no record slot for group 2
  CHECK_THROWS_AS(kvarn_decode_cache(l, stage, records), std::invalid_argument);
}

TEST_CASE("The loader's value rounds the sum and the product to binary32, then to binary16", "[kvarn_record]") {
  auto r = blank(8);
  // code 255, scale 2^-10 + 2^-20 (fp16 0x1401 = 2^-10·(1 + 2^-10)), zero 1 (0x3C00), other 1 + 2^-10 (0x3C01):
  // sum = 1 + 255·2^-10·(1 + 2^-10), exact in binary32; product by (1 + 2^-10) then rounds to binary16.
  r[0] = 255;
  put_axis(r, 8, 0, 0, 0x1401);
  put_axis(r, 8, 1, 0, half_one);
  put_axis(r, 8, 2, 0, 0x3C01);
  const double exact = (1 + 255 * std::ldexp(1.0 + std::ldexp(1.0, -10), -10)) * (1 + std::ldexp(1.0, -10));
  CHECK(kvarn_record_value(r, 8, 0, 0) == exact);
  // exact = 1.2514... ; binary16 steps of 2^-10 near 1.25: the loader's value is the nearest of them.
  const float loaded = kvarn_record_loaded(r, 8, true, 0, 0);
  CHECK(std::fabs(double(loaded) - exact) <= std::ldexp(1.0, -11));
  CHECK(std::fmod(double(loaded) * 1024.0, 1.0) == 0.0);
}
