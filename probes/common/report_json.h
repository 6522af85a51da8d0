// The JSON report: a run_record's serialisation (schema probes/common/report.schema.json), written by the probes and
// read back by tileprobe-report to merge shards and re-evaluate verdicts. One declaration of each record's fields
// (report_json.cpp) drives both directions, each field with the schema version that made it required.
#pragma once

#include <nlohmann/json.hpp>

#include "probes/common/run.h"

namespace tp::probe {

// Version 3: each counterexample's input text (the Markdown reruns it from that text alone); run_seconds and
// setup_seconds always present. Version 2: tallies and listed cases (a large run lists only some). Version 1: every
// case listed, no tallies. from_json reads all three: a field a document's version does not require is read when
// present, else left at its default.
inline constexpr int report_schema_version = 3;
nlohmann::json to_json(const run_record& r, bool bench);
run_record from_json(const nlohmann::json& j);  // throws std::runtime_error naming the missing/bad field

}  // namespace tp::probe
