// What the decoder needs to know about each implemented mnemonic: its handler, how many of its printed operands are
// destinations, and the type of each source (to materialise inline constants and literals, RDNA4 ISA guide §7.?
// "Inline constants" / "Literal constants"). semantics_*.cpp each contribute one table.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "simt/amdgpu_sim/machine/program.h"

namespace tp::amdgpu_sim::machine {

// Operand data types, for constants: f16/f32/f64 inline float constants become that format's bits; a 32-bit
// literal of an f64 operand is its high half; integer constants are sign-extended to the operand's width.
enum class ty : uint8_t { b32, f32, b16, f16, b64, f64 };

struct semantic {
  std::string_view mnemonic;  // as printed, without the _e32/_e64 encoding suffix
  handler exec;
  uint8_t ndst;               // printed destination operands (v_add_co_u32 v1, vcc_lo, ...: 2)
  ty src_ty[4] = {ty::b32, ty::b32, ty::b32, ty::b32};
  uint32_t variant = 0;       // copied into op::variant
};

std::span<const semantic> salu_semantics();
std::span<const semantic> valu_semantics();
std::span<const semantic> memory_semantics();
std::span<const semantic> matrix_semantics();

// Handlers the decoder installs itself: a PC with an instruction we do not implement, or words the disassembler
// could not decode, or the end of .text. Each throws sim_error naming the mnemonic, kernel and PC when executed.
void exec_unimplemented(wave& w, const op& o);
void exec_undecodable(wave& w, const op& o);
void exec_vopd(wave& w, const op& o);
// The handler of the instructions that change nothing in this model (wait counters, s_nop, s_delay_alu, s_clause, ...):
// the decoder links fall-through and branch targets past them.
bool is_no_op_handler(handler h);

// Matrix instructions: gfx11 and gfx12 share mnemonics with different operand layouts, so the decoder asks for the
// reference/isa instruction id by arch (false: the model has no such instruction for this arch).
bool is_matrix_handler(handler h);
bool matrix_instr_for(const std::string& arch, std::string_view mnemonic, uint32_t& variant);

}  // namespace tp::amdgpu_sim::machine
