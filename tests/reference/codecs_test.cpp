// fp16 / bf16 / fp8 E4M3 / fp8 E5M2: exhaustive round trips, RNE at every midpoint, and hand vectors for ties,
// subnormal boundaries, max finite, overflow and specials.
#include <catch2/catch_test_macros.hpp>
#include <catch2/generators/catch_generators.hpp>

#include <cmath>
#include <cstdint>
#include <limits>

#include "reference/codecs.h"

using namespace tp::ref;

namespace {
std::uint32_t code_count(fp_format f) { return f == fp_format::fp8_e4m3 || f == fp_format::fp8_e5m2 ? 256u : 65536u; }
std::uint32_t sign_bit(fp_format f) { return code_count(f) / 2; }
const double inf = std::numeric_limits<double>::infinity();
}  // namespace

TEST_CASE("Every code decodes and re-encodes to itself, NaN codes to a NaN", "[codecs]") {
  const auto f = GENERATE(fp_format::fp16, fp_format::bf16, fp_format::fp8_e4m3, fp_format::fp8_e5m2);
  CAPTURE(to_string(f));
  std::uint32_t nan_codes = 0;
  for (std::uint32_t c = 0; c < code_count(f); ++c) {
    const double x = decode(f, c);
    const float xf = static_cast<float>(x);
    if (std::isnan(x)) {
      ++nan_codes;
      REQUIRE(is_nan_code(f, encode(f, x)));
      REQUIRE(is_nan_code(f, encode(f, xf)));
      continue;
    }
    REQUIRE(static_cast<double>(xf) == x);  // every value is exact in binary32
    REQUIRE(encode(f, x) == c);
    REQUIRE(encode(f, xf) == c);
    if (!std::isinf(x)) REQUIRE(encode(f, x, true) == c);
  }
  // NaN code counts: fp16 2·(2^10-1), bf16 2·(2^7-1), E4M3 2 (S.1111.111), E5M2 2·3.
  const std::uint32_t expected = f == fp_format::fp16 ? 2046u : f == fp_format::bf16 ? 254u
                                 : f == fp_format::fp8_e4m3 ? 2u : 6u;
  CHECK(nan_codes == expected);
}

TEST_CASE("The midpoint between two adjacent finite codes rounds to the even code", "[codecs]") {
  const auto f = GENERATE(fp_format::fp16, fp_format::bf16, fp_format::fp8_e4m3, fp_format::fp8_e5m2);
  CAPTURE(to_string(f));
  for (std::uint32_t c = 0; c + 1 < sign_bit(f); ++c) {
    const double lo = decode(f, c), hi = decode(f, c + 1);
    if (!std::isfinite(lo) || !std::isfinite(hi)) break;
    const double mid = lo + (hi - lo) / 2;  // exact in double
    const std::uint32_t even = (c % 2 == 0) ? c : c + 1;
    INFO("code " << c);
    REQUIRE(encode(f, mid) == even);
    REQUIRE(encode(f, -mid) == (even | sign_bit(f)));
    // Just off the midpoint the nearest code wins.
    REQUIRE(encode(f, std::nextafter(mid, 0.0)) == c);
    REQUIRE(encode(f, std::nextafter(mid, inf)) == c + 1);
  }
}

