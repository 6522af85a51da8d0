// Element types of the ck_sparse model and the two trait families whose disagreement is bug 2: numeric_traits knows
// that pk_int4_t packs two values per byte, vector_traits erases it to int8 (as ck_tile's ext_vector_t does).
#pragma once

#include "simt/simt.h"

namespace TP_VARIANT_NS {
namespace ck_sparse {

// Two int4 values in one byte. CK_TILE_USE_PK4_LAYOUT_SHUFFLE is 1 upstream, so logical element 0 is the HIGH
// nibble and logical element 1 the low one; both are two's complement.
struct pk_int4_t { int8_t data; };
struct fp8_e4m3_t { uint8_t data; };  // OCP E4M3
struct half_t { uint16_t data; };     // IEEE binary16

template <class T> struct numeric_traits { static constexpr int PackedSize = 1; };
template <> struct numeric_traits<pk_int4_t> { static constexpr int PackedSize = 2; };

template <class T> struct erased_scalar { using type = T; };
template <> struct erased_scalar<pk_int4_t> { using type = int8_t; };

// A lane's register vector: N physical elements. scalar_type is what generic code sees.
template <class T, int N>
struct ext_vector {
  using data_type = T;
  using scalar_type = typename erased_scalar<T>::type;
  static constexpr int size = N;
  scalar_type data[N];
};

template <class V>
struct vector_traits {
  using scalar_type = typename V::scalar_type;
  static constexpr int vector_size = V::size;
};

TP_HOST_DEVICE float bits_to_float(uint32_t b) { return __builtin_bit_cast(float, b); }

TP_HOST_DEVICE float type_convert_float(int8_t v) { return float(v); }
TP_HOST_DEVICE float type_convert_float(half_t v) {
  const uint32_t s = uint32_t(v.data >> 15) << 31, e = (v.data >> 10) & 31u, m = v.data & 0x3ffu;
  if (e == 0) return (s ? -1.0f : 1.0f) * float(m) * (1.0f / 16777216.0f);  // subnormal: m * 2^-24, exact
  if (e == 31) return bits_to_float(s | 0x7f800000u | (m << 13));
  return bits_to_float(s | ((e + 112u) << 23) | (m << 13));
}
TP_HOST_DEVICE float type_convert_float(fp8_e4m3_t v) {
  const uint32_t s = uint32_t(v.data >> 7) << 31, e = (v.data >> 3) & 15u, m = v.data & 7u;
  if (e == 15 && m == 7) return bits_to_float(s | 0x7fc00000u);  // E4M3 has no infinities; S.1111.111 is NaN
  if (e == 0) return (s ? -1.0f : 1.0f) * float(m) * (1.0f / 512.0f);  // subnormal: m * 2^-9
  return bits_to_float(s | ((e + 120u) << 23) | (m << 20));
}

TP_HOST_DEVICE int8_t sign_extend_int4(uint32_t nibble) { return int8_t(int8_t(uint8_t(nibble << 4)) >> 4); }

}  // namespace ck_sparse
}  // namespace TP_VARIANT_NS
