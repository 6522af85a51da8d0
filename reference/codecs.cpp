#include "reference/codecs.h"

#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <algorithm>

namespace tp::ref {
namespace {

struct format_desc {
  int ebits, mbits, bias;
  bool has_inf;            // false: E4M3 (only S.1111.111 is special)
  std::uint32_t max_code;  // largest finite magnitude code
  std::uint32_t inf_code;  // unused when !has_inf
  std::uint32_t nan_code;  // the quiet NaN produced by encode
};

constexpr format_desc desc(fp_format f) {
  switch (f) {
    case fp_format::fp16: return {5, 10, 15, true, 0x7BFF, 0x7C00, 0x7E00};
    case fp_format::bf16: return {8, 7, 127, true, 0x7F7F, 0x7F80, 0x7FC0};
    case fp_format::fp8_e4m3: return {4, 3, 7, false, 0x7E, 0, 0x7F};
    case fp_format::fp8_e5m2: return {5, 2, 15, true, 0x7B, 0x7C, 0x7E};
  }
  return {0, 0, 0, false, 0, 0, 0};
}

double decode_desc(const format_desc& d, std::uint32_t code) {
  const std::uint32_t emask = (1u << d.ebits) - 1, mmask = (1u << d.mbits) - 1;
  const bool neg = (code >> (d.ebits + d.mbits)) & 1u;
  const std::uint32_t e = (code >> d.mbits) & emask, m = code & mmask;
  double v;
  if (e == emask && (d.has_inf || m == mmask)) {
    v = (d.has_inf && m == 0) ? std::numeric_limits<double>::infinity() : std::numeric_limits<double>::quiet_NaN();
  } else if (e == 0) {
    v = std::ldexp(static_cast<double>(m), 1 - d.bias - d.mbits);
  } else {
    v = std::ldexp(static_cast<double>((1u << d.mbits) + m), static_cast<int>(e) - d.bias - d.mbits);
  }
  return neg ? -v : v;
}

// q >= 0 with q < 2^53: round half to even without depending on the floating-point environment.
double round_half_even(double q) {
  const double fl = std::floor(q);
  const double frac = q - fl;
  if (frac > 0.5) return fl + 1.0;
  if (frac < 0.5) return fl;
  return std::fmod(fl, 2.0) == 0.0 ? fl : fl + 1.0;
}

std::uint32_t encode_desc(const format_desc& d, double x, bool saturate) {
  const std::uint32_t sign = std::signbit(x) ? (1u << (d.ebits + d.mbits)) : 0u;
  const std::uint32_t overflow_code = saturate ? d.max_code : (d.has_inf ? d.inf_code : d.nan_code);
  if (std::isnan(x)) return sign | d.nan_code;
  if (std::isinf(x)) return sign | overflow_code;
  const double a = std::fabs(x);
  if (a == 0.0) return sign;

  int e2 = 0;
  std::frexp(a, &e2);  // a = f·2^e2, f in [0.5, 1): unbiased exponent e2 - 1
  const int emin = 1 - d.bias;
  int qexp = std::max(e2 - 1, emin) - d.mbits;  // exponent of one unit in the last place
  double q = round_half_even(std::ldexp(a, -qexp));
  if (q == 0.0) return sign;
  const double implicit = std::ldexp(1.0, d.mbits);
  if (q >= 2.0 * implicit) {  // rounding carried into the next binade: q == 2^(mbits+1) exactly
    q /= 2.0;
    ++qexp;
  }
  std::int64_t efield;
  std::uint32_t mfield;
  if (q >= implicit) {
    efield = static_cast<std::int64_t>(qexp) + d.mbits + d.bias;
    mfield = static_cast<std::uint32_t>(q - implicit);
  } else {
    efield = 0;
    mfield = static_cast<std::uint32_t>(q);
  }
  const std::int64_t max_e = d.max_code >> d.mbits;
  const std::uint32_t max_m = d.max_code & ((1u << d.mbits) - 1);
  if (efield > max_e || (efield == max_e && mfield > max_m)) return sign | overflow_code;
  return sign | static_cast<std::uint32_t>(efield << d.mbits) | mfield;
}

}  // namespace

std::string_view to_string(fp_format f) {
  switch (f) {
    case fp_format::fp16: return "fp16";
    case fp_format::bf16: return "bf16";
    case fp_format::fp8_e4m3: return "fp8_e4m3";
    case fp_format::fp8_e5m2: return "fp8_e5m2";
  }
  return "?";
}

double fp16_to_double(std::uint16_t c) { return decode_desc(desc(fp_format::fp16), c); }
double bf16_to_double(std::uint16_t c) { return decode_desc(desc(fp_format::bf16), c); }
double fp8_e4m3_to_double(std::uint8_t c) { return decode_desc(desc(fp_format::fp8_e4m3), c); }
double fp8_e5m2_to_double(std::uint8_t c) { return decode_desc(desc(fp_format::fp8_e5m2), c); }

std::uint16_t double_to_fp16(double x, bool sat) {
  return static_cast<std::uint16_t>(encode_desc(desc(fp_format::fp16), x, sat));
}
std::uint16_t double_to_bf16(double x, bool sat) {
  return static_cast<std::uint16_t>(encode_desc(desc(fp_format::bf16), x, sat));
}
std::uint8_t double_to_fp8_e4m3(double x, bool sat) {
  return static_cast<std::uint8_t>(encode_desc(desc(fp_format::fp8_e4m3), x, sat));
}
std::uint8_t double_to_fp8_e5m2(double x, bool sat) {
  return static_cast<std::uint8_t>(encode_desc(desc(fp_format::fp8_e5m2), x, sat));
}

double decode(fp_format f, std::uint32_t code) {
  const auto d = desc(f);
  const int bits = 1 + d.ebits + d.mbits;
  if (bits < 32 && (code >> bits) != 0)
    throw std::invalid_argument(std::string("decode: code does not fit in ") + std::to_string(bits) + " bits of " +
                                std::string(to_string(f)));
  return decode_desc(d, code);
}
std::uint32_t encode(fp_format f, double x, bool saturate) { return encode_desc(desc(f), x, saturate); }

bool is_nan_code(fp_format f, std::uint32_t code) { return std::isnan(decode(f, code)); }
bool is_inf_code(fp_format f, std::uint32_t code) { return std::isinf(decode(f, code)); }
double max_finite(fp_format f) { return decode_desc(desc(f), desc(f).max_code); }
double unit_roundoff(fp_format f) { return std::ldexp(1.0, -(desc(f).mbits + 1)); }
double min_subnormal(fp_format f) { return std::ldexp(1.0, 1 - desc(f).bias - desc(f).mbits); }

std::vector<double> decode_all(fp_format f, std::span<const std::uint16_t> codes) {
  std::vector<double> v(codes.size());
  for (std::size_t i = 0; i < codes.size(); ++i) v[i] = decode(f, codes[i]);
  return v;
}
std::vector<double> decode_all(fp_format f, std::span<const std::uint8_t> codes) {
  std::vector<double> v(codes.size());
  for (std::size_t i = 0; i < codes.size(); ++i) v[i] = decode(f, codes[i]);
  return v;
}

}  // namespace tp::ref
