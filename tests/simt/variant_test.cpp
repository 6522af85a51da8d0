// The variant builder and the registry: the test family's series and mutant give four distinct behaviours.
#include <catch2/catch_test_macros.hpp>

#include <algorithm>
#include <string>
#include <vector>

#include "simt/registry.h"
#include "variant_family/vfam_ops.h"

namespace {
const vfam_ops& variant(const char* name) {
  const vfam_ops* ops = tp::find_variant<vfam_ops>("vfam", name, tp::backend::cpu);
  INFO("variant " << name);
  REQUIRE(ops != nullptr);
  return *ops;
}

// 2 rows x 4 columns; the fixed row sums are 10 and 26 (column 0 holds 1 and 5, the last column 4 and 8).
const std::vector<int> matrix{1, 2, 3, 4, 5, 6, 7, 8};
}  // namespace

TEST_CASE("The variant builder makes upstream, fixed, one fixed-minus per patch and the mutant") {
  std::vector<std::string> names;
  for (const auto& e : tp::variants("vfam"))
    if (e.where == tp::backend::cpu) names.push_back(e.variant);
  CHECK(names == std::vector<std::string>{"fixed", "fixed-minus-0001", "fixed-minus-0002", "mutant-drop-last-column",
                                          "upstream"});
}

TEST_CASE("Each variant of the test family computes what its patches say") {
  CHECK(variant("upstream").row_sums(matrix, 2, 4) == std::vector<int>{9, 21});
  CHECK(variant("upstream").scaled({1, -2, 5}) == std::vector<int>{2, -4, 10});
  CHECK(variant("fixed").row_sums(matrix, 2, 4) == std::vector<int>{10, 26});
  CHECK(variant("fixed").scaled({1, -2, 5}) == std::vector<int>{3, -6, 15});
  CHECK(variant("fixed-minus-0001").row_sums(matrix, 2, 4) == std::vector<int>{9, 21});
  CHECK(variant("fixed-minus-0001").scaled({1, -2, 5}) == std::vector<int>{3, -6, 15});
  CHECK(variant("fixed-minus-0002").row_sums(matrix, 2, 4) == std::vector<int>{10, 26});
  CHECK(variant("fixed-minus-0002").scaled({1, -2, 5}) == std::vector<int>{2, -4, 10});
  CHECK(variant("mutant-drop-last-column").row_sums(matrix, 2, 4) == std::vector<int>{6, 18});
  CHECK(variant("mutant-drop-last-column").scaled({1, -2, 5}) == std::vector<int>{3, -6, 15});
}

TEST_CASE("The registry refuses unknown variants, other backends and a mismatched ops type") {
  CHECK(tp::find_variant<vfam_ops>("vfam", "no-such-variant", tp::backend::cpu) == nullptr);
  CHECK(tp::find_variant<vfam_ops>("no-such-family", "fixed", tp::backend::cpu) == nullptr);
  CHECK(tp::find_variant<vfam_ops>("vfam", "fixed", tp::backend::hip) == nullptr);
  struct other_ops { int x; };
  CHECK(tp::find_variant<other_ops>("vfam", "fixed", tp::backend::cpu) == nullptr);
  CHECK(tp::find_variant<vfam_ops>("vfam", "fixed", tp::backend::cpu) != nullptr);
}
