// Host stand-in for ck_tile/core/numeric/vector_type.hpp (see ../config.hpp): ext_vector_t (clang's ext_vector_type)
// and vector_traits. As upstream, an ext_vector_t of pk_int4_t is a vector of int8: vector_traits of it says int8_t,
// so generic code sees bytes (this erasure is what bug 2 is about).
#pragma once

#include <tuple>
#include <type_traits>

#include "ck_tile/core/numeric/ext_vector_base.hpp"
#include "ck_tile/core/numeric/float8.hpp"
#include "ck_tile/core/numeric/half.hpp"
#include "ck_tile/core/numeric/integer.hpp"
#include "ck_tile/core/numeric/pk_int4.hpp"
#include "ck_tile/core/utility/type_traits.hpp"

namespace ck_tile {
// As upstream (ck_tile/core/numeric/vector_type.hpp, native_t): clang's ext_vector_type takes only arithmetic
// element types, so a class element type (fp8_t under CK_TILE_USE_CUSTOM_DATA_TYPE 1) is stored as its native raw
// type: a lane vector of fp8_t holds the raw codes either way. float8.hpp specialises it for the class.
template <typename T>
struct native_t {
  using type = T;
};

namespace impl {
template <typename T, index_t N>
struct ext_vector {
  typedef typename native_t<T>::type type __attribute__((ext_vector_type(N)));
};
template <index_t N>
struct ext_vector<pk_int4_t, N> {
  typedef int8_t type __attribute__((ext_vector_type(N)));
};
}  // namespace impl

template <typename T, index_t N>
using ext_vector_t = typename impl::ext_vector<T, N>::type;

// A scalar is a vector of one; an ext_vector_type vector names its element type and length.
template <typename T>
struct vector_traits {
  using scalar_type = T;
  static constexpr index_t vector_size = 1;
};
template <typename T, index_t N>
struct vector_traits<T __attribute__((ext_vector_type(N)))> {
  using scalar_type = T;
  static constexpr index_t vector_size = N;
};
}  // namespace ck_tile
