// Single-instruction tests (isa_cases.h): each instruction the machine declares, run on the simulator by a kernel of
// test_kernels.cu that executes it alone, against the host's computation of what the guides define. Together with
// the other tests here and the hip-sim tests, they execute every declared instruction on both archs (the coverage
// audit, simt/amdgpu_sim/audit, checks that).
#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <catch2/catch_test_macros.hpp>

#include "simt/amdgpu_sim/machine.h"
#include "tests/amdgpu_sim/machine/harness.h"
#include "tests/amdgpu_sim/machine/isa_cases.h"

using namespace tp::amdgpu_sim;
using tp::amdgpu_sim::test::kernel_named;
using tp::amdgpu_sim::test::launch;
using tp::amdgpu_sim::test::test_memory;

namespace {

test::loaded_object load() { return test::load(test::read_file(TP_SIM_TEST_KERNELS)); }

template <class T>
T as(uint64_t word) {
  if constexpr (sizeof(T) == 2) return std::bit_cast<T>(uint16_t(word));
  else if constexpr (sizeof(T) == 4) return std::bit_cast<T>(uint32_t(word));
  else return std::bit_cast<T>(word);
}

// 32 lanes of operand pairs for one operand width: equal pairs, each order of a few neighbours, and random words; the
// float edge values (NaN, infinities, zeros of both signs, denormals) sit in every width's low bits.
void vopc_operands(unsigned bits, uint64_t seed, std::vector<uint64_t>& a, std::vector<uint64_t>& b) {
  std::mt19937_64 rng(seed);
  const uint64_t mask = bits == 64 ? ~0ull : (1ull << bits) - 1;
  std::vector<uint64_t> edges;
  if (bits == 16) edges = {0x7e00, 0x7c00, 0xfc00, 0x0000, 0x8000, 0x0001, 0x3c00, 0xbc00};
  if (bits == 32) edges = {0x7fc00000, 0x7f800000, 0xff800000, 0, 0x80000000, 1, 0x3f800000, 0xbf800000};
  if (bits == 64)
    edges = {0x7ff8000000000000, 0x7ff0000000000000, 0xfff0000000000000, 0, 0x8000000000000000, 1,
             0x3ff0000000000000, 0xbff0000000000000};
  a.resize(32);
  b.resize(32);
  for (unsigned l = 0; l < 32; ++l) {
    if (l < 8) a[l] = b[l] = edges[l];                            // equal (NaN == NaN is false)
    else if (l < 16) a[l] = edges[l % 8], b[l] = edges[(l * 3) % 8];  // edge against edge
    else if (l < 20) a[l] = rng() & mask, b[l] = a[l] + 1;        // neighbours, both orders
    else if (l < 24) b[l] = rng() & mask, a[l] = b[l] + 1;
    else a[l] = rng(), b[l] = rng();
    a[l] &= mask;
    b[l] &= mask;
  }
}

}  // namespace

