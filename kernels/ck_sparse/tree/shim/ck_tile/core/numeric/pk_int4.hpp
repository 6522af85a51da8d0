// Host stand-in for ck_tile/core/numeric/pk_int4.hpp (see ../config.hpp): two int4 values in one byte, and the
// numeric_traits that says so. In a register vector CK stores it as plain int8 (numeric/vector_type.hpp).
#pragma once

#include <cstdint>

#include "ck_tile/core/numeric/numeric.hpp"

namespace ck_tile {
struct pk_int4_t {
  using type = int8_t;
  type data;
};
template <>
struct numeric_traits<pk_int4_t> {
  static constexpr int PackedSize = 2;
};
}  // namespace ck_tile
