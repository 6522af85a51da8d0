// Host stand-in for ck_tile/core/utility/type_traits.hpp (see ../config.hpp): remove_cvref_t.
#pragma once

#include <type_traits>

namespace ck_tile {
template <typename T>
using remove_cvref_t = std::remove_cv_t<std::remove_reference_t<T>>;
}  // namespace ck_tile
