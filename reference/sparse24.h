// 2:4 structured sparsity on LOGICAL rows (groups of 4 consecutive elements along K). Nothing here knows about
// CK's compressed vectors or index words; it is what a 2:4 row means, used to check kernels from the outside.
//
// Zero test. CK's compress_a_impl decides survivors with `float(x) != 0` (docs/bugs/ck-sparse.md §4, §9):
//   - on logical integers (int8, int4) that is simply `v != 0`            -> zero_test::integer
//   - on fp8 / fp16 / bf16 values it is IEEE `x != 0.0`: -0.0 is ZERO (not a survivor) and NaN IS a survivor,
//     because NaN != 0 is true                                           -> zero_test::floating
// The int8 overloads always use the integer rule. The double overloads take the rule as a parameter (default
// floating); zero_test::integer there means "these doubles hold logical integers": any value that is not a finite
// integer is refused (std::invalid_argument), so a probe cannot silently apply the wrong rule to decoded floats.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

namespace tp::ref {

enum class zero_test { integer, floating };

// The kinds of 4-group a valid 2:4 row holds, named by their survivor positions: six pairs, four lone survivors and
// the empty group. The order is part of the interface: case ids, coverage counters and the adversarial table's
// rotation (CK's AdversarialGeneratedTile cycles through them in this order, docs/bugs/ck-sparse.md §11) follow it.
enum class group_kind : std::uint8_t { pair01, pair02, pair03, pair12, pair13, pair23, single0, single1, single2,
                                       single3, none };
inline constexpr std::array<group_kind, 11> all_group_kinds = {
    group_kind::pair01,  group_kind::pair02,  group_kind::pair03,  group_kind::pair12,
    group_kind::pair13,  group_kind::pair23,  group_kind::single0, group_kind::single1,
    group_kind::single2, group_kind::single3, group_kind::none};
// Bit p set: position p survives.
constexpr unsigned survivor_mask(group_kind k) {
  constexpr unsigned masks[] = {0b0011, 0b0101, 0b1001, 0b0110, 0b1010, 0b1100, 0b0001, 0b0010, 0b0100, 0b1000, 0};
  return masks[unsigned(k)];
}
// The kind of a group with these survivors; nullopt for more than two (not valid 2:4).
constexpr std::optional<group_kind> group_kind_of(unsigned mask) {
  for (group_kind k : all_group_kinds)
    if (survivor_mask(k) == (mask & 0xFu)) return k;
  return std::nullopt;
}

// Integer rule (exact): survivor iff v != 0.
constexpr bool survives(std::int64_t v) { return v != 0; }
// Float rule, as CK's `float(x) != 0`: -0.0 is zero, NaN survives, +-inf survive.
constexpr bool survives(double x) { return x != 0.0; }

// Survivor count of each 4-group of a row; the row length must be a multiple of 4 (std::invalid_argument).
std::vector<int> survivors_per_group(std::span<const std::int8_t> row);
std::vector<int> survivors_per_group(std::span<const double> row, zero_test rule = zero_test::floating);

// A dense row is valid 2:4 when every group of 4 has at most 2 survivors.
bool is_valid_2_4(std::span<const std::int8_t> row);
bool is_valid_2_4(std::span<const double> row, zero_test rule = zero_test::floating);

// Logical compressed form: exactly 2 (value, position) entries per group, positions distinct and ascending.
// Padding convention (our choice; the hardware only needs value 0 at any position, and 0 contributes nothing):
//   2 survivors at p<q        -> (a_p, p), (a_q, q)
//   1 survivor at p           -> a zero-valued entry at the LOWEST position != p, then sorted ascending:
//                                p=0 -> (a_0,0),(0,1)   p=1 -> (0,0),(a_1,1)
//                                p=2 -> (0,0),(a_2,2)   p=3 -> (0,0),(a_3,3)
//   0 survivors               -> (0,0),(0,1)   (the "positions {0,1}" word 0x44444444, docs/bugs/gfx12-swmmac.md §3)
// This is deliberately NOT CK's convention (CK leaves the field at 2): the oracle states meaning, not CK's bits.
// A float non-survivor (-0.0) is compressed away, so expand() yields +0.0 there; products with it are zero either way.
template <class T>
struct compressed_row {
  std::vector<T> values;                  // 2 per group
  std::vector<std::uint8_t> positions;    // 2 per group, each 0..3
  std::vector<std::uint8_t> survivors;    // per group: 0, 1 or 2 (which entries are padding follows from it)
};

// std::invalid_argument if the row length is not a multiple of 4 or a group has more than 2 survivors (message
// names the group).
compressed_row<std::int8_t> compress_2_4(std::span<const std::int8_t> row);
compressed_row<double> compress_2_4(std::span<const double> row, zero_test rule = zero_test::floating);
// Inverse: dense row of 4 * groups elements; std::invalid_argument on positions > 3, not strictly ascending, or
// sizes that are not 2 per group. Entries are written (not accumulated), so a round trip is exact.
std::vector<std::int8_t> expand_2_4(const compressed_row<std::int8_t>& c);
std::vector<double> expand_2_4(const compressed_row<double>& c);

struct sparsity_stats {
  std::size_t elements = 0;
  std::size_t survivors = 0;                 // elements passing the zero test
  std::size_t groups = 0;
  std::array<std::size_t, 4> groups_by_survivors{};  // [0], [1], [2], [3] = groups with more than 2
  std::array<std::size_t, 4> single_at{};            // groups with exactly one survivor, at position p (p=3: bug 1)

  double density() const { return elements ? double(survivors) / double(elements) : 0.0; }
  double fraction_exactly_two() const { return groups ? double(groups_by_survivors[2]) / double(groups) : 0.0; }
  std::size_t underfilled_groups() const { return groups_by_survivors[0] + groups_by_survivors[1]; }
  sparsity_stats& operator+=(const sparsity_stats& o);
};

// Statistics of one row, or of a row-major tile of `rows` rows of length k (groups never cross rows).
sparsity_stats stats_2_4(std::span<const std::int8_t> row);
sparsity_stats stats_2_4(std::span<const double> row, zero_test rule = zero_test::floating);
sparsity_stats stats_2_4(std::span<const std::int8_t> tile, std::size_t rows, std::size_t k);
sparsity_stats stats_2_4(std::span<const double> tile, std::size_t rows, std::size_t k,
                         zero_test rule = zero_test::floating);

// Magnitude 2:4 pruning of a float row. THE EXACT RULE (fixtures/tools/make_fixtures.py implements the same):
//   for each group g (elements 4g..4g+3), order the 4 positions by the key (-|x_p|, p) ascending, i.e. larger
//   magnitude first and, on equal magnitude, LOWER position first; keep the first two positions with their values
//   unchanged (bit for bit, a kept -0.0 stays -0.0) and set the other two to +0.0.
//   Magnitudes compare as doubles (a float input is widened exactly first); |+0.0| == |-0.0|.
//   In Python: keep = sorted(range(4), key=lambda p: (-abs(x[4*g+p]), p))[:2]
// NaN anywhere, or a length that is not a multiple of 4, throws std::invalid_argument (NaN has no magnitude order).
std::vector<double> prune_2_4_magnitude(std::span<const double> row);
std::vector<float> prune_2_4_magnitude(std::span<const float> row);

}  // namespace tp::ref
