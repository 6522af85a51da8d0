#include "tests/fuzz/fuzz_targets.h"

#include <cstdio>
#include <cstdlib>
#include <string_view>

#include "fixtures/loader/fixture.h"
#include "probes/ck_support/ck_input.h"

namespace tp::fuzz {

namespace {
const ck_probe::ck_probe_config& config() {
  static const ck_probe::ck_probe_config cfg = [] {
    ck_probe::ck_probe_config c;
    c.case_prefix = "ck-fuzz";
    c.dtypes = {ck_probe::api::dtype::int8, ck_probe::api::dtype::fp8_e4m3, ck_probe::api::dtype::fp16,
                ck_probe::api::dtype::pk_int4};
    return c;
  }();
  return cfg;
}

[[noreturn]] void finding(const std::string& what) {
  std::fprintf(stderr, "fuzz finding: %s\n", what.c_str());
  std::abort();
}

// The case's data, for the round trip: a tile's shape and values, or a vector's bytes and expectation.
std::string fingerprint(const probe::case_def& c) {
  std::string s = c.group + "|";
  if (const auto* p = std::any_cast<ck_probe::tile_payload>(&c.payload)) {
    const auto t = p->materialize();
    s += std::to_string(int(t.shape.type)) + "," + std::to_string(t.shape.k) + "," + std::to_string(int(t.shape.instr));
    for (auto v : t.a) s += "," + std::to_string(v);
    for (auto v : t.b) s += "," + std::to_string(v);
  } else if (const auto* cc = std::any_cast<ck_probe::compress_case>(&c.payload)) {
    for (auto b : cc->input) s += "," + std::to_string(b);
    for (auto b : cc->want_compressed) s += "," + std::to_string(b);
    for (auto w : cc->want_idx) s += "," + std::to_string(w);
  }
  return s;
}
}  // namespace

int input_file(const std::uint8_t* data, std::size_t size, std::string* message) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const std::string probe = "ck-phantom-fallback";
  probe::case_list cases;
  try {
    cases = ck_probe::read_input_text(text, "fuzz.tpin", probe, config());
  } catch (const probe::usage_error& e) {
    if (message) *message = e.what();
    return 2;
  }
  for (const auto& c : cases) {
    const auto written = ck_probe::input_text(c, probe);
    if (!written) finding("an accepted case cannot be written back: " + c.id);
    probe::case_list again;
    try {
      again = ck_probe::read_input_text(*written, "fuzz.tpin", probe, config());
    } catch (const probe::usage_error& e) {
      finding(std::string("the writer's file is refused: ") + e.what());
    }
    if (again.size() != 1 || fingerprint(again[0]) != fingerprint(c)) finding("the round trip changed " + c.id);
  }
  if (message) *message = cases.empty() ? "no case" : cases.front().id;
  return 0;
}

int manifest(const std::uint8_t* data, std::size_t size, std::string* message) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    const auto entries = fixtures::parse_manifest(text, "/fuzz-fixtures");
    if (message) *message = std::to_string(entries.size()) + " entries";
  } catch (const fixtures::fixture_error& e) {
    if (message) *message = e.what();
    return 2;
  }
  return 0;
}

}  // namespace tp::fuzz
