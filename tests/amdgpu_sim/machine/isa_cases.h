// Single-instruction cases for the machine tests (tinygrad's way: each instruction on its own, its result against a
// host computation): the instruction, written by inline asm in test_kernels.cu, and what it must compute, written
// here as a host expression. Each X(...) list is expanded once by clang per simulated arch in test_kernels.cu and once
// by the host compiler in test_instructions.cpp. These lists are the tests' own: they name instructions as the guides
// define them and do not read the machine's declarations.
#pragma once

// ---- VOPC: v_cmp_<kind>_<type> (the lane mask to an SGPR) and v_cmpx_<kind>_<type> (to EXEC) --------------------
// X(kind, expression over the typed operands a, b). The ordered float compares are false on NaN; the n* forms are
// their negations.
// The kind lists take the expanding macro X and the type's own arguments, which they pass on first: X(type args...,
// kind, expression over the typed operands a and b). The ordered float compares are false on NaN; the n* forms are
// their negations.
#define TP_SIM_VOPC_INT_KINDS(X, ...)                                                                                 \
  X(__VA_ARGS__, lt, a < b) X(__VA_ARGS__, eq, a == b) X(__VA_ARGS__, le, a <= b) X(__VA_ARGS__, gt, a > b)          \
  X(__VA_ARGS__, ne, a != b) X(__VA_ARGS__, ge, a >= b)
#define TP_SIM_VOPC_FLOAT_KINDS(X, ...)                                                                               \
  X(__VA_ARGS__, lt, a < b) X(__VA_ARGS__, eq, a == b) X(__VA_ARGS__, le, a <= b) X(__VA_ARGS__, gt, a > b)          \
  X(__VA_ARGS__, lg, a < b || a > b) X(__VA_ARGS__, ge, a >= b) X(__VA_ARGS__, o, a == a && b == b)                  \
  X(__VA_ARGS__, u, a != a || b != b) X(__VA_ARGS__, nge, !(a >= b)) X(__VA_ARGS__, nlg, !(a < b || a > b))          \
  X(__VA_ARGS__, ngt, !(a > b)) X(__VA_ARGS__, nle, !(a <= b)) X(__VA_ARGS__, neq, !(a == b))                        \
  X(__VA_ARGS__, nlt, !(a < b))
// gfx11 also has the constant kinds, for fewer types (gfx12 dropped them).
#define TP_SIM_VOPC_CONSTANT_KINDS(X, ...) X(__VA_ARGS__, f, false) X(__VA_ARGS__, t, true)
// X(type suffix, host type, operand bits, kinds list): each lane holds its operands in the low bits of a 64-bit word.
#define TP_SIM_VOPC_TYPES(X)                                                                                          \
  X(i16, int16_t, 16, TP_SIM_VOPC_INT_KINDS) X(u16, uint16_t, 16, TP_SIM_VOPC_INT_KINDS)                             \
  X(f16, _Float16, 16, TP_SIM_VOPC_FLOAT_KINDS) X(i32, int32_t, 32, TP_SIM_VOPC_INT_KINDS)                           \
  X(u32, uint32_t, 32, TP_SIM_VOPC_INT_KINDS) X(f32, float, 32, TP_SIM_VOPC_FLOAT_KINDS)                             \
  X(i64, int64_t, 64, TP_SIM_VOPC_INT_KINDS) X(u64, uint64_t, 64, TP_SIM_VOPC_INT_KINDS)                             \
  X(f64, double, 64, TP_SIM_VOPC_FLOAT_KINDS)
#define TP_SIM_VOPC_GFX11_CONSTANT_TYPES(X)                                                                           \
  X(f16, _Float16, 16, TP_SIM_VOPC_CONSTANT_KINDS) X(i32, int32_t, 32, TP_SIM_VOPC_CONSTANT_KINDS)                   \
  X(u32, uint32_t, 32, TP_SIM_VOPC_CONSTANT_KINDS) X(f32, float, 32, TP_SIM_VOPC_CONSTANT_KINDS)                     \
  X(i64, int64_t, 64, TP_SIM_VOPC_CONSTANT_KINDS) X(u64, uint64_t, 64, TP_SIM_VOPC_CONSTANT_KINDS)                   \
  X(f64, double, 64, TP_SIM_VOPC_CONSTANT_KINDS)
// Every case of the arch, in the order the kernel writes them.
#if defined(__gfx1100__) || (!defined(__AMDGPU__) && TP_SIM_TEST_GFX11)
  #define TP_SIM_VOPC_CASES(X) TP_SIM_VOPC_TYPES(X) TP_SIM_VOPC_GFX11_CONSTANT_TYPES(X)
#else
  #define TP_SIM_VOPC_CASES(X) TP_SIM_VOPC_TYPES(X)
#endif

// ---- loads and stores: every form, by what it moves ---------------------------------------------------------------
// Each lane has a 32-byte slot; a case moves its bytes at byte 4 of the lane's slot (the address's low bits differ by
// lane only in the slot). X(form suffix, destination or data registers, bytes moved, what the bytes become):
//   whole     the bytes are the registers, little-endian;
//   zext/sext the bytes, zero- or sign-extended into one register;
//   lo16/hi16 the bytes, zero- (lo16z/hi16z) or sign-extended (lo16s/hi16s) to 16 bits, into one half of the register,
//             the other half kept (the d16 loads; a d16_hi store stores the high half).
// The FLAT-family spellings (global_, flat_, scratch_):
#define TP_SIM_VMEM_LOADS(X)                                                                                          \
  X(b32, 1, 4, whole) X(b64, 2, 8, whole) X(b96, 3, 12, whole) X(b128, 4, 16, whole) X(u8, 1, 1, zext)               \
  X(i8, 1, 1, sext) X(u16, 1, 2, zext) X(i16, 1, 2, sext) X(d16_b16, 1, 2, lo16z) X(d16_hi_b16, 1, 2, hi16z)         \
  X(d16_u8, 1, 1, lo16z) X(d16_hi_u8, 1, 1, hi16z) X(d16_i8, 1, 1, lo16s) X(d16_hi_i8, 1, 1, hi16s)
#define TP_SIM_VMEM_STORES(X)                                                                                         \
  X(b32, 1, 4, whole) X(b64, 2, 8, whole) X(b96, 3, 12, whole) X(b128, 4, 16, whole) X(b8, 1, 1, whole)              \
  X(b16, 1, 2, whole) X(d16_hi_b8, 1, 1, hi16z) X(d16_hi_b16, 1, 2, hi16z)
// The DS spellings (d16 after the width):
#define TP_SIM_DS_LOADS(X)                                                                                            \
  X(b32, 1, 4, whole) X(b64, 2, 8, whole) X(b96, 3, 12, whole) X(b128, 4, 16, whole) X(u8, 1, 1, zext)               \
  X(i8, 1, 1, sext) X(u16, 1, 2, zext) X(i16, 1, 2, sext) X(u16_d16, 1, 2, lo16z) X(u16_d16_hi, 1, 2, hi16z)         \
  X(u8_d16, 1, 1, lo16z) X(u8_d16_hi, 1, 1, hi16z) X(i8_d16, 1, 1, lo16s) X(i8_d16_hi, 1, 1, hi16s)
#define TP_SIM_DS_STORES(X)                                                                                           \
  X(b32, 1, 4, whole) X(b64, 2, 8, whole) X(b96, 3, 12, whole) X(b128, 4, 16, whole) X(b8, 1, 1, whole)              \
  X(b16, 1, 2, whole) X(b8_d16_hi, 1, 1, hi16z) X(b16_d16_hi, 1, 2, hi16z)
