// The state one wave32 executes against (its register files, PC, private memory) and the workgroup it shares (LDS,
// the barrier, global memory), plus the helpers every semantic handler uses to read operands lane by lane.
#pragma once

#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <vector>

#include "simt/amdgpu_sim/machine.h"
#include "simt/amdgpu_sim/machine/plugin.h"
#include "simt/amdgpu_sim/machine/program.h"

namespace tp::amdgpu_sim::machine {

inline constexpr unsigned wave_lanes = 32;

// Bit l of an EXEC-style lane mask, per lane: `mask & lane_bits[l]` over a row is a loop the host vectorizes (a
// per-lane shift `mask >> l` is not, before AVX2).
inline constexpr auto lane_bits = [] {
  std::array<uint32_t, wave_lanes> b{};
  for (unsigned l = 0; l < wave_lanes; ++l) b[l] = 1u << l;
  return b;
}();

// Flat-address apertures (RDNA3 §11.2 "Addressing": an address whose high 32 bits equal src_shared_base /
// src_private_base goes to LDS / scratch). The values are ours; the compiled code reads them from src_shared_base /
// src_private_base and never hard-codes them. They sit far above any address the runtime hands out.
inline constexpr uint32_t shared_aperture_hi = 0x00010000u;
inline constexpr uint32_t private_aperture_hi = 0x00020000u;

struct workgroup;

struct wave {
  // VGPRs register-major: v[r][lane], so a wave-wide operation over one register is a contiguous 32-word loop.
  alignas(64) uint32_t v[vgpr_file_rows][wave_lanes];
  uint32_t s[sreg::file_size];
  uint32_t pc = 0;  // op index
  enum class run_state : uint8_t { ready, at_barrier, done } state = run_state::ready;
  unsigned id = 0;  // wave index in its workgroup
  workgroup* wg = nullptr;
  const program* prog = nullptr;
  uint64_t executed = 0;         // instructions retired (the bench's wave-instruction count)
  bool yield = false;            // a handler asks the scheduler to pick again (barrier wait, end)
  uint32_t barrier_gen = 0;      // the workgroup's barrier generation when this wave last signalled
  std::vector<uint8_t> scratch;  // per-lane private memory: lane l owns [l*private_bytes, (l+1)*private_bytes)
  uint32_t private_bytes = 0;
  plugin_slots plugin_state{};   // one slot per attached plugin (plugin::slot()), for the state it keeps per wave

  uint32_t exec() const { return s[sreg::exec_lo]; }
  bool lane_on(unsigned l) const { return (s[sreg::exec_lo] >> l) & 1u; }
  void set_scc(bool b) { s[sreg::scc] = b ? 1u : 0u; }
  bool scc() const { return s[sreg::scc] != 0; }
};

struct workgroup {
  std::vector<uint8_t> lds;
  const std::string* kernel_name = nullptr;
  uint32_t linear_id = 0;   // x fastest
  unsigned waves = 0;
  unsigned live = 0;        // waves not yet at s_endpgm (ended waves leave the barrier, RDNA4 §5.6.1 "Barrier State")
  unsigned arrived = 0;     // waves that signalled the current barrier
  uint32_t generation = 0;  // barriers completed
  std::span<plugin* const> plugins;  // the dispatch's

