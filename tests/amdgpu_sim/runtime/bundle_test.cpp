// The offload bundle reader against bundles built here byte by byte, in the layout clang's documentation gives
// (https://clang.llvm.org/docs/ClangOffloadBundler.html), and corruptions of them.
#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

#include <cstring>
#include <string>
#include <vector>

#include "simt/amdgpu_sim/machine.h"
#include "simt/amdgpu_sim/runtime/offload_bundle.h"

using namespace tp::amdgpu_sim;
using Catch::Matchers::ContainsSubstring;

namespace {
void put64(std::vector<uint8_t>& b, uint64_t v) {
  for (int i = 0; i < 8; ++i) b.push_back(uint8_t(v >> (8 * i)));
}
struct entry_spec {
  std::string id, payload;
};
// Header, then each payload at a 16-byte aligned offset (clang aligns to 4 KiB; the format only needs the offsets).
std::vector<uint8_t> make_bundle(const std::vector<entry_spec>& entries) {
  std::size_t header = 24 + 8;
  for (const auto& e : entries) header += 24 + e.id.size();
  std::vector<std::size_t> offsets;
  std::size_t at = (header + 15) / 16 * 16;
  for (const auto& e : entries) {
    offsets.push_back(at);
    at = (at + e.payload.size() + 15) / 16 * 16;
  }
  std::vector<uint8_t> b;
  const std::string magic = "__CLANG_OFFLOAD_BUNDLE__";
  b.insert(b.end(), magic.begin(), magic.end());
  put64(b, entries.size());
  for (std::size_t i = 0; i < entries.size(); ++i) {
    put64(b, offsets[i]);
    put64(b, entries[i].payload.size());
    put64(b, entries[i].id.size());
    b.insert(b.end(), entries[i].id.begin(), entries[i].id.end());
  }
  b.resize(at, 0);
  for (std::size_t i = 0; i < entries.size(); ++i)
    std::memcpy(b.data() + offsets[i], entries[i].payload.data(), entries[i].payload.size());
  return b;
}
std::string text(std::span<const uint8_t> s) { return std::string(s.begin(), s.end()); }

const std::vector<entry_spec> three = {{"host-x86_64-unknown-linux-gnu--", ""},
                                       {"hipv4-amdgcn-amd-amdhsa--gfx1100", "ELF for gfx1100"},
                                       {"hipv4-amdgcn-amd-amdhsa--gfx1201", "ELF for gfx1201, longer"}};
}  // namespace

TEST_CASE("offload bundle: entries and the code object of an arch", "[amdgpu_sim][bundle]") {
  const auto b = make_bundle(three);
  const auto entries = parse_offload_bundle(b);
  REQUIRE(entries.size() == 3);
  CHECK(entries[0].id == "host-x86_64-unknown-linux-gnu--");
  CHECK(entries[0].bytes.empty());
  CHECK(text(find_code_object(entries, "gfx1201")) == "ELF for gfx1201, longer");
  CHECK(text(find_code_object(entries, "gfx1100")) == "ELF for gfx1100");
  CHECK(find_code_object(entries, "gfx942").empty());
  CHECK(hip_entry_id("gfx1201") == "hipv4-amdgcn-amd-amdhsa--gfx1201");
}

TEST_CASE("offload bundle: the extent from the start pointer alone ends at the last entry", "[amdgpu_sim][bundle]") {
  const auto b = make_bundle(three);
  const auto ext = offload_bundle_extent(b.data());
  CHECK(ext.data() == b.data());
  // The last entry's bytes end before the padding: the extent is exactly offset + size of the furthest entry.
  const auto entries = parse_offload_bundle(b);
  CHECK(ext.size() == std::size_t(entries[2].bytes.data() + entries[2].bytes.size() - b.data()));
  CHECK(ext.size() <= b.size());  // the builder pads the last entry to 16 bytes
  CHECK(parse_offload_bundle(ext).size() == 3);
}

TEST_CASE("offload bundle: a corrupted bundle is reported, never walked", "[amdgpu_sim][bundle]") {
  const auto good = make_bundle(three);
  SECTION("bad magic") {
    auto b = good;
    b[2] = 'X';
    CHECK_THROWS_WITH(parse_offload_bundle(b), ContainsSubstring("bad magic"));
  }
  SECTION("compressed bundle") {
    std::vector<uint8_t> b = {'C', 'C', 'O', 'B', 1, 0, 0, 0};
    CHECK_THROWS_WITH(parse_offload_bundle(b), ContainsSubstring("compressed"));
  }
  SECTION("truncated header") {
    const std::vector<uint8_t> b(good.begin(), good.begin() + 40);
    CHECK_THROWS_WITH(parse_offload_bundle(b), ContainsSubstring("truncated"));
  }
  SECTION("implausible entry count") {
    auto b = good;
    b[24 + 7] = 0x10;  // the high byte of the entry count
    CHECK_THROWS_WITH(parse_offload_bundle(b), ContainsSubstring("implausible entry count"));
    CHECK_THROWS_AS(offload_bundle_extent(b.data()), sim_error);
  }
  SECTION("entry outside the bundle") {
    auto b = good;
    const std::size_t size_field = 24 + 8 + 8;  // entry 0's size
    b[size_field + 2] = 0x01;                   // 64 KiB more than the bundle holds
    CHECK_THROWS_WITH(parse_offload_bundle(b), ContainsSubstring("outside the bundle"));
  }
  SECTION("implausible ID length") {
    auto b = good;
    b[24 + 8 + 16 + 4] = 0x01;  // entry 0's ID length, byte 4
    CHECK_THROWS_WITH(parse_offload_bundle(b), ContainsSubstring("ID length"));
  }
  SECTION("entry overlapping the header") {
    auto b = good;
    std::memset(b.data() + 24 + 8, 0, 8);  // entry 0's offset -> 0 (it has size 0: give it one)
    b[24 + 8 + 8] = 4;
    CHECK_THROWS_WITH(parse_offload_bundle(b), ContainsSubstring("overlaps the header"));
  }
}