// The registers a load starts from (a d16 load keeps the other half) and a store stores, lane l: word d is
// tp_sim_data_word(l, d).
#define TP_SIM_MEM_SLOT 32
#define TP_SIM_MEM_AT 4
inline constexpr uint32_t tp_sim_data_word(unsigned lane, unsigned d) {
  return (0x8c3a5e71u + 0x01030507u * lane) ^ (0x5aa5c33cu * (d + 1));
}
// The bytes the lanes' slots hold before a load: byte i of lane l's slot.
inline constexpr uint8_t tp_sim_slot_byte(unsigned lane, unsigned i) { return uint8_t(0x91 * lane + 0x37 * i + 0x80); }

// LDS read-modify-write atomics (ds_<op>_<type> and the returning ds_<op>_rtn_<type>), each lane on its own word:
// X(op, type, host expression of the old word m and the data v).
#define TP_SIM_DS_ATOMICS(X)                                                                                          \
  X(add, u32, m + v) X(sub, u32, m - v) X(min, u32, m < v ? m : v) X(max, u32, m > v ? m : v)                       \
  X(min, i32, int32_t(m) < int32_t(v) ? m : v) X(max, i32, int32_t(m) > int32_t(v) ? m : v) X(and, b32, m & v)      \
  X(or, b32, m | v) X(xor, b32, m ^ v)

// ---- scalar ALU -----------------------------------------------------------------------------------------------------
// Each case runs with SGPR operands a, b (32-bit, and 64-bit A = b:a, B = a:b for the 64-bit forms) and SCC set to
// c != 0 before it; the kernel returns D (the low and high words) and SCC after it. X(name, asm text with %0 = D,
// %2 = a or A, %3 = b or B, host expression of D, host expression of SCC after it (scc: the SCC before)). The gfx11
// spelling is given where it differs: TP_SIM_G11(gfx11 text, gfx12 text).
#if defined(__gfx1100__) || (!defined(__AMDGPU__) && TP_SIM_TEST_GFX11)
  #define TP_SIM_G11(gfx11, gfx12) gfx11
  #define TP_SIM_ONLY_GFX12(...)
  #define TP_SIM_ONLY_GFX11(...) __VA_ARGS__
#else
  #define TP_SIM_G11(gfx11, gfx12) gfx12
  #define TP_SIM_ONLY_GFX12(...) __VA_ARGS__
  #define TP_SIM_ONLY_GFX11(...)
