// The kernel-side software matrix ops, through the CPU backend's table (kernels/mma/wave_op_table.h, one wave per
// case on the emulator), against the host model (reference/isa) on random registers: random A/B/C words and random
// index words (so random fields, collisions included), every op variant of the table (each instruction, both
// index_key halves, signedness and clamp combinations, gfx11, gfx9 wave64 with each ABID), every scheduling policy.
// Operands, comparison and case ids come from tools/isa-differential's library, which bin/isa-differential runs on
// any backend. Integers compare exactly; floats bit-exactly (both sides use the documented fp64-then-round order),
// with any NaN equal to any NaN because NaN payloads are not modelled.
#include <algorithm>
#include <bit>
#include <cstdint>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <catch2/catch_test_macros.hpp>

#include "kernels/mma/soft.cuh"
#include "kernels/mma/wave_op_table.h"
#include "reference/isa/isa.h"
#include "simt/host.h"
#include "simt/registry.h"
#include "tools/isa-differential/differential.h"

namespace isa = tp::ref::isa;
namespace diff = tp::isa_diff;
using isa::instr;

namespace {

const tp::mma::wave_op_table& cpu_table() {
  const auto* t = tp::find_variant<tp::mma::wave_op_table>("mma", "soft", tp::backend::cpu);
  REQUIRE(t != nullptr);
  return *t;
}

const diff::op_variant& variant_of(const std::vector<diff::op_variant>& all, instr in, const isa::modifiers& m) {
  const diff::op_variant* found = nullptr;
  for (const auto& v : all)
    if (v.in == in && v.mods.a_signed == m.a_signed && v.mods.b_signed == m.b_signed && v.mods.clamp == m.clamp &&
        v.mods.index_key == m.index_key)
      found = &v;
  INFO("op variant " << diff::describe(in, m));
  REQUIRE(found != nullptr);
  return *found;
}

}  // namespace

TEST_CASE("The CPU software-op table covers every instruction, index key, ABID and flag kind with the model's registers",
          "[isa][soft]") {
  const std::vector<diff::op_variant> all = diff::resolve(cpu_table());  // throws on a wave/VGPR count mismatch
  CHECK(all.size() == 39);
  std::set<std::pair<instr, unsigned>> keys;
  std::set<instr> signed_plain, unsigned_operand, clamped;
  std::set<std::string> names;
  for (const auto& v : all) {
    keys.insert({v.in, v.mods.index_key});
    if (v.mods.a_signed && v.mods.b_signed && !v.mods.clamp) signed_plain.insert(v.in);
    if (!v.mods.a_signed || !v.mods.b_signed) unsigned_operand.insert(v.in);
    if (v.mods.clamp) clamped.insert(v.in);
    CHECK(names.insert(v.name).second);  // no op variant twice
  }
  for (instr in : isa::all_instrs) {
    const auto& f = isa::info(in);
    INFO(f.name);
    for (unsigned k = 0; k < std::max(1u, f.index_keys); ++k) CHECK(keys.count({in, k}) == 1);
    if (f.signedness_flags) {  // signed x signed without clamp, an unsigned operand, and clamp
      CHECK(signed_plain.count(in) == 1);
      CHECK(unsigned_operand.count(in) == 1);
      CHECK(clamped.count(in) == 1);
    }
  }
}

