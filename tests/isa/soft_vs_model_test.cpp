// The kernel-side software matrix ops (kernels/mma, run in one wave on the CPU emulator) against the host model
// (reference/isa) on random registers: random A/B/C words and random index words (so random fields, collisions
// included), every instruction, both index_key halves, signedness and clamp combinations, every scheduling policy.
// Integers compare exactly; floats bit-exactly (both sides use the documented fp64-then-round order), with any NaN
// equal to any NaN because NaN payloads are not modelled.
#include <bit>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include <catch2/catch_test_macros.hpp>

#include "kernels/mma/wave_ops.cuh"
#include "reference/codecs.h"
#include "reference/isa/isa.h"
#include "simt/host.h"

namespace isa = tp::ref::isa;
namespace mma = tp::mma;
using isa::instr;

namespace {

using kernel_fn = void (*)(tp::gmem<std::uint32_t>, tp::gmem<std::uint32_t>, tp::gmem<std::uint32_t>,
                           tp::gmem<std::uint32_t>, tp::gmem<std::uint32_t>);

struct variant {
  instr in;
  isa::modifiers mods;
  kernel_fn kernel;
};

std::string describe(const variant& v) {
  const auto& f = isa::info(v.in);
  std::string s = std::string(f.name);
  if (f.signedness_flags) s += std::string(",sa=") + (v.mods.a_signed ? "1" : "0") + ",sb=" + (v.mods.b_signed ? "1" : "0");
  if (v.mods.clamp) s += ",clamp=1";
  if (f.sparse) s += (f.target == isa::arch::gfx9 ? ",abid=" : ",index_key=") + std::to_string(v.mods.index_key);
  return s;
}

template <class Op>
kernel_fn k() { return &mma::wave_op_kernel<Op>; }

const std::vector<variant>& variants() {
  static const std::vector<variant> all = {
      {instr::swmmac_i32_16x16x32_iu4, {true, true, false, 0}, k<mma::op_swmmac_i32_16x16x32_iu4<true, true, false, 0>>()},
      {instr::swmmac_i32_16x16x32_iu4, {true, true, false, 1}, k<mma::op_swmmac_i32_16x16x32_iu4<true, true, false, 1>>()},
      {instr::swmmac_i32_16x16x32_iu4, {false, true, false, 0}, k<mma::op_swmmac_i32_16x16x32_iu4<false, true, false, 0>>()},
      {instr::swmmac_i32_16x16x32_iu4, {true, false, true, 1}, k<mma::op_swmmac_i32_16x16x32_iu4<true, false, true, 1>>()},
      {instr::swmmac_i32_16x16x32_iu4, {false, false, true, 0}, k<mma::op_swmmac_i32_16x16x32_iu4<false, false, true, 0>>()},
      {instr::swmmac_i32_16x16x64_iu4, {true, true, false, 0}, k<mma::op_swmmac_i32_16x16x64_iu4<true, true, false>>()},
      {instr::swmmac_i32_16x16x64_iu4, {false, false, false, 0}, k<mma::op_swmmac_i32_16x16x64_iu4<false, false, false>>()},
      {instr::swmmac_i32_16x16x64_iu4, {true, false, true, 0}, k<mma::op_swmmac_i32_16x16x64_iu4<true, false, true>>()},
      {instr::swmmac_i32_16x16x32_iu8, {true, true, false, 0}, k<mma::op_swmmac_i32_16x16x32_iu8<true, true, false, 0>>()},
      {instr::swmmac_i32_16x16x32_iu8, {true, true, false, 1}, k<mma::op_swmmac_i32_16x16x32_iu8<true, true, false, 1>>()},
      {instr::swmmac_i32_16x16x32_iu8, {false, true, true, 0}, k<mma::op_swmmac_i32_16x16x32_iu8<false, true, true, 0>>()},
      {instr::swmmac_i32_16x16x32_iu8, {false, false, false, 1}, k<mma::op_swmmac_i32_16x16x32_iu8<false, false, false, 1>>()},
      {instr::swmmac_f32_16x16x32_fp8_fp8, {.index_key = 0}, k<mma::op_swmmac_f32_16x16x32_fp8_fp8<0>>()},
      {instr::swmmac_f32_16x16x32_fp8_fp8, {.index_key = 1}, k<mma::op_swmmac_f32_16x16x32_fp8_fp8<1>>()},
      {instr::swmmac_f32_16x16x32_fp8_bf8, {.index_key = 0}, k<mma::op_swmmac_f32_16x16x32_fp8_bf8<0>>()},
      {instr::swmmac_f32_16x16x32_fp8_bf8, {.index_key = 1}, k<mma::op_swmmac_f32_16x16x32_fp8_bf8<1>>()},
      {instr::swmmac_f32_16x16x32_bf8_fp8, {.index_key = 0}, k<mma::op_swmmac_f32_16x16x32_bf8_fp8<0>>()},
      {instr::swmmac_f32_16x16x32_bf8_fp8, {.index_key = 1}, k<mma::op_swmmac_f32_16x16x32_bf8_fp8<1>>()},
      {instr::swmmac_f32_16x16x32_bf8_bf8, {.index_key = 0}, k<mma::op_swmmac_f32_16x16x32_bf8_bf8<0>>()},
      {instr::swmmac_f32_16x16x32_bf8_bf8, {.index_key = 1}, k<mma::op_swmmac_f32_16x16x32_bf8_bf8<1>>()},
      {instr::swmmac_f32_16x16x32_f16, {.index_key = 0}, k<mma::op_swmmac_f32_16x16x32_f16<0>>()},
      {instr::swmmac_f32_16x16x32_f16, {.index_key = 1}, k<mma::op_swmmac_f32_16x16x32_f16<1>>()},
      {instr::swmmac_f32_16x16x32_bf16, {.index_key = 0}, k<mma::op_swmmac_f32_16x16x32_bf16<0>>()},
      {instr::swmmac_f32_16x16x32_bf16, {.index_key = 1}, k<mma::op_swmmac_f32_16x16x32_bf16<1>>()},
      {instr::wmma_i32_16x16x32_iu4, {true, true, false, 0}, k<mma::op_wmma_i32_16x16x32_iu4<true, true, false>>()},
      {instr::wmma_i32_16x16x32_iu4, {false, true, true, 0}, k<mma::op_wmma_i32_16x16x32_iu4<false, true, true>>()},
      {instr::wmma_i32_16x16x16_iu8, {true, true, false, 0}, k<mma::op_wmma_i32_16x16x16_iu8<true, true, false>>()},
      {instr::wmma_i32_16x16x16_iu8, {true, false, true, 0}, k<mma::op_wmma_i32_16x16x16_iu8<true, false, true>>()},
      {instr::wmma_i32_16x16x16_iu8, {false, false, false, 0}, k<mma::op_wmma_i32_16x16x16_iu8<false, false, false>>()},
      {instr::wmma_f32_16x16x16_f16, {}, k<mma::op_wmma_f32_16x16x16_f16>()},
      {instr::gfx11_wmma_f32_16x16x16_f16, {}, k<mma::op_gfx11_wmma_f32_16x16x16_f16>()},
      {instr::gfx11_wmma_i32_16x16x16_iu8, {true, true, false, 0}, k<mma::op_gfx11_wmma_i32_16x16x16_iu8<true, true, false>>()},
      {instr::gfx11_wmma_i32_16x16x16_iu8, {false, true, true, 0}, k<mma::op_gfx11_wmma_i32_16x16x16_iu8<false, true, true>>()},
      {instr::gfx9_smfmac_f32_16x16x32_f16, {.index_key = 0}, k<mma::op_gfx9_smfmac_f32_16x16x32_f16<0>>()},
      {instr::gfx9_smfmac_f32_16x16x32_f16, {.index_key = 1}, k<mma::op_gfx9_smfmac_f32_16x16x32_f16<1>>()},
      {instr::gfx9_smfmac_f32_16x16x32_f16, {.index_key = 2}, k<mma::op_gfx9_smfmac_f32_16x16x32_f16<2>>()},
      {instr::gfx9_smfmac_f32_16x16x32_f16, {.index_key = 3}, k<mma::op_gfx9_smfmac_f32_16x16x32_f16<3>>()},
      {instr::gfx9_smfmac_i32_16x16x64_i8, {.index_key = 0}, k<mma::op_gfx9_smfmac_i32_16x16x64_i8<0>>()},
      {instr::gfx9_smfmac_i32_16x16x64_i8, {.index_key = 1}, k<mma::op_gfx9_smfmac_i32_16x16x64_i8<1>>()},
  };
  return all;
}

// Register contents for one case. regime 0: every bit random. regime 1: finite small floats / C near the int32
// limits, so results are ordinary numbers and integer wrap/clamp is exercised.
struct operands {
  isa::wave_regs a, b, c, index;
};

std::uint32_t finite_code(std::mt19937_64& rng, isa::elem e) {
  switch (e) {
    case isa::elem::fp8: return tp::ref::double_to_fp8_e4m3(double(int(rng() % 33) - 16) / 4.0);
    case isa::elem::bf8: return tp::ref::double_to_fp8_e5m2(double(int(rng() % 33) - 16) / 4.0);
    case isa::elem::f16: return tp::ref::double_to_fp16(double(int(rng() % 2049) - 1024) / 64.0);
    case isa::elem::bf16: return tp::ref::double_to_bf16(double(int(rng() % 257) - 128) / 8.0);
    case isa::elem::f32: return std::bit_cast<std::uint32_t>(float(int(rng() % 2001) - 1000) / 16.0f);
    case isa::elem::i32: {
      const std::int32_t off = std::int32_t(rng() % 2000000);
      return std::uint32_t(rng() & 1 ? 0x7fffffff - off : std::int32_t(0x80000000u) + off);
    }
    default: {
      const unsigned b = isa::bits_of(e);
      return std::uint32_t(rng()) & ((1u << b) - 1u);
    }
  }
}

operands make_operands(instr in, std::mt19937_64& rng, unsigned regime) {
  const auto& f = isa::info(in);
  operands o{isa::make_a_regs(in), isa::make_b_regs(in), isa::make_d_regs(in), isa::make_index_regs(in)};
  for (auto* r : {&o.a, &o.b, &o.c, &o.index})
    for (auto& w : r->words()) w = std::uint32_t(rng());
  if (regime == 0) return o;
  auto fill = [&](isa::wave_regs& regs, isa::elem e, auto locs_of, unsigned rows, unsigned cols) {
    for (unsigned r = 0; r < rows; ++r)
      for (unsigned c = 0; c < cols; ++c) {
        const std::uint32_t v = finite_code(rng, e);
        for (const auto& at : locs_of(r, c)) regs.set(at, v);
      }
  };
  fill(o.b, f.b, [&](unsigned k, unsigned j) { return isa::b_locs(in, k, j); }, f.k, f.n);
  fill(o.c, f.d, [&](unsigned i, unsigned j) { return std::vector<isa::reg_loc>{isa::d_loc(in, i, j)}; }, f.m, f.n);
  if (f.sparse)
    fill(o.a, f.a, [&](unsigned i, unsigned gs) { return std::vector<isa::reg_loc>{isa::a_slot_loc(in, i, gs / 2, gs % 2)}; },
         f.m, f.k / 2);
  else
    fill(o.a, f.a, [&](unsigned i, unsigned k) { return isa::a_locs(in, i, k); }, f.m, f.k);
  return o;
}

bool same_result(isa::elem d, std::uint32_t x, std::uint32_t y) {
  if (d == isa::elem::f32) {
    const float fx = std::bit_cast<float>(x), fy = std::bit_cast<float>(y);
    if (fx != fx && fy != fy) return true;
  }
  return x == y;
}

}  // namespace