#endif
#define TP_SIM_SOP_32(X)                                                                                              \
  X(s_and_b32, "s_and_b32 %0, %2, %3", a & b, (a & b) != 0)                                                          \
  X(s_or_b32, "s_or_b32 %0, %2, %3", a | b, (a | b) != 0)                                                            \
  X(s_xor_b32, "s_xor_b32 %0, %2, %3", a ^ b, (a ^ b) != 0)                                                          \
  X(s_nand_b32, "s_nand_b32 %0, %2, %3", ~(a & b), ~(a & b) != 0)                                                    \
  X(s_nor_b32, "s_nor_b32 %0, %2, %3", ~(a | b), ~(a | b) != 0)                                                      \
  X(s_xnor_b32, "s_xnor_b32 %0, %2, %3", ~(a ^ b), ~(a ^ b) != 0)                                                    \
  X(s_and_not1_b32, "s_and_not1_b32 %0, %2, %3", a & ~b, (a & ~b) != 0)                                              \
  X(s_or_not1_b32, "s_or_not1_b32 %0, %2, %3", a | ~b, (a | ~b) != 0)                                                \
  X(s_lshl_b32, "s_lshl_b32 %0, %2, %3", a << (b % 32), (a << (b % 32)) != 0)                                        \
  X(s_lshr_b32, "s_lshr_b32 %0, %2, %3", a >> (b % 32), (a >> (b % 32)) != 0)                                        \
  X(s_ashr_i32, "s_ashr_i32 %0, %2, %3", uint32_t(int32_t(a) >> (b % 32)), (int32_t(a) >> (b % 32)) != 0)            \
  X(s_lshl1_add_u32, "s_lshl1_add_u32 %0, %2, %3", (a << 1) + b, ((uint64_t(a) << 1) + b) >> 32 != 0)                \
  X(s_lshl2_add_u32, "s_lshl2_add_u32 %0, %2, %3", (a << 2) + b, ((uint64_t(a) << 2) + b) >> 32 != 0)                \
  X(s_lshl3_add_u32, "s_lshl3_add_u32 %0, %2, %3", (a << 3) + b, ((uint64_t(a) << 3) + b) >> 32 != 0)                \
  X(s_lshl4_add_u32, "s_lshl4_add_u32 %0, %2, %3", (a << 4) + b, ((uint64_t(a) << 4) + b) >> 32 != 0)                \
  X(s_add_co_u32, TP_SIM_G11("s_add_u32", "s_add_co_u32") " %0, %2, %3", a + b, uint64_t(a) + b > 0xffffffffu)       \
  X(s_sub_co_u32, TP_SIM_G11("s_sub_u32", "s_sub_co_u32") " %0, %2, %3", a - b, b > a)                               \
  X(s_add_co_ci_u32, TP_SIM_G11("s_addc_u32", "s_add_co_ci_u32") " %0, %2, %3", a + b + scc,                         \
    uint64_t(a) + b + scc > 0xffffffffu)                                                                             \
  X(s_sub_co_ci_u32, TP_SIM_G11("s_subb_u32", "s_sub_co_ci_u32") " %0, %2, %3", a - b - scc, uint64_t(b) + scc > a)  \
  X(s_add_co_i32, TP_SIM_G11("s_add_i32", "s_add_co_i32") " %0, %2, %3", a + b,                                      \
    int64_t(int32_t(a)) + int32_t(b) != int32_t(a + b))                                                              \
  X(s_sub_co_i32, TP_SIM_G11("s_sub_i32", "s_sub_co_i32") " %0, %2, %3", a - b,                                      \
    int64_t(int32_t(a)) - int32_t(b) != int32_t(a - b))                                                              \
  X(s_mul_i32, "s_mul_i32 %0, %2, %3", a * b, scc)                                                                   \
  X(s_mul_hi_u32, "s_mul_hi_u32 %0, %2, %3", uint32_t(uint64_t(a) * b >> 32), scc)                                  \
  X(s_mul_hi_i32, "s_mul_hi_i32 %0, %2, %3", uint32_t(uint64_t(int64_t(int32_t(a)) * int32_t(b)) >> 32), scc)        \
  X(s_min_i32, "s_min_i32 %0, %2, %3", int32_t(a) < int32_t(b) ? a : b, int32_t(a) < int32_t(b))                     \
  X(s_min_u32, "s_min_u32 %0, %2, %3", a < b ? a : b, a < b)                                                         \
  X(s_max_i32, "s_max_i32 %0, %2, %3", int32_t(a) > int32_t(b) ? a : b, int32_t(a) > int32_t(b))                     \
  X(s_max_u32, "s_max_u32 %0, %2, %3", a > b ? a : b, a > b)                                                         \
  X(s_cselect_b32, "s_cselect_b32 %0, %2, %3", scc ? a : b, scc)                                                     \
  X(s_bfm_b32, "s_bfm_b32 %0, %2, %3", uint32_t(((uint64_t(1) << (a % 32)) - 1) << (b % 32)), scc)                   \
  X(s_bfe_u32, "s_bfe_u32 %0, %2, %3", tp_sim_bfe(a, b, false), tp_sim_bfe(a, b, false) != 0)                        \
  X(s_bfe_i32, "s_bfe_i32 %0, %2, %3", tp_sim_bfe(a, b, true), tp_sim_bfe(a, b, true) != 0)                          \
  X(s_pack_ll_b32_b16, "s_pack_ll_b32_b16 %0, %2, %3", (a & 0xffff) | (b << 16), scc)                                \
  X(s_pack_lh_b32_b16, "s_pack_lh_b32_b16 %0, %2, %3", (a & 0xffff) | (b & 0xffff0000u), scc)                        \
  X(s_pack_hh_b32_b16, "s_pack_hh_b32_b16 %0, %2, %3", (a >> 16) | (b & 0xffff0000u), scc)                           \
  X(s_pack_hl_b32_b16, "s_pack_hl_b32_b16 %0, %2, %3", (a >> 16) | (b << 16), scc)                                   \
  X(s_cmp_eq_i32, "s_cmp_eq_i32 %2, %3", d0, int32_t(a) == int32_t(b))                                               \
  X(s_cmp_lg_i32, "s_cmp_lg_i32 %2, %3", d0, int32_t(a) != int32_t(b))                                               \
  X(s_cmp_gt_i32, "s_cmp_gt_i32 %2, %3", d0, int32_t(a) > int32_t(b))                                                \
  X(s_cmp_ge_i32, "s_cmp_ge_i32 %2, %3", d0, int32_t(a) >= int32_t(b))                                               \
  X(s_cmp_lt_i32, "s_cmp_lt_i32 %2, %3", d0, int32_t(a) < int32_t(b))                                                \
  X(s_cmp_le_i32, "s_cmp_le_i32 %2, %3", d0, int32_t(a) <= int32_t(b))                                               \
  X(s_cmp_eq_u32, "s_cmp_eq_u32 %2, %3", d0, a == b)                                                                 \
  X(s_cmp_lg_u32, "s_cmp_lg_u32 %2, %3", d0, a != b)                                                                 \
  X(s_cmp_gt_u32, "s_cmp_gt_u32 %2, %3", d0, a > b)                                                                  \
  X(s_cmp_ge_u32, "s_cmp_ge_u32 %2, %3", d0, a >= b)                                                                 \
  X(s_cmp_lt_u32, "s_cmp_lt_u32 %2, %3", d0, a < b)                                                                  \
  X(s_cmp_le_u32, "s_cmp_le_u32 %2, %3", d0, a <= b)                                                                 \
  X(s_bitcmp0_b32, "s_bitcmp0_b32 %2, %3", d0, ((a >> (b % 32)) & 1) == 0)                                           \
  X(s_bitcmp1_b32, "s_bitcmp1_b32 %2, %3", d0, ((a >> (b % 32)) & 1) == 1)                                           \
  X(s_mov_b32, "s_mov_b32 %0, %2", a, scc)                                                                           \
  X(s_cmov_b32, "s_cmov_b32 %0, %2", scc ? a : d0, scc)                                                              \
  X(s_not_b32, "s_not_b32 %0, %2", ~a, ~a != 0)                                                                      \
  X(s_brev_b32, "s_brev_b32 %0, %2", tp_sim_brev(a), scc)                                                            \
  X(s_bcnt1_i32_b32, "s_bcnt1_i32_b32 %0, %2", uint32_t(__builtin_popcount(a)), a != 0)                              \
  X(s_bcnt0_i32_b32, "s_bcnt0_i32_b32 %0, %2", uint32_t(32 - __builtin_popcount(a)), a != 0xffffffffu)               \
  X(s_ctz_i32_b32, "s_ctz_i32_b32 %0, %2", a ? uint32_t(__builtin_ctz(a)) : 0xffffffffu, scc)                        \
  X(s_clz_i32_u32, "s_clz_i32_u32 %0, %2", a ? uint32_t(__builtin_clz(a)) : 0xffffffffu, scc)                        \
  X(s_sext_i32_i8, "s_sext_i32_i8 %0, %2", uint32_t(int32_t(int8_t(a))), scc)                                        \
  X(s_sext_i32_i16, "s_sext_i32_i16 %0, %2", uint32_t(int32_t(int16_t(a))), scc)                                     \
  X(s_abs_i32, "s_abs_i32 %0, %2", int32_t(a) < 0 ? 0u - a : a, a != 0)                                              \
  X(s_bitset0_b32, "s_bitset0_b32 %0, %2", d0 & ~(1u << (a % 32)), scc)                                              \
  X(s_bitset1_b32, "s_bitset1_b32 %0, %2", d0 | (1u << (a % 32)), scc)                                               \
  X(s_movk_i32, "s_movk_i32 %0, 0x8765", 0xffff8765u, scc)                                                           \
  X(s_cmovk_i32, "s_cmovk_i32 %0, 0x1234", scc ? 0x1234u : d0, scc)                                                  \
  X(s_addk_co_i32, TP_SIM_G11("s_addk_i32", "s_addk_co_i32") " %0, 0x8001", d0 + 0xffff8001u,                        \
    int64_t(int32_t(d0)) - 0x7fff != int32_t(d0 + 0xffff8001u))                                                      \
  X(s_mulk_i32, "s_mulk_i32 %0, 0xfff3", d0 * 0xfffffff3u, scc)                                                      \
  TP_SIM_ONLY_GFX11(                                                                                                  \
  X(s_cmpk_eq_i32, "s_cmpk_eq_i32 %2, 0x8001", d0, int32_t(a) == -0x7fff)                                             \
  X(s_cmpk_lg_i32, "s_cmpk_lg_i32 %2, 0x8001", d0, int32_t(a) != -0x7fff)                                             \
  X(s_cmpk_gt_i32, "s_cmpk_gt_i32 %2, 0x8001", d0, int32_t(a) > -0x7fff)                                              \
  X(s_cmpk_ge_i32, "s_cmpk_ge_i32 %2, 0x8001", d0, int32_t(a) >= -0x7fff)                                             \
  X(s_cmpk_lt_i32, "s_cmpk_lt_i32 %2, 0x8001", d0, int32_t(a) < -0x7fff)                                              \
  X(s_cmpk_le_i32, "s_cmpk_le_i32 %2, 0x8001", d0, int32_t(a) <= -0x7fff)                                             \
  X(s_cmpk_eq_u32, "s_cmpk_eq_u32 %2, 0x8001", d0, a == 0x8001u)                                                      \
  X(s_cmpk_lg_u32, "s_cmpk_lg_u32 %2, 0x8001", d0, a != 0x8001u)                                                      \
  X(s_cmpk_gt_u32, "s_cmpk_gt_u32 %2, 0x8001", d0, a > 0x8001u)                                                       \
  X(s_cmpk_ge_u32, "s_cmpk_ge_u32 %2, 0x8001", d0, a >= 0x8001u)                                                      \
  X(s_cmpk_lt_u32, "s_cmpk_lt_u32 %2, 0x8001", d0, a < 0x8001u)                                                       \
  X(s_cmpk_le_u32, "s_cmpk_le_u32 %2, 0x8001", d0, a <= 0x8001u))                                                     \
  TP_SIM_ONLY_GFX12(                                                                                                  \
  X(s_add_f32, "s_add_f32 %0, %2, %3", tp_sim_f32(fa + fb), scc)                                                      \
  X(s_sub_f32, "s_sub_f32 %0, %2, %3", tp_sim_f32(fa - fb), scc)                                                      \
  X(s_mul_f32, "s_mul_f32 %0, %2, %3", tp_sim_f32(fa * fb), scc)                                                      \
  X(s_max_num_f32, "s_max_num_f32 %0, %2, %3", tp_sim_f32(tp_sim_max_num(fa, fb)), scc)                               \
  X(s_min_num_f32, "s_min_num_f32 %0, %2, %3", tp_sim_f32(tp_sim_min_num(fa, fb)), scc)                               \
  X(s_fmaak_f32, "s_fmaak_f32 %0, %2, %3, 0x40490fdb", tp_sim_f32(__builtin_fmaf(fa, fb, 3.14159274f)), scc)          \
  X(s_fmamk_f32, "s_fmamk_f32 %0, %2, 0x40490fdb, %3", tp_sim_f32(__builtin_fmaf(fa, 3.14159274f, fb)), scc)          \
  X(s_fmac_f32, "s_fmac_f32 %0, %2, %3", tp_sim_f32(__builtin_fmaf(fa, fb, tp_sim_as_f32(d0))), scc)                  \
  X(s_cvt_f32_u32, "s_cvt_f32_u32 %0, %2", tp_sim_f32(float(a)), scc)                                                 \
  X(s_cvt_f32_i32, "s_cvt_f32_i32 %0, %2", tp_sim_f32(float(int32_t(a))), scc)                                        \
  X(s_cvt_u32_f32, "s_cvt_u32_f32 %0, %2", tp_sim_cvt_u32(fa), scc)                                                   \
  X(s_cvt_i32_f32, "s_cvt_i32_f32 %0, %2", uint32_t(tp_sim_cvt_i32(fa)), scc)                                         \
  X(s_rndne_f32, "s_rndne_f32 %0, %2", tp_sim_f32(__builtin_nearbyintf(fa)), scc)                                     \
  X(s_trunc_f32, "s_trunc_f32 %0, %2", tp_sim_f32(__builtin_truncf(fa)), scc)                                         \
  X(s_floor_f32, "s_floor_f32 %0, %2", tp_sim_f32(__builtin_floorf(fa)), scc)                                         \
  X(s_ceil_f32, "s_ceil_f32 %0, %2", tp_sim_f32(__builtin_ceilf(fa)), scc)                                            \
  X(s_cmp_lt_f32, "s_cmp_lt_f32 %2, %3", d0, fa < fb)                                                                 \
  X(s_cmp_eq_f32, "s_cmp_eq_f32 %2, %3", d0, fa == fb)                                                                \
  X(s_cmp_le_f32, "s_cmp_le_f32 %2, %3", d0, fa <= fb)                                                                \
  X(s_cmp_gt_f32, "s_cmp_gt_f32 %2, %3", d0, fa > fb)                                                                 \
  X(s_cmp_lg_f32, "s_cmp_lg_f32 %2, %3", d0, fa < fb || fa > fb)                                                      \
  X(s_cmp_ge_f32, "s_cmp_ge_f32 %2, %3", d0, fa >= fb)                                                                \
  X(s_cmp_o_f32, "s_cmp_o_f32 %2, %3", d0, fa == fa && fb == fb)                                                      \
  X(s_cmp_u_f32, "s_cmp_u_f32 %2, %3", d0, fa != fa || fb != fb)                                                      \
  X(s_cmp_nge_f32, "s_cmp_nge_f32 %2, %3", d0, !(fa >= fb))                                                           \
  X(s_cmp_nlg_f32, "s_cmp_nlg_f32 %2, %3", d0, !(fa < fb || fa > fb))                                                 \
  X(s_cmp_ngt_f32, "s_cmp_ngt_f32 %2, %3", d0, !(fa > fb))                                                            \
  X(s_cmp_nle_f32, "s_cmp_nle_f32 %2, %3", d0, !(fa <= fb))                                                           \
  X(s_cmp_neq_f32, "s_cmp_neq_f32 %2, %3", d0, !(fa == fb))                                                           \
  X(s_cmp_nlt_f32, "s_cmp_nlt_f32 %2, %3", d0, !(fa < fb))                                                           \
  X(s_cvt_f16_f32, "s_cvt_f16_f32 %0, %2", uint32_t(std::bit_cast<uint16_t>(_Float16(fa))), scc))
