// LLVM's AMDGPU MC layer for one processor, wave32: the disassembler and instruction printer the decoder reads code
// with, and the instruction info the coverage audit (../audit) walks. Built once per code object (decoder.cpp).
#pragma once

#include <memory>
#include <string>

#include <llvm/MC/MCAsmInfo.h>
#include <llvm/MC/MCContext.h>
#include <llvm/MC/MCDisassembler/MCDisassembler.h>
#include <llvm/MC/MCInstPrinter.h>
#include <llvm/MC/MCInstrInfo.h>
#include <llvm/MC/MCRegisterInfo.h>
#include <llvm/MC/MCSubtargetInfo.h>
#include <llvm/MC/TargetRegistry.h>
#include <llvm/TargetParser/Triple.h>

namespace tp::amdgpu_sim::machine {

struct llvm_amdgpu {
  const llvm::Target* target = nullptr;
  llvm::Triple triple{"amdgcn-amd-amdhsa"};
  std::unique_ptr<llvm::MCRegisterInfo> mri;
  std::unique_ptr<llvm::MCAsmInfo> mai;
  std::unique_ptr<llvm::MCSubtargetInfo> sti;
  std::unique_ptr<llvm::MCInstrInfo> mii;
  std::unique_ptr<llvm::MCContext> ctx;
  std::unique_ptr<llvm::MCDisassembler> dis;
  std::unique_ptr<llvm::MCInstPrinter> printer;

  // Throws sim_error when LLVM has no AMDGPU target, does not know `arch`, or cannot make its disassembler.
  explicit llvm_amdgpu(const std::string& arch);
};

}  // namespace tp::amdgpu_sim::machine
