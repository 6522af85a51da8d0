#include "probes/common/report.h"

#include "probes/common/markdown.h"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <optional>
#include <tuple>
#include <type_traits>
#include <stdexcept>

#include <fmt/format.h>

#ifndef TP_GIT_COMMIT
#define TP_GIT_COMMIT "unknown"
#endif
#ifndef TP_BUILD_TYPE
#define TP_BUILD_TYPE "unknown"
#endif
#ifndef TP_GIT_REPOSITORY
#define TP_GIT_REPOSITORY "unknown"
#endif
#ifndef TP_VERSION
#define TP_VERSION "unknown"
#endif

namespace tp::probe {

using nlohmann::json;

report_format parse_report_format(std::string_view s) {
  if (const auto f = parse_name<report_format>(s)) return *f;
  if (s == "markdown") return report_format::md;
  if (s == "xml") return report_format::junit;
  throw usage_error("--report '" + std::string(s) + "': unknown format (expected text, md, json or junit)");
}

std::string version_line(std::string_view tool) {
  return std::string(tool) + " " + TP_VERSION + " (git " + TP_GIT_COMMIT + ")";
}

std::vector<std::pair<std::string, std::string>> build_environment() {
  std::vector<std::pair<std::string, std::string>> env;
#if defined(__clang__)
  env.emplace_back("compiler", std::string("clang ") + __clang_version__);
#elif defined(__GNUC__)
  env.emplace_back("compiler", std::string("g++ ") + __VERSION__);
#else
  env.emplace_back("compiler", __VERSION__);
#endif
  env.emplace_back("build type", TP_BUILD_TYPE);
#if defined(TP_ASAN)
  env.back().second += " (ASan+UBSan)";
#endif
  env.emplace_back("git commit", TP_GIT_COMMIT);
  env.emplace_back("repository", TP_GIT_REPOSITORY);
  char host[256] = {};
  if (gethostname(host, sizeof host - 1) != 0) host[0] = '\0';
  env.emplace_back("hostname", host[0] ? host : "unknown");
  return env;
}

std::string format_number(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  if (v == std::floor(v) && std::fabs(v) < 1e15) return fmt::format("{}", static_cast<long long>(v));
  return fmt::format("{:.6g}", v);
}

namespace {

std::string metrics_line(const std::map<std::string, metric>& m) {
  std::string s;
  for (const auto& [k, v] : m) s += fmt::format("{}{}={}", s.empty() ? "" : " ", k, format_number(v.value));
  return s.empty() ? "-" : s;
}

std::string shard_text(const shard_spec& s) { return fmt::format("{}/{}", s.index, s.count); }

std::string roles_text(const run_record& r) {
  std::string s;
  for (const auto& v : r.variants) s += fmt::format("{}{} ({})", s.empty() ? "" : ", ", v.name, to_string(v.role));
  return s;
}

std::vector<std::string> coverage_keys(const run_record& r) {
  std::set<std::string> keys;
  for (const auto& v : r.variants)
    for (const auto& [k, n] : v.coverage) keys.insert(k);
  return {keys.begin(), keys.end()};
}

std::uint64_t case_runs(const run_record& r) {
  std::uint64_t n = 0;
  for (const auto& v : r.variants) n += v.passed + v.failed;
  return n;
}

double cases_per_second(const variant_summary& v) {
  const double n = double(v.passed + v.failed);
  return v.seconds > 0 ? n / v.seconds : 0.0;
}

struct palette {
  bool on;
  std::string green(std::string_view s) const { return on ? fmt::format("\x1b[32m{}\x1b[0m", s) : std::string(s); }
  std::string red(std::string_view s) const { return on ? fmt::format("\x1b[31m{}\x1b[0m", s) : std::string(s); }
  std::string bold(std::string_view s) const { return on ? fmt::format("\x1b[1m{}\x1b[0m", s) : std::string(s); }
};

std::string pad(std::string_view s, std::size_t w) {
  std::string out(s);
  if (out.size() < w) out.append(w - out.size(), ' ');
  return out;
}

}  // namespace

std::string render_text(const run_record& r, bool colour, bool bench) {
  const palette p{colour};
  std::string o;
  o += fmt::format("{}: {}\n", p.bold(r.probe), r.summary);
  o += fmt::format("backend {} | expect {} | variants {} | cases {} | seed {} | fuzz {} | shard {}\n\n", r.backend,
                   to_string(r.expect), roles_text(r), cases_in(r), r.seed, r.fuzz, shard_text(r.shard));

  const auto t = make_table(r);
  std::size_t w0 = 5;
  for (const auto& row : t.rows) w0 = std::max(w0, row.size());
  std::vector<std::size_t> w;
  for (const auto& c : t.columns) w.push_back(std::max<std::size_t>(c.size(), 11));
  o += "fail->pass (failed / cases run)\n  " + pad("group", w0);
  for (std::size_t c = 0; c < t.columns.size(); ++c) o += "  " + pad(t.columns[c], w[c]);
  o += '\n';
  for (std::size_t row = 0; row < t.rows.size(); ++row) {
    o += "  " + pad(t.rows[row], w0);
    for (std::size_t c = 0; c < t.columns.size(); ++c) {
      const auto& cell = t.cells[row][c];
      const std::string s = pad(fmt::format("{} / {}", cell.total - cell.passed, cell.total), w[c]);
      o += "  " + (cell.passed == cell.total ? p.green(s) : p.red(s));
    }
    o += '\n';
  }

  if (!r.notes.empty()) {
    o += "\nnotes\n";
    for (const auto& n : r.notes) o += "  " + n + '\n';
  }

  o += "\nmetrics\n";
  for (const auto& v : r.variants) o += fmt::format("  {}: {}\n", v.name, metrics_line(v.metrics));

  const auto keys = coverage_keys(r);
  if (!keys.empty()) {
    std::size_t kw = 8;
    for (const auto& k : keys) kw = std::max(kw, k.size());
    o += "\ncoverage\n  " + pad("counter", kw);
    for (std::size_t c = 0; c < r.variants.size(); ++c) o += "  " + pad(r.variants[c].name, w[c]);
    o += '\n';
    for (const auto& k : keys) {
      o += "  " + pad(k, kw);
      for (std::size_t c = 0; c < r.variants.size(); ++c) {
        auto it = r.variants[c].coverage.find(k);
        o += "  " + pad(std::to_string(it == r.variants[c].coverage.end() ? 0 : it->second), w[c]);
      }
      o += '\n';
    }
  }

  for (const auto& v : r.variants) {
    if (v.hazards.total() || v.unwritten.total()) {
      o += fmt::format("\nevidence on {}: hazards raw={} war={} waw={}, unwritten reads host-initialised={} "
                       "never-written={}\n",
                       v.name, v.hazards.raw, v.hazards.war, v.hazards.waw, v.unwritten.host_initialised,
                       v.unwritten.never_written);
      for (const auto& f : v.hazards.first) o += "    hazard: " + f + '\n';
      for (const auto& f : v.unwritten.first) o += "    unwritten read: " + f + '\n';
    }
  }

  if (!r.failures.empty()) {
    o += "\nfailures (first few per variant and group)\n";
    for (const auto& f : r.failures) {
      const auto& c = r.cases[f.case_index];
      o += fmt::format("  [{}] {}  {}\n", r.variants[f.variant_index].name, c.id, metrics_line(f.result.metrics));
      if (!f.result.error.empty()) o += "      error: " + f.result.error + '\n';
      for (const auto& d : f.result.detail) o += "      " + d + '\n';
    }
  }

  for (const auto& ce : r.counterexamples) {
    o += fmt::format("\ncounterexample on {}: {}\n  shrunk from {} ({} steps, {} runs{})\n", ce.variant, ce.shrunk_id,
                     ce.original_id, ce.steps, ce.runs, ce.budget_exhausted ? ", budget exhausted" : "");
    o += fmt::format("  {} ({}): {}\n", ce.variant, ce.on_variant.pass ? "pass" : "FAIL",
                     metrics_line(ce.on_variant.metrics));
    if (!ce.on_variant.error.empty()) o += "      error: " + ce.on_variant.error + '\n';
    for (const auto& d : ce.on_variant.detail) o += "      " + d + '\n';
    if (ce.on_reference) {
      o += fmt::format("  {} ({}): {}\n", ce.reference_variant, ce.on_reference->pass ? "pass" : "FAIL",
                       metrics_line(ce.on_reference->metrics));
      if (!ce.on_reference->error.empty()) o += "      error: " + ce.on_reference->error + '\n';
      for (const auto& d : ce.on_reference->detail) o += "      " + d + '\n';
    }
    for (const auto& cmd : ce.reproduce) o += "  reproduce: " + cmd + '\n';
  }
  if (!r.all_cases_listed)
    o += fmt::format("\n{} cases ran; the reports list {} of them (those that failed somewhere, a bounded number per "
                     "group and variant); every count above covers all of them\n",
                     cases_in(r), r.cases.size());

  if (bench) {
    o += "\nbench\n";
    for (const auto& v : r.variants)
      o += fmt::format("  {}: {} cases in {:.3f} s = {:.0f} cases/s\n", v.name, v.passed + v.failed, v.seconds,
                       cases_per_second(v));
    const std::uint64_t runs = case_runs(r);
    o += fmt::format("  run: {} case runs in {:.3f} s wall clock (case generation, runners and bookkeeping) = {:.0f} "
                     "case runs/s\n",
                     runs, r.run_seconds, r.run_seconds > 0 ? double(runs) / r.run_seconds : 0.0);
    if (r.setup_seconds > 0)
      o += fmt::format("  one-time runtime setup inside the runners, not in the variants' seconds above: {:.3f} s "
                       "(tileprobe's simulator decoding code objects at their first launch)\n",
                       r.setup_seconds);
  }

  o += "\nenvironment\n";
  for (const auto& [k, v] : r.environment) o += fmt::format("  {}: {}\n", k, v);

  o += '\n';
  if (r.as_expected()) {
    o += p.green("verdicts as expected") + '\n';
  } else {
    o += p.red("verdicts NOT as expected:") + '\n';
    for (const auto& b : r.broken) o += "  - " + b + '\n';
  }
  return o;
}

std::string render_markdown(const run_record& r, bool bench) {
  // The same renderer as tileprobe-report's merged document: a run is a merge of one report.
  report::merged_run run{r, {}, {r.command}, {}};
  return report::render_document({run}, nullptr, nullptr, {bench});
}

namespace {
std::string xml_escape(std::string_view s) {
  std::string out;
  for (unsigned char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&apos;"; break;
      default:
        // XML 1.0 forbids most control characters even as references; keep tab/newline, drop the rest.
        if (c < 0x20 && c != '\t' && c != '\n' && c != '\r')
          out += '?';
        else
          out += char(c);
    }
  }
  return out;
}

// Why this (case, variant) result breaks an expectation, or empty if it does not.
std::string case_expectation_broken(const run_record& r, const case_row& c, std::size_t v) {
  return std::string(expectation_broken(r.expect, r.variants[v].role, c.source, c.buggy, c.passed[v] != 0));
}

// Cases (of every case) that break an expectation on variant v, from the tallies.
std::uint64_t broken_cases(const run_record& r, const std::vector<case_tally>& ts, std::size_t v) {
  std::uint64_t n = 0;
  for (const auto& t : ts) {
    const std::uint64_t failed = t.variants[v].failed;
    if (!expectation_broken(r.expect, r.variants[v].role, t.source, t.buggy, false).empty()) n += failed;
    if (!expectation_broken(r.expect, r.variants[v].role, t.source, t.buggy, true).empty()) n += t.cases - failed;
  }
  return n;
}
}  // namespace

