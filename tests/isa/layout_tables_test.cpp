// The instruction model's register layouts against AMD's Matrix Instruction Calculator tables, every cell of every
// copied CSV (A, B, D, index incl. both index_key halves). The model is written from formulas; these tables are the
// ground truth it must reproduce. No expected layout is written by hand here.
// GCC 12 reports a false -Wrestrict inside std::string concatenation once inlined here (GCC bug 105651).
#if defined(__GNUC__) && !defined(__clang__) && __GNUC__ == 12
  #pragma GCC diagnostic ignored "-Wrestrict"
#endif
#include <algorithm>
#include <cctype>
#include <filesystem>
#include <string>

#include <catch2/catch_test_macros.hpp>

#include "reference/isa/isa.h"
#include "reference/isa/layout_table.h"

namespace isa = tp::ref::isa;
namespace tt = tp::ref::isa::tables;

namespace {

std::string table_path(const isa::instr_info& f, const std::string& operand) {
  return std::string(TP_ISA_LAYOUTS_DIR) + "/" + std::string(f.layout_stem) + "." + operand + ".csv";
}

std::string upper(std::string_view s) {
  std::string u(s);
  for (auto& ch : u) ch = char(std::toupper(static_cast<unsigned char>(ch)));
  return u;
}

std::string expected_architecture(const isa::instr_info& f) {
  switch (f.target) {
    case isa::arch::gfx9: return "CDNA3";
    case isa::arch::gfx11: return "RDNA3";
    case isa::arch::gfx12: return "RDNA4";
  }
  return "?";
}

void expect_clean(const tt::check_result& r, const std::string& what) {
  INFO(what << ": " << r.cells << " cells, " << r.elements << " elements/groups, " << r.error_count << " mismatches");
  for (const auto& e : r.errors) UNSCOPED_INFO(e);
  CHECK(r.error_count == 0);
  CHECK(r.cells > 0);
}

tt::table load(const isa::instr_info& f, const std::string& operand) {
  const std::string path = table_path(f, operand);
  INFO("table " << path);
  REQUIRE(std::filesystem::exists(path));
  tt::table t = tt::read_table(path);
  CHECK(t.architecture == expected_architecture(f));
  // The stem names the instruction whose table this is (the mixed fp8/bf8 forms borrow a same-layout table).
  const std::string stem(f.layout_stem);
  CHECK(t.instruction == upper(stem.substr(0, stem.find('.'))));
  CHECK(t.lanes == f.wave);
  return t;
}

}  // namespace

TEST_CASE("Every instruction's B and D layouts match AMD's tables cell for cell", "[isa][layout]") {
  for (isa::instr in : isa::all_instrs) {
    const auto& f = isa::info(in);
    DYNAMIC_SECTION(f.name) {
      expect_clean(tt::check_single(load(f, "B"), 'B', f.k, f.n, [&](unsigned k, unsigned j) { return isa::b_locs(in, k, j); }),
                   std::string(f.name) + " B");
      expect_clean(tt::check_single(load(f, "D"), 'D', f.m, f.n,
                                    [&](unsigned i, unsigned j) { return std::vector<isa::reg_loc>{isa::d_loc(in, i, j)}; }),
                   std::string(f.name) + " D");
    }
  }
}

TEST_CASE("Dense A layouts, including gfx11's replicated lanes, match AMD's tables", "[isa][layout]") {
  for (isa::instr in : isa::all_instrs) {
    const auto& f = isa::info(in);
    if (f.sparse) continue;
    DYNAMIC_SECTION(f.name) {
      expect_clean(tt::check_single(load(f, "A"), 'A', f.m, f.k, [&](unsigned i, unsigned k) { return isa::a_locs(in, i, k); }),
                   std::string(f.name) + " A");
    }
  }
}

TEST_CASE("Sparse A groups sit in the table's cells with the first stored value in the low bits", "[isa][layout]") {
  for (isa::instr in : isa::all_instrs) {
    const auto& f = isa::info(in);
    if (!f.sparse) continue;
    DYNAMIC_SECTION(f.name) {
      expect_clean(tt::check_groups(load(f, "A"), 'A', f.m, f.k / 4, isa::bits_of(f.a),
                                    [&](unsigned i, unsigned g, unsigned s) { return isa::a_slot_loc(in, i, g, s); }),
                   std::string(f.name) + " A");
    }
  }
}

