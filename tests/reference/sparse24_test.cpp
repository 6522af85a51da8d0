// 2:4 semantics on logical rows: survivor counts, compress/expand with the documented padding, statistics,
// the float zero rule (-0 is zero, NaN survives) and the magnitude pruning rule shared with the fixture script.
#include <catch2/catch_test_macros.hpp>
#include <catch2/generators/catch_generators.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

#include <cmath>
#include <cstdint>
#include <limits>
#include <tuple>
#include <vector>

#include "reference/codecs.h"
#include "reference/sparse24.h"

using namespace tp::ref;

TEST_CASE("Survivor counts and validity follow the per-group nonzero count", "[sparse24]") {
  const std::vector<std::int8_t> row{0, 0, 0, 44, 1, 0, 2, 0, 0, 0, 0, 0, 1, 2, 3, 0};
  CHECK(survivors_per_group(row) == std::vector<int>{1, 2, 0, 3});
  CHECK_FALSE(is_valid_2_4(row));
  const std::vector<std::int8_t> valid(row.begin(), row.begin() + 12);
  CHECK(is_valid_2_4(valid));
  const std::vector<std::int8_t> ragged{1, 2, 3};
  CHECK_THROWS_WITH(is_valid_2_4(ragged), Catch::Matchers::ContainsSubstring("not a multiple of 4"));
}

TEST_CASE("Compression of every 2:4 group case gives the documented values and positions", "[sparse24]") {
  // (group, values, positions): the 6 pairs, the 4 singles (zero padding at the lowest free position), the empty group.
  using row4 = std::vector<std::int8_t>;
  using pair_v = std::vector<std::int8_t>;
  using pair_p = std::vector<std::uint8_t>;
  auto [group, values, positions] = GENERATE(table<row4, pair_v, pair_p>({
      {{5, 6, 0, 0}, {5, 6}, {0, 1}},
      {{5, 0, 6, 0}, {5, 6}, {0, 2}},
      {{5, 0, 0, 6}, {5, 6}, {0, 3}},
      {{0, 5, 6, 0}, {5, 6}, {1, 2}},
      {{0, 5, 0, 6}, {5, 6}, {1, 3}},
      {{0, 0, 5, 6}, {5, 6}, {2, 3}},
      {{-7, 0, 0, 0}, {-7, 0}, {0, 1}},
      {{0, -7, 0, 0}, {0, -7}, {0, 1}},
      {{0, 0, -7, 0}, {0, -7}, {0, 2}},
      {{0, 0, 0, -7}, {0, -7}, {0, 3}},
      {{0, 0, 0, 0}, {0, 0}, {0, 1}},
  }));
  CAPTURE(group);
  const auto c = compress_2_4(group);
  CHECK(c.values == values);
  CHECK(c.positions == positions);
  CHECK(expand_2_4(c) == group);
}

TEST_CASE("A group with three survivors cannot be compressed and the message names it", "[sparse24]") {
  const std::vector<std::int8_t> row{1, 0, 0, 0, 1, 2, 3, 0};
  CHECK_THROWS_WITH(compress_2_4(row), Catch::Matchers::ContainsSubstring("group 1 has 3 survivors"));
}

TEST_CASE("Expansion refuses positions that are out of range or not ascending", "[sparse24]") {
  compressed_row<std::int8_t> c{{1, 2}, {2, 1}, {2}};
  CHECK_THROWS_AS(expand_2_4(c), std::invalid_argument);
  c.positions = {1, 1};
  CHECK_THROWS_AS(expand_2_4(c), std::invalid_argument);
  c.positions = {0, 4};
  CHECK_THROWS_AS(expand_2_4(c), std::invalid_argument);
  c.positions = {1, 3};
  CHECK(expand_2_4(c) == std::vector<std::int8_t>{0, 1, 0, 2});
}

TEST_CASE("Statistics count groups by survivors and lone survivors by position", "[sparse24]") {
  // groups: single@3, single@0, empty, pair, single@1, single@2, single@3, four survivors
  const std::vector<std::int8_t> row{0, 0, 0, 44, 5, 0, 0, 0, 0, 0, 0, 0, 1, 0, 2, 0,
                                     0, 7, 0, 0, 0, 0, 3, 0, 0, 0, 0, -1, 1, 2, 3, 4};
  const auto s = stats_2_4(row);
  CHECK(s.elements == 32);
  CHECK(s.groups == 8);
  CHECK(s.survivors == 11);
  CHECK(s.groups_by_survivors == std::array<std::size_t, 4>{1, 5, 1, 1});
  CHECK(s.single_at == std::array<std::size_t, 4>{1, 1, 1, 2});
  CHECK(s.underfilled_groups() == 6);
  CHECK(s.density() == 11.0 / 32.0);
  CHECK(s.fraction_exactly_two() == 1.0 / 8.0);

  // As a 2-row tile of K=16 the totals are the same; a wrong element count is refused.
  const auto t = stats_2_4(std::span<const std::int8_t>(row), 2, 16);
  CHECK(t.groups_by_survivors == s.groups_by_survivors);
  CHECK(t.single_at == s.single_at);
  CHECK_THROWS_AS(stats_2_4(std::span<const std::int8_t>(row), 3, 16), std::invalid_argument);
}