// The 64-bit forms: X(name, asm text, host expression of the 64-bit D, of SCC after it), over A, B (and a for a
// 32-bit shift count).
#define TP_SIM_SOP_64(X)                                                                                              \
  X(s_and_b64, "s_and_b64 %0, %2, %3", A & B, (A & B) != 0)                                                          \
  X(s_or_b64, "s_or_b64 %0, %2, %3", A | B, (A | B) != 0)                                                            \
  X(s_xor_b64, "s_xor_b64 %0, %2, %3", A ^ B, (A ^ B) != 0)                                                          \
  X(s_and_not1_b64, "s_and_not1_b64 %0, %2, %3", A & ~B, (A & ~B) != 0)                                              \
  X(s_or_not1_b64, "s_or_not1_b64 %0, %2, %3", A | ~B, (A | ~B) != 0)                                                \
  X(s_lshl_b64, "s_lshl_b64 %0, %2, %4", A << (a % 64), (A << (a % 64)) != 0)                                        \
  X(s_lshr_b64, "s_lshr_b64 %0, %2, %4", A >> (a % 64), (A >> (a % 64)) != 0)                                        \
  X(s_ashr_i64, "s_ashr_i64 %0, %2, %4", uint64_t(int64_t(A) >> (a % 64)), (int64_t(A) >> (a % 64)) != 0)            \
  X(s_cselect_b64, "s_cselect_b64 %0, %2, %3", scc ? A : B, scc)                                                     \
  X(s_mov_b64, "s_mov_b64 %0, %2", A, scc)                                                                           \
  X(s_not_b64, "s_not_b64 %0, %2", ~A, ~A != 0)                                                                      \
  X(s_cmp_eq_u64, "s_cmp_eq_u64 %2, %3", D0, A == B)                                                                 \
  X(s_cmp_lg_u64, "s_cmp_lg_u64 %2, %3", D0, A != B)                                                                 \
  X(s_bfe_i64, "s_bfe_i64 %0, %2, 0x200000", tp_sim_bfe64(A, 0x200000), tp_sim_bfe64(A, 0x200000) != 0)              \
  X(s_bfe_i64, "s_bfe_i64 %0, %2, 0x3f0001", tp_sim_bfe64(A, 0x3f0001), tp_sim_bfe64(A, 0x3f0001) != 0)              \
  X(s_bfe_i64, "s_bfe_i64 %0, %2, %4", tp_sim_bfe64(A, a), tp_sim_bfe64(A, a) != 0)                                   \
  TP_SIM_ONLY_GFX12(                                                                                                  \
  X(s_add_nc_u64, "s_add_nc_u64 %0, %2, %3", A + B, scc)                                                              \
  X(s_sub_nc_u64, "s_sub_nc_u64 %0, %2, %3", A - B, scc)                                                              \
  X(s_mul_u64, "s_mul_u64 %0, %2, %3", A * B, scc))
// The saveexec forms with EXEC set to c first: X(name, host expression of the new EXEC from S0 = a and EXEC = e);
// D = the old EXEC, SCC = the new EXEC != 0.
#define TP_SIM_SAVEEXEC(X)                                                                                            \
  X(and, a & e) X(or, a | e) X(xor, a ^ e) X(and_not1, a & ~e) X(or_not1, a | ~e) X(and_not0, ~a & e)               \
  X(or_not0, ~a | e) X(nand, ~(a & e)) X(nor, ~(a | e)) X(xnor, ~(a ^ e))