TEST_CASE("Software matrix ops on the CPU emulator equal the instruction model on random registers", "[isa][soft]") {
  constexpr unsigned cases_per_regime = 4;
  const tp::cpu::policy policies[] = {tp::cpu::policy::in_order, tp::cpu::policy::reverse, tp::cpu::policy::random,
                                      tp::cpu::policy::adversarial};
  std::size_t compared = 0;
  const std::vector<diff::op_variant> all = diff::resolve(cpu_table());
  for (const diff::op_variant& v : all)
    for (diff::regime r : diff::all_regimes)
      for (unsigned n = 0; n < cases_per_regime; ++n) {
        const std::uint64_t seed = diff::case_seed(0x5eed'0000ull, v.name, r, n);
        const tp::cpu::policy pol = policies[n % 4];
        const diff::case_id id{v.name, r, seed, tp::cpu::to_string(pol)};
        INFO("case " << diff::format(id));
        const diff::operands o = diff::make_operands(v.in, seed, r);
        tp::cpu::run_options opts;
        opts.sched = pol;
        opts.seed = seed;
        tp::cpu::set_run_options(opts);
        const auto res = diff::run_differential(v, std::span<const diff::operands>(&o, 1), "cpu");
        tp::cpu::set_run_options({});
        REQUIRE(res.size() == 1);
        INFO(res[0].first);
        CHECK(res[0].differing_words == 0);
        ++compared;
      }
  CHECK(compared == all.size() * 2 * cases_per_regime);
}

TEST_CASE("A batch of cases in one launch gives every case the D a launch of its own gives", "[isa][soft]") {
  // Block n must read and write exactly case n's words: distinct random cases make any offset error visible.
  const std::vector<diff::op_variant> all = diff::resolve(cpu_table());
  for (const auto& [in, m] : {std::pair{instr::swmmac_i32_16x16x32_iu4, isa::modifiers{true, true, false, 1}},
                              std::pair{instr::swmmac_f32_16x16x32_f16, isa::modifiers{.index_key = 0}},
                              std::pair{instr::gfx9_smfmac_i32_16x16x64_i8, isa::modifiers{.index_key = 1}}}) {
    const diff::op_variant& v = variant_of(all, in, m);
    INFO(v.name);
    std::vector<diff::operands> cases;
    for (unsigned n = 0; n < 5; ++n) cases.push_back(diff::make_operands(in, diff::case_seed(7, v.name, diff::regime::finite, n), diff::regime::finite));
    const auto batched = diff::run_differential(v, cases, "cpu");
    REQUIRE(batched.size() == cases.size());
    for (const auto& c : batched) CHECK(c.differing_words == 0);
    // The same through the raw launcher: a batch of two equals two single launches word for word.
    const auto& f = isa::info(in);
    auto cat = [](const diff::operands& x, const diff::operands& y, auto member) {
      std::vector<std::uint32_t> w((x.*member).words().begin(), (x.*member).words().end());
      w.insert(w.end(), (y.*member).words().begin(), (y.*member).words().end());
      return w;
    };
    const auto a = cat(cases[0], cases[1], &diff::operands::a), b = cat(cases[0], cases[1], &diff::operands::b),
               c = cat(cases[0], cases[1], &diff::operands::c), ix = cat(cases[0], cases[1], &diff::operands::index);
    const std::size_t d_words = std::size_t(f.wave) * f.d_vgprs;
    std::vector<std::uint32_t> d2(2 * d_words), d0(d_words), d1(d_words);
    v.op->run(2, a, b, c, ix, d2);
    v.op->run(1, cases[0].a.words(), cases[0].b.words(), cases[0].c.words(), cases[0].index.words(), d0);
    v.op->run(1, cases[1].a.words(), cases[1].b.words(), cases[1].c.words(), cases[1].index.words(), d1);
    CHECK(std::vector<std::uint32_t>(d2.begin(), d2.begin() + d_words) == d0);
    CHECK(std::vector<std::uint32_t>(d2.begin() + d_words, d2.end()) == d1);
    CHECK(d0 != d1);
    // A span of the wrong size is refused before anything launches.
    CHECK_THROWS_AS(v.op->run(3, a, b, c, ix, d2), std::invalid_argument);
  }
}

TEST_CASE("The differential check notices a wrong index_key, flag or layout", "[isa][soft]") {
  // Same registers, model run with different modifiers: results must differ, or the comparison above proves nothing.
  const diff::operands o = diff::make_operands(instr::swmmac_i32_16x16x32_iu4, 0xbad'5eed, diff::regime::random_bits);
  const auto base = isa::execute(instr::swmmac_i32_16x16x32_iu4, o.a, o.b, o.c, o.index, {true, true, false, 0});
  CHECK(base != isa::execute(instr::swmmac_i32_16x16x32_iu4, o.a, o.b, o.c, o.index, {true, true, false, 1}));
  CHECK(base != isa::execute(instr::swmmac_i32_16x16x32_iu4, o.a, o.b, o.c, o.index, {false, true, false, 0}));
  // The table's op on the CPU backend equals the model with the right modifiers...
  const std::vector<diff::op_variant> all = diff::resolve(cpu_table());
  const diff::op_variant& v = variant_of(all, instr::swmmac_i32_16x16x32_iu4, {true, true, false, 0});
  const auto& f = isa::info(v.in);
  std::vector<std::uint32_t> got(std::size_t(f.wave) * f.d_vgprs);
  v.op->run(1, o.a.words(), o.b.words(), o.c.words(), o.index.words(), got);
  CHECK(diff::compare(f, got, base.words(), "cpu").differing_words == 0);
  // ...and the comparison reports the other index_key's model, and the iu8 layout of the same registers, as different.
  const auto key1 = isa::execute(instr::swmmac_i32_16x16x32_iu4, o.a, o.b, o.c, o.index, {true, true, false, 1});
  CHECK(diff::compare(f, got, key1.words(), "cpu").differing_words > 0);
  isa::wave_regs a8 = isa::make_a_regs(instr::swmmac_i32_16x16x32_iu8), b8 = isa::make_b_regs(instr::swmmac_i32_16x16x32_iu8);
  for (unsigned l = 0; l < 32; ++l) {
    a8.word(l, 0) = o.a.word(l, 0);
    for (unsigned r = 0; r < 2; ++r) b8.word(l, r) = o.b.word(l, r);
  }
  const isa::wave_regs as_iu8 = isa::execute(instr::swmmac_i32_16x16x32_iu8, a8, b8, o.c, o.index, {});
  CHECK(diff::compare(f, got, as_iu8.words(), "cpu").differing_words > 0);
}

TEST_CASE("The comparison counts differing D words exactly and treats only f32 NaNs as equal to each other",
          "[isa][soft]") {
  const auto& fi = isa::info(instr::swmmac_i32_16x16x32_iu8);  // i32 D, 32 lanes x 8 VGPRs
  std::vector<std::uint32_t> want(256, 5u), got = want;
  got[3 * 8 + 1] = 7u;
  got[255] = 0u;
  const auto c = diff::compare(fi, got, want, "cuda");
  CHECK(c.differing_words == 2);
  CHECK(c.first == "lane 3 v1: cuda 0x00000007, model 0x00000005");
  // Two NaN bit patterns: equal as f32 results, different as i32 results.
  const auto& ff = isa::info(instr::swmmac_f32_16x16x32_f16);
  std::vector<std::uint32_t> nan_a(256, 0x7fc00000u), nan_b(256, 0xffc0a5a5u);
  CHECK(diff::compare(ff, nan_a, nan_b, "cpu").differing_words == 0);
  CHECK(diff::compare(fi, nan_a, nan_b, "cpu").differing_words == 256);
  // A NaN against a number is a difference, both ways round.
  std::vector<std::uint32_t> ones(256, std::bit_cast<std::uint32_t>(1.0f));
  CHECK(diff::compare(ff, nan_a, ones, "cpu").differing_words == 256);
  CHECK(diff::compare(ff, ones, nan_a, "cpu").differing_words == 256);
}

TEST_CASE("A case id names its op variant, regime, seed and policy and reads back as written", "[isa][soft]") {
  const diff::case_id id{"swmmac_i32_16x16x32_iu4,sa=0,sb=1,index_key=1", diff::regime::finite, 0x5eedull, "random"};
  const std::string text = diff::format(id);
  CHECK(text == "isa-diff(swmmac_i32_16x16x32_iu4,sa=0,sb=1,index_key=1,regime=finite,seed=0x0000000000005eed,policy=random)");
  const auto back = diff::parse_case_id(text);
  REQUIRE(back);
  CHECK(back->op_variant == id.op_variant);
  CHECK(back->r == id.r);
  CHECK(back->seed == id.seed);
  CHECK(back->policy == id.policy);
  const auto gpu = diff::parse_case_id("isa-diff(wmma_f32_16x16x16_f16,regime=bits,seed=0xffffffffffffffff)");
  REQUIRE(gpu);
  CHECK(gpu->policy.empty());
  CHECK(gpu->seed == ~0ull);
  for (const char* bad : {"isa-diff(wmma_f32_16x16x16_f16,regime=bits)", "isa-diff(regime=bits,seed=0x1)",
                          "wmma_f32_16x16x16_f16,regime=bits,seed=0x1", "isa-diff(wmma_f32_16x16x16_f16,regime=odd,seed=0x1)",
                          "isa-diff(wmma_f32_16x16x16_f16,regime=bits,seed=12)",
                          "isa-diff(wmma_f32_16x16x16_f16,regime=bits,seed=0x1g)"}) {
    INFO(bad);
    CHECK_FALSE(diff::parse_case_id(bad));
  }
  // The same case id regenerates the same registers; another seed does not.
  const auto x = diff::make_operands(instr::wmma_f32_16x16x16_f16, 42, diff::regime::finite);
  const auto y = diff::make_operands(instr::wmma_f32_16x16x16_f16, 42, diff::regime::finite);
  const auto z = diff::make_operands(instr::wmma_f32_16x16x16_f16, 43, diff::regime::finite);
  CHECK((x.a == y.a && x.b == y.b && x.c == y.c && x.index == y.index));
  CHECK_FALSE((x.a == z.a && x.b == z.b));
}

// isa-differential decides from the device's wave size, before any launch, which op variants a device can run: on a
// HIP card an op runs in the device's own waves. The CPU table runs every op (the emulator takes the op's wave).
TEST_CASE("An op variant applies only to a device of its own wave size, and the CPU table runs every one",
          "[isa][soft]") {
  CHECK(cpu_table().device_wave == nullptr);
  const std::vector<diff::op_variant> all = diff::resolve(cpu_table());
  std::size_t not_on_wave32 = 0, not_on_wave64 = 0;
  for (const auto& v : all) {
    INFO(v.name);
    const auto on32 = diff::not_applicable(v, 32), on64 = diff::not_applicable(v, 64);
    CHECK(on32.has_value() == (v.op->wave == 64));
    CHECK(on64.has_value() == (v.op->wave == 32));
    not_on_wave32 += on32.has_value();
    not_on_wave64 += on64.has_value();
  }
  CHECK(not_on_wave32 == 6);   // the gfx9 SMFMACs, every ABID
  CHECK(not_on_wave64 == 33);  // every gfx12 and gfx11 op
  const auto& smfmac = variant_of(all, instr::gfx9_smfmac_i32_16x16x64_i8, {.index_key = 1});
  CHECK(diff::not_applicable(smfmac, 32) ==
        "a wave64 op on a wave32 device (its waves do not have the op's upper 32 lanes)");
}

// The fast decoders (fp64 bits built directly, 8-bit tables) must give exactly minifloat_value's bits for every
// encoding, NaN payloads and signed zeros included: the ops above only see the values random registers reach.
TEST_CASE("Fast minifloat decoders equal the generic decoder bit for bit on every encoding", "[isa][soft]") {
  namespace d = tp::mma::detail;
  auto same = [](double x, double y) { return std::bit_cast<std::uint64_t>(x) == std::bit_cast<std::uint64_t>(y); };
  for (std::uint32_t b = 0; b < 65536; ++b) {
    INFO("bits " << b);
    REQUIRE(same(d::dec_f16::value(b), d::minifloat_value(b, 5, 10, true)));
    REQUIRE(same(d::dec_bf16::value(b), d::minifloat_value(b, 8, 7, true)));
  }
  for (std::uint32_t b = 0; b < 256; ++b) {
    INFO("bits " << b);
    REQUIRE(same(d::dec_fp8::value(b), d::minifloat_value(b, 4, 3, false)));
    REQUIRE(same(d::dec_bf8::value(b), d::minifloat_value(b, 5, 2, true)));
    REQUIRE(same(d::minifloat_value_fast<4, 3, false>(b), d::minifloat_value(b, 4, 3, false)));
    REQUIRE(same(d::minifloat_value_fast<5, 2, true>(b), d::minifloat_value(b, 5, 2, true)));
  }
}

// gfx11 WMMA holds each A row and B column twice (lanes i and i + 16); the ISA defines D only for equal copies, so the
// bits regime draws one value per element and copies it. Layouts with one place per element keep every bit random:
// the gfx12 WMMA's A of row 0 in lanes 0 and 16 holds different K halves, which must not be made equal.
TEST_CASE("Random-bit operands give every replicated gfx11 A/B element equal copies and leave other layouts as drawn",
          "[isa][soft]") {
  for (const instr in : {instr::gfx11_wmma_f32_16x16x16_f16, instr::gfx11_wmma_i32_16x16x16_iu8}) {
    const auto& f = isa::info(in);
    INFO(f.name);
    const auto o = diff::make_operands(in, 0x9f11, diff::regime::random_bits);
    std::size_t replicated = 0;
    for (unsigned i = 0; i < f.m; ++i)
      for (unsigned k = 0; k < f.k; ++k) {
        const auto at = isa::a_locs(in, i, k);
        for (const auto& c : at) CHECK(o.a.get(c) == o.a.get(at[0]));
        replicated += at.size() > 1;
      }
    for (unsigned k = 0; k < f.k; ++k)
      for (unsigned j = 0; j < f.n; ++j) {
        const auto at = isa::b_locs(in, k, j);
        for (const auto& c : at) CHECK(o.b.get(c) == o.b.get(at[0]));
        replicated += at.size() > 1;
      }
    CHECK(replicated == f.m * f.k + f.k * f.n);  // every element of gfx11 A and B has two places
  }
  const auto g12 = diff::make_operands(instr::wmma_f32_16x16x16_f16, 0x9f11, diff::regime::random_bits);
  std::size_t lanes_equal = 0;
  for (unsigned l = 0; l < 16; ++l) lanes_equal += g12.a.word(l, 0) == g12.a.word(l + 16, 0);
  CHECK(lanes_equal < 16);
}
