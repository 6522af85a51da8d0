// Host stand-in for ck_tile/core/arch/mma/mma_op_family.hpp (see ../../config.hpp): the kind of matrix op, which the
// transforms selector specialises on (SPARSE ops get the 2:4 compression transform).
#pragma once

namespace ck_tile::core::arch::mma {
enum class MmaOpFamily { UNDEFINED = 0, DENSE, SPARSE, SCALE };
}  // namespace ck_tile::core::arch::mma
