// The launch record files (simt/amdgpu_sim/runtime/launch_record.h): what is written reads back the same, a damaged
// file is refused with what is wrong, and relocation rewrites exactly the recorded words.
#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

#include "simt/amdgpu_sim/runtime/launch_record.h"

using namespace tp::amdgpu_sim;
using Catch::Matchers::ContainsSubstring;

namespace {
uint64_t word(const std::vector<uint8_t>& seg, uint32_t offset) {
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v |= uint64_t(seg[offset + i]) << (8 * i);
  return v;
}
record::launch example() {
  record::launch l;
  l.arch = "gfx1201";
  l.kernel = "_Z1kPiS_i";
  l.code_object = std::string(64, 'a');
  l.grid_blocks = {3, 2, 1};
  l.block_threads = {64, 1, 1};
  l.dynamic_lds_bytes = 512;
  l.schedule = wave_schedule::random;
  l.schedule_seed = 42;
  l.kernarg.assign(24, 0x11);
  l.buffers = {std::vector<uint8_t>(40, 0xA5), std::vector<uint8_t>{1, 2, 3}};
  l.relocations = {{0, 0, 0}, {8, 1, 2}};
  for (const auto& r : l.relocations) {
    const uint64_t v = record::canonical_address(r.buffer) + r.delta;
    for (int i = 0; i < 8; ++i) l.kernarg[r.kernarg_offset + i] = uint8_t(v >> (8 * i));
  }
  return l;
}
}  // namespace

TEST_CASE("A launch record reads back field for field, and its id is a function of its bytes") {
  const auto l = example();
  const auto bytes = record::encode(l);
  const auto r = record::decode_launch(bytes);
  CHECK(r.arch == l.arch);
  CHECK(r.kernel == l.kernel);
  CHECK(r.code_object == l.code_object);
  CHECK((r.grid_blocks.x == 3 && r.grid_blocks.y == 2 && r.block_threads.x == 64));
  CHECK(r.dynamic_lds_bytes == 512);
  CHECK(r.schedule == wave_schedule::random);
  CHECK(r.schedule_seed == 42);
  CHECK(r.kernarg == l.kernarg);
  CHECK(r.buffers == l.buffers);
  REQUIRE(r.relocations.size() == 2);
  CHECK((r.relocations[1].kernarg_offset == 8 && r.relocations[1].buffer == 1 && r.relocations[1].delta == 2));
  CHECK(record::encode(r) == bytes);
  CHECK(record::launch_id(bytes) == record::launch_id(record::encode(example())));
  CHECK(record::launch_id(bytes).size() == 16);
}

TEST_CASE("Relocation points each recorded word at its buffer's address plus the recorded offset, nothing else") {
  const auto l = example();
  const std::vector<uint64_t> addresses{0x7000'0000'1000, 0x7000'0000'2000};
  const auto seg = record::relocated_kernarg(l, addresses);
  CHECK(word(seg, 0) == 0x7000'0000'1000);
  CHECK(word(seg, 8) == 0x7000'0000'2002);
  CHECK(word(seg, 16) == word(l.kernarg, 16));
}

TEST_CASE("A damaged launch record is refused, saying what is wrong") {
  auto bytes = record::encode(example());
  SECTION("truncated blobs") {
    bytes.pop_back();
    CHECK_THROWS_WITH(record::decode_launch(bytes), ContainsSubstring("buffer 1 needs 3 bytes"));
  }
  SECTION("trailing bytes") {
    bytes.push_back(0);
    CHECK_THROWS_WITH(record::decode_launch(bytes), ContainsSubstring("after the last buffer"));
  }
  SECTION("another file kind") {
    const std::string text = "tileprobe-result 1\n{}\n";
    CHECK_THROWS_WITH(record::decode_launch(std::vector<uint8_t>(text.begin(), text.end())),
                      ContainsSubstring("not a 'tileprobe-launch 1' file"));
  }
  SECTION("a relocation outside the kernarg segment") {
    auto l = example();
    l.relocations.push_back({20, 0, 0});
    CHECK_THROWS_WITH(record::decode_launch(record::encode(l)), ContainsSubstring("kernarg offset 20"));
  }
}

TEST_CASE("A result stores a buffer's bytes up to the limit and only its SHA-256 beyond") {
  const std::vector<uint8_t> small(record::stored_bytes_limit, 7), large(record::stored_bytes_limit + 1, 7);
  const auto s = record::summarize(small), g = record::summarize(large);
  CHECK(s.bytes.has_value());
  CHECK_FALSE(g.bytes.has_value());
  // SHA-256 of the empty message (FIPS 180-4 test vector).
  CHECK(record::sha256_hex({}) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  record::result r{"rocjitsu test", "0123456789abcdef", {s, g}};
  const auto back = record::decode_result(record::encode(r));
  CHECK(back.executor == "rocjitsu test");
  REQUIRE(back.buffers.size() == 2);
  CHECK(back.buffers[0].bytes == s.bytes);
  CHECK(back.buffers[1].sha256 == g.sha256);
  CHECK(back.buffers[1].size == large.size());
}
