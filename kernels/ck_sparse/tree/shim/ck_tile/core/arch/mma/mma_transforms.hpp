// Host stand-in for ck_tile/core/arch/mma/mma_transforms.hpp (see ../../config.hpp): the operand transform that
// changes nothing, and the primary selector template that op families specialise (sparse_transforms.hpp does, for
// SPARSE ops, through its third parameter).
#pragma once

#include <utility>

#include "ck_tile/core/arch/arch.hpp"
#include "ck_tile/core/numeric/integer.hpp"
#include "ck_tile/core/numeric/vector_type.hpp"
#include "ck_tile/core/utility/bit_cast.hpp"
#include "ck_tile/core/utility/functional.hpp"

namespace ck_tile::core::arch::mma {
struct PassThroughTransform {
  template <typename T>
  CK_TILE_HOST_DEVICE static decltype(auto) exec(T&& v) {
    return std::forward<T>(v);
  }
};

template <typename MmaOp, typename CompilerTarget, typename Enable = void>
struct MmaTransformsDefaultSelector;
}  // namespace ck_tile::core::arch::mma