TEST_CASE("Every VOPC compare, to an SGPR and to EXEC, gives the host's comparison of each lane's operands") {
  auto co = load();
  test_memory mem;
  std::vector<uint32_t> want;
  std::vector<uint64_t> a16, b16, a32, b32, a64, b64;
  vopc_operands(16, 1601, a16, b16);
  vopc_operands(32, 3201, a32, b32);
  vopc_operands(64, 6401, a64, b64);
  // The kernel reads one pair of words per lane for every case: each case's width picks its pair of lanes' words.
  // One launch per width keeps a case's operands its own width's.
  const auto run = [&](const std::vector<uint64_t>& a, const std::vector<uint64_t>& b) {
    const uint64_t da = mem.upload(a), db = mem.upload(b), dout = mem.alloc(2 * 128 * 4);
    launch(*co, mem, kernel_named(*co, "vopc_cases"), {1, 1, 1}, {32, 1, 1}, {da, db, dout});
    return mem.download<uint32_t>(dout, 2 * 128);
  };
  const std::vector<uint32_t> got16 = run(a16, b16), got32 = run(a32, b32), got64 = run(a64, b64);
  unsigned k = 0, checked = 0;
#define TP_VOPC_CASE(sfx, T, bits, kind, expr)                                                  \
  {                                                                                             \
    const auto& A = a##bits;                                                                    \
    const auto& B = b##bits;                                                                    \
    uint32_t expect = 0;                                                                        \
    for (unsigned l = 0; l < 32; ++l) {                                                         \
      const T a = as<T>(A[l]), b = as<T>(B[l]);                                                 \
      (void)a, (void)b;                                                                         \
      expect |= uint32_t(bool(expr)) << l;                                                      \
    }                                                                                           \
    CAPTURE("v_cmp_" #kind "_" #sfx, k);                                                        \
    CHECK(got##bits[2 * k] == expect);                                                          \
    CHECK(got##bits[2 * k + 1] == expect);                                                      \
    ++k;                                                                                        \
    ++checked;                                                                                  \
  }
#define TP_VOPC_TYPE(sfx, T, bits, KINDS) KINDS(TP_VOPC_CASE, sfx, T, bits)
  TP_SIM_VOPC_CASES(TP_VOPC_TYPE)
#undef TP_VOPC_TYPE
#undef TP_VOPC_CASE
  CHECK(checked == k);
  CHECK(k >= 78);
}

namespace {

enum class moved { whole, zext, sext, lo16z, hi16z, lo16s, hi16s };

// The registers a load leaves (from `init`, the registers before it, and the loaded bytes at `p`).
std::array<uint32_t, 4> loaded(const uint8_t* p, unsigned regs, unsigned bytes, moved kind, std::array<uint32_t, 4> init) {
  uint64_t raw = 0;
  std::array<uint32_t, 4> r = init;
  if (kind == moved::whole) {
    for (unsigned d = 0; d < regs; ++d) std::memcpy(&r[d], p + 4 * d, 4);
    return r;
  }
  std::memcpy(&raw, p, bytes);
  const bool sext = kind == moved::sext || kind == moved::lo16s || kind == moved::hi16s;
  uint32_t v = uint32_t(raw);
  if (sext) v = bytes == 1 ? uint32_t(int32_t(int8_t(v))) : uint32_t(int32_t(int16_t(v)));
  if (kind == moved::zext || kind == moved::sext) r[0] = v;
  else if (kind == moved::lo16z || kind == moved::lo16s) r[0] = (init[0] & 0xffff0000u) | (v & 0xffffu);
  else r[0] = (init[0] & 0xffffu) | (v << 16);
  return r;
}
// The slot a store leaves (zero before; the data registers `data`).
std::array<uint8_t, TP_SIM_MEM_SLOT> stored(unsigned regs, unsigned bytes, moved kind, std::array<uint32_t, 4> data) {
  std::array<uint8_t, TP_SIM_MEM_SLOT> slot{};
  uint8_t src[16];
  std::memcpy(src, data.data(), 16);
  const unsigned from = kind == moved::hi16z ? 2 : 0;  // a d16_hi store stores from the high half
  (void)regs;
  std::memcpy(slot.data() + TP_SIM_MEM_AT, src + from, bytes);
  return slot;
}
std::array<uint32_t, 4> data_words(unsigned lane) {
  return {tp_sim_data_word(lane, 0), tp_sim_data_word(lane, 1), tp_sim_data_word(lane, 2), tp_sim_data_word(lane, 3)};
}
std::vector<uint32_t> slot_words() {  // every lane's slot, tp_sim_slot_byte
  std::vector<uint8_t> bytes(32 * TP_SIM_MEM_SLOT);
  for (unsigned l = 0; l < 32; ++l)
    for (unsigned i = 0; i < TP_SIM_MEM_SLOT; ++i) bytes[l * TP_SIM_MEM_SLOT + i] = tp_sim_slot_byte(l, i);
  std::vector<uint32_t> words(bytes.size() / 4);
  std::memcpy(words.data(), bytes.data(), bytes.size());
  return words;
}

struct form {
  const char* name;
  unsigned regs, bytes;
  moved kind;
};
#define TP_FORM(sfx, regs, bytes, kind) form{#sfx, regs, bytes, moved::kind},
const form vmem_loads[] = {TP_SIM_VMEM_LOADS(TP_FORM)};
const form vmem_stores[] = {TP_SIM_VMEM_STORES(TP_FORM)};
const form ds_loads[] = {TP_SIM_DS_LOADS(TP_FORM)};
const form ds_stores[] = {TP_SIM_DS_STORES(TP_FORM)};
#undef TP_FORM

// Checks the loads of `forms` (cases from `first` on) against the slots' bytes, lane by lane.
void check_loads(const std::vector<uint32_t>& got, std::span<const form> forms, unsigned first, const char* space,
                 const std::vector<uint32_t>& slots) {
  const auto* bytes = reinterpret_cast<const uint8_t*>(slots.data());
  for (unsigned c = 0; c < forms.size(); ++c)
    for (unsigned l = 0; l < 32; ++l) {
      const form& f = forms[c];
      const auto want = loaded(bytes + l * TP_SIM_MEM_SLOT + TP_SIM_MEM_AT, f.regs, f.bytes, f.kind, data_words(l));
      CAPTURE(space, f.name, l);
      for (unsigned d = 0; d < f.regs; ++d) CHECK(got[((first + c) * 32 + l) * 4 + d] == want[d]);
    }
}
void check_stores(const std::vector<uint32_t>& got, std::span<const form> forms, unsigned first, const char* space) {
  for (unsigned c = 0; c < forms.size(); ++c)
    for (unsigned l = 0; l < 32; ++l) {
      const form& f = forms[c];
      const auto want = stored(f.regs, f.bytes, f.kind, data_words(l));
      std::array<uint8_t, TP_SIM_MEM_SLOT> have;
      std::memcpy(have.data(), got.data() + ((first + c) * 32 + l) * (TP_SIM_MEM_SLOT / 4), TP_SIM_MEM_SLOT);
      CAPTURE(space, f.name, l);
      CHECK(have == want);
    }
}

}  // namespace

TEST_CASE("Global, flat and scratch loads of every form move the lane's bytes as the form says") {
  auto co = load();
  test_memory mem;
  const auto slots = slot_words();
  const unsigned n = unsigned(std::size(vmem_loads));
  const uint64_t din = mem.upload(slots), dout = mem.alloc(3 * n * 32 * 16);
  launch(*co, mem, kernel_named(*co, "vmem_loads"), {1, 1, 1}, {32, 1, 1}, {din, dout});
  const auto got = mem.download<uint32_t>(dout, 3 * n * 32 * 4);
  check_loads(got, vmem_loads, 0, "global", slots);
  check_loads(got, vmem_loads, n, "flat", slots);
  check_loads(got, vmem_loads, 2 * n, "scratch", slots);
}

TEST_CASE("Global, flat and scratch stores of every form move the lane's register bytes as the form says") {
  auto co = load();
  test_memory mem;
  const unsigned n = unsigned(std::size(vmem_stores));
  const uint64_t dslots = mem.alloc(3 * n * 32 * TP_SIM_MEM_SLOT);
  launch(*co, mem, kernel_named(*co, "vmem_stores"), {1, 1, 1}, {32, 1, 1}, {dslots});
  const auto got = mem.download<uint32_t>(dslots, 3 * n * 32 * TP_SIM_MEM_SLOT / 4);
  check_stores(got, vmem_stores, 0, "global");
  check_stores(got, vmem_stores, n, "flat");
  check_stores(got, vmem_stores, 2 * n, "scratch");
}

TEST_CASE("DS loads and stores of every form move the lane's bytes as the form says") {
  auto co = load();
  test_memory mem;
  const auto slots = slot_words();
  const unsigned nl = unsigned(std::size(ds_loads)), ns = unsigned(std::size(ds_stores));
  const uint64_t din = mem.upload(slots), dout = mem.alloc(nl * 32 * 16), dslots = mem.alloc(ns * 32 * TP_SIM_MEM_SLOT);
  launch(*co, mem, kernel_named(*co, "ds_forms"), {1, 1, 1}, {32, 1, 1}, {din, dout, dslots});
  check_loads(mem.download<uint32_t>(dout, nl * 32 * 4), ds_loads, 0, "lds", slots);
  check_stores(mem.download<uint32_t>(dslots, ns * 32 * TP_SIM_MEM_SLOT / 4), ds_stores, 0, "lds");
}

TEST_CASE("The two-address DS forms move two elements at offset0 and offset1, the stride64 ones 64 elements apart") {
  auto co = load();
  test_memory mem;
  const auto slots = slot_words();
  const uint64_t din = mem.upload(slots), dout = mem.alloc(32 * 24 * 4);
  launch(*co, mem, kernel_named(*co, "ds_two_address"), {1, 1, 1}, {32, 1, 1}, {din, dout});
  const auto got = mem.download<uint32_t>(dout, 32 * 24);
  for (unsigned l = 0; l < 32; ++l) {
    CAPTURE(l);
    const uint32_t* s = slots.data() + 8 * l;
    const uint32_t* g = got.data() + 24 * l;
    // loads: b32 words 1 and 3; b64 words 2-3 and 4-5; stride64 b32 word 0 and the far region's word 0 (~); b64 the same
    // with words 0-1.
    const uint32_t want_loads[12] = {s[1], s[3], s[2], s[3], s[4], s[5], s[0], ~s[0], s[0], s[1], ~s[0], ~s[1]};
    for (unsigned i = 0; i < 12; ++i) CHECK(g[i] == want_loads[i]);
    const uint32_t x = tp_sim_data_word(l, 0), y = tp_sim_data_word(l, 1), x2lo = tp_sim_data_word(l, 2),
                   x2hi = tp_sim_data_word(l, 3);
    const uint32_t want_stores[12] = {x, y, x2lo, x2hi, ~x2lo, ~x2hi, y, x, ~x2lo, ~x2hi, x2lo, x2hi};
    for (unsigned i = 0; i < 12; ++i) CHECK(g[12 + i] == want_stores[i]);
  }
}

TEST_CASE("The LDS atomics combine the lane's word with its data, the returning forms give the old word") {
  auto co = load();
  test_memory mem;
  std::vector<uint32_t> in(32);
  std::mt19937 rng(3301);
  for (auto& x : in) x = uint32_t(rng());
  in[0] = 0x80000000u;  // a signed minimum among the words
  const unsigned n = 9;  // TP_SIM_DS_ATOMICS
  const uint64_t din = mem.upload(in), dout = mem.alloc((n * 32 * 3 + 64) * 4);
  launch(*co, mem, kernel_named(*co, "ds_atomics"), {1, 1, 1}, {32, 1, 1}, {din, dout});
  const auto got = mem.download<uint32_t>(dout, n * 32 * 3 + 64);
  unsigned k = 0;
#define TP_DS_ATOMIC(op, type, expr)                                           \
  for (unsigned l = 0; l < 32; ++l) {                                          \
    const uint32_t m = in[l], v = tp_sim_data_word(l, 0);                      \
    const uint32_t want = (expr);                                              \
    CAPTURE("ds_" #op "_" #type, l);                                           \
    CHECK(got[(k * 32 + l) * 3] == want);                                      \
    CHECK(got[(k * 32 + l) * 3 + 1] == m);                                     \
    CHECK(got[(k * 32 + l) * 3 + 2] == want);                                  \
  }                                                                            \
  ++k;
  TP_SIM_DS_ATOMICS(TP_DS_ATOMIC)
#undef TP_DS_ATOMIC
  REQUIRE(k == n);
  for (unsigned l = 0; l < 32; ++l) {
    CHECK(got[n * 32 * 3 + 2 * l] == in[l]);
    CHECK(got[n * 32 * 3 + 2 * l + 1] == tp_sim_data_word(l, 0));
  }
}

TEST_CASE("ds_permute_b32 sends each lane's word to the addressed lane, ds_bpermute_b32 fetches it") {
  auto co = load();
  test_memory mem;
  const uint64_t dout = mem.alloc(64 * 4);
  launch(*co, mem, kernel_named(*co, "ds_permutes"), {1, 1, 1}, {32, 1, 1}, {dout});
  const auto got = mem.download<uint32_t>(dout, 64);
  for (unsigned l = 0; l < 32; ++l) {
    const unsigned p = (7 * l + 3) % 32;
    CHECK(got[p] == tp_sim_data_word(l, 0));       // lane l sent its word to lane p
    CHECK(got[32 + l] == tp_sim_data_word(p, 0));  // lane l fetched lane p's word
  }
}

TEST_CASE("Flat accesses whose address is in the LDS or the lane's private aperture reach that memory") {
  auto co = load();
  test_memory mem;
  const uint64_t dout = mem.alloc(64 * 4);
  launch(*co, mem, kernel_named(*co, "flat_apertures"), {1, 1, 1}, {32, 1, 1}, {dout});
  const auto got = mem.download<uint32_t>(dout, 64);
  for (unsigned l = 0; l < 32; ++l) {
    CHECK(got[2 * l] == tp_sim_data_word(l, 0));
    CHECK(got[2 * l + 1] == tp_sim_data_word(l, 1));
  }
}

namespace {

// The host side of the scalar cases' expressions (isa_cases.h), as the guides define the operations.
// S_BFE: the field at offset S1[4:0], width S1[22:16], zero- or sign-extended; a width of 32 or more takes every bit
// from the offset up.
uint32_t tp_sim_bfe(uint32_t a, uint32_t b, bool sign) {
  const unsigned off = b & 31, width = (b >> 16) & 127;
  if (width == 0) return 0;
  // The signed forms shift S0.i32 (the guides' pseudocode): bits past the top are S0's sign.
  const uint32_t shifted = sign ? uint32_t(int32_t(a) >> off) : a >> off;
  if (width >= 32) return shifted;
  const uint32_t mask = (1u << width) - 1, field = shifted & mask;
  return sign && ((field >> (width - 1)) & 1u) ? field | ~mask : field;
}
// S_BFE_I64: the field of A at offset S1[5:0], width S1[22:16], sign-extended from the field's top bit; a width of 64
// or more takes every bit from the offset up.
uint64_t tp_sim_bfe64(uint64_t a, uint32_t s1) {
  const unsigned off = s1 & 63, width = (s1 >> 16) & 127;
  if (width == 0) return 0;
  const uint64_t shifted = uint64_t(int64_t(a) >> off);  // S0.i64 shifted: bits past the top are S0's sign
  if (width >= 64) return shifted;
  const uint64_t mask = (uint64_t(1) << width) - 1, field = shifted & mask;
  return (field >> (width - 1)) & 1u ? field | ~mask : field;
}
uint32_t tp_sim_brev(uint32_t a) {
  uint32_t r = 0;
  for (unsigned i = 0; i < 32; ++i) r |= ((a >> i) & 1u) << (31 - i);
  return r;
}
[[maybe_unused]] uint32_t tp_sim_f32(float f) { return std::bit_cast<uint32_t>(f); }
float tp_sim_as_f32(uint32_t b) { return std::bit_cast<float>(b); }
// IEEE 754-2019 maximumNumber / minimumNumber: a number beats a NaN, two NaNs give S0 quieted (RDNA4 §16,
// V_MAX_NUM_F32: cvtToQuietNAN(S0)); -0 < +0.
// The guides' "denormals are flushed" (the f32 transcendentals): an input, and a result (the exact value's binary32
// rounding), flushed to a zero of its sign.
[[maybe_unused]] float tp_sim_ftz(float x) { return std::fpclassify(x) == FP_SUBNORMAL ? std::copysign(0.0f, x) : x; }
[[maybe_unused]] double tp_sim_flushed(double exact) {
  return std::fpclassify(float(exact)) == FP_SUBNORMAL ? std::copysign(0.0, exact) : exact;
}
[[maybe_unused]] float tp_sim_quieted(float x) { return tp_sim_as_f32(tp_sim_f32(x) | 0x00400000u); }
[[maybe_unused]] float tp_sim_max_num(float x, float y) {
  if (x != x) return y != y ? tp_sim_quieted(x) : y;
  if (y != y) return x;
  if (x == 0 && y == 0) return std::signbit(x) ? y : x;
  return x > y ? x : y;
}
[[maybe_unused]] float tp_sim_min_num(float x, float y) {
  if (x != x) return y != y ? tp_sim_quieted(x) : y;
  if (y != y) return x;
  if (x == 0 && y == 0) return std::signbit(x) ? x : y;
  return x < y ? x : y;
}
[[maybe_unused]] uint32_t tp_sim_cvt_u32(float f) {  // saturating, NaN to 0
  if (f != f || f <= 0) return 0;
  return f >= 4294967296.0f ? 0xffffffffu : uint32_t(f);
}
[[maybe_unused]] int32_t tp_sim_cvt_i32(float f) {
  if (f != f) return 0;
  if (f <= -2147483648.0f) return INT32_MIN;
  return f >= 2147483648.0f ? INT32_MAX : int32_t(f);
}

// Operand pairs for the scalar cases: edge words (zero, ones, the signed extremes, small shift counts, floats with
// NaN, zeros and infinities), then seeded random words; c alternates SCC (and the saveexec EXEC).
struct scalar_operands {
  uint32_t a, b, c, d0;
};
std::vector<scalar_operands> scalar_inputs(uint64_t seed) {
  const uint32_t edges[] = {0u, 1u, 0xffffffffu, 0x80000000u, 0x7fffffffu, 31u, 33u, 0x8001u, 0xffff8001u,
                            0x3f800000u, 0xbf800000u, 0x7fc00000u, 0x7f800000u, 0x80000000u, 0x00000001u, 0x4f800000u};
  std::mt19937_64 rng(seed);
  std::vector<scalar_operands> v;
  for (unsigned i = 0; i < 16; ++i) v.push_back({edges[i], edges[(i * 5 + 3) % 16], i % 2 ? 0xf0f0a5a5u : 0u, edges[(i * 3) % 16]});
  for (unsigned i = 0; i < 8; ++i) v.push_back({uint32_t(rng()), uint32_t(rng()), uint32_t(rng() & 1 ? rng() : 0), uint32_t(rng())});
  return v;
}

}  // namespace

TEST_CASE("Every scalar ALU case gives the guide's D and SCC for every operand pair") {
  auto co = load();
  test_memory mem;
  for (const scalar_operands& in : scalar_inputs(5151)) {
    const uint32_t a = in.a, b = in.b, d0 = in.d0;
    const bool scc = in.c != 0;
    const uint64_t A = uint64_t(b) << 32 | a, B = uint64_t(a) << 32 | b, D0 = uint64_t(d0) << 32 | d0;
    const float fa = tp_sim_as_f32(a), fb = tp_sim_as_f32(b);
    (void)fa, (void)fb, (void)A, (void)B, (void)D0;
    const uint64_t dout = mem.alloc(3 * 256 * 4);
    launch(*co, mem, kernel_named(*co, "salu_cases"), {1, 1, 1}, {32, 1, 1}, {a, b, in.c, d0, dout});
    const auto got = mem.download<uint32_t>(dout, 3 * 256);
    unsigned k = 0;
#define TP_SOP32(name, text, dexpr, sccexpr)                      \
    {                                                             \
      CAPTURE(#name, a, b, scc, d0);                              \
      CHECK(got[3 * k] == uint32_t(dexpr));                       \
      CHECK(got[3 * k + 2] == uint32_t(bool(sccexpr)));           \
      ++k;                                                        \
    }
    TP_SIM_SOP_32(TP_SOP32)
#undef TP_SOP32
#define TP_SOP64(name, text, dexpr, sccexpr)                                        \
    {                                                                               \
      CAPTURE(#name, A, B, scc, D0);                                                \
      CHECK((uint64_t(got[3 * k + 1]) << 32 | got[3 * k]) == uint64_t(dexpr));      \
      CHECK(got[3 * k + 2] == uint32_t(bool(sccexpr)));                             \
      ++k;                                                                          \
    }
    TP_SIM_SOP_64(TP_SOP64)
#undef TP_SOP64
    const uint32_t e = in.c;
#define TP_SAVEEXEC(op, expr)                                           \
    {                                                                   \
      CAPTURE("s_" #op "_saveexec_b32", a, e);                          \
      const uint32_t now = (expr);                                      \
      CHECK(got[3 * k] == e);                                           \
      CHECK(got[3 * k + 1] == now);                                     \
      CHECK(got[3 * k + 2] == uint32_t(now != 0));                      \
      ++k;                                                              \
    }
    TP_SIM_SAVEEXEC(TP_SAVEEXEC)
#undef TP_SAVEEXEC
    CAPTURE("s_and_not1_wrexec_b32", a, e);
    CHECK(got[3 * k] == (a & ~e));
    CHECK(got[3 * k + 1] == (a & ~e));
    CHECK(got[3 * k + 2] == uint32_t((a & ~e) != 0));
  }
}

TEST_CASE("s_getpc_b64, s_setpc_b64, s_swappc_b64, the VCC branches and the no-op instructions do what the guide says") {
  auto co = load();
  test_memory mem;
  for (uint32_t a : {0u, 7u}) {
    CAPTURE(a);
    const uint64_t dout = mem.alloc(11 * 4);
    launch(*co, mem, kernel_named(*co, "program_flow"), {1, 1, 1}, {32, 1, 1}, {a, dout});
    const auto got = mem.download<uint32_t>(dout, 11);
    const uint64_t pc0 = uint64_t(got[1]) << 32 | got[0], pc1 = uint64_t(got[3]) << 32 | got[2];
    CHECK(pc1 - pc0 == 4);          // the address of the next instruction, 4 bytes on
    CHECK(got[4] == 2);             // the s_mov_b32 the jump skips never ran
    CHECK(got[5] == 2);
    CHECK(got[6] == 12);            // the return address: the instruction after s_swappc_b64, 12 bytes before the getpc
    CHECK(got[7] == 0);
    CHECK(got[8] == (a == 0 ? 0u : 2u));  // s_cbranch_vccz taken when VCC is 0
    CHECK(got[9] == (a != 0 ? 0u : 2u));
    CHECK(got[10] == a + 2);
  }
}

TEST_CASE("s_load_b512 and s_load_b96 load 16 and 3 dwords") {
  auto co = load();
  test_memory mem;
  std::vector<uint32_t> in(16);
  for (unsigned i = 0; i < 16; ++i) in[i] = 0x9e3779b9u * (i + 1);
  const uint64_t din = mem.upload(in), dout = mem.alloc(19 * 4);
  launch(*co, mem, kernel_named(*co, "scalar_loads"), {1, 1, 1}, {32, 1, 1}, {din, dout});
  const auto got = mem.download<uint32_t>(dout, 19);
  for (unsigned i = 0; i < 16; ++i) CHECK(got[i] == in[i]);
  for (unsigned i = 0; i < 3; ++i) CHECK(got[16 + i] == in[i]);
}

TEST_CASE("s_trap and v_illegal stop the dispatch with their message, kernel and pc") {
  auto co = load();
  for (const auto& [kernel, message] : {std::pair{"reaches_trap", "the kernel trapped"},
                                        std::pair{"reaches_illegal", "illegal instruction (v_illegal)"}}) {
    CAPTURE(kernel);
    test_memory mem;
    const uint64_t dout = mem.alloc(64 * 4);
    const std::string name = kernel_named(*co, kernel);
    try {
      launch(*co, mem, name, {1, 1, 1}, {32, 1, 1}, {dout});
      FAIL("the dispatch ran past the instruction");
    } catch (const sim_error& e) {
      const std::string what = e.what();
      CHECK(what.find(message) != std::string::npos);
      CHECK(what.find(name) != std::string::npos);
      CHECK(what.find("at pc 0x") != std::string::npos);
    }
    CHECK(mem.download<uint32_t>(dout, 1)[0] == 1);
  }
}

namespace {

// The host side of the vector cases' expressions (isa_cases.h), as the guides define the operations.
[[maybe_unused]] int64_t tp_sim_s24(uint32_t a) { return int64_t(int32_t(a << 8) >> 8); }  // the low 24 bits, signed
template <class T>
T tp_sim_median(T a, T b, T c) {
  T v[] = {a, b, c};
  std::sort(v, v + 3);
  return v[1];
}
// V_PERM_B32: each selector byte of S2 picks a byte of the 8 bytes S0:S1 (S1 the low four), the sign of one of four
// 16-bit halves (8: S1's low half, 9: S1's high, 10: S0's low, 11: S0's high) replicated, or a constant (12: 0x00,
// 13 and up: 0xff).
uint32_t tp_sim_perm(uint32_t s0, uint32_t s1, uint32_t sel) {
  const uint8_t bytes[8] = {uint8_t(s1), uint8_t(s1 >> 8), uint8_t(s1 >> 16), uint8_t(s1 >> 24),
                            uint8_t(s0), uint8_t(s0 >> 8), uint8_t(s0 >> 16), uint8_t(s0 >> 24)};
  uint32_t r = 0;
  for (unsigned i = 0; i < 4; ++i) {
    const unsigned s = (sel >> (8 * i)) & 0xff;
    uint8_t byte = 0xff;
    if (s < 8) byte = bytes[s];
    else if (s == 8) byte = (s1 & 0x8000u) ? 0xff : 0;
    else if (s == 9) byte = (s1 & 0x80000000u) ? 0xff : 0;
    else if (s == 10) byte = (s0 & 0x8000u) ? 0xff : 0;
    else if (s == 11) byte = (s0 & 0x80000000u) ? 0xff : 0;
    else if (s == 12) byte = 0;
    r |= uint32_t(byte) << (8 * i);
  }
  return r;
}
// A 16-bit result in D's low half; the high half keeps D's bits.
uint32_t tp_sim_lo16(uint32_t d, uint32_t r) { return (d & 0xffff0000u) | (r & 0xffffu); }
// V_DOT4: C plus the four byte products (signed or unsigned bytes), wrapping in 32 bits.
uint32_t tp_sim_dot4(uint32_t a, uint32_t b, uint32_t c, bool sign) {
  int64_t s = int32_t(c);
  for (unsigned i = 0; i < 4; ++i) {
    const uint32_t x = (a >> (8 * i)) & 0xff, y = (b >> (8 * i)) & 0xff;
    s += sign ? int64_t(int8_t(x)) * int8_t(y) : int64_t(x) * y;
  }
  return uint32_t(s);
}
// gfx11 V_MAX_F32 / V_MIN_F32 with IEEE mode (what the loader requires of gfx11 kernels): a signalling NaN operand
// gives that NaN quieted (S0 before S1); else a quiet NaN loses to the other operand; +0 is above -0.
[[maybe_unused]] uint32_t tp_sim_ieee_max_min(uint32_t a, uint32_t b, bool max) {
  const auto nan = [](uint32_t x) { return (x & 0x7fffffffu) > 0x7f800000u; };
  const auto snan = [&](uint32_t x) { return nan(x) && !(x & 0x00400000u); };
  if (snan(a)) return a | 0x00400000u;
  if (snan(b)) return b | 0x00400000u;
  if (nan(a)) return b;
  if (nan(b)) return a;
  const float x = tp_sim_as_f32(a), y = tp_sim_as_f32(b);
  if (x == y) return (std::signbit(x) == max) ? b : a;  // equal: only +-0 differ, by the sign
  return (max ? x > y : x < y) ? a : b;
}
// The dual-issue max/min of the arch: gfx11's IEEE-mode v_max_f32 / v_min_f32, gfx12's maximumNumber/minimumNumber.
[[maybe_unused]] uint32_t tp_sim_vopd_max_min(uint32_t a, uint32_t b, bool max) {
#if TP_SIM_TEST_GFX11
  return tp_sim_ieee_max_min(a, b, max);
#else
  const float x = tp_sim_as_f32(a), y = tp_sim_as_f32(b);
  return tp_sim_f32(max ? tp_sim_max_num(x, y) : tp_sim_min_num(x, y));
#endif
}
[[maybe_unused]] uint64_t tp_sim_f64(double f) { return std::bit_cast<uint64_t>(f); }
// Packed f16 math (RDNA3 §7.5 / RDNA4 §7.7 "Packed Math"): D's low half is op(x, y) of the halves op_sel picks (bit
// i for source i: 1 the high half), its high half op of those op_sel_hi picks; neg_lo / neg_hi negate the sources of
// the low / high operation; clamp limits each result to [0, 1], NaN to 0. Each operation rounds once to binary16.
using tp_sim_f16 = _Float16;
[[maybe_unused]] tp_sim_f16 tp_sim_f16_mul(tp_sim_f16 x, tp_sim_f16 y) { return tp_sim_f16(double(x) * double(y)); }
[[maybe_unused]] tp_sim_f16 tp_sim_f16_add(tp_sim_f16 x, tp_sim_f16 y) { return tp_sim_f16(double(x) + double(y)); }
template <class Op>
uint32_t tp_sim_pk_f16(uint32_t a, uint32_t b, unsigned op_sel, unsigned op_sel_hi, unsigned neg_lo, unsigned neg_hi,
                       bool clamp, Op op) {
  const auto pick = [](uint32_t word, unsigned hi, unsigned neg) {
    const uint16_t bits = uint16_t((hi ? word >> 16 : word) ^ (neg ? 0x8000u : 0u));
    return std::bit_cast<tp_sim_f16>(bits);
  };
  const auto out = [&](tp_sim_f16 r) -> uint32_t {
    if (clamp) r = r != r ? tp_sim_f16(0) : r < tp_sim_f16(0) ? tp_sim_f16(0) : r > tp_sim_f16(1) ? tp_sim_f16(1) : r;
    return std::bit_cast<uint16_t>(r);
  };
  const tp_sim_f16 lo = op(pick(a, op_sel & 1, neg_lo & 1), pick(b, op_sel & 2, neg_lo & 2));
  const tp_sim_f16 hi = op(pick(a, op_sel_hi & 1, neg_hi & 1), pick(b, op_sel_hi & 2, neg_hi & 2));
  return out(lo) | out(hi) << 16;
}
// V_FMA_MIX_F32 / V_FMA_MIXLO_F16 / V_FMA_MIXHI_F16 (RDNA3/RDNA4 §16.10): source i is the binary16 half op_sel bit i
// picks where op_sel_hi bit i is set, else the binary32 word, widened exactly; abs, then neg; fma rounded once to
// binary32; clamp to [0, 1] (NaN to 0); the mixlo/mixhi result converted to binary16 into that half of d0.
[[maybe_unused]] uint32_t tp_sim_mix(uint32_t a, uint32_t b, uint32_t c, uint32_t d0, unsigned op_sel,
                                     unsigned op_sel_hi, unsigned neg, unsigned abs, bool clamp, unsigned dst) {
  const uint32_t words[3] = {a, b, c};
  float in[3];
  for (unsigned i = 0; i < 3; ++i) {
    const uint32_t x = words[i];
    in[i] = (op_sel_hi >> i) & 1u ? float(std::bit_cast<tp_sim_f16>(uint16_t((op_sel >> i) & 1u ? x >> 16 : x)))
                                  : tp_sim_as_f32(x);
    if ((abs >> i) & 1u) in[i] = std::fabs(in[i]);
    if ((neg >> i) & 1u) in[i] = -in[i];
  }
  float r = __builtin_fmaf(in[0], in[1], in[2]);
  if (clamp) r = r != r ? 0.0f : std::fmin(std::fmax(r, 0.0f), 1.0f);
  const uint32_t half = std::bit_cast<uint16_t>(tp_sim_f16(r));
  if (dst == 0) return tp_sim_f32(r);
  return dst == 1 ? (d0 & 0xffff0000u) | half : (d0 & 0xffffu) | half << 16;
}
[[maybe_unused]] int32_t tp_sim_cvt_i32_f64(double f) {  // saturating, NaN to 0
  if (f != f) return 0;
  if (f <= -2147483648.0) return INT32_MIN;
  return f >= 2147483648.0 ? INT32_MAX : int32_t(f);
}
[[maybe_unused]] uint32_t tp_sim_cvt_u32_f64(double f) {
  if (f != f || f <= 0) return 0;
  return f >= 4294967296.0 ? 0xffffffffu : uint32_t(f);
}
// V_CMP_CLASS_F32: whether S1 has the bit of S0's kind: 0 signalling NaN, 1 quiet NaN, 2 -inf, 3 -normal,
// 4 -denormal, 5 -0, 6 +0, 7 +denormal, 8 +normal, 9 +inf.
[[maybe_unused]] bool tp_sim_class(uint32_t a, uint32_t mask) {
  const uint32_t exp = (a >> 23) & 0xff, man = a & 0x7fffff;
  const bool neg = a >> 31;
  unsigned kind;
  if (exp == 0xff && man) kind = (man & 0x400000) ? 1 : 0;
  else if (exp == 0xff) kind = neg ? 2 : 9;
  else if (exp == 0 && man == 0) kind = neg ? 5 : 6;
  else if (exp == 0) kind = neg ? 4 : 7;
  else kind = neg ? 3 : 8;
  return (mask >> kind) & 1u;
}

// V_CMP_CLASS_F16: the same kinds of a's low half, a binary16 (quiet bit: fraction bit 9).
[[maybe_unused]] bool tp_sim_class16(uint32_t a, uint32_t mask) {
  const uint32_t exp = (a >> 10) & 0x1f, man = a & 0x3ff;
  const bool neg = (a >> 15) & 1;
  unsigned kind;
  if (exp == 0x1f && man) kind = (man & 0x200) ? 1 : 0;
  else if (exp == 0x1f) kind = neg ? 2 : 9;
  else if (exp == 0 && man == 0) kind = neg ? 5 : 6;
  else if (exp == 0) kind = neg ? 4 : 7;
  else kind = neg ? 3 : 8;
  return (mask >> kind) & 1u;
}
// 32 lanes of (a, b, c, d0) whose halves are binary16 edge values (both NaN kinds and signs, infinities, zeros,
// denormals, the largest finite values, ones) in the first 16 lanes, seeded random words in the rest: for the
// instructions that read binary16 halves (vector_inputs' edges are binary32 words).
std::vector<uint32_t> f16_edge_inputs(uint64_t seed) {
  const uint16_t edges[] = {0x7e00, 0x7d00, 0xfc00, 0xbc00, 0x8001, 0x8000, 0x0000, 0x0001,
                            0x3c00, 0x7c00, 0x03ff, 0x7bff, 0xfbff, 0x83ff, 0xfe00, 0x3555};
  std::mt19937_64 rng(seed);
  std::vector<uint32_t> v(4 * 32);
  for (unsigned l = 0; l < 32; ++l)
    for (unsigned w = 0; w < 4; ++w)
      v[4 * l + w] = l < 16 ? uint32_t(edges[(l + 3 * w) % 16]) << 16 | edges[(5 * l + w) % 16] : uint32_t(rng());
  return v;
}
// 32 lanes of (a, b, c, d0): edge words in the first 16 lanes (zero, ones, the signed extremes, shift counts above
// the width, the f32 edges: zeros, ones, infinities, a quiet and a signalling NaN, a denormal, large and small
// normals), seeded random words in the rest.
std::vector<uint32_t> vector_inputs(uint64_t seed) {
  const uint32_t edges[] = {0u,          1u,          0xffffffffu, 0x80000000u, 0x7fffffffu, 37u,         0x3f800000u,
                            0xbf800000u, 0x7f800000u, 0xff800000u, 0x7fc00000u, 0x7fa00000u, 0x00000003u, 0x40400000u,
                            0xc0200000u, 0x7149f2cau};
  std::mt19937_64 rng(seed);
  std::vector<uint32_t> v(4 * 32);
  for (unsigned l = 0; l < 32; ++l)
    for (unsigned w = 0; w < 4; ++w) v[4 * l + w] = l < 16 ? edges[(l * (w + 1) + 5 * w) % 16] : uint32_t(rng());
  return v;
}

// Equal words; or, where the case is a float operation, both NaN (the payload of a NaN result is not what these
// tests pin), except a min/max: it selects an operand, and the guides say which NaN comes out (quieted or not).
bool same_result(std::string_view name, uint64_t got, uint64_t want, unsigned bits) {
  if (got == want) return true;
  if (name.find("_f") == std::string_view::npos) return false;
  if (name.find("max") != std::string_view::npos || name.find("min") != std::string_view::npos) return false;
  if (bits == 64) return std::isnan(std::bit_cast<double>(got)) && std::isnan(std::bit_cast<double>(want));
  return std::isnan(tp_sim_as_f32(uint32_t(got))) && std::isnan(tp_sim_as_f32(uint32_t(want)));
}
// Packed f16: each half equal, or both NaN.
bool same_f16_halves(uint32_t got, uint32_t want) {
  const auto nan = [](uint32_t half) { return (half & 0x7c00u) == 0x7c00u && (half & 0x3ffu) != 0; };
  for (unsigned s : {0u, 16u}) {
    const uint32_t g = (got >> s) & 0xffffu, w = (want >> s) & 0xffffu;
    if (g != w && !(nan(g) && nan(w))) return false;
  }
  return true;
}
// Within 1 ULP of the exact value (of binary32 at the exact value's magnitude); a NaN or overflowing exact value must
// come out the same.
bool within_one_ulp(float got, double exact) {
  const float rounded = float(exact);
  if (std::isnan(exact)) return std::isnan(got);
  if (std::isinf(rounded)) return got == rounded;
  const float mag = std::fabs(rounded);
  const double ulp = double(std::nextafter(mag, INFINITY)) - double(mag);
  return std::fabs(double(got) - exact) <= ulp;
}

}  // namespace

TEST_CASE("Every vector ALU case gives the guide's D in every lane") {
  auto co = load();
  test_memory mem;
  for (uint64_t seed : {3301u, 3302u, 3303u, 3304u}) {
    CAPTURE(seed);  // the last seed's lanes hold binary16 edge values
    const std::vector<uint32_t> in = seed == 3304u ? f16_edge_inputs(seed) : vector_inputs(seed);
    const uint64_t din = mem.upload(in), dout = mem.alloc(32 * 256 * 4);
    launch(*co, mem, kernel_named(*co, "valu_cases"), {1, 1, 1}, {32, 1, 1}, {din, dout});
    const auto got = mem.download<uint32_t>(dout, 32 * 256);
    const float f0 = tp_sim_as_f32(in[0]);
    (void)f0;
    unsigned k = 0;
#define TP_VOP_CASE(name, text, expr)                                                            \
    for (unsigned l = 0; l < 32; ++l) {                                                          \
      const uint32_t a = in[4 * l], b = in[4 * l + 1], c = in[4 * l + 2], d0 = in[4 * l + 3];    \
      const float fa = tp_sim_as_f32(a), fb = tp_sim_as_f32(b), fc = tp_sim_as_f32(c);           \
      (void)fa, (void)fb, (void)fc, (void)d0;                                                    \
      CAPTURE(#name, l, a, b, c, d0, got[k * 32 + l]);                                           \
      CHECK(same_result(#name, got[k * 32 + l], uint32_t(expr), 32));                            \
    }                                                                                            \
    ++k;
    TP_SIM_VOP_32(TP_VOP_CASE)
#undef TP_VOP_CASE
#define TP_VOP_APPROX_CASE(name, text, expr)                                                     \
    for (unsigned l = 0; l < 32; ++l) {                                                          \
      const float fa = tp_sim_as_f32(in[4 * l]);                                                 \
      (void)fa;                                                                                  \
      CAPTURE(#name, l, fa, tp_sim_as_f32(got[k * 32 + l]));                                     \
      CHECK(within_one_ulp(tp_sim_as_f32(got[k * 32 + l]), (expr)));                             \
    }                                                                                            \
    ++k;
    TP_SIM_VOP_APPROX(TP_VOP_APPROX_CASE)
    TP_SIM_VOP_PSEUDO_SCALAR(TP_VOP_APPROX_CASE)
#undef TP_VOP_APPROX_CASE
#define TP_VOP_PACKED_CASE(name, text, expr)                                                     \
    for (unsigned l = 0; l < 32; ++l) {                                                          \
      const uint32_t a = in[4 * l], b = in[4 * l + 1];                                           \
      CAPTURE(text, l, a, b, got[k * 32 + l]);                                                   \
      CHECK(same_f16_halves(got[k * 32 + l], uint32_t(expr)));                                   \
    }                                                                                            \
    ++k;
    TP_SIM_VOP_PACKED(TP_VOP_PACKED_CASE)
#undef TP_VOP_PACKED_CASE
#define TP_VOP_MIX_CASE(name, text, expr)                                                        \
    for (unsigned l = 0; l < 32; ++l) {                                                          \
      const uint32_t a = in[4 * l], b = in[4 * l + 1], c = in[4 * l + 2], d0 = in[4 * l + 3];    \
      const uint32_t want = (expr), have = got[k * 32 + l];                                      \
      CAPTURE(text, l, a, b, c, d0, have, want);                                                 \
      CHECK((std::string_view(#name).ends_with("f16") ? same_f16_halves(have, want)              \
                                                      : same_result(#name, have, want, 32)));    \
    }                                                                                            \
    ++k;
    TP_SIM_VOP_MIX(TP_VOP_MIX_CASE)
#undef TP_VOP_MIX_CASE
    CHECK(k > 90);
  }
}

TEST_CASE("Every wide, carry, lane-mask and cross-lane vector case gives the guide's results in every lane") {
  auto co = load();
  test_memory mem;
  for (uint64_t seed : {6401u, 6402u, 6403u, 6404u}) {
    CAPTURE(seed);  // the last seed's lanes hold binary16 edge values
    const std::vector<uint32_t> in = seed == 6404u ? f16_edge_inputs(seed) : vector_inputs(seed);
    const uint64_t din = mem.upload(in), dout = mem.alloc(4 * 32 * 64 * 4);
    launch(*co, mem, kernel_named(*co, "valu_wide_cases"), {1, 1, 1}, {32, 1, 1}, {din, dout});
    const auto got = mem.download<uint32_t>(dout, 4 * 32 * 64);
    const auto at = [&](unsigned j) { return in[4 * j]; };
    const uint32_t first = in[0];
    unsigned k = 0;
#define TP_VOP_WIDE_CASE(name, text, Dexpr, dexpr, eexpr)                                          \
    for (unsigned lane = 0; lane < 32; ++lane) {                                                   \
      const uint32_t a = in[4 * lane], b = in[4 * lane + 1], c = in[4 * lane + 2], d0 = in[4 * lane + 3], e0 = ~d0; \
      const uint64_t A = uint64_t(b) << 32 | a, B = uint64_t(c) << 32 | b, D0 = uint64_t(d0) << 32 | d0; \
      const double fA = std::bit_cast<double>(A), fB = std::bit_cast<double>(B);                   \
      (void)fA, (void)fB, (void)at, (void)first, (void)D0, (void)e0;                               \
      const uint32_t* r = &got[(k * 32 + lane) * 4];                                               \
      CAPTURE(#name, lane, a, b, c, d0, r[0], r[1], r[2], r[3]);                                   \
      CHECK(same_result(#name, uint64_t(r[1]) << 32 | r[0], uint64_t(Dexpr), 64));                 \
      CHECK(r[2] == uint32_t(dexpr));                                                              \
      CHECK(r[3] == uint32_t(eexpr));                                                              \
    }                                                                                              \
    ++k;
    TP_SIM_VOP_WIDE(TP_VOP_WIDE_CASE)
#undef TP_VOP_WIDE_CASE
    CHECK(k == 24);
  }
}

TEST_CASE("Every dual-issue (VOPD) operation, as the X and as the Y half, gives the guide's result") {
  auto co = load();
  test_memory mem;
  for (uint64_t seed : {7701u, 7702u}) {
    CAPTURE(seed);
    const std::vector<uint32_t> in = vector_inputs(seed);
    const uint64_t din = mem.upload(in), dout = mem.alloc(2 * 32 * 16 * 4);
    launch(*co, mem, kernel_named(*co, "vopd_pairs"), {1, 1, 1}, {32, 1, 1}, {din, dout});
    const auto got = mem.download<uint32_t>(dout, 2 * 32 * 16);
    unsigned k = 0;
#define TP_VOPD_PAIR(xtext, ytext, xexpr, yexpr)                                                   \
    for (unsigned lane = 0; lane < 32; ++lane) {                                                   \
      const uint32_t a = in[4 * lane], b = in[4 * lane + 1], c = in[4 * lane + 2], x = in[4 * lane + 3], y = ~x; \
      const float fa = tp_sim_as_f32(a), fb = tp_sim_as_f32(b), fc = tp_sim_as_f32(c);             \
      (void)fa, (void)fb, (void)fc, (void)x, (void)y;                                              \
      CAPTURE(xtext, ytext, lane, a, b, c, x, got[(k * 32 + lane) * 2], got[(k * 32 + lane) * 2 + 1]); \
      CHECK(same_result(xtext, got[(k * 32 + lane) * 2], uint32_t(xexpr), 32));                    \
      CHECK(same_result(ytext, got[(k * 32 + lane) * 2 + 1], uint32_t(yexpr), 32));                \
    }                                                                                              \
    ++k;
    TP_SIM_VOPD_PAIRS(TP_VOPD_PAIR)
#undef TP_VOPD_PAIR
  }
}
