// The contract between the two halves of the AMDGPU simulator:
//   runtime/  the HIP runtime API (registration ABI, memory, launches), the offload bundle, the device allocations;
//   machine/  the code object (ELF, kernel descriptor, metadata), the decoder and the wave32 interpreter.
// The runtime owns memory and turns hipLaunchKernel into a dispatch; the machine executes it, one workgroup at a
// time. Global memory is the host's: the runtime's allocations are host memory at the addresses it hands out as
// device pointers, so the machine reaches a global address without translation. What the hardware cannot check
// (bounds, never-written bytes, LDS races) the dispatch's plugins (machine/plugin.h) check, before each access: the
// runtime attaches its bounds check to every launch. Nothing here depends on HIP headers, so the machine is testable
// alone.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

namespace tp::amdgpu_sim {

namespace machine {
class plugin;
}

// A stop of the simulator that is not the bug under test: an unimplemented instruction or mode, a malformed code
// object, a fault (out-of-bounds access). Probes report it as an internal error (exit 3), never as a pass or fail.
struct sim_error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// One kernel argument as the code object's metadata note describes it (amdhsa.kernels[].args[]).
struct kernel_arg {
  std::string name;        // .name (may be empty)
  std::string value_kind;  // .value_kind: by_value, global_buffer, hidden_block_count_x, hidden_group_size_x, ...
  uint32_t offset = 0;     // .offset in the kernarg segment
  uint32_t size = 0;       // .size
};

// A kernel of a loaded code object: what the runtime needs to build its kernarg segment and launch it.
struct kernel_info {
  std::string name;                  // the kernel symbol (mangled), as __hipRegisterFunction names it
  uint32_t kernarg_size = 0;         // .kernarg_segment_size
  uint32_t kernarg_align = 0;        // .kernarg_segment_align
  uint32_t group_segment_size = 0;   // static LDS bytes (descriptor group_segment_fixed_size)
  uint32_t private_segment_size = 0; // scratch bytes per work-item (descriptor private_segment_fixed_size)
  uint32_t wavefront_size = 32;
  uint32_t max_flat_workgroup_size = 0;
  std::vector<kernel_arg> args;
};

struct dim3u {
  uint32_t x = 1, y = 1, z = 1;
};

// Where a diagnostic points: the PC in the code object, its instruction text, and (when the object has line
// tables) the source file:line.
struct code_location {
  uint64_t pc = 0;
  std::string instruction;
  std::string source;  // "path/to/file.cu:123", or empty
};

// Which wave of a workgroup runs next (the CPU emulator's policies, simt/cpu/emulator.h, at the machine's switch
// points: LDS and global memory instructions, barriers, s_endpgm):
//   in_order     round robin, ascending: after each switch point the next ready wave after the running one
//   reverse      round robin, descending
//   random       a ready wave drawn from `seed` at each switch point (splitmix64; the same seed, the same schedule)
//   adversarial  the lowest ready wave runs until it parks at a barrier or ends, memory instructions do not switch:
//                wave 0 races ahead of the others to every barrier (the default: also the fastest)
enum class wave_schedule : uint8_t { in_order, reverse, random, adversarial };

// Two waves of one workgroup touching one LDS byte between two barriers, at least one of them writing (the CPU
// emulator's hazard kinds, simt/cpu/emulator.h). `earlier` happened first in the simulated order.
enum class lds_hazard_kind : uint8_t { raw, war, waw };
struct lds_access_site {
  unsigned wave = 0;
  bool write = false;
  code_location at;  // PC, instruction text and source line of the access
};
struct lds_hazard {
  lds_hazard_kind kind = lds_hazard_kind::raw;
  uint32_t workgroup = 0;  // linear workgroup id (x fastest)
  uint32_t lds_offset = 0;
  lds_access_site earlier, later;
};
// Counted once per kind and pair of instructions (PCs) per dispatch, as the CPU emulator counts once per access and
// kind; `first` keeps the first few pairs in detection order.
struct lds_hazard_report {
  uint64_t raw = 0, war = 0, waw = 0;
  std::vector<lds_hazard> first;
  uint64_t total() const { return raw + war + waw; }
};
inline constexpr std::size_t lds_hazard_pairs_kept = 16;
const char* to_string(lds_hazard_kind);
// "RAW hazard on LDS byte 64 (workgroup 0): write by wave 0 at pc 0x1a2c `ds_store_b16 v1, v2` (file.cuh:262), then
// read by wave 1 at pc 0x1b40 `ds_load_u16 v3, v1` (file.cuh:270) in the same barrier epoch"
std::string describe(const lds_hazard&);

// One launch, already resolved by the runtime.
struct dispatch {
  std::string kernel;                  // kernel_info::name
  dim3u grid_blocks;                   // gridDim, in workgroups
  dim3u block_threads;                 // blockDim
  uint32_t dynamic_lds_bytes = 0;      // sharedMem of the launch
  uint64_t kernarg_address = 0;        // the device address of the filled kernarg segment (an allocation)
  std::span<const uint8_t> kernarg;    // the same bytes, for the machine to read without a memory round trip
  // Device address of the launch's hsa_kernel_dispatch_packet_t (64 bytes, an allocation), for kernels whose
  // descriptor enables the dispatch-ptr user SGPRs (clang reads grid_size_* from it); 0: none (such a kernel then
  // stops with sim_error).
  uint64_t dispatch_packet_address = 0;
  wave_schedule schedule = wave_schedule::adversarial;
  uint64_t schedule_seed = 0;
  // The observers of this launch (machine/plugin.h), called in this order; at most machine::max_plugins. Without one
  // that checks global accesses (the runtime's global_checks) an access outside the allocations is not caught.
  std::vector<machine::plugin*> plugins;
};


// A loaded gfx code object (one arch of an offload bundle), decoded once, ready to run many dispatches.
class code_object {
 public:
  virtual ~code_object() = default;
  virtual const std::string& arch() const = 0;  // e.g. "gfx1201"
  virtual const std::vector<kernel_info>& kernels() const = 0;
  virtual const kernel_info* find(const std::string& name) const = 0;
  // Execute one dispatch to completion (every workgroup). Throws sim_error on anything not modelled, and where a
  // plugin stops it.
  virtual void run(const dispatch& d) = 0;
  virtual code_location locate(uint64_t pc) const = 0;

