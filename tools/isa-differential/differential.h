// The matrix-instruction differential check, shared by tools/isa-differential and tests/isa: a backend's table of
// software ops (kernels/mma/wave_op_table.h) against the host model (reference/isa) on random registers.
//
//   - resolve() maps every table entry to the model's instruction and modifiers, refusing an entry whose wave or
//     register counts differ from the model's;
//   - make_operands() draws one case's registers from its seed, in one of two regimes (every bit random; finite small
//     floats and int32 C near the limits, so results are ordinary numbers and integer wrap/clamp is exercised);
//   - run_differential() runs a batch of cases on the backend in one launch and on the model, and compares: integers
//     exactly, f32 bit-exactly with any NaN equal to any NaN (NaN payloads are not modelled; both sides otherwise
//     follow the documented fp64-then-round order).
// A case is named by a case id, "isa-diff(<op variant>,regime=<bits|finite>,seed=0x<hex>[,policy=<cpu policy>])",
// which carries everything needed to rerun it alone.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "kernels/mma/wave_op_table.h"
#include "reference/isa/isa.h"

namespace tp::isa_diff {

namespace isa = tp::ref::isa;

// One op variant of a table, resolved against the model.
struct op_variant {
  const tp::mma::wave_op* op = nullptr;
  isa::instr in{};
  isa::modifiers mods;
  std::string name;  // describe(in, mods)
};

// Why op variant `v` does not apply to a device whose waves have `device_wave` lanes, for a table that runs each op
// in one wave of the device (tp::mma::wave_op_table::device_wave); nullopt when the two sizes are equal.
std::optional<std::string> not_applicable(const op_variant& v, unsigned device_wave);

// "swmmac_i32_16x16x32_iu4,sa=1,sb=0,clamp=1,index_key=1", "gfx9_smfmac_f32_16x16x32_f16,abid=2",
// "wmma_f32_16x16x16_f16": only the modifiers the instruction has; clamp only when set.
std::string describe(isa::instr in, const isa::modifiers& m);

// Every entry of the table, in table order. Throws std::runtime_error naming the entry when its instruction is not in
// the model, its modifiers are illegal for it, or its wave / VGPR counts differ from the model's.
std::vector<op_variant> resolve(const tp::mma::wave_op_table& table);

enum class regime { random_bits, finite };
inline constexpr regime all_regimes[] = {regime::random_bits, regime::finite};
const char* to_string(regime r);  // "bits", "finite"
std::optional<regime> parse_regime(std::string_view s);

struct operands {
  isa::wave_regs a, b, c, index;
};
// One case's registers, drawn from `seed` alone (std::mt19937_64): the same seed gives the same registers.
operands make_operands(isa::instr in, std::uint64_t seed, regime r);

// The seed of case n of an op variant in a regime, derived from the run's base seed.
std::uint64_t case_seed(std::uint64_t base_seed, std::string_view op_variant_name, regime r, std::uint64_t n);

// Equality of one D word: exact, except that two f32 NaNs are equal whatever their payloads.
bool same_result(isa::elem d, std::uint32_t x, std::uint32_t y);

struct comparison {
  std::size_t differing_words = 0;
  std::string first;  // "lane 3 v1: cuda 0x00000007, model 0x00000005" for the first differing word; empty if none
};
// Compare one case's D (lane-major words, as wave_regs::words()); `got_label` names the compared side.
comparison compare(const isa::instr_info& f, std::span<const std::uint32_t> got, std::span<const std::uint32_t> want,
                   std::string_view got_label);

// Runs every case of `cases` on the table's backend in one launch (current tp::cpu run options on the CPU backend)
// and on the model; one comparison per case, in order. The backend's errors propagate.
std::vector<comparison> run_differential(const op_variant& v, std::span<const operands> cases,
                                         std::string_view backend_label);

struct case_id {
  std::string op_variant;
  regime r = regime::random_bits;
  std::uint64_t seed = 0;
  std::string policy;  // cpu scheduling policy; empty when not given (GPU backends)
};
std::string format(const case_id& id);
// Accepts exactly what format() writes; nullopt for anything else.
std::optional<case_id> parse_case_id(std::string_view text);

}  // namespace tp::isa_diff
