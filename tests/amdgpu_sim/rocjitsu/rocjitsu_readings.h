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
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "simt/amdgpu_sim/machine/plugin.h"

namespace tp::amdgpu_sim::rocjitsu_readings {

enum class reading : uint8_t {
  // s_ceil/s_floor/s_trunc/s_rndne _f32/_f16 (gfx12 SALU float) write SCC = (result != 0).
  salu_float_scc,
  // v_exp_f32 / v_rcp_f32 / v_rcp_iflag_f32 and gfx12's scalar-destination v_s_exp_f32 / v_s_rcp_f32: the host's
  // exp2f / 1.0f / x, denormal inputs and results flushed to zero, a NaN input returned as it is.
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
  // gfx12's s_min_num_f32 / s_max_num_f32: std::fmin / std::fmax as clang compiles them for x86-64, which give S0 for
  // equal operands (+0 and -0 among them), where the ISA orders -0 below +0 (IEEE 754-2019 minimumNumber /
  // maximumNumber).
  salu_host_fminmax,
  // The work-item IDs at wave start: X in v0, Y in v1, Z in v2 (the GFX9 layout), where gfx11 and gfx12 deliver them
  // packed in v0 (X [9:0], Y [19:10], Z [29:20]).
  unpacked_workitem_id,
};

// "salu-float-scc", "host-transcendentals", "mma-f32-sequential", "fma-f64-nan-order", "iu4-swmmac-layout",
// "fma-mix-unfused", "salu-bitscan-scc", "wrexec-keeps-dest", "salu-host-fminmax", "unpacked-workitem-id".
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
  enum class kind : uint8_t { none, salu_float, salu_bitscan, wrexec, salu_fminmax, transcendental, fma_f64, matrix, fma_mix };
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
};

// Not a reading but a witness, for the one difference no plugin can reproduce here: rocJITsu's RDNA3/RDNA4 operand
// resolvers read and write the SGPR encodings 102/103 as the wave's scratch (private segment) base, the GFX9
// FLAT_SCRATCH operands (isa/arch/amdgpu/rdna3|rdna4/operand.cpp at a3c6becc8b: resolve_src_scalar,
// resolve_src_scalar64, resolve_dst_write, resolve_dst_write64), where on gfx11 and gfx12 they are the plain SGPRs 102
// and 103. A kernel that writes s102 or s103 therefore moves its own scratch under rocJITsu, and rocJITsu's scratch
// accesses after that land wherever the written value points in rocJITsu's memory (its code among other things): the
// bytes cannot be reproduced in this simulator's memory. Its s_setpc_b64/s_swappc_b64 check reads the target from
// the physical SGPRs instead, which the aliased write never reached, finds 0 and halts the wave
// (vm/amdgpu/compute_unit.cpp, issue_instruction). This plugin observes, per wave, a write to s102 or s103 followed
// by a scratch access or a jump through s[102:103]: the two ways the alias changes what rocJITsu computes.
class sgpr_102_103_witness final : public machine::plugin {
 public:
  bool observes_instructions() const override { return true; }
  void wave_start(machine::wave& w) override;
  void after_instruction(machine::wave& w, const machine::op& o) override;
  void before_instruction(machine::wave& w, const machine::op& o) override;
  void memory(const machine::wave& w, const machine::op& o, const machine::memory_access& a) override;
  // Instructions executed by a wave after it wrote s102/s103 that rocJITsu runs differently because of the alias.
  uint64_t affected() const { return affected_; }
  // The first such instruction, "<mnemonic> at .text+0x<pc>", for the report; empty when none.
  const std::string& first() const { return first_; }

 private:
  void note(const machine::wave& w, const machine::op& o);
  std::vector<const machine::wave*> wrote_;  // the waves that wrote s102 or s103 (few: a linear search)
  uint64_t affected_ = 0;
  std::string first_;
};

}  // namespace tp::amdgpu_sim::rocjitsu_readings
