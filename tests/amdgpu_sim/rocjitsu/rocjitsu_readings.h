// rocJITsu's readings of single instructions, for the replay only (tp-sim-replay --as-rocjitsu): each is one place
// where AMD's rocJITsu emulator (ROCm/rocm-systems emulation/rocjitsu at a3c6becc8b, the corpus's executor) computes
// an instruction differently from this simulator. A machine plugin overwrites the instruction's result, after this
// simulator executed it, with the value rocJITsu's definition gives for the same source operands. When the replay of
// every launch of a disagreement class reproduces rocJITsu's bytes under one reading, and not without it, that class
// is that one difference and nothing else (disagreements.txt, README.md beside this file).
//
// Never a default, never outside this test: these are rocJITsu's definitions, not the ISA's. Written here from the
// behaviour rocJITsu's source describes (cited per reading in rocjitsu_readings.cpp); none of its code is used.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "simt/amdgpu_sim/machine/plugin.h"

namespace tp::amdgpu_sim::rocjitsu_readings {

enum class reading : uint8_t {
  // s_ceil/s_floor/s_trunc/s_rndne _f32/_f16 (gfx12 SALU float) write SCC = (result != 0).
  salu_float_scc,
  // v_exp_f32 / v_rcp_f32 / v_rcp_iflag_f32 / v_rsq_f32 / v_sqrt_f32 / v_log_f32 and gfx12's scalar-destination
  // v_s_* forms: the host's exp2f / 1.0f / x / 1.0f / sqrtf(x) / sqrtf / log2f, denormal inputs (but sqrt's) and
  // exp/rcp/rsq results flushed to zero, a NaN input returned as it is (unquieted), a negative input of rsq, sqrt and
  // log giving 0x7fc00000 (the guide's examples give 0xffc00000).
  host_transcendentals,
  // f32-accumulating WMMA and SWMMAC: D = C + a_0 b_0 + a_1 b_1 + ... in ascending K order (SWMMAC: ascending stored
  // value), rounded to binary32 after every step (the products of these formats are exact in binary32); gfx11 reads a
  // replicated A/B element from the copy in the D lane's half.
  mma_f32_sequential,
  // v_fma_f64 with a NaN operand: the first NaN of S1, S0, S2 (in that order), quieted; rocJITsu's SIMD path runs
  // the host library's fma fallback, which returns that one (this simulator: the host fma's choice, S0 first).
  fma_f64_nan_order,
  // v_swmmac_i32_16x16x32_iu4 / _16x16x64_iu4: a 4-bit A or B operand with K >= 32 elements read in blocks of K/4
  // alternating between lanes j and j + 16 (rocJITsu's wmma_input_loc), where AMD's layout tables (reference/isa)
  // hold K/2 consecutive elements per lane.
  iu4_swmmac_layout,
  // v_fma_mix_f32 (and the f32 value v_fma_mixlo/hi_f16 round to binary16): S0 * S1 rounded to binary32, then + S2
  // rounded again, where the ISA fuses the two (one rounding).
  fma_mix_unfused,
  // s_ctz_i32_b32/_b64, s_clz_i32_u32/_u64, s_cls_i32/_i32_i64 (the bit scans) write SCC = (result != 0), where the
  // ISA leaves SCC (LLVM's SOP1 definitions give them no SCC def, and clang schedules them between an SCC write and
  // its read).
  salu_bitscan_scc,
  // s_and_not1_wrexec_b32/_b64, s_and_not0_wrexec_b32/_b64: EXEC written, D and SCC left as they were, where the ISA
  // writes D = the new EXEC and SCC = (EXEC != 0).
  wrexec_keeps_dest,
  // Every f32 min/max: gfx12's s_min_num_f32 / s_max_num_f32, v_{min,max}{,3}_num_f32, v_{minmax,maxmin}_num_f32 and
  // gfx11's v_{min,max}{,3}_f32, v_{minmax,maxmin}_f32, with their VOPD halves: compositions of std::fmin / std::fmax
  // as clang compiles them for x86-64, which give S1 where S0 is a NaN and S0 otherwise unless S1 is strictly
  // beyond it. So a NaN is never quieted (two NaNs give S1 as it is), a signalling NaN loses to a number, and equal
  // operands, +0 and -0 among them, give S0; the ISA orders -0 below +0, quiets NaN results (gfx12: two NaNs give
  // S0 quieted) and, on gfx11 in IEEE mode, returns a signalling NaN operand quieted.
  host_fminmax,
  // v_bcnt_u32_b32: D = popcount(S0), where the ISA adds S1 (D = S1 + popcount(S0)).
  bcnt_drops_s1,
  // v_div_scale_f32 / v_div_fmas_f32 / v_div_fixup_f32 as rocJITsu writes them: div_scale's tests on the host's
  // frexp exponents (an infinity's is 0) instead of the exponent fields, a zero operand passing S0 through with VCC 0,
  // the lanes' VCC bits merged into VCC's (not sdst's) old value; div_fmas scaling by 2^32 after rounding; div_fixup
  // with no underflow case and S0 returned as it is (no sign from S1 and S2) and 0x7fc00000 for 0/0 and inf/inf.
  div_helpers_frexp,
  // v_cvt_f16_f32, v_pk_mul_f16, v_pk_add_f16: a NaN narrowed to binary16 as sign | 0x7c00 | (payload >> 13) | 1 (not
  // quieted; a signalling NaN stays signalling), a binary16 NaN widened unquieted, the packed halves computed in
  // binary32 by the host, and the packed forms' clamp ignored.
  f16_host_narrowing,
  // v_perm_b32: selector bytes 8-11 (the sign of a source half-word or word, replicated) and 14-255 give 0x00, where
  // the ISA gives the sign byte for 8-11 and 0xff for 13 and above.
  perm_selectors,
  // The work-item IDs at wave start: X in v0, Y in v1, Z in v2 (the GFX9 layout), where gfx11 and gfx12 deliver them
  // packed in v0 (X [9:0], Y [19:10], Z [29:20]).
  unpacked_workitem_id,
};

// "salu-float-scc", "host-transcendentals", "mma-f32-sequential", "fma-f64-nan-order", "iu4-swmmac-layout",
// "fma-mix-unfused", "salu-bitscan-scc", "wrexec-keeps-dest", "host-fminmax", "bcnt-drops-s1",
// "perm-selectors", "div-helpers-frexp", "f16-host-narrowing", "unpacked-workitem-id".
std::optional<reading> parse(std::string_view name);
std::string_view name(reading r);
std::vector<std::string_view> all_names();

class plugin final : public machine::plugin {
 public:
  explicit plugin(std::vector<reading> readings);
  bool observes_instructions() const override { return true; }
  void wave_start(machine::wave& w) override;
  void before_instruction(machine::wave& w, const machine::op& o) override;
  void after_instruction(machine::wave& w, const machine::op& o) override;
  // Per reading, in the order given: the instructions whose result it replaced (unpacked-workitem-id: the waves
  // whose v0 it changed). A reading that replaced nothing in a launch explains nothing there.
  const std::vector<uint64_t>& replaced() const { return replaced_; }

