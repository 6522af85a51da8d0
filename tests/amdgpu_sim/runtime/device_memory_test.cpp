// The simulated global memory: bounds against the allocations, and the written flags behind "loads of bytes no one
// wrote".
#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

#include <cstring>
#include <vector>

#include "simt/amdgpu_sim/runtime/device_memory.h"

using namespace tp::amdgpu_sim;
using Catch::Matchers::ContainsSubstring;

TEST_CASE("device memory: accesses inside an allocation reach its bytes", "[amdgpu_sim][memory]") {
  device_memory m;
  const uint64_t a = m.allocate(64);
  REQUIRE(a != 0);
  CHECK(a % 256 == 0);
  const uint32_t v = 0x12345678;
  std::memcpy(m.store(a + 60, 4), &v, 4);
  uint32_t r = 0;
  std::memcpy(&r, m.load(a + 60, 4), 4);
  CHECK(r == v);
  CHECK(m.contains(a, 64));
  CHECK_FALSE(m.contains(a, 65));
}

TEST_CASE("device memory: out-of-bounds accesses stop with the address, size and nearest allocation",
          "[amdgpu_sim][memory]") {
  device_memory m;
  const uint64_t a = m.allocate(64);
  char hex[32];
  std::snprintf(hex, sizeof hex, "0x%llx", static_cast<unsigned long long>(a + 62));
  // Straddles the end: 2 bytes inside, 2 outside.
  CHECK_THROWS_WITH(m.load(a + 62, 4), ContainsSubstring("global load of 4 bytes at " + std::string(hex)) &&
                                           ContainsSubstring("nearest allocation") &&
                                           ContainsSubstring("offset 62"));
  CHECK_THROWS_WITH(m.store(a - 4, 4), ContainsSubstring("global store") && ContainsSubstring("offset -4"));
  CHECK_THROWS_AS(m.load(0, 4), sim_error);
  SECTION("after free, the same address is named as freed") {
    REQUIRE(m.free(a));
    CHECK_THROWS_WITH(m.load(a, 4), ContainsSubstring("freed earlier"));
    CHECK_FALSE(m.free(a));  // not twice
  }
  SECTION("host copies are checked too") {
    uint8_t buf[8] = {};
    CHECK_THROWS_WITH(m.host_write(a + 60, buf, 8), ContainsSubstring("host write"));
    CHECK_THROWS_WITH(m.host_read(a + 60, buf, 8), ContainsSubstring("host read"));
  }
}

TEST_CASE("device memory: loads of never-written bytes are counted, with the first addresses",
          "[amdgpu_sim][memory]") {
  device_memory m;
  const uint64_t a = m.allocate(32);
  (void)m.store(a, 8);                // bytes 0..7 written by a kernel
  (void)m.load(a, 8);                 // fine
  CHECK(m.take_unwritten_loads().loads == 0);
  (void)m.load(a + 6, 4);             // bytes 8, 9 never written
  (void)m.load(a + 16, 4);
  auto u = m.take_unwritten_loads();
  CHECK(u.loads == 2);
  REQUIRE(u.first.size() == 2);
  CHECK(u.first[0] == a + 8);         // the first never-written byte of the access
  CHECK(u.first[1] == a + 16);
  CHECK(m.take_unwritten_loads().loads == 0);  // taken
  CHECK(m.unwritten_loads_of(a + 5).loads == 2);  // per allocation, until its next host write

  const uint8_t zeros[32] = {};
  m.host_write(a, zeros, 32);         // everything written, the allocation's count starts afresh
  CHECK(m.unwritten_loads_of(a).loads == 0);
  (void)m.load(a + 28, 4);
  CHECK(m.take_unwritten_loads().loads == 0);

  SECTION("memset marks written") {
    const uint64_t b = m.allocate(16);
    m.fill(b, 0, 16);
    (void)m.load(b, 16);
    CHECK(m.take_unwritten_loads().loads == 0);
  }
  SECTION("a 32-bit memset (hipMemsetD32) writes the word pattern, marks written and is bounds-checked") {
    const uint64_t b = m.allocate(16);
    m.fill32(b + 4, 0x7fc0a5a5u, 2);
    uint32_t words[4];
    std::memcpy(words, m.load(b + 4, 8), 8);
    CHECK(words[0] == 0x7fc0a5a5u);
    CHECK(words[1] == 0x7fc0a5a5u);
    CHECK(m.take_unwritten_loads().loads == 0);
    (void)m.load(b + 12, 4);
    CHECK(m.take_unwritten_loads().loads == 1);
    CHECK_THROWS_WITH(m.fill32(b + 8, 0, 3), ContainsSubstring("memset"));
  }
  SECTION("a device-to-device copy carries the written flags") {
    const uint64_t b = m.allocate(16);
    const uint64_t c = m.allocate(16);
    (void)m.store(b, 4);
    m.copy(c, b, 16);
    (void)m.load(c, 4);
    CHECK(m.take_unwritten_loads().loads == 0);
    (void)m.load(c + 4, 4);
    CHECK(m.take_unwritten_loads().loads == 1);
  }
  SECTION("only the first few addresses are kept") {
    const uint64_t b = m.allocate(64);
    for (int i = 0; i < 10; ++i) (void)m.load(b + 4 * i, 4);
    u = m.take_unwritten_loads();
    CHECK(u.loads == 10);
    CHECK(u.first.size() == unwritten_sites_kept);
  }
}

