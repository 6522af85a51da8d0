// A loaded code object, split by job:
//   loader.cpp         the ELF through LLVM's Object library, the NT_AMDGPU_METADATA note, the kernel descriptors, the
//                      decode of .text, and the DWARF line tables for locate()
//   initial_state.cpp  a wave's registers at its first instruction
//   dispatcher.cpp     a dispatch: its checks, then every workgroup, each a set of waves scheduled at switch points
//
// Facts used (https://llvm.org/docs/AMDGPUUsage.html):
//   "Kernel Descriptor": the 64-byte <kernel>.kd object (llvm/Support/AMDHSAKernelDescriptor.h spells its fields and
//     bit ranges; we use those definitions rather than restating them).
//   "Code Object Metadata" (V4/V5): amdhsa.kernels[] with .name, .symbol, .kernarg_segment_size, .args[] ...
#pragma once

#include <map>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include <llvm/DebugInfo/DWARF/DWARFContext.h>
#include <llvm/Object/ELFObjectFile.h>
#include <llvm/Support/AMDHSAKernelDescriptor.h>

#include "simt/amdgpu_sim/machine.h"
#include "simt/amdgpu_sim/machine/program.h"
#include "simt/amdgpu_sim/machine/wave.h"

namespace tp::amdgpu_sim::machine {

struct kernel_entry {
  kernel_info info;
  llvm::amdhsa::kernel_descriptor_t desc{};
  uint32_t entry_index = 0;  // op index of the first instruction
};

// GFX12 delivers the workgroup IDs in architected SGPRs (TTMP7, TTMP9); GFX11 in system SGPRs after the user SGPRs.
inline bool has_architected_sgprs(const std::string& arch) { return arch.rfind("gfx12", 0) == 0; }

// The state of wave `index` of workgroup `g` (its grid position `id`) before its first instruction
// (initial_state.cpp).
void start_wave(wave& w, unsigned index, const kernel_entry& k, const dispatch& d, dim3u id, bool architected_sgprs,
                workgroup& g, const program& prog);

class wave_picker;
// The interpreter loop of one schedule kind and plugin set (dispatcher.cpp): runs a wave until it yields or reaches a
// switch point, returns the instructions it executed.
using slice_fn = uint64_t (*)(wave&, const op*, std::span<plugin* const>);

class loaded_code_object final : public code_object {
 public:
  explicit loaded_code_object(std::span<const uint8_t> elf);

  const std::string& arch() const override { return arch_; }
  const std::vector<kernel_info>& kernels() const override { return infos_; }
  const kernel_info* find(const std::string& name) const override;
  code_location locate(uint64_t pc) const override;
  void run(const dispatch& d) override;
  uint64_t image_bytes() const override { return image_bytes_; }
  uint64_t image_align() const override { return image_align_; }
  void place_image(uint8_t* dst, uint64_t base) override;

  const program& prog() const { return prog_; }
  std::vector<uint32_t> entry_indices() const {
    std::vector<uint32_t> v;
    for (const auto& [name, k] : entries_) v.push_back(k.entry_index);
    return v;
  }
  uint64_t executed_instructions = 0;

 private:
  // The innermost source frame at a PC (loader.cpp).
  struct source_frame {
    std::string file, function;
    uint32_t line = 0;
  };
  source_frame frame_at(uint64_t pc) const;

  // dispatcher.cpp
  void check_launchable(const kernel_entry& k, const dispatch& d) const;
  void run_workgroup(const kernel_entry& k, const dispatch& d, workgroup& g, dim3u id, unsigned nwaves,
                     wave_picker& picker, slice_fn slice, std::span<plugin* const> observers);

  std::string arch_;
  program prog_;
  uint64_t image_bytes_ = 0, image_align_ = 1;  // the PT_LOAD segments' span and largest alignment (loader.cpp)
  std::vector<kernel_info> infos_;
  std::map<std::string, kernel_entry> entries_;
  std::vector<std::unique_ptr<wave>> waves_;  // reused across dispatches (each is ~33 KiB of registers)
  // The DWARF of the object (line tables and the inlining tree: -gline-tables-only gives both), for locate().
  std::unique_ptr<llvm::object::ELF64LEObjectFile> elf_;
  std::unique_ptr<llvm::DWARFContext> dwarf_;
};

}  // namespace tp::amdgpu_sim::machine