TEST_CASE("fp16 hand vectors: ties, subnormals, max finite, overflow, specials", "[codecs]") {
  CHECK(double_to_fp16(1.0) == 0x3C00);
  CHECK(double_to_fp16(-2.0) == 0xC000);
  CHECK(double_to_fp16(1.0 + std::ldexp(1.0, -11)) == 0x3C00);      // tie -> even mantissa 0
  CHECK(double_to_fp16(1.0 + 3 * std::ldexp(1.0, -11)) == 0x3C02);  // tie between 0x3C01 and 0x3C02 -> 0x3C02
  CHECK(double_to_fp16(std::ldexp(1.0, -24)) == 0x0001);            // smallest subnormal
  CHECK(double_to_fp16(std::ldexp(1.0, -25)) == 0x0000);            // half of it: tie -> 0
  CHECK(double_to_fp16(-std::ldexp(1.0, -25)) == 0x8000);           // ... keeping the sign
  CHECK(double_to_fp16(3 * std::ldexp(1.0, -25)) == 0x0002);        // 1.5 units: tie -> 2 units
  CHECK(double_to_fp16(1023 * std::ldexp(1.0, -24)) == 0x03FF);     // largest subnormal
  CHECK(double_to_fp16(std::ldexp(1.0, -14)) == 0x0400);            // smallest normal
  CHECK(fp16_to_double(0x7BFF) == 65504.0);
  CHECK(double_to_fp16(65519.0) == 0x7BFF);
  CHECK(double_to_fp16(65520.0) == 0x7C00);  // tie above max rounds to the (odd->even) next binade: overflow
  CHECK(double_to_fp16(65520.0, true) == 0x7BFF);
  CHECK(double_to_fp16(-1e6) == 0xFC00);
  CHECK(double_to_fp16(-1e6, true) == 0xFBFF);
  CHECK(double_to_fp16(inf, true) == 0x7BFF);
  CHECK(double_to_fp16(std::numeric_limits<double>::quiet_NaN()) == 0x7E00);
  CHECK(double_to_fp16(-std::numeric_limits<double>::quiet_NaN()) == 0xFE00);
  CHECK(std::signbit(fp16_to_double(0x8000)));
  CHECK(double_to_fp16(-0.0) == 0x8000);
  CHECK(fp16_to_float(0x3555) == 0x1.554p-2f);
}

TEST_CASE("Encoding from double rounds once where a float detour would round twice", "[codecs]") {
  // 1 + 2^-11 + 2^-40 is just above the fp16 tie: RNE gives 0x3C01. Through float it becomes exactly the tie
  // (float has no 2^-40 bit at 1.0) and rounds to 0x3C00.
  const double x = 1.0 + std::ldexp(1.0, -11) + std::ldexp(1.0, -40);
  CHECK(double_to_fp16(x) == 0x3C01);
  CHECK(float_to_fp16(static_cast<float>(x)) == 0x3C00);
  // Same for bf16: 1 + 2^-8 + 2^-30.
  const double y = 1.0 + std::ldexp(1.0, -8) + std::ldexp(1.0, -30);
  CHECK(double_to_bf16(y) == 0x3F81);
  CHECK(float_to_bf16(static_cast<float>(y)) == 0x3F80);
}

TEST_CASE("bf16 hand vectors", "[codecs]") {
  CHECK(double_to_bf16(1.0) == 0x3F80);
  CHECK(double_to_bf16(1.0 + std::ldexp(1.0, -8)) == 0x3F80);
  CHECK(double_to_bf16(1.0 + 3 * std::ldexp(1.0, -8)) == 0x3F82);
  CHECK(bf16_to_double(0x7F7F) == std::ldexp(255.0, 120));
  CHECK(double_to_bf16(std::numeric_limits<float>::max()) == 0x7F80);  // above max + half ulp
  CHECK(double_to_bf16(std::numeric_limits<float>::max(), true) == 0x7F7F);
  CHECK(double_to_bf16(std::ldexp(1.0, -133)) == 0x0001);
  CHECK(double_to_bf16(std::numeric_limits<double>::quiet_NaN()) == 0x7FC0);
}

