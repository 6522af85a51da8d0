// A small JSON-schema checker for the reports' schemas (probes/common/report.schema.json,
// tools/tileprobe-report.schema.json), used by tests and the merger.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace tp::probe {

// Validates `doc` against a JSON schema using the subset the reports' schemas use: type (string or list), enum, const,
// anyOf, required, properties, additionalProperties (bool or schema), items, minimum, $ref "#/$defs/NAME".
// Returns one line per violation, with the JSON pointer of the offending value.
std::vector<std::string> schema_violations(const nlohmann::json& schema, const nlohmann::json& doc);

}  // namespace tp::probe
