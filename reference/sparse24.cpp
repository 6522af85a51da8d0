#include "reference/sparse24.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <type_traits>

namespace tp::ref {
namespace {

template <class T>
void check_length(std::span<const T> row, const char* who) {
  if (row.size() % 4 != 0)
    throw std::invalid_argument(std::string(who) + ": row length " + std::to_string(row.size()) +
                                " is not a multiple of 4");
}

template <class T>
bool is_survivor(T v, zero_test rule) {
  if constexpr (std::is_floating_point_v<T>) {
    const double x = static_cast<double>(v);
    if (rule == zero_test::integer && !(std::isfinite(x) && x == std::trunc(x)))
      throw std::invalid_argument("2:4 integer zero test applied to the non-integer value " + std::to_string(x));
    return survives(x);
  } else {
    return survives(static_cast<std::int64_t>(v));
  }
}

template <class T>
std::vector<int> count_groups(std::span<const T> row, zero_test rule) {
  check_length(row, "survivors_per_group");
  std::vector<int> n(row.size() / 4, 0);
  for (std::size_t i = 0; i < row.size(); ++i) n[i / 4] += is_survivor(row[i], rule) ? 1 : 0;
  return n;
}

template <class T>
compressed_row<T> compress(std::span<const T> row, zero_test rule) {
  check_length(row, "compress_2_4");
  const std::size_t groups = row.size() / 4;
  compressed_row<T> c;
  c.values.reserve(2 * groups);
  c.positions.reserve(2 * groups);
  c.survivors.reserve(groups);
  for (std::size_t g = 0; g < groups; ++g) {
    std::uint8_t pos[4];
    int n = 0;
    for (std::uint8_t p = 0; p < 4; ++p)
      if (is_survivor(row[4 * g + p], rule)) pos[n++] = p;
    if (n > 2)
      throw std::invalid_argument("compress_2_4: group " + std::to_string(g) + " has " + std::to_string(n) +
                                  " survivors (2:4 allows at most 2)");
    if (n == 0) {
      pos[0] = 0;
      pos[1] = 1;
    } else if (n == 1) {
      // Padding at the lowest free position, then ascending order.
      const std::uint8_t pad = pos[0] == 0 ? 1 : 0;
      pos[1] = std::max(pad, pos[0]);
      pos[0] = std::min(pad, pos[0]);
    }
    for (int s = 0; s < 2; ++s) {
      const T v = row[4 * g + pos[s]];
      c.values.push_back(is_survivor(v, rule) ? v : T{});
      c.positions.push_back(pos[s]);
    }
    c.survivors.push_back(static_cast<std::uint8_t>(n));
  }
  return c;
}

template <class T>
std::vector<T> expand(const compressed_row<T>& c) {
  if (c.values.size() != c.positions.size() || c.values.size() % 2 != 0)
    throw std::invalid_argument("expand_2_4: values and positions must both hold 2 entries per group");
  const std::size_t groups = c.values.size() / 2;
  std::vector<T> row(4 * groups, T{});
  for (std::size_t g = 0; g < groups; ++g) {
    const auto p0 = c.positions[2 * g], p1 = c.positions[2 * g + 1];
    if (p0 > 3 || p1 > 3 || p0 >= p1)
      throw std::invalid_argument("expand_2_4: group " + std::to_string(g) + " positions (" + std::to_string(p0) +
                                  "," + std::to_string(p1) + ") are not distinct ascending positions in 0..3");
    row[4 * g + p0] = c.values[2 * g];
    row[4 * g + p1] = c.values[2 * g + 1];
  }
  return row;
}

template <class T>
sparsity_stats stats(std::span<const T> row, zero_test rule) {
  check_length(row, "stats_2_4");
  sparsity_stats s;
  s.elements = row.size();
  s.groups = row.size() / 4;
  for (std::size_t g = 0; g < s.groups; ++g) {
    int n = 0, last = -1;
    for (int p = 0; p < 4; ++p)
      if (is_survivor(row[4 * g + p], rule)) {
        ++n;
        last = p;
      }
    s.survivors += static_cast<std::size_t>(n);
    ++s.groups_by_survivors[std::min(n, 3)];
    if (n == 1) ++s.single_at[static_cast<std::size_t>(last)];
  }
  return s;
}

template <class T>
sparsity_stats tile_stats(std::span<const T> tile, std::size_t rows, std::size_t k, zero_test rule) {
  if (tile.size() != rows * k)
    throw std::invalid_argument("stats_2_4: tile holds " + std::to_string(tile.size()) + " elements, expected " +
                                std::to_string(rows) + "x" + std::to_string(k));
  sparsity_stats total;
  for (std::size_t r = 0; r < rows; ++r) total += stats(tile.subspan(r * k, k), rule);
  return total;
}

template <class T>
std::vector<T> prune(std::span<const T> row) {
  check_length(row, "prune_2_4_magnitude");
  std::vector<T> out(row.size(), T(0));
  for (std::size_t g = 0; g < row.size() / 4; ++g) {
    int order[4] = {0, 1, 2, 3};
    for (int p = 0; p < 4; ++p)
      if (std::isnan(static_cast<double>(row[4 * g + p])))
        throw std::invalid_argument("prune_2_4_magnitude: NaN at element " + std::to_string(4 * g + p));
    // Stable sort by descending magnitude keeps the lower position first on ties: key (-|x|, p).
    std::stable_sort(order, order + 4, [&](int x, int y) {
      return std::fabs(static_cast<double>(row[4 * g + x])) > std::fabs(static_cast<double>(row[4 * g + y]));
    });
    out[4 * g + order[0]] = row[4 * g + order[0]];
    out[4 * g + order[1]] = row[4 * g + order[1]];
  }
  return out;
}

}  // namespace

sparsity_stats& sparsity_stats::operator+=(const sparsity_stats& o) {
  elements += o.elements;
  survivors += o.survivors;
  groups += o.groups;
  for (std::size_t i = 0; i < 4; ++i) {
    groups_by_survivors[i] += o.groups_by_survivors[i];
    single_at[i] += o.single_at[i];
  }
  return *this;
}

constexpr zero_test int_rule = zero_test::integer;

std::vector<int> survivors_per_group(std::span<const std::int8_t> row) { return count_groups(row, int_rule); }
std::vector<int> survivors_per_group(std::span<const double> row, zero_test rule) { return count_groups(row, rule); }

bool is_valid_2_4(std::span<const std::int8_t> row) {
  const auto n = count_groups(row, int_rule);
  return std::all_of(n.begin(), n.end(), [](int x) { return x <= 2; });
}
bool is_valid_2_4(std::span<const double> row, zero_test rule) {
  const auto n = count_groups(row, rule);
  return std::all_of(n.begin(), n.end(), [](int x) { return x <= 2; });
}

compressed_row<std::int8_t> compress_2_4(std::span<const std::int8_t> row) { return compress(row, int_rule); }
compressed_row<double> compress_2_4(std::span<const double> row, zero_test rule) { return compress(row, rule); }
std::vector<std::int8_t> expand_2_4(const compressed_row<std::int8_t>& c) { return expand(c); }
std::vector<double> expand_2_4(const compressed_row<double>& c) { return expand(c); }

sparsity_stats stats_2_4(std::span<const std::int8_t> row) { return stats(row, int_rule); }
sparsity_stats stats_2_4(std::span<const double> row, zero_test rule) { return stats(row, rule); }
sparsity_stats stats_2_4(std::span<const std::int8_t> tile, std::size_t rows, std::size_t k) {
  return tile_stats(tile, rows, k, int_rule);
}
sparsity_stats stats_2_4(std::span<const double> tile, std::size_t rows, std::size_t k, zero_test rule) {
  return tile_stats(tile, rows, k, rule);
}

std::vector<double> prune_2_4_magnitude(std::span<const double> row) { return prune(row); }
std::vector<float> prune_2_4_magnitude(std::span<const float> row) { return prune(row); }

}  // namespace tp::ref