std::string render_junit(const run_record& r, const junit_options& options) {
  std::map<std::pair<std::size_t, std::size_t>, const outcome*> kept;
  for (const auto& f : r.failures) kept[{f.case_index, f.variant_index}] = &f.result;
  // The command that reruns one case: the run's own executable and backend (the recorded command's first word is the
  // executable as the reports name it, relative to a clone's root).
  const auto words = report::shell_words(r.command);
  const std::string exe = words.empty() ? r.probe : shell_quote(words.front());
  const auto rerun = [&](const std::string& variant, const std::string& id) {
    return exe + " --backend " + r.backend + " --variant " + shell_quote(variant) + " --case " + shell_quote(id);
  };

  std::string body;
  std::uint64_t all_tests = 0, all_failures = 0;
  const auto ts = tallies_of(r);
  std::uint64_t ts_total = 0;
  for (const auto& t : ts) ts_total += t.cases;
  for (std::size_t v = 0; v < r.variants.size(); ++v) {
    const auto& var = r.variants[v];
    const std::uint64_t ran = var.passed + var.failed;
    // A case's time is not measured alone (cases run in batches): each gets the variant's mean.
    const double mean = ran ? var.seconds / double(ran) : 0.0;
    const std::string classname = xml_escape(r.probe + "." + var.name);
    std::string cases;
    std::uint64_t failures = 0, tests = 0, written = 0, listed_broken = 0;
    for (std::size_t i = 0; i < r.cases.size(); ++i) {
      const auto& c = r.cases[i];
      const std::string why = case_expectation_broken(r, c, v);
      if (why.empty() && (options.failing_only || written >= junit_passing_listed_max)) continue;
      ++tests;
      ++written;
      cases += fmt::format("    <testcase classname=\"{}\" name=\"{}\" time=\"{:.6f}\">", classname, xml_escape(c.id),
                           mean);
      if (!why.empty()) {
        ++failures;
        ++listed_broken;
        cases += fmt::format("<failure message=\"{}\">", xml_escape(why));
        cases += xml_escape("rerun: " + rerun(var.name, c.id)) + '\n';
        auto it = kept.find({i, v});
        if (it != kept.end()) {
          if (!it->second->error.empty()) cases += xml_escape("error: " + it->second->error) + '\n';
          for (const auto& d : it->second->detail) cases += xml_escape(d) + '\n';
        }
        cases += "</failure>";
      } else if (!c.passed[v]) {
        cases += "<system-out>failed, as expected of this variant</system-out>";
      }
      cases += "</testcase>\n";
    }
    // The cases not written as testcases (a large run lists only some; JUnit lists passing ones up to a bound, or
    // none with failing_only), as one testcase: failing when any of them breaks an expectation.
    const std::uint64_t unwritten = ts_total - written, broken = broken_cases(r, ts, v) - listed_broken;
    if (unwritten > 0 && (!options.failing_only || broken > 0)) {
      ++tests;
      cases += fmt::format("    <testcase classname=\"{}\" name=\"further cases (not listed)\" time=\"{:.6f}\">",
                           classname, mean * double(unwritten));
      if (broken) {
        cases += fmt::format("<failure message=\"{} of {} further cases break an expectation\">{}</failure>", broken,
                             unwritten, xml_escape("rerun: " + exe + " --backend " + r.backend + " --variant " +
                                                   shell_quote(var.name)));
        ++failures;
      } else {
        cases += fmt::format("<system-out>{} further cases, none breaking an expectation</system-out>", unwritten);
      }
      cases += "</testcase>\n";
    }
    all_tests += tests;
    all_failures += failures;
    body += fmt::format("  <testsuite name=\"{}\" tests=\"{}\" failures=\"{}\" errors=\"0\" time=\"{:.6f}\">\n",
                        classname, tests, failures, var.seconds);
    body += fmt::format("    <properties><property name=\"role\" value=\"{}\"/><property name=\"backend\" "
                        "value=\"{}\"/><property name=\"cases\" value=\"{}\"/></properties>\n",
                        to_string(var.role), xml_escape(r.backend), ran);
    body += cases;
    body += "  </testsuite>\n";
  }
  // One testcase per expectation of the verdict, named by its stable id; the reason (with counts) is the message.
  const std::string verdict = xml_escape(r.probe + ".verdict");
  std::string checks;
  std::uint64_t ntests = 0, nfail = 0;
  for (const auto& e : expectations(r, r.shard.is_whole())) {
    if (options.failing_only && e.broken.empty()) continue;
    ++ntests;
    checks += fmt::format("    <testcase classname=\"{}\" name=\"{}\" time=\"0\">", verdict, xml_escape(e.id));
    if (!e.broken.empty()) {
      ++nfail;
      checks += fmt::format("<failure message=\"{}\">{}</failure>", xml_escape(e.broken),
                            xml_escape("rerun: " + r.command));
    }
    checks += "</testcase>\n";
  }
  body += fmt::format("  <testsuite name=\"{}\" tests=\"{}\" failures=\"{}\" errors=\"0\" time=\"{:.6f}\">\n{}  "
                      "</testsuite>\n",
                      verdict, ntests, nfail, r.run_seconds, checks);
  all_tests += ntests;
  all_failures += nfail;
  return fmt::format("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"{}\" tests=\"{}\" "
                     "failures=\"{}\" time=\"{:.6f}\">\n{}</testsuites>\n",
                     xml_escape(r.probe), all_tests, all_failures, r.run_seconds, body);
}

