// Device-only AMDGPU instances of the fattn kernels (every config row of api.h, the fixups, the combine, the tail pass
// and the tail merge), so each variant compiles for gfx1100 / gfx1201 / gfx942 and its barriers can be counted in the
// disassembly. The template arguments repeat api.h's table (DKQ, DV, ncols, nwarps, cols_per_warp, nbatch_fa,
// nbatch_combine): api.h is host-side, and tests/fattn checks the table's np / iterations.
#include "fattn-mma-f16.cuh"  // relative: each variant tree has its own patched copy

namespace TP_VARIANT_NS {
// The stream-k body kernel, one per config row (the parallel_blocks entry runs the same process_tile; left out to
// halve the device build time).
#define TP_FATTN_BODY(DKQ, DV, ncols, nwarps, cpw, nbatch_fa, nbatch_combine)                                       \
  template TP_GLOBAL void flash_attn_ext_f16<fattn_cfg<DKQ, DV, ncols, nwarps, cpw, nbatch_fa, nbatch_combine>>(   \
      fattn_args);
TP_FATTN_BODY(256, 256, 64, 4, 16, 32, 64)   // rdna-d256-ncols64 (np 1, 2 iterations: the k00 race)
TP_FATTN_BODY(256, 256, 32, 4, 16, 32, 64)   // rdna-d256-ncols32 (np 2)
TP_FATTN_BODY(128, 128, 64, 4, 16, 32, 64)   // rdna-d128-ncols64 (np 1, 1 iteration)
TP_FATTN_BODY(512, 512, 64, 4, 16, 32, 128)  // rdna-d512-ncols64
TP_FATTN_BODY(256, 256, 128, 8, 16, 32, 64)  // rdna-d256-ncols128
TP_FATTN_BODY(256, 256, 64, 4, 16, 32, 128)  // ampere-d256-ncols64 (1 iteration)
TP_FATTN_BODY(256, 256, 64, 8, 16, 32, 32)   // rdna-d256-ncols64-retuned (np 2, 4 iterations)
#undef TP_FATTN_BODY

// The merge kernels, one per distinct (DV, ncols) of the table.
#define TP_FATTN_MERGE(DV, ncols)                                                                                  \
  template TP_GLOBAL void flash_attn_stream_k_fixup_uniform<DV, ncols>(tp::gmem<float>, tp::gmem<float>,            \
                                                                      tp::gmem<float>, tp::gmem<float>, int, int,   \
                                                                      int);                                         \
  template TP_GLOBAL void flash_attn_stream_k_fixup_general<DV, ncols>(tp::gmem<float>, tp::gmem<float>,            \
                                                                      tp::gmem<float>, tp::gmem<float>, int, int,   \
                                                                      int, long long);                              \
  template TP_GLOBAL void flash_attn_combine_results<DV, ncols>(tp::gmem<float>, tp::gmem<float>, tp::gmem<float>,  \
                                                               tp::gmem<float>, int, int, int, int);
TP_FATTN_MERGE(256, 64)
TP_FATTN_MERGE(256, 32)
TP_FATTN_MERGE(128, 64)
TP_FATTN_MERGE(512, 64)
TP_FATTN_MERGE(256, 128)
#undef TP_FATTN_MERGE

// The KVarN tail pass and merge, one per head dim.
#define TP_FATTN_TAIL(D)                                                                                           \
  template TP_GLOBAL void flash_attn_ext_tail_f16<D, D>(tp::gmem<float>, tp::gmem<float>, tp::gmem<float>,          \
                                                       tp::gmem<float>, tp::gmem<float>, int, int, float);          \
  template TP_GLOBAL void k_flash_attn_ext_tail_partials_merge<D>(tp::gmem<float>, tp::gmem<float>, tp::gmem<float>, \
                                                                 tp::gmem<float>, tp::gmem<float>);
TP_FATTN_TAIL(128)
TP_FATTN_TAIL(256)
TP_FATTN_TAIL(512)
#undef TP_FATTN_TAIL
}  // namespace TP_VARIANT_NS
