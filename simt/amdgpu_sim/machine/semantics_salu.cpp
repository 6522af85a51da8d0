// Scalar ALU and program control: SOP1, SOP2, SOPK, SOPC, SOPP (RDNA4 ISA guide chapter 4 "Program flow control" and
// chapter 5 "Scalar ALU operations"; per-opcode semantics from chapter 16's SOP1/SOP2/SOPK/SOPC/SOPP tables). SCC is
// written exactly where those tables write it.
#include <bit>
#include <cmath>
#include <limits>

#include "simt/amdgpu_sim/machine/semantics.h"
#include "simt/amdgpu_sim/machine/wave.h"

namespace tp::amdgpu_sim::machine {
namespace {

uint32_t s32(const wave& w, const op& o, unsigned i) { return read(w, o.src[i])[0]; }
uint64_t s64(const wave& w, const op& o, unsigned i) { return read64(w, o.src[i], 0); }
void d32(wave& w, const op& o, uint32_t v) { w.s[o.dst[0].reg] = v; }
void d64(wave& w, const op& o, uint64_t v) {
  w.s[o.dst[0].reg] = uint32_t(v);
  w.s[o.dst[0].reg + 1] = uint32_t(v >> 32);
}

// r = F(a, b, scc_in_out); SCC is written when F says so.
template <typename F>
void binary32(wave& w, const op& o, F f) {
  bool scc = w.scc();
  const uint32_t r = f(s32(w, o, 0), s32(w, o, 1), scc);
  d32(w, o, r);
  w.set_scc(scc);
}
template <typename F>
void binary64(wave& w, const op& o, F f) {
  bool scc = w.scc();
  const uint64_t r = f(s64(w, o, 0), s64(w, o, 1), scc);
  d64(w, o, r);
  w.set_scc(scc);
}

#define SOP2_32(name, ...)                                                           \
  void name(wave& w, const op& o) {                                                   \
    binary32(w, o, [](uint32_t a, uint32_t b, bool& scc) -> uint32_t { __VA_ARGS__; });     \
  }
#define SOP2_64(name, ...)                                                           \
  void name(wave& w, const op& o) {                                                   \
    binary64(w, o, [](uint64_t a, uint64_t b, bool& scc) -> uint64_t { __VA_ARGS__; });     \
  }

// Bitwise ops set SCC = (result != 0).
SOP2_32(s_and_b32, uint32_t r = a & b; scc = r != 0; return r)
SOP2_32(s_or_b32, uint32_t r = a | b; scc = r != 0; return r)
SOP2_32(s_xor_b32, uint32_t r = a ^ b; scc = r != 0; return r)
SOP2_32(s_nand_b32, uint32_t r = ~(a & b); scc = r != 0; return r)
SOP2_32(s_nor_b32, uint32_t r = ~(a | b); scc = r != 0; return r)
SOP2_32(s_xnor_b32, uint32_t r = ~(a ^ b); scc = r != 0; return r)
SOP2_32(s_and_not1_b32, uint32_t r = a & ~b; scc = r != 0; return r)
SOP2_32(s_or_not1_b32, uint32_t r = a | ~b; scc = r != 0; return r)
SOP2_64(s_and_b64, uint64_t r = a & b; scc = r != 0; return r)
SOP2_64(s_or_b64, uint64_t r = a | b; scc = r != 0; return r)
SOP2_64(s_xor_b64, uint64_t r = a ^ b; scc = r != 0; return r)
SOP2_64(s_and_not1_b64, uint64_t r = a & ~b; scc = r != 0; return r)
SOP2_64(s_or_not1_b64, uint64_t r = a | ~b; scc = r != 0; return r)
// Shifts use the low 5 (6) bits of the count; SCC = (result != 0).
SOP2_32(s_lshl_b32, uint32_t r = a << (b & 31); scc = r != 0; return r)
SOP2_32(s_lshr_b32, uint32_t r = a >> (b & 31); scc = r != 0; return r)
SOP2_32(s_ashr_i32, uint32_t r = uint32_t(int32_t(a) >> (b & 31)); scc = r != 0; return r)
SOP2_64(s_lshl_b64, uint64_t r = a << (b & 63); scc = r != 0; return r)
SOP2_64(s_lshr_b64, uint64_t r = a >> (b & 63); scc = r != 0; return r)
SOP2_64(s_ashr_i64, uint64_t r = uint64_t(int64_t(a) >> (b & 63)); scc = r != 0; return r)
// s_lshlN_add_u32: D = (S0 << N) + S1, SCC = carry out of the 32-bit add (unsigned overflow).
SOP2_32(s_lshl1_add_u32, uint64_t r = (uint64_t(a) << 1) + b; scc = r >> 32 != 0; return uint32_t(r))
SOP2_32(s_lshl2_add_u32, uint64_t r = (uint64_t(a) << 2) + b; scc = r >> 32 != 0; return uint32_t(r))
SOP2_32(s_lshl3_add_u32, uint64_t r = (uint64_t(a) << 3) + b; scc = r >> 32 != 0; return uint32_t(r))
SOP2_32(s_lshl4_add_u32, uint64_t r = (uint64_t(a) << 4) + b; scc = r >> 32 != 0; return uint32_t(r))
// Adds: _u32 forms set SCC to the carry, _i32 forms to signed overflow, _ci forms add SCC in.
SOP2_32(s_add_co_u32, uint64_t r = uint64_t(a) + b; scc = r >> 32 != 0; return uint32_t(r))
SOP2_32(s_sub_co_u32, scc = b > a; return a - b)
SOP2_32(s_add_co_ci_u32, uint64_t r = uint64_t(a) + b + (scc ? 1 : 0); scc = r >> 32 != 0; return uint32_t(r))
SOP2_32(s_sub_co_ci_u32, uint64_t borrow = scc ? 1 : 0; scc = uint64_t(b) + borrow > a; return uint32_t(a - b - borrow))
SOP2_32(s_add_co_i32, uint32_t r = a + b; scc = ((a ^ r) & (b ^ r)) >> 31; return r)
SOP2_32(s_sub_co_i32, uint32_t r = a - b; scc = ((a ^ b) & (a ^ r)) >> 31; return r)
SOP2_64(s_add_nc_u64, (void)scc; return a + b)
SOP2_64(s_sub_nc_u64, (void)scc; return a - b)
SOP2_64(s_mul_u64, (void)scc; return a * b)
SOP2_32(s_mul_i32, (void)scc; return uint32_t(int64_t(int32_t(a)) * int32_t(b)))
SOP2_32(s_mul_hi_u32, (void)scc; return uint32_t((uint64_t(a) * b) >> 32))
SOP2_32(s_mul_hi_i32, (void)scc; return uint32_t(uint64_t(int64_t(int32_t(a)) * int32_t(b)) >> 32))
SOP2_32(s_min_i32, scc = int32_t(a) < int32_t(b); return scc ? a : b)
SOP2_32(s_min_u32, scc = a < b; return scc ? a : b)
SOP2_32(s_max_i32, scc = int32_t(a) > int32_t(b); return scc ? a : b)
SOP2_32(s_max_u32, scc = a > b; return scc ? a : b)
SOP2_32(s_cselect_b32, return scc ? a : b)
SOP2_64(s_cselect_b64, return scc ? a : b)
SOP2_32(s_bfm_b32, (void)scc; return ((1u << (a & 31)) - 1u) << (b & 31))
// s_bfe: S1[4:0] offset, S1[22:16] width; SCC = (result != 0).
SOP2_32(s_bfe_u32, const unsigned off = b & 31, wd = (b >> 16) & 127;
        uint32_t r = wd == 0 ? 0 : (wd >= 32 ? a >> off : (a >> off) & ((1u << wd) - 1u)); scc = r != 0; return r)
SOP2_32(s_bfe_i32, const unsigned off = b & 31, wd = (b >> 16) & 127; int32_t r = 0;
        if (wd != 0) { const unsigned sh = 32 - std::min(wd, 32u); r = int32_t((a >> off) << sh) >> sh; }
        scc = r != 0; return uint32_t(r))
SOP2_32(s_pack_ll_b32_b16, (void)scc; return (a & 0xffffu) | (b << 16))
SOP2_32(s_pack_lh_b32_b16, (void)scc; return (a & 0xffffu) | (b & 0xffff0000u))
SOP2_32(s_pack_hh_b32_b16, (void)scc; return (a >> 16) | (b & 0xffff0000u))
SOP2_32(s_pack_hl_b32_b16, (void)scc; return (a >> 16) | (b << 16))
// Scalar float ops (RDNA4 ISA guide §5.? "SALU floating point"): IEEE binary32 with round-to-nearest-even, the
// wave's mode; the host's float arithmetic is the same operation (the library builds with -ffp-contract=off).
SOP2_32(s_add_f32, (void)scc; return bits(f32(a) + f32(b)))
SOP2_32(s_sub_f32, (void)scc; return bits(f32(a) - f32(b)))
SOP2_32(s_mul_f32, (void)scc; return bits(f32(a) * f32(b)))

template <typename F>
void unary32(wave& w, const op& o, F f) {
  bool scc = w.scc();
  const uint32_t r = f(s32(w, o, 0), scc);
  d32(w, o, r);
  w.set_scc(scc);
}
#define SOP1_32(name, ...) \
  void name(wave& w, const op& o) { unary32(w, o, [](uint32_t a, bool& scc) -> uint32_t { __VA_ARGS__; }); }

void s_mov_b32(wave& w, const op& o) { d32(w, o, s32(w, o, 0)); }
void s_mov_b64(wave& w, const op& o) { d64(w, o, s64(w, o, 0)); }
void s_cmov_b32(wave& w, const op& o) {
  if (w.scc()) d32(w, o, s32(w, o, 0));
}
SOP1_32(s_not_b32, uint32_t r = ~a; scc = r != 0; return r)
void s_not_b64(wave& w, const op& o) {
  const uint64_t r = ~s64(w, o, 0);
  d64(w, o, r);
  w.set_scc(r != 0);
}
SOP1_32(s_brev_b32, (void)scc; return [](uint32_t x) {
  x = ((x >> 1) & 0x55555555u) | ((x & 0x55555555u) << 1);
  x = ((x >> 2) & 0x33333333u) | ((x & 0x33333333u) << 2);
  x = ((x >> 4) & 0x0f0f0f0fu) | ((x & 0x0f0f0f0fu) << 4);
  return __builtin_bswap32(x);
}(a))
SOP1_32(s_bcnt1_i32_b32, uint32_t r = uint32_t(std::popcount(a)); scc = r != 0; return r)
SOP1_32(s_bcnt0_i32_b32, uint32_t r = uint32_t(32 - std::popcount(a)); scc = r != 0; return r)
// s_ctz_i32_b32 (was s_ff1): index of the lowest set bit, -1 if none; s_clz_i32_u32 (s_flbit): from the MSB.
SOP1_32(s_ctz_i32_b32, (void)scc; return a == 0 ? 0xffffffffu : uint32_t(std::countr_zero(a)))
SOP1_32(s_clz_i32_u32, (void)scc; return a == 0 ? 0xffffffffu : uint32_t(std::countl_zero(a)))
SOP1_32(s_sext_i32_i8, (void)scc; return uint32_t(int32_t(int8_t(a))))
SOP1_32(s_sext_i32_i16, (void)scc; return uint32_t(int32_t(int16_t(a))))
SOP1_32(s_abs_i32, uint32_t r = int32_t(a) < 0 ? 0u - a : a; scc = r != 0; return r)
SOP1_32(s_cvt_f32_u32, (void)scc; return bits(float(a)))
SOP1_32(s_cvt_f32_i32, (void)scc; return bits(float(int32_t(a))))
// Float -> integer conversions saturate and send NaN to 0 (RDNA4 ISA guide, V_CVT_U32_F32 / S_CVT_U32_F32).
uint32_t cvt_u32(float f) {
  if (std::isnan(f) || f <= 0.0f) return 0;
  if (f >= 4294967296.0f) return 0xffffffffu;
  return uint32_t(f);
}
int32_t cvt_i32(float f) {
  if (std::isnan(f)) return 0;
  if (f <= -2147483648.0f) return std::numeric_limits<int32_t>::min();
  if (f >= 2147483648.0f) return std::numeric_limits<int32_t>::max();
  return int32_t(f);
}
SOP1_32(s_cvt_u32_f32, (void)scc; return cvt_u32(f32(a)))
SOP1_32(s_cvt_i32_f32, (void)scc; return uint32_t(cvt_i32(f32(a))))

// saveexec (SOP1, wave32): D = EXEC; EXEC = f(S0, EXEC); SCC = (EXEC != 0).
template <typename F>
void saveexec(wave& w, const op& o, F f) {
  const uint32_t old = w.s[sreg::exec_lo];
  const uint32_t src = s32(w, o, 0);
  const uint32_t now = f(src, old);
  d32(w, o, old);
  w.s[sreg::exec_lo] = now;
  w.set_scc(now != 0);
}
void s_and_saveexec_b32(wave& w, const op& o) { saveexec(w, o, [](uint32_t s, uint32_t e) { return s & e; }); }
void s_or_saveexec_b32(wave& w, const op& o) { saveexec(w, o, [](uint32_t s, uint32_t e) { return s | e; }); }
void s_xor_saveexec_b32(wave& w, const op& o) { saveexec(w, o, [](uint32_t s, uint32_t e) { return s ^ e; }); }
void s_and_not1_saveexec_b32(wave& w, const op& o) { saveexec(w, o, [](uint32_t s, uint32_t e) { return s & ~e; }); }
void s_or_not1_saveexec_b32(wave& w, const op& o) { saveexec(w, o, [](uint32_t s, uint32_t e) { return s | ~e; }); }
void s_and_not0_saveexec_b32(wave& w, const op& o) { saveexec(w, o, [](uint32_t s, uint32_t e) { return ~s & e; }); }
void s_or_not0_saveexec_b32(wave& w, const op& o) { saveexec(w, o, [](uint32_t s, uint32_t e) { return ~s | e; }); }
void s_nand_saveexec_b32(wave& w, const op& o) { saveexec(w, o, [](uint32_t s, uint32_t e) { return ~(s & e); }); }
void s_nor_saveexec_b32(wave& w, const op& o) { saveexec(w, o, [](uint32_t s, uint32_t e) { return ~(s | e); }); }
void s_xnor_saveexec_b32(wave& w, const op& o) { saveexec(w, o, [](uint32_t s, uint32_t e) { return ~(s ^ e); }); }
// s_and_not1_wrexec_b32 / s_and_not0_wrexec: EXEC = D = f(S0, EXEC).
void s_and_not1_wrexec_b32(wave& w, const op& o) {
  const uint32_t r = s32(w, o, 0) & ~w.s[sreg::exec_lo];
  w.s[sreg::exec_lo] = r;
  d32(w, o, r);
  w.set_scc(r != 0);
}

// SOPK: the 16-bit immediate is sign-extended (s_movk_i32, s_addk_co_i32, s_mulk_i32).
int32_t simm16(const wave& w, const op& o, unsigned i) { return int16_t(uint16_t(read(w, o.src[i])[0])); }
void s_movk_i32(wave& w, const op& o) { d32(w, o, uint32_t(simm16(w, o, 0))); }
void s_cmovk_i32(wave& w, const op& o) {
  if (w.scc()) d32(w, o, uint32_t(simm16(w, o, 0)));
}
void s_addk_co_i32(wave& w, const op& o) {
  const uint32_t a = w.s[o.dst[0].reg], b = uint32_t(simm16(w, o, 0)), r = a + b;
  d32(w, o, r);
  w.set_scc(((a ^ r) & (b ^ r)) >> 31);
}
void s_mulk_i32(wave& w, const op& o) {
  d32(w, o, uint32_t(int64_t(int32_t(w.s[o.dst[0].reg])) * simm16(w, o, 0)));
}

// SOPC: SCC = compare(S0, S1).
#define SOPC(name, T, cmp)                                    \
  void name(wave& w, const op& o) {                           \
    const T a = T(s32(w, o, 0)), b = T(s32(w, o, 1));         \
    w.set_scc(cmp);                                           \
  }
SOPC(s_cmp_eq_i32, int32_t, a == b)
SOPC(s_cmp_lg_i32, int32_t, a != b)
SOPC(s_cmp_gt_i32, int32_t, a > b)
SOPC(s_cmp_ge_i32, int32_t, a >= b)
SOPC(s_cmp_lt_i32, int32_t, a < b)
SOPC(s_cmp_le_i32, int32_t, a <= b)
SOPC(s_cmp_eq_u32, uint32_t, a == b)
SOPC(s_cmp_lg_u32, uint32_t, a != b)
SOPC(s_cmp_gt_u32, uint32_t, a > b)
SOPC(s_cmp_ge_u32, uint32_t, a >= b)
SOPC(s_cmp_lt_u32, uint32_t, a < b)
SOPC(s_cmp_le_u32, uint32_t, a <= b)
SOPC(s_bitcmp0_b32, uint32_t, ((a >> (b & 31)) & 1u) == 0)
SOPC(s_bitcmp1_b32, uint32_t, ((a >> (b & 31)) & 1u) == 1)
// SOPK compares (gfx11): SCC = S0 op simm16 (sign-extended for _i32, zero-extended for _u32).
#define SOPK_CMP(name, T, ext, cmp)                                                   \
  void name(wave& w, const op& o) {                                                   \
    const T a = T(s32(w, o, 0)), b = T(ext(uint16_t(read(w, o.src[1])[0])));          \
    w.set_scc(cmp);                                                                   \
  }
#define TP_SEXT16(x) int32_t(int16_t(x))
#define TP_ZEXT16(x) uint32_t(x)
SOPK_CMP(s_cmpk_eq_i32, int32_t, TP_SEXT16, a == b)
SOPK_CMP(s_cmpk_lg_i32, int32_t, TP_SEXT16, a != b)
SOPK_CMP(s_cmpk_gt_i32, int32_t, TP_SEXT16, a > b)
SOPK_CMP(s_cmpk_ge_i32, int32_t, TP_SEXT16, a >= b)
SOPK_CMP(s_cmpk_lt_i32, int32_t, TP_SEXT16, a < b)
SOPK_CMP(s_cmpk_le_i32, int32_t, TP_SEXT16, a <= b)
SOPK_CMP(s_cmpk_eq_u32, uint32_t, TP_ZEXT16, a == b)
SOPK_CMP(s_cmpk_lg_u32, uint32_t, TP_ZEXT16, a != b)
SOPK_CMP(s_cmpk_gt_u32, uint32_t, TP_ZEXT16, a > b)
SOPK_CMP(s_cmpk_ge_u32, uint32_t, TP_ZEXT16, a >= b)
SOPK_CMP(s_cmpk_lt_u32, uint32_t, TP_ZEXT16, a < b)
SOPK_CMP(s_cmpk_le_u32, uint32_t, TP_ZEXT16, a <= b)
void s_bitset1_b32(wave& w, const op& o) { w.s[o.dst[0].reg] |= 1u << (s32(w, o, 0) & 31); }
void s_bitset0_b32(wave& w, const op& o) { w.s[o.dst[0].reg] &= ~(1u << (s32(w, o, 0) & 31)); }

void s_cmp_eq_u64(wave& w, const op& o) { w.set_scc(s64(w, o, 0) == s64(w, o, 1)); }
void s_cmp_lg_u64(wave& w, const op& o) { w.set_scc(s64(w, o, 0) != s64(w, o, 1)); }

// SOPP program control (RDNA4 ISA guide §4.4 "Branching").
void s_branch(wave& w, const op& o) { w.pc = o.target; }
void s_cbranch_scc0(wave& w, const op& o) {
  if (!w.scc()) w.pc = o.target;
}
void s_cbranch_scc1(wave& w, const op& o) {
  if (w.scc()) w.pc = o.target;
}
void s_cbranch_vccz(wave& w, const op& o) {
  if (w.s[sreg::vcc_lo] == 0) w.pc = o.target;
}
void s_cbranch_vccnz(wave& w, const op& o) {
  if (w.s[sreg::vcc_lo] != 0) w.pc = o.target;
}
void s_cbranch_execz(wave& w, const op& o) {
  if (w.s[sreg::exec_lo] == 0) w.pc = o.target;
}
void s_cbranch_execnz(wave& w, const op& o) {
  if (w.s[sreg::exec_lo] != 0) w.pc = o.target;
}
void s_endpgm(wave& w, const op&) {
  w.state = wave::run_state::done;
  w.yield = true;
}
// Wait counters (s_wait_*cnt, s_waitcnt), s_nop, s_delay_alu, s_clause, cache writeback/invalidate: no-ops. The model
// completes every memory instruction before the next instruction issues and has one coherent memory, so nothing is
// ever outstanding (RDNA4 ISA guide §4.5 "Data dependency resolution": the counters only order outstanding work).
void no_op(wave&, const op&) {}
// s_sendmsg sendmsg(MSG_DEALLOC_VGPRS) releases VGPRs before s_endpgm (RDNA4 ISA guide §4.?); nothing to model.
// s_trap: the dialect's asserts lower to s_trap 2; without a trap handler the launch fails (here: with the PC).
void s_trap(wave& w, const op& o) { fail(w, o, "the kernel trapped (s_trap, an assertion in device code)"); }

// Barriers (RDNA4 ISA guide §4.6 "Barriers" / "Workgroup barrier"): s_barrier_signal -1 marks this wave arrived;
// s_barrier_wait blocks until every live wave of the workgroup has signalled. gfx11's s_barrier is both.
void s_barrier_signal(wave& w, const op&) {
  workgroup& g = *w.wg;
  w.barrier_gen = g.generation;
  if (++g.arrived >= g.live) {
    g.arrived = 0;
    ++g.generation;
  }
}
void s_barrier_wait(wave& w, const op&) {
  if (w.barrier_gen == w.wg->generation) {  // not everyone has signalled yet: park until the generation moves on
    w.state = wave::run_state::at_barrier;
    w.yield = true;
  }
}
void s_barrier(wave& w, const op& o) {
  s_barrier_signal(w, o);
  s_barrier_wait(w, o);
}

// Scalar float compares (SOPC, gfx12): SCC = compare(S0, S1) with the VOPC meanings (ordered compares false on NaN,
// the n* forms their negations).
#define SOPC_F32(name, cmp)                                   \
  void name(wave& w, const op& o) {                           \
    const float a = f32(s32(w, o, 0)), b = f32(s32(w, o, 1)); \
    w.set_scc(cmp);                                           \
  }
SOPC_F32(s_cmp_lt_f32, a < b)
SOPC_F32(s_cmp_eq_f32, a == b)
SOPC_F32(s_cmp_le_f32, a <= b)
SOPC_F32(s_cmp_gt_f32, a > b)
SOPC_F32(s_cmp_lg_f32, a < b || a > b)
SOPC_F32(s_cmp_ge_f32, a >= b)
SOPC_F32(s_cmp_o_f32, a == a && b == b)
SOPC_F32(s_cmp_u_f32, a != a || b != b)
SOPC_F32(s_cmp_nge_f32, !(a >= b))
SOPC_F32(s_cmp_nlg_f32, !(a < b || a > b))
SOPC_F32(s_cmp_ngt_f32, !(a > b))
SOPC_F32(s_cmp_nle_f32, !(a <= b))
SOPC_F32(s_cmp_neq_f32, !(a == b))
SOPC_F32(s_cmp_nlt_f32, !(a < b))
// Scalar fused multiply-adds (SOP2/SOPK-like forms, one rounding): s_fmamk D = S0 * K + S1 (printed S0, K, S1),
// s_fmaak D = S0 * S1 + K, s_fmac D = S0 * S1 + D.
SOP2_32(s_max_num_f32, (void)scc; const float x = f32(a), y = f32(b);
        return bits(std::isnan(x) ? y : std::isnan(y) ? x : (x == y ? (std::signbit(x) ? y : x) : (x > y ? x : y))))
SOP2_32(s_min_num_f32, (void)scc; const float x = f32(a), y = f32(b);
        return bits(std::isnan(x) ? y : std::isnan(y) ? x : (x == y ? (std::signbit(x) ? x : y) : (x < y ? x : y))))
void s_fma3_f32(wave& w, const op& o) { d32(w, o, bits(std::fma(f32(s32(w, o, 0)), f32(s32(w, o, 1)), f32(s32(w, o, 2))))); }
void s_fmac_f32(wave& w, const op& o) {
  d32(w, o, bits(std::fma(f32(s32(w, o, 0)), f32(s32(w, o, 1)), f32(w.s[o.dst[0].reg]))));
}
SOP1_32(s_rndne_f32, (void)scc; return bits(std::nearbyint(f32(a))))
SOP1_32(s_trunc_f32, (void)scc; return bits(std::trunc(f32(a))))
SOP1_32(s_floor_f32, (void)scc; return bits(std::floor(f32(a))))
SOP1_32(s_ceil_f32, (void)scc; return bits(std::ceil(f32(a))))

// PC-relative long jumps (SOP1, RDNA4 ISA guide §4.4): s_getpc_b64 D = address of the next instruction;
// s_setpc_b64 jumps to S; s_swappc_b64 does both. Addresses are the code object's virtual addresses.
void s_getpc_b64(wave& w, const op& o) { d64(w, o, w.prog->text_address + o.pc + 4); }
void jump_to(wave& w, const op& o, uint64_t addr) {
  const int32_t idx = addr >= w.prog->text_address ? w.prog->index_at(addr - w.prog->text_address) : -1;
  if (idx < 0) fail(w, o, "jump to an address that is not an instruction in .text");
  w.pc = uint32_t(idx);
}
void s_setpc_b64(wave& w, const op& o) { jump_to(w, o, s64(w, o, 0)); }
void s_swappc_b64(wave& w, const op& o) {
  const uint64_t target = s64(w, o, 0);
  d64(w, o, w.prog->text_address + o.pc + 4);
  jump_to(w, o, target);
}

constexpr semantic table[] = {
    {"s_and_b32", s_and_b32, 1}, {"s_or_b32", s_or_b32, 1}, {"s_xor_b32", s_xor_b32, 1},
    {"s_nand_b32", s_nand_b32, 1}, {"s_nor_b32", s_nor_b32, 1}, {"s_xnor_b32", s_xnor_b32, 1},
    {"s_and_not1_b32", s_and_not1_b32, 1}, {"s_or_not1_b32", s_or_not1_b32, 1},
    {"s_and_b64", s_and_b64, 1, {ty::b64, ty::b64}}, {"s_or_b64", s_or_b64, 1, {ty::b64, ty::b64}},
    {"s_xor_b64", s_xor_b64, 1, {ty::b64, ty::b64}}, {"s_and_not1_b64", s_and_not1_b64, 1, {ty::b64, ty::b64}},
    {"s_or_not1_b64", s_or_not1_b64, 1, {ty::b64, ty::b64}},
    {"s_lshl_b32", s_lshl_b32, 1}, {"s_lshr_b32", s_lshr_b32, 1}, {"s_ashr_i32", s_ashr_i32, 1},
    {"s_lshl_b64", s_lshl_b64, 1, {ty::b64, ty::b32}}, {"s_lshr_b64", s_lshr_b64, 1, {ty::b64, ty::b32}},
    {"s_ashr_i64", s_ashr_i64, 1, {ty::b64, ty::b32}},
    {"s_lshl1_add_u32", s_lshl1_add_u32, 1}, {"s_lshl2_add_u32", s_lshl2_add_u32, 1},
    {"s_lshl3_add_u32", s_lshl3_add_u32, 1}, {"s_lshl4_add_u32", s_lshl4_add_u32, 1},
    {"s_add_co_u32", s_add_co_u32, 1}, {"s_sub_co_u32", s_sub_co_u32, 1},
    {"s_add_co_ci_u32", s_add_co_ci_u32, 1}, {"s_sub_co_ci_u32", s_sub_co_ci_u32, 1},
    {"s_add_co_i32", s_add_co_i32, 1}, {"s_sub_co_i32", s_sub_co_i32, 1},
    {"s_add_nc_u64", s_add_nc_u64, 1, {ty::b64, ty::b64}}, {"s_sub_nc_u64", s_sub_nc_u64, 1, {ty::b64, ty::b64}},
    {"s_mul_u64", s_mul_u64, 1, {ty::b64, ty::b64}},
    {"s_mul_i32", s_mul_i32, 1}, {"s_mul_hi_u32", s_mul_hi_u32, 1}, {"s_mul_hi_i32", s_mul_hi_i32, 1},
    {"s_min_i32", s_min_i32, 1}, {"s_min_u32", s_min_u32, 1}, {"s_max_i32", s_max_i32, 1},
    {"s_max_u32", s_max_u32, 1}, {"s_cselect_b32", s_cselect_b32, 1},
    {"s_cselect_b64", s_cselect_b64, 1, {ty::b64, ty::b64}}, {"s_bfm_b32", s_bfm_b32, 1},
    {"s_bfe_u32", s_bfe_u32, 1}, {"s_bfe_i32", s_bfe_i32, 1},
    {"s_pack_ll_b32_b16", s_pack_ll_b32_b16, 1}, {"s_pack_lh_b32_b16", s_pack_lh_b32_b16, 1},
    {"s_pack_hh_b32_b16", s_pack_hh_b32_b16, 1}, {"s_pack_hl_b32_b16", s_pack_hl_b32_b16, 1},
    {"s_add_f32", s_add_f32, 1, {ty::f32, ty::f32}}, {"s_sub_f32", s_sub_f32, 1, {ty::f32, ty::f32}},
    {"s_mul_f32", s_mul_f32, 1, {ty::f32, ty::f32}},
    {"s_mov_b32", s_mov_b32, 1}, {"s_mov_b64", s_mov_b64, 1, {ty::b64}}, {"s_cmov_b32", s_cmov_b32, 1},
    {"s_not_b32", s_not_b32, 1}, {"s_not_b64", s_not_b64, 1, {ty::b64}}, {"s_brev_b32", s_brev_b32, 1},
    {"s_bcnt1_i32_b32", s_bcnt1_i32_b32, 1}, {"s_bcnt0_i32_b32", s_bcnt0_i32_b32, 1},
    {"s_ctz_i32_b32", s_ctz_i32_b32, 1}, {"s_clz_i32_u32", s_clz_i32_u32, 1},
    {"s_sext_i32_i8", s_sext_i32_i8, 1}, {"s_sext_i32_i16", s_sext_i32_i16, 1}, {"s_abs_i32", s_abs_i32, 1},
    {"s_cvt_f32_u32", s_cvt_f32_u32, 1}, {"s_cvt_f32_i32", s_cvt_f32_i32, 1},
    {"s_cvt_u32_f32", s_cvt_u32_f32, 1, {ty::f32}}, {"s_cvt_i32_f32", s_cvt_i32_f32, 1, {ty::f32}},
    {"s_and_saveexec_b32", s_and_saveexec_b32, 1}, {"s_or_saveexec_b32", s_or_saveexec_b32, 1},
    {"s_xor_saveexec_b32", s_xor_saveexec_b32, 1}, {"s_and_not1_saveexec_b32", s_and_not1_saveexec_b32, 1},
    {"s_or_not1_saveexec_b32", s_or_not1_saveexec_b32, 1}, {"s_and_not0_saveexec_b32", s_and_not0_saveexec_b32, 1},
    {"s_or_not0_saveexec_b32", s_or_not0_saveexec_b32, 1}, {"s_nand_saveexec_b32", s_nand_saveexec_b32, 1},
    {"s_nor_saveexec_b32", s_nor_saveexec_b32, 1}, {"s_xnor_saveexec_b32", s_xnor_saveexec_b32, 1},
    {"s_and_not1_wrexec_b32", s_and_not1_wrexec_b32, 1},
    {"s_movk_i32", s_movk_i32, 1}, {"s_cmovk_i32", s_cmovk_i32, 1}, {"s_addk_co_i32", s_addk_co_i32, 1},
    {"s_mulk_i32", s_mulk_i32, 1},
    {"s_cmp_eq_i32", s_cmp_eq_i32, 0}, {"s_cmp_lg_i32", s_cmp_lg_i32, 0}, {"s_cmp_gt_i32", s_cmp_gt_i32, 0},
    {"s_cmp_ge_i32", s_cmp_ge_i32, 0}, {"s_cmp_lt_i32", s_cmp_lt_i32, 0}, {"s_cmp_le_i32", s_cmp_le_i32, 0},
    {"s_cmp_eq_u32", s_cmp_eq_u32, 0}, {"s_cmp_lg_u32", s_cmp_lg_u32, 0}, {"s_cmp_gt_u32", s_cmp_gt_u32, 0},
    {"s_cmp_ge_u32", s_cmp_ge_u32, 0}, {"s_cmp_lt_u32", s_cmp_lt_u32, 0}, {"s_cmp_le_u32", s_cmp_le_u32, 0},
    {"s_bitcmp0_b32", s_bitcmp0_b32, 0}, {"s_bitcmp1_b32", s_bitcmp1_b32, 0},
    {"s_cmp_eq_u64", s_cmp_eq_u64, 0, {ty::b64, ty::b64}}, {"s_cmp_lg_u64", s_cmp_lg_u64, 0, {ty::b64, ty::b64}},
    {"s_branch", s_branch, 0}, {"s_cbranch_scc0", s_cbranch_scc0, 0}, {"s_cbranch_scc1", s_cbranch_scc1, 0},
    {"s_cbranch_vccz", s_cbranch_vccz, 0}, {"s_cbranch_vccnz", s_cbranch_vccnz, 0},
    {"s_cbranch_execz", s_cbranch_execz, 0}, {"s_cbranch_execnz", s_cbranch_execnz, 0},
    {"s_endpgm", s_endpgm, 0}, {"s_trap", s_trap, 0},
    {"s_barrier_signal", s_barrier_signal, 0}, {"s_barrier_wait", s_barrier_wait, 0}, {"s_barrier", s_barrier, 0},
    {"s_nop", no_op, 0}, {"s_delay_alu", no_op, 0}, {"s_clause", no_op, 0}, {"s_code_end", no_op, 0},
    {"s_sendmsg", no_op, 0}, {"s_wait_loadcnt", no_op, 0}, {"s_wait_storecnt", no_op, 0},
    {"s_wait_dscnt", no_op, 0}, {"s_wait_kmcnt", no_op, 0}, {"s_wait_samplecnt", no_op, 0},
    {"s_wait_bvhcnt", no_op, 0}, {"s_wait_expcnt", no_op, 0}, {"s_wait_loadcnt_dscnt", no_op, 0},
    {"s_wait_storecnt_dscnt", no_op, 0}, {"s_wait_alu", no_op, 0}, {"s_waitcnt", no_op, 0},
    {"s_waitcnt_vscnt", no_op, 0}, {"s_waitcnt_vmcnt", no_op, 0}, {"s_waitcnt_lgkmcnt", no_op, 0},
    {"s_waitcnt_expcnt", no_op, 0}, {"s_wait_idle", no_op, 0}, {"global_wb", no_op, 0}, {"global_inv", no_op, 0},
    {"s_set_inst_prefetch_distance", no_op, 0}, {"s_sleep", no_op, 0},
    {"s_cmp_lt_f32", s_cmp_lt_f32, 0, {ty::f32, ty::f32}}, {"s_cmp_eq_f32", s_cmp_eq_f32, 0, {ty::f32, ty::f32}},
    {"s_cmp_le_f32", s_cmp_le_f32, 0, {ty::f32, ty::f32}}, {"s_cmp_gt_f32", s_cmp_gt_f32, 0, {ty::f32, ty::f32}},
    {"s_cmp_lg_f32", s_cmp_lg_f32, 0, {ty::f32, ty::f32}}, {"s_cmp_ge_f32", s_cmp_ge_f32, 0, {ty::f32, ty::f32}},
    {"s_cmp_o_f32", s_cmp_o_f32, 0, {ty::f32, ty::f32}}, {"s_cmp_u_f32", s_cmp_u_f32, 0, {ty::f32, ty::f32}},
    {"s_cmp_nge_f32", s_cmp_nge_f32, 0, {ty::f32, ty::f32}}, {"s_cmp_nlg_f32", s_cmp_nlg_f32, 0, {ty::f32, ty::f32}},
    {"s_cmp_ngt_f32", s_cmp_ngt_f32, 0, {ty::f32, ty::f32}}, {"s_cmp_nle_f32", s_cmp_nle_f32, 0, {ty::f32, ty::f32}},
    {"s_cmp_neq_f32", s_cmp_neq_f32, 0, {ty::f32, ty::f32}}, {"s_cmp_nlt_f32", s_cmp_nlt_f32, 0, {ty::f32, ty::f32}},
    {"s_max_num_f32", s_max_num_f32, 1, {ty::f32, ty::f32}}, {"s_min_num_f32", s_min_num_f32, 1, {ty::f32, ty::f32}},
    {"s_fmamk_f32", s_fma3_f32, 1, {ty::f32, ty::f32, ty::f32}}, {"s_fmaak_f32", s_fma3_f32, 1, {ty::f32, ty::f32, ty::f32}},
    {"s_fmac_f32", s_fmac_f32, 1, {ty::f32, ty::f32}},
    {"s_rndne_f32", s_rndne_f32, 1, {ty::f32}}, {"s_trunc_f32", s_trunc_f32, 1, {ty::f32}},
    {"s_floor_f32", s_floor_f32, 1, {ty::f32}}, {"s_ceil_f32", s_ceil_f32, 1, {ty::f32}},
    {"s_cmpk_eq_i32", s_cmpk_eq_i32, 0}, {"s_cmpk_lg_i32", s_cmpk_lg_i32, 0}, {"s_cmpk_gt_i32", s_cmpk_gt_i32, 0},
    {"s_cmpk_ge_i32", s_cmpk_ge_i32, 0}, {"s_cmpk_lt_i32", s_cmpk_lt_i32, 0}, {"s_cmpk_le_i32", s_cmpk_le_i32, 0},
    {"s_cmpk_eq_u32", s_cmpk_eq_u32, 0}, {"s_cmpk_lg_u32", s_cmpk_lg_u32, 0}, {"s_cmpk_gt_u32", s_cmpk_gt_u32, 0},
    {"s_cmpk_ge_u32", s_cmpk_ge_u32, 0}, {"s_cmpk_lt_u32", s_cmpk_lt_u32, 0}, {"s_cmpk_le_u32", s_cmpk_le_u32, 0},
    {"s_bitset1_b32", s_bitset1_b32, 1}, {"s_bitset0_b32", s_bitset0_b32, 1},
    {"s_getpc_b64", s_getpc_b64, 1}, {"s_setpc_b64", s_setpc_b64, 0, {ty::b64}},
    {"s_swappc_b64", s_swappc_b64, 1, {ty::b64}},
};

}  // namespace

std::span<const semantic> salu_semantics() { return table; }

bool is_no_op_handler(handler h) { return h == no_op; }

}  // namespace tp::amdgpu_sim::machine
