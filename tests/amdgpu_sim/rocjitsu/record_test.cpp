// The launch record files (simt/amdgpu_sim/runtime/launch_record.h): what is written reads back the same, a damaged
// file is refused with what is wrong, and relocation (of the kernarg segment and of the addresses buffers hold)
// rewrites exactly the recorded words.
#include <catch2/catch_test_macros.hpp>
#include <catch2/generators/catch_generators.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

#include "simt/amdgpu_sim/runtime/launch_record.h"

using namespace tp::amdgpu_sim;
using Catch::Matchers::ContainsSubstring;

namespace {
uint64_t word(const std::vector<uint8_t>& seg, uint64_t offset) { return record::word_at(seg, offset); }
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
  for (const auto& r : l.relocations)
    record::set_word(l.kernarg, r.kernarg_offset, record::canonical_address(r.buffer) + r.delta);
  return l;
}
// example() with a descriptor buffer (2): two addresses, into buffer 0 (offset 16) and buffer 1 (offset 1).
record::launch example_with_descriptors() {
  record::launch l = example();
  l.buffers.push_back(std::vector<uint8_t>(32, 0x5A));
  l.buffer_relocations = {{2, 8, 0, 16}, {2, 24, 1, 1}};
  for (const auto& r : l.buffer_relocations)
    record::set_word(l.buffers[r.holder], r.offset, record::canonical_address(r.buffer) + r.delta);
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

TEST_CASE("Addresses inside buffers read back, and a launch without any keeps the encoding it had before") {
  const auto l = example_with_descriptors();
  const auto bytes = record::encode(l);
  const auto r = record::decode_launch(bytes);
  REQUIRE(r.buffer_relocations.size() == 2);
  CHECK((r.buffer_relocations[1].holder == 2 && r.buffer_relocations[1].offset == 24 &&
         r.buffer_relocations[1].buffer == 1 && r.buffer_relocations[1].delta == 1));
  CHECK(record::encode(r) == bytes);
  const auto plain = record::encode(example());
  CHECK(std::string(plain.begin(), plain.end()).find("buffer_relocations") == std::string::npos);
}

TEST_CASE("A buffer's addresses are relocated for an executor and made canonical again in its final bytes") {
  const auto l = example_with_descriptors();
  const std::vector<uint64_t> addresses{0x7000'0000'1000, 0x7000'0000'2000, 0x7000'0000'3000};
  auto b = record::relocated_buffer(l, 2, addresses);
  CHECK(word(b, 8) == 0x7000'0000'1010);
  CHECK(word(b, 24) == 0x7000'0000'2001);
  CHECK(word(b, 0) == word(l.buffers[2], 0));
  CHECK(std::vector<uint8_t>(b.begin() + 16, b.begin() + 24) == std::vector<uint8_t>(8, 0x5A));
  CHECK(record::relocated_buffer(l, 0, addresses) == l.buffers[0]);
  SECTION("unchanged by the kernel: the recorded bytes again") {
    record::canonicalize_buffer(l, 2, addresses, b);
    CHECK(b == l.buffers[2]);
  }
  SECTION("a word the kernel overwrote stays as the kernel left it") {
    record::set_word(b, 24, 0x1234);
    record::canonicalize_buffer(l, 2, addresses, b);
    CHECK(word(b, 8) == record::canonical_address(0) + 16);
    CHECK(word(b, 24) == 0x1234);
  }
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
  SECTION("an address word outside its buffer, unaligned, or naming no buffer") {
    auto l = example_with_descriptors();
    const auto which = GENERATE(0, 1, 2);
    const record::buffer_relocation bad[] = {{2, 32, 0, 0}, {2, 4, 0, 0}, {2, 0, 3, 0}};
    l.buffer_relocations.push_back(bad[which]);
    CHECK_THROWS_WITH(record::decode_launch(record::encode(l)), ContainsSubstring("buffer relocation at offset"));
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
