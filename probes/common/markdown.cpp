// The Markdown renderer (markdown.h): one document for an upstream pull request, from one probe run (`--report md`)
// or many (tileprobe-report). The first screen answers a sceptical reviewer's questions (which probes, on which backend and device, did the buggy variant fail and the fixed one pass,
// where is the evidence); each probe's section then holds the fail->pass tables, the shrunk counterexample beside the
// fixed variant's output, metrics with their meaning, coverage, hazard/unwritten-read evidence and the commands.
// Every count is "failed / cases run", everywhere, so no table reads the other way round.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <map>
#include <optional>
#include <set>

#include <fmt/format.h>

#include "probes/common/markdown.h"
#include "probes/common/report.h"

namespace tp::report {

using probe::run_record;
using probe::shell_quote;
using probe::source_kind;
using probe::variant_role;

namespace {

// Code blocks wider than this scroll sideways in a pull request; longer lines are wrapped (see wrap_line).
constexpr std::size_t code_width = 100;

std::string md_escape(std::string_view s) {
  std::string out;
  for (char c : s) {
    if (c == '\\' || c == '|' || c == '*' || c == '_' || c == '`' || c == '<' || c == '>' || c == '[' || c == ']')
      out += '\\';
    out += c;
  }
  return out;
}

using probe::format_number;

std::string join(const std::vector<std::string>& parts, std::string_view sep) {
  std::string out;
  for (const auto& p : parts) out += (out.empty() ? "" : std::string(sep)) + p;
  return out;
}

// What each metric a probe reports means, so the tables need no guessing. A metric not listed here is shown with its
// aggregation only. `run_level`: meaningful only summed over a whole run (a checksum), so not shown per case.
struct metric_meaning {
  std::string_view name, meaning;
  bool run_level = false;
};
constexpr metric_meaning metric_meanings[] = {
    {"wrong", "output elements that differ from the oracle (a compress-only case counts 1 when wrong)"},
    {"max_abs_err", "largest |output - oracle| of any element"},
    {"oob_writes", "writes past the end of compress_a_impl's survivor or idx-field arrays (undefined behaviour)"},
    {"d_digest", "checksum of every tile's raw D bits (FNV-1a per tile, summed): equal on two backends means "
                 "bit-identical outputs", true},
    {"d_digest_cases", "tiles in d_digest", true},
    {"err_over_bound", "largest error divided by the oracle-derived error bound (a case fails above 1)"},
    {"rmse", "root-mean-square error against the fp64 oracle"},
    {"wrong_rows", "attention output rows outside the error bound"},
    {"hazards", "shared-memory hazards seen by the race detector (CPU emulator: the source; hip on tileprobe's "
                "simulator: the compiled LDS instructions; GPUs: compute-sanitizer racecheck)"},
    {"rows_without_body_meta", "output rows whose whole-tile meta (dst_final_meta) no kernel wrote"},
    {"wrong_rows_digest", "checksum of every case's wrong rows (FNV-1a per case, summed): equal on two backends "
                          "means the same rows were wrong", true},
    {"wrong_rows_digest_cases", "cases in wrong_rows_digest", true},
};
const metric_meaning* meaning_of(std::string_view metric) {
  for (const auto& m : metric_meanings)
    if (m.name == metric) return &m;
  return nullptr;
}

// The metrics of one outcome as "name value, ...", without run-level checksums.
std::string case_metrics(const std::map<std::string, probe::metric>& metrics) {
  std::vector<std::string> parts;
  for (const auto& [k, m] : metrics) {
    const auto* meaning = meaning_of(k);
    if (!meaning || !meaning->run_level) parts.push_back(k + " " + format_number(m.value));
  }
  return join(parts, ", ");
}

// A long part of a section, collapsed: GitHub shows the summary line and opens the body on a click. The blank line
// after </summary> is what makes GitHub render the body as Markdown.
std::string collapsed(const std::string& summary, const std::string& body) {
  return "\n<details><summary>" + summary + "</summary>\n\n" + body + (body.ends_with('\n') ? "" : "\n") +
         "\n</details>\n";
}

// Splits a line longer than `width` at spaces, and a word longer than a line (a case id) after its commas;
// continuation lines are indented so they read as one entry. Only for text: a shell command breaks with `\`.
std::string wrap_line(const std::string& line, std::size_t width) {
  if (line.size() <= width) return line + '\n';
  const std::string indent = "    ";
  struct piece {
    std::string text;
    bool space_before;
  };
  std::vector<piece> pieces;
  std::size_t pos = 0;
  while (pos <= line.size()) {
    std::size_t next = line.find(' ', pos);
    if (next == std::string::npos) next = line.size();
    const std::string word = line.substr(pos, next - pos);
    if (word.size() + indent.size() <= width) {
      pieces.push_back({word, !pieces.empty()});
    } else {
      std::size_t from = 0;
      while (from < word.size()) {
        auto comma = word.find(',', from);
        const std::size_t to = comma == std::string::npos ? word.size() : comma + 1;
        pieces.push_back({word.substr(from, to - from), from == 0 && !pieces.empty()});
        from = to;
      }
    }
    pos = next + 1;
  }
  std::string out, current;
  for (const auto& p : pieces) {
    const std::size_t added = p.text.size() + (p.space_before ? 1 : 0);
    if (!current.empty() && current != indent && current.size() + added > width) {
      out += current + '\n';
      current = indent + p.text;
    } else {
      current += (p.space_before ? " " : "") + p.text;
    }
  }
  return out + current + '\n';
}

struct fail_count {
  std::uint64_t failed = 0, total = 0;
};
std::string count_text(const fail_count& c) { return fmt::format("{} / {}", c.failed, c.total); }

fail_count failed_cases(const run_record& r, std::size_t variant, std::optional<source_kind> only = std::nullopt) {
  fail_count c;
  for (const auto& t : probe::tallies_of(r)) {  // every case, also where the report lists only some
    if (only && t.source != *only) continue;
    c.total += t.cases;
    c.failed += t.variants[variant].failed;
  }
  return c;
}

std::string variant_label(const probe::variant_summary& v) {
  return v.role == variant_role::other ? fmt::format("`{}`", v.name)
                                       : fmt::format("`{}` ({})", v.name, probe::to_string(v.role));
}

// The verdict in words; `brief` for the headline table's narrow column.
std::string verdict_text(const merged_run& m, bool brief) {
  const auto& r = m.record;
  std::string v;
  if (!m.as_expected()) v = "**NOT as expected**";
  else if (r.expect == probe::expect_mode::fail_pass) v = brief ? "fail → pass" : "fail → pass, as expected";
  else if (r.expect == probe::expect_mode::pass) v = brief ? "all pass" : "every variant passes, as expected";
  else v = brief ? "all fail" : "every variant fails, as expected";
  if (!m.problems.empty()) v += "; **shards do not add up**";
  return v;
}

// (key, value) lines shared by every run of a backend go once into the headline; the rest stay with their probe.
using env_lines = std::vector<std::pair<std::string, std::string>>;
env_lines common_environment(const std::vector<const merged_run*>& runs) {
  env_lines common;
  if (runs.empty()) return common;
  for (const auto& [k, v] : runs.front()->record.environment) {
    if (k == "probe" || k == "backend") continue;
    const bool everywhere = std::all_of(runs.begin(), runs.end(), [&, &k = k, &v = v](const merged_run* m) {
      return std::find(m->record.environment.begin(), m->record.environment.end(), std::pair{k, v}) !=
             m->record.environment.end();
    });
    if (everywhere) common.emplace_back(k, v);
  }
  return common;
}


// One command per line, broken with `\` before it gets wider than a code block; still pastes into a shell.
std::string command_block(const std::vector<std::string>& words) {
  std::string out, line;
  for (const auto& w : words) {
    const std::string q = shell_quote(w);
    if (!line.empty() && line.size() + 1 + q.size() > code_width - 2) {
      out += line + " \\\n";
      line = "    " + q;
    } else {
      line += (line.empty() ? "" : " ") + q;
    }
  }
  return out + line + '\n';
}

// A path as the document shows it: an absolute one (this machine's folders, which a reader has no use for) relative
// to the folder the document is written in; any other as recorded.
std::string shown_path(const std::string& path, const std::string& report_dir) {
  if (!path.starts_with('/')) return path;
  std::error_code ec;
  const auto base = std::filesystem::absolute(report_dir.empty() ? "." : report_dir, ec).lexically_normal();
  const auto relative = std::filesystem::path(path).lexically_normal().lexically_relative(base);
  return relative.empty() ? std::filesystem::path(path).filename().string() : relative.string();
}
// A report tileprobe-report read, named as it was given (relative to the current folder), relative to the document's
// folder.
std::string shown_source(const std::string& path, const std::string& report_dir) {
  std::error_code ec;
  return shown_path(std::filesystem::absolute(path, ec).string(), report_dir);
}
// A command's words as the document shows them: absolute paths, also as an option's value (--out=PATH), relative to
// the document's folder.
std::vector<std::string> shown_words(std::vector<std::string> words, const std::string& report_dir) {
  for (auto& w : words) {
    const auto eq = w.find('=');
    if (w.starts_with("--") && eq != std::string::npos) w = w.substr(0, eq + 1) + shown_path(w.substr(eq + 1), report_dir);
    else w = shown_path(w, report_dir);
  }
  return words;
}

// A command fed `text` on standard input through a heredoc: the command's last line ends in <<'DELIM', the text
// follows and DELIM ends it, a word no line of the text is (quoted, so the shell expands nothing in it).
std::string with_heredoc(const std::string& command_lines, const std::string& text) {
  std::string delim = "TPIN";
  const auto is_line = [&](const std::string& d) {
    return text.starts_with(d + '\n') || text.find('\n' + d + '\n') != std::string::npos || text == d;
  };
  for (int n = 1; is_line(delim); ++n) delim = "TPIN" + std::to_string(n);
  const std::string body = text.ends_with('\n') ? text : text + '\n';
  return command_lines.substr(0, command_lines.size() - 1) + " <<'" + delim + "'\n" + body + delim + '\n';
}

// The command that reruns one case on the buggy and the fixed variant: the run's own command (its backend and probe
// options), without what chose outputs, shards or other cases.
std::vector<std::string> rerun_command(const std::string& run_command, const std::string& case_id,
                                       const std::vector<std::string>& variants) {
  static const std::set<std::string> dropped = {"--report", "--out",   "--out-text", "--out-md", "--out-json",
                                                "--out-junit", "--shard", "--variant", "--case"};
  const auto words = shell_words(run_command);
  std::vector<std::string> kept;
  for (std::size_t i = 0; i < words.size(); ++i) {
    const auto& w = words[i];
    const auto eq = w.find('=');
    if (dropped.count(w)) {
      ++i;  // and its value
      continue;
    }
    if (eq != std::string::npos && dropped.count(w.substr(0, eq))) continue;
    kept.push_back(w);
  }
  if (kept.empty()) return kept;
  kept.push_back("--variant");
  kept.push_back(join(variants, ","));
  kept.push_back("--case");
  kept.push_back(case_id);
  return kept;
}

std::string sources_table(const run_record& r) {
  std::vector<source_kind> kinds;
  for (auto k : probe::all_source_kinds)
    if (!r.variants.empty() && failed_cases(r, 0, k).total > 0) kinds.push_back(k);
  std::string o = "| variant |";
  for (auto k : kinds) o += fmt::format(" {} |", probe::to_string(k));
  o += " all |\n|---|";
  for (std::size_t i = 0; i <= kinds.size(); ++i) o += "---:|";
  o += '\n';
  for (std::size_t v = 0; v < r.variants.size(); ++v) {
    o += fmt::format("| {} |", variant_label(r.variants[v]));
    for (auto k : kinds) o += fmt::format(" {} |", count_text(failed_cases(r, v, k)));
    o += fmt::format(" {} |\n", count_text(failed_cases(r, v)));
  }
  return o;
}

std::string groups_table(const run_record& r) {
  const auto t = probe::make_table(r);
  std::string o = "| case group |";
  for (const auto& v : r.variants) o += fmt::format(" {} |", variant_label(v));
  o += "\n|---|";
  for (std::size_t i = 0; i < r.variants.size(); ++i) o += "---:|";
  o += '\n';
  for (std::size_t row = 0; row < t.rows.size(); ++row) {
    o += fmt::format("| {} |", md_escape(t.rows[row]));
    for (const auto& cell : t.cells[row])
      o += fmt::format(" {} |", count_text({cell.total - cell.passed, cell.total}));
    o += '\n';
  }
  return o;
}

bool same_outcome(const probe::outcome& a, const probe::outcome& b) {
  if (a.pass != b.pass || a.error != b.error || a.detail != b.detail || a.metrics.size() != b.metrics.size())
    return false;
  for (const auto& [k, m] : a.metrics) {
    auto it = b.metrics.find(k);
    if (it == b.metrics.end() || !(it->second.value == m.value || (std::isnan(m.value) && std::isnan(it->second.value))))
      return false;
  }
  return true;
}

std::string counterexample_section(const merged_run& m, const probe::counterexample& ce, const std::string& report_dir) {
  std::string o;
  if (ce.steps == 0)
    o += fmt::format("`{}` fails this case; no smaller failing case was found:\n\n```text\n", ce.variant) +
         wrap_line(ce.shrunk_id, code_width) + "```\n";
  else
    o += fmt::format("`{}` fails this case, shrunk ({} step{}, {} candidate run{}{}) from the first case it failed:\n\n"
                     "```text\n",
                     ce.variant, ce.steps, ce.steps == 1 ? "" : "s", ce.runs, ce.runs == 1 ? "" : "s",
                     ce.budget_exhausted ? "; the shrink budget ran out" : "") +
         wrap_line("shrunk: " + ce.shrunk_id, code_width) + wrap_line("from:   " + ce.original_id, code_width) +
         "```\n";
  const auto block = [&](const std::string& variant, const probe::outcome& oc) {
    const std::string metrics = case_metrics(oc.metrics);
    std::string b = fmt::format("\n**On `{}`: {}**{}\n\n```text\n", variant, oc.pass ? "pass" : "FAIL",
                                metrics.empty() ? "" : " (" + metrics + ")");
    if (!oc.error.empty()) b += wrap_line("error: " + oc.error, code_width);
    for (const auto& d : oc.detail) b += wrap_line(d, code_width);
    if (oc.error.empty() && oc.detail.empty()) b += "(the probe printed no detail for this case)\n";
    return b + "```\n";
  };
  o += block(ce.variant, ce.on_variant);
  if (ce.on_reference) o += block(ce.reference_variant, *ce.on_reference);
  std::vector<std::string> variants{ce.variant};
  if (!ce.reference_variant.empty()) variants.push_back(ce.reference_variant);
  const std::string run_command = m.commands.empty() ? std::string() : m.commands.front();
  const auto rerun = shown_words(rerun_command(run_command, ce.original_id, variants), report_dir);
  if (!ce.reproduce.empty()) {
    o += ce.input_file.empty()
             ? "\nRerun the shrunk case on both variants:\n\n```sh\n"
             : "\nRerun the shrunk case on both variants (the input file's path is relative to this report):\n\n```sh\n";
    for (const auto& line : ce.reproduce) o += command_block(shown_words(shell_words(line), report_dir));
    o += "```\n";
  }
  // The shrunk case as data, so that this text alone reruns it: no file of the machine that wrote the report needed.
  if (!ce.input_text.empty()) {
    const auto words = shell_words(run_command);
    const std::vector<std::string> command{words.empty() ? m.record.probe : words.front(), "--backend", m.record.backend,
                                           "--variant", join(variants, ","), "--input", std::string(probe::input_stdin)};
    std::string fence = "```";
    while (ce.input_text.find(fence) != std::string::npos) fence += '`';
    o += collapsed("The shrunk case as a tileprobe-input file, with the command that reruns it from this text alone "
                   "(paste it into a shell at the root of a clone)",
                   fence + "sh\n" + with_heredoc(command_block(shown_words(command, report_dir)), ce.input_text) +
                       fence + "\n");
  }
  if (!rerun.empty()) o += "\nRerun the unshrunk case on both variants:\n\n```sh\n" + command_block(rerun) + "```\n";
  return o;
}

std::string metrics_section(const run_record& r) {
  std::map<std::string, probe::metric_merge> merges;
  for (const auto& v : r.variants)
    for (const auto& [k, mt] : v.metrics) merges.emplace(k, mt.merge);
  if (merges.empty()) return "";
  // Error measures first; run-level checksums (for comparing backends) last.
  std::vector<std::pair<std::string, probe::metric_merge>> names(merges.begin(), merges.end());
  std::stable_partition(names.begin(), names.end(), [](const auto& n) {
    const auto* meaning = meaning_of(n.first);
    return !meaning || !meaning->run_level;
  });
  std::string o = "\n### Metrics over all cases\n\n| metric | over the cases |";
  for (const auto& v : r.variants) o += fmt::format(" `{}` |", v.name);
  o += "\n|---|---|";
  for (std::size_t i = 0; i < r.variants.size(); ++i) o += "---:|";
  o += '\n';
  std::string meanings;
  for (const auto& [k, merge] : names) {
    o += fmt::format("| `{}` | {} |", k, merge == probe::metric_merge::sum ? "sum" : "max");
    for (const auto& v : r.variants) {
      auto it = v.metrics.find(k);
      o += fmt::format(" {} |", it == v.metrics.end() ? std::string("-") : format_number(it->second.value));
    }
    o += '\n';
    // The meanings go below the table: as a column they squeezed the numbers into wrapping.
    const auto* meaning = meaning_of(k);
    meanings += fmt::format("- `{}`: {}\n", k,
                            meaning ? md_escape(meaning->meaning) : std::string("the probe's own (see its README)"));
  }
  return o + collapsed(fmt::format("What the {} metrics mean", names.size()),
                       "sum: added over the cases; max: the largest of any case.\n\n" + meanings);
}

std::string coverage_section(const run_record& r) {
  std::set<std::string> keys;
  for (const auto& v : r.variants)
    for (const auto& [k, n] : v.coverage) keys.insert(k);
  if (keys.empty()) return "";
  const auto count = [](const probe::variant_summary& v, const std::string& k) {
    auto it = v.coverage.find(k);
    return it == v.coverage.end() ? std::uint64_t{0} : it->second;
  };
  std::vector<std::string> differing, equal;
  for (const auto& k : keys) {
    const bool same = std::all_of(r.variants.begin(), r.variants.end(),
                                  [&](const auto& v) { return count(v, k) == count(r.variants.front(), k); });
    (same ? equal : differing).push_back(k);
  }
  std::string o = "How often the cases reached each path the bug lives on, summed over the cases. "
                  "Every variant gets the same inputs, so a counter that differs between variants is the variant's "
                  "own doing.\n";
  if (!differing.empty()) {
    o += "\n| counter (differs between variants) |";
    for (const auto& v : r.variants) o += fmt::format(" `{}` |", v.name);
    o += "\n|---|";
    for (std::size_t i = 0; i < r.variants.size(); ++i) o += "---:|";
    o += '\n';
    for (const auto& k : differing) {
      o += fmt::format("| `{}` |", k);
      for (const auto& v : r.variants) o += fmt::format(" {} |", count(v, k));
      o += '\n';
    }
  }
  if (!equal.empty()) {
    // Long lists go into two column pairs (read down the left pair, then the right) so they stay on one screen.
    const std::size_t rows = equal.size() > 8 ? (equal.size() + 1) / 2 : equal.size();
    const bool two = rows < equal.size();
    o += two ? "\n| counter (equal on every variant) | count | counter | count |\n|---|---:|---|---:|\n"
             : "\n| counter (equal on every variant) | count |\n|---|---:|\n";
    for (std::size_t i = 0; i < rows; ++i) {
      o += fmt::format("| `{}` | {} |", equal[i], count(r.variants.front(), equal[i]));
      if (two) {
        if (i + rows < equal.size())
          o += fmt::format(" `{}` | {} |", equal[i + rows], count(r.variants.front(), equal[i + rows]));
        else
          o += "  |  |";
      }
      o += '\n';
    }
  }
  return "\n### Coverage\n" +
         collapsed(fmt::format("{} counters, {} of them differing between variants", keys.size(), differing.size()), o);
}

std::string evidence_section(const run_record& r) {
  bool any = false;
  for (const auto& v : r.variants) any |= v.hazards.total() || v.unwritten.total();
  if (!any) return "";
  std::string o =
      "\n### Hazard and unwritten-read evidence\n\n"
      "Shared-memory hazards (the CPU emulator's detector on the source; on hip under tileprobe's simulator, its LDS "
      "detector on the compiled instructions, with PCs): two warps touch one shared-memory address between two "
      "barriers, at least one writing; RAW = read after write, WAR = write after read, WAW = write after write. "
      "Unwritten reads: a kernel reads global memory no kernel wrote, either still holding the host's initial "
      "values or never written at all (poisoned on the CPU backend).\n\n"
      "| variant | hazards RAW | WAR | WAW | reads of host-initialised memory | reads of never-written memory |\n"
      "|---|---:|---:|---:|---:|---:|\n";
  for (const auto& v : r.variants)
    o += fmt::format("| `{}` | {} | {} | {} | {} | {} |\n", v.name, v.hazards.raw, v.hazards.war, v.hazards.waw,
                     v.unwritten.host_initialised, v.unwritten.never_written);
  for (const auto& v : r.variants) {
    if (v.hazards.first.empty() && v.unwritten.first.empty()) continue;
    std::string lines = "```text\n";
    for (const auto& f : v.hazards.first) lines += wrap_line("hazard: " + readable_evidence(f), code_width);
    for (const auto& f : v.unwritten.first) lines += wrap_line("unwritten read: " + readable_evidence(f), code_width);
    o += collapsed(fmt::format("The first ones on `{}`, at the kernels/ source line and the upstream function it "
                               "models",
                               v.name),
                   lines + "```\n");
  }
  return o;
}

std::string speed_section(const run_record& r) {
  std::string o = "\n### Speed\n\n| variant | cases | seconds in the runner | cases/s |\n|---|---:|---:|---:|\n";
  std::uint64_t runs = 0;
  for (const auto& v : r.variants) {
    const std::uint64_t n = v.passed + v.failed;
    runs += n;
    o += fmt::format("| `{}` | {} | {:.3f} | {} |\n", v.name, n, v.seconds,
                     format_number(v.seconds > 0 ? std::round(double(n) / v.seconds) : 0.0));
  }
  o += fmt::format("| whole run (generation, runners, bookkeeping) | {} | {:.3f} | {} |\n", runs, r.run_seconds,
                   format_number(r.run_seconds > 0 ? std::round(double(runs) / r.run_seconds) : 0.0));
  for (const auto& [k, v] : r.bench) o += fmt::format("\n- `{}`: {}", k, format_number(v));
  return r.bench.empty() ? o : o + '\n';
}

std::string probe_section(const merged_run& m, const std::string& heading, const env_lines& common_env,
                          const render_options& options) {
  const auto& r = m.record;
  std::string o = fmt::format("\n## {}\n\n", heading);
  if (!r.summary.empty()) o += "> " + md_escape(r.summary) + "\n\n";

  // The verdict in words, before any table.
  std::vector<std::string> said;
  for (std::size_t v = 0; v < r.variants.size(); ++v) {
    const auto c = failed_cases(r, v);
    const auto& var = r.variants[v];
    said.push_back(c.failed == 0 ? fmt::format("{} passes all {} cases", variant_label(var), c.total)
                                 : fmt::format("{} fails {} of {} cases", variant_label(var), c.failed, c.total));
  }
  o += fmt::format("**{}.** {}.\n\n", verdict_text(m, false), join(said, "; "));
  o += fmt::format("Expectation `{}`; fuzz: {} cases from seed {}; {}.\n",
                   probe::to_string(r.expect), r.fuzz, r.seed,
                   m.sources.empty()       ? std::string("this run")
                   : m.sources.size() == 1 ? std::string("one report")
                                           : fmt::format("{} shards merged", m.sources.size()));
  if (!r.broken.empty()) {
    o += "\nBroken expectations:\n\n";
    for (const auto& b : r.broken) o += "- " + md_escape(b) + '\n';
  }
  if (!m.problems.empty()) {
    o += "\nMerge problems (the shards do not add up to one run):\n\n";
    for (auto p : m.problems) {
      for (const auto& source : m.sources) {  // the problems name the reports as tileprobe-report was given them
        const auto shown = shown_source(source, options.report_dir);
        for (auto at = p.find(source); at != std::string::npos; at = p.find(source, at + shown.size()))
          p.replace(at, source.size(), shown);
      }
      o += "- " + md_escape(p) + '\n';
    }
  }

  o += "\n### Fail → pass by case source\n\nFailed / cases run.\n\n" + sources_table(r);
  o += "\n### Fail → pass by case group\n\n" + groups_table(r);
  if (!r.notes.empty()) {
    o += '\n';
    for (const auto& n : r.notes) o += "- " + md_escape(n) + '\n';
  }

  if (!r.counterexamples.empty()) {
    o += r.counterexamples.size() == 1 ? "\n### Shrunk counterexample\n" : "\n### Shrunk counterexamples\n";
    for (std::size_t i = 0; i < r.counterexamples.size(); ++i) {
      const auto& ce = r.counterexamples[i];
      // Two buggy variants that share the bug (upstream and the one with its fix reverted) usually shrink to the
      // same case with the same output; the second is named, not printed again.
      const auto same = std::find_if(r.counterexamples.begin(), r.counterexamples.begin() + std::ptrdiff_t(i),
                                     [&](const probe::counterexample& earlier) {
                                       return earlier.shrunk_id == ce.shrunk_id &&
                                              same_outcome(earlier.on_variant, ce.on_variant);
                                     });
      if (same != r.counterexamples.begin() + std::ptrdiff_t(i))
        o += fmt::format("\n`{}` fails the same shrunk case with the same output as `{}` above.\n", ce.variant,
                         same->variant);
      else
        o += '\n' + counterexample_section(m, ce, options.report_dir);
    }
  }
  o += metrics_section(r);
  o += coverage_section(r);
  o += evidence_section(r);
  if (options.bench) o += speed_section(r);

  o += "\n### Reproduce\n\nFrom the root of a clone, built with the default preset:\n\n```sh\n";
  for (const auto& c : m.commands) o += command_block(shown_words(shell_words(c), options.report_dir));
  o += "```\n";
  env_lines own;
  for (const auto& kv : r.environment)
    if (kv.first != "probe" && kv.first != "backend" &&
        std::find(common_env.begin(), common_env.end(), kv) == common_env.end())
      own.push_back(kv);
  if (!own.empty()) {
    std::string lines;
    for (const auto& [k, v] : own) lines += fmt::format("- {}: {}\n", md_escape(k), md_escape(v));
    o += collapsed("This run's own environment", lines);
  }
  std::vector<std::string> files;
  for (const auto& s : m.sources) files.push_back("`" + shown_source(s, options.report_dir) + "`");
  if (!files.empty())
    o += fmt::format("\n{}: {}\n", m.sources.size() == 1 ? "Report" : "Reports merged", join(files, ", "));
  return o;
}

std::string cell_of(const matrix_row& row, const std::string& probe_name) {
  auto it = row.exit_codes.find(probe_name);
  if (it == row.exit_codes.end()) return "-";
  switch (it->second) {
    case 0: return "pass";
    case 1: return "caught";
    case 77: return "n/a";
    default: return fmt::format("exit {}", it->second);
  }
}

std::string matrix_section(const mutation_matrix& matrix, int level) {
  const std::string h(std::size_t(level), '#');
  std::string o = "\nEach variant is run by each probe of its kernel family with `--expect pass`: **pass** (exit 0), "
                  "**caught** (exit 1), n/a (exit 77, backend not available: the row is not judged, which is a skip, "
                  "never a pass). `fixed` must pass every probe; a `fixed-minus-NNNN` variant (patch NNNN reverted) "
                  "and `upstream` must be caught by exactly the probes in bold; a `mutant-*` (a careless fix) by at "
                  "least the probes in bold, and by one probe at least. The bold ones are what "
                  "`patches/<family>/targets` declares.\n";
  if (!matrix.backend.empty() || !matrix.probe_args.empty())
    o += fmt::format("\nBackend: {}; every probe run also given: `{}`.\n",
                     matrix.backend.empty() ? "unknown" : matrix.backend,
                     matrix.probe_args.empty() ? "(nothing)" : join(matrix.probe_args, " "));
  // One table per kernel family, with that family's probes only: a probe never runs another family's variants.
  std::vector<std::string> families;
  for (const auto& row : matrix.rows)
    if (std::find(families.begin(), families.end(), row.family) == families.end()) families.push_back(row.family);
  for (const auto& family : families) {
    std::set<std::string> probes;
    for (const auto& row : matrix.rows)
      if (row.family == family)
        for (const auto& [p, code] : row.exit_codes) probes.insert(p);
    if (families.size() > 1 || !family.empty())
      o += fmt::format("\n{} Kernel family `{}`\n", h, family.empty() ? "(unnamed)" : family);
    o += "\n| variant | must be caught by |";
    for (const auto& p : probes) o += fmt::format(" {} |", p);
    o += " holds |\n|---|---|";
    for (std::size_t i = 0; i <= probes.size(); ++i) o += "---|";
    o += '\n';
    for (const auto& row : matrix.rows) {
      if (row.family != family) continue;
      const bool exact = row.kind == matrix_row::rule::exactly;
      const std::string want = exact ? (row.targets.empty() ? "no probe" : "exactly the bold ones")
                                     : (row.targets.empty() ? "any probe" : "at least the bold ones");
      const bool unjudged = std::any_of(row.exit_codes.begin(), row.exit_codes.end(),
                                        [](const auto& e) { return e.second == 77; });
      o += fmt::format("| {} | {} |", row.variant, want);
      for (const auto& p : probes) {
        const bool target = std::find(row.targets.begin(), row.targets.end(), p) != row.targets.end();
        const auto cell = cell_of(row, p);
        o += target ? fmt::format(" **{}** |", cell) : fmt::format(" {} |", cell);
      }
      o += row_holds(row) ? " yes |\n" : unjudged && matrix_problems({{row}, {}, {}, {}}).empty() ? " not judged |\n"
                                                                                              : " **NO** |\n";
    }
  }
  const auto problems = matrix_problems(matrix);
  if (!problems.empty()) {
    o += "\nRequirements broken:\n\n";
    for (const auto& p : problems) o += "- " + md_escape(p) + '\n';
  }
  return o;
}

}  // namespace

std::string wrap_text_line(const std::string& line, std::size_t width) { return wrap_line(line, width); }

std::vector<std::string> shell_words(std::string_view command) {
  std::vector<std::string> words;
  std::string word;
  bool in_word = false;
  for (std::size_t i = 0; i < command.size(); ++i) {
    const char c = command[i];
    if (c == '\'') {
      const auto end = command.find('\'', i + 1);
      word += command.substr(i + 1, (end == std::string_view::npos ? command.size() : end) - i - 1);
      i = end == std::string_view::npos ? command.size() : end;
      in_word = true;
    } else if (c == '\\' && i + 1 < command.size()) {
      word += command[++i];
      in_word = true;
    } else if (c == ' ' || c == '\t' || c == '\n') {
      if (in_word) words.push_back(std::move(word));
      word.clear();
      in_word = false;
    } else {
      word += c;
      in_word = true;
    }
  }
  if (in_word) words.push_back(std::move(word));
  return words;
}

std::string github_anchor(std::string_view heading) {
  std::string out;
  for (unsigned char c : heading) {
    if (std::isalnum(c)) out += char(std::tolower(c));
    else if (c == ' ' || c == '-') out += '-';
    else if (c == '_') out += '_';
    else if (c >= 0x80) out += char(c);  // GitHub keeps letters of other scripts; our headings have none
  }
  return out;
}

std::string readable_evidence(std::string line) {
  // The variant builder compiles each variant from its own patched copy of the tree, BUILD/<dir>/variants/<variant>/;
  // below that the path mirrors the source tree, which is what a reader can open.
  for (std::size_t at = line.find("/variants/"); at != std::string::npos; at = line.find("/variants/", at)) {
    const auto name_end = line.find('/', at + 10);
    std::size_t start = at;
    while (start > 0 && line[start - 1] != ' ' && line[start - 1] != '(') --start;
    if (name_end == std::string::npos || line[start] != '/') {
      at += 10;
      continue;
    }
    line.erase(start, name_end + 1 - start);
    at = start;
  }
  // `FILE:LINE (void ns::function(args...) [with T = ...])`, a compiler's pretty function name, shortens to
  // `FILE:LINE (function)`; anything that does not parse that way is left as it is.
  for (std::size_t open = line.find(" ("); open != std::string::npos; open = line.find(" (", open + 2)) {
    std::size_t digits = open;
    while (digits > 0 && std::isdigit(static_cast<unsigned char>(line[digits - 1]))) --digits;
    if (digits == open || digits == 0 || line[digits - 1] != ':') continue;
    int depth = 0;
    std::size_t close = open + 1, first_paren = std::string::npos;
    for (; close < line.size(); ++close) {
      if (line[close] == '(') {
        if (depth == 1 && first_paren == std::string::npos) first_paren = close;
        ++depth;
      } else if (line[close] == ')' && --depth == 0) {
        break;
      }
    }
    if (close >= line.size() || first_paren == std::string::npos) continue;
    std::size_t name_start = first_paren;
    while (name_start > open + 2 &&
           (std::isalnum(static_cast<unsigned char>(line[name_start - 1])) || line[name_start - 1] == '_'))
      --name_start;
    const std::string name = line.substr(name_start, first_paren - name_start);
    if (name.empty() || std::isdigit(static_cast<unsigned char>(name.front()))) continue;
    line.replace(open, close + 1 - open, " (" + name + ")");
  }
  return line;
}

namespace {
// The --compare-pair / --throughput section: one row per (probe, variant), both backends' values side by side, then
// the measured rates.
std::string comparison_body(const backend_comparison& c) {
  std::string o;
  if (!c.a.empty())
    o += c.problems.empty()
             ? fmt::format("Every probe run on both backends agrees, variant by variant: the same kernels computed the "
                           "same D (d_digest over the same d_digest_cases tiles, where the probe records them), the "
                           "same wrong rows (wrong_rows_digest, where recorded) and the same cases passed and failed.\n\n")
             : fmt::format("**{} disagreement(s)**:\n\n", c.problems.size());
  else if (!c.problems.empty())
    o += fmt::format("**{} problem(s)**:\n\n", c.problems.size());
  for (const auto& p : c.problems) o += "- " + md_escape(p) + '\n';
  if (!c.problems.empty()) o += '\n';
  if (!c.rows.empty()) {
    o += fmt::format("| probe | variant | what | {} | {} | |\n|---|---|---|---|---|---|\n", c.a, c.b);
    for (const auto& row : c.rows)
      for (const auto& cell : row.cells)
        o += fmt::format("| {} | `{}` | {} | {} | {} | {} |\n", row.probe, row.variant, cell.what, cell.on_a,
                         cell.on_b, cell.on_a == cell.on_b ? "equal" : "**DIFFERS**");
  }
  if (!c.rates.empty()) {
    if (!o.empty()) o += '\n';
    o += "Throughput measured in these runs. Case runs are cases x variants, each generated, run, checked against "
         "the oracle and judged; seconds are the reports' run_seconds (the slowest shard where shards ran side by "
         "side).\n\n| probe | backend | run | case runs/s | |\n|---|---|---|---:|---|\n";
    for (const auto& r : c.rates) {
      std::string note;
      if (r.vs_cpu_one_process) note = fmt::format("{:.1f}x the cpu run in one process", *r.vs_cpu_one_process);
      if (r.at_most)
        note += fmt::format("; at most {:.0f}x with free kernels on {} host thread(s) ({:.1f} us CPU per tile-case run "
                            "in the cpu run, {:.1f} us of it host work)",
                            *r.at_most, r.host_threads, *r.cpu_us_per_tile_case_run, *r.host_us_per_tile_case_run);
      o += fmt::format("| {} | {} | {} | {} | {} |\n", r.probe, r.backend, r.what,
                       format_number(std::round(r.case_runs_per_second)), md_escape(note));
    }
  }
  return o;
}
std::string comparison_section(const backend_comparison& c) {
  if (c.a.empty()) return c.rates.empty() && c.problems.empty() ? std::string() : "\n## Throughput\n\n" + comparison_body(c);
  return fmt::format("\n## Backends compared: {} and {}\n\n", c.a, c.b) + comparison_body(c);
}
}  // namespace

std::string render_document(const std::vector<merged_run>& runs, const mutation_matrix* matrix,
                            const backend_comparison* comparison, const render_options& options) {
  if (runs.empty() || !options.run_sections) {
    std::string o = !options.run_sections ? "" : matrix ? "# tileprobe mutation matrix\n" : "# tileprobe report\n";
    if (matrix) o += matrix_section(*matrix, 2);
    if (comparison) o += comparison_section(*comparison);
    return o;
  }

  // Headings (and so anchors) per run; the same probe on the same backend twice (other options) gets a number.
  std::vector<std::string> headings;
  std::map<std::string, int> seen;
  for (const auto& m : runs) {
    const auto base = m.record.probe + " on " + m.record.backend;
    const int n = ++seen[base];
    headings.push_back(n == 1 ? base : fmt::format("{} (run {})", base, n));
  }
  std::vector<std::string> backends;
  std::map<std::string, std::vector<const merged_run*>> by_backend;
  for (const auto& m : runs) {
    if (!by_backend.count(m.record.backend)) backends.push_back(m.record.backend);
    by_backend[m.record.backend].push_back(&m);
  }

  std::string o = "# tileprobe report\n\n";
  std::size_t shard_reports = 0;
  for (const auto& m : runs) shard_reports += std::max<std::size_t>(1, m.sources.size());
  o += fmt::format(
      "{} probe run{} on {}{}. Each probe runs the same cases on the **buggy** variant (the upstream code before the "
      "fix, or the fix series with one patch reverted) and on the **fixed** variant (the whole fix series), and "
      "checks every output against an independent CPU oracle. Counts are **failed cases / cases run**.\n\n",
      runs.size(), runs.size() == 1 ? "" : "s", join(backends, ", "),
      shard_reports == runs.size() ? "" : fmt::format(", merged from {} shard reports", shard_reports));

  // The backend column only when there is more than one backend (the sentence above names a single one).
  const bool backend_column = backends.size() > 1;
  o += backend_column ? "| probe | backend | buggy variant | fixed variant | verdict |\n|---|---|---|---|---|\n"
                      : "| probe | buggy variant | fixed variant | verdict |\n|---|---|---|---|\n";
  bool all_as_expected = true;
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const auto& m = runs[i];
    const auto& r = m.record;
    all_as_expected &= m.as_expected();
    std::vector<std::string> buggy, fixed;
    for (std::size_t v = 0; v < r.variants.size(); ++v) {
      const auto text = fmt::format("`{}` {}", r.variants[v].name, count_text(failed_cases(r, v)));
      (r.variants[v].role == variant_role::buggy ? buggy : fixed).push_back(text);
    }
    o += fmt::format("| [{}](#{}) |{} {} | {} | {} |\n", r.probe, github_anchor(headings[i]),
                     backend_column ? fmt::format(" {} |", r.backend) : std::string(),
                     buggy.empty() ? "-" : join(buggy, "<br>"), fixed.empty() ? "-" : join(fixed, "<br>"),
                     verdict_text(m, true));
  }
  o += fmt::format(
      "\n{} `fail-pass` means: the fixed variant passes every case; the buggy one fails at least one case of each kind "
      "the probe must catch (fixture: real-weight tiles; adversarial: inputs built to hit the bug; fuzz: seeded random "
      "inputs); control cases, which the bug cannot affect, pass on both.\n",
      all_as_expected ? "Every verdict is as expected." : "**Some verdicts are NOT as expected** (see the sections).");

