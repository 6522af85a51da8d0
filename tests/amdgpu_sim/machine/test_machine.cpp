// The machine half of the AMDGPU simulator on a real code object (test_kernels.cu, compiled by clang at build time for
// TP_SIM_TEST_ARCH: this file builds one test executable per arch, gfx1201 and gfx1100): the simt dialect's kernels,
// integer and f32 operations against the host compiler's results over seeded inputs, the matrix instructions against
// reference/isa's logical model, and the error paths.
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <fstream>
#include <random>

#include <catch2/catch_test_macros.hpp>
#include <catch2/generators/catch_generators.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

#include "reference/isa/isa.h"
#include "simt/amdgpu_sim/machine.h"
#include "simt/amdgpu_sim/machine/program.h"
#include "simt/amdgpu_sim/machine/schedule.h"
#include "tests/amdgpu_sim/machine/alu_ops.h"
#include "tests/amdgpu_sim/machine/harness.h"

using namespace tp::amdgpu_sim;
using tp::amdgpu_sim::test::kernel_named;
using tp::amdgpu_sim::test::launch;
using tp::amdgpu_sim::test::test_memory;

namespace {

const std::vector<uint8_t>& test_object() {
  static const std::vector<uint8_t> bytes = tp::amdgpu_sim::test::read_file(TP_SIM_TEST_KERNELS);
  return bytes;
}
tp::amdgpu_sim::test::loaded_object load() { return tp::amdgpu_sim::test::load(test_object()); }

// Seeded inputs with the edge values every run includes.
std::vector<uint32_t> int_inputs(std::size_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  const uint32_t edges[] = {0u, 1u, 2u, 31u, 32u, 0x7fffffffu, 0x80000000u, 0xffffffffu, 0xfffffffeu, 0x10000u, 0xffffu};
  std::vector<uint32_t> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = i < std::size(edges) * 3 ? edges[i % std::size(edges)] : uint32_t(rng());
  return v;
}
std::vector<float> f32_inputs(std::size_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  const float edges[] = {0.0f, -0.0f, 1.0f, -1.5f, INFINITY, -INFINITY, NAN, 1e-45f, -3e-39f, 3.4e38f, 1e-20f, 7.0f};
  std::vector<float> v(n);
  for (std::size_t i = 0; i < n; ++i) {
    if (i < std::size(edges) * 3) {
      v[i] = edges[(i * 7) % std::size(edges)];
    } else {
      // random sign, exponent over the whole range (denormals included), random mantissa
      uint32_t b = uint32_t(rng());
      if (rng() % 4 == 0) b = (b & 0x807fffffu) | (uint32_t(100 + rng() % 56) << 23);  // similar magnitudes
      v[i] = std::bit_cast<float>(b);
    }
  }
  return v;
}
bool same_f32(float a, float b) {
  return (std::isnan(a) && std::isnan(b)) || std::bit_cast<uint32_t>(a) == std::bit_cast<uint32_t>(b);
}

}  // namespace

TEST_CASE("The test code object loads with its kernels, descriptors and arguments") {
  auto co = load();
  CHECK(co->arch() == TP_SIM_TEST_ARCH);
  const kernel_info* k = co->find(kernel_named(*co, "block_sum_shfl"));
  REQUIRE(k != nullptr);
  CHECK(k->group_segment_size == 128);  // TP_SHARED(int, partial, 32)
  CHECK(k->wavefront_size == 32);
  REQUIRE(k->args.size() >= 2);
  CHECK(k->args[0].value_kind == "global_buffer");
  CHECK(k->args[0].offset == 0);
  CHECK(k->args[1].offset == 8);
  CHECK(co->find("no_such_kernel") == nullptr);
}

TEST_CASE("block_sum_shfl (xor shuffles through ds_bpermute, LDS, barrier) sums every block on the simulator") {
  auto co = load();
  test_memory mem;
  const unsigned blocks = 4, threads = 128;
  std::vector<int> in(blocks * threads);
  for (std::size_t i = 0; i < in.size(); ++i) in[i] = int(i * 7 % 101) - 50;
  const uint64_t din = mem.upload(in), dout = mem.alloc(blocks * sizeof(int));
  launch(*co, mem, kernel_named(*co, "block_sum_shfl"), {blocks, 1, 1}, {threads, 1, 1}, {din, dout});
  const auto out = mem.download<int>(dout, blocks);
  for (unsigned b = 0; b < blocks; ++b) {
    int s = 0;
    for (unsigned t = 0; t < threads; ++t) s += in[b * threads + t];
    CHECK(out[b] == s);
  }
}

const wave_schedule all_schedules[] = {wave_schedule::in_order, wave_schedule::reverse, wave_schedule::random,
                                       wave_schedule::adversarial};

TEST_CASE("transpose32 (LDS tile and one barrier, 8 waves) transposes under every schedule, with no LDS hazard") {
  auto co = load();
  for (const wave_schedule s : all_schedules) {
    CAPTURE(int(s));
    test_memory mem;
    std::vector<int> in(32 * 32);
    for (std::size_t i = 0; i < in.size(); ++i) in[i] = int(i * 2654435761u);
    const uint64_t din = mem.upload(in), dout = mem.alloc(in.size() * sizeof(int));
    lds_hazard_report hz;
    launch(*co, mem, kernel_named(*co, "transpose32"), {2, 1, 1}, {256, 1, 1}, {din, dout}, 0, s, 7, &hz);
    const auto out = mem.download<int>(dout, in.size());
    for (unsigned r = 0; r < 32; ++r)
      for (unsigned c = 0; c < 32; ++c) CHECK(out[r * 32 + c] == in[c * 32 + r]);
    CHECK(hz.total() == 0);
  }
}

// The line of test_kernels.cu holding `marker`, as the line tables name it.
std::string kernel_source_line(const char* marker) {
  std::ifstream f(TP_SIM_TEST_KERNELS_SOURCE);
  std::string line;
  for (int n = 1; std::getline(f, line); ++n)
    if (line.find(marker) != std::string::npos) return "test_kernels.cu:" + std::to_string(n) + " (lds_race)";
  FAIL("no line with " << marker);
  return {};
}

