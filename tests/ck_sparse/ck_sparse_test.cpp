// Unit tests of the ck_sparse model through its registered variants (compress level and whole tiles), and of
// extract_fragment_idx directly.
#include <catch2/catch_test_macros.hpp>
#include <catch2/generators/catch_generators.hpp>
#include <catch2/generators/catch_generators_range.hpp>

#include <cstdint>
#include <vector>

#include "kernels/ck_sparse/api.h"
#include "probes/ck_support/ck_tiles.h"
#include "reference/pk_int4.h"
#include "simt/registry.h"

#define TP_VARIANT_NS ck_sparse_unit
#include "kernels/ck_sparse/sparse_mma_pipeline.cuh"
#undef TP_VARIANT_NS

namespace api = tp::ck_sparse;

namespace {
const api::ops& variant(const char* name) {
  const auto* ops = tp::find_variant<api::ops>("ck_sparse", name, tp::backend::cpu);
  REQUIRE(ops != nullptr);
  return *ops;
}
std::vector<std::uint8_t> fp16_vector(std::initializer_list<std::uint16_t> codes) {
  std::vector<std::uint8_t> v;
  for (auto c : codes) v.insert(v.end(), {std::uint8_t(c), std::uint8_t(c >> 8)});
  return v;
}
}  // namespace

TEST_CASE("Every ck_sparse variant of the series and the mutants is registered on the CPU backend") {
  for (const char* v : {"upstream", "fixed", "fixed-minus-0001", "fixed-minus-0002", "fixed-minus-0003",
                        "mutant-swap-without-xor", "mutant-xor-without-swap", "mutant-default-field-3",
                        "mutant-zero-default-first-survivor-only", "mutant-fragment-idx-unscaled"})
    CHECK(tp::find_variant<api::ops>("ck_sparse", v, tp::backend::cpu) != nullptr);
}

TEST_CASE("A lone survivor at position 3 compresses to {V,V} upstream and {V,0} fixed, idx 0xbb on both") {
  // fp16 5.0 = 0x4500, 6.0 = 0x4600: two groups {0,0,0,5}, {0,0,0,6}.
  const auto in = fp16_vector({0, 0, 0, 0x4500, 0, 0, 0, 0x4600});
  const auto up = variant("upstream").compress(api::dtype::fp16, in);
  const auto fx = variant("fixed").compress(api::dtype::fp16, in);
  CHECK(up.compressed == fp16_vector({0x4500, 0x4500, 0x4600, 0x4600}));
  CHECK(fx.compressed == fp16_vector({0x4500, 0, 0x4600, 0}));
  CHECK(up.idx == std::vector<std::uint32_t>{0xbbu});  // field0=0b11, field1=0b10 per group
  CHECK(fx.idx == std::vector<std::uint32_t>{0xbbu});
}

TEST_CASE("The fixed pk_int4 scan writes reference/pk_int4.h's group value for each of the 11 group kinds") {
  const auto kind = tp::ref::all_group_kinds[std::size_t(GENERATE(Catch::Generators::range(0, 11)))];
  CAPTURE(tp::ck_probe::group_kind_id(kind));
  std::vector<std::uint8_t> in(8, 0);  // group 0 of 4; CK order: logical 2b = high nibble of byte b
  const unsigned mask = tp::ref::survivor_mask(kind);
  for (unsigned p = 0; p < 4; ++p)
    if ((mask >> p) & 1u) in[p / 2] |= std::uint8_t(0x7u << (p % 2 ? 0 : 4));
  const auto r = variant("fixed").compress(api::dtype::pk_int4, in);
  REQUIRE(r.fields == 8);
  CHECK((r.idx[0] & 0xFu) == tp::ref::pk_int4_group_idx(kind));
  CHECK(((r.idx[0] >> 4) & 0xFFFu) == 0xAAAu);  // the three empty groups keep the defaults
  CHECK(r.oob_survivor_writes == 0);
}

TEST_CASE("Upstream's byte scan of pk_int4 counts writes past the survivor array and emits half the fields") {
  // Window 0 = bytes 0..3 = groups (0,2) and (1,3): four nonzero bytes.
  const std::vector<std::uint8_t> in = {0x30, 0x80, 0x05, 0x07, 0, 0, 0, 0};
  const auto up = variant("upstream").compress(api::dtype::pk_int4, in);
  CHECK(up.oob_survivor_writes == 2);
  CHECK(up.fields == 4);
  const auto fx = variant("fixed").compress(api::dtype::pk_int4, in);
  CHECK(fx.oob_survivor_writes == 0);
  CHECK(fx.fields == 8);
}