  o += "\nWhere it ran:\n\n";
  std::map<std::string, env_lines> common;
  for (const auto& b : backends) {
    common[b] = common_environment(by_backend[b]);
    std::vector<std::string> parts;
    for (const auto& [k, v] : common[b]) parts.push_back(md_escape(k) + ": " + md_escape(v));
    o += fmt::format("- **{}**: {}\n", b, parts.empty() ? "(no environment recorded)" : join(parts, "; "));
  }
  o += "\nEach probe's section below holds the fail → pass tables by case source and group, the shrunk counterexample "
       "beside the fixed variant's output, metrics, coverage counters, hazard/unwritten-read evidence where the probe "
       "records it, and the command that reproduces the run.";
  if (matrix) {
    const auto problems = matrix_problems(*matrix);
    o += fmt::format(" The [mutation matrix](#mutation-matrix) runs every reverted patch and careless-fix mutant "
                     "through every probe: {}.",
                     problems.empty() ? fmt::format("all {} rows hold", matrix->rows.size())
                                      : fmt::format("**{} requirement(s) broken**", problems.size()));
  }
  o += '\n';

  for (std::size_t i = 0; i < runs.size(); ++i) o += probe_section(runs[i], headings[i], common[runs[i].record.backend], options);

  if (comparison) o += comparison_section(*comparison);
  if (matrix) o += "\n## Mutation matrix\n" + matrix_section(*matrix, 3);
  return o;
}

