// Semantics of the instruction model (reference/isa): placement round trips, the index law, collisions, per-lane
// index, index_key halves, signedness, wrap/clamp, the documented float accumulation order, and agreement of the
// integer forms with the independent dense oracle (reference/int_gemm) on the expanded sparse A.
#include <algorithm>
#include <bit>
#include <cstdint>
#include <random>
#include <string>

#include <catch2/catch_test_macros.hpp>

#include "reference/codecs.h"
#include "reference/int_gemm.h"
#include "reference/isa/isa.h"

namespace isa = tp::ref::isa;
using isa::instr;

namespace {

constexpr std::uint64_t base_seed = 0x15a0'2026;

std::uint32_t random_code(std::mt19937_64& rng, isa::elem e) {
  const unsigned b = isa::bits_of(e);
  return b == 32 ? std::uint32_t(rng()) : std::uint32_t(rng()) & ((1u << b) - 1u);
}

isa::sparse_a random_sparse(std::mt19937_64& rng, const isa::instr_info& f) {
  isa::sparse_a a(f.m, f.k / 4);
  for (auto& v : a.values) v = random_code(rng, f.a);
  for (auto& x : a.fields) x = std::uint8_t(rng() & 3u);
  return a;
}

isa::code_matrix random_codes(std::mt19937_64& rng, unsigned rows, unsigned cols, isa::elem e) {
  isa::code_matrix m(rows, cols);
  for (auto& v : m.data) v = random_code(rng, e);
  return m;
}

// The code of 1 in an element format (for one-hot operands).
std::uint32_t one(isa::elem e) {
  switch (e) {
    case isa::elem::iu4: case isa::elem::iu8: case isa::elem::i32: return 1;
    case isa::elem::fp8: return tp::ref::double_to_fp8_e4m3(1.0);
    case isa::elem::bf8: return tp::ref::double_to_fp8_e5m2(1.0);
    case isa::elem::f16: return tp::ref::double_to_fp16(1.0);
    case isa::elem::bf16: return tp::ref::double_to_bf16(1.0);
    case isa::elem::f32: return std::bit_cast<std::uint32_t>(1.0f);
  }
  return 0;
}

double d_value(const isa::instr_info& f, std::uint32_t code) { return isa::element_value(f.d, code); }

}  // namespace

TEST_CASE("Placing operands into registers and reading them back is the identity for every instruction", "[isa][model]") {
  for (instr in : isa::all_instrs) {
    const auto& f = isa::info(in);
    const std::uint64_t seed = base_seed + unsigned(in);
    std::mt19937_64 rng(seed);
    INFO(f.name << " seed " << seed);
    for (unsigned key = 0; key < std::max(1u, f.index_keys); ++key) {
      // Start from garbage so a placement that leaves stale bits, or writes outside its bits, is caught.
      isa::wave_regs a = isa::make_a_regs(in), b = isa::make_b_regs(in), d = isa::make_d_regs(in), ix = isa::make_index_regs(in);
      for (auto* r : {&a, &b, &d, &ix})
        for (auto& w : r->words()) w = std::uint32_t(rng());
      const isa::wave_regs ix_before = ix;
      const isa::code_matrix bm = random_codes(rng, f.k, f.n, f.b), dm = random_codes(rng, f.m, f.n, f.d);
      isa::place_b(in, bm, b);
      isa::place_d(in, dm, d);
      CHECK(isa::read_b(in, b).data == bm.data);
      CHECK(isa::read_d(in, d).data == dm.data);
      if (f.sparse) {
        const isa::sparse_a am = random_sparse(rng, f);
        isa::place_sparse_a(in, am, a, ix, key);
        CHECK(isa::read_sparse_a(in, a, ix, key) == am);
        // Index bits outside the selected fields are untouched (the other index_key half survives).
        unsigned changed_outside = 0;
        for (unsigned l = 0; l < f.wave; ++l) {
          std::uint32_t owned = 0;
          for (unsigned i = 0; i < f.m; ++i)
            for (unsigned g = 0; g < f.k / 4; ++g) {
              const auto at = isa::index_field_loc(in, i, g, key);
              if (at.lane == l) owned |= 0xfu << at.bit_lo;
            }
          changed_outside += ((ix.word(l, 0) ^ ix_before.word(l, 0)) & ~owned) != 0;
        }
        CHECK(changed_outside == 0);
      } else {
        const isa::code_matrix am = random_codes(rng, f.m, f.k, f.a);
        isa::place_dense_a(in, am, a);
        CHECK(isa::read_dense_a(in, a).data == am.data);
      }
    }
  }
}

