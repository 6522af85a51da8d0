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
