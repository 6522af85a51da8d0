// One declaration per simulated instruction. Everything the machine knows about a mnemonic is in its row of the
// tables in semantics_*.cpp: its spelling on each arch, how many printed operands are destinations, the type of each
// source (for constants), the flags the decoder and the scheduler read, the section of AMD's ISA guides that defines
// it, and its semantic body. The decoder keeps no mnemonic lists of its own, and the coverage audit
// (simt/amdgpu_sim/audit) reads the same rows. Adding an instruction is adding one row (and its test).
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "simt/amdgpu_sim/machine/program.h"

namespace tp::amdgpu_sim::machine {

// The opcode tables of chapter 16 of AMD's guides, "AMD RDNA3 Instruction Set Architecture Reference Guide"
// (15-August-2023: gfx11) and "AMD RDNA4 Instruction Set Architecture Reference Guide" (7-April-2025: gfx12), that
// define the instructions. Numbers and titles as the guides print them; three RDNA4 numbers could not be checked
// against the guide's text here, so those cite the title and the opcode table alone.
enum class guide_section : uint8_t { sop2, sopk, sop1, sopc, sopp, smem, vop2, vop1, vopc, vop3p, vopd, vop3, ds,
                                     mubuf, flat, scratch, global };
struct guide_citation {
  std::string_view rdna3, rdna4;  // empty: the instruction table has no such section in that guide
};
constexpr guide_citation cite(guide_section s) {
  switch (s) {
    case guide_section::sop2: return {"16.1 SOP2 Instructions", "SOP2 Instructions (chapter 16's SOP2 opcode table)"};
    case guide_section::sopk: return {"16.2 SOPK Instructions", "SOPK Instructions (chapter 16's SOPK opcode table)"};
    case guide_section::sop1: return {"16.3 SOP1 Instructions", "16.3 SOP1 Instructions"};
    case guide_section::sopc: return {"16.4 SOPC Instructions", "16.4 SOPC Instructions"};
    case guide_section::sopp: return {"16.5 SOPP Instructions", "16.5 SOPP Instructions"};
    case guide_section::smem: return {"16.6 SMEM Instructions", "16.6 SMEM Instructions"};
    case guide_section::vop2: return {"16.7 VOP2 Instructions", "16.7 VOP2 Instructions"};
    case guide_section::vop1: return {"16.8 VOP1 Instructions", "16.8 VOP1 Instructions"};
    case guide_section::vopc: return {"16.9 VOPC Instructions", "16.9 VOPC Instructions"};
    case guide_section::vop3p: return {"16.10 VOP3P Instructions", "16.10 VOP3P Instructions"};
    case guide_section::vopd: return {"16.11 VOPD Instructions", "16.11 VOPD Instructions"};
    case guide_section::vop3:
      return {"16.12 VOP3 & VOP3SD Instructions", "VOP3 & VOP3SD Instructions (chapter 16's VOP3 opcode table)"};
    case guide_section::ds: return {"16.15 LDS & GDS Instructions", "16.15 VDS Instructions"};
    case guide_section::mubuf: return {"16.16 MUBUF Instructions", ""};
    case guide_section::flat: return {"16.20.1 Flat Instructions", "16.20 FLAT, Scratch and Global Instructions"};
    case guide_section::scratch: return {"16.20.2 Scratch Instructions", "16.20.2 VSCRATCH Instructions"};
    case guide_section::global: return {"16.20.3 Global Instructions", "16.20 FLAT, Scratch and Global Instructions"};
  }
  return {};
}

// Operand data types, for constants: f16/f32/f64 inline float constants become that format's bits; a 32-bit
// literal of an f64 operand is its high half; integer constants are sign-extended to the operand's width (RDNA3
// guide §6.2 "Scalar ALU Operands" and §7.2.2 "Inputs Operands"; RDNA4 §7.2.2 "Input Operands").
enum class ty : uint8_t { b32, f32, b16, f16, b64, f64 };

// Which archs have the instruction (LLVM's GFX11 and GFX12 encodings; the coverage audit checks every spelling
// against them).
enum arch_set : uint8_t { on_gfx11 = 1, on_gfx12 = 2, on_both = 3 };

// What the decoder and the scheduler read from a declaration instead of mnemonic lists.
enum instruction_flag : uint16_t {
  // Changes nothing in this model (wait counters, s_nop, s_delay_alu, cache controls: one coherent memory in which
  // every access completes before the next instruction): fall-through and branch targets link past it.
  f_no_op = 1u << 0,
  // The printed operands are counters, hints or message ids, not data: no operand parse.
  f_not_data = 1u << 1,
  // An LDS or global memory access: the in_order, reverse and random schedules switch waves after it (schedule.h).
  f_switch_point = 1u << 2,
  // An SOPP branch: its one operand is the signed word offset of the target (RDNA3/RDNA4 §5.4 / §5.5 "Branching").
  f_branch = 1u << 3,
  // A matrix instruction: gfx11 and gfx12 share the mnemonics with different operand layouts, so the decoder asks
  // reference/isa for the arch's form (op::matrix); op_sel is parsed (gfx11's binary16 C/D half, op_sel[2]).
  f_matrix = 1u << 4,
  // May be the X or Y half of a dual-issue instruction (v_dual_<name>; RDNA3 §7.6 / RDNA4 §7.8 "Dual Issue VALU").
  f_vopd = 1u << 5,
  // Takes the neg/abs source modifiers although its operands are untyped bits (RDNA4 §7.2.2.1 "Input Operand
  // Modifiers": V_MOV_B32, V_MOVREL*, V_CNDMASK).
  f_bit_modifiers = 1u << 6,
  // As a VOPD half it reads VCC without printing it (v_dual_cndmask_b32: VCC is the implied select).
  f_vopd_reads_vcc = 1u << 7,
  // Packed math (VOP3P, RDNA3 §7.5 / RDNA4 §7.7 "Packed Math"): two 16-bit operations per lane, op_sel choosing
  // each source's half for D's low half and op_sel_hi for its high half (the decoder parses both; op_sel_hi is all
  // ones unless printed), neg_lo / neg_hi negating them.
  f_packed = 1u << 8,
  // Mixed precision (VOP3P v_fma_mix*; RDNA3 §7.5 / RDNA4 §7.7 "Packed Math"): op_sel_hi bit i says source i is a
  // binary16 half (else binary32), op_sel bit i which half; op_sel_hi is all zeros unless printed. A constant source
  // must be 0, the one constant whose bits read the same in both formats and halves (which format a nonzero inline
  // constant takes is not modelled: the decoder refuses it).
  f_mix = 1u << 9,
};

struct instruction {
  std::string_view name;  // the gfx12 spelling (the gfx11 one for gfx11-only instructions), without _e32/_e64
  handler exec = nullptr;
  guide_section section = guide_section::vop2;
  uint8_t ndst = 1;  // printed destination operands (v_add_co_u32 v1, vcc_lo, ...: 2)
  std::array<ty, 4> src = {ty::b32, ty::b32, ty::b32, ty::b32};
  uint16_t flags = 0;
  arch_set archs = on_both;
  std::string_view gfx11_name = {};    // the gfx11 spelling where it differs (s_add_co_u32 was s_add_u32)
  std::string_view only_operand = {};  // f_not_data: the one printed operand this model executes (else unimplemented)
  // The RDNA3 guide's table where gfx11 has the instruction in another encoding (v_add_f64 is VOP3 on gfx11, VOP2 on
  // gfx12); `section` otherwise.
  guide_section rdna3_section = section;