TEST_CASE("Operand layouts cover every register bit exactly once (replicas counted per copy)", "[isa][model]") {
  for (instr in : isa::all_instrs) {
    const auto& f = isa::info(in);
    INFO(f.name);
    auto count = [&](unsigned lanes, unsigned vgprs, auto each) -> bool {
      std::vector<unsigned> owners(std::size_t(lanes) * vgprs * 32, 0);
      each([&](const isa::reg_loc& r) {
        for (unsigned bit = r.bit_lo; bit <= r.bit_hi; ++bit) ++owners[(std::size_t(r.lane) * vgprs + r.vgpr) * 32 + bit];
      });
      return std::count(owners.begin(), owners.end(), 1u) == std::ptrdiff_t(owners.size());
    };
    CHECK(count(f.wave, f.b_vgprs, [&](auto mark) {
      for (unsigned k = 0; k < f.k; ++k)
        for (unsigned j = 0; j < f.n; ++j)
          for (const auto& r : isa::b_locs(in, k, j)) mark(r);
    }));
    CHECK(count(f.wave, f.d_vgprs, [&](auto mark) {
      for (unsigned i = 0; i < f.m; ++i)
        for (unsigned j = 0; j < f.n; ++j) mark(isa::d_loc(in, i, j));
    }));
    CHECK(count(f.wave, f.a_vgprs, [&](auto mark) {
      for (unsigned i = 0; i < f.m; ++i) {
        if (f.sparse) {
          for (unsigned g = 0; g < f.k / 4; ++g)
            for (unsigned s = 0; s < 2; ++s) mark(isa::a_slot_loc(in, i, g, s));
        } else {
          for (unsigned k = 0; k < f.k; ++k)
            for (const auto& r : isa::a_locs(in, i, k)) mark(r);
        }
      }
    }));
  }
}

TEST_CASE("A stored value with field F pairs with B row 4g+F and nothing else", "[isa][model]") {
  // The one-hot sweep of docs/bugs/ck-sparse.md §12 on the model, for every sparse instruction: one stored value = 1, B
  // = one-hot row.
  for (instr in : isa::all_instrs) {
    const auto& f = isa::info(in);
    if (!f.sparse) continue;
    INFO(f.name);
    std::mt19937_64 rng(base_seed ^ unsigned(in));
    unsigned mismatches = 0, cells = 0;
    for (unsigned trial = 0; trial < 24; ++trial) {
      const unsigned i = unsigned(rng() % f.m), g = unsigned(rng() % (f.k / 4)), s = unsigned(rng() % 2), F = unsigned(rng() % 4);
      isa::sparse_a a(f.m, f.k / 4);
      for (auto& x : a.fields) x = std::uint8_t(rng() & 3u);  // fields of zero values must not matter
      a.value(i, g, s) = one(f.a);
      a.field(i, g, s) = std::uint8_t(F);
      const isa::code_matrix c(f.m, f.n, 0u);
      for (unsigned kk = 0; kk < f.k; ++kk) {
        isa::code_matrix b(f.k, f.n, 0u);
        for (unsigned j = 0; j < f.n; ++j) b(kk, j) = one(f.b);
        const isa::code_matrix d = isa::execute_sparse(in, a, b, c, {});
        for (unsigned r = 0; r < f.m; ++r)
          for (unsigned j = 0; j < f.n; ++j) {
            ++cells;
            const double want = (r == i && kk == 4 * g + F) ? 1.0 : 0.0;
            mismatches += d_value(f, d(r, j)) != want;
          }
      }
    }
    CHECK(cells > 0);
    CHECK(mismatches == 0);
  }
}