TEST_CASE("Sparse index fields match the k tables for every legal index_key", "[isa][layout]") {
  for (isa::instr in : isa::all_instrs) {
    const auto& f = isa::info(in);
    if (!f.sparse) continue;
    // RDNA4 tables exist per OPSEL (= index_key); CDNA3 has one table (ABID 0).
    const unsigned keys = f.target == isa::arch::gfx12 ? f.index_keys : 1;
    for (unsigned key = 0; key < keys; ++key) {
      DYNAMIC_SECTION(f.name << " index_key " << key) {
        const std::string operand = f.target == isa::arch::gfx12 ? "k.opsel" + std::to_string(key) : "k";
        auto field = [&](unsigned i, unsigned g, unsigned s) {
          isa::reg_loc r = isa::index_field_loc(in, i, g, key);
          r.bit_lo += 2 * s;
          r.bit_hi = r.bit_lo + 1;
          return r;
        };
        expect_clean(tt::check_groups(load(f, operand), 'K', f.m, f.k / 4, 2, field),
                     std::string(f.name) + " " + operand);
      }
    }
  }
}

TEST_CASE("No index table exists for an index_key the model calls illegal", "[isa][layout]") {
  // K=64 iu4 uses all 32 index bits, so the calculator has no opsel1 table for it; the model must reject key 1.
  const auto& f = isa::info(isa::instr::swmmac_i32_16x16x64_iu4);
  CHECK_FALSE(std::filesystem::exists(table_path(f, "k.opsel1")));
  CHECK_THROWS(isa::index_field_loc(f.id, 0, 0, 1));
  const auto& f32 = isa::info(isa::instr::swmmac_i32_16x16x32_iu4);
  CHECK(std::filesystem::exists(table_path(f32, "k.opsel1")));
  CHECK_NOTHROW(isa::index_field_loc(f32.id, 0, 0, 1));
}

TEST_CASE("The table checker rejects layouts that are wrong in the ways that matter", "[isa][layout]") {
  using isa::instr;
  const auto& f = isa::info(instr::swmmac_i32_16x16x32_iu4);
  const tt::table a = load(f, "A");
  // Stored values swapped inside the group: the first value would sit in the high nibble.
  auto swapped = [&](unsigned i, unsigned g, unsigned s) { return isa::a_slot_loc(f.id, i, g, 1 - s); };
  CHECK(tt::check_groups(a, 'A', f.m, f.k / 4, 4, swapped).error_count == std::size_t(f.m) * (f.k / 4));
  // Groups 2,3 <-> 4,5 permuted (the derived 16-bit layout docs/bugs/gfx12-swmmac.md §5 warns about), on the f16 form.
  const auto& h = isa::info(instr::swmmac_f32_16x16x32_f16);
  auto permuted = [&](unsigned i, unsigned g, unsigned s) {
    const unsigned pg = (g == 2 || g == 3) ? g + 2 : (g == 4 || g == 5) ? g - 2 : g;
    return isa::a_slot_loc(h.id, i, pg, s);
  };
  CHECK(tt::check_groups(load(h, "A"), 'A', h.m, h.k / 4, 16, permuted).error_count > 0);
  // One B element moved to a neighbouring lane.
  auto shifted = [&](unsigned k, unsigned j) {
    auto locs = isa::b_locs(f.id, k, j);
    if (k == 5 && j == 3) locs[0].lane += 1;
    return locs;
  };
  CHECK(tt::check_single(load(f, "B"), 'B', f.k, f.n, shifted).error_count == 1);
  // gfx11 without the replica in lanes 16-31.
  const auto& g11 = isa::info(instr::gfx11_wmma_f32_16x16x16_f16);
  auto one_copy = [&](unsigned i, unsigned k) { return std::vector<isa::reg_loc>{isa::a_locs(g11.id, i, k).front()}; };
  CHECK(tt::check_single(load(g11, "A"), 'A', g11.m, g11.k, one_copy).error_count == std::size_t(g11.m) * g11.k);
}
