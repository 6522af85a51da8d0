// The pre-decoded form of a code object's .text: one `op` per machine instruction, in an array indexed by
// instruction number (not byte PC), so execution never touches an MCInst or a string. decoder.cpp builds it once per
// code object; semantics_*.cpp execute it.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace tp::amdgpu_sim::machine {

struct wave;

// Scalar register file indices follow the hardware's SGPR operand encoding (RDNA3 ISA guide §3.3.1 "SGPRs" and the
// scalar operand table of §6.2 "Scalar ALU Operands"), so a decoded register number is its file index. A few slots
// beyond 127 hold state the ISA exposes as operands: SCC (src_scc reads it), a sink for writes to `null`.
namespace sreg {
inline constexpr uint16_t vcc_lo = 106, vcc_hi = 107, ttmp0 = 108, null = 124, m0 = 125, exec_lo = 126, exec_hi = 127;
inline constexpr uint16_t scc = 128;        // 0 or 1, kept as a register so src_scc is an ordinary read
inline constexpr uint16_t null_sink = 129;  // writes to null land here and are never read (reads of null give 0)
inline constexpr uint16_t file_size = 132;  // room for a 64-bit write to the null sink
}  // namespace sreg

// VGPRs 0..255 are the architected file (wave32, RDNA4 ISA guide §3.3.2 "VGPRs"); two extra rows hold the
// dual-issue (VOPD) results until both halves have read their sources.
inline constexpr uint16_t vgpr_file_rows = 258;
inline constexpr uint16_t vopd_temp_x = 256, vopd_temp_y = 257;

enum class opnd : uint8_t { none, vgpr, sgpr, konst };

// Source modifiers of VOP3/VOP3P (RDNA4 ISA guide §7.2.2.1 "Input Operand Modifiers"): applied to the operand's sign
// bit for float operands only (the decoder rejects them on integer operands, except where a declaration allows them).
enum : uint8_t { mod_neg = 1, mod_abs = 2 };

struct operand {
  opnd kind = opnd::none;
  uint8_t dwords = 1;  // register range length: s[4:7] -> 4
  uint8_t mods = 0;
  uint16_t reg = 0;
  uint64_t k = 0;  // konst: the value already materialised for the operand's type (literal or inline constant)
};

using handler = void (*)(wave&, const struct op&);

struct op {
  handler exec = nullptr;
  uint32_t pc = 0;       // byte offset of the instruction in .text (for diagnostics)
  uint32_t next = 0;     // index of the following instruction
  uint32_t target = 0;   // branch target index (SOPP branches)
  uint16_t mnemonic = 0; // index into program::mnemonics (diagnostics and the bench's counts only)
  uint8_t ndst = 0, nsrc = 0;
  operand dst[2];
  operand src[4];
  // Encoding fields, by class: memory offsets, DS offset0/offset1, VOP3 clamp, VOP3P neg_lo/neg_hi/op_sel,
  // matrix index_key, SOPK/SOPP immediates.
  int32_t offset = 0;
  uint16_t offset1 = 0;
  bool clamp = false;
  uint8_t omod = 0;
  uint8_t neg_lo = 0, neg_hi = 0, op_sel = 0, op_sel_hi = 0;
  uint8_t index_key = 0;
  // An LDS or global memory access: where the in_order, reverse and random schedules switch waves (schedule.h).
  bool switch_point = false;
  int32_t imm = 0;
  // Matrix instructions: reference/isa's instruction (isa::instr) for this mnemonic on the code object's arch.
  uint16_t matrix = 0;
  uint32_t vopd_y = 0;  // VOPD: index of the Y half in program::vopd_halves (the X half is in vopd_x)
  uint32_t vopd_x = 0;
};

struct program {
  std::vector<op> ops;                  // in .text order; ops.back() is a sentinel that reports running off the end
  std::vector<int32_t> index_of_word;   // .text byte offset / 4 -> op index, -1 inside an instruction
  std::vector<op> vopd_halves;          // the decoded X and Y halves of dual-issue instructions
  std::vector<std::string> mnemonics;   // distinct mnemonics, indexed by op::mnemonic
  std::vector<std::string> text;        // the printer's text of each op (diagnostics, locate())
  uint64_t text_address = 0;            // virtual address of .text (PCs above are relative to it)
  // Where the runtime placed the code object's image in global memory (code_object::place_image): the device address
  // of virtual address 0. What the kernel computes from its PC (s_getpc_b64) is load_base + virtual address, so its
  // PC-relative loads of globals reach the image; every PC the machine reports stays a virtual address.
  uint64_t load_base = 0;
  int32_t index_at(uint64_t byte_offset) const {
    const uint64_t w = byte_offset / 4;
    return (byte_offset % 4 == 0 && w < index_of_word.size()) ? index_of_word[w] : -1;
  }
};

}  // namespace tp::amdgpu_sim::machine