TEST_CASE("Two stored values with the same field both multiply that B row (collisions add)", "[isa][model]") {
  const instr in = instr::swmmac_i32_16x16x32_iu8;
  const auto& f = isa::info(in);
  isa::sparse_a a(f.m, f.k / 4);
  a.value(3, 5, 0) = 7;
  a.value(3, 5, 1) = std::uint32_t(std::uint8_t(-2));
  a.field(3, 5, 0) = a.field(3, 5, 1) = 1;
  isa::code_matrix b(f.k, f.n, 0u);
  b(4 * 5 + 1, 9) = 10;
  b(4 * 5 + 0, 9) = 1000 & 0xff;  // a position nobody points at contributes nothing
  const isa::code_matrix d = isa::execute_sparse(in, a, b, isa::code_matrix(f.m, f.n, 0u), {});
  CHECK(std::int32_t(d(3, 9)) == (7 - 2) * 10);
  CHECK(std::int32_t(d(3, 8)) == 0);
  CHECK(std::int32_t(d(4, 9)) == 0);
}

TEST_CASE("Changing one lane's index register changes only the rows that lane's fields govern", "[isa][model]") {
  for (instr in : {instr::swmmac_i32_16x16x32_iu4, instr::swmmac_i32_16x16x64_iu4, instr::swmmac_f32_16x16x32_f16,
                   instr::gfx9_smfmac_i32_16x16x64_i8}) {
    const auto& f = isa::info(in);
    const std::uint64_t seed = base_seed * 3 + unsigned(in);
    std::mt19937_64 rng(seed);
    INFO(f.name << " seed " << seed);
    isa::wave_regs a = isa::make_a_regs(in), b = isa::make_b_regs(in), c = isa::make_d_regs(in), ix = isa::make_index_regs(in);
    // Small values so no float result rounds away a change.
    isa::sparse_a am(f.m, f.k / 4);
    for (auto& v : am.values) v = is_integer(f.a) ? 1u + unsigned(rng() % 3) : one(f.a);
    for (auto& x : am.fields) x = std::uint8_t(rng() & 3u);
    isa::place_sparse_a(in, am, a, ix, 0);
    isa::code_matrix bm(f.k, f.n);
    for (unsigned k = 0; k < f.k; ++k)
      for (unsigned j = 0; j < f.n; ++j)
        bm(k, j) = is_integer(f.b) ? (k % 4 == 0 ? 1u : k % 4 == 1 ? 2u : k % 4 == 2 ? 4u : 0u) : (k % 4 == 1 ? one(f.b) : 0u);
    isa::place_b(in, bm, b);
    const isa::wave_regs d0 = isa::execute(in, a, b, c, ix, {});
    const unsigned lane = unsigned(rng() % f.wave);
    const unsigned row = lane % 16;
    isa::wave_regs ix2 = ix;
    ix2.word(lane, 0) = ~ix2.word(lane, 0);  // every field of that lane now points elsewhere
    const isa::code_matrix before = isa::read_d(in, d0), after = isa::read_d(in, isa::execute(in, a, b, c, ix2, {}));
    unsigned changed_other_rows = 0, changed_row = 0;
    for (unsigned i = 0; i < f.m; ++i)
      for (unsigned j = 0; j < f.n; ++j) (i == row ? changed_row : changed_other_rows) += before(i, j) != after(i, j);
    CHECK(changed_other_rows == 0);
    CHECK(changed_row > 0);
  }
}

