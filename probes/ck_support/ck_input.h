// --input for the three ck_sparse probes: the body of their tileprobe-input v1 files (a whole tile, or one
// compress-level lane vector), the input files of their counterexamples, and CK's fixed compress_a_impl output
// convention that a compress-level input is judged against. Format and example: probes/ck-phantom-fallback/README.md.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "probes/ck_support/ck_driver.h"

namespace tp::ck_probe {

// The case(s) of one input file for probe `probe_name` (usage_error "FILE:LINE: what" on anything malformed).
probe::case_list read_input(const std::string& path, const std::string& probe_name, const ck_probe_config& cfg);
// The same on text in memory, `name` standing for the file (tests/fuzz).
probe::case_list read_input_text(std::string_view text, const std::string& name, const std::string& probe_name,
                                 const ck_probe_config& cfg);
// A tile or compress-level case as an input file; nullopt for any other payload.
std::optional<std::string> input_text(const probe::case_def& c, const std::string& probe_name);

// What CK's compress_a_impl writes for a lane vector of logical codes (int8 / int4 values, fp8 / fp16 codes) with
// patches 0001..0003 applied, as the probes' compress tables spell it out: per 4-group the survivors in order, an
// unused slot zero; idx fields = the survivors' positions, an unused field keeps the default position 2; pk_int4
// (0003) writes survivor s to field 1-s with position p^1, and packs the two survivors high nibble first.
// Throws usage_error naming the group when a group has more than two survivors.
compress_case expected_compress(api::dtype type, const std::vector<std::int32_t>& codes);

}  // namespace tp::ck_probe
