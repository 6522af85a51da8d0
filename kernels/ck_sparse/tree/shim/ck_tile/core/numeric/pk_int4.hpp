// Host stand-in for ck_tile/core/numeric/pk_int4.hpp (see ../config.hpp): two int4 values in one byte, and the
// numeric_traits that says so. In a register vector CK stores it as plain int8 (numeric/vector_type.hpp).
#pragma once

#include <cstdint>

#include "ck_tile/core/numeric/numeric.hpp"

namespace ck_tile {
// As upstream: built from its int8 storage, implicitly, but with no conversion back to it (upstream's only conversion
// is to two floats). So a compress_a_impl instantiated for pk_int4_t elements (rocm-libraries' exec(ATensor&) given a
// pk_int4_t tensor) reads survivors into pk_int4_t and cannot store them back into the int8 register vector.
struct pk_int4_t {
  using type = int8_t;
  type data;
  constexpr pk_int4_t() : data{} {}
  constexpr pk_int4_t(type init) : data{init} {}
};
template <>
struct numeric_traits<pk_int4_t> {
  static constexpr int PackedSize = 2;
};
}  // namespace ck_tile