TEST_CASE("index_key 1 reads the index register's high half and ignores the low half", "[isa][model]") {
  for (instr in : isa::all_instrs) {
    const auto& f = isa::info(in);
    if (!f.sparse || f.target != isa::arch::gfx12 || f.index_keys < 2) continue;
    const std::uint64_t seed = base_seed * 5 + unsigned(in);
    std::mt19937_64 rng(seed);
    INFO(f.name << " seed " << seed);
    isa::wave_regs a = isa::make_a_regs(in), b = isa::make_b_regs(in), c = isa::make_d_regs(in), ix = isa::make_index_regs(in);
    const isa::sparse_a am = random_sparse(rng, f);
    isa::place_sparse_a(in, am, a, ix, 1);
    for (unsigned l = 0; l < f.wave; ++l) ix.word(l, 0) = (ix.word(l, 0) & 0xffff0000u) | std::uint32_t(rng() & 0xffffu);
    const isa::code_matrix bm = random_codes(rng, f.k, f.n, f.b);
    isa::place_b(in, bm, b);
    const isa::code_matrix want = isa::execute_sparse(in, am, bm, isa::code_matrix(f.m, f.n, 0u), {.index_key = 1});
    CHECK(isa::read_d(in, isa::execute(in, a, b, c, ix, {.index_key = 1})).data == want.data);
    // The same registers under index_key 0 read the random low half: a different A.
    CHECK(isa::read_sparse_a(in, a, ix, 0) != am);
  }
}

TEST_CASE("Signedness flags decode iu4 and iu8 codes as two's complement or unsigned", "[isa][model]") {
  CHECK(isa::element_value(isa::elem::iu4, 0xF, true) == -1);
  CHECK(isa::element_value(isa::elem::iu4, 0xF, false) == 15);
  CHECK(isa::element_value(isa::elem::iu4, 0x8, true) == -8);
  CHECK(isa::element_value(isa::elem::iu4, 0x7, true) == 7);
  CHECK(isa::element_value(isa::elem::iu8, 0x80, true) == -128);
  CHECK(isa::element_value(isa::elem::iu8, 0x80, false) == 128);
  const instr in = instr::wmma_i32_16x16x32_iu4;
  const auto& f = isa::info(in);
  isa::code_matrix a(f.m, f.k, 0u), b(f.k, f.n, 0u);
  a(2, 17) = 0xF;  // -1 or 15
  b(17, 4) = 0x9;  // -7 or 9
  const isa::code_matrix c(f.m, f.n, 0u);
  CHECK(std::int32_t(isa::execute_dense(in, a, b, c, {.a_signed = true, .b_signed = true})(2, 4)) == 7);
  CHECK(std::int32_t(isa::execute_dense(in, a, b, c, {.a_signed = false, .b_signed = true})(2, 4)) == -105);
  CHECK(std::int32_t(isa::execute_dense(in, a, b, c, {.a_signed = true, .b_signed = false})(2, 4)) == -9);
  CHECK(std::int32_t(isa::execute_dense(in, a, b, c, {.a_signed = false, .b_signed = false})(2, 4)) == 135);
}

TEST_CASE("Integer accumulation wraps at 32 bits, and clamp saturates (assumed)", "[isa][model]") {
  const instr in = instr::swmmac_i32_16x16x32_iu8;
  const auto& f = isa::info(in);
  isa::sparse_a a(f.m, f.k / 4);
  a.value(0, 0, 0) = 100;
  a.field(0, 0, 0) = 0;
  isa::code_matrix b(f.k, f.n, 0u), c(f.m, f.n, 0u);
  b(0, 0) = 100;
  c(0, 0) = 0x7fffffffu;
  CHECK(std::int32_t(isa::execute_sparse(in, a, b, c, {})(0, 0)) == std::int32_t(0x7fffffffu + 10000u));
  CHECK(std::int32_t(isa::execute_sparse(in, a, b, c, {.clamp = true})(0, 0)) == 0x7fffffff);
  c(0, 0) = 0x80000000u;
  a.value(0, 0, 0) = std::uint8_t(-100);
  CHECK(std::int32_t(isa::execute_sparse(in, a, b, c, {.clamp = true})(0, 0)) == std::int32_t(0x80000000u));
  CHECK_THROWS_AS(isa::execute_sparse(instr::swmmac_f32_16x16x32_f16, isa::sparse_a(16, 8), isa::code_matrix(32, 16, 0u),
                                      isa::code_matrix(16, 16, 0u), {.clamp = true}),
                  std::invalid_argument);
}