TEST_CASE("Software matrix ops on the CPU emulator equal the instruction model on random registers", "[isa][soft]") {
  constexpr unsigned cases_per_variant = 8;
  const tp::cpu::policy policies[] = {tp::cpu::policy::in_order, tp::cpu::policy::reverse, tp::cpu::policy::random,
                                      tp::cpu::policy::adversarial};
  std::size_t compared = 0;
  for (const variant& v : variants()) {
    const auto& f = isa::info(v.in);
    for (unsigned n = 0; n < cases_per_variant; ++n) {
      const std::uint64_t seed = 0x5eed'0000ull + std::uint64_t(&v - variants().data()) * 1000 + n;
      const unsigned regime = n % 2;
      const tp::cpu::policy pol = policies[n % 4];
      INFO("case isa-soft(" << describe(v) << ",regime=" << regime << ",policy=" << tp::cpu::to_string(pol)
                            << ",seed=" << seed << ")");
      std::mt19937_64 rng(seed);
      const operands o = make_operands(v.in, rng, regime);
      const isa::wave_regs want = isa::execute(v.in, o.a, o.b, o.c, o.index, v.mods);

      tp::cpu::run_options opts;
      opts.sched = pol;
      opts.seed = seed;
      opts.warp_size = f.wave;
      tp::cpu::set_run_options(opts);
      auto upload = [](const isa::wave_regs& r) {
        tp::device_buffer<std::uint32_t> buf(r.words().size());
        buf.upload(r.words().data(), r.words().size());
        return buf;
      };
      auto a = upload(o.a), b = upload(o.b), c = upload(o.c), ix = upload(o.index);
      tp::device_buffer<std::uint32_t> d(want.words().size());
      tp::launch(tp::dims{1, f.wave}, v.kernel, a.view(), b.view(), c.view(), ix.view(), d.view());
      tp::cpu::set_run_options({});
      const std::vector<std::uint32_t> got = d.to_host();

      unsigned bad = 0;
      std::string first;
      for (unsigned l = 0; l < f.wave; ++l)
        for (unsigned r = 0; r < f.d_vgprs; ++r) {
          const std::size_t w = std::size_t(l) * f.d_vgprs + r;
          if (!same_result(f.d, got[w], want.words()[w]) && bad++ == 0)
            first = "lane " + std::to_string(l) + " v" + std::to_string(r) + ": soft " + std::to_string(got[w]) +
                    ", model " + std::to_string(want.words()[w]);
        }
      INFO(first);
      CHECK(bad == 0);
      ++compared;
    }
  }
  CHECK(compared == variants().size() * cases_per_variant);
}

