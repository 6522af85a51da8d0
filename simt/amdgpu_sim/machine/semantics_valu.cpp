// Vector ALU: VOP1, VOP2, VOP3, VOP3P, VOPC (RDNA3 and RDNA4 ISA guides, chapter 7 "Vector ALU Operations" and
// chapter 16's opcode tables, cited per row). Every handler executes the whole wave: it computes all 32 lanes and keeps
// the old value where EXEC is 0 (the lanes EXEC masks off are not written, RDNA3/RDNA4 §3.2.2 "EXECute Mask"); lane
// masks written to SGPRs (VOPC, carry-outs) have 0 for inactive lanes.
//
// Floating point: IEEE-754 binary16/32/64, round to nearest even (the only FLOAT_ROUND_MODE the loader accepts),
// denormals kept (the only FLOAT_DENORM_MODE it accepts), computed by the host's arithmetic of the same format (the
// library builds with -ffp-contract=off, so a*b+c is never fused where the ISA rounds twice). NaN payloads are
// whatever the host produces; the probes compare NaN by class, not by payload.
#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>

#include "simt/amdgpu_sim/machine/host_isa.h"
#include "simt/amdgpu_sim/machine/instruction.h"
#include "simt/amdgpu_sim/machine/wave.h"

namespace tp::amdgpu_sim::machine::TP_SIM_HOST_LEVEL {
TP_SIM_HOST_CODE_BEGIN
namespace {

using f16_t = _Float16;
inline f16_t h(uint32_t b) { return std::bit_cast<f16_t>(uint16_t(b)); }
inline uint32_t hbits(f16_t x) { return std::bit_cast<uint16_t>(x); }

inline float clamp01(float x) { return std::isnan(x) ? 0.0f : std::fmin(std::fmax(x, 0.0f), 1.0f); }

// ---- the lane loops --------------------------------------------------------------------------------------------
// Writes r(l) to the lanes EXEC selects (every lane computes).
template <typename F>
inline void lanes32(wave& w, const op& o, F r) {
  uint32_t* d = vdst(w, o.dst[0]);
  const uint32_t e = w.exec();
  for (unsigned l = 0; l < wave_lanes; ++l) {
    const uint32_t v = r(l);
    d[l] = ((e >> l) & 1u) ? v : d[l];
  }
}
template <typename F>
inline void lanes64(wave& w, const op& o, F r) {
  uint32_t* lo = vdst(w, o.dst[0], 0);
  uint32_t* hi = vdst(w, o.dst[0], 1);
  const uint32_t e = w.exec();
  for (unsigned l = 0; l < wave_lanes; ++l) {
    if (!((e >> l) & 1u)) continue;
    const uint64_t v = r(l);
    lo[l] = uint32_t(v);
    hi[l] = uint32_t(v >> 32);
  }
}
// 16-bit results go to the low half; the high half keeps its value (RDNA3 §7.4 "16-bit Math and VGPRs": without
// op_sel the destination's other half is preserved).
template <typename F>
inline void lanes16(wave& w, const op& o, F r) {
  uint32_t* d = vdst(w, o.dst[0]);
  const uint32_t e = w.exec();
  for (unsigned l = 0; l < wave_lanes; ++l) {
    const uint32_t v = (d[l] & 0xffff0000u) | (r(l) & 0xffffu);
    d[l] = ((e >> l) & 1u) ? v : d[l];
  }
}

// Lane loops the host compiler vectorizes: a source is a VGPR row (stride 1) or one value for every lane (an SGPR or
// a constant, stride 0), and the stride is a template argument chosen per execution from the operands; the results go
// to a local row first (no aliasing with the sources), then to the lanes EXEC selects.
template <unsigned SA, unsigned SB, unsigned SC, typename F>
inline void map32_strided(uint32_t* d, uint32_t e, const uint32_t* a, const uint32_t* b, const uint32_t* c, F f) {
  uint32_t r[wave_lanes];
  for (unsigned l = 0; l < wave_lanes; ++l) r[l] = f(a[l * SA], b[l * SB], c[l * SC]);
  if (e == 0xffffffffu) {
    std::memcpy(d, r, sizeof r);
    return;
  }
  for (unsigned l = 0; l < wave_lanes; ++l) d[l] = (e & lane_bits[l]) ? r[l] : d[l];
}
template <typename F>
inline void map32(wave& w, const op& o, unsigned nsrc, F f) {
  const lane_ref A = read(w, o.src[0]);
  const lane_ref B = nsrc > 1 ? read(w, o.src[1]) : A;
  const lane_ref C = nsrc > 2 ? read(w, o.src[2]) : A;
  uint32_t* d = vdst(w, o.dst[0]);
  const uint32_t e = w.exec();
  switch ((A.stride ? 4u : 0u) | (B.stride ? 2u : 0u) | (C.stride ? 1u : 0u)) {
    case 0: return map32_strided<0, 0, 0>(d, e, A.p, B.p, C.p, f);
    case 1: return map32_strided<0, 0, 1>(d, e, A.p, B.p, C.p, f);
    case 2: return map32_strided<0, 1, 0>(d, e, A.p, B.p, C.p, f);
    case 3: return map32_strided<0, 1, 1>(d, e, A.p, B.p, C.p, f);
    case 4: return map32_strided<1, 0, 0>(d, e, A.p, B.p, C.p, f);
    case 5: return map32_strided<1, 0, 1>(d, e, A.p, B.p, C.p, f);
    case 6: return map32_strided<1, 1, 0>(d, e, A.p, B.p, C.p, f);
    default: return map32_strided<1, 1, 1>(d, e, A.p, B.p, C.p, f);
  }
}

// The body of an N-source operation, called with N arguments.
template <unsigned N, class F, class T>
inline auto call(T a, T b, T c) {
  if constexpr (N == 1) return F{}(a);
  else if constexpr (N == 2) return F{}(a, b);
  else return F{}(a, b, c);
}

// Integer (untyped) 32-bit operations: D = f(S0[, S1[, S2]]).
template <unsigned N, class F>
void run_u32(wave& w, const op& o) {
  map32(w, o, N, [](uint32_t a, uint32_t b, uint32_t c) -> uint32_t { return call<N, F>(a, b, c); });
}
template <class F>
constexpr handler u32_1(F) { return &run_u32<1, F>; }
template <class F>
constexpr handler u32_2(F) { return &run_u32<2, F>; }
template <class F>
constexpr handler u32_3(F) { return &run_u32<3, F>; }

// Shifts whose amount (source AMT) is an SGPR or a constant, most of the ck kernels' shifts, use one shift count for
// the whole row: the host has a vector shift by a scalar count on every x86-64, but per-lane counts only from AVX2 on,
// so the per-lane form stays scalar. Both call the body with the count (low 5 bits of the amount operand).
template <unsigned N, unsigned AMT, class F>
void run_shift32(wave& w, const op& o) {
  if (o.src[AMT].kind != opnd::vgpr) {
    const uint32_t s = read(w, o.src[AMT])[0] & 31;
    map32(w, o, N, [s](uint32_t a, uint32_t b, uint32_t c) -> uint32_t { return F{}(a, b, c, s); });
    return;
  }
  map32(w, o, N, [](uint32_t a, uint32_t b, uint32_t c) -> uint32_t {
    const uint32_t x[3] = {a, b, c};
    return F{}(a, b, c, x[AMT] & 31);
  });
}
template <unsigned N, unsigned AMT, class F>
constexpr handler shift32(F) { return &run_shift32<N, AMT, F>; }

// 16-bit integer operations on the low halves; the destination's high half is kept (lanes16's rule): map32_strided
// computes r(a, b, old destination).
template <class F>
void run_u16_2(wave& w, const op& o) {
  const lane_ref A = read(w, o.src[0]), B = read(w, o.src[1]);
  uint32_t* d = vdst(w, o.dst[0]);
  const uint32_t e = w.exec();
  const auto g = [](uint32_t a, uint32_t b, uint32_t old) -> uint32_t {
    return (old & 0xffff0000u) | (uint32_t(F{}(uint16_t(a), uint16_t(b))) & 0xffffu);
  };
  switch ((A.stride ? 2u : 0u) | (B.stride ? 1u : 0u)) {
    case 0: return map32_strided<0, 0, 1>(d, e, A.p, B.p, d, g);
    case 1: return map32_strided<0, 1, 1>(d, e, A.p, B.p, d, g);
    case 2: return map32_strided<1, 0, 1>(d, e, A.p, B.p, d, g);
    default: return map32_strided<1, 1, 1>(d, e, A.p, B.p, d, g);
  }
}
template <class F>
constexpr handler u16_2(F) { return &run_u16_2<F>; }

// The float source modifiers as and/xor masks on the bits (mod32: abs clears the sign, then neg flips it), so the
// modified (VOP3) forms take the same vectorized loop.
struct sign_mask {
  uint32_t and_m, xor_m;
  explicit sign_mask(uint8_t m) : and_m((m & mod_abs) ? 0x7fffffffu : ~0u), xor_m((m & mod_neg) ? 0x80000000u : 0u) {}
  uint32_t operator()(uint32_t x) const { return (x & and_m) ^ xor_m; }
};

// f32 operations with neg/abs per source and the clamp modifier (clamp to [0, 1], NaN to 0): `body` takes the
// modified source bits and gives the result's. Without clamp (nearly every one executed) the vectorized loop; with it
// the same body per lane, then the clamp.
template <unsigned N, class Body>
void run_f32_modified(wave& w, const op& o, Body body) {
  const sign_mask ma(o.src[0].mods), mb(o.src[N > 1 ? 1 : 0].mods), mc(o.src[N > 2 ? 2 : 0].mods);
  const auto f = [=](uint32_t a, uint32_t b, uint32_t c) -> uint32_t { return body(ma(a), mb(b), mc(c)); };
  if (!o.clamp) return map32(w, o, N, f);
  const lane_ref A = read(w, o.src[0]), B = read(w, o.src[N > 1 ? 1 : 0]), C = read(w, o.src[N > 2 ? 2 : 0]);
  lanes32(w, o, [&](unsigned l) -> uint32_t { return bits(clamp01(f32(f(A[l], B[l], C[l])))); });
}
// D = f(S0[, S1[, S2]]) on floats.
template <unsigned N, class F>
void run_f32(wave& w, const op& o) {
  run_f32_modified<N>(w, o, [](uint32_t a, uint32_t b, uint32_t c) -> uint32_t {
    return bits(call<N, F>(f32(a), f32(b), f32(c)));
  });
}
template <class F>
constexpr handler f32_1(F) { return &run_f32<1, F>; }
template <class F>
constexpr handler f32_2(F) { return &run_f32<2, F>; }
template <class F>
constexpr handler f32_3(F) { return &run_f32<3, F>; }

// f32 operations defined on the bits (gfx11's IEEE-mode min/max): the body takes and returns the modified bits.
template <unsigned N, class F>
void run_f32_bits(wave& w, const op& o) {
  run_f32_modified<N>(w, o, [](uint32_t a, uint32_t b, uint32_t c) -> uint32_t { return call<N, F>(a, b, c); });
}
template <class F>
constexpr handler f32_bits_2(F) { return &run_f32_bits<2, F>; }
template <class F>
constexpr handler f32_bits_3(F) { return &run_f32_bits<3, F>; }

// f64 operations D = f(S0[, S1[, S2]]) with neg/abs per source.
template <unsigned N, class F>
void run_f64(wave& w, const op& o) {
  const uint8_t ma = o.src[0].mods, mb = o.src[1].mods, mc = o.src[2].mods;
  lanes64(w, o, [&](unsigned l) -> uint64_t {
    const double a = f64(mod64(read64(w, o.src[0], l), ma));
    const double b = N > 1 ? f64(mod64(read64(w, o.src[1], l), mb)) : 0.0;
    const double c = N > 2 ? f64(mod64(read64(w, o.src[2], l), mc)) : 0.0;
    return bits(double(call<N, F>(a, b, c)));
  });
}
template <class F>
constexpr handler f64_2(F) { return &run_f64<2, F>; }
template <class F>
constexpr handler f64_3(F) { return &run_f64<3, F>; }

// Conversions with one 32-bit source and a 32-bit result where the source is a float (neg/abs apply) or an integer.
template <class F>
void run_from_f32(wave& w, const op& o) {
  const lane_ref A = read(w, o.src[0]);
  const uint8_t ma = o.src[0].mods;
  lanes32(w, o, [&](unsigned l) -> uint32_t { return F{}(f32(mod32(A[l], ma))); });
}
template <class F>
constexpr handler from_f32(F) { return &run_from_f32<F>; }
// One 64-bit source (neg/abs apply to a float one) -> 32-bit result.
template <class F>
void run_from_f64(wave& w, const op& o) {
  const uint8_t ma = o.src[0].mods;
  lanes32(w, o, [&](unsigned l) -> uint32_t { return F{}(f64(mod64(read64(w, o.src[0], l), ma))); });
}
template <class F>
constexpr handler from_f64(F) { return &run_from_f64<F>; }
// One 32-bit source -> 64-bit result.
template <class F>
void run_to_64(wave& w, const op& o) {
  const lane_ref A = read(w, o.src[0]);
  const uint8_t ma = o.src[0].mods;
  lanes64(w, o, [&](unsigned l) -> uint64_t { return F{}(A[l], ma); });
}
template <class F>
constexpr handler to_64(F) { return &run_to_64<F>; }

// The scalar transcendental ops in the VALU (gfx12 v_s_*: SGPR in, SGPR out; RDNA4 §7.10 "Pseudo-scalar
// Transcendental ALU ops"; accuracy as for the vector forms).
template <class F>
void run_pseudo_scalar(wave& w, const op& o) {
  const float r = F{}(f32(mod32(read(w, o.src[0])[0], o.src[0].mods)));
  w.s[o.dst[0].reg] = bits(o.clamp ? clamp01(r) : r);
}
template <class F>
constexpr handler pseudo_scalar(F) { return &run_pseudo_scalar<F>; }

// Packed f16 operations (f_packed): each half of D is F of the sources' halves op_sel (low) and op_sel_hi (high)
// pick, neg_lo / neg_hi flipping their signs; clamp limits each half to [0, 1] (NaN to 0).
template <class F>
void run_pk_f16_2(wave& w, const op& o) {
  const lane_ref A = read(w, o.src[0]), B = read(w, o.src[1]);
  const auto half = [&](uint32_t x, unsigned src, uint8_t sel, uint8_t neg) -> f16_t {
    return h(((sel >> src) & 1u ? x >> 16 : x) ^ ((neg >> src) & 1u ? 0x8000u : 0u));
  };
  const auto result = [&](f16_t r) -> uint32_t {
    return hbits(o.clamp ? (r != r ? f16_t(0) : std::min(std::max(r, f16_t(0)), f16_t(1))) : r);
  };
  lanes32(w, o, [&](unsigned l) -> uint32_t {
    const f16_t lo = F{}(half(A[l], 0, o.op_sel, o.neg_lo), half(B[l], 1, o.op_sel, o.neg_lo));
    const f16_t hi = F{}(half(A[l], 0, o.op_sel_hi, o.neg_hi), half(B[l], 1, o.op_sel_hi, o.neg_hi));
    return result(lo) | result(hi) << 16;
  });
}
template <class F>
constexpr handler pk_f16_2(F) { return &run_pk_f16_2<F>; }

inline int32_t sext24(uint32_t x) { return int32_t(x << 8) >> 8; }
inline uint32_t bit_reverse(uint32_t x) {
  x = ((x >> 1) & 0x55555555u) | ((x & 0x55555555u) << 1);
  x = ((x >> 2) & 0x33333333u) | ((x & 0x33333333u) << 2);
  x = ((x >> 4) & 0x0f0f0f0fu) | ((x & 0x0f0f0f0fu) << 4);
  return __builtin_bswap32(x);
}

// ---- bodies that do not fit a lane loop above -----------------------------------------------------------------
// v_perm_b32: byte i of D = selector byte i applied to {S0, S1} (S1 is bytes 0-3): 0-7 pick a byte, 8-11 replicate
// the sign bit of bytes 1/3/5/7, 12 gives 0x00, 13-15 give 0xff.
inline uint32_t perm(uint32_t a, uint32_t b, uint32_t c) {
  const uint64_t in = (uint64_t(a) << 32) | b;
  uint32_t r = 0;
  for (unsigned i = 0; i < 4; ++i) {
    const unsigned sel = (c >> (8 * i)) & 0xffu;
    uint32_t byte;
    if (sel < 8) byte = uint32_t(in >> (8 * sel)) & 0xffu;
    else if (sel < 12) byte = ((in >> (16 * (sel - 8) + 15)) & 1u) ? 0xffu : 0u;
    else if (sel == 12) byte = 0;
    else byte = 0xffu;
    r |= byte << (8 * i);
  }
  return r;
}
// v_mbcnt_lo: the number of set bits of S0 below this lane, plus S1; wave32 has no lanes for the _hi half.
void v_mbcnt_lo_u32_b32(wave& w, const op& o) {
  const lane_ref A = read(w, o.src[0]), B = read(w, o.src[1]);
  lanes32(w, o, [&](unsigned l) -> uint32_t { return uint32_t(std::popcount(A[l] & ((1u << l) - 1u))) + B[l]; });
}
void v_mbcnt_hi_u32_b32(wave& w, const op& o) {
  const lane_ref B = read(w, o.src[1]);
  lanes32(w, o, [&](unsigned l) -> uint32_t { return B[l]; });
}
// v_cndmask_b32 D, S0, S1, mask: S1 where the lane's mask bit is set. Float neg/abs apply to S0/S1 (VOP3).
void v_cndmask_b32(wave& w, const op& o) {
  const uint32_t m = read(w, o.src[2])[0];
  // The select mask as a third "source" row: lane l's bit of m, spread to the whole word.
  uint32_t sel[wave_lanes];
  for (unsigned l = 0; l < wave_lanes; ++l) sel[l] = (m & lane_bits[l]) ? 0xffffffffu : 0u;
  const lane_ref A = read(w, o.src[0]), B = read(w, o.src[1]);
  const sign_mask ma(o.src[0].mods), mb(o.src[1].mods);
  uint32_t* d = vdst(w, o.dst[0]);
  const auto f = [=](uint32_t a, uint32_t b, uint32_t s) { return (mb(b) & s) | (ma(a) & ~s); };
  switch ((A.stride ? 2u : 0u) | (B.stride ? 1u : 0u)) {
    case 0: return map32_strided<0, 0, 1>(d, w.exec(), A.p, B.p, sel, f);
    case 1: return map32_strided<0, 1, 1>(d, w.exec(), A.p, B.p, sel, f);
    case 2: return map32_strided<1, 0, 1>(d, w.exec(), A.p, B.p, sel, f);
    default: return map32_strided<1, 1, 1>(d, w.exec(), A.p, B.p, sel, f);
  }
}

// ---- lane masks (carry-outs) -----------------------------------------------------------------------------------
inline void write_mask(wave& w, const operand& dst, uint32_t mask) { w.s[dst.reg] = mask; }

// v_add_co_u32 D, sdst, S0, S1: D = S0 + S1, carry into sdst's lane bit. sub: borrow = S1 > S0. ci forms add the
// lane's bit of the third source. Every lane computes (no branch per lane); EXEC selects what is written, and
// inactive lanes' carry bits are 0.
enum carry_kind { k_add, k_sub, k_subrev };
template <carry_kind K>
void add_co(wave& w, const op& o) {
  const lane_ref A = read(w, o.src[0]), B = read(w, o.src[1]);
  const uint32_t e = w.exec();
  uint32_t r[wave_lanes], c[wave_lanes];
  for (unsigned l = 0; l < wave_lanes; ++l) {
    uint32_t a = A[l], b = B[l];
    if (K == k_subrev) std::swap(a, b);
    if (K == k_add) {
      r[l] = a + b;
      c[l] = r[l] < a;  // carry out of the 32-bit add
    } else {
      r[l] = a - b;
      c[l] = b > a;  // borrow
    }
  }
  uint32_t carry = 0;
  for (unsigned l = 0; l < wave_lanes; ++l) carry |= c[l] << l;
  uint32_t* d = vdst(w, o.dst[0]);
  for (unsigned l = 0; l < wave_lanes; ++l) d[l] = (e & lane_bits[l]) ? r[l] : d[l];
  write_mask(w, o.dst[1], carry & e);
}
template <carry_kind K>
void add_co_ci(wave& w, const op& o) {
  const lane_ref A = read(w, o.src[0]), B = read(w, o.src[1]);
  const uint32_t cin = read(w, o.src[2])[0];
  const uint32_t e = w.exec();
  uint32_t r[wave_lanes], c[wave_lanes];
  for (unsigned l = 0; l < wave_lanes; ++l) {
    uint64_t a = A[l], b = B[l];
    if (K == k_subrev) std::swap(a, b);
    const uint64_t ci = (cin & lane_bits[l]) ? 1u : 0u;
    if (K == k_add) {
      const uint64_t sum = a + b + ci;
      r[l] = uint32_t(sum);
      c[l] = uint32_t(sum >> 32);
    } else {
      r[l] = uint32_t(a - b - ci);
      c[l] = b + ci > a;
    }
  }
  uint32_t carry = 0;
  for (unsigned l = 0; l < wave_lanes; ++l) carry |= c[l] << l;
  uint32_t* d = vdst(w, o.dst[0]);
  for (unsigned l = 0; l < wave_lanes; ++l) d[l] = (e & lane_bits[l]) ? r[l] : d[l];
  write_mask(w, o.dst[1], carry & e);
}
// v_mad_co_u64_u32 D64, sdst, S0, S1, S2_64: D = S0 * S1 + S2, carry out of the 64-bit add into sdst (the signed form:
// signed overflow of the 64-bit result).
template <bool is_signed>
void mad_co_64(wave& w, const op& o) {
  const lane_ref A = read(w, o.src[0]), B = read(w, o.src[1]);
  const uint32_t e = w.exec();
  uint32_t* lo = vdst(w, o.dst[0], 0);
  uint32_t* hi = vdst(w, o.dst[0], 1);
  uint32_t carry = 0;
  for (unsigned l = 0; l < wave_lanes; ++l) {
    if (!((e >> l) & 1u)) continue;
    const uint64_t c = read64(w, o.src[2], l);
    unsigned __int128 p;
    if (is_signed) {
      const __int128 sp = __int128(int64_t(int32_t(A[l])) * int64_t(int32_t(B[l]))) + __int128(int64_t(c));
      p = (unsigned __int128)sp;
      carry |= uint32_t(sp > __int128(std::numeric_limits<int64_t>::max()) ||
                        sp < __int128(std::numeric_limits<int64_t>::min()))
               << l;
    } else {
      p = (unsigned __int128)(uint64_t(A[l]) * B[l]) + c;
      carry |= uint32_t((p >> 64) != 0) << l;
    }
    lo[l] = uint32_t(p);
    hi[l] = uint32_t(uint64_t(p) >> 32);
  }
  write_mask(w, o.dst[1], carry);
}
// ---- 64-bit integer shifts: D = S1 (64-bit) shifted by S0[5:0] ----
template <class F>
void run_shift64(wave& w, const op& o) {
  const lane_ref A = read(w, o.src[0]);
  lanes64(w, o, [&](unsigned l) -> uint64_t { return F{}(read64(w, o.src[1], l), A[l] & 63); });
}
template <class F>
constexpr handler shift64(F) { return &run_shift64<F>; }

void v_illegal(wave& w, const op& o) { fail(w, o, "illegal instruction (v_illegal)"); }

// ---- cross-lane ---------------------------------------------------------------------------------------------------
// v_readfirstlane_b32 sD, vS: the first active lane's value (lane 0 when EXEC is 0).
void v_readfirstlane_b32(wave& w, const op& o) {
  const uint32_t e = w.exec();
  const unsigned l = e == 0 ? 0u : unsigned(std::countr_zero(e));
  w.s[o.dst[0].reg] = read(w, o.src[0])[l];
}
void v_readlane_b32(wave& w, const op& o) { w.s[o.dst[0].reg] = read(w, o.src[0])[read(w, o.src[1])[0] & 31u]; }
void v_writelane_b32(wave& w, const op& o) { vdst(w, o.dst[0])[read(w, o.src[1])[0] & 31u] = read(w, o.src[0])[0]; }
// v_movrels_b32 vD, vS: vD = VGPR[S + M0]; v_movreld_b32: VGPR[D + M0] = S; v_movrelsd: VGPR[D+M0] = VGPR[S+M0]
// (RDNA3 §7.8 "VGPR Indexing").
void check_rel(const wave& w, const op& o, uint32_t r) {
  if (r >= 256) fail(w, o, "relative VGPR index v" + std::to_string(r) + " (M0-relative) is outside the register file");
}
void v_movrels_b32(wave& w, const op& o) {
  const uint32_t r = o.src[0].reg + w.s[sreg::m0];
  check_rel(w, o, r);
  const uint32_t* s = w.v[r];
  lanes32(w, o, [&](unsigned l) { return s[l]; });
}
void v_movreld_b32(wave& w, const op& o) {
  const uint32_t r = o.dst[0].reg + w.s[sreg::m0];
  check_rel(w, o, r);
  const lane_ref A = read(w, o.src[0]);
  const uint32_t e = w.exec();
  for (unsigned l = 0; l < wave_lanes; ++l)
    if ((e >> l) & 1u) w.v[r][l] = A[l];
}
void v_movrelsd_b32(wave& w, const op& o) {
  const uint32_t rd = o.dst[0].reg + w.s[sreg::m0], rs = o.src[0].reg + w.s[sreg::m0];
  check_rel(w, o, rd);
  check_rel(w, o, rs);
  const uint32_t e = w.exec();
  for (unsigned l = 0; l < wave_lanes; ++l)
    if ((e >> l) & 1u) w.v[rd][l] = w.v[rs][l];
}

// ---- f32 --------------------------------------------------------------------------------------------------------
// gfx11 v_max_f32 / v_min_f32 (RDNA3 §16.7, V_MAX_F32 / V_MIN_F32, with WAVE_MODE.IEEE set, which the loader requires
// of gfx11 kernels): a signalling NaN operand gives that NaN quieted (S0 first); otherwise a quiet NaN operand gives
// the other operand; +0 > -0. (gfx12 renamed them v_max_num_f32 / v_min_num_f32 with IEEE 754-2019 rules.)
inline bool snan32(uint32_t x) { return (x & 0x7f800000u) == 0x7f800000u && (x & 0x007fffffu) && !(x & 0x00400000u); }
inline bool nan32(uint32_t x) { return (x & 0x7fffffffu) > 0x7f800000u; }
inline uint32_t ieee_max_min(uint32_t a, uint32_t b, bool max) {
  if (snan32(a)) return a | 0x00400000u;
  if (snan32(b)) return b | 0x00400000u;
  if (nan32(b)) return a;
  if (nan32(a)) return b;
  const float x = f32(a), y = f32(b);
  if (x == y) return max ? ((a >> 31) ? b : a) : ((a >> 31) ? a : b);  // equal, or +0 and -0: the sign decides
  return (max ? x > y : x < y) ? a : b;
}
// D = S0 * 2^S1 (S1 an integer).
void v_ldexp_f32(wave& w, const op& o) {
  const lane_ref A = read(w, o.src[0]), B = read(w, o.src[1]);
  const uint8_t ma = o.src[0].mods;
  const bool cl = o.clamp;
  lanes32(w, o, [&](unsigned l) -> uint32_t {
    const float r = std::ldexp(f32(mod32(A[l], ma)), int32_t(B[l]));
    return bits(cl ? clamp01(r) : r);
  });
}
// v_fmac_f32 D = S0 * S1 + D (VOP2; the VOPD half too).
void v_fmac_f32(wave& w, const op& o) {
  const lane_ref A = read(w, o.src[0]), B = read(w, o.src[1]);
  const uint32_t* D = vdst(w, o.dst[0]);
  const uint8_t ma = o.src[0].mods, mb = o.src[1].mods;
  lanes32(w, o, [&](unsigned l) -> uint32_t {
    return bits(std::fma(f32(mod32(A[l], ma)), f32(mod32(B[l], mb)), f32(D[l])));
  });
}

// v_fma_mix_f32 / v_fma_mixlo_f16 / v_fma_mixhi_f16 D, S0, S1, S2 (f_mix; RDNA3 and RDNA4 §16.10 "VOP3P
// Instructions", the same pseudocode in both): each source is widened exactly to binary32 (op_sel_hi bit i: the
// binary16 half op_sel bit i picks, else the binary32 word; neg/abs on the value), then fma(in[0], in[1], in[2]) rounds
// once to binary32; clamp limits it to [0, 1] (NaN to 0). mix_f32 writes that word; mixlo/mixhi convert it to
// binary16 (f32_to_f16, round to nearest even: a second rounding, as the guides' pseudocode writes it and as AMD's
// rocjitsu emulator computes it) into D's low / high half, the other half kept.
enum class mix_dst : uint8_t { f32, lo16, hi16 };
template <mix_dst D>
void v_fma_mix(wave& w, const op& o) {
  const lane_ref S[3] = {read(w, o.src[0]), read(w, o.src[1]), read(w, o.src[2])};
  const auto in = [&](unsigned i, unsigned l) { return mix_source(o, i, S[i][l]); };
  lanes32(w, o, [&](unsigned l) -> uint32_t {
    float r = std::fma(in(0, l), in(1, l), in(2, l));
    if (o.clamp) r = clamp01(r);
    const uint32_t old = vdst(w, o.dst[0])[l];
    if constexpr (D == mix_dst::f32) return bits(r);
    else if constexpr (D == mix_dst::lo16) return (old & 0xffff0000u) | hbits(f16_t(r));
    else return (old & 0xffffu) | hbits(f16_t(r)) << 16;
  });
}

// Float -> integer conversions saturate and send NaN to 0; integer -> float rounds to nearest even.
inline uint32_t cvt_u32(double f) {
  if (std::isnan(f) || f <= 0.0) return 0;
  if (f >= 4294967296.0) return 0xffffffffu;
  return uint32_t(f);
}
inline int32_t cvt_i32(double f) {
  if (std::isnan(f)) return 0;
  if (f <= -2147483648.0) return std::numeric_limits<int32_t>::min();
  if (f >= 2147483647.0) return std::numeric_limits<int32_t>::max();
  return int32_t(f);
}
void v_cvt_f32_f16(wave& w, const op& o) {
  const lane_ref A = read(w, o.src[0]);
  const uint8_t ma = o.src[0].mods;
  lanes32(w, o, [&](unsigned l) { return bits(float(h(mod16(uint16_t(A[l]), ma)))); });
}
void v_cvt_f16_f32(wave& w, const op& o) {
  const lane_ref A = read(w, o.src[0]);
  const uint8_t ma = o.src[0].mods;
  lanes16(w, o, [&](unsigned l) { return hbits(f16_t(f32(mod32(A[l], ma)))); });
}
void v_ldexp_f64(wave& w, const op& o) {
  const lane_ref B = read(w, o.src[1]);
  const uint8_t ma = o.src[0].mods;
  lanes64(w, o, [&](unsigned l) { return bits(std::ldexp(f64(mod64(read64(w, o.src[0], l), ma)), int32_t(B[l]))); });
}

// ---- f32 transcendentals (the VOP1 ops and gfx12's pseudo-scalar v_s_* forms; the table says why so) -----------
inline float flush_denormal(float x) { return std::fpclassify(x) == FP_SUBNORMAL ? std::copysign(0.0f, x) : x; }
inline float rcp_f32(float a) { return flush_denormal(float(1.0 / double(flush_denormal(a)))); }
inline float rsq_f32(float a) { return float(1.0 / std::sqrt(double(flush_denormal(a)))); }
inline float sqrt_f32(float a) { return std::sqrt(flush_denormal(a)); }
inline float exp_f32(float a) { return flush_denormal(float(std::exp2(double(flush_denormal(a))))); }
inline float log_f32(float a) { return float(std::log2(double(flush_denormal(a)))); }

// ---- f32 division helpers (RDNA3 and RDNA4 guides, VOP3SD V_DIV_SCALE_F32, VOP3 V_DIV_FMAS_F32 and V_DIV_FIXUP_F32;
// the two guides give the same pseudocode) -----------------------------------------------------------------------
// The compiler's correctly rounded f32 division (clang's default for HIP) is
//   D' = div_scale(D, D, N)   N' = div_scale(N, D, N) -> VCC
//   y = rcp(D'); e = fma(-D', y, 1); y = fma(e, y, y)                  (one Newton step on the reciprocal)
//   q = N' * y; r = fma(-D', q, N'); q = fma(r, y, q); r = fma(-D', q, N')
//   q = div_fmas(r, y, q) (VCC);  result = div_fixup(q, D, N)
// div_scale multiplies N and/or D by 2^+-64 so that no intermediate (the reciprocal included) leaves the normal range,
// and says in VCC when the quotient itself ends up scaled; div_fmas makes the last correction and undoes that scaling
// with one rounding; div_fixup supplies the IEEE results for zero, infinite and NaN operands and overflow.
//
// The guides' pseudocode cannot be taken literally: followed as printed, the sequence misrounds (2^127 / 0x1.fffffep127
// gives 0.5 instead of 0x1.000002p-1: 1/D is a binary32 denormal there, the guide's "1.0 / 64'F(S1) == DENORM.f64"
// test that should catch it can never hold for a binary32 S1, and the Newton step on a denormal reciprocal lacks the
// bits), div_fmas's "2^32" cannot undo a 2^64 pre-scale, and overflowing quotients come out NaN. The model uses the
// corrected rules that AMD's rocjitsu emulator (ROCm/rocm-systems, emulation/rocjitsu, amdgpu/shared/division.h)
// states were checked on gfx1100 and gfx1201 hardware; each difference from the guide is named where it is made.
//
// Why the result is correctly rounded although v_rcp_f32 is modelled as RN(1/x) (the guide promises 1 ULP): after
// div_scale, D' and 1/D' are normal. With y0 = RN(1/D'), e is exact and the Newton step keeps y = y0 (it moves 1/D' by
// e^2/D' <= 2^-48/D', less than the distance of 1/D' to any rounding midpoint), so y is within half an ULP of 1/D'; q is
// then within 1 ULP of N'/D', r is exact, and fma(r, y, q) = RN(N'/D') (Markstein's theorem), rounded once at the
// final exponent by div_fmas. So the model returns RN(N/D) for every operand pair. For an arbitrary 1-ULP reciprocal
// the bound is weaker: the Newton step then reaches RN(1/D') except when D's significand is all ones (the case
// Markstein's reciprocal theorem excludes), and a host emulation of this sequence with the reciprocal 1 ULP off
// returns 1 ULP too little there for power-of-two numerators (e.g. 2^119 / 0x1.fffffep118 gives 1.0, not
// 0x1.000002p0). Where the hardware's v_rcp_f32 is not correctly rounded for such a D, it may differ from the model
// (and from IEEE) by that 1 ULP; everywhere else both are RN(N/D). The machine tests check the model bit for bit
// against the host's division over operand classes that take every scaling path (tests/amdgpu_sim/machine).

inline int exponent_of(float x) { return int((bits(x) >> 23) & 0xffu); }  // the biased exponent field (0: zero/denormal)

// V_DIV_SCALE_F32 D, sdst, S0, S1 (denominator), S2 (numerator); S0 is S1 or S2. The result is S0 times 2^k and sdst
// gets the lanes whose quotient ends up scaled. The tests use the encoded exponents nd = exponent(S2) - exponent(S1):
//   nd >= 96                 the quotient nears the top: the denominator goes up 2^64; VCC 1        (guide: same)
//   exponent(S1) == 0        a denormal denominator: both go up 2^64, the quotient is unchanged    (guide: same)
//   exponent(S1) >= 253      |S1| >= 2^126, 1/S1 is a binary32 denormal: both go down 2^64; or, when nd <= -96 too,
//                            only the denominator does and VCC is 1         (guide: the unreachable DENORM.f64 tests)
//   nd <= -96                a tiny quotient: the numerator goes up 2^64; VCC 1  (guide: "S2 / S1 is a denormal")
//   exponent(S2) <= 24       a tiny numerator: both go up 2^64, so the remainder stays normal      (guide: <= 23)
// (An infinite or NaN denominator takes only the last test, VCC 0, as in the guide: div_fixup decides its result.)
// A zero operand gives a NaN (div_fixup decides the result) with VCC from the same tests (guide: VCC 0); an infinite or
// NaN S0 passes through, quieted. "S0 is the denominator" compares the bits (the guide compares the values; they differ
// only when S1 == S2, where no branch above tells the two apart).
void v_div_scale_f32(wave& w, const op& o) {
  if (o.clamp) fail(w, o, "clamp on v_div_scale_f32 is not modelled");
  const lane_ref S0 = read(w, o.src[0]), S1 = read(w, o.src[1]), S2 = read(w, o.src[2]);
  const uint8_t m0 = o.src[0].mods, m1 = o.src[1].mods, m2 = o.src[2].mods;
  const uint32_t e = w.exec();
  uint32_t* d = vdst(w, o.dst[0]);
  uint32_t vcc = 0;
  for (unsigned l = 0; l < wave_lanes; ++l) {
    if (!((e >> l) & 1u)) continue;
    const uint32_t s0 = mod32(S0[l], m0), den = mod32(S1[l], m1), num = mod32(S2[l], m2);
    const int de = exponent_of(f32(den)), ne = exponent_of(f32(num)), nd = ne - de;
    const bool is_den = s0 == den;
    int k = 0;
    bool scaled = false;
    if (nd >= 96) {
      scaled = true;
      k = is_den ? 64 : 0;
    } else if (de == 255) {
      k = ne <= 24 ? 64 : 0;  // an infinite or NaN denominator: no test of the guide's scales the quotient (VCC 0)
    } else if (de == 0) {
      k = 64;
    } else if (de >= 253) {
      scaled = nd <= -96;
      k = scaled && !is_den ? 0 : -64;
    } else if (nd <= -96) {
      scaled = true;
      k = is_den ? 0 : 64;
    } else if (ne <= 24) {
      k = 64;
    }
    uint32_t r;
    if ((den & 0x7fffffffu) == 0 || (num & 0x7fffffffu) == 0) r = 0xffc00000u;
    else if (nan32(s0)) r = s0 | 0x00400000u;
    else r = bits(std::ldexp(f32(s0), k));  // exact: no branch takes a value out of the normal range
    d[l] = r;
    vcc |= uint32_t(scaled) << l;
  }
  write_mask(w, o.dst[1], vcc);
}

// RN_binary32(2^k * (a*b + c)) with one rounding. a*b is exact in binary64; TwoSum splits a*b + c into s + t
// exactly; scaling both by 2^k is exact in binary64's range; s is then rounded to odd with t's sign (the exact value
// lies strictly between s and its neighbour on t's side), and round-to-odd in 53 bits followed by one rounding to
// 24 bits is the correct rounding of the exact value (Boldo and Melquiond, "Emulation of FMA and correctly rounded
// sums: proved algorithms using rounding to odd", 2008: p + 2 bits suffice), denormal results included.
inline float fma_scaled_once(float a, float b, float c, int k) {
  const double p = double(a) * double(b), cd = c;
  double s = p + cd;
  if (!std::isfinite(s)) return float(std::ldexp(s, k));  // inf or NaN operands: nothing to round
  const double bp = s - cd;
  double t = (p - bp) + (cd - (s - bp));
  s = std::ldexp(s, k);
  t = std::ldexp(t, k);
  if (t != 0 && (std::bit_cast<uint64_t>(s) & 1u) == 0) s = std::nextafter(s, t > 0 ? INFINITY : -INFINITY);
  return float(s);
}

// V_DIV_FMAS_F32 D, S0, S1, S2 with VCC: fma(S0, S1, S2), and for lanes with VCC set that value times 2^64 when
// exponent(S2) > 127 (|S2| >= 2), else times 2^-64, rounded once. The guides print a fixed factor of 2^32, which undoes
// no pre-scale; the direction follows from div_scale: a quotient scaled down (|N/D| >= 2^95, so S2, the scaled
// quotient, is >= 2^31) must go up, one scaled up (|N/D| < 2^-95, S2 < 2^-31) down. One rounding: a denormal
// quotient gets its one correct rounding here (rounding the fma first and then scaling would round twice).
void v_div_fmas_f32(wave& w, const op& o) {
  const uint32_t vcc = w.s[sreg::vcc_lo];
  const lane_ref A = read(w, o.src[0]), B = read(w, o.src[1]), C = read(w, o.src[2]);
  const uint8_t ma = o.src[0].mods, mb = o.src[1].mods, mc = o.src[2].mods;
  const bool cl = o.clamp;
  lanes32(w, o, [&](unsigned l) -> uint32_t {
    const float a = f32(mod32(A[l], ma)), b = f32(mod32(B[l], mb)), c = f32(mod32(C[l], mc));
    const float r = ((vcc >> l) & 1u) ? fma_scaled_once(a, b, c, exponent_of(c) > 127 ? 64 : -64) : std::fma(a, b, c);
    return bits(cl ? clamp01(r) : r);
  });
}

// V_DIV_FIXUP_F32 D, S0 (quotient), S1 (denominator), S2 (numerator), in the guide's order of cases. Two cases are
// read from what they must mean:
// - "exponent(S2) - exponent(S1) < -150" gives UNDERFLOW_F32: the quotient is below 2^-150 there, and
//   round-to-nearest takes it to a zero of the result's sign.
// - "exponent(S1) == 255" is unreachable as printed (an infinite or NaN S1 is decided by the cases before it); the
//   quotient S0 is what reaches exponent 255, when |N/D| >= 2^192 overflowed the scaled quotient into an infinity or a
//   NaN, and OVERFLOW_F32 (round-to-nearest: infinity of the result's sign) is the IEEE result there (the rocjitsu
//   rules above test S0 too).
void v_div_fixup_f32(wave& w, const op& o) {
  const lane_ref S0 = read(w, o.src[0]), S1 = read(w, o.src[1]), S2 = read(w, o.src[2]);
  const uint8_t m0 = o.src[0].mods, m1 = o.src[1].mods, m2 = o.src[2].mods;
  const bool cl = o.clamp;
  lanes32(w, o, [&](unsigned l) -> uint32_t {
    const float q = f32(mod32(S0[l], m0)), den = f32(mod32(S1[l], m1)), num = f32(mod32(S2[l], m2));
    const uint32_t sign = (std::signbit(den) != std::signbit(num)) ? 0x80000000u : 0u;
    uint32_t r;
    if (std::isnan(num)) r = bits(num) | 0x00400000u;  // the NaN, quieted
    else if (std::isnan(den)) r = bits(den) | 0x00400000u;
    else if ((den == 0 && num == 0) || (std::isinf(den) && std::isinf(num))) r = 0xffc00000u;
    else if (den == 0 || std::isinf(num)) r = sign | 0x7f800000u;
    else if (std::isinf(den) || num == 0) r = sign;
    else if (exponent_of(num) - exponent_of(den) < -150) r = sign;
    else if (exponent_of(q) == 255) r = sign | 0x7f800000u;
    else r = sign | (bits(q) & 0x7fffffffu);
    return cl ? bits(clamp01(f32(r))) : r;
  });
}

// ---- dot products -------------------------------------------------------------------------------------------------
// v_dot4_i32_iu8 D, A, B, C: D = C + the sum of the four byte products; neg_lo[0]/[1] say A/B are signed; clamp
// saturates the sum to int32.
void v_dot4_i32_iu8(wave& w, const op& o) {
  const lane_ref A = read(w, o.src[0]), B = read(w, o.src[1]), C = read(w, o.src[2]);
  const bool sa = o.neg_lo & 1u, sb = o.neg_lo & 2u, cl = o.clamp;
  lanes32(w, o, [&](unsigned l) -> uint32_t {
    int64_t s = int32_t(C[l]);
    for (unsigned k = 0; k < 4; ++k) {
      const uint32_t ab = (A[l] >> (8 * k)) & 0xffu, bb = (B[l] >> (8 * k)) & 0xffu;
      const int64_t av = sa ? int8_t(ab) : int64_t(ab), bv = sb ? int8_t(bb) : int64_t(bb);
      s += av * bv;
    }
    if (cl) s = std::clamp<int64_t>(s, std::numeric_limits<int32_t>::min(), std::numeric_limits<int32_t>::max());
    return uint32_t(s);
  });
}
// v_dot4_u32_u8 D, A, B, C: D = C + the four unsigned byte products, in u32; clamp saturates the sum to 0xffffffff
// instead of wrapping (VOP3P clamp on an integer result).
void v_dot4_u32_u8(wave& w, const op& o) {
  const lane_ref A = read(w, o.src[0]), B = read(w, o.src[1]), C = read(w, o.src[2]);
  const bool cl = o.clamp;
  lanes32(w, o, [&](unsigned l) -> uint32_t {
    uint64_t s = C[l];
    for (unsigned k = 0; k < 4; ++k) s += uint64_t((A[l] >> (8 * k)) & 0xffu) * ((B[l] >> (8 * k)) & 0xffu);
    return cl && s > 0xffffffffull ? 0xffffffffu : uint32_t(s);
  });
}

// ---- VOPC ---------------------------------------------------------------------------------------------------------
// Comparison kinds, as the mnemonic spells them (RDNA3/RDNA4 §16.9 "VOPC Instructions"): the ordered float compares
// are false when either operand is NaN, the n* forms are their negations (true on NaN), o/u test for
// ordered/unordered. Each (kind, type) pair is its own handler instantiation: no switch on the kind at run time.
enum cmp : uint8_t { c_f, c_lt, c_eq, c_le, c_gt, c_lg, c_ge, c_o, c_u, c_nge, c_nlg, c_ngt, c_nle, c_neq, c_nlt, c_t,
                     c_ne };

template <cmp K, typename T>
inline bool compare(T a, T b) {
  switch (K) {
    case c_f: return false;
    case c_lt: return a < b;
    case c_eq: return a == b;
    case c_le: return a <= b;
    case c_gt: return a > b;
    case c_lg: return a < b || a > b;
    case c_ge: return a >= b;
    case c_o: return a == a && b == b;
    case c_u: return a != a || b != b;
    case c_nge: return !(a >= b);
    case c_nlg: return !(a < b || a > b);
    case c_ngt: return !(a > b);
    case c_nle: return !(a <= b);
    case c_neq: return !(a == b);
    case c_nlt: return !(a < b);
    case c_t: return true;
    case c_ne: return a != b;
  }
  return false;
}

enum class cty : uint8_t { i16, u16, f16, i32, u32, f32, i64, u64, f64 };

// The operands of every lane as the comparison's type.
template <cty T>
inline auto compare_value(const wave& w, const operand& s, unsigned l) {
  if constexpr (T == cty::i16) return int16_t(read(w, s)[l]);
  if constexpr (T == cty::u16) return uint16_t(read(w, s)[l]);
  if constexpr (T == cty::f16) return float(h(mod16(uint16_t(read(w, s)[l]), s.mods)));
  if constexpr (T == cty::i32) return int32_t(read(w, s)[l]);
  if constexpr (T == cty::u32) return read(w, s)[l];
  if constexpr (T == cty::f32) return f32(mod32(read(w, s)[l], s.mods));
  if constexpr (T == cty::i64) return int64_t(read64(w, s, l));
  if constexpr (T == cty::u64) return read64(w, s, l);
  if constexpr (T == cty::f64) return f64(mod64(read64(w, s, l), s.mods));
}
// Lane results as bytes (a loop the host vectorizes), then eight lanes to eight mask bits with one multiply: byte i
// of x (0 or 1) lands alone on bit 56 + i of x * 0x0102040810204080 (no two partial products share a bit).
inline uint32_t mask_of_bytes(const uint8_t* r) {
  uint32_t m = 0;
  for (unsigned q = 0; q < wave_lanes / 8; ++q) {
    uint64_t x;
    std::memcpy(&x, r + 8 * q, 8);
    m |= uint32_t((x * 0x0102040810204080ull) >> 56) << (8 * q);
  }
  return m;
}

// The 32-bit and 16-bit integer types read each source's row once (its lane_ref and modifiers hoisted out of the lane
// loop: a VOPC is among the most executed instructions of the ck kernels); f16 and the 64-bit types go through
// compare_value.
template <cty T>
using compare_row_t = std::conditional_t<
    T == cty::f32, float,
    std::conditional_t<T == cty::i32, int32_t,
                       std::conditional_t<T == cty::i16, int16_t, std::conditional_t<T == cty::u16, uint16_t, uint32_t>>>>;
template <cty T>
inline void compare_row32(const wave& w, const operand& s, compare_row_t<T>* out) {
  const lane_ref r = read(w, s);
  if constexpr (T == cty::f32) {
    const uint32_t m = s.mods;
    if (r.stride == 0) {
      const float v = f32(mod32(r.p[0], uint8_t(m)));
      for (unsigned l = 0; l < wave_lanes; ++l) out[l] = v;
    } else if (m == 0) {
      for (unsigned l = 0; l < wave_lanes; ++l) out[l] = f32(r.p[l]);
    } else {
      for (unsigned l = 0; l < wave_lanes; ++l) out[l] = f32(mod32(r.p[l], uint8_t(m)));
    }
  } else {
    using V = std::remove_pointer_t<decltype(out)>;
    if (r.stride == 0) {
      const V v = V(r.p[0]);
      for (unsigned l = 0; l < wave_lanes; ++l) out[l] = v;
    } else {
      for (unsigned l = 0; l < wave_lanes; ++l) out[l] = V(r.p[l]);
    }
  }
}
template <cty T, cmp K>
inline uint32_t compare_mask(const wave& w, const op& o) {
  using V = decltype(compare_value<T>(w, o.src[0], 0));
  V a[wave_lanes], b[wave_lanes];
  if constexpr (T == cty::f32 || T == cty::i32 || T == cty::u32 || T == cty::i16 || T == cty::u16) {
    compare_row32<T>(w, o.src[0], a);
    compare_row32<T>(w, o.src[1], b);
  } else {
    for (unsigned l = 0; l < wave_lanes; ++l) {
      a[l] = compare_value<T>(w, o.src[0], l);
      b[l] = compare_value<T>(w, o.src[1], l);
    }
  }
  // Inactive lanes compare too (nothing else happens in a comparison) and are masked off: their bits are 0.
  uint8_t r[wave_lanes];
  for (unsigned l = 0; l < wave_lanes; ++l) r[l] = uint8_t(compare<K>(a[l], b[l]));
  return mask_of_bytes(r) & w.exec();
}
template <cty T, cmp K>
void v_cmp(wave& w, const op& o) { w.s[o.dst[0].reg] = compare_mask<T, K>(w, o); }
// v_cmpx writes EXEC only (gfx10+: no SGPR destination).
template <cty T, cmp K>
void v_cmpx(wave& w, const op& o) { w.s[sreg::exec_lo] = compare_mask<T, K>(w, o); }

// v_cmp_class_f32 S0, S1: S1 is a mask of IEEE classes (bit 0 signalling NaN, 1 quiet NaN, 2 -inf, 3 -normal,
// 4 -denormal, 5 -0, 6 +0, 7 +denormal, 8 +normal, 9 +inf).
inline unsigned fclass(double x, bool is_snan) {
  if (std::isnan(x)) return is_snan ? 0 : 1;
  const bool neg = std::signbit(x);
  if (std::isinf(x)) return neg ? 2 : 9;
  if (x == 0) return neg ? 5 : 6;
  if (std::fpclassify(x) == FP_SUBNORMAL) return neg ? 4 : 7;
  return neg ? 3 : 8;
}
template <bool x>
void v_cmp_class_f32(wave& w, const op& o) {
  const uint32_t e = w.exec();
  uint32_t m = 0;
  for (unsigned l = 0; l < wave_lanes; ++l) {
    if (!((e >> l) & 1u)) continue;
    const uint32_t a = mod32(read(w, o.src[0])[l], o.src[0].mods);
    const float f = f32(a);
    // f32 denormals are not denormal as double: classify in float.
    unsigned c;
    if (std::isnan(f)) c = (a & 0x00400000u) ? 1 : 0;
    else if (std::fpclassify(f) == FP_SUBNORMAL) c = std::signbit(f) ? 4 : 7;
    else c = fclass(double(f), false);
    m |= uint32_t((read(w, o.src[1])[l] >> c) & 1u) << l;
  }
  if (x) w.s[sreg::exec_lo] = m;
  else w.s[o.dst[0].reg] = m;
}

// v_cmp_class_f16 S0, S1: the same class bits of S0's low half, a binary16 (its quiet bit is fraction bit 9).
void v_cmp_class_f16(wave& w, const op& o) {
  const lane_ref A = read(w, o.src[0]), M = read(w, o.src[1]);
  uint32_t m = 0;
  for (unsigned l = 0; l < wave_lanes; ++l) {
    const uint32_t a = mod16(uint16_t(A[l]), o.src[0].mods), e = (a >> 10) & 0x1fu, f = a & 0x3ffu;
    const bool neg = (a >> 15) != 0;
    unsigned c;
    if (e == 0x1fu) c = f ? ((f & 0x200u) ? 1 : 0) : (neg ? 2 : 9);
    else if (e == 0) c = f ? (neg ? 4 : 7) : (neg ? 5 : 6);
    else c = neg ? 3 : 8;
    m |= ((M[l] >> c) & 1u) << l;
  }
  w.s[o.dst[0].reg] = m & w.exec();
}

using enum guide_section;
// The kinds each type's compares have (the integer types have no NaN kinds, the float types no ne), and the operand
// type of each compared type. The always-false and always-true kinds (f, t) are gfx11's only (gfx12 dropped them), and
// gfx11 has them for the 32- and 64-bit types and f16 alone.
#define TP_VOPC_INT_KINDS(X, T, OT) X(lt, T, OT) X(eq, T, OT) X(le, T, OT) X(gt, T, OT) X(ne, T, OT) X(ge, T, OT)
#define TP_VOPC_FLOAT_KINDS(X, T, OT) X(lt, T, OT) X(eq, T, OT) X(le, T, OT) X(gt, T, OT) X(lg, T, OT) X(ge, T, OT) \
  X(o, T, OT) X(u, T, OT) X(nge, T, OT) X(nlg, T, OT) X(ngt, T, OT) X(nle, T, OT) X(neq, T, OT) X(nlt, T, OT)
#define TP_VOPC_TYPES(X)                                                                                              \
  TP_VOPC_INT_KINDS(X, i16, b16) TP_VOPC_INT_KINDS(X, u16, b16) TP_VOPC_FLOAT_KINDS(X, f16, f16)                     \
  TP_VOPC_INT_KINDS(X, i32, b32) TP_VOPC_INT_KINDS(X, u32, b32) TP_VOPC_FLOAT_KINDS(X, f32, f32)                     \
  TP_VOPC_INT_KINDS(X, i64, b64) TP_VOPC_INT_KINDS(X, u64, b64) TP_VOPC_FLOAT_KINDS(X, f64, f64)
#define TP_VOPC_GFX11_CONSTANT_TYPES(X)                                                                               \
  X(f, f16, f16) X(t, f16, f16) X(f, i32, b32) X(t, i32, b32) X(f, u32, b32) X(t, u32, b32) X(f, f32, f32)           \
  X(t, f32, f32) X(f, i64, b64) X(t, i64, b64) X(f, u64, b64) X(t, u64, b64) X(f, f64, f64) X(t, f64, f64)
// v_cmp_<kind>_<type> writes the lane mask to its SGPR destination (VCC in the VOP1-style encoding); v_cmpx_ to EXEC.
#define TP_VOPC_ROWS(kind, T, OT)                                                                  \
  decl("v_cmp_" #kind "_" #T, v_cmp<cty::T, c_##kind>, vopc).srcs(ty::OT, ty::OT),                 \
  decl("v_cmpx_" #kind "_" #T, v_cmpx<cty::T, c_##kind>, vopc).dsts(0).srcs(ty::OT, ty::OT),
#define TP_VOPC_GFX11_ROWS(kind, T, OT)                                                            \
  decl("v_cmp_" #kind "_" #T, v_cmp<cty::T, c_##kind>, vopc).srcs(ty::OT, ty::OT).only(on_gfx11),  \
  decl("v_cmpx_" #kind "_" #T, v_cmpx<cty::T, c_##kind>, vopc).dsts(0).srcs(ty::OT, ty::OT).only(on_gfx11),

constexpr instruction table[] = {
    // ---- moves, bit manipulation ----
    decl("v_mov_b32", u32_1([](uint32_t a) { return a; }), vop1).with(f_vopd),
    decl("v_not_b32", u32_1([](uint32_t a) { return ~a; }), vop1),
    decl("v_bfrev_b32", u32_1([](uint32_t a) { return bit_reverse(a); }), vop1),
    // The index of the lowest (ctz) / highest (clz, from the MSB) set bit; -1 when there is none.
    decl("v_ctz_i32_b32", u32_1([](uint32_t a) { return a == 0 ? 0xffffffffu : uint32_t(std::countr_zero(a)); }), vop1),
    decl("v_clz_i32_u32", u32_1([](uint32_t a) { return a == 0 ? 0xffffffffu : uint32_t(std::countl_zero(a)); }), vop1),
    decl("v_cvt_f32_u32", u32_1([](uint32_t a) { return bits(float(a)); }), vop1),
    decl("v_cvt_f32_i32", u32_1([](uint32_t a) { return bits(float(int32_t(a))); }), vop1),
    decl("v_cvt_u32_f32", from_f32([](float a) { return cvt_u32(a); }), vop1).srcs(ty::f32),
    decl("v_cvt_i32_f32", from_f32([](float a) { return uint32_t(cvt_i32(a)); }), vop1).srcs(ty::f32),
    // D = float(byte N of S0), unsigned.
    decl("v_cvt_f32_ubyte0", u32_1([](uint32_t a) { return bits(float(a & 0xffu)); }), vop1),
    decl("v_cvt_f32_ubyte1", u32_1([](uint32_t a) { return bits(float((a >> 8) & 0xffu)); }), vop1),
    decl("v_cvt_f32_ubyte2", u32_1([](uint32_t a) { return bits(float((a >> 16) & 0xffu)); }), vop1),
    decl("v_cvt_f32_ubyte3", u32_1([](uint32_t a) { return bits(float(a >> 24)); }), vop1),
    decl("v_cvt_f32_f16", v_cvt_f32_f16, vop1).srcs(ty::f16),
    decl("v_cvt_f16_f32", v_cvt_f16_f32, vop1).srcs(ty::f32),
    decl("v_cvt_f64_u32", to_64([](uint32_t a, uint8_t) { return bits(double(a)); }), vop1),
    decl("v_cvt_f64_i32", to_64([](uint32_t a, uint8_t) { return bits(double(int32_t(a))); }), vop1),
    decl("v_cvt_f64_f32", to_64([](uint32_t a, uint8_t m) { return bits(double(f32(mod32(a, m)))); }), vop1).srcs(ty::f32),
    decl("v_cvt_f32_f64", from_f64([](double a) { return bits(float(a)); }), vop1).srcs(ty::f64),
    decl("v_cvt_u32_f64", from_f64([](double a) { return cvt_u32(a); }), vop1).srcs(ty::f64),
    decl("v_cvt_i32_f64", from_f64([](double a) { return uint32_t(cvt_i32(a)); }), vop1).srcs(ty::f64),
    decl("v_readfirstlane_b32", v_readfirstlane_b32, vop1),
    // The all-zero word: what pads .text between kernels. Executing it is an illegal-instruction exception; without a
    // trap handler the dispatch stops.
    decl("v_illegal", v_illegal, vop1).dsts(0),
    decl("v_movrels_b32", v_movrels_b32, vop1),
    decl("v_movreld_b32", v_movreld_b32, vop1),
    decl("v_movrelsd_b32", v_movrelsd_b32, vop1),

    // ---- 32-bit integer arithmetic and logic ----
    decl("v_add_nc_u32", u32_2([](uint32_t a, uint32_t b) { return a + b; }), vop2).with(f_vopd),
    decl("v_sub_nc_u32", u32_2([](uint32_t a, uint32_t b) { return a - b; }), vop2),
    decl("v_subrev_nc_u32", u32_2([](uint32_t a, uint32_t b) { return b - a; }), vop2),
    decl("v_and_b32", u32_2([](uint32_t a, uint32_t b) { return a & b; }), vop2).with(f_vopd),
    decl("v_or_b32", u32_2([](uint32_t a, uint32_t b) { return a | b; }), vop2),
    decl("v_xor_b32", u32_2([](uint32_t a, uint32_t b) { return a ^ b; }), vop2),
    decl("v_xnor_b32", u32_2([](uint32_t a, uint32_t b) { return ~(a ^ b); }), vop2),
    // D = S1 shifted by S0[4:0] (the "rev" forms take the count first).
    decl("v_lshlrev_b32", shift32<2, 0>([](uint32_t, uint32_t b, uint32_t, uint32_t s) { return b << s; }), vop2).with(f_vopd),
    decl("v_lshrrev_b32", shift32<2, 0>([](uint32_t, uint32_t b, uint32_t, uint32_t s) { return b >> s; }), vop2),
    decl("v_ashrrev_i32", shift32<2, 0>([](uint32_t, uint32_t b, uint32_t, uint32_t s) { return uint32_t(int32_t(b) >> s); }), vop2),
    decl("v_min_u32", u32_2([](uint32_t a, uint32_t b) { return a < b ? a : b; }), vop2),
    decl("v_max_u32", u32_2([](uint32_t a, uint32_t b) { return a > b ? a : b; }), vop2),
    decl("v_min_i32", u32_2([](uint32_t a, uint32_t b) { return int32_t(a) < int32_t(b) ? a : b; }), vop2),
    decl("v_max_i32", u32_2([](uint32_t a, uint32_t b) { return int32_t(a) > int32_t(b) ? a : b; }), vop2),
    // 24-bit multiplies: the low 24 bits of each source, signed or unsigned; _hi gives bits 63:32 of the product.
    decl("v_mul_i32_i24", u32_2([](uint32_t a, uint32_t b) { return uint32_t(int64_t(sext24(a)) * sext24(b)); }), vop2),
    decl("v_mul_hi_i32_i24", u32_2([](uint32_t a, uint32_t b) { return uint32_t(uint64_t(int64_t(sext24(a)) * sext24(b)) >> 32); }), vop2),
    decl("v_mul_u32_u24", u32_2([](uint32_t a, uint32_t b) { return uint32_t(uint64_t(a & 0xffffffu) * (b & 0xffffffu)); }), vop2),
    decl("v_mul_hi_u32_u24", u32_2([](uint32_t a, uint32_t b) { return uint32_t((uint64_t(a & 0xffffffu) * (b & 0xffffffu)) >> 32); }), vop2),
    decl("v_mul_lo_u32", u32_2([](uint32_t a, uint32_t b) { return a * b; }), vop3),
    decl("v_mul_hi_u32", u32_2([](uint32_t a, uint32_t b) { return uint32_t((uint64_t(a) * b) >> 32); }), vop3),
    decl("v_mul_hi_i32", u32_2([](uint32_t a, uint32_t b) { return uint32_t(uint64_t(int64_t(int32_t(a)) * int32_t(b)) >> 32); }), vop3),
    decl("v_bcnt_u32_b32", u32_2([](uint32_t a, uint32_t b) { return uint32_t(std::popcount(a)) + b; }), vop3),
    decl("v_bfm_b32", u32_2([](uint32_t a, uint32_t b) { return ((1u << (a & 31)) - 1u) << (b & 31); }), vop3),
    decl("v_cvt_pk_u16_u32", u32_2([](uint32_t a, uint32_t b) { return (a & 0xffffu) | (b << 16); }), vop3),
    decl("v_pack_b32_f16", u32_2([](uint32_t a, uint32_t b) { return (a & 0xffffu) | (b << 16); }), vop3).srcs(ty::f16, ty::f16),
    // Bit-field extract: S1[4:0] offset, S2[4:0] width, zero- or sign-extended.
    decl("v_bfe_u32", u32_3([](uint32_t a, uint32_t b, uint32_t c) {
           const unsigned off = b & 31, wd = c & 31;
           return wd == 0 ? 0u : (a >> off) & ((wd == 32 ? 0u : (1u << wd)) - 1u);
         }), vop3),
    // V_BFE_I32 (RDNA3 §16.12, RDNA4 §16.13): tmp = (S0.i32 >> offset) & mask, sign-extended from bit width - 1: the
    // shift is arithmetic, so a field reaching past bit 31 is filled with S0's sign.
    decl("v_bfe_i32", u32_3([](uint32_t a, uint32_t b, uint32_t c) {
           const unsigned off = b & 31, wd = c & 31;
           if (wd == 0) return 0u;
           const unsigned sh = 32 - wd;
           return uint32_t(int32_t(uint32_t(int32_t(a) >> off) << sh) >> sh);
         }), vop3),
    decl("v_bfi_b32", u32_3([](uint32_t a, uint32_t b, uint32_t c) { return (a & b) | (~a & c); }), vop3),
    // D = ({S0, S1} >> S2[4:0]) and >> 8 * S2[1:0].
    decl("v_alignbit_b32", u32_3([](uint32_t a, uint32_t b, uint32_t c) { return uint32_t(((uint64_t(a) << 32) | b) >> (c & 31)); }), vop3),
    decl("v_alignbyte_b32", u32_3([](uint32_t a, uint32_t b, uint32_t c) { return uint32_t(((uint64_t(a) << 32) | b) >> (8 * (c & 3))); }), vop3),
    decl("v_lshl_or_b32", shift32<3, 1>([](uint32_t a, uint32_t, uint32_t c, uint32_t s) { return (a << s) | c; }), vop3),
    decl("v_and_or_b32", u32_3([](uint32_t a, uint32_t b, uint32_t c) { return (a & b) | c; }), vop3),
    decl("v_or3_b32", u32_3([](uint32_t a, uint32_t b, uint32_t c) { return a | b | c; }), vop3),
    decl("v_xor3_b32", u32_3([](uint32_t a, uint32_t b, uint32_t c) { return a ^ b ^ c; }), vop3),
    decl("v_add3_u32", u32_3([](uint32_t a, uint32_t b, uint32_t c) { return a + b + c; }), vop3),
    decl("v_lshl_add_u32", shift32<3, 1>([](uint32_t a, uint32_t, uint32_t c, uint32_t s) { return (a << s) + c; }), vop3),
    decl("v_add_lshl_u32", shift32<3, 2>([](uint32_t a, uint32_t b, uint32_t, uint32_t s) { return (a + b) << s; }), vop3),
    decl("v_mad_u32_u24", u32_3([](uint32_t a, uint32_t b, uint32_t c) { return uint32_t(uint64_t(a & 0xffffffu) * (b & 0xffffffu)) + c; }), vop3),
    decl("v_mad_i32_i24", u32_3([](uint32_t a, uint32_t b, uint32_t c) { return uint32_t(int64_t(sext24(a)) * sext24(b)) + c; }), vop3),
    decl("v_min3_u32", u32_3([](uint32_t a, uint32_t b, uint32_t c) { return std::min({a, b, c}); }), vop3),
    decl("v_max3_u32", u32_3([](uint32_t a, uint32_t b, uint32_t c) { return std::max({a, b, c}); }), vop3),
    decl("v_min3_i32", u32_3([](uint32_t a, uint32_t b, uint32_t c) { return uint32_t(std::min({int32_t(a), int32_t(b), int32_t(c)})); }), vop3),
    decl("v_max3_i32", u32_3([](uint32_t a, uint32_t b, uint32_t c) { return uint32_t(std::max({int32_t(a), int32_t(b), int32_t(c)})); }), vop3),
    // The median of three.
    decl("v_med3_i32", u32_3([](uint32_t a, uint32_t b, uint32_t c) {
           const int32_t x = int32_t(a), y = int32_t(b), z = int32_t(c);
           return uint32_t(std::max(std::min(x, y), std::min(std::max(x, y), z)));
         }), vop3),
    decl("v_med3_u32", u32_3([](uint32_t a, uint32_t b, uint32_t c) { return std::max(std::min(a, b), std::min(std::max(a, b), c)); }), vop3),
    decl("v_perm_b32", u32_3([](uint32_t a, uint32_t b, uint32_t c) { return perm(a, b, c); }), vop3),
    decl("v_mbcnt_lo_u32_b32", v_mbcnt_lo_u32_b32, vop3),
    decl("v_mbcnt_hi_u32_b32", v_mbcnt_hi_u32_b32, vop3),
    decl("v_cndmask_b32", v_cndmask_b32, vop2).with(f_vopd | f_vopd_reads_vcc | f_bit_modifiers),
    decl("v_add_co_u32", add_co<k_add>, vop3).dsts(2),
    decl("v_sub_co_u32", add_co<k_sub>, vop3).dsts(2),
    decl("v_subrev_co_u32", add_co<k_subrev>, vop3).dsts(2),
    decl("v_add_co_ci_u32", add_co_ci<k_add>, vop2).dsts(2),
    decl("v_sub_co_ci_u32", add_co_ci<k_sub>, vop2).dsts(2),
    decl("v_subrev_co_ci_u32", add_co_ci<k_subrev>, vop2).dsts(2),
    decl("v_mad_co_u64_u32", mad_co_64<false>, vop3).dsts(2).srcs(ty::b32, ty::b32, ty::b64).gfx11("v_mad_u64_u32"),
    decl("v_mad_co_i64_i32", mad_co_64<true>, vop3).dsts(2).srcs(ty::b32, ty::b32, ty::b64).gfx11("v_mad_i64_i32"),
    // 64-bit shifts: D = S1 (64-bit) shifted by S0[5:0].
    decl("v_lshlrev_b64", shift64([](uint64_t v, uint32_t s) { return v << s; }), vop2).srcs(ty::b32, ty::b64).rdna3(vop3),
    decl("v_lshrrev_b64", shift64([](uint64_t v, uint32_t s) { return v >> s; }), vop3).srcs(ty::b32, ty::b64),
    decl("v_ashrrev_i64", shift64([](uint64_t v, uint32_t s) { return uint64_t(int64_t(v) >> s); }), vop3).srcs(ty::b32, ty::b64),

    // ---- 16-bit integer (low halves) ----
    decl("v_lshlrev_b16", u16_2([](uint16_t a, uint16_t b) { return uint16_t(b << (a & 15)); }), vop3).srcs(ty::b16, ty::b16),
    decl("v_lshrrev_b16", u16_2([](uint16_t a, uint16_t b) { return uint16_t(b >> (a & 15)); }), vop3).srcs(ty::b16, ty::b16),
    decl("v_ashrrev_i16", u16_2([](uint16_t a, uint16_t b) { return uint16_t(int16_t(b) >> (a & 15)); }), vop3).srcs(ty::b16, ty::b16),
    decl("v_add_nc_u16", u16_2([](uint16_t a, uint16_t b) { return uint16_t(a + b); }), vop3).srcs(ty::b16, ty::b16),
    decl("v_sub_nc_u16", u16_2([](uint16_t a, uint16_t b) { return uint16_t(a - b); }), vop3).srcs(ty::b16, ty::b16),
    decl("v_mul_lo_u16", u16_2([](uint16_t a, uint16_t b) { return uint16_t(a * b); }), vop3).srcs(ty::b16, ty::b16),
    decl("v_and_b16", u16_2([](uint16_t a, uint16_t b) { return uint16_t(a & b); }), vop3).srcs(ty::b16, ty::b16),
    decl("v_or_b16", u16_2([](uint16_t a, uint16_t b) { return uint16_t(a | b); }), vop3).srcs(ty::b16, ty::b16),
    decl("v_xor_b16", u16_2([](uint16_t a, uint16_t b) { return uint16_t(a ^ b); }), vop3).srcs(ty::b16, ty::b16),
    decl("v_max_u16", u16_2([](uint16_t a, uint16_t b) { return a > b ? a : b; }), vop3).srcs(ty::b16, ty::b16),
    decl("v_min_u16", u16_2([](uint16_t a, uint16_t b) { return a < b ? a : b; }), vop3).srcs(ty::b16, ty::b16),

    // ---- cross-lane ----
    decl("v_readlane_b32", v_readlane_b32, vop3),
    decl("v_writelane_b32", v_writelane_b32, vop3),

    // ---- f32 ----
    decl("v_add_f32", f32_2([](float a, float b) { return a + b; }), vop2).srcs(ty::f32, ty::f32).with(f_vopd),
    decl("v_sub_f32", f32_2([](float a, float b) { return a - b; }), vop2).srcs(ty::f32, ty::f32).with(f_vopd),
    decl("v_subrev_f32", f32_2([](float a, float b) { return b - a; }), vop2).srcs(ty::f32, ty::f32).with(f_vopd),
    decl("v_mul_f32", f32_2([](float a, float b) { return a * b; }), vop2).srcs(ty::f32, ty::f32).with(f_vopd),
    decl("v_max_num_f32", f32_2([](float a, float b) { return max_num(a, b); }), vop2).srcs(ty::f32, ty::f32).with(f_vopd).only(on_gfx12),
    decl("v_min_num_f32", f32_2([](float a, float b) { return min_num(a, b); }), vop2).srcs(ty::f32, ty::f32).with(f_vopd).only(on_gfx12),
    decl("v_max_f32", f32_bits_2([](uint32_t a, uint32_t b) { return ieee_max_min(a, b, true); }), vop2).srcs(ty::f32, ty::f32).with(f_vopd).only(on_gfx11),
    decl("v_min_f32", f32_bits_2([](uint32_t a, uint32_t b) { return ieee_max_min(a, b, false); }), vop2).srcs(ty::f32, ty::f32).with(f_vopd).only(on_gfx11),
    // V_MAX3_F32 / V_MIN3_F32: v_max_f32 (v_min_f32) twice.
    decl("v_max3_f32", f32_bits_3([](uint32_t a, uint32_t b, uint32_t c) { return ieee_max_min(ieee_max_min(a, b, true), c, true); }), vop3).srcs(ty::f32, ty::f32, ty::f32).only(on_gfx11),
    decl("v_min3_f32", f32_bits_3([](uint32_t a, uint32_t b, uint32_t c) { return ieee_max_min(ieee_max_min(a, b, false), c, false); }), vop3).srcs(ty::f32, ty::f32, ty::f32).only(on_gfx11),
    decl("v_max3_num_f32", f32_3([](float a, float b, float c) { return max_num(max_num(a, b), c); }), vop3).srcs(ty::f32, ty::f32, ty::f32).only(on_gfx12),
    decl("v_min3_num_f32", f32_3([](float a, float b, float c) { return min_num(min_num(a, b), c); }), vop3).srcs(ty::f32, ty::f32, ty::f32).only(on_gfx12),
    // V_MAXMIN_F32: v_min_f32(v_max_f32(S0, S1), S2) with gfx11's IEEE-mode rules; gfx12's _num form with
    // maximumNumber / minimumNumber (a NaN operand gives the other one at each step).
    decl("v_maxmin_f32", f32_bits_3([](uint32_t a, uint32_t b, uint32_t c) { return ieee_max_min(ieee_max_min(a, b, true), c, false); }), vop3).srcs(ty::f32, ty::f32, ty::f32).only(on_gfx11),
    decl("v_maxmin_num_f32", f32_3([](float a, float b, float c) { return min_num(max_num(a, b), c); }), vop3).srcs(ty::f32, ty::f32, ty::f32).only(on_gfx12),
    decl("v_ldexp_f32", v_ldexp_f32, vop3).srcs(ty::f32, ty::b32),
    decl("v_fma_f32", f32_3([](float a, float b, float c) { return std::fma(a, b, c); }), vop3).srcs(ty::f32, ty::f32, ty::f32),
    // D = S0 * S1 + K (printed S0, S1, K) and D = S0 * K + S1 (printed S0, K, S1): an fma of the printed operands in
    // their printed order either way.
    decl("v_fmaak_f32", f32_3([](float a, float b, float c) { return std::fma(a, b, c); }), vop2).srcs(ty::f32, ty::f32, ty::f32).with(f_vopd),
    decl("v_fmamk_f32", f32_3([](float a, float b, float c) { return std::fma(a, b, c); }), vop2).srcs(ty::f32, ty::f32, ty::f32).with(f_vopd),
    decl("v_fmac_f32", v_fmac_f32, vop2).srcs(ty::f32, ty::f32).with(f_vopd),
    // Approximate transcendental ops. The guides state their accuracy and denormal handling (VOP1 opcode notes:
    // v_rcp_f32, v_rsq_f32, v_sqrt_f32, v_exp_f32, v_log_f32 "1ULP accuracy, denormals are flushed"). The model
    // flushes a denormal input, and a denormal result, to a zero of its sign (the compiler scales around both where
    // the source asks for denormals), and returns the exact function of the input computed in binary64, rounded once
    // to binary32: within 0.5 ULP plus the binary64 error (< 2^-29 ULP), inside the stated 1 ULP, so any result the
    // compiled code derives is one the hardware may also produce. (Code that needs an exact result, such as the
    // unsigned division expansion around v_rcp_iflag_f32, refines the estimate itself.)
    decl("v_rcp_f32", f32_1([](float a) { return rcp_f32(a); }), vop1).srcs(ty::f32),
    decl("v_rcp_iflag_f32", f32_1([](float a) { return rcp_f32(a); }), vop1).srcs(ty::f32),
    decl("v_rsq_f32", f32_1([](float a) { return rsq_f32(a); }), vop1).srcs(ty::f32),
    decl("v_sqrt_f32", f32_1([](float a) { return sqrt_f32(a); }), vop1).srcs(ty::f32),
    decl("v_exp_f32", f32_1([](float a) { return exp_f32(a); }), vop1).srcs(ty::f32),
    decl("v_log_f32", f32_1([](float a) { return log_f32(a); }), vop1).srcs(ty::f32),
    decl("v_floor_f32", f32_1([](float a) { return std::floor(a); }), vop1).srcs(ty::f32),
    decl("v_ceil_f32", f32_1([](float a) { return std::ceil(a); }), vop1).srcs(ty::f32),
    decl("v_trunc_f32", f32_1([](float a) { return std::trunc(a); }), vop1).srcs(ty::f32),
    decl("v_rndne_f32", f32_1([](float a) { return std::nearbyint(a); }), vop1).srcs(ty::f32),
    decl("v_fract_f32", f32_1([](float a) { return a - std::floor(a); }), vop1).srcs(ty::f32),
    decl("v_s_exp_f32", pseudo_scalar([](float a) { return exp_f32(a); }), vop3).srcs(ty::f32).only(on_gfx12),
    decl("v_s_log_f32", pseudo_scalar([](float a) { return log_f32(a); }), vop3).srcs(ty::f32).only(on_gfx12),
    decl("v_s_rcp_f32", pseudo_scalar([](float a) { return rcp_f32(a); }), vop3).srcs(ty::f32).only(on_gfx12),
    decl("v_s_rsq_f32", pseudo_scalar([](float a) { return rsq_f32(a); }), vop3).srcs(ty::f32).only(on_gfx12),
    decl("v_s_sqrt_f32", pseudo_scalar([](float a) { return sqrt_f32(a); }), vop3).srcs(ty::f32).only(on_gfx12),
    decl("v_div_scale_f32", v_div_scale_f32, vop3).dsts(2).srcs(ty::f32, ty::f32, ty::f32),
    decl("v_div_fmas_f32", v_div_fmas_f32, vop3).srcs(ty::f32, ty::f32, ty::f32),
    decl("v_div_fixup_f32", v_div_fixup_f32, vop3).srcs(ty::f32, ty::f32, ty::f32),
    decl("v_cmp_class_f32", v_cmp_class_f32<false>, vopc).srcs(ty::f32, ty::b32),
    decl("v_cmpx_class_f32", v_cmp_class_f32<true>, vopc).dsts(0).srcs(ty::f32, ty::b32),
    decl("v_cmp_class_f16", v_cmp_class_f16, vopc).srcs(ty::f16, ty::b32),

    // ---- f64 ----
    decl("v_add_f64", f64_2([](double a, double b) { return a + b; }), vop2).srcs(ty::f64, ty::f64).rdna3(vop3),
    decl("v_mul_f64", f64_2([](double a, double b) { return a * b; }), vop2).srcs(ty::f64, ty::f64).rdna3(vop3),
    decl("v_fma_f64", f64_3([](double a, double b, double c) { return std::fma(a, b, c); }), vop3).srcs(ty::f64, ty::f64, ty::f64),
    decl("v_ldexp_f64", v_ldexp_f64, vop3).srcs(ty::f64, ty::b32),

    // ---- dot products (VOP3P) ----
    // Packed f16 (VOP3P; RDNA3 §7.5 / RDNA4 §7.7 "Packed Math"): per half, the correctly rounded binary16 result.
    // The host computes a binary16 operation in binary32 and rounds that to binary16: a product of two binary16
    // values is exact in binary32, and for sums binary32's 24 bits are enough for the second rounding to give the
    // correctly rounded binary16 (24 >= 2 * 11 + 2).
    decl("v_pk_mul_f16", pk_f16_2([](f16_t a, f16_t b) { return f16_t(a * b); }), vop3p).srcs(ty::f16, ty::f16).with(f_packed),
    decl("v_pk_add_f16", pk_f16_2([](f16_t a, f16_t b) { return f16_t(a + b); }), vop3p).srcs(ty::f16, ty::f16).with(f_packed),
    decl("v_fma_mix_f32", v_fma_mix<mix_dst::f32>, vop3p).srcs(ty::f32, ty::f32, ty::f32).with(f_mix),
    decl("v_fma_mixlo_f16", v_fma_mix<mix_dst::lo16>, vop3p).srcs(ty::f32, ty::f32, ty::f32).with(f_mix),
    decl("v_fma_mixhi_f16", v_fma_mix<mix_dst::hi16>, vop3p).srcs(ty::f32, ty::f32, ty::f32).with(f_mix),
    decl("v_dot4_i32_iu8", v_dot4_i32_iu8, vop3p),
    decl("v_dot4_u32_u8", v_dot4_u32_u8, vop3p),

    // ---- VOPC ----
    TP_VOPC_TYPES(TP_VOPC_ROWS)
    TP_VOPC_GFX11_CONSTANT_TYPES(TP_VOPC_GFX11_ROWS)
};
#undef TP_VOPC_GFX11_ROWS
#undef TP_VOPC_GFX11_CONSTANT_TYPES
#undef TP_VOPC_ROWS
#undef TP_VOPC_TYPES
#undef TP_VOPC_FLOAT_KINDS
#undef TP_VOPC_INT_KINDS

}  // namespace

std::span<const instruction> valu_instructions() { return table; }

TP_SIM_HOST_CODE_END

}  // namespace tp::amdgpu_sim::machine::TP_SIM_HOST_LEVEL
