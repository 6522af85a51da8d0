// Decode once: LLVM's AMDGPU disassembler gives each instruction's MCInst and size; the instruction printer renders
// the MCInst in the assembler syntax of https://llvm.org/docs/AMDGPUInstructionSyntax.html, and that syntax is
// translated into an `op`.
//
// Why through the printer and not MCInst operand indices: which MCInst operand is src0, which a modifier word, is
// defined by AMDGPU::getNamedOperandIdx and the OPERAND_* enums in LLVM's private target headers
// (lib/Target/AMDGPU/SIDefines.h, Utils/AMDGPUBaseInfo.h), which llvm-19-dev does not install. The printed syntax is
// the documented, stable interface of the same MCInst: registers, literal and inline constants, neg/abs, and every
// modifier by name. It is parsed once per code object; execution sees only the resulting ops.
#include "simt/amdgpu_sim/machine/decoder.h"

#include <charconv>
#include <cstdlib>
#include <cmath>
#include <mutex>
#include <unordered_map>

#include <llvm/MC/MCAsmInfo.h>
#include <llvm/MC/MCContext.h>
#include <llvm/MC/MCDisassembler/MCDisassembler.h>
#include <llvm/MC/MCInst.h>
#include <llvm/MC/MCInstPrinter.h>
#include <llvm/MC/MCInstrInfo.h>
#include <llvm/MC/MCRegisterInfo.h>
#include <llvm/MC/MCSubtargetInfo.h>
#include <llvm/MC/MCTargetOptions.h>
#include <llvm/MC/TargetRegistry.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/TargetParser/Triple.h>

#include "simt/amdgpu_sim/machine.h"
#include "simt/amdgpu_sim/machine/instruction.h"
#include "simt/amdgpu_sim/machine/llvm_amdgpu.h"
#include "simt/amdgpu_sim/machine/wave.h"

