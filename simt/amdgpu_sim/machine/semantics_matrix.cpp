// Matrix instructions: v_wmma_* and v_swmmac_* (RDNA3 §7.9 / RDNA4 §7.12 "Wave Matrix Multiply Accumulate (WMMA)",
// RDNA4 §7.12.3 "Structured Sparse Matrices"; both guides' §16.10 "VOP3P Instructions"). They execute through
// reference/isa, the model whose operand cell layouts tests/isa proves against AMD's calculator tables: the wave's
// VGPRs become the model's wave_regs, the model computes D, D goes back. There is no second matrix model here, and no
// second list of the instructions: the declarations are reference/isa's gfx12 instructions, each also on gfx11 where
// the model has its gfx11 form.
//
// Printed operands: v_wmma_* D, A, B, C; v_swmmac_* D (also C), A, B, index. Modifiers: neg_lo[0]/[1] are the A/B
// signedness of the integer forms (1 = signed), clamp saturates integer results, index_key selects the index half,
// op_sel[2] the half of each 32-bit slot that gfx11's binary16 C/D use (v_wmma_f16_16x16x16_f16; the other half of D
// keeps its bits). The binary16-accumulating form's arithmetic is reference/isa's assumption 7 (its README).
//
// ASSUMPTION (v_wmma_f16_16x16x16_f16, neither guide specifies it): the sum runs in binary32 from C, the products
// (exact) added in ascending k with a rounding to binary32 at each add, and the sum is rounded once to binary16
// (nearest even); the model of AMD's rocjitsu emulator (https://github.com/NautRobot/Eze-P at
// a3c6becc8b3c2a080fc78110799239685544b7b6, emulation/rocjitsu/lib/rocjitsu/src/rocjitsu/isa/arch/amdgpu/shared/
// mma_exec.h: exec_wmma_packed16 / exec_gfx11_wmma_packed16).
#include <array>
#include <cstring>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "reference/isa/isa.h"
#include "simt/amdgpu_sim/machine/instruction.h"
#include "simt/amdgpu_sim/machine/wave.h"

namespace tp::amdgpu_sim::machine {
namespace {

namespace isa = tp::ref::isa;

// The model reads the operands where they are: the wave's VGPR file is register-major (v[r][lane]), as
// isa::execute_rows takes them, and each operand is a run of consecutive VGPRs. D goes to a buffer first (it is C's
// registers on the sparse forms) and then into its VGPRs.
inline constexpr unsigned max_operand_vgprs = 16;

void exec_matrix(wave& w, const op& o) {
  const auto in = isa::instr(o.matrix);
  const isa::instr_info& f = isa::info(in);
  if (w.exec() != 0xffffffffu)
    fail(w, o, "matrix instruction with EXEC != all lanes (the ISA requires a full wave; the result is undefined)");
  if (f.wave != wave_lanes || f.a_vgprs > max_operand_vgprs || f.b_vgprs > max_operand_vgprs ||
      f.d_vgprs > max_operand_vgprs)
    fail(w, o, "the matrix model's operand shape does not fit a wave32 register file");
  isa::modifiers m;
  if (isa::is_integer(f.a)) {
    m.a_signed = o.neg_lo & 1u;
    m.b_signed = o.neg_lo & 2u;
    m.clamp = o.clamp;
    if (o.neg_hi) fail(w, o, "neg_hi on an integer matrix instruction is not modelled");
  } else if (o.neg_lo || o.neg_hi || o.clamp) {
    fail(w, o, "neg/clamp modifiers on a float matrix instruction are not modelled");
  }
  if (o.op_sel & 3u) fail(w, o, "op_sel on a matrix instruction's A or B is not modelled");
  m.index_key = o.index_key;
  m.d_half = (o.op_sel >> 2) & 1u;  // reference/isa refuses it where the form has no 16-bit halves to choose
  // Sparse: C is D's registers and the index is one VGPR; dense: C is the third source and the index is unused.
  const uint16_t c_reg = f.sparse ? o.dst[0].reg : o.src[2].reg;
  if (o.src[0].reg + f.a_vgprs > 256u || o.src[1].reg + f.b_vgprs > 256u || c_reg + f.d_vgprs > 256u ||
      o.dst[0].reg + f.d_vgprs > 256u)
    fail(w, o, "a matrix operand runs past v255");
  alignas(64) uint32_t d[max_operand_vgprs][wave_lanes];
  // gfx12 code encodes a zero accumulator as the inline constant 0 in C's field (clang emits `v_wmma_* D, A, B, 0`):
  // C is then that constant in every element, not the VGPRs that o.src[2].reg (0) would name. Only 0 is modelled: its
  // bits are the same for every element type, where another constant would need the form's C type to materialise.
  alignas(64) static constexpr uint32_t zero_c[max_operand_vgprs][wave_lanes] = {};
  const uint32_t* c_rows = &w.v[c_reg][0];
  if (!f.sparse && o.src[2].kind == opnd::konst) {
    if (o.src[2].k != 0) fail(w, o, "an inline-constant C other than 0 is not modelled");
    c_rows = &zero_c[0][0];
  }
  // D's elements are written into D's old words: the bits they do not cover (gfx11's binary16 C/D) keep their value.
  std::memcpy(&d[0][0], &w.v[o.dst[0].reg][0], sizeof(d[0]) * f.d_vgprs);
  try {
    isa::execute_rows(in, &w.v[o.src[0].reg][0], &w.v[o.src[1].reg][0], c_rows,
                      f.sparse ? &w.v[o.src[2].reg][0] : nullptr, m, &d[0][0]);
  } catch (const std::exception& e) {
    fail(w, o, std::string("the matrix model rejected the operands: ") + e.what());
  }
  std::memcpy(&w.v[o.dst[0].reg][0], &d[0][0], sizeof(d[0]) * f.d_vgprs);
}

// gfx11 code uses the same mnemonics (v_wmma_f32_16x16x16_f16, ...) with gfx11's layouts (A/B replicated in lanes
// x and x+16): the model names those forms "gfx11_<name>".
std::optional<isa::instr> gfx11_form(std::string_view mnemonic) {
  return isa::parse_instr("gfx11_" + std::string(mnemonic.substr(2)));
}

const std::vector<instruction>& table() {
  static const std::vector<instruction> t = [] {
    std::vector<instruction> v;
    for (const auto& list : {std::span<const isa::instr>(isa::all_instrs), std::span<const isa::instr>(isa::f16_d_instrs)})
      for (isa::instr in : list) {
        const isa::instr_info& f = isa::info(in);
        if (f.target != isa::arch::gfx12) continue;  // one row per mnemonic; the arch's form is chosen at decode
        v.push_back(decl(f.mnemonic, exec_matrix, guide_section::vop3p)
                        .with(f_matrix)
                        .only(gfx11_form(f.mnemonic) ? on_both : on_gfx12));
      }
    return v;
  }();
  return t;
}

}  // namespace

std::span<const instruction> matrix_instructions() { return table(); }

bool matrix_instr_for(const std::string& arch, std::string_view mnemonic, uint16_t& instr) {
  const auto in = arch.rfind("gfx11", 0) == 0 ? gfx11_form(mnemonic) : isa::parse_instr(mnemonic);
  if (!in || (arch.rfind("gfx11", 0) != 0 && isa::info(*in).target != isa::arch::gfx12)) return false;
  instr = uint16_t(*in);
  return true;
}

}  // namespace tp::amdgpu_sim::machine
