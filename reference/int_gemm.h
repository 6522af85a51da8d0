// Exact integer GEMM, the oracle for the iu8 / iu4 SWMMAC paths: D = C + A·B with int64 accumulation, so the
// reference never wraps; wrap_int32 then models the hardware's 32-bit accumulator (clamp is unverified, see
// docs/bugs/gfx12-swmmac.md §10 Q1, so no saturating variant is offered here). Also the fp64 GEMM used as the oracle
// for fp8/fp16/bf16 paths, whose logical values are exact in double.
#pragma once

#include <cstdint>

#include "reference/matrix.h"

namespace tp::ref {

// A is M x K, B is K x N (any layout); result M x N row-major.
matrix<std::int64_t> int8_gemm(matrix_view<std::int8_t> a, matrix_view<std::int8_t> b);
// int4 logical values, one per int8 element; every element must be in [-8, 7] (std::invalid_argument otherwise,
// naming the operand and the position), because a value outside that range means the caller decoded wrongly.
matrix<std::int64_t> int4_gemm(matrix_view<std::int8_t> a, matrix_view<std::int8_t> b);
// Mixed int8 A / int4 B and any other int8-stored combination without a range check.
matrix<std::int64_t> int_gemm(matrix_view<std::int8_t> a, matrix_view<std::int8_t> b);
// D = C + A·B, C M x N int32 (the accumulator input of the instruction).
matrix<std::int64_t> int_gemm(matrix_view<std::int8_t> a, matrix_view<std::int8_t> b, matrix_view<std::int32_t> c);

// Two's-complement wrap to 32 bits: what a 32-bit accumulator without clamp holds.
constexpr std::int32_t wrap_int32(std::int64_t v) {
  return static_cast<std::int32_t>(static_cast<std::uint32_t>(static_cast<std::uint64_t>(v)));
}
matrix<std::int32_t> wrap_int32(const matrix<std::int64_t>& m);
// True when every element fits in int32, i.e. when wrapping changes nothing.
bool fits_int32(const matrix<std::int64_t>& m);

// fp64 GEMM of logical values (decode fp8/fp16/bf16 with codecs.h first). Products of two fp16 / fp8 / bf16
// values are exact in double and K <= 2^20 sums of them lose at most K·2^-53 relative; callers may treat the
// result as exact for the bounds they derive.
matrix<double> float_gemm(matrix_view<double> a, matrix_view<double> b);
matrix<double> float_gemm(matrix_view<float> a, matrix_view<float> b);
// Σ_k |a_ik|·|b_kj|: the magnitude a float accumulation error bound scales with (γ_K · Σ|a||b|).
matrix<double> float_gemm_abs(matrix_view<double> a, matrix_view<double> b);
// Both at once (the same values as the two calls above, bit for bit), for callers that need D and its bound.
struct gemm_with_magnitude {
  matrix<double> d, magnitude;
};
gemm_with_magnitude float_gemm_with_abs(matrix_view<double> a, matrix_view<double> b);

}  // namespace tp::ref
