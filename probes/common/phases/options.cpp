// Phases 1-3: the command line checked before anything runs (every error one line, exit 2).
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <ostream>

#include "probes/common/phases/phases.h"

namespace tp::probe::phase {

namespace {

// --skew MASK:CYCLES: a hex warp mask (0x optional, nonzero) and a decimal spin count in clock cycles (nonzero).
std::optional<std::pair<unsigned, unsigned>> parse_skew(const std::string& s) {
  const auto colon = s.find(':');
  if (colon == std::string::npos || colon == 0 || colon + 1 == s.size()) return std::nullopt;
  std::string mask = s.substr(0, colon);
  const std::string cycles = s.substr(colon + 1);
  if (mask.size() > 2 && mask[0] == '0' && (mask[1] == 'x' || mask[1] == 'X')) mask = mask.substr(2);
  if (mask.empty() || mask.size() > 8 || mask.find_first_not_of("0123456789abcdefABCDEF") != std::string::npos)
    return std::nullopt;
  if (cycles.size() > 10 || cycles.find_first_not_of("0123456789") != std::string::npos) return std::nullopt;
  const unsigned long m = std::stoul(mask, nullptr, 16);
  const unsigned long long c = std::stoull(cycles);
  if (m == 0 || c == 0 || c > 0xFFFFFFFFull) return std::nullopt;
  return std::pair<unsigned, unsigned>{unsigned(m), unsigned(c)};
}

// A numeric option's value: decimal digits only (CLI11 2.1.2 would wrap "-1" to 2^64-1), within [lo, hi].
std::uint64_t bounded_count(const char* option, const std::string& s, std::uint64_t lo, std::uint64_t hi) {
  std::uint64_t v = 0;
  const auto r = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || r.ec != std::errc() || r.ptr != s.data() + s.size() || v < lo || v > hi)
    throw usage_error(std::string(option) + " '" + s + "': expected a whole number from " + std::to_string(lo) +
                      " to " + std::to_string(hi));
  return v;
}

bool on_path(const std::string& exe) {
  const char* path = std::getenv("PATH");
  const std::string p = path ? path : "";
  std::size_t start = 0;
  while (start <= p.size()) {
    std::size_t end = p.find(':', start);
    if (end == std::string::npos) end = p.size();
    const std::string dir = p.substr(start, end - start);
    if (!dir.empty() && access((dir + "/" + exe).c_str(), X_OK) == 0) return true;
    start = end + 1;
  }
  return false;
}

void check_fixtures(const raw_options& raw, const declaration& d, options& opt) {
  const auto words = split_list(raw.fixture);
  for (const auto& f : words) {
    if (f == "all") continue;
    if (!d.fixture_list.empty() && std::find(d.fixture_list.begin(), d.fixture_list.end(), f) == d.fixture_list.end()) {
      std::string known;
      for (const auto& k : d.fixture_list) known += (known.empty() ? "" : ", ") + k;
      throw usage_error("--fixture '" + f + "': no such fixture of this probe (known: " + known + ", or all)");
    }
    opt.fixtures.push_back(f);
  }
  if (std::find(words.begin(), words.end(), "all") != words.end() && !opt.fixtures.empty())
    throw usage_error("--fixture all and --fixture NAME contradict each other");
}

report_plan check_reports(const raw_options& raw) {
  report_plan plan;
  plan.colour = raw.colour;
  plan.junit_failing_only = raw.junit_failing_only;
  std::vector<report_format> formats;
  for (const auto& f : split_list(raw.report)) {
    const auto fmt = parse_report_format(f);
    if (std::find(formats.begin(), formats.end(), fmt) == formats.end()) formats.push_back(fmt);
  }
  if (formats.empty()) formats.push_back(report_format::text);
  const auto per_format = [&](report_format f) {
    const auto it = raw.out_per_format.find(f);
    return it == raw.out_per_format.end() ? std::string() : it->second;
  };
  for (auto f : formats) {
    if (!per_format(f).empty()) plan.destination[f] = per_format(f);
    else if (!raw.out.empty())
      plan.destination[f] = formats.size() == 1 ? raw.out : raw.out + "." + std::string(file_extension(f));
  }
  for (const auto& [f, path] : raw.out_per_format)
    if (!path.empty() && std::find(formats.begin(), formats.end(), f) == formats.end())
      throw usage_error("--out-" + std::string(to_string(f)) + " given but --report does not include " +
                        std::string(to_string(f)));
  for (auto f : formats)
    if (!plan.destination.count(f)) plan.to_stdout.push_back(f);
  if (plan.to_stdout.size() > 1)
    throw usage_error("several --report formats would go to stdout; give --out STEM or --out-<format> FILE");
  // Report paths are checked now and written after the run, so a run refused later (bad input) leaves no file.
  for (const auto& [f, path] : plan.destination) {
    const auto slash = path.rfind('/');
    const std::string dir = slash == std::string::npos ? "." : slash == 0 ? "/" : path.substr(0, slash);
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec) || access(dir.c_str(), W_OK) != 0 ||
        (std::filesystem::exists(path, ec) && access(path.c_str(), W_OK) != 0))
      throw usage_error("--out '" + path + "': cannot open the file for writing");
  }
  return plan;
}

}  // namespace