TEST_CASE("The LDS race detector names both instructions and source lines of a cross-wave race, once per pair") {
  auto co = load();
  const std::string write_line = kernel_source_line("TP_SIM_TEST_RACE_WRITE");
  const std::string read_line = kernel_source_line("TP_SIM_TEST_RACE_READ");
  // adversarial: wave 0 stores first (RAW, wave 1 reads t + 1); reverse: wave 1 loads first (WAR, reads 0)
  struct expect {
    wave_schedule s;
    lds_hazard_kind kind;
    int first_value;
  };
  for (const expect e : {expect{wave_schedule::adversarial, lds_hazard_kind::raw, 1},
                         expect{wave_schedule::reverse, lds_hazard_kind::war, 0}}) {
    CAPTURE(int(e.s));
    test_memory mem;
    const uint64_t dout = mem.alloc(32 * sizeof(int));
    lds_hazard_report hz;
    // three workgroups: each races again, but the pair of instructions is counted once
    launch(*co, mem, kernel_named(*co, "lds_race"), {3, 1, 1}, {64, 1, 1}, {dout}, 0, e.s, 0, &hz);
    CHECK(mem.download<int>(dout, 1)[0] == e.first_value);
    CHECK(hz.total() == 1);
    REQUIRE(hz.first.size() == 1);
    const lds_hazard& h = hz.first[0];
    CHECK(h.kind == e.kind);
    CHECK(h.workgroup == 0);
    CHECK(h.lds_offset == 0);
    const lds_access_site& w = h.kind == lds_hazard_kind::raw ? h.earlier : h.later;
    const lds_access_site& r = h.kind == lds_hazard_kind::raw ? h.later : h.earlier;
    CHECK(w.wave == 0);
    CHECK(w.write);
    CHECK(r.wave == 1);
    CHECK_FALSE(r.write);
    CHECK_THAT(w.at.instruction, Catch::Matchers::StartsWith("ds_store_b32"));
    CHECK_THAT(r.at.instruction, Catch::Matchers::StartsWith("ds_load_b32"));
    CHECK_THAT(w.at.source, Catch::Matchers::EndsWith(write_line));
    CHECK_THAT(r.at.source, Catch::Matchers::EndsWith(read_line));
    CHECK_THAT(describe(h), Catch::Matchers::ContainsSubstring(read_line));
  }
}

TEST_CASE("The random schedule is a function of its seed, and interleaves at memory instructions") {
  auto co = load();
  // lds_race over 8 workgroups: each workgroup's outcome (0 or t + 1) records which wave the schedule ran first
  auto outcomes = [&](wave_schedule s, uint64_t seed) {
    test_memory mem;
    std::vector<int> firsts;
    for (unsigned g = 0; g < 8; ++g) {
      const uint64_t dout = mem.alloc(32 * sizeof(int));
      launch(*co, mem, kernel_named(*co, "lds_race"), {1, 1, 1}, {64, 1, 1}, {dout}, 0, s, seed + g);
      firsts.push_back(mem.download<int>(dout, 1)[0]);
    }
    return firsts;
  };
  CHECK(outcomes(wave_schedule::random, 11) == outcomes(wave_schedule::random, 11));
  const auto r = outcomes(wave_schedule::random, 11);
  CHECK(std::count(r.begin(), r.end(), 0) > 0);  // some seeds run wave 1 first ...
  CHECK(std::count(r.begin(), r.end(), 1) > 0);  // ... and some wave 0
  CHECK(outcomes(wave_schedule::in_order, 0) == std::vector<int>(8, 1));
  CHECK(outcomes(wave_schedule::reverse, 0) == std::vector<int>(8, 0));
}

TEST_CASE("allgather_sum (warp_allgather of a 12-byte struct) gives every lane the closed form") {
  auto co = load();
  test_memory mem;
  const unsigned blocks = 2, threads = 64;
  const uint64_t dout = mem.alloc(blocks * threads * sizeof(int));
  launch(*co, mem, kernel_named(*co, "allgather_sum"), {blocks, 1, 1}, {threads, 1, 1}, {dout});
  const auto out = mem.download<int>(dout, blocks * threads);
  for (unsigned i = 0; i < blocks * threads; ++i) {
    int s = 0;
    for (int k = 0; k < 32; ++k) s += k + k * k + 7 * k;
    CHECK(out[i] == s);
  }
}