  // The spelling on an arch (empty: not on that arch).
  constexpr std::string_view spelling(bool gfx11) const {
    if (!(archs & (gfx11 ? on_gfx11 : on_gfx12))) return {};
    return gfx11 && !gfx11_name.empty() ? gfx11_name : name;
  }
  constexpr bool has(instruction_flag f) const { return (flags & f) != 0; }

  // Row modifiers: each returns the declaration with one more property, so a row reads as one expression.
  constexpr instruction dsts(uint8_t n) const { auto i = *this; i.ndst = n; return i; }
  constexpr instruction srcs(ty a, ty b = ty::b32, ty c = ty::b32, ty d = ty::b32) const {
    auto i = *this;
    i.src = {a, b, c, d};
    return i;
  }
  constexpr instruction with(uint16_t f) const { auto i = *this; i.flags |= f; return i; }
  constexpr instruction only(arch_set a) const { auto i = *this; i.archs = a; return i; }
  constexpr instruction gfx11(std::string_view n) const { auto i = *this; i.gfx11_name = n; return i; }
  constexpr instruction operand(std::string_view o) const { auto i = *this; i.only_operand = o; return i; }
  constexpr instruction rdna3(guide_section s) const { auto i = *this; i.rdna3_section = s; return i; }
};

// A row: the mnemonic, its body and its section; destinations default to one, sources to b32.
constexpr instruction decl(std::string_view name, handler exec, guide_section s) {
  instruction i{name, exec, s};
  i.rdna3_section = s;
  return i;
}

// The tables, one per unit of semantics (semantics_*.cpp), and all of them. The scalar, vector and memory units are
// compiled once per host ISA level (host_isa.h): the baseline always, x86-64-v3 where the build has it
// (TP_SIM_HOST_X86_64_V3_BUILT); all_instructions() gives the copy the CPU runs, or the baseline one when
// TILEPROBE_SIM_HOST_ISA=baseline (the tests run every instruction with each copy that way).
#define TP_SIM_HOST_TABLES                        \
  std::span<const instruction> salu_instructions(); \
  std::span<const instruction> valu_instructions(); \
  std::span<const instruction> memory_instructions();
namespace baseline { TP_SIM_HOST_TABLES }
namespace x86_64_v3 { TP_SIM_HOST_TABLES }
#undef TP_SIM_HOST_TABLES
std::span<const instruction> matrix_instructions();
std::span<const instruction* const> all_instructions();
// The host ISA level of the handlers all_instructions() gives: "x86-64-v3" or "baseline".
const char* host_isa_level();

// Handlers the decoder installs itself: a PC with an instruction we do not implement, or words the disassembler
// could not decode, or the end of .text (each throws sim_error naming the mnemonic, kernel and PC when executed), and
// the dual-issue pair that runs two declared halves.
void exec_unimplemented(wave& w, const op& o);
// The handler of the f_no_op declarations: fall-through and branches link past them, but a kernel's entry point or a
// computed jump (s_setpc_b64) may still land on one.
void exec_no_op(wave& w, const op& o);
void exec_undecodable(wave& w, const op& o);
void exec_vopd(wave& w, const op& o);

// Matrix instructions: reference/isa's instruction for the mnemonic on the arch (false: the model has no such
// instruction for it).
bool matrix_instr_for(const std::string& arch, std::string_view mnemonic, uint16_t& instr);

}  // namespace tp::amdgpu_sim::machine
