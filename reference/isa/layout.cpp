// Instruction table and register layouts, transcribed from the documented element-to-register formulas
// (calculator formula text as docs/bugs/gfx12-swmmac.md §5, §7, §9 describe it). Formulas are written the way the
// documentation writes them, in terms of the uncompressed k (for a sparse group g: k = 4g, its first position).
#include <stdexcept>
#include <string>

#include "reference/isa/isa.h"

namespace tp::ref::isa {
namespace {

constexpr instr_info table[] = {
    // id, name, mnemonic, layout stem, arch, wave, m, n, k, sparse, a, b, d, a/b/d vgprs, index keys, index bits, flags
    {instr::swmmac_i32_16x16x32_iu4, "swmmac_i32_16x16x32_iu4", "v_swmmac_i32_16x16x32_iu4",
     "v_swmmac_i32_16x16x32_iu4.rdna4", arch::gfx12, 32, 16, 16, 32, true, elem::iu4, elem::iu4, elem::i32, 1, 2, 8, 2, 16, true},
    {instr::swmmac_i32_16x16x64_iu4, "swmmac_i32_16x16x64_iu4", "v_swmmac_i32_16x16x64_iu4",
     "v_swmmac_i32_16x16x64_iu4.rdna4", arch::gfx12, 32, 16, 16, 64, true, elem::iu4, elem::iu4, elem::i32, 2, 4, 8, 1, 32, true},
    {instr::swmmac_i32_16x16x32_iu8, "swmmac_i32_16x16x32_iu8", "v_swmmac_i32_16x16x32_iu8",
     "v_swmmac_i32_16x16x32_iu8.rdna4", arch::gfx12, 32, 16, 16, 32, true, elem::iu8, elem::iu8, elem::i32, 2, 4, 8, 2, 16, true},
    {instr::swmmac_f32_16x16x32_fp8_fp8, "swmmac_f32_16x16x32_fp8_fp8", "v_swmmac_f32_16x16x32_fp8_fp8",
     "v_swmmac_f32_16x16x32_fp8_fp8.rdna4", arch::gfx12, 32, 16, 16, 32, true, elem::fp8, elem::fp8, elem::f32, 2, 4, 8, 2, 16, false},
    // The calculator tables exist for fp8_fp8 and bf8_bf8; the mixed forms share the 8-bit layout
    // (docs/bugs/gfx12-swmmac.md §5).
    {instr::swmmac_f32_16x16x32_fp8_bf8, "swmmac_f32_16x16x32_fp8_bf8", "v_swmmac_f32_16x16x32_fp8_bf8",
     "v_swmmac_f32_16x16x32_fp8_fp8.rdna4", arch::gfx12, 32, 16, 16, 32, true, elem::fp8, elem::bf8, elem::f32, 2, 4, 8, 2, 16, false},
    {instr::swmmac_f32_16x16x32_bf8_fp8, "swmmac_f32_16x16x32_bf8_fp8", "v_swmmac_f32_16x16x32_bf8_fp8",
     "v_swmmac_f32_16x16x32_bf8_bf8.rdna4", arch::gfx12, 32, 16, 16, 32, true, elem::bf8, elem::fp8, elem::f32, 2, 4, 8, 2, 16, false},
    {instr::swmmac_f32_16x16x32_bf8_bf8, "swmmac_f32_16x16x32_bf8_bf8", "v_swmmac_f32_16x16x32_bf8_bf8",
     "v_swmmac_f32_16x16x32_bf8_bf8.rdna4", arch::gfx12, 32, 16, 16, 32, true, elem::bf8, elem::bf8, elem::f32, 2, 4, 8, 2, 16, false},
    {instr::swmmac_f32_16x16x32_f16, "swmmac_f32_16x16x32_f16", "v_swmmac_f32_16x16x32_f16",
     "v_swmmac_f32_16x16x32_f16.rdna4", arch::gfx12, 32, 16, 16, 32, true, elem::f16, elem::f16, elem::f32, 4, 8, 8, 2, 16, false},
    {instr::swmmac_f32_16x16x32_bf16, "swmmac_f32_16x16x32_bf16", "v_swmmac_f32_16x16x32_bf16",
     "v_swmmac_f32_16x16x32_bf16.rdna4", arch::gfx12, 32, 16, 16, 32, true, elem::bf16, elem::bf16, elem::f32, 4, 8, 8, 2, 16, false},
    {instr::wmma_i32_16x16x32_iu4, "wmma_i32_16x16x32_iu4", "v_wmma_i32_16x16x32_iu4",
     "v_wmma_i32_16x16x32_iu4.rdna4", arch::gfx12, 32, 16, 16, 32, false, elem::iu4, elem::iu4, elem::i32, 2, 2, 8, 0, 0, true},
    {instr::wmma_i32_16x16x16_iu8, "wmma_i32_16x16x16_iu8", "v_wmma_i32_16x16x16_iu8",
     "v_wmma_i32_16x16x16_iu8.rdna4", arch::gfx12, 32, 16, 16, 16, false, elem::iu8, elem::iu8, elem::i32, 2, 2, 8, 0, 0, true},
    {instr::wmma_f32_16x16x16_f16, "wmma_f32_16x16x16_f16", "v_wmma_f32_16x16x16_f16",
     "v_wmma_f32_16x16x16_f16.rdna4", arch::gfx12, 32, 16, 16, 16, false, elem::f16, elem::f16, elem::f32, 4, 4, 8, 0, 0, false},
    {instr::gfx11_wmma_f32_16x16x16_f16, "gfx11_wmma_f32_16x16x16_f16", "v_wmma_f32_16x16x16_f16",
     "v_wmma_f32_16x16x16_f16.rdna3", arch::gfx11, 32, 16, 16, 16, false, elem::f16, elem::f16, elem::f32, 8, 8, 8, 0, 0, false},
    {instr::gfx11_wmma_i32_16x16x16_iu8, "gfx11_wmma_i32_16x16x16_iu8", "v_wmma_i32_16x16x16_iu8",
     "v_wmma_i32_16x16x16_iu8.rdna3", arch::gfx11, 32, 16, 16, 16, false, elem::iu8, elem::iu8, elem::i32, 4, 4, 8, 0, 0, true},
    {instr::gfx9_smfmac_f32_16x16x32_f16, "gfx9_smfmac_f32_16x16x32_f16", "v_smfmac_f32_16x16x32_f16",
     "v_smfmac_f32_16x16x32_f16.cdna3", arch::gfx9, 64, 16, 16, 32, true, elem::f16, elem::f16, elem::f32, 2, 4, 4, 4, 8, false},
    {instr::gfx9_smfmac_i32_16x16x64_i8, "gfx9_smfmac_i32_16x16x64_i8", "v_smfmac_i32_16x16x64_i8",
     "v_smfmac_i32_16x16x64_i8.cdna3", arch::gfx9, 64, 16, 16, 64, true, elem::iu8, elem::iu8, elem::i32, 2, 4, 4, 2, 16, false},
    // f16_d_instrs: no calculator table here (the stem names none); A/B laid out as the f32-accumulating form's.
    {instr::wmma_f16_16x16x16_f16, "wmma_f16_16x16x16_f16", "v_wmma_f16_16x16x16_f16", "", arch::gfx12, 32, 16, 16, 16,
     false, elem::f16, elem::f16, elem::f16, 4, 4, 4, 0, 0, false},
    {instr::gfx11_wmma_f16_16x16x16_f16, "gfx11_wmma_f16_16x16x16_f16", "v_wmma_f16_16x16x16_f16", "", arch::gfx11, 32, 16,
     16, 16, false, elem::f16, elem::f16, elem::f16, 8, 8, 8, 0, 0, false},
};

reg_loc bits(unsigned lane, unsigned vgpr, unsigned lo, unsigned width) { return {lane, vgpr, lo, lo + width - 1}; }

void require(bool ok, const char* what, instr in) {
  if (!ok) throw std::invalid_argument(std::string(what) + " for " + std::string(info(in).name));
}

void check_row_group(instr in, unsigned i, unsigned g) {
  const auto& f = info(in);
  require(f.sparse, "sparse A / index layout requested", in);
  if (i >= f.m || g >= f.k / 4) throw std::out_of_range("row or group out of range for " + std::string(f.name));
}

}  // namespace

const instr_info& info(instr in) {
  // The table lists the instructions in enum order, so the id is the index; the loop covers a table edited out of order.
  // (The AMDGPU simulator asks once per executed matrix instruction, several times.)
  if (const std::size_t i = std::size_t(in); i < std::size(table) && table[i].id == in) return table[i];
  for (const auto& f : table)
    if (f.id == in) return f;
  throw std::invalid_argument("unknown instruction id");
}

std::optional<instr> parse_instr(std::string_view name) {
  for (const auto& f : table)
    if (f.name == name || (f.target == arch::gfx12 && f.mnemonic == name)) return f.id;
  return std::nullopt;
}

std::string_view to_string(arch a) {
  switch (a) {
    case arch::gfx9: return "gfx9";
    case arch::gfx11: return "gfx11";
    case arch::gfx12: return "gfx12";
  }
  return "?";
}

unsigned bits_of(elem e) {
  switch (e) {
    case elem::iu4: return 4;
    case elem::iu8: case elem::fp8: case elem::bf8: return 8;
    case elem::f16: case elem::bf16: return 16;
    case elem::i32: case elem::f32: return 32;
  }
  return 0;
}

bool is_integer(elem e) { return e == elem::iu4 || e == elem::iu8 || e == elem::i32; }

std::string_view to_string(elem e) {
  switch (e) {
    case elem::iu4: return "iu4";
    case elem::iu8: return "iu8";
    case elem::fp8: return "fp8";
    case elem::bf8: return "bf8";
    case elem::f16: return "f16";
    case elem::bf16: return "bf16";
    case elem::i32: return "i32";
    case elem::f32: return "f32";
  }
  return "?";
}

std::string to_string(const reg_loc& r) {
  return "lane " + std::to_string(r.lane) + " v" + std::to_string(r.vgpr) + ".[" + std::to_string(r.bit_hi) + ":" +
         std::to_string(r.bit_lo) + "]";
}

reg_loc a_slot_loc(instr in, unsigned i, unsigned g, unsigned s) {
  check_row_group(in, i, g);
  if (s > 1) throw std::out_of_range("a sparse group stores two values");
  const unsigned k = 4 * g;
  const unsigned w = bits_of(info(in).a);
  switch (in) {
    case instr::swmmac_i32_16x16x32_iu4:  // GPR 0.[8*((k/4)%4)+7 : 8*((k/4)%4)], lane 16*(k/16)+i
      return bits(16 * (k / 16) + i, 0, 8 * ((k / 4) % 4) + w * s, w);
    case instr::swmmac_i32_16x16x64_iu4:  // GPR (k/16)%2 .[8*((k/4)%4)+7 : ...], lane 16*(k/32)+i
      return bits(16 * (k / 32) + i, (k / 16) % 2, 8 * ((k / 4) % 4) + w * s, w);
    case instr::swmmac_i32_16x16x32_iu8:
    case instr::swmmac_f32_16x16x32_fp8_fp8:
    case instr::swmmac_f32_16x16x32_fp8_bf8:
    case instr::swmmac_f32_16x16x32_bf8_fp8:
    case instr::swmmac_f32_16x16x32_bf8_bf8:  // GPR (k/8)%2 .[16*((k/4)%2)+15 : 16*((k/4)%2)], lane 16*(k/16)+i
      return bits(16 * (k / 16) + i, (k / 8) % 2, 16 * ((k / 4) % 2) + w * s, w);
    case instr::swmmac_f32_16x16x32_f16:
    case instr::swmmac_f32_16x16x32_bf16:  // GPR 2*(k/16)+((k/4)%2), lane 16*((k/8)%2)+i; lo16 first value
      return bits(16 * ((k / 8) % 2) + i, 2 * (k / 16) + (k / 4) % 2, w * s, w);
    case instr::gfx9_smfmac_f32_16x16x32_f16:  // GPR (k/4)%2, lane 16*(k/8)+i
      return bits(16 * (k / 8) + i, (k / 4) % 2, w * s, w);
    case instr::gfx9_smfmac_i32_16x16x64_i8:  // GPR (k/8)%2 .[16*((k/4)%2)+15 : ...], lane 16*(k/16)+i
      return bits(16 * (k / 16) + i, (k / 8) % 2, 16 * ((k / 4) % 2) + w * s, w);
    default: break;
  }
  throw std::logic_error("a_slot_loc: no sparse layout");
}

reg_loc a_group_loc(instr in, unsigned i, unsigned g) {
  const reg_loc first = a_slot_loc(in, i, g, 0), second = a_slot_loc(in, i, g, 1);
  return {first.lane, first.vgpr, first.bit_lo, second.bit_hi};
}

reg_loc index_field_loc(instr in, unsigned i, unsigned g, unsigned index_key) {
  check_row_group(in, i, g);
  const auto& f = info(in);
  if (index_key >= f.index_keys)
    throw std::out_of_range("index_key " + std::to_string(index_key) + " is not legal for " + std::string(f.name));
  const unsigned k = 4 * g, sel = f.index_bits * index_key;
  // The index register holds the fields of the groups the lane's A registers hold, in group order.
  switch (in) {
    case instr::swmmac_i32_16x16x32_iu4:
    case instr::swmmac_i32_16x16x32_iu8:
    case instr::swmmac_f32_16x16x32_fp8_fp8:
    case instr::swmmac_f32_16x16x32_fp8_bf8:
    case instr::swmmac_f32_16x16x32_bf8_fp8:
    case instr::swmmac_f32_16x16x32_bf8_bf8:  // 0.[4*((k/4)%4)+3 : 4*((k/4)%4)], lane 16*(k/16)+i
      return bits(16 * (k / 16) + i, 0, sel + 4 * ((k / 4) % 4), 4);
    case instr::swmmac_i32_16x16x64_iu4:  // 0.[4*((k/4)%8)+3 : ...], lane 16*(k/32)+i
      return bits(16 * (k / 32) + i, 0, 4 * ((k / 4) % 8), 4);
    case instr::swmmac_f32_16x16x32_f16:
    case instr::swmmac_f32_16x16x32_bf16:  // 0.[8*(k/16)+4*((k/4)%2)+3 : ...], lane 16*((k/8)%2)+i
      return bits(16 * ((k / 8) % 2) + i, 0, sel + 8 * (k / 16) + 4 * ((k / 4) % 2), 4);
    case instr::gfx9_smfmac_f32_16x16x32_f16:  // 0.[4*((k/4)%2)+3 : ...], lane 16*(k/8)+i; ABID picks an 8-bit set
      return bits(16 * (k / 8) + i, 0, sel + 4 * ((k / 4) % 2), 4);
    case instr::gfx9_smfmac_i32_16x16x64_i8:  // 0.[4*((k/4)%4)+3 : ...], lane 16*(k/16)+i; ABID picks a 16-bit set
      return bits(16 * (k / 16) + i, 0, sel + 4 * ((k / 4) % 4), 4);
    default: break;
  }
  throw std::logic_error("index_field_loc: no sparse layout");
}

std::vector<reg_loc> a_locs(instr in, unsigned i, unsigned k) {
  const auto& f = info(in);
  require(!f.sparse, "dense A layout requested", in);
  if (i >= f.m || k >= f.k) throw std::out_of_range("A element out of range for " + std::string(f.name));
  const unsigned w = bits_of(f.a);
  switch (in) {
    case instr::wmma_i32_16x16x32_iu4:  // GPR (k/8)%2 .[4*(k%8)+3 : 4*(k%8)], lane 16*(k/16)+i
      return {bits(16 * (k / 16) + i, (k / 8) % 2, 4 * (k % 8), w)};
    case instr::wmma_i32_16x16x16_iu8:  // GPR (k/4)%2 .[8*(k%4)+7 : 8*(k%4)], lane 16*(k/8)+i
      return {bits(16 * (k / 8) + i, (k / 4) % 2, 8 * (k % 4), w)};
    case instr::wmma_f32_16x16x16_f16:  // GPR 2*(k/8)+((k/2)%2) .[16*(k%2)+15 : 16*(k%2)], lane 16*((k/4)%2)+i
    case instr::wmma_f16_16x16x16_f16:
      return {bits(16 * ((k / 4) % 2) + i, 2 * (k / 8) + (k / 2) % 2, 16 * (k % 2), w)};
    case instr::gfx11_wmma_f32_16x16x16_f16:  // GPR k/2 .[16*(k%2)+15 : 16*(k%2)], lanes i and i+16
    case instr::gfx11_wmma_f16_16x16x16_f16:
      return {bits(i, k / 2, 16 * (k % 2), w), bits(i + 16, k / 2, 16 * (k % 2), w)};
    case instr::gfx11_wmma_i32_16x16x16_iu8:  // GPR k/4 .[8*(k%4)+7 : 8*(k%4)], lanes i and i+16
      return {bits(i, k / 4, 8 * (k % 4), w), bits(i + 16, k / 4, 8 * (k % 4), w)};
    default: break;
  }
  throw std::logic_error("a_locs: no dense layout");
}

std::vector<reg_loc> b_locs(instr in, unsigned k, unsigned j) {
  const auto& f = info(in);
  if (k >= f.k || j >= f.n) throw std::out_of_range("B element out of range for " + std::string(f.name));
  const unsigned w = bits_of(f.b);
  switch (in) {
    case instr::swmmac_i32_16x16x32_iu4:  // GPR (k/8)%2 .[4*(k%8)+3 : 4*(k%8)], lane 16*(k/16)+j
      return {bits(16 * (k / 16) + j, (k / 8) % 2, 4 * (k % 8), w)};
    case instr::swmmac_i32_16x16x64_iu4:  // GPR (k/8)%4 .[4*(k%8)+3 : ...], lane 16*(k/32)+j
      return {bits(16 * (k / 32) + j, (k / 8) % 4, 4 * (k % 8), w)};
    case instr::swmmac_i32_16x16x32_iu8:
    case instr::swmmac_f32_16x16x32_fp8_fp8:
    case instr::swmmac_f32_16x16x32_fp8_bf8:
    case instr::swmmac_f32_16x16x32_bf8_fp8:
    case instr::swmmac_f32_16x16x32_bf8_bf8:  // GPR (k/4)%4 .[8*(k%4)+7 : 8*(k%4)], lane 16*(k/16)+j
      return {bits(16 * (k / 16) + j, (k / 4) % 4, 8 * (k % 4), w)};
    case instr::swmmac_f32_16x16x32_f16:
    case instr::swmmac_f32_16x16x32_bf16:  // GPR 4*(k/16)+((k/2)%4) .[16*(k%2)+15 : ...], lane 16*((k/8)%2)+j
      return {bits(16 * ((k / 8) % 2) + j, 4 * (k / 16) + (k / 2) % 4, 16 * (k % 2), w)};
    case instr::gfx9_smfmac_f32_16x16x32_f16:  // lane 16*(k/8)+j; GPR (k/2)%4 .[16*(k%2)+15 : ...] (register-to-
      // element text: k = 8*(lane/16) + 2*GPR + bits/16; the element-to-register line's "(k % 4)" disagrees with it
      // and with the table, see tests/isa)
      return {bits(16 * (k / 8) + j, (k / 2) % 4, 16 * (k % 2), w)};
    case instr::gfx9_smfmac_i32_16x16x64_i8:  // GPR (k/4)%4 .[8*(k%4)+7 : ...], lane 16*(k/16)+j
      return {bits(16 * (k / 16) + j, (k / 4) % 4, 8 * (k % 4), w)};
    case instr::wmma_i32_16x16x32_iu4:
    case instr::wmma_i32_16x16x16_iu8:
    case instr::wmma_f32_16x16x16_f16:
    case instr::gfx11_wmma_f32_16x16x16_f16:
    case instr::gfx11_wmma_i32_16x16x16_iu8:
    case instr::wmma_f16_16x16x16_f16:
    case instr::gfx11_wmma_f16_16x16x16_f16:
      return a_locs(in, j, k);  // dense B is laid out like A with j in place of i
  }
  throw std::logic_error("b_locs: no layout");
}

reg_loc d_loc(instr in, unsigned i, unsigned j, unsigned d_half) {
  const auto& f = info(in);
  if (i >= f.m || j >= f.n) throw std::out_of_range("D element out of range for " + std::string(f.name));
  if (d_half > (f.d == elem::f16 && f.target == arch::gfx11 ? 1u : 0u))
    throw std::out_of_range("d_half " + std::to_string(d_half) + " is not legal for " + std::string(f.name));
  // binary16 C/D, as AMD's rocjitsu emulator places them (https://github.com/NautRobot/Eze-P at
  // a3c6becc8b3c2a080fc78110799239685544b7b6, emulation/rocjitsu/lib/rocjitsu/src/rocjitsu/isa/arch/amdgpu/shared/
  // mma_exec.h: gfx12_wmma_output_loc_16, gfx11_wmma_output_loc_16; on gfx11 the RDNA3 guide's OPSEL rule for 16-bit
  // C/D): the f32 form's element order, two elements per VGPR on gfx12 (rows i and i+1 of a lane share one, i in the
  // low half when even), one per 32-bit slot on gfx11.
  if (f.d == elem::f16 && f.target == arch::gfx12) return bits(16 * (i / 8) + j, (i % 8) / 2, 16 * (i % 2), 16);
  if (f.d == elem::f16 && f.target == arch::gfx11) return bits((16 * i) % 32 + j, i / 2, 16 * d_half, 16);
  switch (f.target) {
    case arch::gfx12: return {16 * (i / 8) + j, i % 8, 0, 31};         // GPR i%8, lane 16*(i/8)+j
    case arch::gfx11: return {(16 * i) % 32 + j, i / 2, 0, 31};        // GPR i/2, lane (16*i)%32+j
    case arch::gfx9: return {16 * (i / 4) + j, i % 4, 0, 31};          // GPR i%4, lane 16*(i/4)+j
  }
  throw std::logic_error("d_loc: no layout");
}

}  // namespace tp::ref::isa
