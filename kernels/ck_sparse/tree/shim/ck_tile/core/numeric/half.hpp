// Host stand-in for ck_tile/core/numeric/half.hpp (see ../config.hpp): CK's fp16 is clang's _Float16.
#pragma once

namespace ck_tile {
using fp16_t = _Float16;
using half_t = _Float16;
}  // namespace ck_tile