// ---- vector ALU ------------------------------------------------------------------------------------------------------
// Lane l runs each case on its VGPR operands a, b, c (32-bit words) with D starting as d0: X(name, asm text with %0 = D,
// %1 = a, %2 = b, %3 = c, host expression of D). Float operands are the words' bits (fa, fb, fc); 16-bit results go to
// D's low half, its high half kept.
#define TP_SIM_VOP_32(X)                                                                                              \
  X(v_mov_b32, "v_mov_b32 %0, %1", a)                                                                                 \
  X(v_not_b32, "v_not_b32 %0, %1", ~a)                                                                                \
  X(v_bfrev_b32, "v_bfrev_b32 %0, %1", tp_sim_brev(a))                                                                \
  X(v_ctz_i32_b32, "v_ctz_i32_b32 %0, %1", a ? uint32_t(__builtin_ctz(a)) : 0xffffffffu)                              \
  X(v_clz_i32_u32, "v_clz_i32_u32 %0, %1", a ? uint32_t(__builtin_clz(a)) : 0xffffffffu)                              \
  X(v_add_nc_u32, "v_add_nc_u32 %0, %1, %2", a + b)                                                                   \
  X(v_sub_nc_u32, "v_sub_nc_u32 %0, %1, %2", a - b)                                                                   \
  X(v_subrev_nc_u32, "v_subrev_nc_u32 %0, %1, %2", b - a)                                                             \
  X(v_and_b32, "v_and_b32 %0, %1, %2", a & b)                                                                         \
  X(v_or_b32, "v_or_b32 %0, %1, %2", a | b)                                                                           \
  X(v_xor_b32, "v_xor_b32 %0, %1, %2", a ^ b)                                                                         \
  X(v_xnor_b32, "v_xnor_b32 %0, %1, %2", ~(a ^ b))                                                                    \
  X(v_lshlrev_b32, "v_lshlrev_b32 %0, %1, %2", b << (a % 32))                                                        \
  X(v_lshrrev_b32, "v_lshrrev_b32 %0, %1, %2", b >> (a % 32))                                                        \
  X(v_ashrrev_i32, "v_ashrrev_i32 %0, %1, %2", uint32_t(int32_t(b) >> (a % 32)))                                     \
  X(v_min_u32, "v_min_u32 %0, %1, %2", a < b ? a : b)                                                                 \
  X(v_max_u32, "v_max_u32 %0, %1, %2", a > b ? a : b)                                                                 \
  X(v_min_i32, "v_min_i32 %0, %1, %2", int32_t(a) < int32_t(b) ? a : b)                                               \
  X(v_max_i32, "v_max_i32 %0, %1, %2", int32_t(a) > int32_t(b) ? a : b)                                               \
  X(v_mul_i32_i24, "v_mul_i32_i24 %0, %1, %2", uint32_t(int64_t(tp_sim_s24(a)) * tp_sim_s24(b)))                      \
  X(v_mul_hi_i32_i24, "v_mul_hi_i32_i24 %0, %1, %2", uint32_t(uint64_t(int64_t(tp_sim_s24(a)) * tp_sim_s24(b)) >> 32)) \
  X(v_mul_u32_u24, "v_mul_u32_u24 %0, %1, %2", uint32_t(uint64_t(a & 0xffffff) * (b & 0xffffff)))                     \
  X(v_mul_hi_u32_u24, "v_mul_hi_u32_u24 %0, %1, %2", uint32_t((uint64_t(a & 0xffffff) * (b & 0xffffff)) >> 32))       \
  X(v_mul_lo_u32, "v_mul_lo_u32 %0, %1, %2", a * b)                                                                   \
  X(v_mul_hi_u32, "v_mul_hi_u32 %0, %1, %2", uint32_t(uint64_t(a) * b >> 32))                                        \
  X(v_mul_hi_i32, "v_mul_hi_i32 %0, %1, %2", uint32_t(uint64_t(int64_t(int32_t(a)) * int32_t(b)) >> 32))             \
  X(v_bcnt_u32_b32, "v_bcnt_u32_b32 %0, %1, %2", uint32_t(__builtin_popcount(a)) + b)                                 \
  X(v_bfm_b32, "v_bfm_b32 %0, %1, %2", uint32_t(((uint64_t(1) << (a % 32)) - 1) << (b % 32)))                         \
  X(v_pack_b32_f16, "v_pack_b32_f16 %0, %1, %2", (a & 0xffff) | (b << 16))                                            \
  X(v_bfe_u32, "v_bfe_u32 %0, %1, %2, %3", tp_sim_bfe(a, (b & 31) | ((c & 31) << 16), false))                         \
  X(v_bfe_i32, "v_bfe_i32 %0, %1, %2, %3", tp_sim_bfe(a, (b & 31) | ((c & 31) << 16), true))                          \
  X(v_bfi_b32, "v_bfi_b32 %0, %1, %2, %3", (a & b) | (~a & c))                                                        \
  X(v_alignbit_b32, "v_alignbit_b32 %0, %1, %2, %3", uint32_t((uint64_t(a) << 32 | b) >> (c % 32)))                   \
  X(v_alignbyte_b32, "v_alignbyte_b32 %0, %1, %2, %3", uint32_t((uint64_t(a) << 32 | b) >> (8 * (c % 4))))            \
  X(v_lshl_or_b32, "v_lshl_or_b32 %0, %1, %2, %3", (a << (b % 32)) | c)                                              \
  X(v_lshl_add_u32, "v_lshl_add_u32 %0, %1, %2, %3", (a << (b % 32)) + c)                                            \
  X(v_add_lshl_u32, "v_add_lshl_u32 %0, %1, %2, %3", (a + b) << (c % 32))                                            \
  X(v_and_or_b32, "v_and_or_b32 %0, %1, %2, %3", (a & b) | c)                                                         \
  X(v_or3_b32, "v_or3_b32 %0, %1, %2, %3", a | b | c)                                                                 \
  X(v_xor3_b32, "v_xor3_b32 %0, %1, %2, %3", a ^ b ^ c)                                                               \
  X(v_add3_u32, "v_add3_u32 %0, %1, %2, %3", a + b + c)                                                               \
  X(v_mad_u32_u24, "v_mad_u32_u24 %0, %1, %2, %3", uint32_t(uint64_t(a & 0xffffff) * (b & 0xffffff)) + c)             \
  X(v_mad_i32_i24, "v_mad_i32_i24 %0, %1, %2, %3", uint32_t(int64_t(tp_sim_s24(a)) * tp_sim_s24(b)) + c)              \
  X(v_min3_u32, "v_min3_u32 %0, %1, %2, %3", std::min({a, b, c}))                                                     \
  X(v_max3_u32, "v_max3_u32 %0, %1, %2, %3", std::max({a, b, c}))                                                     \
  X(v_min3_i32, "v_min3_i32 %0, %1, %2, %3", uint32_t(std::min({int32_t(a), int32_t(b), int32_t(c)})))                \
  X(v_max3_i32, "v_max3_i32 %0, %1, %2, %3", uint32_t(std::max({int32_t(a), int32_t(b), int32_t(c)})))                \
  X(v_med3_u32, "v_med3_u32 %0, %1, %2, %3", tp_sim_median<uint32_t>(a, b, c))                                        \
  X(v_med3_i32, "v_med3_i32 %0, %1, %2, %3", uint32_t(tp_sim_median<int32_t>(int32_t(a), int32_t(b), int32_t(c))))   \
  X(v_perm_b32, "v_perm_b32 %0, %1, %2, %3", tp_sim_perm(a, b, c))                                                    \
  X(v_cvt_f32_u32, "v_cvt_f32_u32 %0, %1", tp_sim_f32(float(a)))                                                      \
  X(v_cvt_f32_i32, "v_cvt_f32_i32 %0, %1", tp_sim_f32(float(int32_t(a))))                                             \
  X(v_cvt_u32_f32, "v_cvt_u32_f32 %0, %1", tp_sim_cvt_u32(fa))                                                        \
  X(v_cvt_i32_f32, "v_cvt_i32_f32 %0, %1", uint32_t(tp_sim_cvt_i32(fa)))                                              \
  X(v_cvt_f32_ubyte0, "v_cvt_f32_ubyte0 %0, %1", tp_sim_f32(float(a & 0xff)))                                        \
  X(v_cvt_f32_ubyte1, "v_cvt_f32_ubyte1 %0, %1", tp_sim_f32(float((a >> 8) & 0xff)))                                 \
  X(v_cvt_f32_ubyte2, "v_cvt_f32_ubyte2 %0, %1", tp_sim_f32(float((a >> 16) & 0xff)))                                \
  X(v_cvt_f32_ubyte3, "v_cvt_f32_ubyte3 %0, %1", tp_sim_f32(float(a >> 24)))                                         \
  X(v_cvt_f32_f16, "v_cvt_f32_f16 %0, %1", tp_sim_f32(float(std::bit_cast<_Float16>(uint16_t(a)))))                   \
  X(v_cvt_f16_f32, "v_cvt_f16_f32 %0, %1", (d0 & 0xffff0000u) | std::bit_cast<uint16_t>(_Float16(fa)))                \
  X(v_add_f32, "v_add_f32 %0, %1, %2", tp_sim_f32(fa + fb))                                                           \
  X(v_sub_f32, "v_sub_f32 %0, %1, %2", tp_sim_f32(fa - fb))                                                           \
  X(v_subrev_f32, "v_subrev_f32 %0, %1, %2", tp_sim_f32(fb - fa))                                                     \
  X(v_mul_f32, "v_mul_f32 %0, %1, %2", tp_sim_f32(fa * fb))                                                           \
  X(v_fma_f32, "v_fma_f32 %0, %1, %2, %3", tp_sim_f32(__builtin_fmaf(fa, fb, fc)))                                    \
  X(v_fmaak_f32, "v_fmaak_f32 %0, %1, %2, 0x40490fdb", tp_sim_f32(__builtin_fmaf(fa, fb, 3.14159274f)))               \
  X(v_fmamk_f32, "v_fmamk_f32 %0, %1, 0x40490fdb, %2", tp_sim_f32(__builtin_fmaf(fa, 3.14159274f, fb)))               \
  X(v_fmac_f32, "v_fmac_f32 %0, %1, %2", tp_sim_f32(__builtin_fmaf(fa, fb, tp_sim_as_f32(d0))))                      \
  X(v_ldexp_f32, "v_ldexp_f32 %0, %1, %2", tp_sim_f32(std::ldexp(fa, int32_t(b))))                                    \
  X(v_floor_f32, "v_floor_f32 %0, %1", tp_sim_f32(__builtin_floorf(fa)))                                              \
  X(v_ceil_f32, "v_ceil_f32 %0, %1", tp_sim_f32(__builtin_ceilf(fa)))                                                 \
  X(v_trunc_f32, "v_trunc_f32 %0, %1", tp_sim_f32(__builtin_truncf(fa)))                                              \
  X(v_rndne_f32, "v_rndne_f32 %0, %1", tp_sim_f32(__builtin_nearbyintf(fa)))                                          \
  X(v_fract_f32, "v_fract_f32 %0, %1", tp_sim_f32(fa - __builtin_floorf(fa)))                                         \
  X(v_add_nc_u16, "v_add_nc_u16 %0, %1, %2", tp_sim_lo16(d0, a + b))                                                  \
  X(v_sub_nc_u16, "v_sub_nc_u16 %0, %1, %2", tp_sim_lo16(d0, a - b))                                                  \
  X(v_mul_lo_u16, "v_mul_lo_u16 %0, %1, %2", tp_sim_lo16(d0, a * b))                                                  \
  X(v_and_b16, "v_and_b16 %0, %1, %2", tp_sim_lo16(d0, a & b))                                                        \
  X(v_or_b16, "v_or_b16 %0, %1, %2", tp_sim_lo16(d0, a | b))                                                          \
  X(v_xor_b16, "v_xor_b16 %0, %1, %2", tp_sim_lo16(d0, a ^ b))                                                        \
  X(v_lshlrev_b16, "v_lshlrev_b16 %0, %1, %2", tp_sim_lo16(d0, (b & 0xffff) << (a % 16)))                             \
  X(v_lshrrev_b16, "v_lshrrev_b16 %0, %1, %2", tp_sim_lo16(d0, (b & 0xffff) >> (a % 16)))                             \
  X(v_ashrrev_i16, "v_ashrrev_i16 %0, %1, %2", tp_sim_lo16(d0, uint32_t(int16_t(b) >> (a % 16))))                     \
  X(v_max_u16, "v_max_u16 %0, %1, %2", tp_sim_lo16(d0, std::max(a & 0xffff, b & 0xffff)))                             \
  X(v_min_u16, "v_min_u16 %0, %1, %2", tp_sim_lo16(d0, std::min(a & 0xffff, b & 0xffff)))                             \
  X(v_dot4_i32_iu8, "v_dot4_i32_iu8 %0, %1, %2, %3 neg_lo:[1,1,0]", tp_sim_dot4(a, b, c, true))                       \
  X(v_dot4_u32_u8, "v_dot4_u32_u8 %0, %1, %2, %3", tp_sim_dot4(a, b, c, false))                                       \
  TP_SIM_ONLY_GFX12(                                                                                                  \
  X(v_max_num_f32, "v_max_num_f32 %0, %1, %2", tp_sim_f32(tp_sim_max_num(fa, fb)))                                    \
  X(v_min_num_f32, "v_min_num_f32 %0, %1, %2", tp_sim_f32(tp_sim_min_num(fa, fb)))                                    \
  X(v_max3_num_f32, "v_max3_num_f32 %0, %1, %2, %3", tp_sim_f32(tp_sim_max_num(tp_sim_max_num(fa, fb), fc)))          \
  X(v_min3_num_f32, "v_min3_num_f32 %0, %1, %2, %3", tp_sim_f32(tp_sim_min_num(tp_sim_min_num(fa, fb), fc)))           \
  X(v_maxmin_num_f32, "v_maxmin_num_f32 %0, %1, %2, %3", tp_sim_f32(tp_sim_min_num(tp_sim_max_num(fa, fb), fc)))      \
  X(v_maxmin_num_f32, "v_maxmin_num_f32 %0, %1, %2, 0x447a0000", tp_sim_f32(tp_sim_min_num(tp_sim_max_num(fa, fb), 1000.0f))) \
  X(v_maxmin_num_f32, "v_maxmin_num_f32 %0, %1, 0, %2", tp_sim_f32(tp_sim_min_num(tp_sim_max_num(fa, 0.0f), fb))))     \
  TP_SIM_ONLY_GFX11(                                                                                                  \
  X(v_max_f32, "v_max_f32 %0, %1, %2", tp_sim_ieee_max_min(a, b, true))                                               \
  X(v_min_f32, "v_min_f32 %0, %1, %2", tp_sim_ieee_max_min(a, b, false))                                              \
  X(v_max3_f32, "v_max3_f32 %0, %1, %2, %3", tp_sim_ieee_max_min(tp_sim_ieee_max_min(a, b, true), c, true))           \
  X(v_min3_f32, "v_min3_f32 %0, %1, %2, %3", tp_sim_ieee_max_min(tp_sim_ieee_max_min(a, b, false), c, false))      \
  X(v_maxmin_f32, "v_maxmin_f32 %0, %1, %2, %3", tp_sim_ieee_max_min(tp_sim_ieee_max_min(a, b, true), c, false))     \
  X(v_maxmin_f32, "v_maxmin_f32 %0, %1, %2, 0x447a0000", tp_sim_ieee_max_min(tp_sim_ieee_max_min(a, b, true), 0x447a0000u, false)) \
  X(v_maxmin_f32, "v_maxmin_f32 %0, %1, 0, %2", tp_sim_ieee_max_min(tp_sim_ieee_max_min(a, 0u, true), b, false)))
