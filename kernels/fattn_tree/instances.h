// Which of a beellama tree's flash_attn_ext_f16 instances tileprobe compiles: (config of api.h, ncols2, K/V kind).
// The only list of them: tree_variant.cu instantiates and launches exactly these, and a probe case naming another
// (config, ncols2, kind) gets "not built" (kernels/fattn_tree/README.md). Every entry costs compile time for every tree
// variant and arch (a KVarN D256 instance ~75 s per arch on one core here), so the list holds what the tests need:
//   D256 ncols 64, ncols2 8 (ncols1 8): the KVarN prefill kernel PR #149 hit (gqa 6 padded to 8), KVarN and f16;
//   D128 ncols 64, ncols2 8: a route that was live before PR #149 (np 1, one combine iteration);
//   D256 ncols 64, ncols2 1: what the model's gqa-1 cases ask for, which RDNA's device guard compiles out
//     (`ncols2 == 1`) in every tree: the compiled-out report's everyday case.
#pragma once

#include <string_view>

#include "kernels/fattn/api.h"

namespace tp::fattn_tree {

struct instance {
  const char* config;  // tp::fattn::configs[].name: DKQ, DV and ncols come from there, the rest from the tree's table
  int ncols2;          // Q heads per tile (GQA packing); ncols1 = ncols / ncols2 tokens
  tp::fattn::kernel_kind kind;
};

inline constexpr instance instances[] = {
    {"rdna-d256-ncols64", 8, tp::fattn::kernel_kind::kvarn_kvarn},
    {"rdna-d256-ncols64", 8, tp::fattn::kernel_kind::f16},
    {"rdna-d128-ncols64", 8, tp::fattn::kernel_kind::f16},
    {"rdna-d256-ncols64", 1, tp::fattn::kernel_kind::f16},
};
inline constexpr int n_instances = int(sizeof(instances) / sizeof(instances[0]));

constexpr int config_index(std::string_view name) {
  for (int i = 0; i < tp::fattn::n_configs; ++i)
    if (name == tp::fattn::configs[i].name) return i;
  return -1;
}

// -1 when tileprobe built no such instance.
constexpr int find_instance(int config, int ncols2, tp::fattn::kernel_kind kind) {
  for (int i = 0; i < n_instances; ++i)
    if (config_index(instances[i].config) == config && instances[i].ncols2 == ncols2 && instances[i].kind == kind)
      return i;
  return -1;
}

// A kernel the tree compiles out for an arch: the device guard that removed it (a `no_device_code` stub), found in the
// code object's line tables at build time (code_object.py) and generated into each tree variant.
struct compiled_out {
  const char* arch;    // gfx1100, ...
  const char* kernel;  // tree_variant.cu's kernel_key() form: flash_attn_ext_f16<256,256,8,8,false,false,1,1>
  const char* guard;   // "fattn-mma-f16.cuh:1847: if (...) {" (the tree's file, line and text)
};

}  // namespace tp::fattn_tree