TEST_CASE("Integer operations on the simulator equal the host's, bit for bit, over seeded inputs") {
  auto co = load();
  test_memory mem;
  const uint32_t n = 1000;  // 31.25 waves: the last wave has a partial EXEC
  const auto in = int_inputs(3 * n, 20261203);
  unsigned ops = 0;
#define TP_X(name, expr) ++ops;
  TP_SIM_INT_OPS(TP_X)
#undef TP_X
  const uint64_t din = mem.upload(in), dout = mem.alloc(std::size_t(n) * ops * 4);
  launch(*co, mem, kernel_named(*co, "int_ops"), {(n + 63) / 64, 1, 1}, {64, 1, 1}, {din, dout, n});
  const auto out = mem.download<uint32_t>(dout, std::size_t(n) * ops);
  std::size_t bad = 0;
  for (uint32_t i = 0; i < n; ++i) {
    const uint32_t a = in[3 * i], b = in[3 * i + 1], c = in[3 * i + 2];
    const int32_t sa = int32_t(a), sb = int32_t(b);
    (void)sa;
    (void)sb;
    unsigned k = 0;
#define TP_X(name, expr)                                                                              \
    {                                                                                                 \
      const uint32_t want = (expr), got = out[i * ops + k++];                                          \
      if (want != got && ++bad <= 10)                                                                 \
        UNSCOPED_INFO(#name << "(a=" << a << ", b=" << b << ", c=" << c << "): host " << want << ", sim " << got); \
    }
    TP_SIM_INT_OPS(TP_X)
#undef TP_X
  }
  CHECK(bad == 0);
}

TEST_CASE("f32 add, sub, mul and fma on the simulator are bit-exact against the host over seeded inputs") {
  auto co = load();
  test_memory mem;
  const uint32_t n = 2000;
  const auto in = f32_inputs(3 * n, 77);
  unsigned ops = 0;
#define TP_X(name, expr) ++ops;
  TP_SIM_F32_OPS(TP_X)
#undef TP_X
  const uint64_t din = mem.upload(in), dout = mem.alloc(std::size_t(n) * ops * 4);
  launch(*co, mem, kernel_named(*co, "f32_ops"), {(n + 127) / 128, 1, 1}, {128, 1, 1}, {din, dout, n});
  const auto out = mem.download<float>(dout, std::size_t(n) * ops);
  std::size_t bad = 0;
  for (uint32_t i = 0; i < n; ++i) {
    // The host side must round like the ISA: each operation once, no contraction (x * y + z is two roundings
    // unless the kernel's compiler fused it; clang -O3 for AMDGPU contracts only with -ffp-contract=fast).
    volatile float x = in[3 * i], y = in[3 * i + 1], z = in[3 * i + 2];
    unsigned k = 0;
#define TP_X(name, expr)                                                                              \
    {                                                                                                 \
      const float want = (expr), got = out[i * ops + k++];                                            \
      if (!same_f32(want, got) && ++bad <= 10)                                                        \
        UNSCOPED_INFO(#name << "(x=" << x << ", y=" << y << ", z=" << z << "): host " << want << ", sim " << got); \
    }
    TP_SIM_F32_OPS(TP_X)
#undef TP_X
  }
  CHECK(bad == 0);
}

TEST_CASE("grid_dim comes from the dispatch packet and block_dim from the hidden arguments") {
  auto co = load();
  test_memory mem;
  const unsigned blocks = 3, threads = 96;
  const uint64_t dout = mem.alloc(blocks * threads * 4);
  launch(*co, mem, kernel_named(*co, "launch_shape"), {blocks, 1, 1}, {threads, 1, 1}, {dout});
  const auto out = mem.download<uint32_t>(dout, blocks * threads);
  for (unsigned i = 0; i < blocks * threads; ++i) CHECK(out[i] == blocks * 100000u + threads * 100u + i / threads);
}

namespace {
// Operand pairs {a, b} for a / b, by class: each class drives the division sequence down another path of
// v_div_scale_f32 / v_div_fmas_f32 / v_div_fixup_f32 (RDNA3/RDNA4 ISA guides' pseudocode of those instructions).
float with_exponent(std::mt19937_64& rng, int biased) {  // random sign and mantissa, the given exponent field
  return std::bit_cast<float>(uint32_t(rng() & 0x807fffffu) | (uint32_t(biased) << 23));
}
float exponent_in(std::mt19937_64& rng, int lo, int hi) { return with_exponent(rng, lo + int(rng() % unsigned(hi - lo + 1))); }

std::vector<float> division_inputs(uint64_t seed) {
  std::mt19937_64 rng(seed);
  const float denorm_min = std::bit_cast<float>(0x00000001u), denorm_max = std::bit_cast<float>(0x007fffffu);
  const float specials[] = {0.0f, -0.0f, INFINITY, -INFINITY, NAN, -NAN, 1.0f, -3.0f, 0x1p-126f, 3.4028235e38f,
                            denorm_min, -denorm_max, 0x1p127f, 0x1.fffffep-1f, 0x1p-149f * 3.0f, -0x1p-110f};
  std::vector<float> v;
  for (float a : specials)  // every pair of specials
    for (float b : specials) v.insert(v.end(), {a, b});
  for (int k = 0; k < 3000; ++k) {
    const float s = specials[rng() % std::size(specials)], x = exponent_in(rng, 1, 254);
    v.insert(v.end(), {s, x, x, s});  // a special against an ordinary value, both ways
    v.insert(v.end(), {exponent_in(rng, 1, 254), exponent_in(rng, 1, 254)});  // normal / normal
    const int eb = 1 + int(rng() % 158);  // exponent(a) - exponent(b) >= 96: the quotient is scaled down
    v.insert(v.end(), {exponent_in(rng, eb + 96, 254), with_exponent(rng, eb)});
    const int ea = 1 + int(rng() % 120);  // quotients from below 2^-150 (rounds to zero) up to denormals
    v.insert(v.end(), {with_exponent(rng, ea), exponent_in(rng, ea + 100, std::min(254, ea + 160))});
    const int eq = 1 + int(rng() % 128);  // quotients around 2^-126, the normal/denormal boundary
    v.insert(v.end(), {with_exponent(rng, eq + 126), exponent_in(rng, std::max(1, eq + 122), std::min(254, eq + 130))});
    const int eo = 130 + int(rng() % 125);  // quotients around 2^128: overflow or not
    v.insert(v.end(), {with_exponent(rng, eo), exponent_in(rng, std::max(1, eo - 130), eo - 124)});
    v.insert(v.end(), {exponent_in(rng, 0, 23), exponent_in(rng, 0, 150)});  // a tiny or denormal numerator
    v.insert(v.end(), {exponent_in(rng, 0, 254), with_exponent(rng, 0)});    // a denormal denominator
    v.insert(v.end(), {with_exponent(rng, 0), with_exponent(rng, 0)});      // denormal / denormal
    v.insert(v.end(), {exponent_in(rng, 0, 254), exponent_in(rng, 250, 254)});  // 1/b is a binary32 denormal
    // a denominator whose significand is all ones (the Newton step's corner case)
    v.insert(v.end(), {exponent_in(rng, 0, 254), std::bit_cast<float>(uint32_t(1 + rng() % 254) << 23 | 0x7fffffu)});
    // ... under a power-of-two numerator: the quotient is just above a rounding midpoint
    v.insert(v.end(), {std::bit_cast<float>(uint32_t(1 + rng() % 254) << 23), std::bit_cast<float>(uint32_t(1 + rng() % 254) << 23 | 0x7fffffu)});
    v.insert(v.end(), {std::bit_cast<float>(uint32_t(rng())), std::bit_cast<float>(uint32_t(rng()))});  // any bits
  }
  return v;
}
}  // namespace

// The host divides in binary32 with round-to-nearest-even (SSE, denormals kept: the model's mode); every result must
// be the same bits, except that a NaN matches any NaN (NaN payloads are not compared anywhere in the probes).
TEST_CASE("f32 division on the simulator is correctly rounded like the host's, over every scaling path and special") {
  auto co = load();
  test_memory mem;
  const std::vector<float> in = division_inputs(99);
  const uint32_t n = uint32_t(in.size() / 2);
  const uint64_t din = mem.upload(in), dout = mem.alloc(std::size_t(n) * 4);
  launch(*co, mem, kernel_named(*co, "f32_div"), {(n + 255) / 256, 1, 1}, {256, 1, 1}, {din, dout, n});
  const auto out = mem.download<float>(dout, n);
  std::size_t bad = 0, denormal = 0, underflow_zero = 0, overflow = 0, nan = 0;
  for (uint32_t i = 0; i < n; ++i) {
    const float a = in[2 * i], b = in[2 * i + 1], want = a / b;
    if (!same_f32(want, out[i]) && ++bad <= 10)
      UNSCOPED_INFO(std::hexfloat << a << " / " << b << ": host " << want << ", sim " << out[i]);
    denormal += std::fpclassify(want) == FP_SUBNORMAL;
    underflow_zero += want == 0 && a != 0 && std::isfinite(b);
    overflow += std::isinf(want) && std::isfinite(a) && b != 0;
    nan += std::isnan(want);
  }
  CHECK(bad == 0);
  // The sequence ran through the helpers, and the compiler kept the denormal mode (the only one the machine models)
  // as it is: no s_denorm_mode / s_setreg around it, which it emits only for code compiled to flush f32 denormals.
  const auto& mnemonics = machine::program_of(*co).mnemonics;
  const auto has = [&](std::string_view prefix) {
    return std::any_of(mnemonics.begin(), mnemonics.end(), [&](const std::string& m) { return m.rfind(prefix, 0) == 0; });
  };
  CHECK(has("v_div_scale_f32"));
  CHECK(has("v_div_fmas_f32"));
  CHECK(has("v_div_fixup_f32"));
  CHECK_FALSE(has("s_denorm_mode"));
  CHECK_FALSE(has("s_setreg"));
  // The classes reach the results that need div_fmas's scaling and div_fixup's cases.
  CHECK(denormal > 1000);
  CHECK(underflow_zero > 500);
  CHECK(overflow > 500);
  CHECK(nan > 500);
}

// Each helper instruction on hand-derived cases (not on the model's own code): the guides' pseudocode where it holds,
// the corrected rules of semantics_valu.cpp where it does not (marked). in = {a, b, c, vcc}; div_scale sees numerator
// a and denominator b; nd = exponent(a) - exponent(b), the encoded exponents.
TEST_CASE("v_div_scale_f32, v_div_fmas_f32 and v_div_fixup_f32 give the ISA's results case by case") {
  struct helper_case {
    const char* what;
    float a, b, c, vcc;
    float scaled_num, num_vcc, scaled_den, den_vcc, fmas, fixup;
  };
  const float nan = NAN, inf = INFINITY, p64 = 0x1p64f;
  const helper_case cases[] = {
      // div_scale: nothing to scale; VCC 0. fmas: fma(1, 4, 7) = 11. fixup: sign from S1 and S2, magnitude |S0|.
      {"ordinary", 1.0f, 4.0f, 7.0f, 0, 1.0f, 0, 4.0f, 0, 11.0f, 1.0f},
      // nd = 110 >= 96: the denominator goes up by 2^64, the numerator stays; VCC 1 for both.
      {"quotient near the top", 0x1p100f, 0x1p-10f, 0x1p89f, 0, 0x1p100f, 1, 0x1p54f, 1, 0x1.8p90f, 0x1p100f},
      // a denormal denominator (nd = 87 < 96): both go up by 2^64, the quotient is unchanged; VCC 0.
      {"denormal denominator", 0x1.8p-40f, 0x1p-140f, 5.0f, 0, 0x1.8p24f, 0, 0x1p-76f, 0, 5.0f, 0x1.8p-40f},
      // nd = -130 <= -96 (a / b = 2^-130, a denormal): the numerator goes up by 2^64; VCC 1.
      {"denormal quotient", 0x1p-100f, 0x1p30f, 1.0f, 0, 0x1p-36f, 1, 0x1p30f, 1, 1.0f, 0x1p-100f},
      // corrected: nd = -100 <= -96 scales although a / b = 2^-100 is normal (the guide tests for a denormal quotient).
      {"small quotient", 0x1p-10f, 0x1p90f, 1.0f, 0, 0x1p54f, 1, 0x1p90f, 1, 0x1p80f, 0x1p-10f},
      // exponent(a) = 17 <= 23, nd = -90: both go up by 2^64; VCC 0.
      {"tiny numerator", 0x1p-110f, 0x1p-20f, 1.0f, 0, 0x1p-46f, 0, 0x1p44f, 0, 1.0f, 0x1p-110f},
      // corrected: exponent(a) = 24 still counts as tiny (the guide says <= 23).
      {"numerator exponent 24", 0x1p-103f, 0x1p-10f, 1.0f, 0, 0x1p-39f, 0, 0x1p54f, 0, 1.0f, 0x1p-103f},
      // corrected: |b| >= 2^126 (1/b is a binary32 denormal) and nd = -27: both go down by 2^64; VCC 0 (the guide's
      // "1/S1 == DENORM.f64" can never hold for a binary32 S1). fma(2^100, 2^127, 1) overflows.
      {"huge denominator", 0x1p100f, 0x1p127f, 1.0f, 0, 0x1p36f, 0, 0x1p63f, 0, inf, 0x1p100f},
      // corrected: |b| >= 2^126 and nd = -117 <= -96: only the denominator goes down by 2^64; VCC 1.
      {"huge denominator, tiny quotient", 0x1p10f, 0x1p127f, 1.0f, 0, 0x1p10f, 1, 0x1p63f, 1, inf, 0x1p10f},
      // a zero operand: D = NaN for either selection; corrected: VCC from the exponent tests (0 / 5: nd = -129, VCC 1;
      // the guide says 0). fixup: 0 / 5 = +0.
      {"zero numerator", 0.0f, 5.0f, 0.0f, 0, nan, 1, nan, 1, 0.0f, 0.0f},
      // 1 / 0: nd = 127 >= 96, VCC 1; D = NaN. fixup(1, 0, 1): x / 0 = +inf.
      {"zero denominator", 1.0f, 0.0f, 1.0f, 0, nan, 1, nan, 1, 1.0f, inf},
      // an infinite numerator passes through div_scale (nd = 127: VCC 1; the denominator goes up). fixup(inf, 2, 3):
      // an infinite quotient estimate for finite operands is an overflow: +inf.
      {"infinite numerator", inf, 2.0f, 3.0f, 0, inf, 1, 0x1p65f, 1, inf, inf},
  };
  // div_fmas with VCC set: |S2| = 2 has exponent 128 > 127, so fma(1, 1, 2) = 3 goes up by 2^64; |S2| = 1 (exponent
  // 127) goes down: fma(2, 3, 1) = 7 times 2^-64.
  // One rounding: fma(2^-100, 2^-20, 2^-63 (1 + 2^-23)) is just above 2^-63 (1 + 2^-23) = c; times 2^-64 that is just
  // above the midpoint between the denormals 2^-149 (2^22) and 2^-149 (2^22 + 1), so it rounds up to the odd one.
  // Rounding the fma to binary32 first gives c, an exact midpoint after scaling, which ties to the even 2^-127.
  struct fmas_case {
    float a, b, c, want;
  };
  const fmas_case scaled[] = {{1.0f, 1.0f, 2.0f, 3.0f * p64},
                              {2.0f, 3.0f, 1.0f, 7.0f / p64},
                              {0x1p-100f, 0x1p-20f, 0x1p-63f * (1.0f + 0x1p-23f), 0x1p-127f + 0x1p-149f}};
  // div_fixup(S0 = quotient, S1 = denominator, S2 = numerator), the guide's cases in order.
  struct fixup_case {
    float q, den, num, want;
  };
  const fixup_case fixups[] = {
      {3.0f, -2.0f, 6.0f, -3.0f},        // the sign from S1 and S2, the magnitude from S0
      {-3.0f, -2.0f, -6.0f, 3.0f},
      {1.0f, 2.0f, nan, nan},            // a NaN numerator or denominator: NaN
      {1.0f, nan, 2.0f, nan},
      {1.0f, 0.0f, -0.0f, nan},          // 0/0 and inf/inf: NaN
      {1.0f, -inf, inf, nan},
      {1.0f, -0.0f, 5.0f, -inf},         // x/0 and inf/y: infinity
      {1.0f, 2.0f, -inf, -inf},
      {1.0f, inf, 5.0f, 0.0f},           // x/inf and 0/y: zero
      {1.0f, -2.0f, 0.0f, -0.0f},
      {1.0f, 0x1p100f, 0x1p-60f, 0.0f},  // exponent(N) - exponent(D) = -160 < -150: underflow to zero
      {1.0f, -0x1p100f, 0x1p-60f, -0.0f},
      {nan, 0x1p-100f, 0x1p100f, inf},   // an overflowed (infinite or NaN) quotient: infinity of the sign
      {-inf, -0x1p-100f, 0x1p100f, -inf},
  };
  std::vector<float> in;
  for (const helper_case& h : cases) in.insert(in.end(), {h.a, h.b, h.c, h.vcc});
  for (const fmas_case& f : scaled) in.insert(in.end(), {f.a, f.b, f.c, 1.0f});
  for (const fixup_case& f : fixups) in.insert(in.end(), {f.q, f.den, f.num, 0.0f});
  auto co = load();
  test_memory mem;
  const uint32_t n = uint32_t(in.size() / 4);
  const uint64_t din = mem.upload(in), dout = mem.alloc(std::size_t(n) * 6 * 4);
  launch(*co, mem, kernel_named(*co, "div_helpers"), {1, 1, 1}, {64, 1, 1}, {din, dout, n});
  const auto out = mem.download<float>(dout, std::size_t(n) * 6);
  uint32_t i = 0;
  for (const helper_case& h : cases) {
    CAPTURE(h.what);
    const float* r = &out[6 * i++];
    CHECK(same_f32(r[0], h.scaled_num));
    CHECK(r[1] == h.num_vcc);
    CHECK(same_f32(r[2], h.scaled_den));
    CHECK(r[3] == h.den_vcc);
    CHECK(same_f32(r[4], h.fmas));
    CHECK(same_f32(r[5], h.fixup));
  }
  for (const fmas_case& f : scaled) {
    CAPTURE(f.a, f.b, f.c);
    CHECK(same_f32(out[6 * i++ + 4], f.want));
  }
  for (const fixup_case& f : fixups) {
    CAPTURE(f.q, f.den, f.num);
    CHECK(same_f32(out[6 * i++ + 5], f.want));
  }
}

namespace {
namespace isa = tp::ref::isa;

struct matrix_case {
  const char* kernel;
  isa::instr in;
  isa::modifiers mods;
};

// Runs one matrix kernel on registers placed by the model's layouts and returns D read back by the model.
isa::code_matrix run_matrix(code_object& co, const matrix_case& mc, const isa::wave_regs& a, const isa::wave_regs& b,
                            const isa::wave_regs& c, const isa::wave_regs& index) {
  test_memory mem;
  auto up = [&](const isa::wave_regs& r) {
    return mem.upload(std::vector<uint32_t>(r.words().begin(), r.words().end()));
  };
  const uint64_t da = up(a), db = up(b), dc = up(c), di = up(index);
  isa::wave_regs d = isa::make_d_regs(mc.in);
  const uint64_t dd = mem.alloc(d.words().size() * 4);
  launch(co, mem, kernel_named(co, mc.kernel), {1, 1, 1}, {32, 1, 1}, {da, db, dc, di, dd});
  const auto words = mem.download<uint32_t>(dd, d.words().size());
  std::copy(words.begin(), words.end(), d.words().begin());
  return isa::read_d(mc.in, d);
}

uint32_t random_code(isa::elem e, std::mt19937_64& rng) {
  switch (e) {
    case isa::elem::iu4: return uint32_t(rng() & 0xfu);
    case isa::elem::iu8:
    case isa::elem::fp8:
    case isa::elem::bf8: {
      uint32_t v = uint32_t(rng() & 0xffu);
      if (e != isa::elem::iu8 && ((v & 0x7fu) == 0x7fu || (e == isa::elem::bf8 && (v & 0x7cu) == 0x7cu))) v &= 0x3fu;  // no NaN/inf
      return v;
    }
    case isa::elem::f16: return uint32_t(0x3000u + (rng() % 0x1800u)) | (rng() & 1 ? 0x8000u : 0u);  // 2^-3 .. 2^3
    case isa::elem::bf16: return uint32_t(0x3e00u + (rng() % 0x200u)) | (rng() & 1 ? 0x8000u : 0u);
    case isa::elem::i32: return uint32_t(rng());
    case isa::elem::f32: return std::bit_cast<uint32_t>(float(int(rng() % 2001) - 1000) / 8.0f);
  }
  return 0;
}
}  // namespace

TEST_CASE("v_swmmac and v_wmma on the simulator compute reference/isa's logical D from the builtins' operands") {
  auto co = load();
  const matrix_case cases[] = {
      {"swmmac_iu8_ss_key0", isa::instr::swmmac_i32_16x16x32_iu8, {true, true, false, 0}},
      {"swmmac_iu8_us_key1", isa::instr::swmmac_i32_16x16x32_iu8, {false, true, false, 1}},
      {"swmmac_iu4_ss_key0", isa::instr::swmmac_i32_16x16x32_iu4, {true, true, false, 0}},
      {"swmmac_iu4x64_su", isa::instr::swmmac_i32_16x16x64_iu4, {true, false, false, 0}},
      {"swmmac_f16_key1", isa::instr::swmmac_f32_16x16x32_f16, {true, true, false, 1}},
      {"swmmac_fp8_fp8_key0", isa::instr::swmmac_f32_16x16x32_fp8_fp8, {true, true, false, 0}},
      {"swmmac_fp8_bf8_key1", isa::instr::swmmac_f32_16x16x32_fp8_bf8, {true, true, false, 1}},
      {"swmmac_bf8_fp8_key0", isa::instr::swmmac_f32_16x16x32_bf8_fp8, {true, true, false, 0}},
      {"swmmac_bf8_bf8_key1", isa::instr::swmmac_f32_16x16x32_bf8_bf8, {true, true, false, 1}},
      {"swmmac_bf16_key0", isa::instr::swmmac_f32_16x16x32_bf16, {true, true, false, 0}},
      {"wmma_iu4_us", isa::instr::wmma_i32_16x16x32_iu4, {false, true, false, 0}},
      {"wmma_iu8_ss_clamp", isa::instr::wmma_i32_16x16x16_iu8, {true, true, true, 0}},
      {"wmma_f16", isa::instr::wmma_f32_16x16x16_f16, {true, true, false, 0}},
      {"gfx11_wmma_f16", isa::instr::gfx11_wmma_f32_16x16x16_f16, {true, true, false, 0}},
      {"gfx11_wmma_iu8_su_clamp", isa::instr::gfx11_wmma_i32_16x16x16_iu8, {true, false, true, 0}},
  };
  // On the arch that has an instruction, kernels/mma calls the builtin: the code object must hold the instruction
  // itself (elsewhere the op is software, which runs here just the same and must give the same D).
  const std::string arch = co->arch();
  const isa::arch family = arch.rfind("gfx12", 0) == 0 ? isa::arch::gfx12 : isa::arch::gfx11;
  const auto& mnemonics = machine::program_of(*co).mnemonics;
  for (const matrix_case& mc : cases) {
    CAPTURE(mc.kernel);
    const isa::instr_info& f = isa::info(mc.in);
    if (f.target == family)
      CHECK(std::find(mnemonics.begin(), mnemonics.end(), std::string(f.mnemonic)) != mnemonics.end());
    for (uint64_t seed = 1; seed <= 3; ++seed) {
      CAPTURE(seed);
      std::mt19937_64 rng(seed * 1000003 + uint64_t(mc.in));
      isa::code_matrix bm(f.k, f.n), cm(f.m, f.n);
      for (auto& x : bm.data) x = random_code(f.b, rng);
      for (auto& x : cm.data) x = random_code(f.d, rng);
      if (mc.mods.clamp) cm(0, 0) = 0x7ffffff0u;  // saturates
      isa::wave_regs a = isa::make_a_regs(mc.in), b = isa::make_b_regs(mc.in), c = isa::make_d_regs(mc.in);
      isa::wave_regs index = isa::make_index_regs(mc.in);
      for (auto& w : index.words()) w = uint32_t(rng());  // the other index half holds garbage the op must ignore
      isa::code_matrix want;
      if (f.sparse) {
        isa::sparse_a sa(f.m, f.k / 4);
        for (auto& v : sa.values) v = random_code(f.a, rng);
        for (auto& fl : sa.fields) fl = uint8_t(rng() & 3u);
        isa::place_sparse_a(mc.in, sa, a, index, mc.mods.index_key);
        want = isa::execute_sparse(mc.in, sa, bm, cm, mc.mods);
      } else {
        isa::code_matrix am(f.m, f.k);
        for (auto& x : am.data) x = random_code(f.a, rng);
        isa::place_dense_a(mc.in, am, a);
        want = isa::execute_dense(mc.in, am, bm, cm, mc.mods);
      }
      isa::place_b(mc.in, bm, b);
      isa::place_d(mc.in, cm, c);
      const isa::code_matrix got = run_matrix(*co, mc, a, b, c, index);
      CHECK(got.data == want.data);
    }
  }
}

TEST_CASE("v_wmma with the inline constant 0 as C (gfx12) reads 0 and not the VGPRs from v0") {
  auto co = load();
  const matrix_case mc{"wmma_f16_c0", isa::instr::wmma_f32_16x16x16_f16, {true, true, false, 0}};
  if (co->arch().rfind("gfx12", 0) != 0) {  // gfx11's WMMA takes C from VGPRs only: no such kernel there
    CHECK_THROWS(kernel_named(*co, mc.kernel));
    return;
  }
  const isa::instr_info& f = isa::info(mc.in);
  std::mt19937_64 rng(7);
  isa::code_matrix am(f.m, f.k), bm(f.k, f.n), zero(f.m, f.n), garbage(f.m, f.n);
  for (auto& x : am.data) x = random_code(f.a, rng);
  for (auto& x : bm.data) x = random_code(f.b, rng);
  for (auto& x : garbage.data) x = random_code(f.d, rng);  // in D's registers before the op: must not be added
  isa::wave_regs a = isa::make_a_regs(mc.in), b = isa::make_b_regs(mc.in), c = isa::make_d_regs(mc.in);
  isa::wave_regs index = isa::make_index_regs(mc.in);
  isa::place_dense_a(mc.in, am, a);
  isa::place_b(mc.in, bm, b);
  isa::place_d(mc.in, garbage, c);
  CHECK(run_matrix(*co, mc, a, b, c, index).data == isa::execute_dense(mc.in, am, bm, zero, mc.mods).data);
}

TEST_CASE("v_wmma_f16_16x16x16_f16 gives reference/isa's binary16 accumulation bit for bit, within its bound of fp64") {
  // The model (reference/isa README, assumption 7: AMD's rocjitsu emulator's): from C, the exact products added in
  // ascending k in binary32, each add rounded, the sum rounded once to binary16. Checked three ways: the simulator's D
  // words equal isa::execute's (the other half of each gfx11 slot keeps C's bits); the logical D equals this test's own
  // host computation of the model; and D is within the model's error bound of the exact sum C + sum_k A*B (exact in
  // fp64 here: codes of magnitude 2^-3..2^3 put every term on a 2^-26 grid below 2^11): recursive binary32 summation
  // of 17 terms errs by at most gamma_16 * sum|terms| (gamma_n = n*u / (1 - n*u), u = 2^-24), and the final rounding
  // to binary16 by 2^-11 of the binary32 sum (relative) or 2^-25 (absolute, below binary16's normal range).
  auto co = load();
  const bool gfx11 = co->arch().rfind("gfx11", 0) == 0;
  struct f16_case {
    const char* kernel;
    unsigned d_half;
  };
  std::vector<f16_case> cases = {{"wmma_f16_acc", 0}};
  if (gfx11) cases.push_back({"wmma_f16_acc_hi", 1});
  const isa::instr in = gfx11 ? isa::instr::gfx11_wmma_f16_16x16x16_f16 : isa::instr::wmma_f16_16x16x16_f16;
  const isa::instr_info& f = isa::info(in);
  const auto& mnemonics = machine::program_of(*co).mnemonics;
  CHECK(std::find(mnemonics.begin(), mnemonics.end(), "v_wmma_f16_16x16x16_f16") != mnemonics.end());
  const auto value = [](uint32_t code) { return double(std::bit_cast<_Float16>(uint16_t(code))); };
  const double u = 0x1p-24, gamma16 = 16 * u / (1 - 16 * u);
  for (const f16_case& fc : cases)
    for (uint64_t seed = 1; seed <= 4; ++seed) {
      CAPTURE(fc.kernel, seed);
      std::mt19937_64 rng(seed * 7919 + fc.d_half);
      isa::code_matrix am(f.m, f.k), bm(f.k, f.n), cm(f.m, f.n);
      for (auto* m : {&am, &bm, &cm})
        for (auto& x : m->data) x = random_code(isa::elem::f16, rng);
      isa::wave_regs a = isa::make_a_regs(in), b = isa::make_b_regs(in), c = isa::make_d_regs(in);
      for (auto& w : c.words()) w = uint32_t(rng());  // the halves C/D do not use hold garbage D must keep
      isa::place_dense_a(in, am, a);
      isa::place_b(in, bm, b);
      isa::place_d(in, cm, c, fc.d_half);
      const isa::modifiers mods{.d_half = fc.d_half};
      const isa::wave_regs want = isa::execute(in, a, b, c, isa::make_index_regs(in), mods);

      test_memory mem;
      const auto up = [&](const isa::wave_regs& r) {
        return mem.upload(std::vector<uint32_t>(r.words().begin(), r.words().end()));
      };
      const uint64_t da = up(a), db = up(b), dc = up(c), di = up(isa::make_index_regs(in));
      const uint64_t dd = mem.alloc(c.words().size() * 4);
      launch(*co, mem, kernel_named(*co, fc.kernel), {1, 1, 1}, {32, 1, 1}, {da, db, dc, di, dd});
      isa::wave_regs got = isa::make_d_regs(in);
      const auto words = mem.download<uint32_t>(dd, got.words().size());
      std::copy(words.begin(), words.end(), got.words().begin());
      CHECK(got == want);

      const isa::code_matrix dm = isa::read_d(in, got, fc.d_half);
      unsigned model_mismatches = 0, outside_bound = 0;
      for (unsigned i = 0; i < f.m; ++i)
        for (unsigned j = 0; j < f.n; ++j) {
          float acc = float(value(cm(i, j)));
          double exact = value(cm(i, j)), magnitude = std::fabs(exact);
          for (unsigned k = 0; k < f.k; ++k) {
            const double p = value(am(i, k)) * value(bm(k, j));
            acc += float(p);
            exact += p;
            magnitude += std::fabs(p);
          }
          if (dm(i, j) != std::bit_cast<uint16_t>(_Float16(acc))) ++model_mismatches;
          const double err = std::fabs(value(dm(i, j)) - exact);
          if (err > gamma16 * magnitude + 0x1p-11 * (std::fabs(exact) + gamma16 * magnitude) + 0x1p-25) ++outside_bound;
        }
      CHECK(model_mismatches == 0);
      CHECK(outside_bound == 0);
    }
}

TEST_CASE("A hand-derived one-hot v_swmmac_i32_16x16x32_iu8 vector: one A value meets one B value") {
  // Row 1, group 0 stores a single nonzero value 3 in slot 0 with field 2: it pairs with B[k = 4*0 + 2][j] only.
  // B[2][5] = 7 and every other B is 0, so D = C everywhere except D[1][5] = C[1][5] + 21.
  auto co = load();
  const matrix_case mc{"swmmac_iu8_ss_key0", isa::instr::swmmac_i32_16x16x32_iu8, {true, true, false, 0}};
  const isa::instr_info& f = isa::info(mc.in);
  isa::sparse_a sa(f.m, f.k / 4);
  sa.value(1, 0, 0) = 3;
  sa.field(1, 0, 0) = 2;
  sa.field(1, 0, 1) = 3;
  isa::code_matrix bm(f.k, f.n), cm(f.m, f.n);
  bm(2, 5) = 7;
  bm(3, 5) = 100;  // position 3 of the group: slot 1 points here but holds 0, so it adds nothing
  for (std::size_t i = 0; i < cm.data.size(); ++i) cm.data[i] = uint32_t(i);
  isa::wave_regs a = isa::make_a_regs(mc.in), b = isa::make_b_regs(mc.in), c = isa::make_d_regs(mc.in);
  isa::wave_regs index = isa::make_index_regs(mc.in);
  isa::place_sparse_a(mc.in, sa, a, index, 0);
  isa::place_b(mc.in, bm, b);
  isa::place_d(mc.in, cm, c);
  const isa::code_matrix got = run_matrix(*co, mc, a, b, c, index);
  for (unsigned i = 0; i < f.m; ++i)
    for (unsigned j = 0; j < f.n; ++j) CHECK(got(i, j) == cm(i, j) + ((i == 1 && j == 5) ? 21u : 0u));
}

TEST_CASE("An instruction the machine does not implement stops the dispatch with its mnemonic, kernel and pc") {
  auto co = load();
  test_memory mem;
  const uint64_t dout = mem.alloc(64 * 4);
  const std::string name = kernel_named(*co, "reaches_unimplemented");
  try {
    launch(*co, mem, name, {1, 1, 1}, {32, 1, 1}, {dout});
    FAIL("the dispatch ran past s_getreg_b32");
  } catch (const sim_error& e) {
    const std::string what = e.what();
    CHECK_THAT(what, Catch::Matchers::ContainsSubstring("unimplemented s_getreg_b32"));
    CHECK_THAT(what, Catch::Matchers::ContainsSubstring(name));
    CHECK_THAT(what, Catch::Matchers::ContainsSubstring("at pc 0x"));
  }
  // What ran before it did run: the first store.
  CHECK(mem.download<uint32_t>(dout, 1)[0] == 1);
}

TEST_CASE("A global access outside every allocation is reported, not performed") {
  auto co = load();
  test_memory mem;
  const uint64_t small = mem.alloc(16);  // int_ops reads 3 words per thread: thread 2 reads past 16 bytes
  const uint64_t dout = mem.alloc(1 << 16);
  CHECK_THROWS_AS(launch(*co, mem, kernel_named(*co, "int_ops"), {1, 1, 1}, {32, 1, 1}, {small, dout, 32}), sim_error);
}

TEST_CASE("Globals: the placed image gives __constant__ data, relocated pointer tables and a writable .bss") {
  auto co = load();
  REQUIRE(co->image_bytes() > 0);
  test_memory mem;
  std::vector<uint32_t> keys(32);
  for (uint32_t l = 0; l < 32; ++l) keys[l] = (l * 37u) ^ (l >> 1);
  const uint64_t dkey = mem.upload(keys);
  const uint64_t dout = mem.alloc(33 * 4);
  const std::string kernel = kernel_named(*co, "read_globals");
  // Not placed: the kernel's PC-relative address of its table is no allocation's.
  CHECK_THROWS_AS(launch(*co, mem, kernel, {1, 1, 1}, {32, 1, 1}, {dkey, dout}), sim_error);

  mem.place_image(*co);
  const uint32_t table[8] = {3, 5, 7, 11, 13, 17, 19, 23};
  const uint32_t row_start[4] = {6, 4, 2, 0};
  for (uint32_t run = 1; run <= 2; ++run) {
    launch(*co, mem, kernel, {1, 1, 1}, {32, 1, 1}, {dkey, dout});
    const auto out = mem.download<uint32_t>(dout, 33);
    for (uint32_t l = 0; l < 32; ++l) {
      const uint32_t k = keys[l];
      CHECK(out[l] == table[row_start[k & 3] + ((k >> 2) & 1)] * 100 + table[(k >> 3) & 7]);
    }
    CHECK(out[32] == run);  // .bss starts at 0; the first launch's increment stays in the image
  }
}

TEST_CASE("Bytes that are not an AMDGPU code object are refused at load") {
  const std::vector<uint8_t> junk(100, 0x42);
  CHECK_THROWS_AS(load_code_object(junk), sim_error);
}
