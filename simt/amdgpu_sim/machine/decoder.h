// Decodes a code object's .text once, at load: LLVM's AMDGPU MC disassembler turns the words into MCInsts, and each
// MCInst becomes one pre-decoded `op` (handler + operand descriptors) in a program indexed by instruction.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "simt/amdgpu_sim/machine/program.h"

namespace tp::amdgpu_sim::machine {

// `text` is the .text section's bytes at virtual address `text_address`; `arch` the processor (gfx1201). Throws
// sim_error only when LLVM has no AMDGPU target for the arch; words it cannot decode and instructions without a
// handler become ops that throw sim_error when (and only when) a wave reaches them.
program decode_text(std::span<const uint8_t> text, uint64_t text_address, const std::string& arch);

// The mnemonic as declared: the printed one without the encoding suffix the printer chose (_e32, _e64).
std::string_view canonical_mnemonic(std::string_view printed);
// The op index a decoded SOPP branch jumps to before no-ops are linked past (-1: not an instruction in .text).
int32_t branch_destination(const program& prog, const op& o);

}  // namespace tp::amdgpu_sim::machine
