// Device-only AMDGPU instances of the sparse pipeline, one per wrapper, so the gfx1201 disassembly can be checked for
// the real v_swmmac_* instructions the model stands for.
#include "kernels/ck_sparse/sparse_mma_pipeline.cuh"

namespace TP_VARIANT_NS {
namespace ck_sparse {
#define TP_CK_SPARSE_INSTANCE(Op, FragsK)                                                                          \
  template TP_GLOBAL void sparse_tile_kernel<Op, FragsK>(tp::gmem<uint32_t>, tp::gmem<uint32_t>,                   \
                                                         tp::gmem<typename Op::AccType>, tp::gmem<uint32_t>,       \
                                                         tp::gmem<uint32_t>, tp::gmem<uint32_t>, unsigned);
TP_CK_SPARSE_INSTANCE(mma_i32_16x16x32_iu8, 2)
TP_CK_SPARSE_INSTANCE(mma_i32_16x16x32_iu4, 2)
TP_CK_SPARSE_INSTANCE(mma_i32_16x16x64_iu4, 2)
TP_CK_SPARSE_INSTANCE(mma_f32_16x16x32_fp8_fp8, 2)
TP_CK_SPARSE_INSTANCE(mma_f32_16x16x32_f16, 2)
#undef TP_CK_SPARSE_INSTANCE
}  // namespace ck_sparse
}  // namespace TP_VARIANT_NS
