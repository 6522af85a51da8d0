// Host-side interface of the software matrix ops (kernels/mma/soft.cuh), one table per backend: every op variant
// tests/isa covers (each instruction, both index_key halves, signedness/clamp combinations, gfx11, gfx9 wave64 with
// each ABID) with a batched launcher. wave_op_table.cu compiles once as C++ for the CPU emulator and once with nvcc,
// and each object registers its table in simt/registry.h as family "mma", variant "soft":
//
//   const auto* t = tp::find_variant<tp::mma::wave_op_table>("mma", "soft", tp::backend::cuda);  // null: not built
//
// Plain host types only. Instructions are named by string (reference/isa's instr_info::name), so kernel code never
// depends on the model; the host side maps the names to the model's enum and checks the register counts.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

namespace tp::mma {

// The instruction's modifiers, as reference/isa's `modifiers` spells them. index_key is the ABID set on gfx9.
struct wave_op_modifiers {
  bool a_signed = true, b_signed = true;  // integer ops with signedness flags; true (and unused) otherwise
  bool clamp = false;
  unsigned index_key = 0;
  friend bool operator==(const wave_op_modifiers&, const wave_op_modifiers&) = default;
};

// Runs n_cases independent register sets, one wave each (one block per case, a single launch). Every buffer holds the
// cases back to back, lane-major within a case: case n, lane l, VGPR r of an operand with R VGPRs per lane is word
// (n * wave + l) * R + r; `index` has one word per lane (dense ops ignore it); `d` has c_words per lane like `c`.
// On the CPU backend the launch uses the caller's tp::cpu run options (policy, seed, hazards) with warp_size set to
// the op's wave. Throws std::invalid_argument when a span's size does not match, std::logic_error when this backend
// cannot run the op (see not_runnable), and the backend's tp::kernel_error / tp::device_error.
using wave_op_launcher = void (*)(std::size_t n_cases, std::span<const std::uint32_t> a,
                                  std::span<const std::uint32_t> b, std::span<const std::uint32_t> c,
                                  std::span<const std::uint32_t> index, std::span<std::uint32_t> d);

struct wave_op {
  const char* instr;           // reference/isa instruction name, e.g. "swmmac_i32_16x16x32_iu4"
  wave_op_modifiers mods;
  unsigned wave;               // lanes of one wave: 32, or 64 for gfx9
  unsigned a_words, b_words, c_words;  // VGPRs per lane of A, B and C (= D)
  const char* not_runnable;    // why this backend cannot run the op (e.g. a wave64 op on CUDA's 32-lane warps); null
                               // when it can
  wave_op_launcher run;
};

struct wave_op_table {
  const char* name;            // the registered variant name ("soft")
  std::span<const wave_op> ops;
  // Where an op runs only in a device wave of its own size, the device's wave size in lanes (0: the device gave no
  // properties); asked before any launch. HIP launches a case as one block of `wave` threads in the device's own
  // waves: a wave64 op on a wave32 device (gfx11, gfx12) reads lanes its wave does not have (its device code traps),
  // and a wave32 op on a wave64 device (gfx9) would run in half a wave, which is not how a card runs it. Null where
  // every op runs: the CPU emulator sets its warp to the op's wave, and CUDA gathers a 64-lane op through shared memory.
  unsigned (*device_wave)() = nullptr;
};

// The table's entry for one instruction and modifier set; nullptr when the table has none.
inline const wave_op* find_op(const wave_op_table& t, std::string_view instr, const wave_op_modifiers& mods) {
  for (const wave_op& op : t.ops)
    if (instr == op.instr && op.mods == mods) return &op;
  return nullptr;
}

}  // namespace tp::mma