namespace {
std::string seed_string(std::uint64_t s) { return fmt::format("0x{:016x}", s); }

// Non-finite numbers as the strings the text and Markdown reports print ("inf", "-inf", "nan"): JSON has no literal
// for them, and null would say "missing" where the value is an infinite error.
json number_json(double v) { return std::isfinite(v) ? json(v) : json(format_number(v)); }

json metrics_json(const std::map<std::string, metric>& m) {
  json j = json::object();
  for (const auto& [k, v] : m)
    j[k] = {{"value", number_json(v.value)}, {"merge", v.merge == metric_merge::sum ? "sum" : "max"}};
  return j;
}
// Field access that names what is missing, so a bad report file gives one clear line.
const json& at(const json& j, const char* key, std::string_view where) {
  if (!j.is_object() || !j.contains(key))
    throw std::runtime_error(fmt::format("{}: missing field '{}'", where, key));
  return j.at(key);
}
template <class T>
T get(const json& j, const char* key, std::string_view where) {
  try {
    return at(j, key, where).get<T>();
  } catch (const nlohmann::json::exception&) {
    throw std::runtime_error(fmt::format("{}: field '{}' has the wrong type", where, key));
  }
}
// An enum field by its table's name; any other name is a bad report.
template <named_enum E>
E named(const std::string& name, const char* key, std::string_view where) {
  if (const auto v = parse_name<E>(name)) return *v;
  throw std::runtime_error(fmt::format("{}: field '{}' has the unknown value '{}'", where, key, name));
}
double number_from(const json& j, std::string_view where) {
  if (j.is_null()) return std::nan("");  // version 2 reports before non-finite values were written as strings
  if (j.is_string()) {
    const auto s = j.get<std::string>();
    if (s == "inf") return INFINITY;
    if (s == "-inf") return -INFINITY;
    if (s == "nan") return std::nan("");
    throw std::runtime_error(fmt::format("{}: '{}' is not a number (nor inf, -inf, nan)", where, s));
  }
  return j.get<double>();
}

std::map<std::string, metric> metrics_from(const json& j, std::string_view where) {
  std::map<std::string, metric> m;
  for (const auto& [k, v] : j.items())
    m[k] = metric{number_from(at(v, "value", where), where),
                  get<std::string>(v, "merge", where) == "sum" ? metric_merge::sum : metric_merge::max};
  return m;
}

// A record's JSON fields, listed once (key and member) for writing and for reading it, so the two directions cannot
// drift apart. Values go through value_json / read_value: plain JSON, or a number that may be non-finite, metrics,
// an enum by its name, an optional (null when empty) or a nested record through its own list.
template <class S, class M>
struct field {
  const char* key;
  M S::*member;
};
template <class S>
struct fields_of;  // specialised below: `list`, the record's fields
template <class S>
concept record = requires { fields_of<S>::list; };
template <class T>
inline constexpr bool is_optional = false;
template <class T>
inline constexpr bool is_optional<std::optional<T>> = true;

template <class T>
json value_json(const T& v);
template <class T>
void read_value(const json& j, T& into, const char* key, std::string_view where);

template <class S, class... M>
json fields_json(const S& s, const std::tuple<field<S, M>...>& fields) {
  json j = json::object();
  std::apply([&](const auto&... f) { ((j[f.key] = value_json(s.*(f.member))), ...); }, fields);
  return j;
}
template <class S, class... M>
void read_fields(const json& j, S& s, const std::tuple<field<S, M>...>& fields, std::string_view where) {
  std::apply([&](const auto&... f) { (read_value(at(j, f.key, where), s.*(f.member), f.key, where), ...); }, fields);
}

template <class T>
json value_json(const T& v) {
  if constexpr (std::is_same_v<T, double>) return number_json(v);
  else if constexpr (std::is_same_v<T, std::map<std::string, metric>>) return metrics_json(v);
  else if constexpr (named_enum<T>) return json(to_string(v));
  else if constexpr (is_optional<T>) return v ? value_json(*v) : json(nullptr);
  else if constexpr (record<T>) return fields_json(v, fields_of<T>::list);
  else return json(v);
}
template <class T>
void read_value(const json& j, T& into, const char* key, std::string_view where) {
  if constexpr (std::is_same_v<T, double>) {
    into = number_from(j, where);
  } else if constexpr (std::is_same_v<T, std::map<std::string, metric>>) {
    into = metrics_from(j, where);
  } else if constexpr (named_enum<T>) {
    std::string name;
    read_value(j, name, key, where);
    into = named<T>(name, key, where);
  } else if constexpr (is_optional<T>) {
    if (j.is_null()) into.reset();
    else read_value(j, into.emplace(), key, where);
  } else if constexpr (record<T>) {
    read_fields(j, into, fields_of<T>::list, where);
  } else {
    try {
      into = j.get<T>();
    } catch (const nlohmann::json::exception&) {
      throw std::runtime_error(fmt::format("{}: field '{}' has the wrong type", where, key));
    }
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
  static constexpr std::tuple list{field{"pass", &outcome::pass},           field{"error", &outcome::error},
                                   field{"metrics", &outcome::metrics},     field{"detail", &outcome::detail},
                                   field{"coverage", &outcome::coverage},   field{"hazards", &outcome::hazards},
                                   field{"unwritten", &outcome::unwritten}};
};
template <>
struct fields_of<variant_summary> {
  static constexpr std::tuple list{
      field{"name", &variant_summary::name},         field{"role", &variant_summary::role},
      field{"passed", &variant_summary::passed},     field{"failed", &variant_summary::failed},
      field{"errors", &variant_summary::errors},     field{"seconds", &variant_summary::seconds},
      field{"metrics", &variant_summary::metrics},   field{"coverage", &variant_summary::coverage},
      field{"hazards", &variant_summary::hazards},   field{"unwritten", &variant_summary::unwritten}};
};
// A tally's per-variant counts; "variant" (the name) is written and matched beside them.
template <>
struct fields_of<case_tally::per_variant> {
  using P = case_tally::per_variant;
  static constexpr std::tuple list{field{"failed", &P::failed},
                                   field{"first_failed", &P::first_failed},
                                   field{"first_failed_at", &P::first_failed_at},
                                   field{"first_passed", &P::first_passed},
                                   field{"first_passed_at", &P::first_passed_at}};
};
template <>
struct fields_of<case_tally> {  // and "variants", each a per_variant record with its variant's name
  static constexpr std::tuple list{field{"group", &case_tally::group}, field{"source", &case_tally::source},
                                   field{"buggy", &case_tally::buggy}, field{"cases", &case_tally::cases},
                                   field{"first_at", &case_tally::first_at}};
};
template <>
struct fields_of<case_row> {  // and "group" (the source kind's name when empty), "seed", "position", "failed_on"
  static constexpr std::tuple list{field{"id", &case_row::id}, field{"source", &case_row::source},
                                   field{"tags", &case_row::tags}, field{"buggy", &case_row::buggy}};
};
template <>
struct fields_of<counterexample> {
  static constexpr std::tuple list{
      field{"variant", &counterexample::variant},
      field{"original", &counterexample::original_id},
      field{"shrunk", &counterexample::shrunk_id},
      field{"steps", &counterexample::steps},
      field{"runs", &counterexample::runs},
      field{"budget_exhausted", &counterexample::budget_exhausted},
      field{"outcome", &counterexample::on_variant},
      field{"reference_variant", &counterexample::reference_variant},
      field{"reference_outcome", &counterexample::on_reference}};
  // Since schema version 2.
  static constexpr std::tuple since_v2{field{"input_file", &counterexample::input_file},
                                       field{"reproduce", &counterexample::reproduce}};
};
}  // namespace

json to_json(const run_record& r, bool bench) {
  json j;
  j["schema_version"] = report_schema_version;
  j["probe"] = r.probe;
  j["summary"] = r.summary;
  j["family"] = r.family;
  j["backend"] = r.backend;
  j["expect"] = to_string(r.expect);
  j["must_catch"] = json::array();
  for (auto k : r.must_catch) j["must_catch"].push_back(to_string(k));
  j["shard"] = {{"index", r.shard.index}, {"count", r.shard.count}};
  j["seed"] = seed_string(r.seed);
  j["fuzz"] = r.fuzz;
  j["filtered"] = r.filtered;
  j["unsharded_cases"] = r.unsharded_cases;
  j["command"] = r.command;
  j["run_seconds"] = r.run_seconds;
  j["setup_seconds"] = r.setup_seconds;
  j["notes"] = r.notes;
  if (!r.bench.empty()) {
    j["bench"] = json::object();
    for (const auto& [k, v] : r.bench) j["bench"][k] = number_json(v);
  }
  j["environment"] = json::array();
  for (const auto& [k, v] : r.environment) j["environment"].push_back({{"key", k}, {"value", v}});
  j["variants"] = json::array();
  for (const auto& v : r.variants) {
    json jv = value_json(v);
    if (bench) jv["cases_per_second"] = cases_per_second(v);
    j["variants"].push_back(std::move(jv));
  }
  j["all_cases_listed"] = r.all_cases_listed;
  j["tallies"] = json::array();
  for (const auto& t : tallies_of(r)) {
    json per = json::array();
    for (std::size_t v = 0; v < r.variants.size(); ++v) {
      json pv = value_json(t.variants[v]);
      pv["variant"] = r.variants[v].name;
      per.push_back(std::move(pv));
    }
    json jt = value_json(t);
    jt["variants"] = std::move(per);
    j["tallies"].push_back(std::move(jt));
  }
  j["cases"] = json::array();
  for (const auto& c : r.cases) {
    json failed_on = json::array();
    for (std::size_t v = 0; v < r.variants.size(); ++v)
      if (!c.passed[v]) failed_on.push_back(r.variants[v].name);
    json jc = value_json(c);
    jc["group"] = c.group.empty() ? std::string(to_string(c.source)) : c.group;
    jc["seed"] = c.seed ? json(seed_string(*c.seed)) : json(nullptr);
    jc["position"] = c.position;
    jc["failed_on"] = std::move(failed_on);
    j["cases"].push_back(std::move(jc));
  }
  j["failures"] = json::array();
  for (const auto& f : r.failures)
    j["failures"].push_back({{"case", r.cases[f.case_index].id},
                             {"variant", r.variants[f.variant_index].name},
                             {"outcome", value_json(f.result)}});
  j["counterexamples"] = json::array();
  for (const auto& ce : r.counterexamples) {
    json jce = value_json(ce);
    jce.update(fields_json(ce, fields_of<counterexample>::since_v2));
    j["counterexamples"].push_back(std::move(jce));
  }
  j["verdict"] = {{"as_expected", r.as_expected()}, {"broken", r.broken}};
  return j;
}

run_record from_json(const json& j) {
  const std::string where = "report";
  const int version = get<int>(j, "schema_version", where);
  if (version != report_schema_version && version != 1)
    throw std::runtime_error(fmt::format("report: schema_version {} is not {}", j.at("schema_version").dump(),
                                         report_schema_version));
  run_record r;
  r.probe = get<std::string>(j, "probe", where);
  const std::string w = "report of " + r.probe;
  r.summary = get<std::string>(j, "summary", w);
  r.family = get<std::string>(j, "family", w);
  r.backend = get<std::string>(j, "backend", w);
  read_value(at(j, "expect", w), r.expect, "expect", w);
  for (const auto& k : get<std::vector<std::string>>(j, "must_catch", w)) {
    auto kind = parse_source_kind(k);
    if (!kind) throw std::runtime_error(w + ": unknown source kind '" + k + "' in must_catch");
    r.must_catch.insert(*kind);
  }
  const auto& sh = at(j, "shard", w);
  r.shard = {get<unsigned>(sh, "index", w), get<unsigned>(sh, "count", w)};
  if (r.shard.count == 0 || r.shard.index == 0 || r.shard.index > r.shard.count)
    throw std::runtime_error(w + ": bad shard");
  auto seed = parse_seed(get<std::string>(j, "seed", w));
  if (!seed) throw std::runtime_error(w + ": bad seed");
  r.seed = *seed;
  r.fuzz = get<std::uint64_t>(j, "fuzz", w);
  r.filtered = get<bool>(j, "filtered", w);
  r.unsharded_cases = get<std::uint64_t>(j, "unsharded_cases", w);
  r.command = get<std::string>(j, "command", w);
  r.run_seconds = j.contains("run_seconds") ? get<double>(j, "run_seconds", w) : 0.0;  // absent before 2026-11-30
  r.setup_seconds = j.contains("setup_seconds") ? get<double>(j, "setup_seconds", w) : 0.0;  // absent before 2026-12-05
  r.notes = get<std::vector<std::string>>(j, "notes", w);
  if (j.contains("bench"))
    for (const auto& [k, v] : at(j, "bench", w).items()) r.bench[k] = number_from(v, w);
  for (const auto& e : at(j, "environment", w))
    r.environment.emplace_back(get<std::string>(e, "key", w), get<std::string>(e, "value", w));
  std::map<std::string, std::size_t> variant_index;
  for (const auto& jv : at(j, "variants", w)) {
    variant_summary v;
    read_value(jv, v, "variants", w);
    variant_index[v.name] = r.variants.size();
    r.variants.push_back(std::move(v));
  }
  std::map<std::string, std::size_t> case_index;
  for (const auto& jc : at(j, "cases", w)) {
    case_row c;
    read_value(jc, c, "cases", w);
    c.group = get<std::string>(jc, "group", w);
    if (!at(jc, "seed", w).is_null()) {
      auto s = parse_seed(get<std::string>(jc, "seed", w));
      if (!s) throw std::runtime_error(w + ": case " + c.id + ": bad seed");
      c.seed = *s;
    }
    // Version 1 listed every case of its shard in order: the k-th sat at k*count + index-1 in the unsharded list.
    c.position = version >= 2 ? get<std::uint64_t>(jc, "position", w)
                              : std::uint64_t(r.cases.size()) * r.shard.count + (r.shard.index - 1);
    c.passed.assign(r.variants.size(), 1);
    for (const auto& name : get<std::vector<std::string>>(jc, "failed_on", w)) {
      auto it = variant_index.find(name);
      if (it == variant_index.end()) throw std::runtime_error(w + ": case " + c.id + ": unknown variant " + name);
      c.passed[it->second] = 0;
    }
    case_index.emplace(c.id, r.cases.size());
    r.cases.push_back(std::move(c));
  }
  if (version >= 2) {
    r.all_cases_listed = get<bool>(j, "all_cases_listed", w);
    for (const auto& jt : at(j, "tallies", w)) {
      case_tally t;
      read_value(jt, t, "tallies", w);
      t.variants.resize(r.variants.size());
      for (const auto& jv : at(jt, "variants", w)) {
        auto it = variant_index.find(get<std::string>(jv, "variant", w));
        if (it == variant_index.end()) throw std::runtime_error(w + ": tally " + t.group + ": unknown variant");
        auto& pv = t.variants[it->second];
        read_value(jv, pv, "tallies", w);
        if (pv.failed > t.cases) throw std::runtime_error(w + ": tally " + t.group + ": more failed than cases");
      }
      r.tallies.push_back(std::move(t));
    }
  }
  for (const auto& jf : at(j, "failures", w)) {
    const auto id = get<std::string>(jf, "case", w);
    const auto vn = get<std::string>(jf, "variant", w);
    auto ci = case_index.find(id);
    auto vi = variant_index.find(vn);
    if (ci == case_index.end() || vi == variant_index.end())
      throw std::runtime_error(w + ": failure names an unknown case or variant: " + id + " on " + vn);
    outcome result;
    read_value(at(jf, "outcome", w), result, "outcome", w);
    r.failures.push_back({ci->second, vi->second, std::move(result)});
  }
  for (const auto& jce : at(j, "counterexamples", w)) {
    counterexample ce;
    read_value(jce, ce, "counterexamples", w);
    if (version >= 2) read_fields(jce, ce, fields_of<counterexample>::since_v2, w);
    r.counterexamples.push_back(std::move(ce));
  }
  r.broken = get<std::vector<std::string>>(at(j, "verdict", w), "broken", w);
  return r;
}

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