  // The barrier completes: every live wave has signalled (or ended).
  void complete_barrier() {
    arrived = 0;
    ++generation;
    for (plugin* p : plugins) p->barrier_resolved(*this);
  }
  // Tells the plugins about the accesses an instruction is about to make (nothing to do without plugins).
  void observe(const wave& w, const op& o, const memory_access& a) const {
    for (plugin* p : plugins) p->memory(w, o, a);
  }
};

// Wave-wide operand access: the value of operand `o` (dword `dw` of its range) for lane l is p[l * stride]. A VGPR
// has stride 1, an SGPR or constant stride 0, so handlers loop over lanes without branching on the operand kind.
struct lane_ref {
  const uint32_t* p;
  uint32_t stride;
  uint32_t operator[](unsigned lane) const { return p[lane * stride]; }
};

inline lane_ref read(const wave& w, const operand& o, unsigned dw = 0) {
  switch (o.kind) {
    case opnd::vgpr: return {&w.v[o.reg + dw][0], 1};
    case opnd::sgpr: return {&w.s[o.reg + dw], 0};
    default: return {reinterpret_cast<const uint32_t*>(&o.k) + dw, 0};  // little-endian host: dw 0 is the low half
  }
}

inline uint64_t read64(const wave& w, const operand& o, unsigned lane) {
  return uint64_t(read(w, o, 0)[lane]) | (uint64_t(read(w, o, 1)[lane]) << 32);
}

inline uint32_t* vdst(wave& w, const operand& o, unsigned dw = 0) { return &w.v[o.reg + dw][0]; }

// Float source modifiers act on the sign bit (RDNA4 §7.2.2.1 "Input Operand Modifiers"): abs clears it, neg flips it
// after abs.
inline uint32_t mod32(uint32_t x, uint8_t m) {
  if (m & mod_abs) x &= 0x7fffffffu;
  if (m & mod_neg) x ^= 0x80000000u;
  return x;
}
inline uint64_t mod64(uint64_t x, uint8_t m) {
  if (m & mod_abs) x &= 0x7fffffffffffffffull;
  if (m & mod_neg) x ^= 0x8000000000000000ull;
  return x;
}
inline uint16_t mod16(uint16_t x, uint8_t m) {
  if (m & mod_abs) x &= 0x7fffu;
  if (m & mod_neg) x ^= 0x8000u;
  return x;
}

inline float f32(uint32_t b) { return std::bit_cast<float>(b); }
inline uint32_t bits(float f) { return std::bit_cast<uint32_t>(f); }
inline double f64(uint64_t b) { return std::bit_cast<double>(b); }
inline uint64_t bits(double d) { return std::bit_cast<uint64_t>(d); }

// IEEE 754-2019 maximumNumber / minimumNumber, gfx12's *_num_f32 (RDNA4 §16, V_MAX_NUM_F32 / V_MIN_NUM_F32 and their
// SALU, VOP3 and VOPD forms): a NaN operand yields the other one; two NaN operands give S0 quieted
// (cvtToQuietNAN(S0)); -0 < +0.
inline float quieted(float x) { return f32(bits(x) | 0x00400000u); }
inline float max_num(float a, float b) {
  if (std::isnan(a)) return std::isnan(b) ? quieted(a) : b;
  if (std::isnan(b)) return a;
  if (a == b) return std::signbit(a) ? b : a;
  return a > b ? a : b;
}
inline float min_num(float a, float b) {
  if (std::isnan(a)) return std::isnan(b) ? quieted(a) : b;
  if (std::isnan(b)) return a;
  if (a == b) return std::signbit(a) ? a : b;
  return a < b ? a : b;
}

// Source i of a v_fma_mix* (VOP3P mixed precision, RDNA3/RDNA4 §16.10), x its 32-bit register value, widened exactly
// to binary32: op_sel_hi bit i says binary16, op_sel bit i which half; neg/abs act on the value in its own format.
inline float mix_source(const op& o, unsigned i, uint32_t x) {
  if (!((o.op_sel_hi >> i) & 1u)) return f32(mod32(x, o.src[i].mods));
  return float(std::bit_cast<_Float16>(mod16(uint16_t((o.op_sel >> i) & 1u ? x >> 16 : x), o.src[i].mods)));
}

// Stops the dispatch with the kernel, the PC and the instruction text: nothing the machine cannot model is skipped.
[[noreturn]] void fail(const wave& w, const op& o, const std::string& what);

}  // namespace tp::amdgpu_sim::machine