// The approximate ones, within the guide's 1 ULP of the exact value, denormal inputs and results flushed ("denormals
// are flushed"): X(name, asm text, host double expression).
#define TP_SIM_VOP_APPROX(X)                                                                                          \
  X(v_rcp_f32, "v_rcp_f32 %0, %1", tp_sim_flushed(1.0 / double(tp_sim_ftz(fa))))                                    \
  X(v_rcp_iflag_f32, "v_rcp_iflag_f32 %0, %1", tp_sim_flushed(1.0 / double(tp_sim_ftz(fa))))                        \
  X(v_rsq_f32, "v_rsq_f32 %0, %1", 1.0 / std::sqrt(double(tp_sim_ftz(fa))))                                         \
  X(v_sqrt_f32, "v_sqrt_f32 %0, %1", std::sqrt(double(tp_sim_ftz(fa))))                                             \
  X(v_exp_f32, "v_exp_f32 %0, %1", tp_sim_flushed(std::exp2(double(tp_sim_ftz(fa)))))                               \
  X(v_log_f32, "v_log_f32 %0, %1", std::log2(double(tp_sim_ftz(fa))))
// The pseudo-scalar transcendentals (gfx12: SGPR in, SGPR out), on lane 0's a (f0), moved to every lane's D.
#if defined(__gfx1100__) || (!defined(__AMDGPU__) && TP_SIM_TEST_GFX11)
  #define TP_SIM_VOP_PSEUDO_SCALAR(X)
