// A wave-level model of the AMD matrix instructions tileprobe cares about: a register file of lanes x VGPRs, the
// per-instruction placement of logical matrices into registers (and back), and execution from registers.
//
// The layouts are written from the documented formulas (docs/bugs/gfx12-swmmac.md §5, §7 and the calculator's formula
// text), not generated from AMD's tables; tests/isa proves them against every cell of fixtures/isa-layouts.
// Execution is defined on logical operands (docs/bugs/gfx12-swmmac.md §4):
//     D[i][j] = C[i][j] + sum over groups g, stored slots s of a(i,g,s) * B[4g + F(i,g,s)][j]
// with F read from the lane's index register, the first stored value of a group taking the low two bits of its 4-bit
// field. Any F is legal; collisions add. Dense forms: D = C + A*B.
// Assumptions (open questions, see README.md): clamp saturates the exact int32 result; float accumulation is an fp64
// sum starting at C in ascending (g, s) / k order, rounded once to f32.
//
// Host-only, standard library only (plus reference/codecs.h).
#pragma once

#include <array>
#include <compare>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "reference/matrix.h"

namespace tp::ref::isa {

enum class arch { gfx9, gfx11, gfx12 };
std::string_view to_string(arch a);

// Element formats of operands. iu4/iu8 are integers whose signedness comes from the instruction's flags.
enum class elem { iu4, iu8, fp8, bf8, f16, bf16, i32, f32 };
unsigned bits_of(elem e);
bool is_integer(elem e);
std::string_view to_string(elem e);

enum class instr {
  swmmac_i32_16x16x32_iu4,
  swmmac_i32_16x16x64_iu4,
  swmmac_i32_16x16x32_iu8,
  swmmac_f32_16x16x32_fp8_fp8,
  swmmac_f32_16x16x32_fp8_bf8,
  swmmac_f32_16x16x32_bf8_fp8,
  swmmac_f32_16x16x32_bf8_bf8,
  swmmac_f32_16x16x32_f16,
  swmmac_f32_16x16x32_bf16,
  wmma_i32_16x16x32_iu4,         // gfx12 dense
  wmma_i32_16x16x16_iu8,         // gfx12 dense
  wmma_f32_16x16x16_f16,         // gfx12 dense
  gfx11_wmma_f32_16x16x16_f16,   // A/B replicated in lanes x and x+16
  gfx11_wmma_i32_16x16x16_iu8,
  gfx9_smfmac_f32_16x16x32_f16,  // wave64
  gfx9_smfmac_i32_16x16x64_i8,   // wave64
  wmma_f16_16x16x16_f16,         // gfx12 dense, C/D binary16 (f16_d_instrs)
  gfx11_wmma_f16_16x16x16_f16,   // C/D binary16 in one half of each 32-bit slot (modifiers::d_half)
};

inline constexpr std::array<instr, 16> all_instrs = {
    instr::swmmac_i32_16x16x32_iu4,     instr::swmmac_i32_16x16x64_iu4,     instr::swmmac_i32_16x16x32_iu8,
    instr::swmmac_f32_16x16x32_fp8_fp8, instr::swmmac_f32_16x16x32_fp8_bf8, instr::swmmac_f32_16x16x32_bf8_fp8,
    instr::swmmac_f32_16x16x32_bf8_bf8, instr::swmmac_f32_16x16x32_f16,     instr::swmmac_f32_16x16x32_bf16,
    instr::wmma_i32_16x16x32_iu4,       instr::wmma_i32_16x16x16_iu8,       instr::wmma_f32_16x16x16_f16,
    instr::gfx11_wmma_f32_16x16x16_f16, instr::gfx11_wmma_i32_16x16x16_iu8, instr::gfx9_smfmac_f32_16x16x32_f16,
    instr::gfx9_smfmac_i32_16x16x64_i8};

// The WMMA forms that accumulate into binary16 C/D (beellama's flash-attention kernels on RDNA: v_wmma_f16_16x16x16_f16).
// Apart from all_instrs, whose every instruction tests/isa proves against AMD's calculator tables and a kernel-side
// software op: neither exists here for these. Their A/B layouts are the f32-accumulating forms' (the same table rows);
// their C/D layout is below (d_loc) and their arithmetic is README.md's assumption 7.
inline constexpr std::array<instr, 2> f16_d_instrs = {instr::wmma_f16_16x16x16_f16, instr::gfx11_wmma_f16_16x16x16_f16};

struct instr_info {
  instr id;
  std::string_view name;        // tileprobe name: the mnemonic without v_, arch-prefixed off gfx12 ("gfx11_wmma_...")
  std::string_view mnemonic;    // assembler mnemonic, e.g. "v_swmmac_i32_16x16x32_iu4"
  std::string_view layout_stem; // calculator table stem, e.g. "v_swmmac_i32_16x16x32_iu4.rdna4"
  arch target;
  unsigned wave;                // 32 or 64
  unsigned m, n, k;
  bool sparse;
  elem a, b, d;
  unsigned a_vgprs, b_vgprs, d_vgprs;
  unsigned index_keys;          // legal index_key (gfx12) / ABID (gfx9) values; 0 for dense ops
  unsigned index_bits;          // index bits one selection covers (16 or 32 on gfx12; 8 or 16 on gfx9)
  bool signedness_flags;        // integer op whose A/B signedness comes from the instruction (gfx9 i8 is signed)
};
const instr_info& info(instr i);
std::optional<instr> parse_instr(std::string_view name);  // accepts name or mnemonic

// Where something lives: lane, VGPR (counted from the operand's first VGPR) and an inclusive bit range.
struct reg_loc {
  unsigned lane = 0, vgpr = 0, bit_lo = 0, bit_hi = 31;
  friend auto operator<=>(const reg_loc&, const reg_loc&) = default;
};
std::string to_string(const reg_loc& r);  // "lane 3 v1.[15:8]"

// Layouts. Sparse A: stored value s (0 = first, lower bits) of group g of row i, and the cell holding both.
reg_loc a_slot_loc(instr in, unsigned i, unsigned g, unsigned s);
reg_loc a_group_loc(instr in, unsigned i, unsigned g);
// Sparse index: the 4-bit field of group g of row i under index_key (gfx12) / ABID (gfx9). The first stored value's
// position is bits [lo+1:lo], the second's [lo+3:lo+2].
reg_loc index_field_loc(instr in, unsigned i, unsigned g, unsigned index_key);
// Dense A element (two places on gfx11: lanes i and i+16), B element (dense and sparse), D/C element.
std::vector<reg_loc> a_locs(instr in, unsigned i, unsigned k);
std::vector<reg_loc> b_locs(instr in, unsigned k, unsigned j);
// The C/D element: a whole word, or for binary16 C/D a half (gfx12: two elements per VGPR; gfx11: one per 32-bit slot,
// the half d_half selects, op_sel[2] of the instruction).
reg_loc d_loc(instr in, unsigned i, unsigned j, unsigned d_half = 0);

// A wave's worth of one operand: lanes x VGPRs of 32-bit words.
class wave_regs {
 public:
  wave_regs() = default;
  wave_regs(unsigned lanes, unsigned vgprs) : lanes_(lanes), vgprs_(vgprs), words_(std::size_t(lanes) * vgprs, 0u) {}
  unsigned lanes() const { return lanes_; }
  unsigned vgprs() const { return vgprs_; }
  std::uint32_t& word(unsigned lane, unsigned vgpr);
  std::uint32_t word(unsigned lane, unsigned vgpr) const;
  std::uint32_t get(const reg_loc& at) const;
  void set(const reg_loc& at, std::uint32_t value);  // throws if value does not fit the bit range
  // lane-major words: lane l's VGPR r is words()[l*vgprs()+r] (the buffer layout of kernels/mma/wave_ops.cuh)
  std::span<const std::uint32_t> words() const { return words_; }
  std::span<std::uint32_t> words() { return words_; }
  friend bool operator==(const wave_regs&, const wave_regs&) = default;

