// The HIP backend never says "skipped" while a card is present: a card this binary cannot run is named, with what to do.
#include <catch2/catch_test_macros.hpp>

#include <filesystem>
#include <fstream>
#include <string>
#include <unistd.h>

#include "simt/hip/device_check.h"

namespace {
using tp::hip::release;
using tp::hip::unusable_reason;
const std::string built = "gfx1201,gfx1100,gfx942";

// A fake amdkfd topology: one CPU node (gfx_target_version 0) and the given GPU nodes.
std::filesystem::path fake_topology(std::initializer_list<unsigned long> gpus) {
  auto root = std::filesystem::temp_directory_path() / ("tp-kfd-" + std::to_string(::getpid()) + "-" +
                                                        std::to_string(gpus.size()));
  std::filesystem::remove_all(root);
  unsigned node = 0;
  auto add = [&](unsigned long v) {
    const auto dir = root / std::to_string(node++);
    std::filesystem::create_directories(dir);
    std::ofstream(dir / "properties") << "cpu_cores_count 0\nsimd_count 192\ngfx_target_version " << v
                                      << "\nmax_waves_per_simd 16\n";
  };
  add(0);
  for (auto v : gpus) add(v);
  return root;
}
}  // namespace

TEST_CASE("The kernel driver's topology names AMD GPUs by gfx arch, CPU nodes not at all") {
  const auto t = fake_topology({120001, 110000, 90402});
  const auto gpus = tp::hip::kfd_gpus(t);
  CHECK(gpus == std::vector<std::string>{"gfx1201", "gfx1100", "gfx942"});
  CHECK(tp::hip::kfd_gpus(t / "nonexistent").empty());
  std::filesystem::remove_all(t);
}

TEST_CASE("No card at all is not this check's business: the backend is simply not available") {
  CHECK_FALSE(unusable_reason(0, "", "5.2.21153", {5, 2}, built, {}).has_value());
}

TEST_CASE("A card the runtime does not know is refused with the arch, the runtime and what to do") {
  const auto why = unusable_reason(0, "", "5.2.21153", {5, 2}, built, {"gfx1201"});
  REQUIRE(why.has_value());
  CHECK(why->find("gfx1201") != std::string::npos);
  CHECK(why->find("5.2.21153") != std::string::npos);
  CHECK(why->find("ROCm") != std::string::npos);
}

TEST_CASE("A card whose arch has no code object in the binary is refused, naming the archs built in") {
  const auto why = unusable_reason(1, "gfx1030", "6.4.43482", {6, 4}, built, {"gfx1030"});
  REQUIRE(why.has_value());
  CHECK(why->find("gfx1030") != std::string::npos);
  CHECK(why->find(built) != std::string::npos);
  CHECK(why->find("-DTP_HIP_ARCHS=gfx1030") != std::string::npos);
}

TEST_CASE("A runtime older than the first ROCm that supports the arch is refused; a new enough one is not") {
  const auto old = unusable_reason(1, "gfx1201", "6.3.42131", {6, 3}, built, {"gfx1201"});
  REQUIRE(old.has_value());
  CHECK(old->find("6.4.1") != std::string::npos);
  CHECK_FALSE(unusable_reason(1, "gfx1201:sramecc-:xnack-", "6.4.43482", {6, 4}, built, {"gfx1201"}).has_value());
  CHECK_FALSE(unusable_reason(1, "gfx1100", "5.7.31921", {5, 7}, built, {"gfx1100"}).has_value());
  CHECK(unusable_reason(1, "gfx1100", "5.6.31061", {5, 6}, built, {"gfx1100"}).has_value());
}
