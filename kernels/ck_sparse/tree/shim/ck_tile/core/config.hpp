// tileprobe's host stand-in for ck_tile/core/config.hpp: only what sparse_transforms.hpp uses. Written by us from what
// the names mean in composable_kernel (include/ck_tile/core/config.hpp, ROCm/composable_kernel@96c39b331e2b), so that a
// user's sparse_transforms.hpp compiles as plain host C++ (clang: ext_vector_type, _BitInt, _Float16).
#pragma once

// Upstream, config.hpp includes hip/hip_runtime.h, which brings in much of the standard library: the int32-idx
// generations of sparse_transforms.hpp call std::launder without including <new> themselves.
#include <new>

// Device qualifiers become nothing: the functions run on the host, as ordinary inline code.
#define CK_TILE_HOST inline
#define CK_TILE_DEVICE inline
#define CK_TILE_HOST_DEVICE inline

// CK's default build leaves this 0: fp8_t is then the raw _BitInt(8), not a class with a decoding conversion. That
// choice decides what `static_cast<float>(a) != 0.0f` tests (numeric/float8.hpp), so it is a build option here too.
#ifndef CK_TILE_USE_CUSTOM_DATA_TYPE
#define CK_TILE_USE_CUSTOM_DATA_TYPE 0
#endif

// pk_int4_t's logical element 0 is the HIGH nibble (on by default upstream); the shim states it, nothing reads it.
#ifndef CK_TILE_USE_PK4_LAYOUT_SHUFFLE
#define CK_TILE_USE_PK4_LAYOUT_SHUFFLE 1
#endif
