// Host stand-in for ck_tile/core/numeric/numeric.hpp (see ../config.hpp): numeric_traits, of which
// sparse_transforms.hpp reads PackedSize only (values stored per physical element; pk_int4.hpp sets 2).
#pragma once

#include "ck_tile/core/numeric/integer.hpp"

namespace ck_tile {
template <typename T>
struct numeric_traits {
  static constexpr int PackedSize = 1;
};
}  // namespace ck_tile
