// The kernarg segment from the metadata: explicit arguments by offset and size, hidden ones as the code object v5
// metadata defines them (https://llvm.org/docs/AMDGPUUsage.html, "Code Object V5 Metadata").
#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

#include <cstring>

#include "simt/amdgpu_sim/runtime/kernarg.h"

using namespace tp::amdgpu_sim;
using Catch::Matchers::ContainsSubstring;

namespace {
template <class T>
T at(const std::vector<uint8_t>& seg, uint32_t offset) {
  T v{};
  std::memcpy(&v, seg.data() + offset, sizeof v);
  return v;
}
// The layout clang 19 gives `__global__ void k(int* p, int v, S s)` (S: 12 bytes): explicit arguments first, then
// the hidden block of code object v5 at offset 32 (8-byte aligned after the explicit ones).
kernel_info example() {
  kernel_info k;
  k.name = "_Z1kPiiS_";
  k.kernarg_size = 288;
  k.kernarg_align = 8;
  k.args = {{"p", "global_buffer", 0, 8},           {"v", "by_value", 8, 4},
            {"s", "by_value", 12, 12},              {"", "hidden_block_count_x", 32, 4},
            {"", "hidden_block_count_y", 36, 4},    {"", "hidden_block_count_z", 40, 4},
            {"", "hidden_group_size_x", 44, 2},     {"", "hidden_group_size_y", 46, 2},
            {"", "hidden_group_size_z", 48, 2},     {"", "hidden_remainder_x", 50, 2},
            {"", "hidden_remainder_y", 52, 2},      {"", "hidden_remainder_z", 54, 2},
            {"", "hidden_global_offset_x", 72, 8},  {"", "hidden_global_offset_y", 80, 8},
            {"", "hidden_global_offset_z", 88, 8},  {"", "hidden_grid_dims", 96, 2},
            {"", "hidden_printf_buffer", 104, 8},   {"", "hidden_hostcall_buffer", 112, 8},
            {"", "hidden_dynamic_lds_size", 152, 4}};
  return k;
}
}  // namespace

TEST_CASE("kernarg: explicit arguments by offset, hidden arguments from the launch", "[amdgpu_sim][kernarg]") {
  const kernel_info k = example();
  int* p = reinterpret_cast<int*>(0x1234567800ull);
  int v = -7;
  struct { uint32_t a, b, c; } s{1, 2, 3};
  void* args[] = {&p, &v, &s};
  const auto seg = build_kernarg(k, args, {{5, 3, 1}, {64, 2, 1}, 1024});
  REQUIRE(seg.size() == 288);
  CHECK(at<uint64_t>(seg, 0) == 0x1234567800ull);
  CHECK(at<int32_t>(seg, 8) == -7);
  CHECK(at<uint32_t>(seg, 12) == 1);
  CHECK(at<uint32_t>(seg, 20) == 3);
  CHECK(at<uint32_t>(seg, 32) == 5);  // block counts
  CHECK(at<uint32_t>(seg, 36) == 3);
  CHECK(at<uint32_t>(seg, 40) == 1);
  CHECK(at<uint16_t>(seg, 44) == 64);  // group sizes
  CHECK(at<uint16_t>(seg, 46) == 2);
  CHECK(at<uint16_t>(seg, 48) == 1);
  CHECK(at<uint16_t>(seg, 50) == 0);  // remainders: HIP grids are whole work-groups
  CHECK(at<uint64_t>(seg, 72) == 0);
  CHECK(at<uint16_t>(seg, 96) == 2);   // grid 5x3x1 with block 64x2x1: two dimensions
  CHECK(at<uint64_t>(seg, 104) == 0);  // no printf buffer: null, so a use faults
  CHECK(at<uint32_t>(seg, 152) == 1024);
  for (uint32_t i = 156; i < 288; ++i) CHECK(seg[i] == 0);
  CHECK(explicit_arg_count(k) == 3);
}

TEST_CASE("kernarg: hidden_grid_dims follows the launch's highest axis", "[amdgpu_sim][kernarg]") {
  const kernel_info k = example();
  int* p = nullptr;
  int v = 0;
  struct { uint32_t a, b, c; } s{};
  void* args[] = {&p, &v, &s};
  CHECK(at<uint16_t>(build_kernarg(k, args, {{7, 1, 1}, {32, 1, 1}, 0}), 96) == 1);
  CHECK(at<uint16_t>(build_kernarg(k, args, {{1, 1, 2}, {32, 1, 1}, 0}), 96) == 3);
  CHECK(at<uint16_t>(build_kernarg(k, args, {{1, 1, 1}, {8, 1, 4}, 0}), 96) == 3);
}

TEST_CASE("kernarg: inconsistent metadata is reported", "[amdgpu_sim][kernarg]") {
  int* p = nullptr;
  int v = 0;
  struct { uint32_t a, b, c; } s{};
  void* args[] = {&p, &v, &s};
  SECTION("a hidden argument of the wrong size") {
    kernel_info k = example();
    k.args[3].size = 8;
    CHECK_THROWS_WITH(build_kernarg(k, args, {}), ContainsSubstring("hidden_block_count_x has size 8"));
  }
  SECTION("an argument beyond the segment") {
    kernel_info k = example();
    k.kernarg_size = 100;
    CHECK_THROWS_WITH(build_kernarg(k, args, {}), ContainsSubstring("beyond .kernarg_segment_size"));
  }
  SECTION("a missing argument value") {
    const kernel_info k = example();
    void* short_args[] = {&p, nullptr, &s};
    CHECK_THROWS_WITH(build_kernarg(k, short_args, {}), ContainsSubstring("no value for argument 1 (v)"));
  }
}

TEST_CASE("dispatch packet: sizes in work-items, LDS static + dynamic, the kernarg address", "[amdgpu_sim][kernarg]") {
  kernel_info k = example();
  k.group_segment_size = 4096;
  k.private_segment_size = 48;
  const auto p = build_dispatch_packet(k, {{5, 3, 1}, {64, 2, 1}, 1024}, 0xabcdef000ull);
  std::vector<uint8_t> v(p.begin(), p.end());
  CHECK(at<uint16_t>(v, 0) == 0);          // header: no queue
  CHECK(at<uint16_t>(v, 2) == 2);          // setup: two dimensions
  CHECK(at<uint16_t>(v, 4) == 64);
  CHECK(at<uint16_t>(v, 6) == 2);
  CHECK(at<uint16_t>(v, 8) == 1);
  CHECK(at<uint32_t>(v, 12) == 320);       // grid_size_x = 5 blocks x 64 work-items
  CHECK(at<uint32_t>(v, 16) == 6);
  CHECK(at<uint32_t>(v, 20) == 1);
  CHECK(at<uint32_t>(v, 24) == 48);
  CHECK(at<uint32_t>(v, 28) == 4096 + 1024);
  CHECK(at<uint64_t>(v, 32) == 0);         // kernel_object
  CHECK(at<uint64_t>(v, 40) == 0xabcdef000ull);
  CHECK(at<uint64_t>(v, 56) == 0);         // completion_signal
  CHECK_THROWS_WITH(build_dispatch_packet(k, {{0x10000000u, 1, 1}, {1024, 1, 1}, 0}, 0),
                    ContainsSubstring("exceeds the dispatch packet's 32 bits"));
}