#else
  #define TP_SIM_VOP_PSEUDO_SCALAR(X)                                                                                 \
    X(v_s_rcp_f32, "v_readfirstlane_b32 s40, %1\n\tv_s_rcp_f32 s41, s40\n\tv_mov_b32 %0, s41",                        \
      tp_sim_flushed(1.0 / double(tp_sim_ftz(f0))))                                                                   \
    X(v_s_rsq_f32, "v_readfirstlane_b32 s40, %1\n\tv_s_rsq_f32 s41, s40\n\tv_mov_b32 %0, s41",                        \
      1.0 / std::sqrt(double(tp_sim_ftz(f0))))                                                                        \
    X(v_s_sqrt_f32, "v_readfirstlane_b32 s40, %1\n\tv_s_sqrt_f32 s41, s40\n\tv_mov_b32 %0, s41",                      \
      std::sqrt(double(tp_sim_ftz(f0))))                                                                              \
    X(v_s_exp_f32, "v_readfirstlane_b32 s40, %1\n\tv_s_exp_f32 s41, s40\n\tv_mov_b32 %0, s41",                        \
      tp_sim_flushed(std::exp2(double(tp_sim_ftz(f0)))))                                                              \
    X(v_s_log_f32, "v_readfirstlane_b32 s40, %1\n\tv_s_log_f32 s41, s40\n\tv_mov_b32 %0, s41",                        \
      std::log2(double(tp_sim_ftz(f0))))
#endif

// Packed math (VOP3P): X(name, asm text, host expression of D), the operation on halves given to
// tp_sim_pk_f16(a, b, op_sel, op_sel_hi, neg_lo, neg_hi, clamp, operation); the defaults are op_sel:[0,0]
// op_sel_hi:[1,1] (the low halves make D's low half, the high halves its high half).
#define TP_SIM_VOP_PACKED(X)                                                                                          \
  X(v_pk_mul_f16, "v_pk_mul_f16 %0, %1, %2", tp_sim_pk_f16(a, b, 0, 3, 0, 0, false, tp_sim_f16_mul))                  \
  X(v_pk_mul_f16, "v_pk_mul_f16 %0, %1, %2 op_sel:[1,0] op_sel_hi:[0,1]",                                              \
    tp_sim_pk_f16(a, b, 1, 2, 0, 0, false, tp_sim_f16_mul))                                                           \
  X(v_pk_mul_f16, "v_pk_mul_f16 %0, %1, %2 op_sel:[0,1] op_sel_hi:[1,0] neg_lo:[1,0] neg_hi:[0,1]",                    \
    tp_sim_pk_f16(a, b, 2, 1, 1, 2, false, tp_sim_f16_mul))                                                           \
  X(v_pk_mul_f16, "v_pk_mul_f16 %0, %1, %2 clamp", tp_sim_pk_f16(a, b, 0, 3, 0, 0, true, tp_sim_f16_mul))              \
  X(v_pk_add_f16, "v_pk_add_f16 %0, %1, %2 op_sel:[1,0] neg_hi:[0,1]", tp_sim_pk_f16(a, b, 1, 3, 0, 2, false, tp_sim_f16_add))

// Mixed precision (VOP3P v_fma_mix*): X(name, asm text, host expression of D), the guides' definition given to
// tp_sim_mix(op_sel, op_sel_hi, neg, abs, clamp, destination: 0 the f32 word, 1 the low half, 2 the high half) over
// a, b, c and D's starting word d0; op_sel_hi is all zeros (three binary32 sources) unless printed.
#define TP_SIM_VOP_MIX(X)                                                                                             \
  X(v_fma_mix_f32, "v_fma_mix_f32 %0, %1, %2, %3 op_sel_hi:[0,1,0]", tp_sim_mix(a, b, c, d0, 0, 2, 0, 0, false, 0))    \
  X(v_fma_mix_f32, "v_fma_mix_f32 %0, %1, %2, %3 op_sel_hi:[0,1,1]", tp_sim_mix(a, b, c, d0, 0, 6, 0, 0, false, 0))    \
  X(v_fma_mix_f32, "v_fma_mix_f32 %0, %1, %2, %3 op_sel_hi:[1,0,1]", tp_sim_mix(a, b, c, d0, 0, 5, 0, 0, false, 0))    \
  X(v_fma_mix_f32, "v_fma_mix_f32 %0, -%1, |%2|, %3 op_sel:[1,0,1] op_sel_hi:[1,1,1] clamp",                          \
    tp_sim_mix(a, b, c, d0, 5, 7, 1, 2, true, 0))                                                                     \
  X(v_fma_mixlo_f16, "v_fma_mixlo_f16 %0, %1, %2, 0", tp_sim_mix(a, b, 0, d0, 0, 0, 0, 0, false, 1))                  \
  X(v_fma_mixlo_f16, "v_fma_mixlo_f16 %0, %1, %2, 0 op_sel_hi:[0,1,0]", tp_sim_mix(a, b, 0, d0, 0, 2, 0, 0, false, 1)) \
  X(v_fma_mixlo_f16, "v_fma_mixlo_f16 %0, %1, %2, 0 op_sel:[0,1,0] op_sel_hi:[0,1,0]",                                \
    tp_sim_mix(a, b, 0, d0, 2, 2, 0, 0, false, 1))                                                                    \
  X(v_fma_mixlo_f16, "v_fma_mixlo_f16 %0, %1, %2, %3 op_sel:[1,0,1] op_sel_hi:[1,0,1] clamp",                         \
    tp_sim_mix(a, b, c, d0, 5, 5, 0, 0, true, 1))                                                                     \
  X(v_fma_mixhi_f16, "v_fma_mixhi_f16 %0, %1, %2, 0", tp_sim_mix(a, b, 0, d0, 0, 0, 0, 0, false, 2))                  \
  X(v_fma_mixhi_f16, "v_fma_mixhi_f16 %0, %1, %2, 0 op_sel_hi:[0,1,0]", tp_sim_mix(a, b, 0, d0, 0, 2, 0, 0, false, 2)) \
  X(v_fma_mixhi_f16, "v_fma_mixhi_f16 %0, %1, %2, 0 op_sel:[0,1,0] op_sel_hi:[0,1,0]",                                \
    tp_sim_mix(a, b, 0, d0, 2, 2, 0, 0, false, 2))                                                                    \
  X(v_fma_mixhi_f16, "v_fma_mixhi_f16 %0, -|%1|, %2, %3 op_sel_hi:[1,1,0]", tp_sim_mix(a, b, c, d0, 0, 3, 1, 1, false, 2))

