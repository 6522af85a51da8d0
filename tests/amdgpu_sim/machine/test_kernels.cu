// Device code for the machine's tests, compiled by clang for one arch at a time (gfx1201, gfx1100; no host side, no
// HIP runtime): the simt
// dialect's own test kernels, the differential ALU kernels over alu_ops.h, the matrix instructions through
// kernels/mma, and a kernel with an instruction the machine does not implement.
#define TP_VARIANT_NS tp_sim_machine_test
#include "simt/simt.h"
#include "kernels/mma/wave_ops.cuh"
#include "tests/amdgpu_sim/machine/alu_ops.h"
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
TP_MATRIX_KERNEL(wmma_iu8_ss_clamp, tp::mma::op_wmma_i32_16x16x16_iu8<true, true, true>)
TP_MATRIX_KERNEL(wmma_f16, tp::mma::op_wmma_f32_16x16x16_f16)
TP_MATRIX_KERNEL(gfx11_wmma_f16, tp::mma::op_gfx11_wmma_f32_16x16x16_f16)
TP_MATRIX_KERNEL(gfx11_wmma_iu8_su_clamp, tp::mma::op_gfx11_wmma_i32_16x16x16_iu8<true, false, true>)

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

}  // namespace tp_sim_machine_test
