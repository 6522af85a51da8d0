// Gap: HIP 5.2.3 has no <hip/hip_bf16.h> (ROCm 6 added it); the tree's vendors/hip.h includes it and aliases
// nv_bfloat16 / nv_bfloat162 to its __hip_bfloat16 / __hip_bfloat162. The flash-attention path tileprobe runs is f16;
// bf16 appears in templates the tree's headers instantiate anyway (convert.cuh's generic conversion, the tail kernel's
// bf16 forms). The two conversions are exact IEEE binary32 <-> bfloat16 (the high half of the float's bits), rounding
// to nearest even, NaN kept quiet: what __float2bfloat16 / __bfloat162float mean in ROCm and CUDA.
#pragma once

#include <hip/hip_runtime.h>

struct __hip_bfloat16 {
  unsigned short data;
};
struct __hip_bfloat162 {
  __hip_bfloat16 x, y;
};

__host__ __device__ inline float __bfloat162float(__hip_bfloat16 b) {
  const unsigned bits = unsigned(b.data) << 16;
  float f;
  __builtin_memcpy(&f, &bits, sizeof f);
  return f;
}

__host__ __device__ inline __hip_bfloat16 __float2bfloat16(float f) {
  unsigned bits;
  __builtin_memcpy(&bits, &f, sizeof bits);
  if ((bits & 0x7fffffffu) > 0x7f800000u) return {static_cast<unsigned short>((bits >> 16) | 0x0040u)};  // quiet NaN
  bits += 0x7fffu + ((bits >> 16) & 1u);  // round to nearest, ties to the even bfloat16
  return {static_cast<unsigned short>(bits >> 16)};
}