// The vector ALU cases with 64-bit operands, two destinations, lane masks or other lanes: %0 = D (64-bit, starting as
// D0 = d0:d0), %1 = d (32-bit, starting as d0), %2 = e (32-bit, starting as ~d0), %3 = A = b:a, %4 = B = c:b, %5 = a,
// %6 = b, %7 = c (VGPRs; fA, fB the doubles of A, B). X(name, asm text, host expressions of D, d, e). A lane mask
// (carry, compare) comes back per lane through v_cndmask_b32 as 0 or 1; `lane` is the lane, `at(j)` lane j's a and
// `first` lane 0's a. v_cvt_pk_u16_u32 gets 16-bit operands only: whether the guides' u32_to_u16 saturates a larger
// one or keeps its low bits is not settled here (the machine keeps the low bits).
#define TP_SIM_VOP_WIDE(X)                                                                                            \
  X(v_lshlrev_b64, "v_lshlrev_b64 %0, %5, %3", A << (a % 64), d0, e0)                                                 \
  X(v_lshrrev_b64, "v_lshrrev_b64 %0, %5, %3", A >> (a % 64), d0, e0)                                                 \
  X(v_ashrrev_i64, "v_ashrrev_i64 %0, %5, %3", uint64_t(int64_t(A) >> (a % 64)), d0, e0)                              \
  X(v_add_f64, "v_add_f64 %0, %3, %4", tp_sim_f64(fA + fB), d0, e0)                                                   \
  X(v_mul_f64, "v_mul_f64 %0, %3, %4", tp_sim_f64(fA * fB), d0, e0)                                                   \
  X(v_cvt_f64_i32, "v_cvt_f64_i32 %0, %5", tp_sim_f64(double(int32_t(a))), d0, e0)                                    \
  X(v_cvt_i32_f64, "v_cvt_i32_f64 %1, %3", D0, uint32_t(tp_sim_cvt_i32_f64(fA)), e0)                                  \
  X(v_cvt_u32_f64, "v_cvt_u32_f64 %1, %3", D0, tp_sim_cvt_u32_f64(fA), e0)                                            \
  X(v_mad_co_i64_i32, TP_SIM_G11("v_mad_i64_i32", "v_mad_co_i64_i32") " %0, null, %5, %6, %4",                        \
    uint64_t(int64_t(int32_t(a)) * int32_t(b)) + B, d0, e0)                                                           \
  X(v_sub_co_u32, "v_sub_co_u32 %1, vcc_lo, %5, %6\n\tv_cndmask_b32_e64 %2, 0, 1, vcc_lo", D0, a - b, uint32_t(b > a)) \
  X(v_subrev_co_u32, "v_subrev_co_u32 %1, vcc_lo, %5, %6\n\tv_cndmask_b32_e64 %2, 0, 1, vcc_lo", D0, b - a,          \
    uint32_t(a > b))                                                                                                  \
  X(v_sub_co_ci_u32, "v_cmp_ne_u32 vcc_lo, 0, %7\n\tv_sub_co_ci_u32 %1, vcc_lo, %5, %6, vcc_lo\n\t"                   \
    "v_cndmask_b32_e64 %2, 0, 1, vcc_lo", D0, a - b - (c != 0), uint32_t(uint64_t(b) + (c != 0) > a))                \
  X(v_subrev_co_ci_u32, "v_cmp_ne_u32 vcc_lo, 0, %7\n\tv_subrev_co_ci_u32 %1, vcc_lo, %5, %6, vcc_lo\n\t"             \
    "v_cndmask_b32_e64 %2, 0, 1, vcc_lo", D0, b - a - (c != 0), uint32_t(uint64_t(a) + (c != 0) > b))                \
  X(v_cmp_class_f32, "v_cmp_class_f32 vcc_lo, %5, %6\n\tv_cndmask_b32_e64 %2, 0, 1, vcc_lo", D0, d0,                 \
    uint32_t(tp_sim_class(a, b)))                                                                                     \
  X(v_cmpx_class_f32, "s_mov_b32 s40, exec_lo\n\tv_cmpx_class_f32 %5, %6\n\tv_mov_b32 %2, 1\n\ts_mov_b32 exec_lo, s40", \
    D0, d0, tp_sim_class(a, b) ? 1u : e0)                                                                             \
  X(v_cmp_class_f16, "v_cmp_class_f16_e64 s40, %5, 0x204\n\tv_cndmask_b32_e64 %2, 0, 1, s40", D0, d0,                \
    uint32_t(tp_sim_class16(a, 0x204)))                                                                               \
  X(v_cmp_class_f16, "v_cmp_class_f16_e64 s40, %5, %6\n\tv_cndmask_b32_e64 %2, 0, 1, s40", D0, d0,                   \
    uint32_t(tp_sim_class16(a, b)))                                                                                   \
  X(v_readlane_b32, "v_readlane_b32 s40, %5, 7\n\tv_mov_b32 %1, s40", D0, at(7), e0)                                  \
  X(v_writelane_b32, "v_readfirstlane_b32 s40, %5\n\tv_writelane_b32 %1, s40, 5", D0, lane == 5 ? first : d0, e0)     \
  X(v_mbcnt_lo_u32_b32, "v_mbcnt_lo_u32_b32 %1, %5, %6", D0, uint32_t(__builtin_popcount(a & ((1u << lane) - 1))) + b, \
    e0)                                                                                                               \
  X(v_mbcnt_hi_u32_b32, "v_mbcnt_hi_u32_b32 %1, %5, %6", D0, b, e0)                                                   \
  X(v_cvt_pk_u16_u32, "v_and_b32 v40, 0xffff, %5\n\tv_and_b32 v41, 0xffff, %6\n\tv_cvt_pk_u16_u32 %1, v40, v41", D0,   \
    (a & 0xffff) | (b << 16), e0)                                                                                     \
  X(v_movreld_b32, "v_mov_b32 v42, 0\n\ts_mov_b32 s40, m0\n\ts_mov_b32 m0, 2\n\t"  \
    "v_movreld_b32 v40, %5\n\ts_mov_b32 m0, s40\n\tv_mov_b32 %1, v42", D0, a, e0)     \
  X(v_movrelsd_b32, "v_mov_b32 v45, %5\n\ts_mov_b32 s40, m0\n\ts_mov_b32 m0, 3\n\t"     \
    "v_movrelsd_b32 v40, v42\n\ts_mov_b32 m0, s40\n\tv_mov_b32 %1, v43", D0, a, e0)

// Dual issue (VOPD): X half D = v40 from src0 v42 (a), vsrc1 v44 (b); Y half D = v41 from src0 v43 (c), vsrc1 v45
// (a); v40 starts as d0, v41 as ~d0, VCC_LO as TP_SIM_VOPD_VCC. Every dual op of the arch is in a pair, as X or as Y:
// X(X text, Y text, host expressions of v40 and v41 (x, y: the starting words)).
#define TP_SIM_VOPD_VCC 0x5a5a5a5au
#define TP_SIM_VOPD_PAIRS(X)                                                                                          \
  X("v_dual_add_f32 v40, v42, v44", "v_dual_mul_f32 v41, v43, v45", tp_sim_f32(fa + fb), tp_sim_f32(fc * fa))         \
  X("v_dual_sub_f32 v40, v42, v44", "v_dual_subrev_f32 v41, v43, v45", tp_sim_f32(fa - fb), tp_sim_f32(fa - fc))      \
  X("v_dual_fmaak_f32 v40, v42, v44, 0x40490fdb", "v_dual_fmac_f32 v41, v43, v45",                                    \
    tp_sim_f32(__builtin_fmaf(fa, fb, 3.14159274f)), tp_sim_f32(__builtin_fmaf(fc, fa, tp_sim_as_f32(y))))            \
  X("v_dual_fmamk_f32 v40, v42, 0x40490fdb, v44", TP_SIM_G11("v_dual_max_f32", "v_dual_max_num_f32") " v41, v43, v45", \
    tp_sim_f32(__builtin_fmaf(fa, 3.14159274f, fb)), tp_sim_vopd_max_min(c, a, true))                                 \
  X(TP_SIM_G11("v_dual_min_f32", "v_dual_min_num_f32") " v40, v42, v44", "v_dual_cndmask_b32 v41, v43, v45",          \
    tp_sim_vopd_max_min(a, b, false), (TP_SIM_VOPD_VCC >> lane) & 1 ? a : c)                                          \
  X("v_dual_mov_b32 v40, v42", "v_dual_add_nc_u32 v41, v43, v45", a, c + a)                                           \
  X("v_dual_cndmask_b32 v40, v42, v44", "v_dual_lshlrev_b32 v41, v43, v45", (TP_SIM_VOPD_VCC >> lane) & 1 ? b : a,    \
    a << (c % 32))                                                                                                    \
  X("v_dual_mul_f32 v40, v42, v44", "v_dual_and_b32 v41, v43, v45", tp_sim_f32(fa * fb), c & a)
