// Device code for the machine's tests, compiled by clang for one arch at a time (gfx1201, gfx1100; no host side, no
// HIP runtime): the simt dialect's own test kernels, the differential ALU kernels over alu_ops.h, the matrix
// instructions through kernels/mma, kernels that stop the dispatch, and the single-instruction kernels of isa_cases.h
// (test_instructions.cpp checks them).
#define TP_VARIANT_NS tp_sim_machine_test
#include "simt/simt.h"
#include "kernels/mma/wave_ops.cuh"
#include "tests/amdgpu_sim/machine/alu_ops.h"
#include "tests/amdgpu_sim/machine/isa_cases.h"
#include "tests/simt/gpu/simt_kernels.cuh"

namespace tp_sim_machine_test {

// One thread per input triple; out holds every op's result for thread i at [i * ops + op].
TP_GLOBAL void int_ops(tp::gmem<uint32_t> in, tp::gmem<uint32_t> out, uint32_t n) {
  const unsigned i = tp::block_idx() * tp::block_dim() + tp::thread_idx();
  if (i >= n) return;
  const uint32_t a = in.ld(3 * i), b = in.ld(3 * i + 1), c = in.ld(3 * i + 2);
  const int32_t sa = int32_t(a), sb = int32_t(b);
  (void)sa; (void)sb;
  unsigned k = 0;
  uint32_t r[64];
#define TP_X(name, expr) r[k++] = (expr);
  TP_SIM_INT_OPS(TP_X)
#undef TP_X
  for (unsigned j = 0; j < k; ++j) out.st(i * k + j, r[j]);
}

TP_GLOBAL void f32_ops(tp::gmem<float> in, tp::gmem<float> out, uint32_t n) {
  const unsigned i = tp::block_idx() * tp::block_dim() + tp::thread_idx();
  if (i >= n) return;
  const float x = in.ld(3 * i), y = in.ld(3 * i + 1), z = in.ld(3 * i + 2);
  unsigned k = 0;
  float r[32];
#define TP_X(name, expr) r[k++] = (expr);
  TP_SIM_F32_OPS(TP_X)
#undef TP_X
  for (unsigned j = 0; j < k; ++j) out.st(i * k + j, r[j]);
}

// Globals, reached through the kernel's PC (s_getpc_b64 plus a PC-relative offset), as ROCr's loader places them: a
// __constant__ table, a __device__ table of pointers into it (each entry an R_AMDGPU_RELATIVE64 relocation the
// loader resolves for the image's address) and a zero-initialised __device__ counter (.bss) that lane 0 increments:
// a second launch sees the first's write.
__constant__ uint32_t global_table[8] = {3, 5, 7, 11, 13, 17, 19, 23};
__device__ const uint32_t* global_rows[4] = {global_table + 6, global_table + 4, global_table + 2, global_table};
__device__ uint32_t global_counter;
TP_GLOBAL void read_globals(tp::gmem<uint32_t> key, tp::gmem<uint32_t> out) {
  const unsigned l = tp::thread_idx();
  const uint32_t k = key.ld(l);
  out.st(l, global_rows[k & 3][(k >> 2) & 1] * 100 + global_table[(k >> 3) & 7]);
  if (l == 0) {
    global_counter = global_counter + 1;
    out.st(32, global_counter);
  }
}

// One wave, one matrix instruction: lane l's operand registers are words l*R..l*R+R-1 of each buffer.
template <class Op>
TP_DEVICE void one_matrix_op(tp::gmem<uint32_t> a, tp::gmem<uint32_t> b, tp::gmem<uint32_t> c,
                             tp::gmem<uint32_t> index, tp::gmem<uint32_t> d) {
  const unsigned l = tp::thread_idx();
  const auto av = tp::mma::load_lane_words<typename Op::a_t>(a, l);
  const auto bv = tp::mma::load_lane_words<typename Op::b_t>(b, l);
  const auto cv = tp::mma::load_lane_words<typename Op::c_t>(c, l);
  tp::mma::store_lane_words(d, l, Op::run(av, bv, cv, int32_t(index.ld(l))));
}
#define TP_MATRIX_KERNEL(name, ...)                                                                           \
  TP_GLOBAL void name(tp::gmem<uint32_t> a, tp::gmem<uint32_t> b, tp::gmem<uint32_t> c,                        \
                      tp::gmem<uint32_t> index, tp::gmem<uint32_t> d) {                                        \
    one_matrix_op<__VA_ARGS__>(a, b, c, index, d);                                                            \
  }
TP_MATRIX_KERNEL(swmmac_iu8_ss_key0, tp::mma::op_swmmac_i32_16x16x32_iu8<true, true, false, 0>)
TP_MATRIX_KERNEL(swmmac_iu8_us_key1, tp::mma::op_swmmac_i32_16x16x32_iu8<false, true, false, 1>)
TP_MATRIX_KERNEL(swmmac_iu4_ss_key0, tp::mma::op_swmmac_i32_16x16x32_iu4<true, true, false, 0>)
TP_MATRIX_KERNEL(swmmac_iu4x64_su, tp::mma::op_swmmac_i32_16x16x64_iu4<true, false, false>)
TP_MATRIX_KERNEL(swmmac_f16_key1, tp::mma::op_swmmac_f32_16x16x32_f16<1>)
TP_MATRIX_KERNEL(swmmac_fp8_fp8_key0, tp::mma::op_swmmac_f32_16x16x32_fp8_fp8<0>)
TP_MATRIX_KERNEL(swmmac_fp8_bf8_key1, tp::mma::op_swmmac_f32_16x16x32_fp8_bf8<1>)
TP_MATRIX_KERNEL(swmmac_bf8_fp8_key0, tp::mma::op_swmmac_f32_16x16x32_bf8_fp8<0>)
TP_MATRIX_KERNEL(swmmac_bf8_bf8_key1, tp::mma::op_swmmac_f32_16x16x32_bf8_bf8<1>)
TP_MATRIX_KERNEL(swmmac_bf16_key0, tp::mma::op_swmmac_f32_16x16x32_bf16<0>)
TP_MATRIX_KERNEL(wmma_iu4_us, tp::mma::op_wmma_i32_16x16x32_iu4<false, true, false>)
TP_MATRIX_KERNEL(wmma_iu8_ss_clamp, tp::mma::op_wmma_i32_16x16x16_iu8<true, true, true>)
TP_MATRIX_KERNEL(wmma_f16, tp::mma::op_wmma_f32_16x16x16_f16)
TP_MATRIX_KERNEL(gfx11_wmma_f16, tp::mma::op_gfx11_wmma_f32_16x16x16_f16)
TP_MATRIX_KERNEL(gfx11_wmma_iu8_su_clamp, tp::mma::op_gfx11_wmma_i32_16x16x16_iu8<true, false, true>)

// v_wmma_f16_16x16x16_f16 (binary16 C/D; beellama's flash-attention kernels, no kernels/mma op): the instruction
// itself, written with D in C's registers as the compiled kernels have it, so the half of each 32-bit slot a gfx11 form
// leaves unwritten keeps C's bits. Operand words as one_matrix_op's (gfx11: 8 VGPRs each, gfx12: 4).
#if defined(__gfx1100__)
  #define TP_WMMA_F16_WORDS 8
#else
  #define TP_WMMA_F16_WORDS 4
#endif
typedef uint32_t tp_wmma_f16_words __attribute__((ext_vector_type(TP_WMMA_F16_WORDS)));
#define TP_WMMA_F16_KERNEL(name, modifiers)                                                                   \
  TP_GLOBAL void name(tp::gmem<uint32_t> a, tp::gmem<uint32_t> b, tp::gmem<uint32_t> c, tp::gmem<uint32_t>,   \
                      tp::gmem<uint32_t> d) {                                                                  \
    const unsigned l = tp::thread_idx(), n = TP_WMMA_F16_WORDS;                                               \
    tp_wmma_f16_words av, bv, cv;                                                                             \
    for (unsigned r = 0; r < n; ++r) av[r] = a.ld(n * l + r), bv[r] = b.ld(n * l + r), cv[r] = c.ld(n * l + r); \
    asm volatile("v_wmma_f16_16x16x16_f16 %0, %1, %2, %0" modifiers : "+v"(cv) : "v"(av), "v"(bv));            \
    for (unsigned r = 0; r < n; ++r) d.st(n * l + r, cv[r]);                                                  \
  }
TP_WMMA_F16_KERNEL(wmma_f16_acc, "")
#if defined(__gfx1100__)
TP_WMMA_F16_KERNEL(wmma_f16_acc_hi, " op_sel:[0,0,1]")
#endif
#undef TP_WMMA_F16_KERNEL
#if !defined(__gfx1100__)
// gfx12's zero accumulator as the inline constant 0 in C's field, as clang emits it: D = A*B. D's registers (v[0:7]
// here) first hold c's words, what a C read from the VGPRs at 0 would add.
TP_GLOBAL void wmma_f16_c0(tp::gmem<uint32_t> a, tp::gmem<uint32_t> b, tp::gmem<uint32_t> c, tp::gmem<uint32_t>,
                           tp::gmem<uint32_t> d) {
  typedef uint32_t words4 __attribute__((ext_vector_type(4)));
  typedef uint32_t words8 __attribute__((ext_vector_type(8)));
  const unsigned l = tp::thread_idx();
  words4 av, bv;
  words8 dv;
  for (unsigned r = 0; r < 4; ++r) av[r] = a.ld(4 * l + r), bv[r] = b.ld(4 * l + r);
  for (unsigned r = 0; r < 8; ++r) dv[r] = c.ld(8 * l + r);
  asm volatile("v_wmma_f32_16x16x16_f16 %0, %1, %2, 0" : "+v"(dv) : "v"(av), "v"(bv));
  for (unsigned r = 0; r < 8; ++r) d.st(8 * l + r, dv[r]);
}
#endif

// Two waves and no barrier: wave 1 reads back the LDS words wave 0 writes. The race detector's positive case; what
// wave 1 reads depends on the schedule (0 when it runs first, t + 1 when wave 0 stored first).
TP_GLOBAL void lds_race(tp::gmem<int> out) {
  TP_SHARED(int, box, 32);
  const unsigned t = tp::thread_idx();
  if (t < 32)
    box.st(t, int(t) + 1);  // TP_SIM_TEST_RACE_WRITE
  else
    out.st(t - 32, box.ld(t - 32));  // TP_SIM_TEST_RACE_READ
}

// grid_dim() is read from the dispatch packet (dispatch-ptr user SGPRs), block_dim() from the hidden kernargs.
TP_GLOBAL void launch_shape(tp::gmem<uint32_t> out) {
  const unsigned i = tp::block_idx() * tp::block_dim() + tp::thread_idx();
  out.st(i, tp::grid_dim() * 100000u + tp::block_dim() * 100u + tp::block_idx());
}

// f32 division (HIP's default: correctly rounded, through v_div_scale/v_div_fmas/v_div_fixup and v_rcp_f32).
TP_GLOBAL void f32_div(tp::gmem<float> in, tp::gmem<float> out, uint32_t n) {
  const unsigned i = tp::block_idx() * tp::block_dim() + tp::thread_idx();
  if (i < n) out.st(i, in.ld(2 * i) / in.ld(2 * i + 1));
}

// The division helpers one instruction at a time (clang's __builtin_amdgcn_div_* map one to one onto them): per
// case, in = {a, b, c, vcc}, out = {div_scale(a, b, a) D and VCC (numerator scaled), div_scale(b, b, a) D and VCC
// (denominator scaled), div_fmas(a, b, c) with VCC = vcc, div_fixup(a, b, c)}.
TP_GLOBAL void div_helpers(tp::gmem<float> in, tp::gmem<float> out, uint32_t n) {
  const unsigned i = tp::block_idx() * tp::block_dim() + tp::thread_idx();
  if (i >= n) return;
  const float a = in.ld(4 * i), b = in.ld(4 * i + 1), c = in.ld(4 * i + 2);
  const bool vcc = in.ld(4 * i + 3) != 0.0f;
  bool num_flag = false, den_flag = false;
  out.st(6 * i, __builtin_amdgcn_div_scalef(a, b, true, &num_flag));
  out.st(6 * i + 2, __builtin_amdgcn_div_scalef(a, b, false, &den_flag));
  out.st(6 * i + 1, num_flag ? 1.0f : 0.0f);
  out.st(6 * i + 3, den_flag ? 1.0f : 0.0f);
  out.st(6 * i + 4, __builtin_amdgcn_div_fmasf(a, b, c, vcc));
  out.st(6 * i + 5, __builtin_amdgcn_div_fixupf(a, b, c));
}

// s_getreg_b32 reads a hardware register (here HW_REG_MODE) that the machine does not model: reaching it must stop
// the dispatch with the mnemonic and PC, after the first store has happened.
TP_GLOBAL void reaches_unimplemented(tp::gmem<uint32_t> out) {
  out.st(tp::thread_idx(), 1);
  out.st(tp::thread_idx() + 32, __builtin_amdgcn_s_getreg((31 << 11) | 1));
}

// Every VOPC case of isa_cases.h, one wave: lane l compares a[l] with b[l] (the operand in the word's low bits);
// out[2k] is case k's v_cmp lane mask (written to an SGPR), out[2k + 1] EXEC after its v_cmpx (saved and restored
// around it).
#define TP_VOPC_OPERANDS_16 const uint32_t x = uint32_t(av), y = uint32_t(bv);
#define TP_VOPC_OPERANDS_32 const uint32_t x = uint32_t(av), y = uint32_t(bv);
#define TP_VOPC_OPERANDS_64 const uint64_t x = av, y = bv;
#define TP_VOPC_CASE(sfx, T, bits, kind, expr)                                                               \
  {                                                                                                          \
    TP_VOPC_OPERANDS_##bits uint32_t mask, exec, saved;                                                      \
    asm volatile("v_cmp_" #kind "_" #sfx " %0, %1, %2" : "=s"(mask) : "v"(x), "v"(y));                       \
    asm volatile("s_mov_b32 %0, exec_lo\n\tv_cmpx_" #kind "_" #sfx " %2, %3\n\ts_mov_b32 %1, exec_lo\n\t"    \
                 "s_mov_b32 exec_lo, %0"                                                                     \
                 : "=&s"(saved), "=&s"(exec)                                                                 \
                 : "v"(x), "v"(y));                                                                          \
    if (l == 0) {                                                                                            \
      out.st(2 * k, mask);                                                                                   \
      out.st(2 * k + 1, exec);                                                                               \
    }                                                                                                        \
    ++k;                                                                                                     \
  }
#define TP_VOPC_TYPE(sfx, T, bits, KINDS) KINDS(TP_VOPC_CASE, sfx, T, bits)
TP_GLOBAL void vopc_cases(tp::gmem<uint64_t> a, tp::gmem<uint64_t> b, tp::gmem<uint32_t> out) {
  const unsigned l = tp::thread_idx();
  const uint64_t av = a.ld(l), bv = b.ld(l);
  unsigned k = 0;
  TP_SIM_VOPC_CASES(TP_VOPC_TYPE)
}
#undef TP_VOPC_TYPE
#undef TP_VOPC_CASE

// ---- loads and stores of every form (isa_cases.h) ----
// The destination or data registers of a form: 1 to 4 consecutive VGPRs. Three go through fixed registers (v40-v42),
// one operand each: clang-19 hands a 3-element vector operand to the asm in registers it never filled. The asm text of
// a form's registers is TP_REGS_TEXT_<n>, its operands TP_REGS_<n>(r) (in-out: a d16 load keeps the other half), and
// the first operand after them is TP_AFTER_REGS_<n>.
typedef uint32_t tp_reg1;
typedef uint64_t tp_reg2;
struct tp_reg3 {
  uint32_t w[3];
};
typedef uint32_t tp_reg4 __attribute__((ext_vector_type(4)));
#define TP_REGS_TEXT_1 "%0"
#define TP_REGS_TEXT_2 "%0"
#define TP_REGS_TEXT_3 "v[40:42]"
#define TP_REGS_TEXT_4 "%0"
#define TP_REGS_1(r) "+v"(r)
#define TP_REGS_2(r) "+v"(r)
#define TP_REGS_3(r) "+{v40}"(r.w[0]), "+{v41}"(r.w[1]), "+{v42}"(r.w[2])
#define TP_REGS_4(r) "+v"(r)
#define TP_AFTER_REGS_1 "%1"
#define TP_AFTER_REGS_2 "%1"
#define TP_AFTER_REGS_3 "%3"
#define TP_AFTER_REGS_4 "%1"
TP_DEVICE uint32_t tp_word(tp_reg1 r, unsigned) { return r; }
TP_DEVICE uint32_t tp_word(tp_reg2 r, unsigned d) { return uint32_t(r >> (32 * d)); }
TP_DEVICE uint32_t tp_word(tp_reg3 r, unsigned d) { return r.w[d]; }
TP_DEVICE uint32_t tp_word(tp_reg4 r, unsigned d) { return r[d]; }
template <class R>
TP_DEVICE R tp_data(unsigned l) {
  R r{};
  if constexpr (sizeof(R) == 4) r = tp_sim_data_word(l, 0);
  else if constexpr (sizeof(R) == 8) r = uint64_t(tp_sim_data_word(l, 0)) | (uint64_t(tp_sim_data_word(l, 1)) << 32);
  else if constexpr (sizeof(R) == 12)
    for (unsigned d = 0; d < 3; ++d) r.w[d] = tp_sim_data_word(l, d);
  else
    for (unsigned d = 0; d < 4; ++d) r[d] = tp_sim_data_word(l, d);
  return r;
}
// A load's registers, case k, lane l: out[(k * 32 + l) * 4 + d].
template <class R>
TP_DEVICE void tp_put(tp::gmem<uint32_t> out, unsigned k, unsigned l, R r) {
  for (unsigned d = 0; d < 4; ++d) out.st((k * 32 + l) * 4 + d, d * 4 < sizeof(R) ? tp_word(r, d) : 0u);
}
// The memory counters a load or store waits on (gfx12 splits them by kind).
#if defined(__gfx1100__)
  #define TP_WAIT_LOADS "s_waitcnt vmcnt(0)"
  #define TP_WAIT_STORES "s_waitcnt_vscnt null, 0x0"
  #define TP_WAIT_LDS "s_waitcnt lgkmcnt(0)"
#else
  #define TP_WAIT_LOADS "s_wait_loadcnt 0x0"
  #define TP_WAIT_STORES "s_wait_storecnt 0x0"
  #define TP_WAIT_LDS "s_wait_dscnt 0x0"
#endif
template <class T>
TP_DEVICE uint32_t tp_private_offset(T* p) {  // a generic pointer to a private variable -> its scratch offset
  return uint32_t(uintptr_t((__attribute__((address_space(5))) T*)p));
}
template <class T>
TP_DEVICE uint32_t tp_lds_offset(T* p) {
  return uint32_t(uintptr_t((__attribute__((address_space(3))) T*)p));
}

// Global, flat (to global memory) and scratch loads from lane l's slot of `in` (copied to the lane's private memory for
// scratch), one case per form and space, in TP_SIM_VMEM_LOADS order: global, then flat, then scratch.
TP_GLOBAL void vmem_loads(tp::gmem<uint32_t> in, tp::gmem<uint32_t> out) {
  const unsigned l = tp::thread_idx();
  const uint64_t at = uint64_t(in.p) + TP_SIM_MEM_SLOT * l + TP_SIM_MEM_AT;
  uint32_t priv[TP_SIM_MEM_SLOT / 4];
  for (unsigned i = 0; i < TP_SIM_MEM_SLOT / 4; ++i) priv[i] = in.ld(TP_SIM_MEM_SLOT / 4 * l + i);
  const uint32_t pat = tp_private_offset(priv) + TP_SIM_MEM_AT;
  unsigned k = 0;
#define TP_LOAD(space, addr, tail, sfx, regs, bytes, kind)                                                     \
  {                                                                                                            \
    tp_reg##regs r = tp_data<tp_reg##regs>(l);                                                                 \
    asm volatile(#space "_load_" #sfx " " TP_REGS_TEXT_##regs ", " TP_AFTER_REGS_##regs tail "\n\t" TP_WAIT_LOADS \
                 : TP_REGS_##regs(r) : "v"(addr) : "memory");                                                  \
    tp_put(out, k++, l, r);                                                                                    \
  }
#define TP_GLOBAL_LOAD(sfx, regs, bytes, kind) TP_LOAD(global, at, ", off", sfx, regs, bytes, kind)
#define TP_FLAT_LOAD(sfx, regs, bytes, kind) TP_LOAD(flat, at, "", sfx, regs, bytes, kind)
#define TP_SCRATCH_LOAD(sfx, regs, bytes, kind) TP_LOAD(scratch, pat, ", off", sfx, regs, bytes, kind)
  TP_SIM_VMEM_LOADS(TP_GLOBAL_LOAD)
  TP_SIM_VMEM_LOADS(TP_FLAT_LOAD)
  TP_SIM_VMEM_LOADS(TP_SCRATCH_LOAD)
#undef TP_SCRATCH_LOAD
#undef TP_FLAT_LOAD
#undef TP_GLOBAL_LOAD
#undef TP_LOAD
}

// Global, flat and scratch stores of lane l's data registers into its slot of case k, slots + (k * 32 + l) * 8 words
// (never written before; the scratch slot is zeroed, stored to and copied there).
TP_GLOBAL void vmem_stores(tp::gmem<uint32_t> slots) {
  const unsigned l = tp::thread_idx();
  unsigned k = 0;
  uint32_t priv[TP_SIM_MEM_SLOT / 4];
  const uint32_t pat = tp_private_offset(priv) + TP_SIM_MEM_AT;
  const auto slot = [&](unsigned c) { return slots + (c * 32 + l) * (TP_SIM_MEM_SLOT / 4); };
#define TP_STORE(space, addr, tail, sfx, regs, bytes, kind)                                                    \
  {                                                                                                            \
    tp_reg##regs r = tp_data<tp_reg##regs>(l);                                                                 \
    asm volatile(#space "_store_" #sfx " " TP_AFTER_REGS_##regs ", " TP_REGS_TEXT_##regs tail "\n\t" TP_WAIT_STORES \
                 : TP_REGS_##regs(r) : "v"(addr) : "memory");                                                  \
    ++k;                                                                                                       \
  }
#define TP_GLOBAL_STORE(sfx, regs, bytes, kind) \
  TP_STORE(global, uint64_t(slot(k).p) + TP_SIM_MEM_AT, ", off", sfx, regs, bytes, kind)
#define TP_FLAT_STORE(sfx, regs, bytes, kind) TP_STORE(flat, uint64_t(slot(k).p) + TP_SIM_MEM_AT, "", sfx, regs, bytes, kind)
#define TP_SCRATCH_STORE(sfx, regs, bytes, kind)                                          \
  for (unsigned i = 0; i < TP_SIM_MEM_SLOT / 4; ++i) priv[i] = 0;                         \
  TP_STORE(scratch, pat, ", off", sfx, regs, bytes, kind)                                 \
  for (unsigned i = 0; i < TP_SIM_MEM_SLOT / 4; ++i) slot(k - 1).st(i, priv[i]);
  TP_SIM_VMEM_STORES(TP_GLOBAL_STORE)
  TP_SIM_VMEM_STORES(TP_FLAT_STORE)
  TP_SIM_VMEM_STORES(TP_SCRATCH_STORE)
#undef TP_SCRATCH_STORE
#undef TP_FLAT_STORE
#undef TP_GLOBAL_STORE
#undef TP_STORE
}

// DS loads of every form from lane l's LDS slot (filled from `in`): out[(k * 32 + l) * 4 + d] (TP_SIM_DS_LOADS
// order); then DS stores into the slot (zeroed first), read back: slots[(k * 32 + l) * 8 + w] (TP_SIM_DS_STORES order).
TP_GLOBAL void ds_forms(tp::gmem<uint32_t> in, tp::gmem<uint32_t> out, tp::gmem<uint32_t> slots) {
  TP_SHARED(uint32_t, lds, 32 * TP_SIM_MEM_SLOT / 4);
  const unsigned l = tp::thread_idx(), words = TP_SIM_MEM_SLOT / 4;
  for (unsigned i = 0; i < words; ++i) lds.st(words * l + i, in.ld(words * l + i));
  const uint32_t at = tp_lds_offset(lds.p + words * l) + TP_SIM_MEM_AT;
  unsigned k = 0;
#define TP_DS_LOAD(sfx, regs, bytes, kind)                                                                     \
  {                                                                                                            \
    tp_reg##regs r = tp_data<tp_reg##regs>(l);                                                                 \
    asm volatile("ds_load_" #sfx " " TP_REGS_TEXT_##regs ", " TP_AFTER_REGS_##regs "\n\t" TP_WAIT_LDS             \
                 : TP_REGS_##regs(r) : "v"(at) : "memory");                                                    \
    tp_put(out, k++, l, r);                                                                                    \
  }
  TP_SIM_DS_LOADS(TP_DS_LOAD)
#undef TP_DS_LOAD
  k = 0;
#define TP_DS_STORE(sfx, regs, bytes, kind)                                                                    \
  {                                                                                                            \
    for (unsigned i = 0; i < words; ++i) lds.st(words * l + i, 0);                                             \
    tp_reg##regs r = tp_data<tp_reg##regs>(l);                                                                 \
    asm volatile("ds_store_" #sfx " " TP_AFTER_REGS_##regs ", " TP_REGS_TEXT_##regs "\n\t" TP_WAIT_LDS            \
                 : TP_REGS_##regs(r) : "v"(at) : "memory");                                                    \
    for (unsigned i = 0; i < words; ++i) slots.st((k * 32 + l) * words + i, lds.ld(words * l + i));            \
    ++k;                                                                                                       \
  }
  TP_SIM_DS_STORES(TP_DS_STORE)
#undef TP_DS_STORE
}

// The two-address DS forms: two elements at the lane's slot + offset0 and + offset1 elements (the stride64 forms:
// 64 elements apart, into a second region of the LDS, so no two lanes touch one byte). out[l * 24 + ...]: the b32
// pair, the b64 pair, the stride64 b32 pair, the stride64 b64 pair (2 + 4 + 2 + 4 words); then the same four stores'
// elements read back (12 words).
TP_GLOBAL void ds_two_address(tp::gmem<uint32_t> in, tp::gmem<uint32_t> out) {
  TP_SHARED(uint32_t, lds, 2 * 32 * TP_SIM_MEM_SLOT / 4);
  const unsigned l = tp::thread_idx(), words = TP_SIM_MEM_SLOT / 4, far = 32 * words;
  for (unsigned i = 0; i < words; ++i) {
    lds.st(words * l + i, in.ld(words * l + i));
    lds.st(far + words * l + i, ~in.ld(words * l + i));
  }
  const uint32_t at = tp_lds_offset(lds.p + words * l);
  tp_reg2 a;
  tp_reg4 b, d;
  tp_reg2 c;
  asm volatile("ds_load_2addr_b32 %0, %1 offset0:1 offset1:3\n\t" TP_WAIT_LDS : "=v"(a) : "v"(at) : "memory");
  asm volatile("ds_load_2addr_b64 %0, %1 offset0:1 offset1:2\n\t" TP_WAIT_LDS : "=v"(b) : "v"(at) : "memory");
  asm volatile("ds_load_2addr_stride64_b32 %0, %1 offset0:0 offset1:4\n\t" TP_WAIT_LDS : "=v"(c) : "v"(at) : "memory");
  asm volatile("ds_load_2addr_stride64_b64 %0, %1 offset0:0 offset1:2\n\t" TP_WAIT_LDS : "=v"(d) : "v"(at) : "memory");
  unsigned o = l * 24;
  for (unsigned w = 0; w < 2; ++w) out.st(o++, tp_word(a, w));
  for (unsigned w = 0; w < 4; ++w) out.st(o++, tp_word(b, w));
  for (unsigned w = 0; w < 2; ++w) out.st(o++, tp_word(c, w));
  for (unsigned w = 0; w < 4; ++w) out.st(o++, tp_word(d, w));
  const uint32_t x = tp_sim_data_word(l, 0), y = tp_sim_data_word(l, 1);
  const uint64_t x2 = uint64_t(tp_sim_data_word(l, 2)) | uint64_t(tp_sim_data_word(l, 3)) << 32, y2 = ~x2;
  asm volatile("ds_store_2addr_b32 %0, %1, %2 offset0:1 offset1:3\n\t" TP_WAIT_LDS : : "v"(at), "v"(x), "v"(y) : "memory");
  out.st(o++, lds.ld(words * l + 1));
  out.st(o++, lds.ld(words * l + 3));
  asm volatile("ds_store_2addr_b64 %0, %1, %2 offset0:1 offset1:2\n\t" TP_WAIT_LDS : : "v"(at), "v"(x2), "v"(y2) : "memory");
  for (unsigned w = 2; w < 6; ++w) out.st(o++, lds.ld(words * l + w));
  asm volatile("ds_store_2addr_stride64_b32 %0, %1, %2 offset0:0 offset1:4\n\t" TP_WAIT_LDS : : "v"(at), "v"(y), "v"(x) : "memory");
  out.st(o++, lds.ld(words * l));
  out.st(o++, lds.ld(far + words * l));
  asm volatile("ds_store_2addr_stride64_b64 %0, %1, %2 offset0:0 offset1:2\n\t" TP_WAIT_LDS : : "v"(at), "v"(y2), "v"(x2) : "memory");
  for (unsigned w = 0; w < 2; ++w) out.st(o++, lds.ld(words * l + w));
  for (unsigned w = 0; w < 2; ++w) out.st(o++, lds.ld(far + words * l + w));
}

// The LDS atomics, each lane on its own word (initially in[l]) with data tp_sim_data_word(l, 0): per atomic of
// TP_SIM_DS_ATOMICS, out[(k * 32 + l) * 3 + ...] = the word after ds_<op>_<type>, the old word ds_<op>_rtn_<type>
// returned and the word after it; then ds_storexchg_rtn_b32's returned and stored words.
TP_GLOBAL void ds_atomics(tp::gmem<uint32_t> in, tp::gmem<uint32_t> out) {
  TP_SHARED(uint32_t, lds, 32);
  const unsigned l = tp::thread_idx();
  const uint32_t at = tp_lds_offset(lds.p + l), v = tp_sim_data_word(l, 0);
  unsigned k = 0;
#define TP_DS_ATOMIC(op, type, expr)                                                                            \
  {                                                                                                             \
    uint32_t old;                                                                                               \
    lds.st(l, in.ld(l));                                                                                        \
    asm volatile("ds_" #op "_" #type " %0, %1\n\t" TP_WAIT_LDS : : "v"(at), "v"(v) : "memory");                 \
    out.st((k * 32 + l) * 3, lds.ld(l));                                                                        \
    lds.st(l, in.ld(l));                                                                                        \
    asm volatile("ds_" #op "_rtn_" #type " %0, %1, %2\n\t" TP_WAIT_LDS : "=v"(old) : "v"(at), "v"(v) : "memory"); \
    out.st((k * 32 + l) * 3 + 1, old);                                                                          \
    out.st((k * 32 + l) * 3 + 2, lds.ld(l));                                                                    \
    ++k;                                                                                                        \
  }
  TP_SIM_DS_ATOMICS(TP_DS_ATOMIC)
#undef TP_DS_ATOMIC
  uint32_t old;
  lds.st(l, in.ld(l));
  asm volatile("ds_storexchg_rtn_b32 %0, %1, %2\n\t" TP_WAIT_LDS : "=v"(old) : "v"(at), "v"(v) : "memory");
  out.st(k * 32 * 3 + 2 * l, old);
  out.st(k * 32 * 3 + 2 * l + 1, lds.ld(l));
}

// ds_permute_b32 (lane l sends its value to lane p(l)) and ds_bpermute_b32 (lane l reads lane p(l)), p(l) = 7l+3 mod
// 32, a permutation; out[l] and out[32 + l].
TP_GLOBAL void ds_permutes(tp::gmem<uint32_t> out) {
  const unsigned l = tp::thread_idx();
  const uint32_t to = ((7 * l + 3) % 32) * 4, v = tp_sim_data_word(l, 0);
  uint32_t sent, fetched;
  asm volatile("ds_permute_b32 %0, %1, %2\n\t" TP_WAIT_LDS : "=v"(sent) : "v"(to), "v"(v));
  asm volatile("ds_bpermute_b32 %0, %1, %2\n\t" TP_WAIT_LDS : "=v"(fetched) : "v"(to), "v"(v));
  out.st(l, sent);
  out.st(32 + l, fetched);
}

// Flat accesses whose address is in the LDS or the lane's private memory (the apertures): lane l stores x to its LDS
// word and its private word through flat_store_b32 and loads them back through flat_load_b32; out[2l], out[2l + 1].
TP_GLOBAL void flat_apertures(tp::gmem<uint32_t> out) {
  TP_SHARED(uint32_t, lds, 32);
  const unsigned l = tp::thread_idx();
  uint32_t priv[2] = {0, 0};
  const uint64_t lds_at = uint64_t(lds.p + l), priv_at = uint64_t(&priv[1]);
  const uint32_t x = tp_sim_data_word(l, 0), y = tp_sim_data_word(l, 1);
  uint32_t a, b;
  asm volatile("flat_store_b32 %0, %1\n\t" TP_WAIT_STORES : : "v"(lds_at), "v"(x) : "memory");
  asm volatile("flat_store_b32 %0, %1\n\t" TP_WAIT_STORES : : "v"(priv_at), "v"(y) : "memory");
  asm volatile("flat_load_b32 %0, %1\n\t" TP_WAIT_LOADS : "=v"(a) : "v"(lds_at) : "memory");
  asm volatile("flat_load_b32 %0, %1\n\t" TP_WAIT_LOADS : "=v"(b) : "v"(priv_at) : "memory");
  out.st(2 * l, a);
  out.st(2 * l + 1, b);
}

// ---- scalar ALU (isa_cases.h) ----
// One launch per operand pair: every case of TP_SIM_SOP_32 and TP_SIM_SOP_64 with SCC = (c != 0) before it and D
// starting as d0: out[3k] = D (low), out[3k + 1] = D (high: 64-bit forms), out[3k + 2] = SCC after it; then the
// saveexec cases (EXEC = c first; D, the new EXEC and SCC: 3 words each) and s_and_not1_wrexec_b32.
TP_GLOBAL void salu_cases(uint32_t a, uint32_t b, uint32_t c, uint32_t d0, tp::gmem<uint32_t> out) {
  const bool first = tp::thread_idx() == 0;
  const uint64_t A = uint64_t(b) << 32 | a, B = uint64_t(a) << 32 | b;
  unsigned k = 0;
  const auto put = [&](uint64_t d, uint32_t scc) {
    if (first) {
      out.st(3 * k, uint32_t(d));
      out.st(3 * k + 1, uint32_t(d >> 32));
      out.st(3 * k + 2, scc);
    }
    ++k;
  };
#define TP_SOP32(name, text, dexpr, sccexpr)                                                              \
  {                                                                                                       \
    uint32_t d = d0, scc;                                                                                 \
    asm volatile("s_cmp_lg_u32 %4, 0\n\t" text "\n\ts_cselect_b32 %1, 1, 0"                              \
                 : "+s"(d), "=s"(scc) : "s"(a), "s"(b), "s"(c));                                          \
    put(d, scc);                                                                                          \
  }
  TP_SIM_SOP_32(TP_SOP32)
#undef TP_SOP32
#define TP_SOP64(name, text, dexpr, sccexpr)                                                              \
  {                                                                                                       \
    uint64_t d = uint64_t(d0) << 32 | d0;                                                                 \
    uint32_t scc;                                                                                         \
    asm volatile("s_cmp_lg_u32 %5, 0\n\t" text "\n\ts_cselect_b32 %1, 1, 0"                              \
                 : "+s"(d), "=s"(scc) : "s"(A), "s"(B), "s"(a), "s"(c));                                  \
    put(d, scc);                                                                                          \
  }
  TP_SIM_SOP_64(TP_SOP64)
#undef TP_SOP64
#define TP_SAVEEXEC(op, expr)                                                                                   \
  {                                                                                                             \
    uint32_t d, scc, exec, saved;                                                                               \
    asm volatile("s_mov_b32 %3, exec_lo\n\ts_mov_b32 exec_lo, %5\n\ts_" #op "_saveexec_b32 %0, %4\n\t"          \
                 "s_cselect_b32 %1, 1, 0\n\ts_mov_b32 %2, exec_lo\n\ts_mov_b32 exec_lo, %3"                       \
                 : "=&s"(d), "=&s"(scc), "=&s"(exec), "=&s"(saved) : "s"(a), "s"(c));                         \
    put(uint64_t(exec) << 32 | d, scc);                                                                         \
  }
  TP_SIM_SAVEEXEC(TP_SAVEEXEC)
#undef TP_SAVEEXEC
  uint32_t d, scc, exec, saved;
  asm volatile("s_mov_b32 %3, exec_lo\n\ts_mov_b32 exec_lo, %5\n\ts_and_not1_wrexec_b32 %0, %4\n\t"
               "s_cselect_b32 %1, 1, 0\n\ts_mov_b32 %2, exec_lo\n\ts_mov_b32 exec_lo, %3"
               : "=&s"(d), "=&s"(scc), "=&s"(exec), "=&s"(saved) : "s"(a), "s"(c));
  put(uint64_t(exec) << 32 | d, scc);
}

// Program flow and the instructions that change nothing here: s_getpc_b64 twice (out[0..3]: the two addresses);
// s_setpc_b64 and s_swappc_b64 jumping over one s_mov_b32 (out[4], out[5]: the value that survived; out[6..7]: the
// return address s_swappc_b64 left, minus the s_getpc_b64 before it); s_cbranch_vccz / vccnz on VCC = a (out[8],
// out[9]: taken 1, not taken 0); each wait counter, hint and cache invalidation of the arch between two adds (out[10]).
TP_GLOBAL void program_flow(uint32_t a, tp::gmem<uint32_t> out) {
  const bool first = tp::thread_idx() == 0;
  uint64_t pc0, pc1, back, from;
  uint32_t set, swap, vccz, vccnz, sum;
  asm volatile("s_getpc_b64 %0\n\ts_getpc_b64 %1" : "=s"(pc0), "=s"(pc1));
  // s_getpc_b64 gives the address of the next instruction; the jump skips the s_mov_b32 %0, 1 (4 bytes each but the
  // 12-byte getpc/add/addc/setpc run: the target is 16 bytes after the add).
  asm volatile("s_mov_b32 %0, 0\n\ts_getpc_b64 s[40:41]\n\t" TP_SIM_G11("s_add_u32", "s_add_co_u32")
               " s40, s40, 16\n\t" TP_SIM_G11("s_addc_u32", "s_add_co_ci_u32") " s41, s41, 0\n\ts_setpc_b64 s[40:41]\n\t"
               "s_mov_b32 %0, 1\n\ts_add_" TP_SIM_G11("u32", "co_u32") " %0, %0, 2"
               : "=&s"(set) : : "s40", "s41", "scc");
  asm volatile("s_mov_b32 %0, 0\n\ts_getpc_b64 s[40:41]\n\t" TP_SIM_G11("s_add_u32", "s_add_co_u32")
               " s40, s40, 16\n\t" TP_SIM_G11("s_addc_u32", "s_add_co_ci_u32") " s41, s41, 0\n\ts_swappc_b64 %1, s[40:41]\n\t"
               "s_mov_b32 %0, 1\n\ts_add_" TP_SIM_G11("u32", "co_u32") " %0, %0, 2\n\ts_getpc_b64 %2"
               : "=&s"(swap), "=&s"(back), "=&s"(from) : : "s40", "s41", "scc");
  asm volatile("s_mov_b32 vcc_lo, %2\n\ts_mov_b32 %0, 0\n\ts_cbranch_vccz .Lz%=\n\ts_mov_b32 %0, 2\n.Lz%=:\n\t"
               "s_mov_b32 %1, 0\n\ts_cbranch_vccnz .Lnz%=\n\ts_mov_b32 %1, 2\n.Lnz%=:"
               : "=&s"(vccz), "=&s"(vccnz) : "s"(a) : "vcc_lo");
  asm volatile("s_add_" TP_SIM_G11("u32", "co_u32") " %0, %1, 1\n\t"
#if defined(__gfx1100__)
               "s_waitcnt_vmcnt null, 0x0\n\ts_waitcnt_lgkmcnt null, 0x0\n\ts_waitcnt_expcnt null, 0x0\n\t"
               "s_waitcnt_depctr 0xfffe\n\ts_set_inst_prefetch_distance 0x1\n\tbuffer_gl0_inv\n\tbuffer_gl1_inv\n\t"
#else
               "s_wait_alu 0xfffe\n\ts_wait_bvhcnt 0x0\n\ts_wait_expcnt 0x0\n\ts_wait_samplecnt 0x0\n\t"
               "s_wait_loadcnt_dscnt 0x0\n\ts_wait_storecnt_dscnt 0x0\n\tglobal_wb\n\tglobal_inv\n\t"
#endif
               "s_sleep 1\n\ts_wait_idle\n\ts_add_" TP_SIM_G11("u32", "co_u32") " %0, %0, 1"
               : "=&s"(sum) : "s"(a) : "scc");
  if (first) {
    out.st(0, uint32_t(pc0));
    out.st(1, uint32_t(pc0 >> 32));
    out.st(2, uint32_t(pc1));
    out.st(3, uint32_t(pc1 >> 32));
    out.st(4, set);
    out.st(5, swap);
    out.st(6, uint32_t(from - back));
    out.st(7, uint32_t((from - back) >> 32));
    out.st(8, vccz);
    out.st(9, vccnz);
    out.st(10, sum);
  }
}

// Scalar loads of 3 and 16 dwords (s_load_b96 is gfx12's): out[0..15] = in[0..15] through s_load_b512, out[16..18]
// through s_load_b96.
TP_GLOBAL void scalar_loads(tp::gmem<uint32_t> in, tp::gmem<uint32_t> out) {
  uint32_t w[19];
  asm volatile("s_load_b512 s[40:55], %16, 0x0\n\t" TP_SIM_G11("s_waitcnt lgkmcnt(0)", "s_wait_kmcnt 0x0")
               : "={s40}"(w[0]), "={s41}"(w[1]), "={s42}"(w[2]), "={s43}"(w[3]), "={s44}"(w[4]), "={s45}"(w[5]),
                 "={s46}"(w[6]), "={s47}"(w[7]), "={s48}"(w[8]), "={s49}"(w[9]), "={s50}"(w[10]), "={s51}"(w[11]),
                 "={s52}"(w[12]), "={s53}"(w[13]), "={s54}"(w[14]), "={s55}"(w[15])
               : "s"(in.p) : "memory");
#if defined(__gfx1100__)
  for (unsigned i = 16; i < 19; ++i) w[i] = in.ld(i - 16);
#else
  asm volatile("s_load_b96 s[40:42], %3, 0x0\n\ts_wait_kmcnt 0x0"
               : "={s40}"(w[16]), "={s41}"(w[17]), "={s42}"(w[18]) : "s"(in.p) : "memory");
#endif
  if (tp::thread_idx() == 0)
    for (unsigned i = 0; i < 19; ++i) out.st(i, w[i]);
}

// s_trap and v_illegal stop the dispatch (the first store happens first).
TP_GLOBAL void reaches_trap(tp::gmem<uint32_t> out) {
  out.st(tp::thread_idx(), 1);
  asm volatile("s_trap 2");
  out.st(tp::thread_idx() + 32, 2);
}
TP_GLOBAL void reaches_illegal(tp::gmem<uint32_t> out) {
  out.st(tp::thread_idx(), 1);
  asm volatile("v_illegal");
  out.st(tp::thread_idx() + 32, 2);
}

// ---- vector ALU (isa_cases.h) ----
// in holds 4 words per lane (a, b, c, d0). TP_SIM_VOP_32, then TP_SIM_VOP_APPROX, TP_SIM_VOP_PSEUDO_SCALAR,
// TP_SIM_VOP_PACKED and TP_SIM_VOP_MIX:
// out[k * 32 + l] = case k's D in lane l.
#define TP_VOP_CASE(name, text, ...)                                                                     \
  {                                                                                                      \
    uint32_t d = d0;                                                                                     \
    asm volatile(text : "+v"(d) : "v"(a), "v"(b), "v"(c) : "s40", "s41");                               \
    out.st(k++ * 32 + l, d);                                                                             \
  }
TP_GLOBAL void valu_cases(tp::gmem<uint32_t> in, tp::gmem<uint32_t> out) {
  const unsigned l = tp::thread_idx();
  const uint32_t a = in.ld(4 * l), b = in.ld(4 * l + 1), c = in.ld(4 * l + 2), d0 = in.ld(4 * l + 3);
  unsigned k = 0;
  TP_SIM_VOP_32(TP_VOP_CASE)
  TP_SIM_VOP_APPROX(TP_VOP_CASE)
  TP_SIM_VOP_PSEUDO_SCALAR(TP_VOP_CASE)
  TP_SIM_VOP_PACKED(TP_VOP_CASE)
  TP_SIM_VOP_MIX(TP_VOP_CASE)
}
#undef TP_VOP_CASE

// TP_SIM_VOP_WIDE, same inputs: out[(k * 32 + l) * 4 ...] = case k's D (low, high), d, e in lane l.
TP_GLOBAL void valu_wide_cases(tp::gmem<uint32_t> in, tp::gmem<uint32_t> out) {
  const unsigned l = tp::thread_idx();
  const uint32_t a = in.ld(4 * l), b = in.ld(4 * l + 1), c = in.ld(4 * l + 2), d0 = in.ld(4 * l + 3);
  const uint64_t A = uint64_t(b) << 32 | a, B = uint64_t(c) << 32 | b;
  unsigned k = 0;
#define TP_VOP_WIDE_CASE(name, text, ...)                                                                \
  {                                                                                                      \
    uint64_t D = uint64_t(d0) << 32 | d0;                                                                \
    uint32_t d = d0, e = ~d0;                                                                            \
    asm volatile(text : "+v"(D), "+v"(d), "+v"(e) : "v"(A), "v"(B), "v"(a), "v"(b), "v"(c)               \
                 : "v40", "v41", "v42", "v43", "v44", "v45", "s40", "vcc_lo");                      \
    const unsigned at = (k++ * 32 + l) * 4;                                                              \
    out.st(at, uint32_t(D));                                                                             \
    out.st(at + 1, uint32_t(D >> 32));                                                                   \
    out.st(at + 2, d);                                                                                   \
    out.st(at + 3, e);                                                                                   \
  }
  TP_SIM_VOP_WIDE(TP_VOP_WIDE_CASE)
#undef TP_VOP_WIDE_CASE
}

// TP_SIM_VOPD_PAIRS, same inputs: out[(k * 32 + l) * 2 ...] = v40, v41 after pair k in lane l.
TP_GLOBAL void vopd_pairs(tp::gmem<uint32_t> in, tp::gmem<uint32_t> out) {
  const unsigned l = tp::thread_idx();
  const uint32_t a = in.ld(4 * l), b = in.ld(4 * l + 1), c = in.ld(4 * l + 2), d0 = in.ld(4 * l + 3);
  unsigned k = 0;
#define TP_VOPD_PAIR(xtext, ytext, ...)                                                                  \
  {                                                                                                      \
    uint32_t x, y;                                                                                       \
    asm volatile("s_mov_b32 vcc_lo, %7\n\tv_mov_b32 v40, %5\n\tv_mov_b32 v41, %6\n\tv_mov_b32 v42, %2\n\t" \
                 "v_mov_b32 v43, %4\n\tv_mov_b32 v44, %3\n\tv_mov_b32 v45, %2\n\t" xtext " :: " ytext       \
                 "\n\tv_mov_b32 %0, v40\n\tv_mov_b32 %1, v41"                                             \
                 : "=v"(x), "=v"(y) : "v"(a), "v"(b), "v"(c), "v"(d0), "v"(~d0), "i"(TP_SIM_VOPD_VCC)     \
                 : "v40", "v41", "v42", "v43", "v44", "v45", "vcc_lo");                                   \
    out.st((k * 32 + l) * 2, x);                                                                         \
    out.st((k++ * 32 + l) * 2 + 1, y);                                                                   \
  }
  TP_SIM_VOPD_PAIRS(TP_VOPD_PAIR)
#undef TP_VOPD_PAIR
}

}  // namespace tp_sim_machine_test