TEST_CASE("device memory: a fresh allocation holds 0xA5 bytes; where the host never wrote, written means a kernel's",
          "[amdgpu_sim][memory]") {
  device_memory m;
  const uint64_t a = m.allocate(16);
  uint8_t bytes[16];
  m.host_read(a, bytes, 16);
  for (uint8_t b : bytes) CHECK(b == 0xA5);  // the same values on every run for a kernel that loads them
  (void)m.store(a + 4, 4);                    // a kernel stores bytes 4..7
  uint8_t flags[16];
  REQUIRE(m.kernel_written(a, 16, flags));
  for (int i = 0; i < 16; ++i) CHECK(flags[i] == (i >= 4 && i < 8 ? 1 : 0));
  uint8_t two[2];
  REQUIRE(m.kernel_written(a + 6, 2, two));  // a sub-range
  CHECK((two[0] == 1 && two[1] == 1));
  CHECK_FALSE(m.kernel_written(a + 12, 8, flags));  // past the allocation
  SECTION("after a host write or memset the bits no longer tell kernel from host: refused") {
    m.fill(a, 0, 2);
    CHECK_FALSE(m.kernel_written(a, 16, flags));
  }
  SECTION("a device-to-device copy into it is the host's doing too") {
    const uint64_t b = m.allocate(16);
    m.copy(a, b, 4);
    CHECK_FALSE(m.kernel_written(a, 16, flags));
  }
}

// plain_range is the machine's whole-wave shortcut: it may answer only where per-access load/store would have nothing
// to count or mark, so unwritten-byte counting and bounds errors stay with the per-lane path.
TEST_CASE("device memory: plain_range answers only inside one fully written allocation", "[amdgpu_sim][memory]") {
  device_memory m;
  const uint64_t a = m.allocate(64);
  const uint64_t b = m.allocate(64);
  REQUIRE(a != 0);
  REQUIRE(b != 0);
  // Nothing written yet: no shortcut (a load must be counted, a store must mark).
  CHECK(m.plain_range(a, a + 4) == nullptr);
  m.fill(a, 0, 60);
  CHECK(m.plain_range(a, a + 4) == nullptr);  // 4 bytes of the allocation still unwritten
  std::memset(m.store(a + 60, 4), 0, 4);      // a kernel store writes the last 4
  CHECK(m.plain_range(a, a + 64) == reinterpret_cast<uint8_t*>(a));
  CHECK(m.plain_range(a + 8, a + 12) == reinterpret_cast<uint8_t*>(a + 8));
  CHECK(m.plain_range(a, a + 65) == nullptr);   // one byte past the end
  CHECK(m.plain_range(a + 8, a + 8) == nullptr);  // empty
  CHECK(m.plain_range(a - 1, a + 4) == nullptr);  // starts below the allocation
  m.fill(b, 0, 64);
  CHECK(m.plain_range(a, b + 4) == nullptr);  // spans two allocations
  CHECK(m.take_unwritten_loads().loads == 0);  // asking counts nothing
  REQUIRE(m.free(a));
  CHECK(m.plain_range(a, a + 4) == nullptr);  // freed
}

TEST_CASE("device memory: declared address words are kept with their allocation, as offsets from its base",
          "[amdgpu_sim][memory]") {
  device_memory m;
  const uint64_t a = m.allocate(64);
  const uint64_t words[] = {8, 24, 8};
  CHECK(m.declare_address_words(a + 16, words));
  const auto kept = m.address_words(a);
  CHECK(std::vector<uint64_t>(kept.begin(), kept.end()) == std::vector<uint64_t>{24, 40});
  SECTION("an unaligned word or one reaching past the allocation is refused, nothing kept") {
    const uint64_t unaligned[] = {4}, outside[] = {48};
    CHECK_FALSE(m.declare_address_words(a + 16, unaligned));
    CHECK_FALSE(m.declare_address_words(a + 16, outside));
    CHECK_FALSE(m.declare_address_words(a + 64, words));
    CHECK(m.address_words(a).size() == 2);
  }
  SECTION("a freed allocation takes its words with it") {
    REQUIRE(m.free(a));
    CHECK(m.address_words(a).empty());
  }
}
