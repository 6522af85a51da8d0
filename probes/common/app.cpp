#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <functional>
#include <new>
#include <tuple>
#include <optional>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <set>
#include <unordered_set>

#include <CLI/CLI.hpp>

#ifndef TP_BIN_DIR
#define TP_BIN_DIR ""
#endif
#ifndef TP_BIN_RELATIVE
#define TP_BIN_RELATIVE ""
#endif
#include <fmt/format.h>

#include "probes/common/cli.h"
#include "probes/common/markdown.h"
#include "probes/common/probe.h"
#include "probes/common/report.h"
#include "probes/common/parallel.h"
#include "probes/common/run.h"

namespace tp::probe {

namespace {

// How to get a backend that this executable was built without (the presets in CMakePresets.json).
std::string build_hint(std::string_view backend) {
  if (backend == "hip")
    return "build the hip preset: cmake --preset hip && cmake --build --preset hip (README: On an AMD card)";
  if (backend == "cuda") return "build the cuda preset: cmake --preset cuda && cmake --build --preset cuda";
  return "no preset builds backend '" + std::string(backend) + "'";
}

using clock_type = std::chrono::steady_clock;

std::vector<std::string> split_list(const std::vector<std::string>& items) {
  std::vector<std::string> out;
  for (const auto& item : items) {
    std::size_t start = 0;
    while (start <= item.size()) {
      const auto comma = item.find(',', start);
      std::string part = item.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
      if (!part.empty()) out.push_back(part);
      if (comma == std::string::npos) break;
      start = comma + 1;
    }
  }
  return out;
}

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

// The command line without --sanitize (both `--sanitize T` and `--sanitize=T`), with argv[0] made absolute so
// compute-sanitizer finds the same executable however it was started.
std::vector<std::string> without_sanitize(const std::vector<std::string>& argv) {
  std::vector<std::string> out;
  for (std::size_t i = 0; i < argv.size(); ++i) {
    if (argv[i] == "--sanitize") {
      ++i;
      continue;
    }
    if (argv[i].rfind("--sanitize=", 0) == 0) continue;
    out.push_back(argv[i]);
  }
  if (!out.empty()) {
    char self[4096];
    const ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n > 0) out[0].assign(self, std::size_t(n));
  }
  return out;
}

// A one-line progress indicator on stderr, only when stderr is a terminal and the run has taken over a second: a bar,
// case runs done of the estimate, elapsed time and the time left at the rate so far. finish() clears it, before any
// report is printed.
class progress {
 public:
  explicit progress(bool enabled) : enabled_(enabled), start_(clock_type::now()), last_(start_) {}
  void update(std::string_view what, std::size_t done, std::size_t total) {
    if (!enabled_) return;
    const auto now = clock_type::now();
    if (now - start_ < std::chrono::seconds(1) || now - last_ < std::chrono::milliseconds(100)) return;
    last_ = now;
    shown_ = true;
    const int width = 30;
    const int filled = total ? int(double(done) / double(total) * width) : width;
    const double elapsed = std::chrono::duration<double>(now - start_).count();
    const double left = done ? elapsed * double(total - std::min(done, total)) / double(done) : 0.0;
    std::fprintf(stderr, "\r[%.*s%*s] %zu/%zu %s elapsed, %s left  %.*s\x1b[K", filled,
                 "##############################", width - filled, "", done, total, clock_text(elapsed).c_str(),
                 clock_text(left).c_str(), int(what.size()), what.data());
    std::fflush(stderr);
  }
  void finish() {
    if (shown_) std::fputs("\r\x1b[K", stderr);
    std::fflush(stderr);
    shown_ = false;
    enabled_ = false;
  }
  ~progress() { finish(); }

 private:
  static std::string clock_text(double seconds) {
    const auto s = static_cast<long long>(seconds + 0.5);
    return s >= 3600 ? fmt::format("{}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60)
                     : fmt::format("{}:{:02}", s / 60, s % 60);
  }
  bool enabled_, shown_ = false;
  clock_type::time_point start_, last_;
};

// --color=auto|always|never; auto (the default): colour when stdout is a terminal and NO_COLOR is unset or empty
// (https://no-color.org).
bool use_colour(const std::string& mode, bool tty) {
  if (mode == "always") return true;
  if (mode == "never") return false;
  const char* no_color = std::getenv("NO_COLOR");
  return tty && !(no_color && *no_color);
}

// The executable as the reports name it: relative to a clone's root (build/default/bin/probe-X) when it is this
// build's own bin/ copy, so a reader can paste the line in their clone; otherwise as it was invoked.
std::string reported_executable(const std::string& argv0) {
  const std::string bin_dir = TP_BIN_DIR, relative = TP_BIN_RELATIVE;
  char self[4096];
  const ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  if (bin_dir.empty() || n <= 0) return argv0;
  const std::filesystem::path exe(std::string(self, std::size_t(n)));
  std::error_code ec;
  if (!std::filesystem::equivalent(exe.parent_path(), bin_dir, ec)) return argv0;
  return relative + "/" + exe.filename().string();
}
}  // namespace

struct app::impl {
  std::string name, summary, family;
  std::string default_variant_list = "upstream,fixed";
  std::vector<std::string> buggy_default{"upstream"}, fixed_default{"fixed"};
  std::set<source_kind> must_catch{source_kind::fixture, source_kind::adversarial};
  std::uint64_t fuzz_default = 0, seed_default = 1;
  std::size_t batch = 256;
  std::vector<std::pair<std::string, std::string>> extra_env;
  std::vector<std::pair<source_kind, source_fn>> sources;
  fuzz_fn fuzz;
  input_fn input;
  runner_fn runner;
  batch_runner_fn batch_runner;
  shrink_fn shrinker;
  parent_fn parent_of;
  before_run_fn before;
  input_text_fn input_text;
  std::vector<std::string> fixture_list;
  notes_fn notes;
  bench_figures_fn bench_figures;
  variant_provider provider;
  backend_hooks hooks;
  bool provider_set = false, hooks_set = false;
  backend_hooks hooks_used;  // the run's hooks (injected or simt's), for outcome_of_batch

