// Host stand-in for ck_tile/core/numeric/integer.hpp (see ../config.hpp): CK's index types.
#pragma once

#include <cstdint>

#include "ck_tile/core/config.hpp"

namespace ck_tile {
using index_t = int32_t;
using long_index_t = int64_t;
}  // namespace ck_tile
