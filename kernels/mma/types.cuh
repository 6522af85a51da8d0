// Register vectors of the matrix instructions, as plain structs so that one kernel source compiles on every backend.
// Element i of a struct is what the builtin's ext_vector_type element i would be: one VGPR per 32-bit element, and
// for 16-bit operands two elements per VGPR, element 2r in bits [15:0] of VGPR r. f16/bf16 travel as raw bit
// patterns (uint16_t) because the CPU and CUDA backends have no common 16-bit float type for device code.
#pragma once
#include "simt/simt.h"

namespace tp::mma {

struct v2i { int32_t v[2]; };
struct v4i { int32_t v[4]; };
struct v8i { int32_t v[8]; };
struct v4f { float v[4]; };
struct v8f { float v[8]; };
struct v4h { uint16_t v[4]; };     // f16 bits
struct v8h { uint16_t v[8]; };     // f16 bits
struct v16h { uint16_t v[16]; };   // f16 bits
struct v8bf { uint16_t v[8]; };    // bf16 bits
struct v16bf { uint16_t v[16]; };  // bf16 bits

}  // namespace tp::mma