std::vector<std::string> split_list(const std::vector<std::string>& items) {
  std::vector<std::string> out;
  for (const auto& item : items)
    for (std::size_t start = 0; start <= item.size();) {
      const auto comma = std::min(item.find(',', start), item.size());
      if (comma > start) out.push_back(item.substr(start, comma - start));
      start = comma + 1;
    }
  return out;
}

void check_target(const raw_options& raw, options& opt) {
  opt.backend = raw.backend;
  if (opt.backend != "cpu" && opt.backend != "cuda" && opt.backend != "hip")
    throw usage_error("--backend '" + opt.backend + "': unknown backend (expected cpu, cuda or hip)");
  if (raw.colour != "auto" && raw.colour != "always" && raw.colour != "never")
    throw usage_error("--color '" + raw.colour + "': expected auto, always or never");
  if (!raw.skew.empty()) {
    opt.skew = parse_skew(raw.skew);
    if (!opt.skew)
      throw usage_error("--skew '" + raw.skew +
                        "': expected MASK:CYCLES, a nonzero hex warp mask and a nonzero 32-bit cycle count "
                        "(e.g. 0x5:20000)");
    if (opt.backend == "cpu")
      throw usage_error("--skew is for --backend cuda; the CPU backend orders warps by its scheduling policies "
                        "instead (in_order, reverse, random, adversarial: the sched= field of a case id, chosen with "
                        "--case, e.g. --case '*sched=adversarial*')");
    if (opt.backend != "cuda") throw usage_error("--skew is for --backend cuda only (no skew point on " + opt.backend + ")");
  }
  opt.sanitize = raw.sanitize;
  if (!opt.sanitize.empty()) {
    if (opt.sanitize != "racecheck" && opt.sanitize != "initcheck" && opt.sanitize != "memcheck" &&
        opt.sanitize != "synccheck")
      throw usage_error("--sanitize '" + opt.sanitize + "': expected racecheck, initcheck, memcheck or synccheck");
    if (opt.backend != "cuda")
      throw usage_error("--sanitize runs NVIDIA compute-sanitizer: only with --backend cuda (on cpu the emulator's "
                        "hazard detector and written-bit tracking give this evidence)");
    if (!on_path("compute-sanitizer"))
      throw usage_error("--sanitize " + opt.sanitize +
                        ": compute-sanitizer is not on PATH (it ships in the CUDA toolkit's bin/)");
  }
  opt.list_cases = raw.list_cases;
  opt.list_variants = raw.list_variants;
  opt.bench = raw.bench;
  opt.shrink = raw.shrink;
}

int list_variants(const std::vector<registered_variant>& registry, const std::string& family,
                  const std::string& backend, std::ostream& out) {
  std::vector<std::string> listed;
  for (const auto& v : registry)
    if (v.backend == backend && std::find(listed.begin(), listed.end(), v.name) == listed.end())
      listed.push_back(v.name);
  if (listed.empty())
    throw backend_unavailable("no variant of kernel family '" + family + "' is built for backend " + backend);
  for (const auto& n : listed) out << n << '\n';
  out.flush();
  return 0;
}

report_plan check_run_options(const raw_options& raw, const declaration& d, options& opt) {
  if (const auto e = parse_name<expect_mode>(raw.expect)) opt.expect = *e;
  else throw usage_error("--expect '" + raw.expect + "': expected fail-pass, pass or fail");
  opt.shard = parse_shard(raw.shard);
  opt.fuzz = raw.was_given("--fuzz") ? bounded_count("--fuzz", raw.fuzz, 0, 1000000000) : d.fuzz_default;
  opt.jobs = unsigned(bounded_count("--jobs", raw.jobs, 1, 1024));
  if (!raw.batch.empty()) opt.batch = std::size_t(bounded_count("--batch", raw.batch, 1, std::uint64_t{1} << 24));
  opt.shrink_budget = unsigned(bounded_count("--shrink-budget", raw.shrink_budget, 0, 1000000));
  if (!opt.shrink && raw.was_given("--shrink-budget"))
    throw usage_error("--shrink-budget and --no-shrink contradict each other (the budget is for shrinking)");
  opt.seed = d.seed_default;
  if (!raw.seed.empty()) {
    auto s = parse_seed(raw.seed);
    if (!s) throw usage_error("--seed '" + raw.seed + "': not a 64-bit decimal or 0x-hex number");
    opt.seed = *s;
  }
  // An empty filter is a substring of every id: a script's unset variable would run everything and look like a
  // rerun of one case.
  for (const auto& f : raw.case_filters)
    if (f.empty())
      throw usage_error("--case '': an empty filter would select every case (give an id, a glob or a substring; "
                        "leave --case out to run them all)");
  opt.case_filters = raw.case_filters;
  check_fixtures(raw, d, opt);
  opt.input = raw.input;
  if (!opt.input.empty()) {
    for (const char* other : {"--fuzz", "--seed", "--fixture"})
      if (raw.was_given(other))
        throw usage_error(std::string("--input and ") + other + " contradict each other (an --input run runs the " +
                          "file's cases only)");
    if (opt.input != input_stdin && !std::ifstream(opt.input))
      throw usage_error("--input '" + opt.input + "': cannot open the file");
  }
  return check_reports(raw);
}

std::string report_plan::input_stem() const {
  if (destination.empty()) return {};
  const std::string& first = destination.begin()->second;
  const auto dot = first.rfind('.'), slash = first.rfind('/');
  return dot != std::string::npos && (slash == std::string::npos || dot > slash) ? first.substr(0, dot) : first;
}

}  // namespace tp::probe::phase
