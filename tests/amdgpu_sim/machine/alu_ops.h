// The integer and f32 operations the differential tests run: each X(name, expression) is compiled once by the host
// compiler (the expected value) and once by clang per simulated arch inside test_kernels.cu (run on the simulator). The
// expressions are defined for every input (shift counts masked, no signed overflow, no division by zero).
#pragma once

// a, b, c: uint32_t; sa, sb: their int32_t views.
#define TP_SIM_INT_OPS(X)                                           \
  X(add, a + b)                                                     \
  X(sub, a - b)                                                     \
  X(mul, a * b)                                                     \
  X(mulhi_u, uint32_t((uint64_t(a) * b) >> 32))                     \
  X(mulhi_s, uint32_t(uint64_t(int64_t(sa) * sb) >> 32))            \
  X(shl, a << (b & 31))                                             \
  X(lshr, a >> (b & 31))                                            \
  X(ashr, uint32_t(sa >> (b & 31)))                                 \
  X(and_or, (a & b) | c)                                            \
  X(xor3, a ^ b ^ c)                                                \
  X(not_, ~a)                                                       \
  X(min_u, a < b ? a : b)                                           \
  X(max_s, uint32_t(sa > sb ? sa : sb))                             \
  X(select, a < b ? c : a + 1)                                      \
  X(udiv, a / (b | 1))                                              \
  X(urem, a % (b | 1))                                              \
  X(sdiv, uint32_t((sa >> 1) / ((sb >> 1) | 1)))                    \
  X(popc, uint32_t(__builtin_popcount(a)))                          \
  X(clz, uint32_t(a ? __builtin_clz(a) : 32))                       \
  X(ctz, uint32_t(a ? __builtin_ctz(a) : 32))                       \
  X(byte2, (a >> 16) & 0xffu)                                       \
  X(sext8, uint32_t(int32_t(int8_t(a))))                            \
  X(bitfield, (a >> 7) & 0x1fffu)                                   \
  X(mul24, (a & 0xffffffu) * (b & 0xffffffu))                       \
  X(add64_lo, uint32_t((uint64_t(a) << 32 | b) + (uint64_t(c) * 3)))  \
  X(add64_hi, uint32_t(((uint64_t(a) << 32 | b) + (uint64_t(c) << 7)) >> 32)) \
  X(mul64_hi, uint32_t(((uint64_t(a) << 32 | b) * (uint64_t(c) | 1)) >> 32))  \
  X(shl64_hi, uint32_t(((uint64_t(a) << 32 | b) << (c & 63)) >> 32))          \
  X(rotl, (a << (b & 31)) | (a >> ((32 - (b & 31)) & 31)))          \
  X(u16_mul, uint32_t(uint16_t(uint16_t(a) * uint16_t(b))))

// x, y, z: float. Only operations the ISA rounds exactly like IEEE (add, sub, mul, fma) and exact ones.
#define TP_SIM_F32_OPS(X)            \
  X(fadd, x + y)                     \
  X(fsub, x - y)                     \
  X(fmul, x * y)                     \
  X(ffma, __builtin_fmaf(x, y, z))   \
  X(fneg_mul, -(x * y))              \
  X(fabs_add, __builtin_fabsf(x) + z)
// (x * y + z is not here: HIP compiles with -ffp-contract=fast-honor-pragmas, so clang fuses it into v_fma_f32 while
// the host, built with -ffp-contract=off, rounds twice. ffma covers the fused form.)
