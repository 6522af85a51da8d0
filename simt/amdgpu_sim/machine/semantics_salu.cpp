// Scalar ALU and program control: SOP1, SOP2, SOPK, SOPC, SOPP (RDNA3 and RDNA4 ISA guides: chapter 5 "Program Flow
// Control", chapter 6 "Scalar ALU Operations" and chapter 16's opcode tables, cited per row). SCC is written exactly
// where those tables write it. Each row of `table` below declares one instruction (instruction.h); the comment above a
// row paraphrases the guide's entry where the body does not say it plainly.
#include <bit>
#include <cmath>
#include <limits>

#include "simt/amdgpu_sim/machine/host_isa.h"
#include "simt/amdgpu_sim/machine/instruction.h"
#include "simt/amdgpu_sim/machine/wave.h"

namespace tp::amdgpu_sim::machine::TP_SIM_HOST_LEVEL {
TP_SIM_HOST_CODE_BEGIN
namespace {

uint32_t s32(const wave& w, const op& o, unsigned i) { return read(w, o.src[i])[0]; }
uint64_t s64(const wave& w, const op& o, unsigned i) { return read64(w, o.src[i], 0); }
void d32(wave& w, const op& o, uint32_t v) { w.s[o.dst[0].reg] = v; }
void d64(wave& w, const op& o, uint64_t v) {
  w.s[o.dst[0].reg] = uint32_t(v);
  w.s[o.dst[0].reg + 1] = uint32_t(v >> 32);
}

// The shapes of the SALU bodies. Each takes the row's lambda and returns the handler that runs it: `scc` is the
// current SCC, and the body writes it where the instruction defines it.
template <class F>
void run_binary32(wave& w, const op& o) {
  bool scc = w.scc();
  d32(w, o, F{}(s32(w, o, 0), s32(w, o, 1), scc));
  w.set_scc(scc);
}
template <class F>
constexpr handler binary32(F) { return &run_binary32<F>; }  // D = f(S0, S1, scc)
template <class F>
void run_binary64(wave& w, const op& o) {
  bool scc = w.scc();
  d64(w, o, F{}(s64(w, o, 0), s64(w, o, 1), scc));
  w.set_scc(scc);
}
template <class F>
constexpr handler binary64(F) { return &run_binary64<F>; }  // 64-bit D = f(S0, S1, scc)
template <class F>
void run_shift64(wave& w, const op& o) {
  bool scc = w.scc();
  d64(w, o, F{}(s64(w, o, 0), uint64_t(s32(w, o, 1)), scc));
  w.set_scc(scc);
}
template <class F>
constexpr handler shift64(F) { return &run_shift64<F>; }  // 64-bit D = f(S0, 32-bit S1, scc)
template <class F>
void run_unary32(wave& w, const op& o) {
  bool scc = w.scc();
  d32(w, o, F{}(s32(w, o, 0), scc));
  w.set_scc(scc);
}
template <class F>
constexpr handler unary32(F) { return &run_unary32<F>; }  // D = f(S0, scc)
template <class F>
void run_compare32(wave& w, const op& o) { w.set_scc(F{}(s32(w, o, 0), s32(w, o, 1))); }
template <class F>
constexpr handler compare32(F) { return &run_compare32<F>; }  // SCC = f(S0, S1)
template <class F>
void run_compare64(wave& w, const op& o) { w.set_scc(F{}(s64(w, o, 0), s64(w, o, 1))); }
template <class F>
constexpr handler compare64(F) { return &run_compare64<F>; }
// SOPK compares: SCC = f(S0, the 16-bit immediate), extended by the body (sign for _i32, zero for _u32).
template <class F>
void run_compare_k(wave& w, const op& o) { w.set_scc(F{}(s32(w, o, 0), uint16_t(read(w, o.src[1])[0]))); }
template <class F>
constexpr handler compare_k(F) { return &run_compare_k<F>; }
// SCC = f(float S0, float S1): the VOPC meanings (ordered compares false on NaN, the n* forms their negations).
template <class F>
void run_compare_f32(wave& w, const op& o) { w.set_scc(F{}(f32(s32(w, o, 0)), f32(s32(w, o, 1)))); }
template <class F>
constexpr handler compare_f32(F) { return &run_compare_f32<F>; }
// saveexec (SOP1, wave32): D = EXEC; EXEC = f(S0, EXEC); SCC = EXEC != 0.
template <class F>
void run_saveexec(wave& w, const op& o) {
  const uint32_t old = w.s[sreg::exec_lo];
  const uint32_t now = F{}(s32(w, o, 0), old);
  d32(w, o, old);
  w.s[sreg::exec_lo] = now;
  w.set_scc(now != 0);
}
template <class F>
constexpr handler saveexec(F) { return &run_saveexec<F>; }
// A branch taken when f(wave) holds (the target is resolved at decode: RDNA3 §5.4 / RDNA4 §5.5 "Branching").
template <class F>
void run_branch(wave& w, const op& o) {
  if (F{}(w)) w.pc = o.target;
}
template <class F>
constexpr handler branch(F) { return &run_branch<F>; }

// SOPK: the 16-bit immediate is sign-extended (s_movk_i32, s_addk_co_i32, s_mulk_i32).
int32_t simm16(const wave& w, const op& o, unsigned i) { return int16_t(uint16_t(read(w, o.src[i])[0])); }

uint32_t bit_reverse(uint32_t x) {
  x = ((x >> 1) & 0x55555555u) | ((x & 0x55555555u) << 1);
  x = ((x >> 2) & 0x33333333u) | ((x & 0x33333333u) << 2);
  x = ((x >> 4) & 0x0f0f0f0fu) | ((x & 0x0f0f0f0fu) << 4);
  return __builtin_bswap32(x);
}
// Float -> integer conversions saturate and send NaN to 0 (V_CVT_U32_F32 / S_CVT_U32_F32).
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

void s_mov_b32(wave& w, const op& o) { d32(w, o, s32(w, o, 0)); }
void s_mov_b64(wave& w, const op& o) { d64(w, o, s64(w, o, 0)); }
void s_cmov_b32(wave& w, const op& o) {
  if (w.scc()) d32(w, o, s32(w, o, 0));
}
void s_not_b64(wave& w, const op& o) {
  const uint64_t r = ~s64(w, o, 0);
  d64(w, o, r);
  w.set_scc(r != 0);
}
// EXEC = D = S0 & ~EXEC; SCC = result != 0.
void s_and_not1_wrexec_b32(wave& w, const op& o) {
  const uint32_t r = s32(w, o, 0) & ~w.s[sreg::exec_lo];
  w.s[sreg::exec_lo] = r;
  d32(w, o, r);
  w.set_scc(r != 0);
}
void s_movk_i32(wave& w, const op& o) { d32(w, o, uint32_t(simm16(w, o, 0))); }
void s_cmovk_i32(wave& w, const op& o) {
  if (w.scc()) d32(w, o, uint32_t(simm16(w, o, 0)));
}
// D = D + simm16; SCC = signed overflow.
void s_addk_co_i32(wave& w, const op& o) {
  const uint32_t a = w.s[o.dst[0].reg], b = uint32_t(simm16(w, o, 0)), r = a + b;
  d32(w, o, r);
  w.set_scc(((a ^ r) & (b ^ r)) >> 31);
}
void s_mulk_i32(wave& w, const op& o) { d32(w, o, uint32_t(int64_t(int32_t(w.s[o.dst[0].reg])) * simm16(w, o, 0))); }
void s_bitset1_b32(wave& w, const op& o) { w.s[o.dst[0].reg] |= 1u << (s32(w, o, 0) & 31); }
void s_bitset0_b32(wave& w, const op& o) { w.s[o.dst[0].reg] &= ~(1u << (s32(w, o, 0) & 31)); }
// s_fmamk D = S0 * K + S1 (printed S0, K, S1), s_fmaak D = S0 * S1 + K: one rounding either way, as printed.
void s_fma3_f32(wave& w, const op& o) { d32(w, o, bits(std::fma(f32(s32(w, o, 0)), f32(s32(w, o, 1)), f32(s32(w, o, 2))))); }
void s_fmac_f32(wave& w, const op& o) {  // D = S0 * S1 + D
  d32(w, o, bits(std::fma(f32(s32(w, o, 0)), f32(s32(w, o, 1)), f32(w.s[o.dst[0].reg]))));
}

void s_endpgm(wave& w, const op&) {
  w.state = wave::run_state::done;
  w.yield = true;
}
// s_trap: the dialect's asserts lower to s_trap 2; without a trap handler the launch fails (here: with the PC).
void s_trap(wave& w, const op& o) { fail(w, o, "the kernel trapped (s_trap, an assertion in device code)"); }

// Barriers (RDNA3 §5.5 "Work-groups and Barriers"; RDNA4 §5.6.2 "Barrier Instructions"): s_barrier_signal -1 marks
// this wave arrived at the work-group barrier, which completes when every wave of the work-group has signalled or
// ended; s_barrier_wait blocks until it has completed. gfx11's s_barrier is both.
void s_barrier_signal(wave& w, const op&) {
  workgroup& g = *w.wg;
  w.barrier_gen = g.generation;
  if (++g.arrived >= g.live) g.complete_barrier();
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

// PC-relative long jumps: s_getpc_b64 D = address of the next instruction; s_setpc_b64 jumps to S; s_swappc_b64
// does both. Addresses are device addresses: the code object's virtual address plus the base its image was placed
// at (program::load_base; 0 when the runtime placed none), as the kernel adds PC-relative offsets to them to reach
// its globals.
uint64_t next_pc_address(const wave& w, const op& o) { return w.prog->load_base + w.prog->text_address + o.pc + 4; }
void s_getpc_b64(wave& w, const op& o) { d64(w, o, next_pc_address(w, o)); }
void jump_to(wave& w, const op& o, uint64_t device_addr) {
  const uint64_t addr = device_addr - w.prog->load_base;
  const int32_t idx = addr >= w.prog->text_address ? w.prog->index_at(addr - w.prog->text_address) : -1;
  if (idx < 0) fail(w, o, "jump to an address that is not an instruction in .text");
  w.pc = uint32_t(idx);
}
void s_setpc_b64(wave& w, const op& o) { jump_to(w, o, s64(w, o, 0)); }
void s_swappc_b64(wave& w, const op& o) {
  const uint64_t target = s64(w, o, 0);
  d64(w, o, next_pc_address(w, o));
  jump_to(w, o, target);
}

using enum guide_section;
constexpr uint16_t wait = f_no_op | f_not_data;  // a counter wait or hint: nothing outstanding in this model

constexpr instruction table[] = {
    // ---- SOP2: bitwise ops set SCC = (D != 0) ----
    decl("s_and_b32", binary32([](uint32_t a, uint32_t b, bool& scc) { const uint32_t r = a & b; scc = r != 0; return r; }), sop2),
    decl("s_or_b32", binary32([](uint32_t a, uint32_t b, bool& scc) { const uint32_t r = a | b; scc = r != 0; return r; }), sop2),
    decl("s_xor_b32", binary32([](uint32_t a, uint32_t b, bool& scc) { const uint32_t r = a ^ b; scc = r != 0; return r; }), sop2),
    decl("s_nand_b32", binary32([](uint32_t a, uint32_t b, bool& scc) { const uint32_t r = ~(a & b); scc = r != 0; return r; }), sop2),
    decl("s_nor_b32", binary32([](uint32_t a, uint32_t b, bool& scc) { const uint32_t r = ~(a | b); scc = r != 0; return r; }), sop2),
    decl("s_xnor_b32", binary32([](uint32_t a, uint32_t b, bool& scc) { const uint32_t r = ~(a ^ b); scc = r != 0; return r; }), sop2),
    decl("s_and_not1_b32", binary32([](uint32_t a, uint32_t b, bool& scc) { const uint32_t r = a & ~b; scc = r != 0; return r; }), sop2),
    decl("s_or_not1_b32", binary32([](uint32_t a, uint32_t b, bool& scc) { const uint32_t r = a | ~b; scc = r != 0; return r; }), sop2),
    decl("s_and_b64", binary64([](uint64_t a, uint64_t b, bool& scc) { const uint64_t r = a & b; scc = r != 0; return r; }), sop2).srcs(ty::b64, ty::b64),
    decl("s_or_b64", binary64([](uint64_t a, uint64_t b, bool& scc) { const uint64_t r = a | b; scc = r != 0; return r; }), sop2).srcs(ty::b64, ty::b64),
    decl("s_xor_b64", binary64([](uint64_t a, uint64_t b, bool& scc) { const uint64_t r = a ^ b; scc = r != 0; return r; }), sop2).srcs(ty::b64, ty::b64),
    decl("s_and_not1_b64", binary64([](uint64_t a, uint64_t b, bool& scc) { const uint64_t r = a & ~b; scc = r != 0; return r; }), sop2).srcs(ty::b64, ty::b64),
    decl("s_or_not1_b64", binary64([](uint64_t a, uint64_t b, bool& scc) { const uint64_t r = a | ~b; scc = r != 0; return r; }), sop2).srcs(ty::b64, ty::b64),
    // Shifts use the low 5 (6) bits of the count; SCC = (D != 0).
    decl("s_lshl_b32", binary32([](uint32_t a, uint32_t b, bool& scc) { const uint32_t r = a << (b & 31); scc = r != 0; return r; }), sop2),
    decl("s_lshr_b32", binary32([](uint32_t a, uint32_t b, bool& scc) { const uint32_t r = a >> (b & 31); scc = r != 0; return r; }), sop2),
    decl("s_ashr_i32", binary32([](uint32_t a, uint32_t b, bool& scc) { const uint32_t r = uint32_t(int32_t(a) >> (b & 31)); scc = r != 0; return r; }), sop2),
    decl("s_lshl_b64", shift64([](uint64_t a, uint64_t b, bool& scc) { const uint64_t r = a << (b & 63); scc = r != 0; return r; }), sop2).srcs(ty::b64, ty::b32),
    decl("s_lshr_b64", shift64([](uint64_t a, uint64_t b, bool& scc) { const uint64_t r = a >> (b & 63); scc = r != 0; return r; }), sop2).srcs(ty::b64, ty::b32),
    decl("s_ashr_i64", shift64([](uint64_t a, uint64_t b, bool& scc) { const uint64_t r = uint64_t(int64_t(a) >> (b & 63)); scc = r != 0; return r; }), sop2).srcs(ty::b64, ty::b32),
    // s_lshlN_add_u32: D = (S0 << N) + S1, SCC = the carry out of the 32-bit add.
    decl("s_lshl1_add_u32", binary32([](uint32_t a, uint32_t b, bool& scc) { const uint64_t r = (uint64_t(a) << 1) + b; scc = r >> 32 != 0; return uint32_t(r); }), sop2),
    decl("s_lshl2_add_u32", binary32([](uint32_t a, uint32_t b, bool& scc) { const uint64_t r = (uint64_t(a) << 2) + b; scc = r >> 32 != 0; return uint32_t(r); }), sop2),
    decl("s_lshl3_add_u32", binary32([](uint32_t a, uint32_t b, bool& scc) { const uint64_t r = (uint64_t(a) << 3) + b; scc = r >> 32 != 0; return uint32_t(r); }), sop2),
    decl("s_lshl4_add_u32", binary32([](uint32_t a, uint32_t b, bool& scc) { const uint64_t r = (uint64_t(a) << 4) + b; scc = r >> 32 != 0; return uint32_t(r); }), sop2),
    // Adds: the _u32 forms set SCC to the carry (the borrow for subtractions), the _i32 forms to signed overflow, the
    // _ci forms add SCC in. gfx12 renamed them (_co); the operations are the same.
    decl("s_add_co_u32", binary32([](uint32_t a, uint32_t b, bool& scc) { const uint64_t r = uint64_t(a) + b; scc = r >> 32 != 0; return uint32_t(r); }), sop2).gfx11("s_add_u32"),
    decl("s_sub_co_u32", binary32([](uint32_t a, uint32_t b, bool& scc) { scc = b > a; return a - b; }), sop2).gfx11("s_sub_u32"),
    decl("s_add_co_ci_u32", binary32([](uint32_t a, uint32_t b, bool& scc) { const uint64_t r = uint64_t(a) + b + (scc ? 1 : 0); scc = r >> 32 != 0; return uint32_t(r); }), sop2).gfx11("s_addc_u32"),
    decl("s_sub_co_ci_u32", binary32([](uint32_t a, uint32_t b, bool& scc) { const uint64_t borrow = scc ? 1 : 0; scc = uint64_t(b) + borrow > a; return uint32_t(a - b - borrow); }), sop2).gfx11("s_subb_u32"),
    decl("s_add_co_i32", binary32([](uint32_t a, uint32_t b, bool& scc) { const uint32_t r = a + b; scc = ((a ^ r) & (b ^ r)) >> 31; return r; }), sop2).gfx11("s_add_i32"),
    decl("s_sub_co_i32", binary32([](uint32_t a, uint32_t b, bool& scc) { const uint32_t r = a - b; scc = ((a ^ b) & (a ^ r)) >> 31; return r; }), sop2).gfx11("s_sub_i32"),
    decl("s_add_nc_u64", binary64([](uint64_t a, uint64_t b, bool&) { return a + b; }), sop2).srcs(ty::b64, ty::b64).only(on_gfx12),
    decl("s_sub_nc_u64", binary64([](uint64_t a, uint64_t b, bool&) { return a - b; }), sop2).srcs(ty::b64, ty::b64).only(on_gfx12),
    decl("s_mul_u64", binary64([](uint64_t a, uint64_t b, bool&) { return a * b; }), sop2).srcs(ty::b64, ty::b64).only(on_gfx12),
    decl("s_mul_i32", binary32([](uint32_t a, uint32_t b, bool&) { return uint32_t(int64_t(int32_t(a)) * int32_t(b)); }), sop2),
    decl("s_mul_hi_u32", binary32([](uint32_t a, uint32_t b, bool&) { return uint32_t((uint64_t(a) * b) >> 32); }), sop2),
    decl("s_mul_hi_i32", binary32([](uint32_t a, uint32_t b, bool&) { return uint32_t(uint64_t(int64_t(int32_t(a)) * int32_t(b)) >> 32); }), sop2),
    // min/max: SCC = whether S0 was selected.
    decl("s_min_i32", binary32([](uint32_t a, uint32_t b, bool& scc) { scc = int32_t(a) < int32_t(b); return scc ? a : b; }), sop2),
    decl("s_min_u32", binary32([](uint32_t a, uint32_t b, bool& scc) { scc = a < b; return scc ? a : b; }), sop2),
    decl("s_max_i32", binary32([](uint32_t a, uint32_t b, bool& scc) { scc = int32_t(a) > int32_t(b); return scc ? a : b; }), sop2),
    decl("s_max_u32", binary32([](uint32_t a, uint32_t b, bool& scc) { scc = a > b; return scc ? a : b; }), sop2),
    decl("s_cselect_b32", binary32([](uint32_t a, uint32_t b, bool& scc) { return scc ? a : b; }), sop2),
    decl("s_cselect_b64", binary64([](uint64_t a, uint64_t b, bool& scc) { return scc ? a : b; }), sop2).srcs(ty::b64, ty::b64),
    decl("s_bfm_b32", binary32([](uint32_t a, uint32_t b, bool&) { return ((1u << (a & 31)) - 1u) << (b & 31); }), sop2),
    // s_bfe: S1[4:0] is the offset, S1[22:16] the width; SCC = (D != 0).
    decl("s_bfe_u32", binary32([](uint32_t a, uint32_t b, bool& scc) {
           const unsigned off = b & 31, wd = (b >> 16) & 127;
           const uint32_t r = wd == 0 ? 0 : (wd >= 32 ? a >> off : (a >> off) & ((1u << wd) - 1u));
           scc = r != 0;
           return r;
         }), sop2),
    // S_BFE_I32 / S_BFE_I64 (RDNA3 §16.1, RDNA4 §16.1): tmp = (S0.i32 >> offset) & mask, sign-extended from bit
    // width - 1: the shift is arithmetic, so a field reaching past the top bit is filled with S0's sign; a width of
    // the register's size or more takes every bit from the offset up.
    decl("s_bfe_i32", binary32([](uint32_t a, uint32_t b, bool& scc) {
           const unsigned off = b & 31, wd = (b >> 16) & 127;
           int32_t r = 0;
           if (wd != 0) {
             const unsigned sh = 32 - std::min(wd, 32u);
             r = int32_t(uint32_t(int32_t(a) >> off) << sh) >> sh;
           }
           scc = r != 0;
           return uint32_t(r);
         }), sop2),
    // s_bfe_i64: S1[5:0] the offset, S1[22:16] the width, as s_bfe_i32 on the 64-bit S0; SCC = (D != 0).
    decl("s_bfe_i64", shift64([](uint64_t a, uint64_t b, bool& scc) {
           const unsigned off = b & 63, wd = (b >> 16) & 127;
           const uint64_t shifted = uint64_t(int64_t(a) >> off);
           uint64_t r = 0;
           if (wd >= 64) r = shifted;
           else if (wd != 0) {
             const uint64_t field = shifted & ((uint64_t(1) << wd) - 1);
             r = (field >> (wd - 1)) & 1 ? field | ~((uint64_t(1) << wd) - 1) : field;
           }
           scc = r != 0;
           return r;
         }), sop2).srcs(ty::b64, ty::b32),
    decl("s_pack_ll_b32_b16", binary32([](uint32_t a, uint32_t b, bool&) { return (a & 0xffffu) | (b << 16); }), sop2),
    decl("s_pack_lh_b32_b16", binary32([](uint32_t a, uint32_t b, bool&) { return (a & 0xffffu) | (b & 0xffff0000u); }), sop2),
    decl("s_pack_hh_b32_b16", binary32([](uint32_t a, uint32_t b, bool&) { return (a >> 16) | (b & 0xffff0000u); }), sop2),
    decl("s_pack_hl_b32_b16", binary32([](uint32_t a, uint32_t b, bool&) { return (a >> 16) | (b << 16); }), sop2),
    // Scalar float ops (gfx12's SALU floating point): IEEE binary32 with round-to-nearest-even, the wave's mode; the
    // host's float arithmetic is the same operation (the library builds with -ffp-contract=off).
    decl("s_add_f32", binary32([](uint32_t a, uint32_t b, bool&) { return bits(f32(a) + f32(b)); }), sop2).srcs(ty::f32, ty::f32).only(on_gfx12),
    decl("s_sub_f32", binary32([](uint32_t a, uint32_t b, bool&) { return bits(f32(a) - f32(b)); }), sop2).srcs(ty::f32, ty::f32).only(on_gfx12),
    decl("s_mul_f32", binary32([](uint32_t a, uint32_t b, bool&) { return bits(f32(a) * f32(b)); }), sop2).srcs(ty::f32, ty::f32).only(on_gfx12),
    decl("s_max_num_f32", binary32([](uint32_t a, uint32_t b, bool&) { return bits(max_num(f32(a), f32(b))); }), sop2).srcs(ty::f32, ty::f32).only(on_gfx12),
    decl("s_min_num_f32", binary32([](uint32_t a, uint32_t b, bool&) { return bits(min_num(f32(a), f32(b))); }), sop2).srcs(ty::f32, ty::f32).only(on_gfx12),
    decl("s_fmamk_f32", s_fma3_f32, sop2).srcs(ty::f32, ty::f32, ty::f32).only(on_gfx12),
    decl("s_fmaak_f32", s_fma3_f32, sop2).srcs(ty::f32, ty::f32, ty::f32).only(on_gfx12),
    decl("s_fmac_f32", s_fmac_f32, sop2).srcs(ty::f32, ty::f32).only(on_gfx12),

    // ---- SOP1 ----
    decl("s_mov_b32", s_mov_b32, sop1),
    decl("s_mov_b64", s_mov_b64, sop1).srcs(ty::b64),
    decl("s_cmov_b32", s_cmov_b32, sop1),
    decl("s_not_b32", unary32([](uint32_t a, bool& scc) { const uint32_t r = ~a; scc = r != 0; return r; }), sop1),
    decl("s_not_b64", s_not_b64, sop1).srcs(ty::b64),
    decl("s_brev_b32", unary32([](uint32_t a, bool&) { return bit_reverse(a); }), sop1),
    decl("s_bcnt1_i32_b32", unary32([](uint32_t a, bool& scc) { const uint32_t r = uint32_t(std::popcount(a)); scc = r != 0; return r; }), sop1),
    decl("s_bcnt0_i32_b32", unary32([](uint32_t a, bool& scc) { const uint32_t r = uint32_t(32 - std::popcount(a)); scc = r != 0; return r; }), sop1),
    // The index of the lowest (ctz) / highest (clz, counted from the MSB) set bit, -1 when there is none.
    decl("s_ctz_i32_b32", unary32([](uint32_t a, bool&) { return a == 0 ? 0xffffffffu : uint32_t(std::countr_zero(a)); }), sop1),
    decl("s_clz_i32_u32", unary32([](uint32_t a, bool&) { return a == 0 ? 0xffffffffu : uint32_t(std::countl_zero(a)); }), sop1),
    decl("s_sext_i32_i8", unary32([](uint32_t a, bool&) { return uint32_t(int32_t(int8_t(a))); }), sop1),
    decl("s_sext_i32_i16", unary32([](uint32_t a, bool&) { return uint32_t(int32_t(int16_t(a))); }), sop1),
    decl("s_abs_i32", unary32([](uint32_t a, bool& scc) { const uint32_t r = int32_t(a) < 0 ? 0u - a : a; scc = r != 0; return r; }), sop1),
    decl("s_cvt_f32_u32", unary32([](uint32_t a, bool&) { return bits(float(a)); }), sop1).only(on_gfx12),
    decl("s_cvt_f32_i32", unary32([](uint32_t a, bool&) { return bits(float(int32_t(a))); }), sop1).only(on_gfx12),
    decl("s_cvt_u32_f32", unary32([](uint32_t a, bool&) { return cvt_u32(f32(a)); }), sop1).srcs(ty::f32).only(on_gfx12),
    decl("s_cvt_i32_f32", unary32([](uint32_t a, bool&) { return uint32_t(cvt_i32(f32(a))); }), sop1).srcs(ty::f32).only(on_gfx12),
    // S_CVT_F16_F32 (gfx12 SALU float): D[15:0] = f32_to_f16(S0), round to nearest even (the mode the loader
    // requires); D[31:16] = 0, as AMD's rocjitsu emulator writes an SGPR's 16-bit result (the guide prints only D.f16).
    decl("s_cvt_f16_f32", unary32([](uint32_t a, bool&) { return uint32_t(std::bit_cast<uint16_t>(_Float16(f32(a)))); }), sop1).srcs(ty::f32).only(on_gfx12),
    decl("s_rndne_f32", unary32([](uint32_t a, bool&) { return bits(std::nearbyint(f32(a))); }), sop1).srcs(ty::f32).only(on_gfx12),
    decl("s_trunc_f32", unary32([](uint32_t a, bool&) { return bits(std::trunc(f32(a))); }), sop1).srcs(ty::f32).only(on_gfx12),
    decl("s_floor_f32", unary32([](uint32_t a, bool&) { return bits(std::floor(f32(a))); }), sop1).srcs(ty::f32).only(on_gfx12),
    decl("s_ceil_f32", unary32([](uint32_t a, bool&) { return bits(std::ceil(f32(a))); }), sop1).srcs(ty::f32).only(on_gfx12),
    decl("s_and_saveexec_b32", saveexec([](uint32_t s, uint32_t e) { return s & e; }), sop1),
    decl("s_or_saveexec_b32", saveexec([](uint32_t s, uint32_t e) { return s | e; }), sop1),
    decl("s_xor_saveexec_b32", saveexec([](uint32_t s, uint32_t e) { return s ^ e; }), sop1),
    decl("s_and_not1_saveexec_b32", saveexec([](uint32_t s, uint32_t e) { return s & ~e; }), sop1),
    decl("s_or_not1_saveexec_b32", saveexec([](uint32_t s, uint32_t e) { return s | ~e; }), sop1),
    decl("s_and_not0_saveexec_b32", saveexec([](uint32_t s, uint32_t e) { return ~s & e; }), sop1),
    decl("s_or_not0_saveexec_b32", saveexec([](uint32_t s, uint32_t e) { return ~s | e; }), sop1),
    decl("s_nand_saveexec_b32", saveexec([](uint32_t s, uint32_t e) { return ~(s & e); }), sop1),
    decl("s_nor_saveexec_b32", saveexec([](uint32_t s, uint32_t e) { return ~(s | e); }), sop1),
    decl("s_xnor_saveexec_b32", saveexec([](uint32_t s, uint32_t e) { return ~(s ^ e); }), sop1),
    decl("s_and_not1_wrexec_b32", s_and_not1_wrexec_b32, sop1),
    // D[S0[4:0]] = 1 (0): the destination is also read.
    decl("s_bitset1_b32", s_bitset1_b32, sop1),
    decl("s_bitset0_b32", s_bitset0_b32, sop1),
    decl("s_getpc_b64", s_getpc_b64, sop1),
    decl("s_setpc_b64", s_setpc_b64, sop1).dsts(0).srcs(ty::b64),
    decl("s_swappc_b64", s_swappc_b64, sop1).srcs(ty::b64),
    // gfx12's work-group barrier signal (SOP1 with the barrier id as its source): -1 is the work-group barrier, the
    // only one this model has.
    decl("s_barrier_signal", s_barrier_signal, sop1).dsts(0).with(f_not_data).operand("-1").only(on_gfx12),

    // ---- SOPK: the 16-bit immediate is sign-extended ----
    decl("s_movk_i32", s_movk_i32, sopk),
    decl("s_cmovk_i32", s_cmovk_i32, sopk),
    decl("s_addk_co_i32", s_addk_co_i32, sopk).gfx11("s_addk_i32"),
    decl("s_mulk_i32", s_mulk_i32, sopk),
    // gfx11's compares with an immediate: SCC = S0 op simm16, sign-extended for _i32, zero-extended for _u32.
    decl("s_cmpk_eq_i32", compare_k([](uint32_t a, uint16_t k) { return int32_t(a) == int16_t(k); }), sopk).dsts(0).only(on_gfx11),
    decl("s_cmpk_lg_i32", compare_k([](uint32_t a, uint16_t k) { return int32_t(a) != int16_t(k); }), sopk).dsts(0).only(on_gfx11),
    decl("s_cmpk_gt_i32", compare_k([](uint32_t a, uint16_t k) { return int32_t(a) > int16_t(k); }), sopk).dsts(0).only(on_gfx11),
    decl("s_cmpk_ge_i32", compare_k([](uint32_t a, uint16_t k) { return int32_t(a) >= int16_t(k); }), sopk).dsts(0).only(on_gfx11),
    decl("s_cmpk_lt_i32", compare_k([](uint32_t a, uint16_t k) { return int32_t(a) < int16_t(k); }), sopk).dsts(0).only(on_gfx11),
    decl("s_cmpk_le_i32", compare_k([](uint32_t a, uint16_t k) { return int32_t(a) <= int16_t(k); }), sopk).dsts(0).only(on_gfx11),
    decl("s_cmpk_eq_u32", compare_k([](uint32_t a, uint16_t k) { return a == uint32_t(k); }), sopk).dsts(0).only(on_gfx11),
    decl("s_cmpk_lg_u32", compare_k([](uint32_t a, uint16_t k) { return a != uint32_t(k); }), sopk).dsts(0).only(on_gfx11),
    decl("s_cmpk_gt_u32", compare_k([](uint32_t a, uint16_t k) { return a > uint32_t(k); }), sopk).dsts(0).only(on_gfx11),
    decl("s_cmpk_ge_u32", compare_k([](uint32_t a, uint16_t k) { return a >= uint32_t(k); }), sopk).dsts(0).only(on_gfx11),
    decl("s_cmpk_lt_u32", compare_k([](uint32_t a, uint16_t k) { return a < uint32_t(k); }), sopk).dsts(0).only(on_gfx11),
    decl("s_cmpk_le_u32", compare_k([](uint32_t a, uint16_t k) { return a <= uint32_t(k); }), sopk).dsts(0).only(on_gfx11),
    // gfx11's store-counter waits are SOPK (gfx12 splits the counters into SOPP s_wait_*).
    decl("s_waitcnt_vscnt", exec_no_op, sopk).with(wait).only(on_gfx11),
    decl("s_waitcnt_vmcnt", exec_no_op, sopk).with(wait).only(on_gfx11),
    decl("s_waitcnt_lgkmcnt", exec_no_op, sopk).with(wait).only(on_gfx11),
    decl("s_waitcnt_expcnt", exec_no_op, sopk).with(wait).only(on_gfx11),

    // ---- SOPC: SCC = compare(S0, S1) ----
    decl("s_cmp_eq_i32", compare32([](uint32_t a, uint32_t b) { return int32_t(a) == int32_t(b); }), sopc).dsts(0),
    decl("s_cmp_lg_i32", compare32([](uint32_t a, uint32_t b) { return int32_t(a) != int32_t(b); }), sopc).dsts(0),
    decl("s_cmp_gt_i32", compare32([](uint32_t a, uint32_t b) { return int32_t(a) > int32_t(b); }), sopc).dsts(0),
    decl("s_cmp_ge_i32", compare32([](uint32_t a, uint32_t b) { return int32_t(a) >= int32_t(b); }), sopc).dsts(0),
    decl("s_cmp_lt_i32", compare32([](uint32_t a, uint32_t b) { return int32_t(a) < int32_t(b); }), sopc).dsts(0),
    decl("s_cmp_le_i32", compare32([](uint32_t a, uint32_t b) { return int32_t(a) <= int32_t(b); }), sopc).dsts(0),
    decl("s_cmp_eq_u32", compare32([](uint32_t a, uint32_t b) { return a == b; }), sopc).dsts(0),
    decl("s_cmp_lg_u32", compare32([](uint32_t a, uint32_t b) { return a != b; }), sopc).dsts(0),
    decl("s_cmp_gt_u32", compare32([](uint32_t a, uint32_t b) { return a > b; }), sopc).dsts(0),
    decl("s_cmp_ge_u32", compare32([](uint32_t a, uint32_t b) { return a >= b; }), sopc).dsts(0),
    decl("s_cmp_lt_u32", compare32([](uint32_t a, uint32_t b) { return a < b; }), sopc).dsts(0),
    decl("s_cmp_le_u32", compare32([](uint32_t a, uint32_t b) { return a <= b; }), sopc).dsts(0),
    // SCC = bit S1[4:0] of S0 is 0 (1).
    decl("s_bitcmp0_b32", compare32([](uint32_t a, uint32_t b) { return ((a >> (b & 31)) & 1u) == 0; }), sopc).dsts(0),
    decl("s_bitcmp1_b32", compare32([](uint32_t a, uint32_t b) { return ((a >> (b & 31)) & 1u) == 1; }), sopc).dsts(0),
    decl("s_cmp_eq_u64", compare64([](uint64_t a, uint64_t b) { return a == b; }), sopc).dsts(0).srcs(ty::b64, ty::b64),
    decl("s_cmp_lg_u64", compare64([](uint64_t a, uint64_t b) { return a != b; }), sopc).dsts(0).srcs(ty::b64, ty::b64),
    decl("s_cmp_lt_f32", compare_f32([](float a, float b) { return a < b; }), sopc).dsts(0).srcs(ty::f32, ty::f32).only(on_gfx12),
    decl("s_cmp_eq_f32", compare_f32([](float a, float b) { return a == b; }), sopc).dsts(0).srcs(ty::f32, ty::f32).only(on_gfx12),
    decl("s_cmp_le_f32", compare_f32([](float a, float b) { return a <= b; }), sopc).dsts(0).srcs(ty::f32, ty::f32).only(on_gfx12),
    decl("s_cmp_gt_f32", compare_f32([](float a, float b) { return a > b; }), sopc).dsts(0).srcs(ty::f32, ty::f32).only(on_gfx12),
    decl("s_cmp_lg_f32", compare_f32([](float a, float b) { return a < b || a > b; }), sopc).dsts(0).srcs(ty::f32, ty::f32).only(on_gfx12),
    decl("s_cmp_ge_f32", compare_f32([](float a, float b) { return a >= b; }), sopc).dsts(0).srcs(ty::f32, ty::f32).only(on_gfx12),
    decl("s_cmp_o_f32", compare_f32([](float a, float b) { return a == a && b == b; }), sopc).dsts(0).srcs(ty::f32, ty::f32).only(on_gfx12),
    decl("s_cmp_u_f32", compare_f32([](float a, float b) { return a != a || b != b; }), sopc).dsts(0).srcs(ty::f32, ty::f32).only(on_gfx12),
    decl("s_cmp_nge_f32", compare_f32([](float a, float b) { return !(a >= b); }), sopc).dsts(0).srcs(ty::f32, ty::f32).only(on_gfx12),
    decl("s_cmp_nlg_f32", compare_f32([](float a, float b) { return !(a < b || a > b); }), sopc).dsts(0).srcs(ty::f32, ty::f32).only(on_gfx12),
    decl("s_cmp_ngt_f32", compare_f32([](float a, float b) { return !(a > b); }), sopc).dsts(0).srcs(ty::f32, ty::f32).only(on_gfx12),
    decl("s_cmp_nle_f32", compare_f32([](float a, float b) { return !(a <= b); }), sopc).dsts(0).srcs(ty::f32, ty::f32).only(on_gfx12),
    decl("s_cmp_neq_f32", compare_f32([](float a, float b) { return !(a == b); }), sopc).dsts(0).srcs(ty::f32, ty::f32).only(on_gfx12),
    decl("s_cmp_nlt_f32", compare_f32([](float a, float b) { return !(a < b); }), sopc).dsts(0).srcs(ty::f32, ty::f32).only(on_gfx12),

    // ---- SOPP: program control ----
    decl("s_branch", branch([](const wave&) { return true; }), sopp).dsts(0).with(f_branch),
    decl("s_cbranch_scc0", branch([](const wave& w) { return !w.scc(); }), sopp).dsts(0).with(f_branch),
    decl("s_cbranch_scc1", branch([](const wave& w) { return w.scc(); }), sopp).dsts(0).with(f_branch),
    decl("s_cbranch_vccz", branch([](const wave& w) { return w.s[sreg::vcc_lo] == 0; }), sopp).dsts(0).with(f_branch),
    decl("s_cbranch_vccnz", branch([](const wave& w) { return w.s[sreg::vcc_lo] != 0; }), sopp).dsts(0).with(f_branch),
    decl("s_cbranch_execz", branch([](const wave& w) { return w.s[sreg::exec_lo] == 0; }), sopp).dsts(0).with(f_branch),
    decl("s_cbranch_execnz", branch([](const wave& w) { return w.s[sreg::exec_lo] != 0; }), sopp).dsts(0).with(f_branch),
    decl("s_endpgm", s_endpgm, sopp).dsts(0),
    decl("s_trap", s_trap, sopp).dsts(0),
    decl("s_barrier_wait", s_barrier_wait, sopp).dsts(0).with(f_not_data).only(on_gfx12),
    decl("s_barrier", s_barrier, sopp).dsts(0).only(on_gfx11),
    // The wait counters only order work that is still outstanding (RDNA3 §5.6 / RDNA4 §5.7 "Data Dependency
    // Resolution"); this model completes every memory instruction before the next one issues, so nothing ever is.
    decl("s_waitcnt", exec_no_op, sopp).with(wait).only(on_gfx11),
    decl("s_wait_alu", exec_no_op, sopp).with(wait).gfx11("s_waitcnt_depctr"),
    decl("s_wait_loadcnt", exec_no_op, sopp).with(wait).only(on_gfx12),
    decl("s_wait_storecnt", exec_no_op, sopp).with(wait).only(on_gfx12),
    decl("s_wait_dscnt", exec_no_op, sopp).with(wait).only(on_gfx12),
    decl("s_wait_kmcnt", exec_no_op, sopp).with(wait).only(on_gfx12),
    decl("s_wait_samplecnt", exec_no_op, sopp).with(wait).only(on_gfx12),
    decl("s_wait_bvhcnt", exec_no_op, sopp).with(wait).only(on_gfx12),
    decl("s_wait_expcnt", exec_no_op, sopp).with(wait).only(on_gfx12),
    decl("s_wait_loadcnt_dscnt", exec_no_op, sopp).with(wait).only(on_gfx12),
    decl("s_wait_storecnt_dscnt", exec_no_op, sopp).with(wait).only(on_gfx12),
    decl("s_wait_idle", exec_no_op, sopp).with(wait),
    // Scheduling hints: no timing is modelled.
    decl("s_nop", exec_no_op, sopp).with(wait),
    decl("s_delay_alu", exec_no_op, sopp).with(wait),
    decl("s_clause", exec_no_op, sopp).with(wait),
    decl("s_code_end", exec_no_op, sopp).with(wait),
    decl("s_sleep", exec_no_op, sopp).with(wait),
    decl("s_set_inst_prefetch_distance", exec_no_op, sopp).with(wait).only(on_gfx11),
    // sendmsg(MSG_DEALLOC_VGPRS) releases the wave's VGPRs right before s_endpgm (RDNA3 §5.3 / RDNA4 §5.4 "Send
    // Message Types"): nothing to model. Any other message stops the dispatch.
    decl("s_sendmsg", exec_no_op, sopp).with(wait).operand("sendmsg(MSG_DEALLOC_VGPRS)"),
};

}  // namespace

std::span<const instruction> salu_instructions() { return table; }

TP_SIM_HOST_CODE_END

}  // namespace tp::amdgpu_sim::machine::TP_SIM_HOST_LEVEL