  CLI::App cli;
  options opt;
  // Raw option values, interpreted after parsing so every error is one clear line.
  std::vector<std::string> variant_arg, buggy_arg, fixed_arg, fixture_arg, report_arg;
  std::string expect_arg = "fail-pass", shard_arg = "1/1", seed_arg, out_arg, skew_arg;
  std::string fuzz_arg, jobs_arg = "1", batch_arg, shrink_budget_arg = "200", colour_arg = "auto";
  bool junit_failing_only = false;
  std::map<report_format, std::string> out_per_format;
  bool fuzz_given = false;

  impl(std::string n, std::string s) : name(std::move(n)), summary(std::move(s)), cli(summary, name) {}

  void add_common_options();
  void add_probe_options();
  bool given(const char* option) const;  // on the command line (false for an option this probe does not offer)
  bool skew_points = false;
  void outcome_of_batch(std::span<const case_def* const> cases, const variant& v, std::span<outcome> out);
  std::string case_error_or_rethrow(const std::exception& e) const;
  outcome run_one(const case_def& c, const variant& v) {
    const case_def* p = &c;
    outcome o;
    outcome_of_batch(std::span<const case_def* const>(&p, 1), v, std::span<outcome>(&o, 1));
    return o;
  }
  int run(int argc, char** argv);
};

app::app(std::string name, std::string summary) : impl_(std::make_unique<impl>(std::move(name), std::move(summary))) {
  impl_->add_common_options();
}
app::~app() = default;

app& app::family(std::string f) { impl_->family = std::move(f); return *this; }
app& app::default_variants(std::string list) { impl_->default_variant_list = std::move(list); return *this; }
app& app::buggy(std::initializer_list<std::string_view> names) {
  impl_->buggy_default.assign(names.begin(), names.end());
  return *this;
}
app& app::fixed(std::initializer_list<std::string_view> names) {
  impl_->fixed_default.assign(names.begin(), names.end());
  return *this;
}
app& app::must_catch(std::initializer_list<source_kind> kinds) {
  impl_->must_catch = std::set<source_kind>(kinds);
  return *this;
}
app& app::default_fuzz(std::uint64_t n, std::uint64_t seed) {
  impl_->fuzz_default = n;
  impl_->seed_default = seed;
  return *this;
}
app& app::batch_size(std::size_t n) { impl_->batch = std::max<std::size_t>(1, n); return *this; }
app& app::env(std::string key, std::string value) {
  impl_->extra_env.emplace_back(std::move(key), std::move(value));
  return *this;
}
app& app::source(source_kind kind, source_fn fn) { impl_->sources.emplace_back(kind, std::move(fn)); return *this; }
app& app::fuzz(fuzz_fn fn) { impl_->fuzz = std::move(fn); return *this; }
app& app::input(input_fn fn) { impl_->input = std::move(fn); return *this; }
app& app::runner(runner_fn fn) { impl_->runner = std::move(fn); return *this; }
app& app::batch_runner(batch_runner_fn fn) { impl_->batch_runner = std::move(fn); return *this; }
app& app::shrinker(shrink_fn fn) { impl_->shrinker = std::move(fn); return *this; }
app& app::notes(notes_fn fn) { impl_->notes = std::move(fn); return *this; }
app& app::bench_figures(bench_figures_fn fn) { impl_->bench_figures = std::move(fn); return *this; }
app& app::before_run(before_run_fn fn) { impl_->before = std::move(fn); return *this; }
app& app::shrunk_parent(parent_fn fn) { impl_->parent_of = std::move(fn); return *this; }
app& app::input_text(input_text_fn fn) { impl_->input_text = std::move(fn); return *this; }
app& app::skew_points() { impl_->skew_points = true; return *this; }
app& app::fixture_names(std::vector<std::string> names) { impl_->fixture_list = std::move(names); return *this; }
const std::string& app::name() const { return impl_->name; }
CLI::App& app::cli() { return impl_->cli; }
const options& app::opts() const { return impl_->opt; }
app& app::use_variant_provider(variant_provider p) {
  impl_->provider = std::move(p);
  impl_->provider_set = true;
  return *this;
}
app& app::use_backend_hooks(backend_hooks h) {
  impl_->hooks = std::move(h);
  impl_->hooks_set = true;
  return *this;
}

void app::impl::add_common_options() {
  cli.add_option("--backend", opt.backend, "where the kernels run: cpu, cuda or hip")->capture_default_str();
  cli.add_option("--variant", variant_arg, "comma list of variants, or `all` (default given by the probe)");
  cli.add_option("--buggy", buggy_arg, "variants expected to fail (overrides the probe's declaration)");
  cli.add_option("--fixed", fixed_arg, "variants expected to pass (overrides the probe's declaration)");
  cli.add_option("--expect", expect_arg, "fail-pass, pass or fail")->capture_default_str();
  cli.add_option("--case", opt.case_filters, "run the case with this id, or ids matching a glob/substring; repeatable");
  cli.add_option("--report", report_arg, "text, md, json, junit; repeatable or comma list (default text)");
  cli.add_option("--out", out_arg,
                 "report file; with several formats, a stem: STEM.txt, STEM.md, STEM.json, STEM.xml");
  cli.add_option("--out-text", out_per_format[report_format::text], "text report file");
  cli.add_option("--out-md", out_per_format[report_format::md], "Markdown report file");
  cli.add_option("--out-json", out_per_format[report_format::json], "JSON report file");
  cli.add_option("--out-junit", out_per_format[report_format::junit], "JUnit XML report file");
  cli.add_flag("--junit-failing-only", junit_failing_only,
               "JUnit: list only the testcases that break an expectation (and one for the unlisted rest)");
  cli.add_option("--color", colour_arg,
                 "auto (colour on a terminal unless NO_COLOR is set), always or never: the text report's colours")
      ->capture_default_str();
  add_version_flag(cli, version_line(name));
  cli.add_option("--shard", shard_arg, "run shard I of N (1 <= I <= N)")->capture_default_str();
  cli.add_flag("--list-cases", opt.list_cases, "print the selected case ids and exit");
  cli.add_flag("--list-variants", opt.list_variants,
               "print the variants of the probe's kernel family built for --backend, one per line, and exit");
  cli.add_flag("--bench", opt.bench, "measure and print cases/s per variant");
  cli.add_option("--jobs", jobs_arg,
                 "host threads for the per-case host work of a batch: the probe's (generation, oracle, judging) where "
                 "it supports it, and the framework's bookkeeping; launches stay on one thread; 1..1024")
      ->type_name("N")
      ->capture_default_str();
  cli.add_option("--batch", batch_arg,
                 "cases per batch, 1..16777216 (default: the probe's own); larger batches mean fewer, larger launches "
                 "on a GPU")
      ->type_name("N");
  cli.add_option("--sanitize", opt.sanitize,
                 "CUDA only: re-run this command under compute-sanitizer: racecheck, initcheck, memcheck or synccheck");
}

// The options that exist only where the probe registered what they act on (a fixture list, a fuzz generator, an input
// parser, a shrinker, kernels with skew points): added when the run starts, after the probe's registrations, so no
// probe's --help offers an option it does not honour.
void app::impl::add_probe_options() {
  const bool fixtures = !fixture_list.empty(), fuzzes = bool(fuzz), inputs = bool(input);
  if (fixtures || fuzzes || inputs) {
    auto& g = *cli.add_option_group("Case sources", "the sources of cases this probe has besides its own tables");
    if (fixtures)
      g.add_option("--fixture", fixture_arg, "fixture name, repeatable or comma list; `all` (default) = every fixture");
    if (fuzzes) {
      g.add_option("--fuzz", fuzz_arg, "number of seeded fuzz cases, 0..1000000000 (memory does not grow with it)")
          ->type_name("N");
      g.add_option("--seed", seed_arg, "base seed of the fuzz cases: 64-bit, decimal or 0x-hex")->type_name("S");
    }
    if (inputs)
      g.add_option("--input", opt.input,
                   "run only the case(s) FILE holds, written in the tileprobe-input v1 format (probes/common/"
                   "README.md; the probe's README has an example); a shrunk counterexample's .tpin file is one")
          ->type_name("FILE");
  }
  if (shrinker) {
    auto& g = *cli.add_option_group("Shrinking", "how a failing case is reduced to a smaller one that still fails");
    g.add_flag("!--no-shrink", opt.shrink, "do not shrink failures");
    g.add_option("--shrink-budget", shrink_budget_arg, "candidate runs per shrunk failure, 0..1000000")
        ->type_name("N")
        ->capture_default_str();
  }
  if (skew_points)
    cli.add_option_group("Races on CUDA", "this probe's kernels have skew points (tp::skew_point)")
        ->add_option("--skew", skew_arg,
                     "CUDA only: MASK:CYCLES, spin the warps whose bit is set in the hex MASK (bit w%32 for warp w) "
                     "for CYCLES clock cycles at every skew point of the kernels, to make races show")
        ->type_name("MASK:CYCLES");
}

bool app::impl::given(const char* option) const {
  const auto* o = cli.get_option_no_throw(option);
  return o && o->count() > 0;
}

// An exception from a runner either ends the whole run (bad usage, no backend, an internal failure, which includes
// an error the backend's `internal` hook recognises, such as a simulator stop, and running out of memory: exits 2, 77
// and 3) or is the case's own error, which fails the case(s) it came from. Called inside a catch block: rethrows the
// first kind, returns the message of the second.
std::string app::impl::case_error_or_rethrow(const std::exception& e) const {
  if (dynamic_cast<const usage_error*>(&e) || dynamic_cast<const backend_unavailable*>(&e) ||
      dynamic_cast<const internal_error*>(&e) || dynamic_cast<const std::bad_alloc*>(&e))
    throw;
  if (hooks_used.internal && hooks_used.internal(e)) throw internal_error(e.what());
  return e.what();
}

void app::impl::outcome_of_batch(std::span<const case_def* const> cases, const variant& v, std::span<outcome> out) {
  try {
    if (batch_runner) {
      batch_runner(cases, v, out);
    } else {
      for (std::size_t i = 0; i < cases.size(); ++i) {
        try {
          out[i] = runner(*cases[i], v);
        } catch (const std::exception& e) {
          const auto error = case_error_or_rethrow(e);
          out[i] = outcome{};
          out[i].error = error;
        }
      }
    }
  } catch (const std::exception& e) {
    const auto error = case_error_or_rethrow(e);
    // A batch shares one launch, so one error fails every case of the batch.
    for (auto& o : out) {
      o = outcome{};
      o.error = error;
    }
  }
  for (auto& o : out)
    if (!o.error.empty()) o.pass = false;
}

namespace {
// Messages can carry what a hostile file held (a name with a newline, a NUL): the error stays one printable line.
std::string one_line(std::string_view s) {
  std::string out;
  for (unsigned char c : s) out += c == '\n' || c == '\r' || c == '\t' ? ' ' : c < 0x20 || c == 0x7f ? '?' : char(c);
  return out;
}
}  // namespace

int app::main(int argc, char** argv) {
  try {
    return impl_->run(argc, argv);
  } catch (const usage_error& e) {
    std::cerr << impl_->name << ": " << one_line(e.what()) << '\n';
    return 2;
  } catch (const backend_unavailable& e) {
    std::cerr << impl_->name << ": " << one_line(e.what()) << '\n';
    return 77;
  } catch (const internal_error& e) {
    std::cerr << impl_->name << ": internal error: " << one_line(e.what()) << '\n';
    return 3;
  } catch (const std::bad_alloc&) {
    std::cerr << impl_->name << ": internal error: out of memory\n";
    return 3;
  } catch (const std::logic_error& e) {
    std::cerr << impl_->name << ": internal error: probe defect: " << one_line(e.what()) << '\n';
    return 3;
  } catch (const std::exception& e) {
    // A device call outside any case (setting the skew) failed: the run did not happen as asked.
    std::cerr << impl_->name << ": internal error: " << one_line(e.what()) << '\n';
    return 3;
  }
}

int app::impl::run(int argc, char** argv) {
  for (int i = 0; i < argc; ++i) opt.command_line.emplace_back(argv[i]);
  add_probe_options();
  if (const auto stop = parse_command_line(cli, argc, argv)) {
    if (stop->usage_error.empty()) return stop->exit_code;
    throw usage_error(stop->usage_error);
  }
  if (!runner && !batch_runner) throw std::logic_error("no runner registered");
  if (family.empty()) throw std::logic_error("no kernel family declared");

  // Usage checks first: nothing runs unless the whole command line makes sense.
  if (opt.backend != "cpu" && opt.backend != "cuda" && opt.backend != "hip")
    throw usage_error("--backend '" + opt.backend + "': unknown backend (expected cpu, cuda or hip)");
  if (colour_arg != "auto" && colour_arg != "always" && colour_arg != "never")
    throw usage_error("--color '" + colour_arg + "': expected auto, always or never");
  if (!skew_arg.empty()) {
    opt.skew = parse_skew(skew_arg);
    if (!opt.skew)
      throw usage_error("--skew '" + skew_arg +
                        "': expected MASK:CYCLES, a nonzero hex warp mask and a nonzero 32-bit cycle count "
                        "(e.g. 0x5:20000)");
    if (opt.backend == "cpu")
      throw usage_error("--skew is for --backend cuda; the CPU backend orders warps by its scheduling policies "
                        "instead (in_order, reverse, random, adversarial: the sched= field of a case id, chosen with "
                        "--case, e.g. --case '*sched=adversarial*')");
    if (opt.backend != "cuda") throw usage_error("--skew is for --backend cuda only (no skew point on " + opt.backend + ")");
  }
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
  if (opt.list_variants) {
    // Scripts enumerate variants with this (ci/mutation-matrix), so it depends on nothing but --backend.
    const auto registry = provider_set ? provider(family) : default_variant_provider()(family);
    std::vector<std::string> listed;
    for (const auto& v : registry)
      if (v.backend == opt.backend && std::find(listed.begin(), listed.end(), v.name) == listed.end())
        listed.push_back(v.name);
    if (listed.empty())
      throw backend_unavailable("no variant of kernel family '" + family + "' is built for backend " + opt.backend);
    for (const auto& n : listed) std::cout << n << '\n';
    std::cout.flush();
    return 0;
  }
  if (const auto e = parse_name<expect_mode>(expect_arg)) opt.expect = *e;
  else throw usage_error("--expect '" + expect_arg + "': expected fail-pass, pass or fail");
  opt.shard = parse_shard(shard_arg);
  fuzz_given = given("--fuzz");
  opt.fuzz = fuzz_given ? bounded_count("--fuzz", fuzz_arg, 0, 1000000000) : fuzz_default;
  opt.jobs = unsigned(bounded_count("--jobs", jobs_arg, 1, 1024));
  if (!batch_arg.empty()) opt.batch = std::size_t(bounded_count("--batch", batch_arg, 1, std::uint64_t{1} << 24));
  opt.shrink_budget = unsigned(bounded_count("--shrink-budget", shrink_budget_arg, 0, 1000000));
  if (!opt.shrink && given("--shrink-budget"))
    throw usage_error("--shrink-budget and --no-shrink contradict each other (the budget is for shrinking)");
  opt.seed = seed_default;
  if (!seed_arg.empty()) {
    auto s = parse_seed(seed_arg);
    if (!s) throw usage_error("--seed '" + seed_arg + "': not a 64-bit decimal or 0x-hex number");
    opt.seed = *s;
  }
  const auto fixture_words = split_list(fixture_arg);
  for (const auto& f : fixture_words) {
    if (f == "all") continue;
    if (!fixture_list.empty() && std::find(fixture_list.begin(), fixture_list.end(), f) == fixture_list.end()) {
      std::string known;
      for (const auto& k : fixture_list) known += (known.empty() ? "" : ", ") + k;
      throw usage_error("--fixture '" + f + "': no such fixture of this probe (known: " + known + ", or all)");
    }
    opt.fixtures.push_back(f);
  }
  if (std::find(fixture_words.begin(), fixture_words.end(), "all") != fixture_words.end() && !opt.fixtures.empty())
    throw usage_error("--fixture all and --fixture NAME contradict each other");
  if (!opt.input.empty()) {
    for (const char* other : {"--fuzz", "--seed", "--fixture"})
      if (given(other))
        throw usage_error(std::string("--input and ") + other + " contradict each other (an --input run runs the " +
                          "file's cases only)");
    std::ifstream probe_file(opt.input);
    if (!probe_file) throw usage_error("--input '" + opt.input + "': cannot open the file");
  }

  std::vector<report_format> formats;
  for (const auto& f : split_list(report_arg)) {
    const auto fmt = parse_report_format(f);
    if (std::find(formats.begin(), formats.end(), fmt) == formats.end()) formats.push_back(fmt);
  }
  if (formats.empty()) formats.push_back(report_format::text);
  std::map<report_format, std::string> destination;
  for (auto f : formats) {
    if (!out_per_format[f].empty()) destination[f] = out_per_format[f];
    else if (!out_arg.empty())
      destination[f] = formats.size() == 1 ? out_arg : out_arg + "." + std::string(file_extension(f));
  }
  for (const auto& [f, path] : out_per_format)
    if (!path.empty() && std::find(formats.begin(), formats.end(), f) == formats.end())
      throw usage_error("--out-" + std::string(to_string(f)) + " given but --report does not include " +
                        std::string(to_string(f)));
  std::vector<report_format> to_stdout;
  for (auto f : formats)
    if (!destination.count(f)) to_stdout.push_back(f);
  if (to_stdout.size() > 1)
    throw usage_error("several --report formats would go to stdout; give --out STEM or --out-<format> FILE");
  // Report paths are checked now and written after the run, so a run refused later (bad input) leaves no file.
  for (const auto& [f, path] : destination) {
    const auto slash = path.rfind('/');
    const std::string dir = slash == std::string::npos ? "." : slash == 0 ? "/" : path.substr(0, slash);
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec) || access(dir.c_str(), W_OK) != 0 ||
        (std::filesystem::exists(path, ec) && access(path.c_str(), W_OK) != 0))
      throw usage_error("--out '" + path + "': cannot open the file for writing");
  }

  // Variants: from the registry, on the chosen backend.
  const auto registry = provider_set ? provider(family) : default_variant_provider()(family);
  const auto hook = hooks_set ? hooks : default_backend_hooks();
  hooks_used = hook;
  std::vector<registered_variant> on_backend;
  std::set<std::string> other_backends;
  for (const auto& v : registry) {
    if (v.backend == opt.backend) on_backend.push_back(v);
    else other_backends.insert(v.backend);
  }
  if (on_backend.empty()) {
    if (registry.empty())
      throw backend_unavailable("no variant of kernel family '" + family + "' is registered in this executable");
    std::string built;
    for (const auto& b : other_backends) built += (built.empty() ? "" : ", ") + b;
    throw backend_unavailable("backend " + opt.backend + " is not built into this probe (built: " + built + "); " +
                              build_hint(opt.backend));
  }
  const auto find_registered = [&](const std::string& n) -> const registered_variant* {
    for (const auto& v : on_backend)
      if (v.name == n) return &v;
    return nullptr;
  };
  const auto known_list = [&] {
    std::string s;
    for (const auto& v : on_backend) s += (s.empty() ? "" : ", ") + v.name;
    return s;
  };
  std::vector<std::string> wanted = split_list(variant_arg.empty() ? std::vector<std::string>{default_variant_list}
                                                                   : variant_arg);
  std::vector<std::string> names;
  for (const auto& w : wanted) {
    if (w == "all") {
      for (const auto& v : on_backend)
        if (std::find(names.begin(), names.end(), v.name) == names.end()) names.push_back(v.name);
      continue;
    }
    if (!find_registered(w))
      throw usage_error("--variant '" + w + "': no such variant of " + family + " on " + opt.backend +
                        " (known: " + known_list() + ")");
    if (std::find(names.begin(), names.end(), w) == names.end()) names.push_back(w);
  }
  if (names.empty()) throw usage_error("--variant selects no variant");
  opt.variants = names;
  const auto buggy_names = buggy_arg.empty() ? buggy_default : split_list(buggy_arg);
  const auto fixed_names = fixed_arg.empty() ? fixed_default : split_list(fixed_arg);
  for (const auto& b : buggy_names)
    if (std::find(fixed_names.begin(), fixed_names.end(), b) != fixed_names.end())
      throw usage_error("variant '" + b + "' is declared both buggy and fixed");
  for (const auto* list : {&buggy_arg, &fixed_arg})
    for (const auto& n : split_list(*list))
      if (!find_registered(n))
        throw usage_error("--buggy/--fixed '" + n + "': no such variant of " + family + " on " + opt.backend +
                          " (known: " + known_list() + ")");

  std::vector<variant> selected;
  for (const auto& n : names) {
    const auto* reg = find_registered(n);
    variant v{reg->name, reg->backend, reg->ops, variant_role::other};
    if (std::find(buggy_names.begin(), buggy_names.end(), n) != buggy_names.end()) v.role = variant_role::buggy;
    if (std::find(fixed_names.begin(), fixed_names.end(), n) != fixed_names.end()) v.role = variant_role::fixed;
    selected.push_back(v);
  }
  if (!hook.available || !hook.available(opt.backend))
    throw backend_unavailable("backend " + opt.backend + " is not available on this machine: " +
                              (hook.device_name ? hook.device_name(opt.backend) : "no device or driver"));
  if (!opt.sanitize.empty()) {
    if (!hook.run_under_sanitizer) throw usage_error("--sanitize: this probe was built without the CUDA backend");
    // Does not return when it execs; the child runs the same command without --sanitize.
    hook.run_under_sanitizer(opt.sanitize, without_sanitize(opt.command_line));
  }
  if (opt.skew) {
    if (!hook.set_skew) throw usage_error("--skew: this probe was built without the CUDA backend");
    hook.set_skew(opt.skew->first, opt.skew->second);
  }

  // Cases. The run's wall clock starts here: case generation, every batch on every variant and the bookkeeping.
  const auto run_start = clock_type::now();
  const auto admit = [&](case_list&& batch, std::optional<source_kind> kind, std::optional<std::uint64_t> fuzz_seed,
                         case_list& into) {
    for (auto& c : batch) {
      if (c.id.empty()) throw std::logic_error("a case without an id");
      // The case's own kind wins over its source's: overriding it silently turned declared controls into adversarial
      // cases, and a buggy variant failing them went unreported.
      if (!c.source.given()) c.source = kind ? *kind : source_kind::fuzz;
      if (fuzz_seed) {
        if (!c.seed) c.seed = fuzz_seed;
        if (id_seed(c.id) != c.seed)
          throw std::logic_error("fuzz case " + c.id + " does not carry its seed in the id (use case_name::seed)");
      }
      if (c.source == source_kind::control) c.buggy = on_buggy::pass;
      into.push_back(std::move(c));
    }
  };
  // The fixed part of the list: the --input file's cases, or every source's (fixtures, tables, controls): small.
  // Fuzz cases are never listed up front: each is generated from its seed when its batch comes, so memory does not
  // grow with --fuzz.
  case_list fixed_cases;
  std::uint64_t n_fuzz = 0;
  if (!opt.input.empty()) {
    case_list parsed;
    input(opt.input, parsed);
    if (parsed.empty()) throw usage_error("--input '" + opt.input + "': no case in the file");
    admit(std::move(parsed), source_kind::input, std::nullopt, fixed_cases);
  } else {
    for (auto& [kind, fn] : sources) {
      case_list batch;
      fn(batch);
      admit(std::move(batch), kind, std::nullopt, fixed_cases);
    }
    if (fuzz) n_fuzz = opt.fuzz;  // without a generator there is no --fuzz option
  }
  std::unordered_set<std::string_view> fixed_ids;
  fixed_ids.reserve(fixed_cases.size());
  for (const auto& c : fixed_cases)
    if (!fixed_ids.insert(c.id).second) throw std::logic_error("two cases share the id " + c.id);
  // Fuzz case i, admitted into `out`; ids of different seeds differ (each carries its seed), so only the fixed ids and
  // the seed's own other cases can collide.
  const auto fuzz_case = [&](std::uint64_t i, case_list& out) {
    const std::uint64_t s = fuzz_case_seed(opt.seed, i);
    case_list b;
    fuzz(s, b);
    const std::size_t first = out.size();
    admit(std::move(b), std::nullopt, s, out);
    for (std::size_t k = first; k < out.size(); ++k) {
      bool dup = fixed_ids.count(out[k].id) > 0;
      for (std::size_t j = first; j < k && !dup; ++j) dup = out[j].id == out[k].id;
      if (dup) throw std::logic_error("two cases share the id " + out[k].id);
    }
  };
  // An exact id that no case of the list has: a fuzz id is regenerated from its seed, a shrunk id rebuilt from its
  // parent (found the same way) through the shrinker, whatever --fuzz and --seed are now.
  std::function<std::optional<case_def>(const std::string&, int)> rebuild = [&](const std::string& id,
                                                                                int depth) -> std::optional<case_def> {
    for (const auto& c : fixed_cases)
      if (c.id == id) return c;
    if (auto s = id_seed(id); s && fuzz && opt.input.empty()) {
      case_list batch, admitted;
      fuzz(*s, batch);
      for (auto& c : batch)
        if (c.id == id) {
          case_list one;
          one.push_back(std::move(c));
          admit(std::move(one), std::nullopt, *s, admitted);
          return std::move(admitted.front());
        }
    }
    if (parent_of && shrinker && depth < 32)
      if (const auto parent_id = parent_of(id))
        if (const auto parent = rebuild(*parent_id, depth + 1))
          for (auto& cand : shrinker(*parent))
            if (cand.id == id) {
              case_list one, admitted;
              one.push_back(std::move(cand));
              admit(std::move(one), parent->source.kind(), std::nullopt, admitted);
              return std::move(admitted.front());
            }
    return std::nullopt;
  };
  const auto& filters = opt.case_filters;
  const auto matches = [&](const std::string& id) {
    if (filters.empty()) return true;
    for (const auto& f : filters)
      if (id_matches(f, id)) return true;
    return false;
  };
  // Every --case filter must take a case; checked over the whole list before anything runs.
  case_list extra;
  if (!filters.empty()) {
    std::vector<bool> hit(filters.size(), false);
    const auto mark = [&](const std::string& id) {
      for (std::size_t f = 0; f < filters.size(); ++f)
        if (!hit[f] && id_matches(filters[f], id)) hit[f] = true;
    };
    for (const auto& c : fixed_cases) mark(c.id);
    case_list gen;
    for (std::uint64_t i = 0; i < n_fuzz && std::find(hit.begin(), hit.end(), false) != hit.end(); ++i) {
      gen.clear();
      fuzz_case(i, gen);
      for (const auto& c : gen) mark(c.id);
    }
    for (std::size_t f = 0; f < filters.size(); ++f) {
      if (hit[f]) continue;
      auto c = rebuild(filters[f], 0);
      if (!c) throw usage_error("--case '" + filters[f] + "' matches no case (see --list-cases)");
      if (std::none_of(extra.begin(), extra.end(), [&](const case_def& e) { return e.id == c->id; }))
        extra.push_back(std::move(*c));
    }
  }
  // Every selected case in list order with its position in the selected (unsharded) list; returns the count.
  const auto for_each_selected = [&](auto&& on_case) {
    std::uint64_t pos = 0;
    for (const auto& c : fixed_cases)
      if (matches(c.id)) on_case(case_def(c), pos++);
    case_list gen;
    for (std::uint64_t i = 0; i < n_fuzz; ++i) {
      gen.clear();
      fuzz_case(i, gen);
      for (auto& c : gen)
        if (matches(c.id)) on_case(std::move(c), pos++);
    }
    for (const auto& c : extra) on_case(case_def(c), pos++);
    return pos;
  };

  if (!opt.list_cases && before)
    if (const auto code = before(fixed_cases)) {
      std::cout.flush();
      return *code;
    }
  if (opt.list_cases) {
    for_each_selected([&](case_def&& c, std::uint64_t pos) {
      if (opt.shard.contains(pos)) std::cout << c.id << '\n';
    });
    std::cout.flush();
    return 0;
  }

  run_record rec;
  rec.probe = name;
  rec.summary = summary;
  rec.family = family;
  rec.backend = opt.backend;
  rec.expect = opt.expect;
  rec.must_catch = must_catch;
  rec.shard = opt.shard;
  rec.seed = opt.seed;
  rec.fuzz = n_fuzz;
  // What the run's own filters removed is not demanded by the must_catch rule (README "Verdicts").
  rec.filtered = !opt.case_filters.empty() || !opt.input.empty() || !opt.fixtures.empty() || (fuzz_given && opt.fuzz == 0);
  {
    std::string cmd;
    for (std::size_t i = 0; i < opt.command_line.size(); ++i)
      cmd += (cmd.empty() ? "" : " ") + shell_quote(i == 0 ? reported_executable(opt.command_line[0]) : opt.command_line[i]);
    rec.command = cmd;
  }
  for (const auto& v : selected) {
    variant_summary s;
    s.name = v.name;
    s.role = v.role;
    rec.variants.push_back(std::move(s));
  }
  const std::size_t nv = selected.size();

  if (opt.batch) batch = opt.batch;
  // Run: batch-major, each batch through every variant in turn, so a batch runner sees many cases of one variant at
  // once and can keep what the variants share (generated tiles, oracle results) for the next variant of the batch.
  // What stays of a batch: the summaries, the tallies, the listed rows, a few kept failures and each variant's first
  // failing case (to shrink): bounded, whatever the number of cases.
  constexpr std::size_t kept_per_row = 3;
  std::map<std::pair<std::size_t, std::string>, std::size_t> kept_count;
  std::map<std::pair<std::string, std::size_t>, std::uint64_t> listed_failures;  // (row, variant)
  std::vector<std::uint64_t> listed_broken(nv, 0);
  std::vector<bool> row_notable;  // per listed row: kept when a large run drops the others
  std::map<std::tuple<std::string, source_kind, on_buggy>, std::size_t> tally_of;
  progress bar(isatty(STDERR_FILENO) != 0);
  std::vector<const case_def*> ptrs;
  std::vector<outcome> results;
  std::vector<variant_summary> partials;
  std::vector<std::uint8_t> passed;  // [case * nv + variant]
  std::vector<std::optional<case_def>> first_failing(nv);
  std::vector<std::pair<std::size_t, kept_failure>> kept;  // (batch index, failure) until the rows exist
  const std::uint64_t estimated = (fixed_cases.size() + n_fuzz + extra.size()) / opt.shard.count * nv;
  std::uint64_t runs_done = 0;
  case_list pending;
  std::vector<std::uint64_t> positions;
  const auto drop_unnotable_rows = [&] {
    std::vector<std::size_t> new_index(rec.cases.size(), SIZE_MAX);
    std::size_t n = 0;
    for (std::size_t i = 0; i < rec.cases.size(); ++i)
      if (row_notable[i]) {
        new_index[i] = n;
        if (n != i) rec.cases[n] = std::move(rec.cases[i]);
        row_notable[n++] = true;
      }
    rec.cases.resize(n);
    row_notable.resize(n);
    for (auto& f : rec.failures) f.case_index = new_index[f.case_index];  // kept failures are always notable
    rec.all_cases_listed = false;
  };
  const auto run_batch = [&] {
    const std::size_t n = pending.size();
    ptrs.clear();
    for (const auto& c : pending) ptrs.push_back(&c);
    passed.assign(n * nv, 0);
    kept.clear();
    for (std::size_t v = 0; v < nv; ++v) {
      auto& summary_v = rec.variants[v];
      results.assign(n, outcome{});
      if (hooks_used.setup_seconds) (void)hooks_used.setup_seconds(opt.backend);  // only this batch's below
      const auto t0 = clock_type::now();
      outcome_of_batch(ptrs, selected[v], results);
      // A variant's seconds are its batches' launches and judging; one-time runtime work inside them (the
      // simulator decoding a code object at its first launch) is the run's setup_seconds instead.
      const double setup = hooks_used.setup_seconds ? hooks_used.setup_seconds(opt.backend) : 0.0;
      summary_v.seconds += std::max(0.0, std::chrono::duration<double>(clock_type::now() - t0).count() - setup);
      rec.setup_seconds += setup;
      // Bookkeeping, on --jobs threads: with big batches (a GPU run) summing and freeing the outcomes one by one was
      // the largest serial part of a run. Parts of a fixed size are summed apart and merged in order, so the
      // summaries do not depend on --jobs (sums are exact anyway: every probe's sum metrics are integer counts).
      constexpr std::size_t part = 1024;
      partials.assign((n + part - 1) / part, variant_summary{});
      parallel_for(
          partials.size(), opt.jobs,
          [&](std::size_t begin, std::size_t end) {
            for (std::size_t p = begin; p < end; ++p)
              for (std::size_t i = p * part; i < std::min(n, (p + 1) * part); ++i) {
                accumulate(partials[p], results[i]);
                passed[i * nv + v] = results[i].pass ? 1 : 0;
              }
          },
          1);
      for (const auto& ps : partials) merge_summary(summary_v, ps);
      for (std::size_t i = 0; i < n; ++i) {
        if (results[i].pass) continue;
        if (!first_failing[v]) first_failing[v] = pending[i];
        auto& k = kept_count[{v, std::string(pending[i].table_row())}];
        if (k < kept_per_row) {
          ++k;
          kept.push_back({i, {0, v, std::move(results[i])}});
        }
      }
      parallel_for(
          n, opt.jobs,
          [&](std::size_t begin, std::size_t end) {
            for (std::size_t i = begin; i < end; ++i) results[i] = outcome{};
          },
          part);
      runs_done += n;
      bar.update(selected[v].name, std::size_t(runs_done), std::size_t(std::max(estimated, runs_done)));
    }
    std::vector<std::size_t> row_index(n, SIZE_MAX);
    for (std::size_t i = 0; i < n; ++i) {
      const case_def& c = pending[i];
      const std::string row(c.table_row());
      auto [it, fresh] = tally_of.try_emplace({row, c.source.kind(), c.buggy}, rec.tallies.size());
      if (fresh) {
        rec.tallies.push_back({row, c.source.kind(), c.buggy, 0, positions[i], {}});
        rec.tallies.back().variants.resize(nv);
      }
      auto& t = rec.tallies[it->second];
      ++t.cases;
      bool notable = false;
      for (std::size_t v = 0; v < nv; ++v) {
        const bool pass = passed[i * nv + v] != 0;
        auto& pv = t.variants[v];
        if (!pass) {
          if (pv.failed++ == 0) pv.first_failed = c.id, pv.first_failed_at = positions[i];
          if (listed_failures[{row, v}]++ < listed_failures_per_row) notable = true;
        } else if (pv.first_passed.empty()) {
          pv.first_passed = c.id;
          pv.first_passed_at = positions[i];
        }
        if (!expectation_broken(opt.expect, selected[v].role, c.source, c.buggy, pass).empty() &&
            listed_broken[v]++ < listed_broken_per_variant)
          notable = true;
      }
      if (!rec.all_cases_listed && !notable) continue;
      row_index[i] = rec.cases.size();
      rec.cases.push_back({c.id, c.source, row, c.tags, c.seed, c.buggy,
                           std::vector<std::uint8_t>(passed.begin() + std::ptrdiff_t(i * nv),
                                                     passed.begin() + std::ptrdiff_t((i + 1) * nv)),
                           positions[i]});
      row_notable.push_back(notable);
    }
    for (auto& [i, f] : kept) {
      f.case_index = row_index[i];
      rec.failures.push_back(std::move(f));
    }
    if (rec.all_cases_listed && rec.cases.size() > listed_cases_max) drop_unnotable_rows();
    pending.clear();
    positions.clear();
  };
  rec.unsharded_cases = for_each_selected([&](case_def&& c, std::uint64_t pos) {
    if (!opt.shard.contains(pos)) return;
    pending.push_back(std::move(c));
    positions.push_back(pos);
    if (pending.size() >= batch) run_batch();
  });
  if (!pending.empty()) run_batch();
  rec.run_seconds = std::chrono::duration<double>(clock_type::now() - run_start).count();
  // Reports list kept failures variant by variant, in case order.
  std::stable_sort(rec.failures.begin(), rec.failures.end(), [](const kept_failure& a, const kept_failure& b) {
    return a.variant_index != b.variant_index ? a.variant_index < b.variant_index : a.case_index < b.case_index;
  });

  if (notes) rec.notes = notes();
  if (bench_figures && opt.bench) rec.bench = bench_figures();

  // Shrink the first failure of each variant, and show the shrunk case on a fixed variant beside it.
  const variant* reference = nullptr;
  std::optional<variant> reference_storage;
  for (const auto& v : selected)
    if (v.role == variant_role::fixed) {
      reference = &v;
      break;
    }
  if (!reference)
    for (const auto& n : fixed_names)
      if (const auto* reg = find_registered(n)) {
        reference_storage = variant{reg->name, reg->backend, reg->ops, variant_role::fixed};
        reference = &*reference_storage;
        break;
      }
  // Where a counterexample's input file goes: beside the first report written to a file.
  std::string input_stem;
  if (!destination.empty()) {
    const std::string& first = destination.begin()->second;
    const auto dot = first.rfind('.'), slash = first.rfind('/');
    input_stem = dot != std::string::npos && (slash == std::string::npos || dot > slash) ? first.substr(0, dot) : first;
  }
  const std::string exe = opt.command_line.empty() ? name : shell_quote(reported_executable(opt.command_line[0]));
  for (std::size_t v = 0; v < nv; ++v) {
    if (!first_failing[v]) continue;
    const case_def& failing = *first_failing[v];
    shrink_result sr{failing, 0, 0, false};
    if (opt.shrink && shrinker)
      sr = shrink_case(
          failing, shrinker, [&](const case_def& c) { return !run_one(c, selected[v]).pass; }, opt.shrink_budget);
    counterexample ce;
    ce.variant = selected[v].name;
    ce.original_id = failing.id;
    ce.shrunk_id = sr.shrunk.id;
    ce.steps = sr.steps;
    ce.runs = sr.runs;
    ce.budget_exhausted = sr.budget_exhausted;
    ce.on_variant = run_one(sr.shrunk, selected[v]);
    std::string variants_arg = selected[v].name;
    if (reference && reference->name != selected[v].name) {
      ce.reference_variant = reference->name;
      ce.on_reference = run_one(sr.shrunk, *reference);
      variants_arg += "," + reference->name;
    }
    const std::string base = exe + " --backend " + opt.backend + " --variant " + shell_quote(variants_arg);
    if (input_text && !input_stem.empty())
      if (const auto text = input_text(sr.shrunk)) {
        ce.input_file = input_stem + "." + selected[v].name + ".tpin";
        std::ofstream f(ce.input_file, std::ios::binary | std::ios::trunc);
        f << *text;
        f.flush();
        if (!f) throw usage_error("cannot write the counterexample input file " + ce.input_file);
        ce.reproduce.push_back(base + " --input " + shell_quote(ce.input_file));
      }
    if (opt.input.empty()) ce.reproduce.push_back(base + " --case " + shell_quote(ce.shrunk_id));
    rec.counterexamples.push_back(std::move(ce));
  }

  rec.broken = evaluate(rec, opt.shard.is_whole());

  rec.environment.emplace_back("probe", name);
  rec.environment.emplace_back("backend", opt.backend);
  rec.environment.emplace_back("device", hook.device_name ? hook.device_name(opt.backend) : "unknown");
  if (opt.skew)
    rec.environment.emplace_back("skew", fmt::format("warp mask 0x{:x}, {} cycles at each skew point", opt.skew->first,
                                                     opt.skew->second));
  if (hook.sanitizer)
    if (const auto tool = hook.sanitizer(); !tool.empty()) rec.environment.emplace_back("sanitizer", tool);
  for (auto& e : build_environment()) rec.environment.push_back(std::move(e));
  for (const auto& e : extra_env) rec.environment.push_back(e);

  bar.finish();  // nothing of the bar may stay on the terminal above or inside a report
  const bool colour = use_colour(colour_arg, isatty(STDOUT_FILENO) != 0);
  const auto render = [&](report_format f, bool with_colour) -> std::string {
    switch (f) {
      case report_format::text: return render_text(rec, with_colour, opt.bench);
      case report_format::md: return render_markdown(rec, opt.bench);
      case report_format::json: return to_json(rec, opt.bench).dump(1) + "\n";
      case report_format::junit: return render_junit(rec, {junit_failing_only});
    }
    return {};
  };
  for (const auto& [f, path] : destination) {
    std::ofstream file(path, std::ios::binary | std::ios::trunc);
    file << render(f, false);
    file.flush();
    if (!file) throw usage_error("--out '" + path + "': cannot write the " + std::string(to_string(f)) + " report");
  }
  if (!to_stdout.empty()) {
    std::cout << render(to_stdout[0], colour && to_stdout[0] == report_format::text);
  } else if (destination.count(report_format::text)) {
    // The text report also goes to the terminal when it was written to a file and stdout is otherwise unused.
    std::cout << render(report_format::text, colour);
  }
  std::cout.flush();
  return rec.as_expected() ? 0 : 1;
}

}  // namespace tp::probe