TEST_CASE("The fixed pipeline reproduces the logical GEMM exactly for int8 and pk_int4 at every K and instruction") {
  using namespace tp::ck_probe;
  for (auto t : {api::dtype::int8, api::dtype::pk_int4})
    for (const auto& s : shapes_for(t)) {
      CAPTURE(shape_label(s));
      const tile tl = random_tile(s, 0x1234 + s.k, every_group_kind);
      const tile* one[] = {&tl};
      const auto run = run_tiles(variant("fixed"), one);
      const auto e = evaluate(tl, oracle(tl), run.results[0], 0);
      CHECK(e.wrong == 0);
      CHECK(e.max_abs_err == 0);
      // The same tile on upstream is wrong: the test can fail.
      const auto bad = evaluate(tl, oracle(tl), run_tiles(variant("upstream"), one).results[0], 0);
      CHECK(bad.wrong > 0);
    }
}

TEST_CASE("extract_fragment_idx takes each fragment's bits and stitches them across words") {
  using namespace ck_sparse_unit::ck_sparse;
  SparseIdxPack<64> idx{};
  idx.w[0] = 0x33332222u;
  idx.w[1] = 0x55554444u;
  idx.w[2] = 0x77776666u;
  idx.w[3] = 0x99998888u;
  // 8 fields (16 bits) per fragment: fragment 1 starts at bit 16, fragment 3 at bit 48.
  CHECK((extract_fragment_idx<8, 4>(idx, 0, 1).w[0] & 0xFFFFu) == 0x3333u);
  CHECK((extract_fragment_idx<8, 4>(idx, 0, 3).w[0] & 0xFFFFu) == 0x5555u);
  // A 16-field slice from bit 16 crosses into word 1.
  CHECK(extract_fragment_idx<16, 2>(idx, 0, 0).w[0] == 0x33332222u);
  // Pre-fix pk_int4 accounting (4 fields = 8 bits per fragment): fragment 1 starts inside fragment 0's bits. As CK
  // stitches in the next word only when the fragment's own bits cross it (bitInWord + IdxBitsPerFrag > 32), the bits
  // above are the shift's zeros: fragment 3 at bit 24 (K=256 over 16x16x32) gets none of word 1.
  CHECK(extract_fragment_idx<4, 8>(idx, 0, 1).w[0] == 0x00333322u);
  CHECK(extract_fragment_idx<4, 8>(idx, 0, 3).w[0] == 0x00000033u);
  // A fragment whose own bits do cross the boundary (12 fields = 24 bits from bit 24) is stitched.
  CHECK(extract_fragment_idx<12, 2>(idx, 0, 1).w[0] == 0x55444433u);
}

TEST_CASE("The fuzz generators' inline rng draws probe::rng's exact stream, so printed fuzz ids rerun the same tile") {
  for (std::uint64_t seed : {0ull, 1ull, 0x9E3779B97F4A7C15ull, 0xFFFFFFFFFFFFFFFFull}) {
    tp::probe::rng slow(seed);
    tp::ck_probe::fast_rng fast(seed);
    for (int i = 0; i < 2000; ++i) {
      switch (i % 6) {
        case 0: CHECK(fast.range<-64, 64>() == slow.range(-64, 64)); break;
        case 1: CHECK(fast.range<-8, 7>() == slow.range(-8, 7)); break;
        case 2: CHECK(fast.range<-16, 16>() == slow.range(-16, 16)); break;
        case 3: CHECK(fast.below(11) == slow.below(11)); break;
        case 4: CHECK(fast.below(5) == slow.below(5)); break;  // the generic path
        case 5: CHECK(fast.next() == slow.next()); break;
      }
    }
  }
}

TEST_CASE("Packing a tile in place gives the bytes physical_a and physical_b give, for every type") {
  using namespace tp::ck_probe;
  for (auto t : {api::dtype::int8, api::dtype::pk_int4, api::dtype::fp8_e4m3, api::dtype::fp16})
    for (const auto& s : shapes_for(t)) {
      const tile tl = random_tile(s, 77 + s.k, every_group_kind);
      std::vector<std::uint8_t> a{0xEE}, b{0xDD};  // appends after what is there
      append_physical(tl, a, b);
      auto want_a = physical_a(tl), want_b = physical_b(tl);
      want_a.insert(want_a.begin(), 0xEE);
      want_b.insert(want_b.begin(), 0xDD);
      CHECK(a == want_a);
      CHECK(b == want_b);
    }
}

TEST_CASE("A fuzz tile generated into reused storage equals the freshly built one") {
  using namespace tp::ck_probe;
  tile reused =
      random_tile({api::dtype::fp16, 256, api::instruction::k32}, 5, {group_kind::pair01, group_kind::single3});
  for (auto t : {api::dtype::int8, api::dtype::pk_int4, api::dtype::fp8_e4m3, api::dtype::fp16})
    for (const auto& s : shapes_for(t)) {
      const tile fresh = random_tile(s, 1234 + s.k, every_group_kind);
      fill_random_tile(reused, s, 1234 + s.k, every_group_kind);
      CHECK(reused.a == fresh.a);
      CHECK(reused.b == fresh.b);
      CHECK(reused.shape.k == s.k);
    }
}