TEST_CASE("The differential check notices a wrong index_key, flag or layout", "[isa][soft]") {
  // Same registers, model run with different modifiers: results must differ, or the comparison above proves nothing.
  std::mt19937_64 rng(0xbad'5eed);
  const operands o = make_operands(instr::swmmac_i32_16x16x32_iu4, rng, 0);
  const auto base = isa::execute(instr::swmmac_i32_16x16x32_iu4, o.a, o.b, o.c, o.index, {true, true, false, 0});
  CHECK(base != isa::execute(instr::swmmac_i32_16x16x32_iu4, o.a, o.b, o.c, o.index, {true, true, false, 1}));
  CHECK(base != isa::execute(instr::swmmac_i32_16x16x32_iu4, o.a, o.b, o.c, o.index, {false, true, false, 0}));
  // Running the iu4 kernel but modelling the iu8 layout of the same registers must disagree as well.
  tp::cpu::set_run_options({});
  tp::device_buffer<std::uint32_t> a(32), b(64), c(256), ix(32), d(256);
  a.upload(o.a.words().data(), 32);
  b.upload(o.b.words().data(), 64);
  c.upload(o.c.words().data(), 256);
  ix.upload(o.index.words().data(), 32);
  tp::launch(tp::dims{1, 32}, k<mma::op_swmmac_i32_16x16x32_iu4<true, true, false, 0>>(), a.view(), b.view(), c.view(),
             ix.view(), d.view());
  const auto got = d.to_host();
  CHECK(std::vector<std::uint32_t>(base.words().begin(), base.words().end()) == got);
  isa::wave_regs a8 = isa::make_a_regs(instr::swmmac_i32_16x16x32_iu8), b8 = isa::make_b_regs(instr::swmmac_i32_16x16x32_iu8);
  for (unsigned l = 0; l < 32; ++l) {
    a8.word(l, 0) = o.a.word(l, 0);
    for (unsigned r = 0; r < 2; ++r) b8.word(l, r) = o.b.word(l, r);
  }
  const isa::wave_regs as_iu8 = isa::execute(instr::swmmac_i32_16x16x32_iu8, a8, b8, o.c, o.index, {});
  CHECK(std::vector<std::uint32_t>(as_iu8.words().begin(), as_iu8.words().end()) != got);
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