TEST_CASE("fp8 E4M3 hand vectors: 448 max, tie at 464, NaN on overflow unless saturating", "[codecs]") {
  CHECK(fp8_e4m3_to_double(0x7E) == 448.0);
  CHECK(fp8_e4m3_to_double(0x78) == 256.0);  // exponent field 15 is a normal binade in E4M3
  CHECK(std::isnan(fp8_e4m3_to_double(0x7F)));
  CHECK(std::isnan(fp8_e4m3_to_double(0xFF)));
  CHECK(fp8_e4m3_to_double(0x38) == 1.0);
  CHECK(fp8_e4m3_to_double(0x01) == std::ldexp(1.0, -9));
  CHECK(fp8_e4m3_to_double(0x08) == std::ldexp(1.0, -6));
  CHECK(double_to_fp8_e4m3(448.0) == 0x7E);
  CHECK(double_to_fp8_e4m3(464.0) == 0x7E);  // tie between 448 (mantissa 110) and 480: even -> 448
  CHECK(double_to_fp8_e4m3(464.0001) == 0x7F);
  CHECK(double_to_fp8_e4m3(464.0001, true) == 0x7E);
  CHECK(double_to_fp8_e4m3(-1000.0) == 0xFF);
  CHECK(double_to_fp8_e4m3(-1000.0, true) == 0xFE);
  CHECK(double_to_fp8_e4m3(inf) == 0x7F);
  CHECK(double_to_fp8_e4m3(-inf, true) == 0xFE);
  CHECK(double_to_fp8_e4m3(std::ldexp(1.0, -10)) == 0x00);      // half the smallest subnormal: tie -> 0
  CHECK(double_to_fp8_e4m3(3 * std::ldexp(1.0, -10)) == 0x02);  // 1.5 units: tie -> 2 units
  CHECK(double_to_fp8_e4m3(-0.0) == 0x80);
  CHECK(float_to_fp8_e4m3(0.3f) == 0x2A);  // 0.3 = 1.2·2^-2: mantissa 0.2·8 = 1.6 -> 2, i.e. 0 0101 010 = 0.3125
  CHECK(max_finite(fp_format::fp8_e4m3) == 448.0);
}

TEST_CASE("fp8 E5M2 hand vectors: inf and NaN like IEEE, 57344 max", "[codecs]") {
  CHECK(fp8_e5m2_to_double(0x7B) == 57344.0);
  CHECK(std::isinf(fp8_e5m2_to_double(0x7C)));
  CHECK(fp8_e5m2_to_double(0xFC) == -inf);
  CHECK(std::isnan(fp8_e5m2_to_double(0x7D)));
  CHECK(std::isnan(fp8_e5m2_to_double(0x7E)));
  CHECK(std::isnan(fp8_e5m2_to_double(0x7F)));
  CHECK(fp8_e5m2_to_double(0x3C) == 1.0);
  CHECK(fp8_e5m2_to_double(0x01) == std::ldexp(1.0, -16));
  CHECK(double_to_fp8_e5m2(60000.0) == 0x7B);
  CHECK(double_to_fp8_e5m2(61440.0) == 0x7C);  // tie between 57344 (odd mantissa 11) and 65536: overflow
  CHECK(double_to_fp8_e5m2(61440.0, true) == 0x7B);
  CHECK(double_to_fp8_e5m2(inf) == 0x7C);
  CHECK(double_to_fp8_e5m2(inf, true) == 0x7B);
  CHECK(double_to_fp8_e5m2(std::numeric_limits<double>::quiet_NaN()) == 0x7E);
  CHECK(is_inf_code(fp_format::fp8_e5m2, 0xFC));
  CHECK_FALSE(is_inf_code(fp_format::fp8_e4m3, 0x7F));
}

TEST_CASE("Format constants and generic entry points agree with the named functions", "[codecs]") {
  CHECK(unit_roundoff(fp_format::fp16) == std::ldexp(1.0, -11));
  CHECK(unit_roundoff(fp_format::fp8_e4m3) == std::ldexp(1.0, -4));
  CHECK(min_subnormal(fp_format::fp16) == std::ldexp(1.0, -24));
  CHECK(min_subnormal(fp_format::bf16) == std::ldexp(1.0, -133));
  CHECK(max_finite(fp_format::fp8_e5m2) == 57344.0);
  CHECK(max_finite(fp_format::bf16) == std::ldexp(255.0, 120));
  CHECK(decode(fp_format::fp8_e4m3, 0x55) == fp8_e4m3_to_double(0x55));
  CHECK_THROWS_AS(decode(fp_format::fp8_e4m3, 0x100), std::invalid_argument);
  const std::vector<std::uint8_t> codes{0x38, 0xB8, 0x7E};
  CHECK(decode_all(fp_format::fp8_e4m3, codes) == std::vector<double>{1.0, -1.0, 448.0});
  const std::vector<std::uint16_t> codes16{0x3C00, 0x7BFF};
  CHECK(decode_all(fp_format::fp16, codes16) == std::vector<double>{1.0, 65504.0});
}