 private:
  unsigned lanes_ = 0, vgprs_ = 0;
  std::vector<std::uint32_t> words_;
};

wave_regs make_a_regs(instr in);
wave_regs make_b_regs(instr in);
wave_regs make_d_regs(instr in);     // also C
wave_regs make_index_regs(instr in); // one VGPR per lane (zero-filled; dense ops ignore it)

// The logical sparse A operand: per row i and group g, two stored codes and their 2-bit K positions.
struct sparse_a {
  unsigned rows = 0, groups = 0;
  std::vector<std::uint32_t> values;  // [(i*groups + g)*2 + s], raw codes of the element format
  std::vector<std::uint8_t> fields;   // same indexing, 0..3
  sparse_a() = default;
  sparse_a(unsigned r, unsigned g) : rows(r), groups(g), values(std::size_t(r) * g * 2, 0u), fields(std::size_t(r) * g * 2, 0) {}
  std::uint32_t& value(unsigned i, unsigned g, unsigned s) { return values[(std::size_t(i) * groups + g) * 2 + s]; }
  std::uint32_t value(unsigned i, unsigned g, unsigned s) const { return values[(std::size_t(i) * groups + g) * 2 + s]; }
  std::uint8_t& field(unsigned i, unsigned g, unsigned s) { return fields[(std::size_t(i) * groups + g) * 2 + s]; }
  std::uint8_t field(unsigned i, unsigned g, unsigned s) const { return fields[(std::size_t(i) * groups + g) * 2 + s]; }
  friend bool operator==(const sparse_a&, const sparse_a&) = default;
};

// Logical dense matrices carry raw codes: A is M x K, B is K x N, C/D are M x N (int32 or f32 bit patterns).
using code_matrix = tp::ref::matrix<std::uint32_t>;

// Placement writes only the operand's bits (other bits keep their value); read-back inverts it.
// Sparse placement also writes the selected index fields (index_key / ABID); other index bits are kept.
void place_sparse_a(instr in, const sparse_a& a, wave_regs& a_regs, wave_regs& index_regs, unsigned index_key);
sparse_a read_sparse_a(instr in, const wave_regs& a_regs, const wave_regs& index_regs, unsigned index_key);
void place_dense_a(instr in, const code_matrix& a, wave_regs& a_regs);  // writes every replica (gfx11)
code_matrix read_dense_a(instr in, const wave_regs& a_regs);            // reads the first replica (lanes 0-15 on gfx11)
void place_b(instr in, const code_matrix& b, wave_regs& b_regs);        // every replica
code_matrix read_b(instr in, const wave_regs& b_regs);
void place_d(instr in, const code_matrix& d, wave_regs& d_regs, unsigned d_half = 0);
code_matrix read_d(instr in, const wave_regs& d_regs, unsigned d_half = 0);

struct modifiers {
  bool a_signed = true, b_signed = true;  // integer ops with signedness flags (NEG[0]/NEG[1]); ignored otherwise
  bool clamp = false;                     // integer ops: saturate instead of wrap (ASSUMPTION, unverified)
  unsigned index_key = 0;                 // gfx12 K=32: 0 = index bits [15:0], 1 = [31:16]; gfx9: ABID set
  unsigned d_half = 0;                    // gfx11 binary16 C/D: op_sel[2], the half of each slot C and D use
};

// Value of one code of an element format as a double (integers honour the signedness flag).
double element_value(elem e, std::uint32_t code, bool is_signed = true);

// Logical execution; results are int32 / f32 bit patterns.
code_matrix execute_sparse(instr in, const sparse_a& a, const code_matrix& b, const code_matrix& c, const modifiers& m);
code_matrix execute_dense(instr in, const code_matrix& a, const code_matrix& b, const code_matrix& c, const modifiers& m);
// Register-level execution: read the operands with the instruction's layout, execute, place D. D starts as C's
// registers: where D's elements leave bits unwritten (gfx11's binary16 C/D, the other half of each slot), they keep C's
// (the compiled code names the same registers for C and D).
wave_regs execute(instr in, const wave_regs& a, const wave_regs& b, const wave_regs& c, const wave_regs& index,
                  const modifiers& m);
// The same on lane-major words (wave_regs::words() layout: a holds wave x a_vgprs words, b wave x b_vgprs, c and d
// wave x d_vgprs, index wave x 1, ignored by dense ops), for a caller that keeps its own buffers (the AMDGPU simulator
// calls it once per executed matrix instruction): no allocation. d's elements are written (all of d but for gfx11's
// binary16 C/D, whose other halves keep what d held); d must not overlap a, b, c or index. Throws std::invalid_argument on a wrong span size or an illegal modifier, as execute() does.
void execute_words(instr in, std::span<const std::uint32_t> a, std::span<const std::uint32_t> b,
                   std::span<const std::uint32_t> c, std::span<const std::uint32_t> index, const modifiers& m,
                   std::span<std::uint32_t> d);
// The same on register-major operands, as a register file holds them (VGPR r of lane l at [r * wave + l]; a, b, c
// hold the operand's VGPRs, index one VGPR): the AMDGPU simulator passes its VGPR rows without reordering them. No
// checks of sizes (the caller's registers have the instruction's shape by construction); d must not overlap the
// others. Throws std::invalid_argument on an illegal modifier.
void execute_rows(instr in, const std::uint32_t* a, const std::uint32_t* b, const std::uint32_t* c,
                  const std::uint32_t* index, const modifiers& m, std::uint32_t* d);
// The same, spelled as that composition (read_* -> execute_sparse / execute_dense -> place_d); execute() computes it
// from per-instruction tables of the same layout functions, for speed. tests/isa holds the two equal.
wave_regs execute_by_parts(instr in, const wave_regs& a, const wave_regs& b, const wave_regs& c,
                           const wave_regs& index, const modifiers& m);

// Throws std::invalid_argument with a one-line message when a modifier is illegal for the instruction.
void check_modifiers(instr in, const modifiers& m);

}  // namespace tp::ref::isa
