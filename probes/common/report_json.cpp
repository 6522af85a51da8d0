// The JSON report in both directions from one declaration per record: `fields_of<T>::list` names each JSON key once,
// with the member it holds (or, for a value made from the whole record, how to make and read it) and the schema
// version from which a document must have it. Writing walks the list; reading walks the same list in its order, which
// is why a record's list names what later fields refer to first (variants before the cases that name them).
#include "probes/common/report_json.h"

#include <cmath>
#include <optional>
#include <set>
#include <stdexcept>
#include <tuple>
#include <type_traits>

#include <fmt/format.h>

#include "probes/common/report.h"

namespace tp::probe {

using nlohmann::json;

namespace {

// What both directions share besides the value at hand: the version (the document's when reading, the current one
// when writing), the record (fields that name variants and cases: failed_on, a tally's variants, failures), and where
// the reader is, for messages ("report of probe-x: missing field 'id'").
struct context {
  int version = report_schema_version;
  bool bench = false;                   // writing: the run measured speed (variants get cases_per_second)
  const run_record* written = nullptr;  // writing
  run_record* read = nullptr;           // reading: what has been read so far
  std::map<std::string, std::size_t> variant_index{}, case_index{};
  std::string where = "report";
};

[[noreturn]] void bad(const context& c, const std::string& what) {
  throw std::runtime_error(c.where + ": " + what);
}

// Non-finite numbers as the strings the text and Markdown reports print ("inf", "-inf", "nan"): JSON has no literal
// for them, and null would say "missing" where the value is an infinite error.
json number_json(double v) { return std::isfinite(v) ? json(v) : json(format_number(v)); }
double number_from(const json& j, const context& c) {
  if (j.is_null()) return std::nan("");  // version 2 reports before non-finite values were written as strings
  if (j.is_string()) {
    const auto s = j.get<std::string>();
    if (s == "inf") return INFINITY;
    if (s == "-inf") return -INFINITY;
    if (s == "nan") return std::nan("");
    bad(c, fmt::format("'{}' is not a number (nor inf, -inf, nan)", s));
  }
  if (!j.is_number()) bad(c, "a number has the wrong type");
  return j.get<double>();
}

template <class T>
inline constexpr bool is_optional = false;
template <class T>
inline constexpr bool is_optional<std::optional<T>> = true;
template <class T>
inline constexpr bool is_vector = false;
template <class T>
inline constexpr bool is_vector<std::vector<T>> = true;
template <class T>
inline constexpr bool is_set = false;
template <class T>
inline constexpr bool is_set<std::set<T>> = true;
template <class T>
inline constexpr bool is_string_map = false;
template <class T>
inline constexpr bool is_string_map<std::map<std::string, T>> = true;

template <class S>
struct fields_of;  // specialised below: `list`, the record's fields
template <class T>
concept record = requires { fields_of<T>::list; };

// After a record of type T is read (a check, or an index of names for the fields that refer to it); nothing by default.
template <class T>
void after_read(T&, context&) {}

template <class T>
json value_json(const T& v, const context& c);
template <class T>
void read_value(const json& j, T& into, const char* key, context& c);

// How a member's value is written and read: `plain` by its type (value_json / read_value); the others are values whose
// JSON is not their C++ type's.
struct plain {
  template <class T>
  static json write(const T& v, const context& c) { return value_json(v, c); }
  template <class T>
  static void read(const json& j, T& into, const char* key, context& c) { read_value(j, into, key, c); }
};
// A 64-bit seed as a 0x-hex string (every JSON reader keeps 64-bit values that way); null for an optional one unset.
struct hex_seed {
  static json write(std::uint64_t s, const context&) { return fmt::format("0x{:016x}", s); }
  static json write(const std::optional<std::uint64_t>& s, const context& c) { return s ? write(*s, c) : json(nullptr); }
  static void read(const json& j, std::uint64_t& into, const char* key, context& c) {
    std::string s;
    read_value(j, s, key, c);
    const auto seed = parse_seed(s);
    if (!seed) bad(c, fmt::format("field '{}' is not a seed: '{}'", key, s));
    into = *seed;
  }
  static void read(const json& j, std::optional<std::uint64_t>& into, const char* key, context& c) {
    if (j.is_null()) into.reset();
    else read(j, into.emplace(), key, c);
  }
};
// Metrics as {name: {"value": number, "merge": "sum"|"max"}}.
struct metrics_codec {
  static json write(const std::map<std::string, metric>& m, const context&) {
    json j = json::object();
    for (const auto& [k, v] : m)
      j[k] = {{"value", number_json(v.value)}, {"merge", v.merge == metric_merge::sum ? "sum" : "max"}};
    return j;
  }
  static void read(const json& j, std::map<std::string, metric>& into, const char* key, context& c) {
    if (!j.is_object()) bad(c, fmt::format("field '{}' has the wrong type", key));
    for (const auto& [k, v] : j.items()) {
      if (!v.is_object() || !v.contains("value")) bad(c, fmt::format("missing field 'value'"));
      std::string merge;
      read_value(v.contains("merge") ? v.at("merge") : json(nullptr), merge, "merge", c);
      into[k] = metric{number_from(v.at("value"), c), merge == "sum" ? metric_merge::sum : metric_merge::max};
    }
  }
};
// Key/value lines as [{"key": k, "value": v}, ...] (the environment block keeps its order).
struct key_values {
  using lines = std::vector<std::pair<std::string, std::string>>;
  static json write(const lines& kv, const context&) {
    json j = json::array();
    for (const auto& [k, v] : kv) j.push_back({{"key", k}, {"value", v}});
    return j;
  }
  static void read(const json& j, lines& into, const char* key, context& c);
};
// A variant or a case by its name (a case's is its id), where the record holds its index.
template <class Kind>
struct by_name {
  static json write(std::size_t i, const context& c) { return Kind::name_at(*c.written, i); }
  static void read(const json& j, std::size_t& into, const char* key, context& c) {
    std::string name;
    read_value(j, name, key, c);
    const auto& index = c.*Kind::index;
    const auto it = index.find(name);
    if (it == index.end()) bad(c, fmt::format("field '{}' names an unknown {} '{}'", key, Kind::what, name));
    into = it->second;
  }
};
struct variant_kind {
  static constexpr const char* what = "variant";
  static constexpr auto index = &context::variant_index;
  static const std::string& name_at(const run_record& r, std::size_t v) { return r.variants[v].name; }
};
struct case_kind {
  static constexpr const char* what = "case";
  static constexpr auto index = &context::case_index;
  static const std::string& name_at(const run_record& r, std::size_t i) { return r.cases[i].id; }
};
using variant_name = by_name<variant_kind>;
using case_id = by_name<case_kind>;
// A listed case's results as the names of the variants it failed on.
struct failed_on {
  static json write(const std::vector<std::uint8_t>& passed, const context& c) {
    json names = json::array();
    for (std::size_t v = 0; v < c.written->variants.size(); ++v)
      if (!passed[v]) names.push_back(c.written->variants[v].name);
    return names;
  }
  static void read(const json& j, std::vector<std::uint8_t>& passed, const char* key, context& c) {
    std::vector<std::string> names;
    read_value(j, names, key, c);
    passed.assign(c.read->variants.size(), 1);
    for (const auto& name : names) {
      std::size_t v = 0;
      variant_name::read(json(name), v, key, c);
      passed[v] = 0;
    }
  }
};
// A tally's per-variant counts, each with its variant's name beside them.
struct tally_variants {
  static json write(const std::vector<case_tally::per_variant>& per, const context& c);
  static void read(const json& j, std::vector<case_tally::per_variant>& into, const char* key, context& c);
};

// One JSON key of record S: the member it holds and its codec. Required in documents of version `since` and later;
// an older document may lack it (the member keeps its default). `optional`: may be absent in any version, and is
// left out when empty.
template <class S, class M, class Codec = plain>
struct field {
  const char* key;
  M S::*member;
  int since = 1;
  Codec codec{};
  bool optional = false;
  std::optional<json> emit(const S& s, const context& c) const {
    if constexpr (requires { (s.*member).empty(); })
      if (optional && (s.*member).empty()) return std::nullopt;
    return Codec::write(s.*member, c);
  }
  bool required(const context& c) const { return !optional && c.version >= since; }
  void read(const json& j, S& s, context& c) const { Codec::read(j, s.*member, key, c); }
};
// A key whose value is made from the whole record (emit returns nullopt to leave it out); read is the inverse, or
// nothing for a value that is only written (never required when reading).
template <class S>
struct computed {
  const char* key;
  std::optional<json> (*emit_fn)(const S&, const context&);
  void (*read_fn)(const json&, S&, context&) = nullptr;
  int since = 1;
  std::optional<json> emit(const S& s, const context& c) const { return emit_fn(s, c); }
  bool required(const context& c) const { return read_fn && c.version >= since; }
  void read(const json& j, S& s, context& c) const {
    if (read_fn) read_fn(j, s, c);
  }
};

template <class S>
json fields_json(const S& s, const context& c) {
  json j = json::object();
  const auto one = [&](const auto& f) {
    if (auto v = f.emit(s, c)) j[f.key] = std::move(*v);
  };
  std::apply([&](const auto&... f) { (one(f), ...); }, fields_of<S>::list);
  return j;
}
template <class S>
void read_fields(const json& j, S& s, context& c) {
  if (!j.is_object()) bad(c, "a record is not a JSON object");
  const auto one = [&](const auto& f) {
    if (j.contains(f.key)) f.read(j.at(f.key), s, c);
    else if (f.required(c)) bad(c, fmt::format("missing field '{}'", f.key));
  };
  std::apply([&](const auto&... f) { (one(f), ...); }, fields_of<S>::list);
  after_read(s, c);
}

template <class T>
json value_json(const T& v, const context& c) {
  if constexpr (std::is_same_v<T, double>) return number_json(v);
  else if constexpr (named_enum<T>) return json(to_string(v));
  else if constexpr (is_optional<T>) return v ? value_json(*v, c) : json(nullptr);
  else if constexpr (record<T>) return fields_json(v, c);
  else if constexpr (is_vector<T> || is_set<T>) {
    json a = json::array();
    for (const auto& e : v) a.push_back(value_json(e, c));
    return a;
  } else if constexpr (is_string_map<T>) {
    json o = json::object();
    for (const auto& [k, e] : v) o[k] = value_json(e, c);
    return o;
  } else return json(v);
}
template <class T>
void read_value(const json& j, T& into, const char* key, context& c) {
  if constexpr (std::is_same_v<T, double>) {
    into = number_from(j, c);
  } else if constexpr (named_enum<T>) {
    std::string name;
    read_value(j, name, key, c);
    const auto v = parse_name<T>(name);
    if (!v) bad(c, fmt::format("field '{}' has the unknown value '{}'", key, name));
    into = *v;
  } else if constexpr (is_optional<T>) {
    if (j.is_null()) into.reset();
    else read_value(j, into.emplace(), key, c);
  } else if constexpr (record<T>) {
    read_fields(j, into, c);
  } else if constexpr (is_vector<T> || is_set<T>) {
    if (!j.is_array()) bad(c, fmt::format("field '{}' has the wrong type", key));
    for (const auto& e : j) {
      typename T::value_type item{};
      read_value(e, item, key, c);
      into.insert(into.end(), std::move(item));
    }
  } else if constexpr (is_string_map<T>) {
    if (!j.is_object()) bad(c, fmt::format("field '{}' has the wrong type", key));
    for (const auto& [k, e] : j.items()) read_value(e, into[k], key, c);
  } else {
    try {
      into = j.get<T>();
    } catch (const nlohmann::json::exception&) {
      bad(c, fmt::format("field '{}' has the wrong type", key));
    }
  }
}

void key_values::read(const json& j, lines& into, const char* key, context& c) {
  if (!j.is_array()) bad(c, fmt::format("field '{}' has the wrong type", key));
  for (const auto& e : j) {
    if (!e.is_object() || !e.contains("key") || !e.contains("value")) bad(c, fmt::format("field '{}': a line lacks key or value", key));
    auto& [k, v] = into.emplace_back();
    read_value(e.at("key"), k, "key", c);
    read_value(e.at("value"), v, "value", c);
  }
}

json tally_variants::write(const std::vector<case_tally::per_variant>& per, const context& c) {
  json a = json::array();
  for (std::size_t v = 0; v < per.size(); ++v) {
    json pv = fields_json(per[v], c);
    pv["variant"] = c.written->variants[v].name;
    a.push_back(std::move(pv));
  }
  return a;
}
void tally_variants::read(const json& j, std::vector<case_tally::per_variant>& into, const char* key, context& c) {
  if (!j.is_array()) bad(c, fmt::format("field '{}' has the wrong type", key));
  into.resize(c.read->variants.size());
  for (const auto& e : j) {
    std::size_t v = 0;
    variant_name::read(e.contains("variant") ? e.at("variant") : json(nullptr), v, "variant", c);
    read_fields(e, into[v], c);
  }
}

template <>
struct fields_of<hazard_evidence> {
  static constexpr std::tuple list{field{"raw", &hazard_evidence::raw}, field{"war", &hazard_evidence::war},
                                   field{"waw", &hazard_evidence::waw}, field{"first", &hazard_evidence::first}};
};
template <>
struct fields_of<unwritten_evidence> {
  static constexpr std::tuple list{field{"host_initialised", &unwritten_evidence::host_initialised},
                                   field{"never_written", &unwritten_evidence::never_written},
                                   field{"first", &unwritten_evidence::first}};
};
template <>
struct fields_of<outcome> {
  static constexpr std::tuple list{
      field{"pass", &outcome::pass},         field{"error", &outcome::error},
      field{"metrics", &outcome::metrics, 1, metrics_codec{}},
      field{"detail", &outcome::detail},     field{"coverage", &outcome::coverage},
      field{"hazards", &outcome::hazards},   field{"unwritten", &outcome::unwritten}};
};
template <>
struct fields_of<shard_spec> {
  static constexpr std::tuple list{field{"index", &shard_spec::index}, field{"count", &shard_spec::count}};
};
template <>
void after_read(shard_spec& s, context& c) {
  if (s.count == 0 || s.index == 0 || s.index > s.count) bad(c, "bad shard");
}
template <>
struct fields_of<variant_summary> {
  using V = variant_summary;
  static std::optional<json> cases_per_second(const V& v, const context& c) {
    if (!c.bench) return std::nullopt;
    return json(v.seconds > 0 ? double(v.passed + v.failed) / v.seconds : 0.0);
  }
  static constexpr std::tuple list{
      field{"name", &V::name},         field{"role", &V::role},
      field{"passed", &V::passed},     field{"failed", &V::failed},
      field{"errors", &V::errors},     field{"seconds", &V::seconds},
      field{"metrics", &V::metrics, 1, metrics_codec{}},
      field{"coverage", &V::coverage}, field{"hazards", &V::hazards},
      field{"unwritten", &V::unwritten},
      computed<V>{"cases_per_second", cases_per_second}};  // with --bench; not read back
};
template <>
void after_read(variant_summary& v, context& c) {
  c.variant_index[v.name] = c.read->variants.size();  // it is appended next
}
template <>
struct fields_of<case_tally::per_variant> {
  using P = case_tally::per_variant;
  static constexpr std::tuple list{field{"failed", &P::failed}, field{"first_failed", &P::first_failed},
                                   field{"first_failed_at", &P::first_failed_at},
                                   field{"first_passed", &P::first_passed},
                                   field{"first_passed_at", &P::first_passed_at}};
};
template <>
struct fields_of<case_tally> {
  static constexpr std::tuple list{field{"group", &case_tally::group}, field{"source", &case_tally::source},
                                   field{"buggy", &case_tally::buggy}, field{"cases", &case_tally::cases},
                                   field{"first_at", &case_tally::first_at},
                                   field{"variants", &case_tally::variants, 1, tally_variants{}}};
};
template <>
void after_read(case_tally& t, context& c) {
  for (const auto& pv : t.variants)
    if (pv.failed > t.cases) bad(c, "tally " + t.group + ": more failed than cases");
}
template <>
struct fields_of<case_row> {
  // The table row: the source kind's name when the row has no group of its own.
  static std::optional<json> group(const case_row& r, const context&) {
    return json(r.group.empty() ? std::string(to_string(r.source)) : r.group);
  }
  static void read_group(const json& j, case_row& r, context& c) { read_value(j, r.group, "group", c); }
  static constexpr std::tuple list{field{"id", &case_row::id},
                                   field{"source", &case_row::source},
                                   computed<case_row>{"group", group, read_group},
                                   field{"tags", &case_row::tags},
                                   field{"seed", &case_row::seed, 1, hex_seed{}},
                                   field{"buggy", &case_row::buggy},
                                   field{"position", &case_row::position, 2},
                                   field{"failed_on", &case_row::passed, 1, failed_on{}}};
};
template <>
void after_read(case_row& row, context& c) {
  // Version 1 listed every case of its shard in order: the k-th sat at k*count + index-1 in the unsharded list.
  const auto k = c.read->cases.size();  // it is appended next
  if (c.version < 2) row.position = std::uint64_t(k) * c.read->shard.count + (c.read->shard.index - 1);
  c.case_index.emplace(row.id, k);
}
template <>
struct fields_of<kept_failure> {
  static constexpr std::tuple list{field{"case", &kept_failure::case_index, 1, case_id{}},
                                   field{"variant", &kept_failure::variant_index, 1, variant_name{}},
                                   field{"outcome", &kept_failure::result}};
};
template <>
struct fields_of<counterexample> {
  using C = counterexample;
  static constexpr std::tuple list{
      field{"variant", &C::variant},
      field{"original", &C::original_id},
      field{"shrunk", &C::shrunk_id},
      field{"steps", &C::steps},
      field{"runs", &C::runs},
      field{"budget_exhausted", &C::budget_exhausted},
      field{"outcome", &C::on_variant},
      field{"reference_variant", &C::reference_variant},
      field{"reference_outcome", &C::on_reference},
      field{"input_file", &C::input_file, 2},
      field{"reproduce", &C::reproduce, 2},
      field{"input_text", &C::input_text, 3}};
};
template <>
struct fields_of<run_record> {
  using R = run_record;
  // The probe's name makes the reader's messages name the report ("report of probe-x: ...").
  struct names_the_report : plain {
    static void read(const json& j, std::string& into, const char* key, context& c) {
      read_value(j, into, key, c);
      c.where = "report of " + into;
    }
  };
  // Every case counted, also in a record built from listed rows alone (tests): then counted from the rows.
  static std::optional<json> tallies(const R& r, const context& c) { return value_json(tallies_of(r), c); }
  static void read_tallies(const json& j, R& r, context& c) { read_value(j, r.tallies, "tallies", c); }
  static std::optional<json> verdict(const R& r, const context& c) {
    return json{{"as_expected", r.as_expected()}, {"broken", value_json(r.broken, c)}};
  }
  static void read_verdict(const json& j, R& r, context& c) {
    if (!j.is_object() || !j.contains("broken")) bad(c, "missing field 'broken'");
    read_value(j.at("broken"), r.broken, "broken", c);
  }
  static constexpr std::tuple list{
      field{"probe", &R::probe, 1, names_the_report{}},
      field{"summary", &R::summary},
      field{"family", &R::family},
      field{"backend", &R::backend},
      field{"expect", &R::expect},
      field{"must_catch", &R::must_catch},
      field{"shard", &R::shard},
      field{"seed", &R::seed, 1, hex_seed{}},
      field{"fuzz", &R::fuzz},
      field{"filtered", &R::filtered},
      field{"unsharded_cases", &R::unsharded_cases},
      field{"command", &R::command},
      field{"run_seconds", &R::run_seconds, 3},  // added within version 2: its early reports lack them
      field{"setup_seconds", &R::setup_seconds, 3},
      field{"notes", &R::notes},
      field{"bench", &R::bench, 1, plain{}, true},  // only with --bench
      field{"environment", &R::environment, 1, key_values{}},
      field{"variants", &R::variants},  // before every field that names a variant
      field{"all_cases_listed", &R::all_cases_listed, 2},
      computed<R>{"tallies", tallies, read_tallies, 2},
      field{"cases", &R::cases},  // before the failures that name them
      field{"failures", &R::failures},
      field{"counterexamples", &R::counterexamples},
      computed<R>{"verdict", verdict, read_verdict}};
};

}  // namespace

json to_json(const run_record& r, bool bench) {
  context c;
  c.bench = bench;
  c.written = &r;
  json j = fields_json(r, c);
  j["schema_version"] = report_schema_version;
  return j;
}

run_record from_json(const json& j) {
  context c;
  if (!j.is_object() || !j.contains("schema_version")) bad(c, "missing field 'schema_version'");
  read_value(j.at("schema_version"), c.version, "schema_version", c);
  if (c.version < 1 || c.version > report_schema_version)
    bad(c, fmt::format("schema_version {} is not one this build reads (1 to {})", j.at("schema_version").dump(),
                       report_schema_version));
  run_record r;
  c.read = &r;
  read_fields(j, r, c);
  return r;
}

}  // namespace tp::probe