std::vector<std::string> split_document(const std::string& doc, std::size_t limit) {
  if (doc.size() <= limit) return {doc};
  // Room for the "Part i of n" line each part starts with. Sizes are bytes, which never undercount characters.
  constexpr std::size_t heading_room = 80;
  const std::size_t budget = limit > 2 * heading_room ? limit - heading_room : limit / 2 + 1;
  // Where a part may begin: at a line outside any code block or <details>, best at a "## " heading (a run's section),
  // else at a "### " heading, else at any such line.
  struct cut {
    std::size_t at;
    int rank;
  };
  std::vector<cut> cuts;
  bool fence = false;
  int details = 0;
  for (std::size_t pos = 0; pos < doc.size();) {
    const std::size_t end = std::min(doc.find('\n', pos), doc.size());
    const std::string_view line(doc.data() + pos, end - pos);
    if (!fence && details == 0 && pos > 0)
      cuts.push_back({pos, line.starts_with("## ") ? 2 : line.starts_with("### ") ? 1 : 0});
    if (line.starts_with("```")) fence = !fence;
    if (!fence) {
      if (line.find("<details>") != std::string_view::npos) ++details;
      if (line.find("</details>") != std::string_view::npos && details > 0) --details;
    }
    pos = end + 1;
  }
  std::vector<std::string> parts;
  std::size_t start = 0;
  while (doc.size() - start > budget) {
    std::size_t best = 0;
    for (int rank = 2; rank >= 0 && best == 0; --rank)
      for (const auto& c : cuts)
        if (c.at > start && c.at - start <= budget && c.rank >= rank && (rank == 0 || c.at - start >= budget / 2))
          best = c.at;
    if (best == 0) {  // one block longer than a part: cut at its last line that fits
      best = doc.rfind('\n', start + budget);
      best = best == std::string::npos || best <= start ? start + budget : best + 1;
    }
    parts.push_back(doc.substr(start, best - start));
    start = best;
  }
  parts.push_back(doc.substr(start));
  for (std::size_t i = 0; i < parts.size(); ++i)
    parts[i] = fmt::format("*Part {} of {}{}.*\n\n", i + 1, parts.size(),
                           i == 0 ? " (the document is longer than one comment)" : ", continued") +
               parts[i];
  return parts;
}

}  // namespace tp::report
