// rocJITsu's readings of single instructions (rocjitsu_readings.h). Each is rocJITsu's behaviour at a3c6becc8b
// (https://github.com/ROCm/rocm-systems/tree/a3c6becc8b/emulation/rocjitsu, carried by the fork NautRobot/Eze-P),
// written here from what its source does; the files are cited per reading.
#include "tests/amdgpu_sim/rocjitsu/rocjitsu_readings.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <limits>
#include <stdexcept>

#include "reference/isa/isa.h"
#include "simt/amdgpu_sim/machine/instruction.h"
#include "simt/amdgpu_sim/machine/wave.h"

namespace tp::amdgpu_sim::rocjitsu_readings {
namespace {

using namespace machine;
namespace isa = tp::ref::isa;

constexpr std::array<std::pair<reading, std::string_view>, 14> names = {{
    {reading::salu_float_scc, "salu-float-scc"},
    {reading::salu_bitscan_scc, "salu-bitscan-scc"},
    {reading::wrexec_keeps_dest, "wrexec-keeps-dest"},
    {reading::host_fminmax, "host-fminmax"},
    {reading::bcnt_drops_s1, "bcnt-drops-s1"},
    {reading::perm_selectors, "perm-selectors"},
    {reading::div_helpers_frexp, "div-helpers-frexp"},
    {reading::f16_host_narrowing, "f16-host-narrowing"},
    {reading::host_transcendentals, "host-transcendentals"},
    {reading::mma_f32_sequential, "mma-f32-sequential"},
    {reading::fma_f64_nan_order, "fma-f64-nan-order"},
    {reading::iu4_swmmac_layout, "iu4-swmmac-layout"},
    {reading::fma_mix_unfused, "fma-mix-unfused"},
    {reading::unpacked_workitem_id, "unpacked-workitem-id"},
}};

// The mnemonic without its encoding suffix (the printer's "v_exp_f32_e32").
std::string_view base_mnemonic(const wave& w, const op& o) {
  std::string_view m = w.prog->mnemonics[o.mnemonic];
  for (std::string_view suffix : {"_e32", "_e64"})
    if (m.size() > suffix.size() && m.substr(m.size() - suffix.size()) == suffix) return m.substr(0, m.size() - suffix.size());
  return m;
}

bool starts_with(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

// A VALU f32 min/max of either arch, a VOPD half ("v_dual_max_f32") as its VOP2 instruction: how rocJITsu composes
// it of std::fmax (true) and std::fmin (false), in order, or an empty list.
std::vector<bool> fminmax_steps(std::string_view m) {
  if (!starts_with(m, "v_")) return {};
  m.remove_prefix(starts_with(m, "v_dual_") ? 7 : 2);
  if (m == "max_f32" || m == "max_num_f32") return {true};
  if (m == "min_f32" || m == "min_num_f32") return {false};
  if (m == "max3_f32" || m == "max3_num_f32") return {true, true};
  if (m == "min3_f32" || m == "min3_num_f32") return {false, false};
  if (m == "maxmin_f32" || m == "maxmin_num_f32") return {true, false};
  if (m == "minmax_f32" || m == "minmax_num_f32") return {false, true};
  return {};
}
// std::fmax / std::fmin (x, y) as clang compiles them for x86-64 (llvm.maxnum / minnum): maxss / minss of y and x
// plus a NaN check of x, so x's NaN gives y, and y only where strictly beyond x (equal values give x).
float host_fmax(float x, float y) { return std::isnan(x) ? y : (y > x ? y : x); }
float host_fmin(float x, float y) { return std::isnan(x) ? y : (y < x ? y : x); }

// rocJITsu's flush of a binary32 denormal to a zero of its sign (transcendental.h: flush_denorm_f32).
float flush(float x) {
  const uint32_t b = std::bit_cast<uint32_t>(x);
  return (b & 0x7f800000u) == 0 && (b & 0x007fffffu) != 0 ? std::copysign(0.0f, x) : x;
}

// isa/arch/amdgpu/shared/transcendental.h (exp_f32, rcp_f32) and its SIMD twins in lib/util/include/util/simd.h
// (exp_f32_simd, rcp_f32_simd), which the VOP1 handlers of execute_shared.h run: the host's exp2f and division.
float rocjitsu_exp(float x) {
  if (std::isnan(x)) return x;
  x = flush(x);
  if (x == -std::numeric_limits<float>::infinity()) return 0.0f;
  if (x == std::numeric_limits<float>::infinity()) return x;
  return flush(std::exp2(x));
}
float rocjitsu_rcp(float x) {
  if (std::isnan(x)) return x;
  x = flush(x);
  if (x == 0.0f) return std::copysign(std::numeric_limits<float>::infinity(), x);
  if (std::isinf(x)) return std::copysign(0.0f, x);
  return flush(1.0f / x);
}

// transcendental.h (rsq_f32, sqrt_f32, log_f32) and simd.h's twins: the host's 1.0f / sqrtf, sqrtf and log2f; rsq
// and log flush a denormal input (sqrt does not), a negative input gives the default quiet NaN 0x7fc00000.
float rocjitsu_rsq(float x) {
  x = flush(x);
  if (std::isnan(x)) return x;
  if (x == 0.0f) return std::copysign(std::numeric_limits<float>::infinity(), x);
  if (x < 0.0f) return std::bit_cast<float>(0x7fc00000u);
  if (std::isinf(x)) return 0.0f;
  const volatile float root = std::sqrt(x);  // two roundings: sqrtf, then the division
  return flush(1.0f / root);
}
float rocjitsu_sqrt(float x) {
  if (std::isnan(x)) return x;
  if (x < 0.0f) return std::bit_cast<float>(0x7fc00000u);
  return std::sqrt(x);
}
float rocjitsu_log(float x) {
  x = flush(x);
  if (std::isnan(x)) return x;
  if (x == 0.0f) return -std::numeric_limits<float>::infinity();
  if (x < 0.0f) return std::bit_cast<float>(0x7fc00000u);
  if (std::isinf(x)) return x;
  return std::log2(x);
}

// lib/util/include/util/data_types.h: f32_to_f16, rocJITsu's narrowing (its SIMD twin f32_to_f16_simd alike): numbers
// rounded to nearest even as _Float16 rounds them; a NaN becomes sign | 0x7c00 | (payload >> 13) | 1, not quieted.
uint16_t rocjitsu_f16(float x) {
  const uint32_t f = std::bit_cast<uint32_t>(x);
  if ((f & 0x7fffffffu) > 0x7f800000u) return uint16_t(((f >> 16) & 0x8000u) | 0x7c00u | ((f & 0x7fffffu) >> 13) | 1u);
  return std::bit_cast<uint16_t>(_Float16(x));
}
// f16_to_f32: numbers exact; a NaN's payload shifted up, not quieted.
float rocjitsu_f32(uint16_t h) {
  if ((h & 0x7c00u) == 0x7c00u && (h & 0x3ffu))
    return std::bit_cast<float>(uint32_t(h & 0x8000u) << 16 | 0x7f800000u | uint32_t(h & 0x3ffu) << 13);
  return float(std::bit_cast<_Float16>(h));
}
// One binary32 operation as x86-64's SSE executes it: a NaN operand gives the first NaN operand, quieted.
template <class Op>
float host_op(float a, float b, Op op) {
  const auto quiet = [](float v) { return std::bit_cast<float>(std::bit_cast<uint32_t>(v) | 0x00400000u); };
  if (std::isnan(a)) return quiet(a);
  if (std::isnan(b)) return quiet(b);
  const volatile float r = op(a, b);
  return r;
}

// Where rocJITsu reads element e (of `elems`, each `bits` wide) of row or column x of a WMMA/SWMMAC operand that it
// places generically (isa/arch/amdgpu/shared/mma_exec.h: wmma_input_loc, used for the gfx12 dense forms and for the
// 4-bit SWMMAC operands): with 32 or more elements, blocks of elems/4 alternate between lanes x and x + 16; fewer,
// the first half in lane x, the second in lane x + 16.
isa::reg_loc rocjitsu_input_loc(unsigned x, unsigned elems, unsigned e, unsigned bits) {
  unsigned lane, local;
  if (elems >= 32) {
    const unsigned block = elems / 4;
    lane = x + 16 * ((e / block) % 2);
    local = (e / (2 * block)) * block + e % block;
  } else {
    lane = x + 16 * (e / (elems / 2));
    local = e % (elems / 2);
  }
  const unsigned bit = local * bits;
  return {lane, bit / 32, bit % 32, bit % 32 + bits - 1};
}

isa::wave_regs to_regs(const std::vector<uint32_t>& rows, unsigned vgprs) {
  isa::wave_regs r(wave_lanes, vgprs);
  for (unsigned v = 0; v < vgprs; ++v)
    for (unsigned l = 0; l < wave_lanes; ++l) r.word(l, v) = rows[v * wave_lanes + l];
  return r;
}

void copy_rows(const wave& w, uint16_t reg, unsigned vgprs, std::vector<uint32_t>& out) {
  out.resize(std::size_t(vgprs) * wave_lanes);
  for (unsigned v = 0; v < vgprs; ++v)
    for (unsigned l = 0; l < wave_lanes; ++l) out[v * wave_lanes + l] = w.v[reg + v][l];
}

// An element as rocJITsu's extract_* give it to the accumulation (lib/util/include/util/data_types.h: f16_to_f32,
// bf16_to_f32, fp8_e4m3_ocp_to_f32, bf8_e5m2_ocp_to_f32): every number its exact value; a binary16 NaN keeps its
// payload, shifted, unquieted; a bf16 NaN is its bits << 16; an fp8/bf8 NaN is the quiet NaN 0x7fc00000 with its sign.
float value(isa::elem e, uint32_t code) {
  switch (e) {
    case isa::elem::f16:
      if ((code & 0x7c00u) == 0x7c00u && (code & 0x3ffu))
        return std::bit_cast<float>(((code & 0x8000u) << 16) | 0x7f800000u | ((code & 0x3ffu) << 13));
      break;
    case isa::elem::bf16: return std::bit_cast<float>((code & 0xffffu) << 16);
    case isa::elem::fp8:
    case isa::elem::bf8:
      if (std::isnan(isa::element_value(e, code))) return std::bit_cast<float>(((code & 0x80u) << 24) | 0x7fc00000u);
      break;
    default: break;
  }
  return float(isa::element_value(e, code));
}

// One step acc + x*y of rocJITsu's accumulation as its x86-64 build executes it: the products of these formats are
// exact in binary32, so the value is one rounding of acc + x*y; a NaN operand comes out quieted, and which one is the
// host's choice: SSE's multiply and add return their first source operand's NaN, and the compiled code multiplies
// y*x and then adds the accumulator on gfx12's SIMD path (mma_exec.h: wmma_simd_matmul, c = fma(a, b, c) on a
// target without FMA), but adds acc + (x*y) on gfx11's scalar path (exec_gfx11_wmma_f32_mixed: acc += a * b). An
// invalid operation (inf * 0, inf - inf) gives x86's default NaN 0xffc00000. (The NaN order was read from the
// corpus: of the six orders, this pair alone reproduces every NaN of the classes it explains.)
float step(float acc, float x, float y, bool gfx11) {
  const auto quiet = [](float v) { return std::bit_cast<float>(std::bit_cast<uint32_t>(v) | 0x00400000u); };
  const float first[3] = {gfx11 ? acc : y, x, gfx11 ? y : acc};
  for (const float v : first)
    if (std::isnan(v)) return quiet(v);
  const float r = std::fma(x, y, acc);
  return std::isnan(r) ? std::bit_cast<float>(0xffc00000u) : r;
}

}  // namespace

std::optional<reading> parse(std::string_view n) {
  for (const auto& [r, s] : names)
    if (s == n) return r;
  return std::nullopt;
}
std::string_view name(reading r) {
  for (const auto& [x, s] : names)
    if (x == r) return s;
  return "?";
}
std::vector<std::string_view> all_names() {
  std::vector<std::string_view> out;
  for (const auto& [r, s] : names) out.push_back(s);
  return out;
}

plugin::plugin(std::vector<reading> readings) : readings_(std::move(readings)), replaced_(readings_.size(), 0) {}

// vm/amdgpu/command_processor.cpp: the workitem IDs are packed into v0 only where the command processor's packed_tid
// is set, which config/config_loader.cpp sets for CDNA3, CDNA4 and gfx1250 alone; for RDNA3 and RDNA4 it writes X to
// v0, Y to v1 and Z to v2 (as many as ENABLE_VGPR_WORKITEM_ID says; the wave's VGPRs were zeroed at allocation).
// This simulator packed the enabled components into v0 (initial_state.cpp), so they are read back from there.
void plugin::wave_start(wave& w) {
  for (unsigned r = 0; r < readings_.size(); ++r) {
    if (readings_[r] != reading::unpacked_workitem_id) continue;
    bool changed = false;
    for (unsigned l = 0; l < wave_lanes; ++l) {
      const uint32_t packed = w.v[0][l];
      w.v[0][l] = packed & 0x3ffu;
      w.v[1][l] = (packed >> 10) & 0x3ffu;
      w.v[2][l] = (packed >> 20) & 0x3ffu;
      changed |= (packed >> 10) != 0;
    }
    if (changed) ++replaced_[r];
  }
}

void plugin::take_sources(wave& w, const op& o, std::string_view mnemonic) {
  if (o.clamp || o.omod) fail(w, o, "rocjitsu reading: clamp/omod on " + std::string(mnemonic) + " is not modelled");
  valu_unit u{&o, mnemonic, std::vector<uint32_t>(3 * wave_lanes, 0u)};
  for (unsigned i = 0; i < o.nsrc && i < 3; ++i) {
    const lane_ref x = read(w, o.src[i]);
    for (unsigned l = 0; l < wave_lanes; ++l) u.src[3 * l + i] = mod32(x[l], o.src[i].mods);
  }
  units_.push_back(std::move(u));
}

plugin::kind plugin::classify(const wave& w, const op& o, unsigned& which) const {
  const std::string_view m = base_mnemonic(w, o);
  for (unsigned r = 0; r < readings_.size(); ++r) {
    which = r;
    switch (readings_[r]) {
      case reading::salu_float_scc:
        for (std::string_view s : {"s_ceil_f32", "s_floor_f32", "s_trunc_f32", "s_rndne_f32", "s_ceil_f16",
                                   "s_floor_f16", "s_trunc_f16", "s_rndne_f16"})
          if (m == s) return kind::salu_float;
        break;
      case reading::salu_bitscan_scc:
        for (std::string_view s : {"s_ctz_i32_b32", "s_ctz_i32_b64", "s_clz_i32_u32", "s_clz_i32_u64", "s_cls_i32",
                                   "s_cls_i32_i64"})
          if (m == s) return kind::salu_bitscan;
        break;
      case reading::wrexec_keeps_dest:
        for (std::string_view s : {"s_and_not1_wrexec_b32", "s_and_not1_wrexec_b64", "s_and_not0_wrexec_b32",
                                   "s_and_not0_wrexec_b64"})
          if (m == s) return kind::wrexec;
        break;
      case reading::host_fminmax: {
        if (m == "s_min_num_f32" || m == "s_max_num_f32") return kind::salu_fminmax;
        if (!fminmax_steps(m).empty()) return kind::valu_fminmax;
        if (o.exec == exec_vopd && (!fminmax_steps(base_mnemonic(w, w.prog->vopd_halves[o.vopd_x])).empty() ||
                                    !fminmax_steps(base_mnemonic(w, w.prog->vopd_halves[o.vopd_y])).empty()))
          return kind::valu_fminmax;
        break;
      }
      case reading::bcnt_drops_s1:
        if (m == "v_bcnt_u32_b32") return kind::bcnt;
        break;
      case reading::div_helpers_frexp:
        if (m == "v_div_scale_f32") return kind::div_scale;
        if (m == "v_div_fmas_f32") return kind::div_fmas;
        if (m == "v_div_fixup_f32") return kind::div_fixup;
        break;
      case reading::f16_host_narrowing:
        if (m == "v_cvt_f16_f32") return kind::cvt_f16;
        if (m == "v_pk_mul_f16" || m == "v_pk_add_f16") return kind::pk_f16;
        break;
      case reading::perm_selectors:
        if (m == "v_perm_b32") return kind::perm;
        break;
      case reading::host_transcendentals:
        for (std::string_view t : {"v_exp_f32", "v_rcp_f32", "v_rcp_iflag_f32", "v_rsq_f32", "v_sqrt_f32", "v_log_f32",
                                   "v_s_exp_f32", "v_s_rcp_f32", "v_s_rsq_f32", "v_s_sqrt_f32", "v_s_log_f32"})
          if (m == t) return kind::transcendental;
        break;
      case reading::fma_f64_nan_order:
        if (m == "v_fma_f64") return kind::fma_f64;
        break;
      case reading::unpacked_workitem_id:  // wave_start, not an instruction
        break;
      case reading::fma_mix_unfused:
        if (m == "v_fma_mix_f32" || m == "v_fma_mixlo_f16" || m == "v_fma_mixhi_f16") return kind::fma_mix;
        break;
      case reading::mma_f32_sequential:
        if ((starts_with(m, "v_wmma_") || starts_with(m, "v_swmmac_")) &&
            isa::info(isa::instr(o.matrix)).d == isa::elem::f32)
          return kind::matrix;
        break;
      case reading::iu4_swmmac_layout:
        if ((starts_with(m, "v_wmma_") || starts_with(m, "v_swmmac_")) &&
            (isa::instr(o.matrix) == isa::instr::swmmac_i32_16x16x32_iu4 ||
             isa::instr(o.matrix) == isa::instr::swmmac_i32_16x16x64_iu4))
          return kind::matrix;
        break;
    }
  }
  return kind::none;
}

void plugin::before_instruction(wave& w, const op& o) {
  pending_ = classify(w, o, pending_reading_);
  if (pending_ == kind::wrexec) {
    const uint16_t reg = o.dst[0].reg;  // a null destination is sreg::null_sink already (decoder.cpp)
    kept_[0] = w.s[reg];
    kept_[1] = reg == sreg::null_sink ? 0 : w.s[reg + 1];
    kept_scc_ = w.scc();
  } else if (pending_ == kind::salu_fminmax) {
    for (unsigned i = 0; i < 2; ++i) salu_src_[i] = read(w, o.src[i])[0];
  } else if (pending_ == kind::cvt_f16) {
    if (o.clamp || o.omod || o.op_sel) fail(w, o, "rocjitsu reading: clamp/omod/op_sel on v_cvt_f16_f32 is not modelled");
    src_.resize(wave_lanes);
    const lane_ref s = read(w, o.src[0]);
    for (unsigned l = 0; l < wave_lanes; ++l) src_[l] = mod32(s[l], o.src[0].mods);
  } else if (pending_ == kind::valu_fminmax || pending_ == kind::bcnt || pending_ == kind::perm ||
             pending_ == kind::div_scale || pending_ == kind::div_fmas || pending_ == kind::div_fixup ||
             pending_ == kind::pk_f16) {
    units_.clear();
    if (pending_ == kind::div_scale) vcc_before_ = w.s[sreg::vcc_lo];
    if (o.exec == exec_vopd) {
      // A VOPD pair reads all its sources before either half writes (dispatcher.cpp: exec_vopd), so both are taken
      // now: the halves that are min/max.
      for (const uint32_t h : {o.vopd_x, o.vopd_y}) {
        const op& half = w.prog->vopd_halves[h];
        if (!fminmax_steps(base_mnemonic(w, half)).empty()) take_sources(w, half, base_mnemonic(w, half));
      }
    } else if (pending_ == kind::pk_f16) {
      // The packed sources as they are (their neg_lo/neg_hi act on each half's value; clamp is the reading's to drop).
      valu_unit u{&o, base_mnemonic(w, o), std::vector<uint32_t>(3 * wave_lanes, 0u)};
      for (unsigned i = 0; i < 2; ++i) {
        const lane_ref x = read(w, o.src[i]);
        for (unsigned l = 0; l < wave_lanes; ++l) u.src[3 * l + i] = x[l];
      }
      units_.push_back(std::move(u));
    } else {
      take_sources(w, o, base_mnemonic(w, o));
    }
  } else if (pending_ == kind::transcendental) {
    if (o.clamp || o.omod) fail(w, o, "rocjitsu reading: clamp/omod on a transcendental is not modelled");
    src_.resize(wave_lanes);
    const lane_ref s = read(w, o.src[0]);
    for (unsigned l = 0; l < wave_lanes; ++l) src_[l] = mod32(s[l], o.src[0].mods);
  } else if (pending_ == kind::fma_f64) {
    if (o.clamp || o.omod) fail(w, o, "rocjitsu reading: clamp/omod on v_fma_f64 is not modelled");
    src64_.resize(3 * wave_lanes);
    for (unsigned s = 0; s < 3; ++s)
      for (unsigned l = 0; l < wave_lanes; ++l) src64_[3 * l + s] = mod64(read64(w, o.src[s], l), o.src[s].mods);
  } else if (pending_ == kind::fma_mix) {
    // The sources as this simulator widens them (wave.h, mix_source; rocJITsu's read_mix_src in
    // execute_v_fma_mix_f32_vop3p reads them alike: op_sel_hi picks binary16, op_sel its half, neg/abs on the value).
    mix_.resize(3 * wave_lanes);
    for (unsigned i = 0; i < 3; ++i) {
      const lane_ref x = read(w, o.src[i]);
      for (unsigned l = 0; l < wave_lanes; ++l) mix_[3 * l + i] = mix_source(o, i, x[l]);
    }
  } else if (pending_ == kind::matrix) {
    const auto in = isa::instr(o.matrix);
    const auto& f = isa::info(in);
    copy_rows(w, o.src[0].reg, f.a_vgprs, a_);
    copy_rows(w, o.src[1].reg, f.b_vgprs, b_);
    if (!f.sparse && o.src[2].kind == opnd::konst) {
      if (o.src[2].k != 0) fail(w, o, "rocjitsu reading: an inline-constant C other than 0");
      c_.assign(std::size_t(f.d_vgprs) * wave_lanes, 0u);
    } else {
      copy_rows(w, f.sparse ? o.dst[0].reg : o.src[2].reg, f.d_vgprs, c_);
    }
    if (f.sparse) copy_rows(w, o.src[2].reg, 1, index_);
    else index_.assign(wave_lanes, 0u);
  }
}

void plugin::after_instruction(wave& w, const op& o) {
  const kind k = pending_;
  pending_ = kind::none;
  if (k == kind::none) return;
  ++replaced_[pending_reading_];
  if (k == kind::salu_float) {
    // isa/arch/amdgpu/shared/execute_shared.h: execute_s_{ceil,floor,trunc,rndne}_{f32,f16}_sop1 end with
    // wf.write_scc(result != 0), the result compared as a float (so -0 gives 0 and a NaN 1).
    const uint16_t reg = o.dst[0].reg;  // a null destination is sreg::null_sink already (decoder.cpp)
    const std::string_view m = base_mnemonic(w, o);
    const uint32_t bits = w.s[reg];
    const bool f16 = m.substr(m.size() - 3) == "f16";
    w.set_scc(((f16 ? bits & 0x7fffu : bits & 0x7fffffffu)) != 0);
    return;
  }
  if (k == kind::salu_bitscan) {
    // isa/arch/amdgpu/shared/execute_shared.h: execute_s_{ctz_i32_b32,ctz_i32_b64,clz_i32_u32,clz_i32_u64,cls_i32,
    // cls_i32_i64}_sop1 end with wf.write_scc(result != 0), the 32-bit result as an integer (-1, none found, gives 1).
    const uint16_t reg = o.dst[0].reg;  // a null destination is sreg::null_sink already (decoder.cpp)
    w.set_scc(w.s[reg] != 0);
    return;
  }
  if (k == kind::wrexec) {
    // isa/arch/amdgpu/shared/execute_shared.h: execute_s_and_not1_wrexec_b32_sop1 (and _b64, and_not0) only
    // wf.set_exec(...): no sdst write, no SCC write.
    const uint16_t reg = o.dst[0].reg;  // a null destination is sreg::null_sink already (decoder.cpp)
    w.s[reg] = kept_[0];
    if (base_mnemonic(w, o).ends_with("b64") && reg != sreg::null_sink) w.s[reg + 1] = kept_[1];
    w.set_scc(kept_scc_);
    return;
  }
  if (k == kind::salu_fminmax) {
    // isa/arch/amdgpu/shared/execute_shared.h: execute_s_{min,max}_num_f32_sop2 are std::fmin / std::fmax of
    // ssrc0 (x), ssrc1 (y). (The host library's fminf picks by sign; the compiled code is what rocJITsu's bytes show.)
    const float x = std::bit_cast<float>(salu_src_[0]), y = std::bit_cast<float>(salu_src_[1]);
    const bool min = base_mnemonic(w, o) == "s_min_num_f32";
    const uint16_t reg = o.dst[0].reg;  // a null destination is sreg::null_sink already (decoder.cpp)
    w.s[reg] = std::bit_cast<uint32_t>(min ? host_fmin(x, y) : host_fmax(x, y));
    return;
  }
  if (k == kind::valu_fminmax || k == kind::bcnt || k == kind::perm) {
    for (const valu_unit& u : units_) {
      uint32_t* d = vdst(w, u.o->dst[0]);
      const std::vector<bool> steps = fminmax_steps(u.mnemonic);
      for (unsigned l = 0; l < wave_lanes; ++l) {
        if (!w.lane_on(l)) continue;
        const uint32_t* s = &u.src[3 * l];
        if (k == kind::bcnt) {
          // execute_shared.h: execute_v_bcnt_u32_b32_vop3 writes std::popcount(src0) (its SIMD twin
          // util::popcount_u32_simd alike): src1 is never read.
          d[l] = uint32_t(std::popcount(s[0]));
        } else if (k == kind::perm) {
          // execute_shared.h: execute_v_perm_b32_vop3 (and util::perm_b32_simd): selector byte sel of {S0, S1} for
          // sel < 8, 0xff for 0x0d, 0x00 for every other value.
          const uint64_t bytes = uint64_t(s[0]) << 32 | s[1];
          uint32_t r = 0;
          for (unsigned i = 0; i < 4; ++i) {
            const unsigned sel = (s[2] >> (8 * i)) & 0xffu;
            const uint32_t byte = sel < 8 ? uint32_t(bytes >> (8 * sel)) & 0xffu : sel == 0x0d ? 0xffu : 0u;
            r |= byte << (8 * i);
          }
          d[l] = r;
        } else {
          // execute_shared.h: execute_v_{min,max}{,3}{,_num}_f32 and v_{minmax,maxmin}{,_num}_f32 (VOP2 and VOP3),
          // and the VOPD halves (rdna3/vopd.cpp, rdna4/vopd.cpp: std::fmax / std::fmin of src0, src1): the steps of
          // fminmax_steps on S0, S1, then S2.
          float r = std::bit_cast<float>(s[0]);
          for (unsigned i = 0; i < steps.size(); ++i) {
            const float y = std::bit_cast<float>(s[i + 1]);
            r = steps[i] ? host_fmax(r, y) : host_fmin(r, y);
          }
          d[l] = std::bit_cast<uint32_t>(r);
        }
      }
    }
    return;
  }
  if (k == kind::transcendental) {
    const std::string_view m = base_mnemonic(w, o);
    const std::string_view f = m.substr(starts_with(m, "v_s_") ? 4 : 2);  // "exp_f32", "rcp_iflag_f32", ...
    const auto fn = [&](float x) {
      if (f == "exp_f32") return rocjitsu_exp(x);
      if (f == "rsq_f32") return rocjitsu_rsq(x);
      if (f == "sqrt_f32") return rocjitsu_sqrt(x);
      if (f == "log_f32") return rocjitsu_log(x);
      return rocjitsu_rcp(x);
    };
    if (starts_with(m, "v_s_")) {
      // gfx12's scalar-destination forms (execute_v_s_{exp,rcp,rsq,sqrt,log}_f32_vop3): the same functions of the
      // scalar source, written to the SGPR when any lane is on.
      if (w.exec() != 0 && o.dst[0].reg != sreg::null)
        w.s[o.dst[0].reg] = std::bit_cast<uint32_t>(fn(std::bit_cast<float>(src_[0])));
      return;
    }
    uint32_t* d = vdst(w, o.dst[0]);
    for (unsigned l = 0; l < wave_lanes; ++l)
      if (w.lane_on(l)) d[l] = std::bit_cast<uint32_t>(fn(std::bit_cast<float>(src_[l])));
    return;
  }
  if (k == kind::cvt_f16) {
    // execute_shared.h: execute_v_cvt_f16_f32_vop1/_vop3 write f32_to_f16_simd(S0) to D's low half.
    uint32_t* d = vdst(w, o.dst[0]);
    for (unsigned l = 0; l < wave_lanes; ++l)
      if (w.lane_on(l)) d[l] = (d[l] & 0xffff0000u) | rocjitsu_f16(std::bit_cast<float>(src_[l]));
    return;
  }
  if (k == kind::pk_f16) {
    // execute_shared.h: execute_v_pk_{mul,add}_f16_vop3p (simd_glue.h's packed-f16 path alike): each half widened
    // (f16_to_f32), neg_lo/neg_hi applied to the value, multiplied or added in binary32, narrowed (f32_to_f16); clamp
    // is not applied (simd_glue.h says so).
    const valu_unit& u = units_.front();
    const bool mul = u.mnemonic == "v_pk_mul_f16";
    uint32_t* d = vdst(w, o.dst[0]);
    for (unsigned l = 0; l < wave_lanes; ++l) {
      if (!w.lane_on(l)) continue;
      const auto half = [&](unsigned src, uint8_t sel, uint8_t neg) {
        const uint32_t x = u.src[3 * l + src];
        const float v = rocjitsu_f32(uint16_t((sel >> src) & 1u ? x >> 16 : x));
        return (neg >> src) & 1u ? -v : v;
      };
      const auto op = [&](float a, float b) {
        return rocjitsu_f16(mul ? host_op(a, b, std::multiplies<float>()) : host_op(a, b, std::plus<float>()));
      };
      const uint32_t lo = op(half(0, o.op_sel, o.neg_lo), half(1, o.op_sel, o.neg_lo));
      const uint32_t hi = op(half(0, o.op_sel_hi, o.neg_hi), half(1, o.op_sel_hi, o.neg_hi));
      d[l] = lo | hi << 16;
    }
    return;
  }
  if (k == kind::div_scale || k == kind::div_fmas || k == kind::div_fixup) {
    const valu_unit& u = units_.front();
    uint32_t* d = vdst(w, o.dst[0]);
    if (k == kind::div_scale) {
      // execute_shared.h: execute_v_div_scale_f32_vop3. Its VCC starts from wf.vcc() and is written to sdst whole.
      uint32_t vcc = vcc_before_;
      for (unsigned l = 0; l < wave_lanes; ++l) {
        if (!w.lane_on(l)) continue;
        const float s0 = std::bit_cast<float>(u.src[3 * l]), s1 = std::bit_cast<float>(u.src[3 * l + 1]),
                    s2 = std::bit_cast<float>(u.src[3 * l + 2]);
        float r = s0;
        bool set = false;
        if (s2 != 0.0f && s1 != 0.0f) {
          int e1 = 0, e2 = 0;
          std::frexp(s1, &e1);  // the host's frexp: an infinity's or a NaN's exponent is 0 (glibc)
          std::frexp(s2, &e2);
          const bool rcp_denormal = std::fpclassify(1.0 / double(s1)) == FP_SUBNORMAL;  // never, for a binary32 S1
          const bool q_denormal = std::fpclassify(s2 / s1) == FP_SUBNORMAL;
          if (e2 - e1 >= 96) {
            set = true;
            if (s0 == s1) r = std::ldexp(s0, 64);
          } else if (std::fpclassify(s1) == FP_SUBNORMAL) {
            r = std::ldexp(s0, 64);
          } else if (rcp_denormal && q_denormal) {
            set = true;
            if (s0 == s1) r = std::ldexp(s0, 64);
          } else if (rcp_denormal) {
            r = std::ldexp(s0, -64);
          } else if (q_denormal) {
            set = true;
            if (s0 == s2) r = std::ldexp(s0, 64);
          } else if (e2 <= -23) {
            r = std::ldexp(s0, 64);
          }
        }
        vcc = set ? vcc | (1u << l) : vcc & ~(1u << l);
        d[l] = std::bit_cast<uint32_t>(r);
      }
      if (o.dst[1].reg != sreg::null_sink) w.s[o.dst[1].reg] = vcc;
      return;
    }
    const uint32_t vcc = w.s[sreg::vcc_lo];
    for (unsigned l = 0; l < wave_lanes; ++l) {
      if (!w.lane_on(l)) continue;
      const float a = std::bit_cast<float>(u.src[3 * l]), b = std::bit_cast<float>(u.src[3 * l + 1]),
                  c = std::bit_cast<float>(u.src[3 * l + 2]);
      float r;
      if (k == kind::div_fmas) {
        // execute_v_div_fmas_f32_vop3: std::fma, then times 2^32 where the lane's VCC bit is set.
        r = std::fma(a, b, c);
        if ((vcc >> l) & 1u) r = std::ldexp(r, 32);
      } else {
        // execute_v_div_fixup_f32_vop3 (div_fixup_f32_simd alike), p = a, b the denominator, c the numerator.
        const float sign = std::bit_cast<float>(std::bit_cast<uint32_t>(b) ^ std::bit_cast<uint32_t>(c));
        const float inf = std::numeric_limits<float>::infinity();
        if (std::isnan(c)) r = c;
        else if (std::isnan(b)) r = b;
        else if ((c == 0.0f && b == 0.0f) || (std::isinf(c) && std::isinf(b))) r = std::bit_cast<float>(0x7fc00000u);
        else if (b == 0.0f || std::isinf(c)) r = std::copysign(inf, sign);
        else if (c == 0.0f || std::isinf(b)) r = std::copysign(0.0f, sign);
        else r = a;
      }
      d[l] = std::bit_cast<uint32_t>(r);
    }
    return;
  }
  if (k == kind::fma_f64) {
    // isa/arch/amdgpu/shared/execute_shared.h: execute_v_fma_f64_vop3 runs util::stdx::fma on native<double>; on
    // this build (x86-64 without FMA) the library's fallback, whose NaN is S1's, else S0's, else S2's.
    for (unsigned l = 0; l < wave_lanes; ++l) {
      if (!w.lane_on(l)) continue;
      for (const unsigned s : {1u, 0u, 2u}) {
        const uint64_t x = src64_[3 * l + s];
        if ((x & 0x7fffffffffffffffull) > 0x7ff0000000000000ull) {
          const uint64_t q = x | 0x0008000000000000ull;
          w.v[o.dst[0].reg][l] = uint32_t(q);
          w.v[o.dst[0].reg + 1][l] = uint32_t(q >> 32);
          break;
        }
      }
    }
    return;
  }
  if (k == kind::fma_mix) {
    // isa/arch/amdgpu/shared/execute_shared.h: execute_v_fma_mix_f32_vop3p computes `a * b + c` as two binary32
    // operations, and its SIMD path (simd_glue.h, try_execute_vop3p_fma_mix_simd) keeps them separate on purpose
    // ("bit-exact with separate multiply/add"); the mixlo/mixhi forms then round that to binary16.
    const std::string_view m = base_mnemonic(w, o);
    uint32_t* d = vdst(w, o.dst[0]);
    for (unsigned l = 0; l < wave_lanes; ++l) {
      if (!w.lane_on(l)) continue;
      // Two roundings, and a NaN operand gives the first NaN operand quieted (as the host's SSE code computes it).
      const float prod = host_op(mix_[3 * l], mix_[3 * l + 1], std::multiplies<float>());
      float r = host_op(prod, mix_[3 * l + 2], std::plus<float>());
      if (o.clamp) r = std::clamp(r, 0.0f, 1.0f);  // as rocJITsu's: a NaN stays NaN
      if (m == "v_fma_mix_f32") d[l] = std::bit_cast<uint32_t>(r);
      else {
        const uint32_t h = rocjitsu_f16(r);  // data_types.h f32_to_f16
        d[l] = m == "v_fma_mixlo_f16" ? (d[l] & 0xffff0000u) | h : (d[l] & 0xffffu) | h << 16;
      }
    }
    return;
  }
  const auto in = isa::instr(o.matrix);
  const auto& f = isa::info(in);
  isa::modifiers m;
  if (isa::is_integer(f.a)) {
    m.a_signed = o.neg_lo & 1u;
    m.b_signed = o.neg_lo & 2u;
    m.clamp = o.clamp;
  }
  m.index_key = o.index_key;
  m.d_half = (o.op_sel >> 2) & 1u;
  const isa::wave_regs a = to_regs(a_, f.a_vgprs), b = to_regs(b_, f.b_vgprs), c = to_regs(c_, f.d_vgprs),
                       index = to_regs(index_, 1);
  isa::wave_regs d;
  if (readings_[pending_reading_] == reading::iu4_swmmac_layout) {
    // The operands rocJITsu reads, moved to where AMD's layout tables (reference/isa) hold them; the model then
    // computes what rocJITsu computes. A: element ck = 2g + s of row i among K/2 stored values; B: element k of
    // column j among K.
    isa::wave_regs a2 = a, b2 = b;
    for (unsigned i = 0; i < f.m; ++i)
      for (unsigned g = 0; g < f.k / 4; ++g)
        for (unsigned s = 0; s < 2; ++s)
          a2.set(isa::a_slot_loc(in, i, g, s), a.get(rocjitsu_input_loc(i, f.k / 2, 2 * g + s, 4)));
    for (unsigned kk = 0; kk < f.k; ++kk)
      for (unsigned j = 0; j < f.n; ++j) b2.set(isa::b_locs(in, kk, j)[0], b.get(rocjitsu_input_loc(j, f.k, kk, 4)));
    d = isa::execute(in, a2, b2, c, index, m);
  } else {
    // mma_exec.h: the gfx12 f32 WMMA/SWMMAC forms (exec_wmma_f32_mixed, exec_swmmac_f32_mixed) run their SIMD path
    // on this build (wmma_simd_matmul: c = fma(a, b, c) over K ascending; a SWMMAC row's stored values in order,
    // each with the B row its index names); gfx11's (exec_gfx11_wmma_f32_mixed) run acc += a * b over K ascending,
    // reading A and B from the copy in lanes 16 * (D lane / 16). The products of f16/bf16/fp8/bf8 are exact in
    // binary32, so both are one rounding per step; fma and multiply-then-add differ only in which NaN they return.
    const bool gfx11 = f.target == isa::arch::gfx11;
    isa::code_matrix dm(f.m, f.n);
    const isa::code_matrix cm = isa::read_d(in, c, m.d_half);
    const isa::sparse_a sa = f.sparse ? isa::read_sparse_a(in, a, index, m.index_key) : isa::sparse_a{};
    for (unsigned i = 0; i < f.m; ++i)
      for (unsigned j = 0; j < f.n; ++j) {
        float acc = std::bit_cast<float>(cm(i, j));
        const unsigned copy = gfx11 ? isa::d_loc(in, i, j).lane / 16 : 0;
        if (f.sparse) {
          for (unsigned g = 0; g < f.k / 4; ++g)
            for (unsigned s = 0; s < 2; ++s) {
              const unsigned kk = 4 * g + (sa.field(i, g, s) & 3u);
              acc = step(acc, value(f.a, sa.value(i, g, s)), value(f.b, b.get(isa::b_locs(in, kk, j)[0])), gfx11);
            }
        } else if (gfx11) {
          for (unsigned kk = 0; kk < f.k; ++kk) {
            const auto al = isa::a_locs(in, i, kk), bl = isa::b_locs(in, kk, j);
            acc = step(acc, value(f.a, a.get(al[copy])), value(f.b, b.get(bl[copy])), gfx11);
          }
        } else {
          // gfx12 dense: rocJITsu's K order is its own placement's (rocjitsu_input_loc), the same for A and B, so
          // each product pairs the right elements but the sum runs in another order than AMD's K: for the K = 16
          // binary16 forms 0-3, 8-11, 4-7, 12-15 in AMD's numbering.
          for (unsigned kk = 0; kk < f.k; ++kk)
            acc = step(acc, value(f.a, a.get(rocjitsu_input_loc(i, f.k, kk, isa::bits_of(f.a)))),
                       value(f.b, b.get(rocjitsu_input_loc(j, f.k, kk, isa::bits_of(f.b)))), gfx11);
        }
        dm(i, j) = std::bit_cast<uint32_t>(acc);
      }
    d = c;
    isa::place_d(in, dm, d, m.d_half);
  }
  for (unsigned v = 0; v < f.d_vgprs; ++v)
    for (unsigned l = 0; l < wave_lanes; ++l) w.v[o.dst[0].reg + v][l] = d.word(l, v);
}

// ---- the s102/s103 witness ---------------------------------------------------------------------------------------

namespace {
// Whether the operand is a scalar register range that holds s102 or s103.
bool names_102_103(const operand& x) {
  return x.kind == opnd::sgpr && x.reg <= 103 && x.reg + x.dwords > 102;
}
}  // namespace

void sgpr_102_103_witness::after_instruction(wave& w, const op& o) {
  for (unsigned d = 0; d < o.ndst; ++d)
    if (names_102_103(o.dst[d]) && !marked(w)) marked_.push_back(&w);
}

void sgpr_102_103_witness::before_instruction(wave& w, const op& o) {
  const std::string_view m = base_mnemonic(w, o);
  if ((m == "s_setpc_b64" || m == "s_swappc_b64") && o.nsrc > 0 && names_102_103(o.src[0])) note(w, o);
}

void sgpr_102_103_witness::memory(const wave& w, const op& o, const memory_access& a) {
  if (a.space == memory_space::scratch && marked(w)) note(w, o);
}

namespace {
// Whether o, or either half of a VOPD pair, has a source (dst: a destination) register range that holds v0.
bool touches_v0(const wave& w, const op& o, bool dst) {
  if (o.exec == exec_vopd)
    return touches_v0(w, w.prog->vopd_halves[o.vopd_x], dst) || touches_v0(w, w.prog->vopd_halves[o.vopd_y], dst);
  const unsigned n = dst ? o.ndst : o.nsrc;
  for (unsigned i = 0; i < n; ++i) {
    const operand& x = dst ? o.dst[i] : o.src[i];
    if (x.kind == opnd::vgpr && x.reg == 0) return true;
  }
  return false;
}
bool ds_noreturn_atomic(std::string_view m) {
  if (!starts_with(m, "ds_") || m.find("_rtn") != std::string_view::npos) return false;
  for (std::string_view a : {"ds_add_", "ds_sub_", "ds_rsub_", "ds_inc_", "ds_dec_", "ds_min_", "ds_max_", "ds_and_",
                             "ds_or_", "ds_xor_", "ds_cmpstore_", "ds_cond_sub_", "ds_pk_add_"})
    if (starts_with(m, a)) return true;
  return false;
}
}  // namespace

void ds_noreturn_v0_witness::before_instruction(wave& w, const op& o) {
  if (marked(w) && touches_v0(w, o, false)) note(w, o);
}

void ds_noreturn_v0_witness::after_instruction(wave& w, const op& o) {
  if (ds_noreturn_atomic(base_mnemonic(w, o)) && w.exec() != 0) {
    if (!marked(w)) marked_.push_back(&w);
  } else if (marked(w) && touches_v0(w, o, true)) {
    std::erase(marked_, &w);  // v0 written again: what the kernel reads from it now is its own
  }
}

// A new wave starts unmarked (its object may be one a finished wave left).
void witness::wave_start(wave& w) { std::erase(marked_, &w); }

bool witness::marked(const wave& w) const { return std::find(marked_.begin(), marked_.end(), &w) != marked_.end(); }

void witness::note(const wave& w, const op& o) {
  if (affected_++ == 0) {
    char pc[24];
    std::snprintf(pc, sizeof pc, "0x%x", o.pc);
    first_ = std::string(w.prog->mnemonics[o.mnemonic]) + " at .text+" + pc;
  }
}

namespace {
template <class W>
std::unique_ptr<witness> make() { return std::make_unique<W>(); }
constexpr std::array<std::pair<std::string_view, std::unique_ptr<witness> (*)()>, 2> witnesses = {{
    {"sgpr-102-103", make<sgpr_102_103_witness>},
    {"ds-noreturn-v0", make<ds_noreturn_v0_witness>},
}};
}  // namespace

std::unique_ptr<witness> make_witness(std::string_view name) {
  for (const auto& [n, f] : witnesses)
    if (n == name) return f();
  return nullptr;
}
std::vector<std::string_view> witness_names() {
  std::vector<std::string_view> out;
  for (const auto& [n, f] : witnesses) out.push_back(n);
  return out;
}

}  // namespace tp::amdgpu_sim::rocjitsu_readings
