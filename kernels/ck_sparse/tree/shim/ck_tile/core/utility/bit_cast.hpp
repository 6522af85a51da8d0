// Host stand-in for ck_tile/core/utility/bit_cast.hpp (see ../config.hpp): the object representation of X as Y.
#pragma once

namespace ck_tile {
template <typename Y, typename X>
constexpr Y bit_cast(const X& x) {
  static_assert(sizeof(X) == sizeof(Y), "bit_cast between types of different size");
  return __builtin_bit_cast(Y, x);
}
}  // namespace ck_tile
