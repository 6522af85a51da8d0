// Reporters over a run_record: text (terminal), Markdown (PR), JSON (report.schema.json; tileprobe-report's input),
// JUnit XML (CI). Also the environment block and a small JSON-schema checker used by tests and the merger.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "probes/common/run.h"

namespace tp::probe {

enum class report_format { text, md, json, junit };
std::string_view to_string(report_format f);
std::string_view file_extension(report_format f);  // txt, md, json, xml
report_format parse_report_format(std::string_view s);  // throws usage_error

// probe-independent lines: compiler, build type, git commit (configure time), hostname; the app adds probe, backend,
// device and the probe's own env() lines.
std::vector<std::pair<std::string, std::string>> build_environment();

std::string render_text(const run_record& r, bool colour, bool bench);
std::string render_markdown(const run_record& r, bool bench);
std::string render_junit(const run_record& r);
// One probe's Markdown section body (table, verdict, counterexamples, coverage, evidence), as render_markdown uses it;
// the merged document (tools/report_render.cpp) lays out its own sections.
std::string markdown_section(const run_record& r, int heading_level);

// The JSON report. Version 2 (tallies, listed cases); the schema is probes/common/report.schema.json. from_json
// also reads version 1 (every case listed, no tallies).
inline constexpr int report_schema_version = 2;
nlohmann::json to_json(const run_record& r, bool bench);
run_record from_json(const nlohmann::json& j);  // throws std::runtime_error naming the missing/bad field

// Validates `doc` against a JSON schema using the subset report.schema.json uses: type (string or list), enum,
// const, anyOf, required, properties, additionalProperties (bool or schema), items, minimum, $ref "#/$defs/NAME".
// Returns one line per violation, with the JSON pointer of the offending value.
std::vector<std::string> schema_violations(const nlohmann::json& schema, const nlohmann::json& doc);

}  // namespace tp::probe
