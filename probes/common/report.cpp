#include "probes/common/report.h"

#include "probes/common/markdown.h"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <set>
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

std::string render_markdown(const run_record& r, bool bench, const std::string& report_dir) {
  // The same renderer as tileprobe-report's merged document: a run is a merge of one report.
  report::merged_run run{r, {}, {r.command}, {}};
  report::render_options options;
  options.bench = bench;
  options.report_dir = report_dir;
  return report::render_document({run}, nullptr, nullptr, options);
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

}  // namespace tp::probe
