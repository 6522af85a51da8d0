// Host stand-in for ck_tile/core/numeric/float8.hpp (see ../config.hpp). gfx12's fp8 is OCP E4M3.
//
// With CK_TILE_USE_CUSTOM_DATA_TYPE 0 (CK's default) fp8_t is the raw 8-bit integer type: static_cast<float> of it is
// an integer conversion of the code, so code 0x80 (-0 in E4M3) converts to -128, not to -0.0f. With 1 it is a class
// whose conversion to float decodes the code (0x80 -> -0.0f, which compares equal to 0).
#pragma once

#include <cstdint>

#include "ck_tile/core/config.hpp"

namespace ck_tile {
#if CK_TILE_USE_CUSTOM_DATA_TYPE
struct fp8_t {
  uint8_t data;
  fp8_t() = default;
  explicit constexpr fp8_t(int code) : data(uint8_t(code)) {}
  // OCP E4M3: bias 7, no infinities, S.1111.111 is NaN, exponent 0 is subnormal (m * 2^-9).
  explicit operator float() const {
    const int s = data >> 7, e = (data >> 3) & 15, m = data & 7;
    float v;
    if (e == 15 && m == 7) v = __builtin_nanf("");
    else if (e == 0) v = float(m) / 512.0f;
    else v = __builtin_ldexpf(1.0f + float(m) / 8.0f, e - 7);
    return s ? -v : v;
  }
};
// Upstream's native_t<fp8_t> (float8.hpp under CK_TILE_USE_CUSTOM_DATA_TYPE): vectors of the class hold _BitInt(8).
template <typename>
struct native_t;
template <>
struct native_t<fp8_t> {
  using type = _BitInt(8);
};
#else
using fp8_t = _BitInt(8);
#endif
using fp8_raw_t = uint8_t;
}  // namespace ck_tile
