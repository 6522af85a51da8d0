// The kernarg segment of one launch, built from the kernel's metadata (amdhsa.kernels[].args[]): the explicit
// arguments copied from hipLaunchKernel's `void** args` (one pointer per kernel parameter, in order), and the
// hidden arguments clang appends, filled as the code object v5 metadata defines them
// (https://llvm.org/docs/AMDGPUUsage.html, "Code Object V5 Metadata", table "AMDHSA Code Object V5 Kernel Argument
// Metadata Map Additions and Changes"):
//   hidden_block_count_x/y/z   uint32  the grid's work-group count per dimension
//   hidden_group_size_x/y/z    uint16  the work-group size per dimension
//   hidden_remainder_x/y/z     uint16  the size of a partial last work-group; 0: HIP grids are whole work-groups
//   hidden_global_offset_x/y/z int64   0 (HIP has no global offset)
//   hidden_grid_dims           uint16  the dispatch's dimensionality: the highest axis where grid or block is
//                                      larger than 1 (1 for a 1x1x1 launch); the device library's get_work_dim
//                                      reads it, and the suite's kernels (built -nogpulib) never do
//   hidden_dynamic_lds_size    uint32  the launch's dynamic LDS bytes
//   every other hidden_* (printf/hostcall buffers, heap, queue pointers, multigrid sync, completion action, aperture
//   bases): 0. They are pointers to runtime services the simulator does not provide, so a kernel that uses one
//   dereferences null and faults with a message instead of reading garbage; the apertures are the machine's.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <vector>

#include "simt/amdgpu_sim/machine.h"

namespace tp::amdgpu_sim {

struct launch_shape {
  dim3u grid_blocks;
  dim3u block_threads;
  uint32_t dynamic_lds_bytes = 0;
};

// kernarg_size bytes (at least the end of the last argument), explicit arguments from `args` (as many pointers as
// the metadata has explicit arguments), hidden ones from `shape`. Throws sim_error when the metadata is inconsistent
// (an argument outside the segment, a hidden argument of an unexpected size).
std::vector<uint8_t> build_kernarg(const kernel_info& k, void* const* args, const launch_shape& shape);

// The HSA kernel dispatch packet of the launch (hsa_kernel_dispatch_packet_t, 64 bytes; layout in the HSA Platform
// System Architecture Specification and https://llvm.org/docs/AMDGPUUsage.html, "Kernel Dispatch"), which a kernel
// reads through its dispatch-ptr user SGPRs: clang's __builtin_amdgcn_grid_size_x() (the dialect's grid_dim()) loads
// grid_size_x from it. Filled: setup (dimensions, as hidden_grid_dims), workgroup_size_x/y/z, grid_size_x/y/z in
// work-items, private_segment_size, group_segment_size (static + dynamic LDS), kernarg_address; header,
// kernel_object and completion_signal stay 0 (there is no queue and no signal).
inline constexpr std::size_t dispatch_packet_bytes = 64;
std::array<uint8_t, dispatch_packet_bytes> build_dispatch_packet(const kernel_info& k, const launch_shape& shape,
                                                                 uint64_t kernarg_address);

// The dispatch's dimensionality: the highest axis where grid or block is larger than 1 (1 for a 1x1x1 launch).
uint16_t launch_dimensions(const launch_shape& shape);

// The number of explicit (not hidden_*) arguments of the kernel.
std::size_t explicit_arg_count(const kernel_info& k);

}  // namespace tp::amdgpu_sim
