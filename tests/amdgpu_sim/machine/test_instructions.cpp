// Single-instruction tests (isa_cases.h): each instruction the machine declares, run on the simulator by a kernel of
// test_kernels.cu that executes it alone, against the host's computation of what the guides define. Together with
// the other tests here and the hip-sim tests, they execute every declared instruction on both archs (the coverage
// audit, simt/amdgpu_sim/audit, checks that).
#include <array>
#include <bit>
#include <cstdint>
#include <cstring>
#include <random>
#include <span>
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
