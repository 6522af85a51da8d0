// The tileprobe-input v1 envelope: header, probe line, records with line numbers, and every rejection as one
// "FILE:LINE: what" usage error.
#include <catch2/catch_test_macros.hpp>

#include <iostream>
#include <sstream>
#include <string>

#include "probes/common/input_file.h"
#include "probes/common/case.h"

using tp::probe::input_file;
using tp::probe::input_writer;
using tp::probe::usage_error;

namespace {
std::string error_of(std::string_view text, std::string_view probe = "toy") {
  try {
    input_file::parse(text, "t.tpin", probe);
  } catch (const usage_error& e) {
    return e.what();
  }
  return "";
}
}  // namespace

TEST_CASE("An input file gives the probe its records in order with their line numbers", "[input]") {
  auto f = input_file::parse("tileprobe-input v1\r\n# a comment\nprobe toy\n\n  dtype  int8 # why\nvalues 1 -2 0x10\n",
                             "t.tpin", "toy");
  CHECK(f.probe() == "toy");
  REQUIRE(f.records().size() == 2);
  const auto& d = f.next("dtype");
  CHECK(d.line() == 5);
  CHECK(d.choice(0, {"fp16", "int8"}) == 1);
  const auto& v = f.next("values");
  v.expect_size(3);
  CHECK(v.integer(0, -8, 8) == 1);
  CHECK(v.integer(1, -8, 8) == -2);
  CHECK(v.integer(2, 0, 255) == 16);
  CHECK(f.at_end());
  f.expect_end();
}

TEST_CASE("Every malformed envelope is one FILE:LINE: message", "[input]") {
  CHECK(error_of("") == "t.tpin:1: not a tileprobe input file: line 1 must be 'tileprobe-input v1'");
  CHECK(error_of("tileprobe-input v2\nprobe toy\n").find("t.tpin:1: format 'tileprobe-input v2' is not supported") == 0);
  CHECK(error_of("tileprobe-input v1\n") == "t.tpin:2: missing the 'probe NAME' record after the header");
  CHECK(error_of("tileprobe-input v1\ndtype int8\n").find("t.tpin:2: the first record must be 'probe NAME'") == 0);
  CHECK(error_of("tileprobe-input v1\nprobe other\n") == "t.tpin:2: this file is for probe 'other', not toy");
  CHECK(error_of("tileprobe-input v1\nprobe toy x\n") == "t.tpin:2: 'probe' takes 1 value, got 2");
  CHECK(error_of(std::string("tileprobe-input v1\nprobe toy\nk \0\n", 33)).find("t.tpin:3: character 0x00 at column 3") == 0);
  CHECK(error_of("tileprobe-input v1\nprobe toy\nK 1\n").find("t.tpin:3: 'K' is not a record key") == 0);
  CHECK(error_of("tileprobe-input v1\nprobe toy\nk \xc3\xa9\n").find("(only ASCII outside comments)") != std::string::npos);
  CHECK(error_of("tileprobe-input v1\nprobe toy\n# caf\xc3\xa9\n").empty());
  CHECK(error_of("tileprobe-input v1\nprobe toy\nk " + std::string(20000, '1') + "\n").find("t.tpin:3: line longer") == 0);
}

TEST_CASE("Typed values fail with the key, the value and the allowed range", "[input]") {
  auto f = input_file::parse("tileprobe-input v1\nprobe toy\nk 300 x 1e999 0x1g\n", "t.tpin", "toy");
  const auto& r = f.next("k");
  const auto msg = [&](auto fn) {
    try {
      fn();
    } catch (const usage_error& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  CHECK(msg([&] { r.integer(0, -128, 127); }) == "t.tpin:3: 'k' value 1 '300' is out of range -128..127");
  CHECK(msg([&] { r.integer(1, 0, 1); }) == "t.tpin:3: 'k' value 2 'x' is not an integer");
  CHECK(msg([&] { r.number(2); }) == "t.tpin:3: 'k' value 3 '1e999' is not a finite decimal number");
  CHECK(msg([&] { r.seed(3); }).find("'0x1g' is not a 64-bit") != std::string::npos);
  CHECK(msg([&] { r.word(4); }) == "t.tpin:3: 'k' is missing value 5");
  CHECK(msg([&] { r.choice(1, {"a", "b"}); }) == "t.tpin:3: 'k' value 'x' is not one of a, b");
  CHECK(msg([&] { f.next("more"); }) == "t.tpin:4: missing 'more' record (end of file)");
}

TEST_CASE("What input_writer writes, input_file reads back", "[input]") {
  input_writer w("toy");
  w.comment("two lines\nof comment").record("dtype", {"int8"}).record("a", std::vector<std::string>{"1", "-2"});
  auto f = input_file::parse(w.str(), "w.tpin", "toy");
  CHECK(f.next("dtype").word(0) == "int8");
  CHECK(f.next("a").integer(1, -8, 8) == -2);
  CHECK(f.at_end());
  CHECK_THROWS_AS(w.record("a", {"two words"}), std::logic_error);
}

TEST_CASE("The input file '-' is standard input, named stdin in messages and case labels", "[input]") {
  std::istringstream text("tileprobe-input v1\nprobe toy\nlist 1 2\n");
  auto* old = std::cin.rdbuf(text.rdbuf());
  auto f = input_file::read("-", "toy");
  std::istringstream bad("tileprobe-input v1\nprobe other\n");
  std::cin.rdbuf(bad.rdbuf());
  std::string error;
  try {
    input_file::read("-", "toy");
  } catch (const usage_error& e) {
    error = e.what();
  }
  std::cin.rdbuf(old);
  CHECK(f.name() == "stdin");
  CHECK(f.next("list").size() == 2);
  CHECK(error.rfind("stdin:2: this file is for probe 'other'", 0) == 0);
  CHECK(tp::probe::input_label("-") == "input:stdin");
}