TEST_CASE("The float zero rule treats -0 as zero and NaN and infinities as survivors", "[sparse24]") {
  const double nan = std::numeric_limits<double>::quiet_NaN(), inf = std::numeric_limits<double>::infinity();
  const std::vector<double> row{-0.0, 0.0, nan, 1.0, -0.0, 0.0, 0.0, -inf};
  CHECK(survivors_per_group(row) == std::vector<int>{2, 1});
  const auto s = stats_2_4(row);
  CHECK(s.single_at[3] == 1);
  // The -0.0 at position 0 is not a survivor, so compression pads there with +0.0.
  const auto c = compress_2_4(std::vector<double>{-0.0, 0.0, 0.0, 3.0});
  CHECK(c.positions == std::vector<std::uint8_t>{0, 3});
  CHECK_FALSE(std::signbit(c.values[0]));
  // An fp8 E4M3 -0 code (0x80) is zero once decoded, but as a raw int8 code it would read as -128: decode first.
  CHECK_FALSE(survives(fp8_e4m3_to_double(0x80)));
  CHECK(survives(std::int64_t{static_cast<std::int8_t>(0x80)}));
  CHECK(survives(fp8_e4m3_to_double(0x7F)));  // NaN code survives under CK's float(x) != 0
}

TEST_CASE("Magnitude pruning keeps the two largest magnitudes and breaks ties toward the lower position",
          "[sparse24]") {
  // |x| = 1,3,3,2 -> keep 1,2;  all equal -> keep 0,1;  0.5,0.25,0.75,0.75 -> keep 2,3
  const std::vector<double> row{1, -3, 3, 2, 2, -2, 2, -2, 0.5, 0.25, 0.75, -0.75};
  CHECK(prune_2_4_magnitude(row) == std::vector<double>{0, -3, 3, 0, 2, -2, 0, 0, 0, 0, 0.75, -0.75});
  const std::vector<float> rowf{1, -3, 3, 2, 2, -2, 2, -2, 0.5f, 0.25f, 0.75f, -0.75f};
  CHECK(prune_2_4_magnitude(rowf) == std::vector<float>{0, -3, 3, 0, 2, -2, 0, 0, 0, 0, 0.75f, -0.75f});
  // All-zero group with a -0.0 at position 1: positions 0 and 1 are kept bit for bit, so the -0.0 survives pruning.
  const auto z = prune_2_4_magnitude(std::vector<double>{0.0, -0.0, -0.0, 0.0});
  CHECK(std::signbit(z[1]));
  CHECK_FALSE(std::signbit(z[2]));
  // Every pruned row is valid 2:4 (at most two nonzero per group).
  CHECK(is_valid_2_4(prune_2_4_magnitude(row)));
}

TEST_CASE("Magnitude pruning refuses NaN and ragged rows", "[sparse24]") {
  CHECK_THROWS_WITH(prune_2_4_magnitude(std::vector<double>{1, std::nan(""), 0, 0}),
                    Catch::Matchers::ContainsSubstring("NaN at element 1"));
  CHECK_THROWS_AS(prune_2_4_magnitude(std::vector<double>{1, 2}), std::invalid_argument);
}

TEST_CASE("Doubles holding logical integers can use the integer rule, which refuses non-integers", "[sparse24]") {
  const std::vector<double> ints{0, 0, 0, -8, 1, 0, 2, 0};
  CHECK(survivors_per_group(ints, zero_test::integer) == std::vector<int>{1, 2});
  CHECK(stats_2_4(ints, zero_test::integer).single_at[3] == 1);
  CHECK(compress_2_4(ints, zero_test::integer).positions == std::vector<std::uint8_t>{0, 3, 0, 2});
  // The same NaN is a survivor under the float rule and an error under the integer rule.
  const std::vector<double> with_nan{std::nan(""), 0, 0, 0};
  CHECK(survivors_per_group(with_nan) == std::vector<int>{1});
  CHECK_THROWS_WITH(survivors_per_group(with_nan, zero_test::integer),
                    Catch::Matchers::ContainsSubstring("non-integer value"));
  CHECK_THROWS_AS(is_valid_2_4(std::vector<double>{0.5, 0, 0, 0}, zero_test::integer), std::invalid_argument);
}
