// What the fuzzers exercise (tests/fuzz/README.md): the --input reader of the ck probes (the tileprobe-input v1
// envelope of probes/common and the ck body of probes/ck_support) and the fixture-manifest loader. Each returns 0
// when the bytes were accepted and 2 when they were rejected the documented way (usage_error / fixture_error, the
// probes' exit 2); anything else (another exception, a crash, a sanitizer report, a broken round trip) is a finding.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace tp::fuzz {

// Parses the bytes as a ck input file; an accepted tile or vector is written back with the probes' input writer
// and must read back to the same case (abort() otherwise).
int input_file(const std::uint8_t* data, std::size_t size, std::string* message = nullptr);
// Parses the bytes as fixtures/MANIFEST.json (no fixture file is read).
int manifest(const std::uint8_t* data, std::size_t size, std::string* message = nullptr);
// Parses the bytes as a flash-attention probe's input file (probes/fa_support/fa_input.h, the race probe's body with
// its schedule); an accepted case is written back and must read back to the same geometry, data and schedule.
// In fuzz_fa_target.cpp (it needs the fa support sources, not the ck ones).
int fa_input_file(const std::uint8_t* data, std::size_t size, std::string* message = nullptr);

}  // namespace tp::fuzz
