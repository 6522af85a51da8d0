// Host stand-in for ck_tile/core/arch/arch.hpp (see ../config.hpp). Upstream: target queries and intrinsics wrappers;
// sparse_transforms.hpp uses none of them, only what the other core headers bring in.
#pragma once

#include "ck_tile/core/config.hpp"
#include "ck_tile/core/numeric/integer.hpp"
#include "ck_tile/core/numeric/vector_type.hpp"
#include "ck_tile/core/utility/bit_cast.hpp"
#include "ck_tile/core/utility/functional.hpp"