TEST_CASE("Float accumulation is one fp64 sum from C, rounded once to f32 (documented assumption)", "[isa][model]") {
  // 16 products of 2^-24 added to 1.0: rounding to f32 after every add would stay at 1.0 (each add is a tie to
  // even); the modelled order gives 1 + 2^-20 exactly.
  const instr in = instr::swmmac_f32_16x16x32_f16;
  const auto& f = isa::info(in);
  isa::sparse_a a(f.m, f.k / 4);
  for (unsigned g = 0; g < f.k / 4; ++g)
    for (unsigned s = 0; s < 2; ++s) {
      a.value(0, g, s) = tp::ref::double_to_fp16(0x1p-12);
      a.field(0, g, s) = std::uint8_t(s);
    }
  isa::code_matrix b(f.k, f.n, tp::ref::double_to_fp16(0x1p-12)), c(f.m, f.n, 0u);
  c(0, 0) = std::bit_cast<std::uint32_t>(1.0f);
  const float got = std::bit_cast<float>(isa::execute_sparse(in, a, b, c, {})(0, 0));
  CHECK(got == 1.0f + 0x1p-20f);
}

TEST_CASE("Integer SWMMAC and WMMA agree with the dense int64 oracle on the expanded A", "[isa][model]") {
  for (instr in : {instr::swmmac_i32_16x16x32_iu4, instr::swmmac_i32_16x16x64_iu4, instr::swmmac_i32_16x16x32_iu8,
                   instr::gfx9_smfmac_i32_16x16x64_i8, instr::wmma_i32_16x16x32_iu4, instr::wmma_i32_16x16x16_iu8,
                   instr::gfx11_wmma_i32_16x16x16_iu8}) {
    const auto& f = isa::info(in);
    for (unsigned rep = 0; rep < 8; ++rep) {
      const std::uint64_t seed = base_seed * 7 + unsigned(in) * 100 + rep;
      std::mt19937_64 rng(seed);
      INFO(f.name << " seed " << seed);
      const bool four = f.a == isa::elem::iu4;
      // Signed values small enough that two colliding values still fit int8 for the oracle's operand type.
      auto value = [&] { return std::int8_t(four ? int(rng() % 16) - 8 : int(rng() % 128) - 64); };
      auto code = [&](std::int8_t v) { return four ? std::uint32_t(v) & 0xfu : std::uint32_t(std::uint8_t(v)); };
      tp::ref::matrix<std::int8_t> a_exp(f.m, f.k, 0), bv(f.k, f.n, 0);
      tp::ref::matrix<std::int32_t> cv(f.m, f.n, 0);
      isa::code_matrix bm(f.k, f.n), cm(f.m, f.n);
      for (unsigned k = 0; k < f.k; ++k)
        for (unsigned j = 0; j < f.n; ++j) bm(k, j) = code(bv(k, j) = value());
      for (unsigned i = 0; i < f.m; ++i)
        for (unsigned j = 0; j < f.n; ++j) cm(i, j) = std::uint32_t(cv(i, j) = std::int32_t(rng()) >> 4);
      isa::code_matrix d;
      if (f.sparse) {
        isa::sparse_a am(f.m, f.k / 4);
        for (unsigned i = 0; i < f.m; ++i)
          for (unsigned g = 0; g < f.k / 4; ++g)
            for (unsigned s = 0; s < 2; ++s) {
              const std::int8_t v = value();
              const unsigned fld = unsigned(rng() & 3u);
              am.value(i, g, s) = code(v);
              am.field(i, g, s) = std::uint8_t(fld);
              a_exp(i, 4 * g + fld) = std::int8_t(a_exp(i, 4 * g + fld) + v);
            }
        d = isa::execute_sparse(in, am, bm, cm, {});
      } else {
        isa::code_matrix am(f.m, f.k);
        for (unsigned i = 0; i < f.m; ++i)
          for (unsigned k = 0; k < f.k; ++k) am(i, k) = code(a_exp(i, k) = value());
        d = isa::execute_dense(in, am, bm, cm, {});
      }
      const auto want = tp::ref::wrap_int32(tp::ref::int_gemm(a_exp.view(), bv.view(), cv.view()));
      unsigned bad = 0;
      for (unsigned i = 0; i < f.m; ++i)
        for (unsigned j = 0; j < f.n; ++j) bad += std::int32_t(d(i, j)) != want(i, j);
      CHECK(bad == 0);
    }
  }
}