namespace tp::amdgpu_sim::machine {
namespace {

// The declarations by their spelling on one arch family (gfx11 or gfx12).
using spelling_table = std::unordered_map<std::string_view, const instruction*>;
const spelling_table& declarations_for(bool gfx11) {
  static const auto build = [](bool g11) {
    spelling_table t;
    for (const instruction* i : all_instructions())
      if (const std::string_view sp = i->spelling(g11); !sp.empty()) t.emplace(sp, i);
    return t;
  };
  static const spelling_table gfx11_table = build(true), gfx12_table = build(false);
  return gfx11 ? gfx11_table : gfx12_table;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

bool starts_with(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }


struct number {
  bool is_float = false;  // an inline float constant (0.5, -4.0, 1/(2*pi))
  bool inv2pi = false;
  double f = 0;
  bool hex = false;
  uint64_t u = 0;  // hex: the printed bits
  int64_t i = 0;   // decimal: the printed integer
};

bool parse_number(std::string_view t, number& n) {
  if (t.empty()) return false;
  if (starts_with(t, "0x") || starts_with(t, "0X")) {
    n.hex = true;
    auto r = std::from_chars(t.data() + 2, t.data() + t.size(), n.u, 16);
    return r.ec == std::errc() && r.ptr == t.data() + t.size();
  }
  const bool neg = t.front() == '-';
  std::string_view body = neg ? t.substr(1) : t;
  if (body.empty() || !(std::isdigit(static_cast<unsigned char>(body.front())))) return false;
  if (body.find('.') != std::string_view::npos) {
    n.is_float = true;
    n.inv2pi = starts_with(body, "0.1591549");
    double v = 0;
    auto r = std::from_chars(body.data(), body.data() + body.size(), v);
    if (r.ec != std::errc() || r.ptr != body.data() + body.size()) return false;
    n.f = neg ? -v : v;
    return true;
  }
  uint64_t v = 0;
  auto r = std::from_chars(body.data(), body.data() + body.size(), v);
  if (r.ec != std::errc() || r.ptr != body.data() + body.size()) return false;
  n.i = neg ? -int64_t(v) : int64_t(v);
  return true;
}

uint16_t f16_inline_bits(double f, bool inv2pi) {
  // The f16 inline constants: +-0.5, +-1, +-2, +-4 and 1/(2*pi).
  const bool neg = f < 0;
  const double a = std::fabs(f);
  uint16_t b = 0;
  if (inv2pi) b = 0x3118;
  else if (a == 0.5) b = 0x3800;
  else if (a == 1.0) b = 0x3c00;
  else if (a == 2.0) b = 0x4000;
  else if (a == 4.0) b = 0x4400;
  else if (a == 0.0) b = 0;
  return uint16_t(b | (neg ? 0x8000u : 0u));
}

// The operand value a constant stands for, given the operand's type (the inline constants of RDNA3 §6.2 "Scalar ALU
// Operands"; a 32-bit literal of a 64-bit float operand supplies its high half).
uint64_t materialise(const number& n, ty t) {
  if (n.is_float) {
    switch (t) {
      case ty::f32:
      case ty::b32: return n.inv2pi ? 0x3e22f983u : bits(float(n.f));
      case ty::f64:
      case ty::b64: return n.inv2pi ? 0x3fc45f306dc9c882ull : bits(n.f);
      case ty::f16:
      case ty::b16: return f16_inline_bits(n.f, n.inv2pi);
    }
  }
  if (n.hex) {
    switch (t) {
      case ty::f64: return n.u <= 0xffffffffull ? n.u << 32 : n.u;
      case ty::b64: return n.u;  // zero-extended (LLVM's AMDGPUDisassembler::decodeLiteralConstant for gfx11/12)
      case ty::f16:
      case ty::b16: return n.u & 0xffffu;
      default: return n.u & 0xffffffffu;
    }
  }
  switch (t) {
    case ty::f64:
    case ty::b64: return uint64_t(n.i);
    case ty::f16:
    case ty::b16: return uint16_t(n.i);
    default: return uint32_t(int32_t(n.i));
  }
}

bool parse_reg_range(std::string_view body, uint16_t& first, uint8_t& count) {
  // "5" or "[4:7]"
  if (!body.empty() && body.front() == '[') {
    const auto colon = body.find(':');
    if (colon == std::string_view::npos || body.back() != ']') return false;
    unsigned lo = 0, hi = 0;
    if (std::from_chars(body.data() + 1, body.data() + colon, lo).ec != std::errc()) return false;
    if (std::from_chars(body.data() + colon + 1, body.data() + body.size() - 1, hi).ec != std::errc()) return false;
    if (hi < lo) return false;
    first = uint16_t(lo);
    count = uint8_t(hi - lo + 1);
    return true;
  }
  unsigned r = 0;
  auto res = std::from_chars(body.data(), body.data() + body.size(), r);
  if (res.ec != std::errc() || res.ptr != body.data() + body.size()) return false;
  first = uint16_t(r);
  count = 1;
  return true;
}

// One printed source or destination operand. Returns an empty string on success, else what is not understood.
std::string parse_operand(std::string_view tok, ty t, operand& o) {
  o = operand{};
  if (tok == "off") return {};  // memory: no VGPR address / no SGPR base (kind none)
  if (starts_with(tok, "-") && tok.size() > 1 && !std::isdigit(static_cast<unsigned char>(tok[1]))) {
    o.mods |= mod_neg;
    tok.remove_prefix(1);
  }
  if (tok.size() > 2 && tok.front() == '|' && tok.back() == '|') {
    o.mods |= mod_abs;
    tok = tok.substr(1, tok.size() - 2);
  }
  number n;
  if (parse_number(tok, n)) {
    o.kind = opnd::konst;
    o.k = materialise(n, t);
    o.dwords = (t == ty::b64 || t == ty::f64) ? 2 : 1;
    return {};
  }
  struct named {
    std::string_view name;
    uint16_t reg;
    uint8_t dwords;
  };
  static constexpr named specials[] = {
      {"vcc_lo", sreg::vcc_lo, 1}, {"vcc_hi", sreg::vcc_hi, 1}, {"vcc", sreg::vcc_lo, 2},
      {"exec_lo", sreg::exec_lo, 1}, {"exec_hi", sreg::exec_hi, 1}, {"exec", sreg::exec_lo, 2},
      {"m0", sreg::m0, 1}, {"null", sreg::null, 1}, {"src_scc", sreg::scc, 1},
  };
  for (const named& s : specials)
    if (tok == s.name) {
      o.kind = opnd::sgpr;
      o.reg = s.reg;
      o.dwords = s.dwords;
      return {};
    }
  if (tok == "src_shared_base" || tok == "src_private_base") {
    // 64-bit aperture bases: the high half holds the aperture (see wave.h), the low half is 0.
    o.kind = opnd::konst;
    o.k = uint64_t(tok == "src_shared_base" ? shared_aperture_hi : private_aperture_hi) << 32;
    o.dwords = 2;
    // Used as a 32-bit operand it reads the high half (LLVM prints the 32-bit use as src_shared_base too).
    if (t != ty::b64 && t != ty::f64) o.k >>= 32;
    return {};
  }
  uint16_t first = 0;
  uint8_t count = 0;
  if (starts_with(tok, "ttmp") && parse_reg_range(tok.substr(4), first, count)) {
    o.kind = opnd::sgpr;
    o.reg = uint16_t(sreg::ttmp0 + first);
    o.dwords = count;
    return first + count <= 16 ? std::string{} : "ttmp out of range";
  }
  if ((tok.front() == 'v' || tok.front() == 's') && parse_reg_range(tok.substr(1), first, count)) {
    const bool vg = tok.front() == 'v';
    o.kind = vg ? opnd::vgpr : opnd::sgpr;
    o.reg = first;
    o.dwords = count;
    if (vg ? first + count > 256 : first + count > 106) return "register out of range";
    return {};
  }
  return "operand '" + std::string(tok) + "'";
}

// A 3-element bit list "[1,0,1]" -> 0b101.
bool parse_bits(std::string_view v, uint8_t& out) {
  if (v.size() < 3 || v.front() != '[' || v.back() != ']') return false;
  out = 0;
  unsigned bit = 0;
  for (char c : v.substr(1, v.size() - 2)) {
    if (c == ',') continue;
    if (c != '0' && c != '1') return false;
    if (c == '1') out |= uint8_t(1u << bit);
    ++bit;
  }
  return true;
}

struct decoded_text {
  std::string mnemonic;            // as printed (encoding suffix kept for diagnostics)
  std::vector<std::string_view> operands, modifiers;
};

decoded_text split_instruction(std::string_view s) {
  decoded_text d;
  s = trim(s);
  const auto sp = s.find_first_of(" \t");
  d.mnemonic = std::string(s.substr(0, sp));
  if (sp == std::string_view::npos) return d;
  std::string_view rest = trim(s.substr(sp));
  bool in_operands = true;
  while (!rest.empty()) {
    const auto e = rest.find_first_of(" \t");
    std::string_view tok = rest.substr(0, e);
    rest = e == std::string_view::npos ? std::string_view{} : trim(rest.substr(e));
    if (in_operands) {
      const bool more = !tok.empty() && tok.back() == ',';
      if (more) tok.remove_suffix(1);
      d.operands.push_back(tok);
      if (!more) in_operands = false;
    } else {
      d.modifiers.push_back(tok);
    }
  }
  return d;
}

struct decoder {
  program& prog;
  std::string arch;
  const spelling_table& declared;
  std::unordered_map<std::string, uint16_t> mnemonic_ids;
  // Per op (index in prog.ops): a no-op to link past, a branch whose target to resolve.
  std::vector<bool> no_op, branch;

  uint16_t mnemonic_id(const std::string& m) {
    auto [it, inserted] = mnemonic_ids.emplace(m, uint16_t(prog.mnemonics.size()));
    if (inserted) prog.mnemonics.push_back(m);
    return it->second;
  }

  // Fills `o` from the printed text of one (non-dual) instruction; `decl` gets its declaration. Returns why it
  // cannot be executed, or "".
  std::string translate(std::string_view text, op& o, const instruction*& decl) {
    decoded_text d = split_instruction(text);
    o.mnemonic = mnemonic_id(d.mnemonic);
    const std::string_view m = canonical_mnemonic(d.mnemonic);
    const bool dual = starts_with(m, "v_dual_");
    const std::string canonical = dual ? "v_" + std::string(m.substr(7)) : std::string(m);
    const auto it = declared.find(canonical);
    if (it == declared.end() || (dual && !it->second->has(f_vopd))) return "unimplemented " + d.mnemonic;
    const instruction& sem = *(decl = it->second);
    o.exec = sem.exec;
    o.switch_point = !dual && sem.has(f_switch_point);
    if (sem.has(f_matrix) && !matrix_instr_for(arch, canonical, o.matrix))
      return "unimplemented " + d.mnemonic + " on " + arch + " (reference/isa has no model of it)";
    if (sem.has(f_not_data)) {
      if (!sem.only_operand.empty() && !(d.operands.size() == 1 && d.operands[0] == sem.only_operand)) {
        std::string why = "unimplemented " + d.mnemonic;  // appended piece by piece: GCC 12's -Wrestrict misfires on one +
        if (!d.operands.empty()) why.append(" ").append(d.operands[0]);
        return why.append(" (this model executes only ").append(sem.only_operand).append(")");
      }
      return {};
    }
    std::vector<std::string_view> ops = d.operands;
    if (dual && sem.has(f_vopd_reads_vcc) && ops.size() == 3) ops.push_back("vcc_lo");
    if (ops.size() == 1 && ops[0].empty()) ops.clear();
    if (ops.size() < sem.ndst) return "unexpected operands for " + d.mnemonic;
    if (ops.size() - sem.ndst > 4) return "too many operands for " + d.mnemonic;
    o.ndst = sem.ndst;
    o.nsrc = uint8_t(ops.size() - sem.ndst);
    for (unsigned i = 0; i < sem.ndst; ++i) {
      std::string err = parse_operand(ops[i], ty::b32, o.dst[i]);
      if (!err.empty()) return err + " in " + d.mnemonic;
      if (o.dst[i].kind == opnd::sgpr && o.dst[i].reg == sreg::null) o.dst[i].reg = sreg::null_sink;
    }
    for (unsigned i = 0; i < o.nsrc; ++i) {
      std::string err = parse_operand(ops[sem.ndst + i], sem.src[i], o.src[i]);
      if (!err.empty()) return err + " in " + d.mnemonic;
      const ty t = sem.src[i];
      const bool float_src = t == ty::f16 || t == ty::f32 || t == ty::f64;
      if (o.src[i].mods && !float_src && !sem.has(f_bit_modifiers))
        return "unimplemented source modifier on integer operand " + std::string(ops[sem.ndst + i]) + " of " + d.mnemonic;
    }
    if (sem.has(f_packed)) o.op_sel_hi = 0b111;  // the printer leaves out the default: high halves for D's high half
    for (std::string_view mod : d.modifiers) {
      const auto colon = mod.find(':');
      std::string_view key = mod.substr(0, colon);
      std::string_view val = colon == std::string_view::npos ? std::string_view{} : mod.substr(colon + 1);
      number n;
      if (key == "offset" || key == "offset0") {
        if (!parse_number(val, n)) return "modifier " + std::string(mod);
        o.offset = int32_t(n.hex ? int64_t(n.u) : n.i);
      } else if (key == "offset1") {
        if (!parse_number(val, n)) return "modifier " + std::string(mod);
        o.offset1 = uint16_t(n.hex ? n.u : uint64_t(n.i));
      } else if (key == "clamp") {
        o.clamp = true;
      } else if (key == "index_key") {
        if (!parse_number(val, n)) return "modifier " + std::string(mod);
        o.index_key = uint8_t(n.i);
      } else if (key == "neg_lo") {
        if (!parse_bits(val, o.neg_lo)) return "modifier " + std::string(mod);
      } else if (key == "neg_hi") {
        if (!parse_bits(val, o.neg_hi)) return "modifier " + std::string(mod);
      } else if (key == "op_sel" && (sem.has(f_packed) || sem.has(f_mix) || sem.has(f_matrix))) {
        if (!parse_bits(val, o.op_sel)) return "modifier " + std::string(mod);
      } else if (key == "op_sel_hi" && (sem.has(f_packed) || sem.has(f_mix))) {
        if (!parse_bits(val, o.op_sel_hi)) return "modifier " + std::string(mod);
      } else if (key == "scope" || key == "th" || key == "nv" || key == "glc" || key == "slc" || key == "dlc") {
        // Cache scope / temporal hints (gfx12 scope:/th:, RDNA4 §4.1.1 "Cache Controls: SCOPE and Temporal-Hint";
        // gfx11 glc/slc/dlc, RDNA3 §4.1.1 "Cache Controls: SLC, GLC and DLC"): the model has one coherent memory.
      } else {
        return "unimplemented modifier " + std::string(mod) + " of " + d.mnemonic;
      }
    }
    if (sem.has(f_mix))
      for (unsigned i = 0; i < o.nsrc; ++i)
        if (o.src[i].kind == opnd::konst && o.src[i].k != 0)
          return "unimplemented constant " + std::string(ops[sem.ndst + i]) + " of " + d.mnemonic +
                 " (only 0 reads the same as binary16 and binary32)";
    if (sem.has(f_branch)) {
      if (o.nsrc != 1 || o.src[0].kind != opnd::konst) return "branch without an offset";
      o.imm = int16_t(uint16_t(o.src[0].k));
    }
    return {};
  }
};

}  // namespace

llvm_amdgpu::llvm_amdgpu(const std::string& arch) {
  static std::once_flag once;
  std::call_once(once, [] {
    LLVMInitializeAMDGPUTargetInfo();
    LLVMInitializeAMDGPUTargetMC();
    LLVMInitializeAMDGPUDisassembler();
  });
  std::string err;
  target = llvm::TargetRegistry::lookupTarget(triple.str(), err);
  if (!target) throw sim_error("LLVM has no AMDGPU target: " + err);
  mri.reset(target->createMCRegInfo(triple.str()));
  llvm::MCTargetOptions options;
  mai.reset(target->createMCAsmInfo(*mri, triple.str(), options));
  // wave32: the simulated machine runs gfx10+ code in wave32 (kernel_code_properties says so; checked at load).
  sti.reset(target->createMCSubtargetInfo(triple.str(), arch, "+wavefrontsize32"));
  if (!sti || !sti->isCPUStringValid(arch)) throw sim_error("LLVM's AMDGPU target does not know " + arch);
  mii.reset(target->createMCInstrInfo());
  ctx = std::make_unique<llvm::MCContext>(triple, mai.get(), mri.get(), sti.get());
  dis.reset(target->createMCDisassembler(*sti, *ctx));
  printer.reset(target->createMCInstPrinter(triple, 0, *mai, *mii, *mri));
  if (!dis || !printer) throw sim_error("LLVM's AMDGPU disassembler could not be created for " + arch);
}

namespace {
// Whether the handlers are the x86-64-v3 copy (host_isa.h): where the build has it, the CPU runs it, and
// TILEPROBE_SIM_HOST_ISA does not ask for the baseline.
bool runs_x86_64_v3() {
  static const bool v3 = [] {
    const char* forced = std::getenv("TILEPROBE_SIM_HOST_ISA");
    if (forced && std::string_view(forced) != "baseline")
      throw sim_error("TILEPROBE_SIM_HOST_ISA=" + std::string(forced) + ": the one value it takes is `baseline`");
#if TP_SIM_HOST_X86_64_V3_BUILT
    __builtin_cpu_init();
    return !forced && __builtin_cpu_supports("x86-64-v3");
#else
    return false;
#endif
  }();
  return v3;
}
}  // namespace

const char* host_isa_level() { return runs_x86_64_v3() ? "x86-64-v3" : "baseline"; }

std::span<const instruction* const> all_instructions() {
  static const std::vector<const instruction*> all = [] {
    std::vector<const instruction*> v;
    const bool v3 = runs_x86_64_v3();
    std::span<const instruction> salu = baseline::salu_instructions(), valu = baseline::valu_instructions(),
                                 memory = baseline::memory_instructions();
#if TP_SIM_HOST_X86_64_V3_BUILT
    if (v3) {
      salu = x86_64_v3::salu_instructions();
      valu = x86_64_v3::valu_instructions();
      memory = x86_64_v3::memory_instructions();
    }
#else
    (void)v3;
#endif
    for (auto table : {salu, valu, memory, matrix_instructions()})
      for (const instruction& i : table) v.push_back(&i);
    return v;
  }();
  return all;
}

std::string_view canonical_mnemonic(std::string_view printed) {
  // The encoding suffix says which encoding the printer chose (VOP2 vs VOP3); semantics do not depend on it.
  for (std::string_view suffix : {"_e32", "_e64"})
    if (printed.size() > suffix.size() && printed.substr(printed.size() - suffix.size()) == suffix)
      return printed.substr(0, printed.size() - suffix.size());
  return printed;
}

program decode_text(std::span<const uint8_t> text, uint64_t text_address, const std::string& arch) {
  llvm_amdgpu tools(arch);
  program prog;
  prog.text_address = text_address;
  prog.index_of_word.assign(text.size() / 4 + 1, -1);
  decoder dec{prog, arch, declarations_for(arch.rfind("gfx11", 0) == 0), {}, {}, {}};
  op unimplemented_proto;
  unimplemented_proto.exec = exec_unimplemented;
  uint64_t at = 0;
  while (at + 4 <= text.size()) {
    llvm::MCInst inst;
    uint64_t size = 0;
    const auto bytes = llvm::ArrayRef<uint8_t>(text.data() + at, text.size() - at);
    const auto status = tools.dis->getInstruction(inst, size, bytes, text_address + at, llvm::nulls());
    op o;
    o.pc = uint32_t(at);
    std::string printed;
    std::string problem;
    const instruction* decl = nullptr;
    if (status != llvm::MCDisassembler::Success || size == 0) {
      size = 4;
      o.exec = exec_undecodable;
      printed = "<undecodable word>";
      o.mnemonic = dec.mnemonic_id(printed);
    } else {
      llvm::raw_string_ostream os(printed);
      tools.printer->printInst(&inst, text_address + at, "", *tools.sti, os);
      os.flush();
      std::string_view whole = trim(printed);
      const auto dual = whole.find(" :: ");
      if (dual != std::string_view::npos) {
        op x, y;
        x.pc = y.pc = o.pc;
        const instruction *dx = nullptr, *dy = nullptr;
        problem = dec.translate(whole.substr(0, dual), x, dx);
        if (problem.empty()) problem = dec.translate(whole.substr(dual + 4), y, dy);
        o.mnemonic = dec.mnemonic_id(split_instruction(whole).mnemonic);
        if (problem.empty()) {
          o.exec = exec_vopd;
          o.vopd_x = uint32_t(prog.vopd_halves.size());
          prog.vopd_halves.push_back(x);
          o.vopd_y = uint32_t(prog.vopd_halves.size());
          prog.vopd_halves.push_back(y);
        }
      } else {
        problem = dec.translate(whole, o, decl);
      }
      if (!problem.empty()) {
        const uint16_t mn = o.mnemonic;
        o = unimplemented_proto;
        o.mnemonic = mn;
        o.pc = uint32_t(at);
        decl = nullptr;
      }
      printed = std::string(whole);
    }
    prog.index_of_word[at / 4] = int32_t(prog.ops.size());
    prog.ops.push_back(o);
    dec.no_op.push_back(decl && decl->has(f_no_op));
    dec.branch.push_back(decl && decl->has(f_branch));
    prog.text.push_back(problem.empty() ? printed : printed + "    ; " + problem);
    at += size;
  }
  // The sentinel: falling off the end of .text is an error, not a silent stop.
  op end;
  end.exec = exec_undecodable;
  end.pc = uint32_t(at);
  end.mnemonic = dec.mnemonic_id("<end of .text>");
  prog.index_of_word.back() = int32_t(prog.ops.size());
  prog.ops.push_back(end);
  dec.no_op.push_back(false);
  dec.branch.push_back(false);
  prog.text.push_back("<end of .text>");
  // Resolve fall-through and branch targets to op indices (SOPP: target = PC + 4 + simm16 * 4, RDNA3 §5.4 / RDNA4
  // §5.5 "Branching"). Both skip the no-op instructions that follow (a tenth of what clang emits for gfx12 is
  // s_delay_alu alone): they stay in the program (an entry point or diagnostic may name them) but are never
  // dispatched, and are not counted in executed_instructions.
  std::vector<uint32_t> live_from(prog.ops.size());  // the first op at or after i that is not a no-op
  live_from.back() = uint32_t(prog.ops.size() - 1);
  for (std::size_t i = prog.ops.size() - 1; i-- > 0;) live_from[i] = dec.no_op[i] ? live_from[i + 1] : uint32_t(i);
  for (std::size_t i = 0; i + 1 < prog.ops.size(); ++i) {
    op& o = prog.ops[i];
    o.next = live_from[i + 1];
    if (dec.branch[i]) {
      const int32_t idx = branch_destination(prog, o);
      if (idx < 0) {
        o.exec = exec_undecodable;  // a branch into the middle of an instruction or out of .text
        prog.text[i] += "    ; branch target outside the decoded instructions";
      } else {
        o.target = live_from[std::size_t(idx)];
      }
    }
  }
  prog.ops.back().next = uint32_t(prog.ops.size() - 1);
  for (op& h : prog.vopd_halves) h.next = 0;
  return prog;
}

int32_t branch_destination(const program& prog, const op& o) {
  const int64_t dest = int64_t(o.pc) + 4 + int64_t(o.imm) * 4;
  return dest >= 0 ? prog.index_at(uint64_t(dest)) : -1;
}

}  // namespace tp::amdgpu_sim::machine
