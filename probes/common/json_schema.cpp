#include "probes/common/json_schema.h"

#include <stdexcept>
#include <string_view>

namespace tp::probe {

using nlohmann::json;

namespace {
struct schema_checker {
  const json& root;
  std::vector<std::string> errors;

  static bool type_is(const json& v, std::string_view t) {
    if (t == "object") return v.is_object();
    if (t == "array") return v.is_array();
    if (t == "string") return v.is_string();
    if (t == "boolean") return v.is_boolean();
    if (t == "null") return v.is_null();
    if (t == "integer") return v.is_number_integer();
    if (t == "number") return v.is_number();
    return false;
  }

  const json& resolve(const json& s, const std::string& ptr) {
    if (!s.contains("$ref")) return s;
    const std::string ref = s.at("$ref").get<std::string>();
    const std::string prefix = "#/$defs/";
    if (ref.rfind(prefix, 0) != 0 || !root.contains("$defs") || !root.at("$defs").contains(ref.substr(prefix.size())))
      throw std::runtime_error("schema: unresolvable $ref " + ref + " at " + ptr);
    return root.at("$defs").at(ref.substr(prefix.size()));
  }

  void check(const json& schema_in, const json& v, const std::string& ptr) {
    const json& s = resolve(schema_in, ptr);
    if (s.contains("type")) {
      const json& t = s.at("type");
      bool ok = false;
      if (t.is_string()) ok = type_is(v, t.get<std::string>());
      else
        for (const auto& tt : t) ok |= type_is(v, tt.get<std::string>());
      if (!ok) {
        errors.push_back(ptr + ": expected type " + t.dump() + ", got " + v.type_name());
        return;
      }
    }
    if (s.contains("anyOf")) {
      bool any = false;
      for (const auto& alt : s.at("anyOf")) {
        schema_checker sub{root, {}};
        sub.check(alt, v, ptr);
        any |= sub.errors.empty();
      }
      if (!any) errors.push_back(ptr + ": matches none of the anyOf alternatives");
    }
    if (s.contains("enum")) {
      bool found = false;
      for (const auto& e : s.at("enum")) found |= e == v;
      if (!found) errors.push_back(ptr + ": value " + v.dump() + " not in " + s.at("enum").dump());
    }
    if (s.contains("const") && s.at("const") != v)
      errors.push_back(ptr + ": expected " + s.at("const").dump() + ", got " + v.dump());
    if (s.contains("minimum") && v.is_number() && v.get<double>() < s.at("minimum").get<double>())
      errors.push_back(ptr + ": " + v.dump() + " is below the minimum " + s.at("minimum").dump());
    if (v.is_object()) {
      if (s.contains("required"))
        for (const auto& k : s.at("required"))
          if (!v.contains(k.get<std::string>())) errors.push_back(ptr + ": missing required field " + k.dump());
      const json empty = json::object();
      const json& props = s.contains("properties") ? s.at("properties") : empty;
      for (const auto& [k, sub] : v.items()) {
        const std::string child = ptr + "/" + k;
        if (props.contains(k)) {
          check(props.at(k), sub, child);
        } else if (s.contains("additionalProperties")) {
          const json& ap = s.at("additionalProperties");
          if (ap.is_boolean()) {
            if (!ap.get<bool>()) errors.push_back(child + ": field not allowed by the schema");
          } else {
            check(ap, sub, child);
          }
        }
      }
    }
    if (v.is_array() && s.contains("items"))
      for (std::size_t i = 0; i < v.size(); ++i) check(s.at("items"), v[i], ptr + "/" + std::to_string(i));
  }
};
}  // namespace

std::vector<std::string> schema_violations(const json& schema, const json& doc) {
  schema_checker c{schema, {}};
  c.check(schema, doc, "");
  return c.errors;
}

}  // namespace tp::probe