  // The loadable image, as ROCr's loader maps it: every PT_LOAD segment at its virtual address in one block of
  // image_bytes() (0: the object has no loadable segment), to be placed at a device address aligned to image_align().
  // place_image writes it into `dst` (image_bytes() bytes of the global memory at device address `base`): the
  // segments' file bytes, zeros beyond them (.bss), and the dynamic relocations (.rela.dyn: R_AMDGPU_RELATIVE64,
  // _ABS64, _ABS32, _ABS32_LO/_HI) resolved for `base`; from then on the kernels' PC-relative addresses are
  // base + virtual address, so their globals (__constant__ and __device__ variables, .data.rel.ro tables, GOT
  // entries) are read from and written to the image. Unplaced, a kernel that reaches a global stops at the access
  // (outside every allocation), as before. A runtime places each code object once, before its first launch;
  // throws sim_error on a relocation it does not resolve.
  virtual uint64_t image_bytes() const = 0;
  virtual uint64_t image_align() const = 0;
  virtual void place_image(uint8_t* dst, uint64_t base) = 0;
};

// Parse an ELF code object (the bytes stay owned by the caller for the object's lifetime). Throws sim_error.
std::unique_ptr<code_object> load_code_object(std::span<const uint8_t> elf);

// The archs the machine executes.
bool arch_supported(const std::string& arch);

}  // namespace tp::amdgpu_sim
