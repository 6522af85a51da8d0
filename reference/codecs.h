// Exact decode and round-to-nearest-even encode of the narrow float formats the kernels use.
//
//   format     bits  exp bias mant  max finite          inf          NaN codes
//   fp16       16    5   15   10    65504  (0x7BFF)     0x7C00       exp all ones, mantissa != 0
//   bf16       16    8   127  7     3.3895e38 (0x7F7F)  0x7F80       exp all ones, mantissa != 0
//   fp8 E4M3   8     4   7    3     448    (0x7E)       none (OCP)   S.1111.111 only (0x7F, 0xFF)
//   fp8 E5M2   8     5   15   2     57344  (0x7B)       0x7C         S.11111.{01,10,11}
//
// Every code decodes exactly to float and to double (all of these values are representable in binary32).
// Subnormals (exp field 0) decode as mant·2^(1-bias-mbits); -0 decodes to -0.0.
//
// Encoding (from double, and from float by exact widening: both give the same code) rounds to nearest, ties to
// even, with unbounded exponent range first and the overflow decision after rounding, so a value overflows only
// if it rounds to a magnitude above max finite. E.g. E4M3: 464 (the tie between 448 and 480) rounds to 448 (even
// mantissa), 464.0001 overflows. Results below the smallest subnormal round to +-0 (sign kept) or to the smallest
// subnormal by the same RNE rule.
// Overflow, and infinite inputs:
//   saturate = false: fp16/bf16/E5M2 -> +-inf;  E4M3 (no inf) -> NaN (S.1111.111), +-inf input also -> NaN.
//   saturate = true:  every format -> +-max finite, +-inf input too (like CUDA's __NV_SATFINITE).
// NaN input -> the format's quiet NaN with the input's sign: fp16 0x7E00, bf16 0x7FC0, E4M3 0x7F, E5M2 0x7E (|0x80..).
#pragma once

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

namespace tp::ref {

enum class fp_format { fp16, bf16, fp8_e4m3, fp8_e5m2 };
std::string_view to_string(fp_format f);

double fp16_to_double(std::uint16_t code);
double bf16_to_double(std::uint16_t code);
double fp8_e4m3_to_double(std::uint8_t code);
double fp8_e5m2_to_double(std::uint8_t code);
inline float fp16_to_float(std::uint16_t c) { return static_cast<float>(fp16_to_double(c)); }
inline float bf16_to_float(std::uint16_t c) { return static_cast<float>(bf16_to_double(c)); }
inline float fp8_e4m3_to_float(std::uint8_t c) { return static_cast<float>(fp8_e4m3_to_double(c)); }
inline float fp8_e5m2_to_float(std::uint8_t c) { return static_cast<float>(fp8_e5m2_to_double(c)); }

std::uint16_t double_to_fp16(double x, bool saturate = false);
std::uint16_t double_to_bf16(double x, bool saturate = false);
std::uint8_t double_to_fp8_e4m3(double x, bool saturate = false);
std::uint8_t double_to_fp8_e5m2(double x, bool saturate = false);
inline std::uint16_t float_to_fp16(float x, bool saturate = false) { return double_to_fp16(x, saturate); }
inline std::uint16_t float_to_bf16(float x, bool saturate = false) { return double_to_bf16(x, saturate); }
inline std::uint8_t float_to_fp8_e4m3(float x, bool saturate = false) { return double_to_fp8_e4m3(x, saturate); }
inline std::uint8_t float_to_fp8_e5m2(float x, bool saturate = false) { return double_to_fp8_e5m2(x, saturate); }

// Generic forms; codes are carried in a uint32_t (fp8 codes use the low 8 bits).
double decode(fp_format f, std::uint32_t code);
std::uint32_t encode(fp_format f, double x, bool saturate = false);
bool is_nan_code(fp_format f, std::uint32_t code);
bool is_inf_code(fp_format f, std::uint32_t code);
double max_finite(fp_format f);
// Unit roundoff u = 2^-(mbits+1): |encode(x) - x| <= u·|x| for normal-range x (spec bounds are built from it).
double unit_roundoff(fp_format f);
// Smallest positive subnormal: the absolute rounding error below the normal range is at most half of it.
double min_subnormal(fp_format f);

// Whole-buffer decode, e.g. a fixture tile of codes into logical values for float_gemm / attention.
std::vector<double> decode_all(fp_format f, std::span<const std::uint16_t> codes);
std::vector<double> decode_all(fp_format f, std::span<const std::uint8_t> codes);

}  // namespace tp::ref