// One call on random registers: every register bit random (NaN, denormal, colliding fields, wrap); rep picks the
// index_key, both signedness flags and clamp.
struct random_call {
  isa::wave_regs a, b, c, ix;
  isa::modifiers m;
};
random_call random_call_of(instr in, unsigned rep, std::mt19937_64& rng) {
  const auto& f = isa::info(in);
  random_call x{isa::make_a_regs(in), isa::make_b_regs(in), isa::make_d_regs(in), isa::make_index_regs(in), {}};
  for (isa::wave_regs* r : {&x.a, &x.b, &x.c, &x.ix})
    for (auto& w : r->words()) w = std::uint32_t(rng());
  x.m.index_key = f.sparse ? unsigned(rep % f.index_keys) : 0u;
  x.m.a_signed = rep & 1u;
  x.m.b_signed = rep & 2u;
  x.m.clamp = is_integer(f.d) && f.target != isa::arch::gfx9 && (rep & 4u);
  return x;
}

TEST_CASE("execute() equals its definition read -> execute_sparse/dense -> place on random registers", "[isa][model]") {
  // execute() computes from per-instruction tables (speed); execute_by_parts spells the definition. Every register
  // bit random (NaN, denormal, colliding fields, wrap), every legal index_key, both signedness flags and clamp.
  for (instr in : isa::all_instrs) {
    const auto& f = isa::info(in);
    const std::uint64_t seed = base_seed * 11 + unsigned(in);
    std::mt19937_64 rng(seed);
    INFO(f.name << " seed " << seed);
    for (unsigned rep = 0; rep < 24; ++rep) {
      const random_call x = random_call_of(in, rep, rng);
      INFO("rep " << rep);
      CHECK(isa::execute(in, x.a, x.b, x.c, x.ix, x.m) == isa::execute_by_parts(in, x.a, x.b, x.c, x.ix, x.m));
    }
  }
}

TEST_CASE("execute_rows() on register-major operands equals execute() on the same registers", "[isa][model]") {
  // The AMDGPU simulator hands its VGPR rows (VGPR r of lane l at r * wave + l) to execute_rows; execute() reads
  // lane-major words. Same registers, transposed: the same D, for every instruction and modifier.
  const auto rows_of = [](const isa::wave_regs& r) {
    std::vector<std::uint32_t> v(std::size_t(r.lanes()) * r.vgprs());
    for (unsigned l = 0; l < r.lanes(); ++l)
      for (unsigned g = 0; g < r.vgprs(); ++g) v[std::size_t(g) * r.lanes() + l] = r.word(l, g);
    return v;
  };
  for (instr in : isa::all_instrs) {
    const auto& f = isa::info(in);
    const std::uint64_t seed = base_seed * 13 + unsigned(in);
    std::mt19937_64 rng(seed);
    INFO(f.name << " seed " << seed);
    for (unsigned rep = 0; rep < 24; ++rep) {
      const random_call x = random_call_of(in, rep, rng);
      INFO("rep " << rep);
      const auto ar = rows_of(x.a), br = rows_of(x.b), cr = rows_of(x.c), ir = rows_of(x.ix);
      std::vector<std::uint32_t> dr(cr.size(), 0xdeadbeefu);
      isa::execute_rows(in, ar.data(), br.data(), cr.data(), ir.data(), x.m, dr.data());
      CHECK(dr == rows_of(isa::execute(in, x.a, x.b, x.c, x.ix, x.m)));
    }
  }
}