 private:
  enum class kind : uint8_t { none, salu_float, salu_bitscan, wrexec, salu_fminmax, valu_fminmax, bcnt, perm,
                             transcendental, fma_f64, matrix, fma_mix, div_scale, div_fmas, div_fixup, cvt_f16,
                             pk_f16 };
  // A VALU min/max, bcnt or perm: the op itself, or the VOPD halves that are min/max (each with its sources).
  struct valu_unit {
    const machine::op* o;
    std::string_view mnemonic;  // v_dual_ halves named as the VOP2 instruction
    std::vector<uint32_t> src;  // 3 per lane, modifiers applied
  };
  void take_sources(machine::wave& w, const machine::op& o, std::string_view mnemonic);
  kind classify(const machine::wave& w, const machine::op& o, unsigned& which) const;
  std::vector<reading> readings_;
  std::vector<uint64_t> replaced_;
  // The sources of the instruction in flight, taken before it ran (its destination may be one of them).
  kind pending_ = kind::none;
  unsigned pending_reading_ = 0;
  std::vector<uint32_t> a_, b_, c_, index_, src_;
  std::vector<uint64_t> src64_;  // v_fma_f64: S0, S1, S2 of each lane
  std::vector<float> mix_;       // v_fma_mix*: the three widened sources of each lane
  uint32_t kept_[2] = {};        // wrexec: D before it (64-bit: two SGPRs)
  bool kept_scc_ = false;        // wrexec: SCC before it
  uint32_t salu_src_[2] = {};    // s_min/max_num_f32: the two sources
  std::vector<valu_unit> units_;  // valu_fminmax, bcnt, perm, div_*, pk_f16
  uint32_t vcc_before_ = 0;       // div_scale: VCC before it
};

// Not readings but witnesses, for differences no plugin can reproduce here because they send rocJITsu's accesses into
// its own memory, where this simulator's bounds-checked memory has nothing: each observes, per wave, the instructions
// whose results the difference changes. A class is shown to be that difference when its launches differ and run such
// instructions and no other launch of the corpus runs one (tp-sim-replay --witness).
class witness : public machine::plugin {
 public:
  bool observes_instructions() const override { return true; }
  void wave_start(machine::wave& w) override;
  // Instructions executed after the difference took effect whose result it changes.
  uint64_t affected() const { return affected_; }
  // The first such instruction, "<mnemonic> at .text+0x<pc>", for the report; empty when none.
  const std::string& first() const { return first_; }
  // What the difference is, for the report ("rocJITsu's s102/s103 alias").
  virtual std::string_view difference() const = 0;

