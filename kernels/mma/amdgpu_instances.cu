// Device-only AMDGPU instances of every matrix op, so the disassembly can be checked for the real instructions
// (gfx1201: v_swmmac_*/v_wmma_*; gfx1100: v_wmma_*; gfx942: v_smfmac_*). Ops without hardware on an arch compile
// to the software form there, which must also build.
#include "kernels/mma/wave_ops.cuh"

namespace tp::mma {
template TP_GLOBAL void wave_op_kernel<op_swmmac_i32_16x16x32_iu4<true, true, false, 0>>(gmem<uint32_t>, gmem<uint32_t>, gmem<uint32_t>, gmem<uint32_t>, gmem<uint32_t>);
template TP_GLOBAL void wave_op_kernel<op_swmmac_i32_16x16x32_iu4<false, true, true, 1>>(gmem<uint32_t>, gmem<uint32_t>, gmem<uint32_t>, gmem<uint32_t>, gmem<uint32_t>);
template TP_GLOBAL void wave_op_kernel<op_swmmac_i32_16x16x64_iu4<true, true, false>>(gmem<uint32_t>, gmem<uint32_t>, gmem<uint32_t>, gmem<uint32_t>, gmem<uint32_t>);
template TP_GLOBAL void wave_op_kernel<op_swmmac_i32_16x16x32_iu8<true, true, false, 0>>(gmem<uint32_t>, gmem<uint32_t>, gmem<uint32_t>, gmem<uint32_t>, gmem<uint32_t>);
template TP_GLOBAL void wave_op_kernel<op_swmmac_i32_16x16x32_iu8<true, false, false, 1>>(gmem<uint32_t>, gmem<uint32_t>, gmem<uint32_t>, gmem<uint32_t>, gmem<uint32_t>);
template TP_GLOBAL void wave_op_kernel<op_swmmac_f32_16x16x32_fp8_fp8<0>>(gmem<uint32_t>, gmem<uint32_t>, gmem<uint32_t>, gmem<uint32_t>, gmem<uint32_t>);
template TP_GLOBAL void wave_op_kernel<op_swmmac_f32_16x16x32_fp8_bf8<0>>(gmem<uint32_t>, gmem<uint32_t>, gmem<uint32_t>, gmem<uint32_t>, gmem<uint32_t>);
template TP_GLOBAL void wave_op_kernel<op_swmmac_f32_16x16x32_bf8_fp8<0>>(gmem<uint32_t>, gmem<uint32_t>, gmem<uint32_t>, gmem<uint32_t>, gmem<uint32_t>);
template TP_GLOBAL void wave_op_kernel<op_swmmac_f32_16x16x32_bf8_bf8<1>>(gmem<uint32_t>, gmem<uint32_t>, gmem<uint32_t>, gmem<uint32_t>, gmem<uint32_t>);
template TP_GLOBAL void wave_op_kernel<op_swmmac_f32_16x16x32_f16<0>>(gmem<uint32_t>, gmem<uint32_t>, gmem<uint32_t>, gmem<uint32_t>, gmem<uint32_t>);
template TP_GLOBAL void wave_op_kernel<op_swmmac_f32_16x16x32_bf16<1>>(gmem<uint32_t>, gmem<uint32_t>, gmem<uint32_t>, gmem<uint32_t>, gmem<uint32_t>);
template TP_GLOBAL void wave_op_kernel<op_wmma_i32_16x16x32_iu4<true, true, false>>(gmem<uint32_t>, gmem<uint32_t>, gmem<uint32_t>, gmem<uint32_t>, gmem<uint32_t>);
template TP_GLOBAL void wave_op_kernel<op_wmma_i32_16x16x16_iu8<true, true, false>>(gmem<uint32_t>, gmem<uint32_t>, gmem<uint32_t>, gmem<uint32_t>, gmem<uint32_t>);
template TP_GLOBAL void wave_op_kernel<op_wmma_f32_16x16x16_f16>(gmem<uint32_t>, gmem<uint32_t>, gmem<uint32_t>, gmem<uint32_t>, gmem<uint32_t>);
template TP_GLOBAL void wave_op_kernel<op_gfx11_wmma_f32_16x16x16_f16>(gmem<uint32_t>, gmem<uint32_t>, gmem<uint32_t>, gmem<uint32_t>, gmem<uint32_t>);
template TP_GLOBAL void wave_op_kernel<op_gfx11_wmma_i32_16x16x16_iu8<true, true, false>>(gmem<uint32_t>, gmem<uint32_t>, gmem<uint32_t>, gmem<uint32_t>, gmem<uint32_t>);
template TP_GLOBAL void wave_op_kernel<op_gfx9_smfmac_f32_16x16x32_f16<0>>(gmem<uint32_t>, gmem<uint32_t>, gmem<uint32_t>, gmem<uint32_t>, gmem<uint32_t>);
template TP_GLOBAL void wave_op_kernel<op_gfx9_smfmac_i32_16x16x64_i8<1>>(gmem<uint32_t>, gmem<uint32_t>, gmem<uint32_t>, gmem<uint32_t>, gmem<uint32_t>);
}  // namespace tp::mma
