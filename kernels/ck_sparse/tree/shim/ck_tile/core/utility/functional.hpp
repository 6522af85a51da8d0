// Host stand-in for ck_tile/core/utility/functional.hpp (see ../config.hpp): number<N> and static_for.
// static_for<Begin, End, Inc>{}(f) calls f(number<i>{}) for i = Begin, Begin+Inc, ... < End, each i a constant the
// callee may use in constant expressions (and which converts to index_t).
#pragma once

#include <type_traits>
#include <utility>

#include "ck_tile/core/numeric/integer.hpp"

namespace ck_tile {
template <index_t N>
using number = std::integral_constant<index_t, N>;

template <index_t Begin, index_t End, index_t Inc>
struct static_for {
  static_assert(Inc > 0, "static_for counts up");
  template <typename F>
  constexpr void operator()(F f) const {
    if constexpr (Begin < End) {
      f(number<Begin>{});
      static_for<Begin + Inc, End, Inc>{}(f);
    }
  }
};
}  // namespace ck_tile