 protected:
  void note(const machine::wave& w, const machine::op& o);
  std::vector<const machine::wave*> marked_;  // the waves the difference has reached (few: a linear search)
  bool marked(const machine::wave& w) const;

 private:
  uint64_t affected_ = 0;
  std::string first_;
};

// rocJITsu's RDNA3/RDNA4 operand resolvers read and write the SGPR encodings 102/103 as the wave's scratch (private
// segment) base, the GFX9 FLAT_SCRATCH operands (isa/arch/amdgpu/rdna3|rdna4/operand.cpp at a3c6becc8b:
// resolve_src_scalar, resolve_src_scalar64, resolve_dst_write, resolve_dst_write64), where on gfx11 and gfx12 they are
// the plain SGPRs 102 and 103. A kernel that writes s102 or s103 therefore moves its own scratch under rocJITsu, and
// rocJITsu's scratch accesses after that land wherever the written value points in rocJITsu's memory (its code among
// other things). Its s_setpc_b64/s_swappc_b64 check reads the target from the physical SGPRs instead, which the
// aliased write never reached, finds 0 and halts the wave (vm/amdgpu/compute_unit.cpp, issue_instruction). This
// witness observes, per wave, a write to s102 or s103 followed by a scratch access or a jump through s[102:103].
class sgpr_102_103_witness final : public witness {
 public:
  std::string_view difference() const override { return "rocJITsu's s102/s103 alias"; }
  void after_instruction(machine::wave& w, const machine::op& o) override;
  void before_instruction(machine::wave& w, const machine::op& o) override;
  void memory(const machine::wave& w, const machine::op& o, const machine::memory_access& a) override;
};

// rocJITsu's LDS atomics without a return value (ds_add_u32 ... ds_xor_b32, 32- and 64-bit) still write the old LDS
// words to the VGPRs the encoding's unused vdst field names, as the _rtn forms return them (rdna3/ds.cpp
// DsAddU32Ds::execute_impl and its siblings, rdna4/vds.cpp alike, set dst_reg_base and is_load; memory_pipeline.cpp's
// execute_lds_atomic_rmw and vector_complete write the response there). LLVM encodes that field as 0, so v0 is
// overwritten, and a kernel that still holds an address in v0 sends its later accesses into rocJITsu's memory at that
// word's value. This witness observes, per wave, a non-returning LDS atomic followed by an instruction that reads v0
// before v0 is written again.
class ds_noreturn_v0_witness final : public witness {
 public:
  std::string_view difference() const override { return "rocJITsu's v0 write by a non-returning LDS atomic"; }
  void after_instruction(machine::wave& w, const machine::op& o) override;
  void before_instruction(machine::wave& w, const machine::op& o) override;
};

// The witnesses --witness takes: "sgpr-102-103", "ds-noreturn-v0"; nullptr for another name.
std::unique_ptr<witness> make_witness(std::string_view name);
std::vector<std::string_view> witness_names();
}  // namespace tp::amdgpu_sim::rocjitsu_readings
