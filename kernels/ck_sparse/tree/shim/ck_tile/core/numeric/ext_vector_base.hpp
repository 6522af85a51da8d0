// Host stand-in for ck_tile/core/numeric/ext_vector_base.hpp (see ../config.hpp). Upstream it holds the base of
// ck_tile's vector wrappers, which sparse_transforms.hpp does not name; ext_vector_t is in vector_type.hpp.
#pragma once

#include "ck_tile/core/numeric/integer.hpp"
