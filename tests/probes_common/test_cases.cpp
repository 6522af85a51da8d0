// Case ids, --case filters, seeds and shards: the pieces that make every printed case rerunnable.
#include <catch2/catch_test_macros.hpp>

#include <set>

#include "probes/common/case.h"

using namespace tp::probe;

TEST_CASE("A case id is name(k=v,...) and its fields read back", "[ids]") {
  const std::string id = case_name("ck-phantom")("dtype", "int8")("K", 64)("src", "fixture:ocr-qkv0")("row", 3);
  CHECK(id == "ck-phantom(dtype=int8,K=64,src=fixture:ocr-qkv0,row=3)");
  CHECK(id_name(id) == "ck-phantom");
  const auto f = id_fields(id);
  REQUIRE(f.size() == 4);
  CHECK(f[1] == std::pair<std::string, std::string>{"K", "64"});
  CHECK(f[2].second == "fixture:ocr-qkv0");
  CHECK(case_name("x").str() == "x()");
  CHECK(id_fields("x()").empty());
  CHECK(id_fields("not-an-id").empty());
  CHECK(std::string(case_name("x")("scale", 0.5)("neg", -3)("flag", true)) == "x(scale=0.5,neg=-3,flag=1)");
}

TEST_CASE("case_name rejects keys and values that would make an id ambiguous", "[ids]") {
  CHECK_THROWS_AS(case_name("x")("k", "a,b"), std::logic_error);
  CHECK_THROWS_AS(case_name("x")("k", "f(1)"), std::logic_error);
  CHECK_THROWS_AS(case_name("x")("a=b", "1"), std::logic_error);
  CHECK_THROWS_AS(case_name("bad(name"), std::logic_error);
}

TEST_CASE("A --case filter matches an exact id, a glob or a substring", "[ids]") {
  const std::string id = "ck-phantom(dtype=int8,K=64,row=3)";
  CHECK(id_matches(id, id));
  CHECK(id_matches("dtype=int8", id));
  CHECK(id_matches("ck-phantom(*K=64*)", id));
  CHECK(id_matches("ck-phantom(dtype=int?,*", id));
  CHECK(id_matches("*", id));
  CHECK_FALSE(id_matches("dtype=fp8", id));
  CHECK_FALSE(id_matches("ck-phantom(*K=128*)", id));
  CHECK_FALSE(id_matches("?", id));  // a glob must match the whole id
  CHECK(id_matches("a*b*c", "aXXbYYbZc"));
  CHECK_FALSE(id_matches("a*b*c", "aXXbYYbZ"));
}

TEST_CASE("Seeds parse from decimal and 0x-hex, and a fuzz id carries its seed", "[seeds]") {
  CHECK(parse_seed("42") == 42u);
  CHECK(parse_seed("0x2a") == 42u);
  CHECK(parse_seed("0xffffffffffffffff") == ~std::uint64_t{0});
  CHECK_FALSE(parse_seed("0x1ffffffffffffffff").has_value());
  CHECK_FALSE(parse_seed("12a").has_value());
  CHECK_FALSE(parse_seed("").has_value());
  CHECK_FALSE(parse_seed("-1").has_value());
  const std::string id = case_name("fz")("n", 3).seed(0xdeadbeefcafef00dull);
  CHECK(id == "fz(n=3,seed=0xdeadbeefcafef00d)");
  CHECK(id_seed(id) == 0xdeadbeefcafef00dull);
  CHECK_FALSE(id_seed("fz(n=3)").has_value());
}

TEST_CASE("splitmix64 reproduces the reference sequence and fuzz_case_seed is its (i+1)-th output", "[seeds]") {
  // Reference outputs for state 1234567 (Vigna's splitmix64.c), computed independently.
  std::uint64_t state = 1234567;
  CHECK(splitmix64(state) == 6457827717110365317ull);
  CHECK(splitmix64(state) == 3203168211198807973ull);
  CHECK(splitmix64(state) == 9817491932198370423ull);
  CHECK(fuzz_case_seed(1234567, 0) == 6457827717110365317ull);
  CHECK(fuzz_case_seed(1234567, 2) == 9817491932198370423ull);
  std::set<std::uint64_t> seeds;
  for (std::uint64_t i = 0; i < 1000; ++i) seeds.insert(fuzz_case_seed(7, i));
  CHECK(seeds.size() == 1000);
}

TEST_CASE("rng is deterministic and its ranges are inclusive and complete", "[seeds]") {
  rng a(99), b(99);
  for (int i = 0; i < 100; ++i) REQUIRE(a.next() == b.next());
  rng r(3);
  std::set<std::int64_t> seen;
  for (int i = 0; i < 2000; ++i) {
    const auto v = r.range(-8, 7);
    REQUIRE(v >= -8);
    REQUIRE(v <= 7);
    seen.insert(v);
  }
  CHECK(seen.size() == 16);
  for (int i = 0; i < 1000; ++i) {
    const double u = r.unit();
    REQUIRE(u >= 0.0);
    REQUIRE(u < 1.0);
  }
  CHECK_THROWS_AS(r.below(0), std::logic_error);
  CHECK(r.range(5, 5) == 5);
}

TEST_CASE("Shards are disjoint and together cover every position", "[shards]") {
  for (unsigned n = 1; n <= 7; ++n)
    for (std::size_t size = 0; size <= 40; ++size) {
      std::vector<int> owners(size, 0);
      for (unsigned i = 1; i <= n; ++i) {
        const shard_spec s{i, n};
        for (std::size_t p = 0; p < size; ++p) owners[p] += s.contains(p) ? 1 : 0;
      }
      for (std::size_t p = 0; p < size; ++p) REQUIRE(owners[p] == 1);
    }
}

TEST_CASE("parse_shard accepts I/N with 1 <= I <= N and names what is wrong otherwise", "[shards]") {
  const auto s = parse_shard("2/5");
  CHECK(s.index == 2);
  CHECK(s.count == 5);
  CHECK(parse_shard("1/1").is_whole());
  for (const char* bad : {"0/3", "4/3", "1/0", "3", "a/b", "1/2/3", "/2", "1/", "-1/2", " 1/2"})
    CHECK_THROWS_AS(parse_shard(bad), usage_error);
}
