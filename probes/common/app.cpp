#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <optional>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <map>
#include <set>
#include <unordered_set>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

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

// A one-line progress indicator on stderr, only when stderr is a terminal and the run has taken over a second.
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
    std::fprintf(stderr, "\r[%.*s%*s] %zu/%zu %.*s\x1b[K", filled, "##############################",
                 width - filled, "", done, total, int(what.size()), what.data());
    std::fflush(stderr);
  }
  ~progress() {
    if (shown_) std::fputs("\r\x1b[K", stderr);
  }

 private:
  bool enabled_, shown_ = false;
  clock_type::time_point start_, last_;
};
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
  notes_fn notes;
  variant_provider provider;
  backend_hooks hooks;
  bool provider_set = false, hooks_set = false;

  CLI::App cli;
  options opt;
  // Raw option values, interpreted after parsing so every error is one clear line.
  std::vector<std::string> variant_arg, buggy_arg, fixed_arg, fixture_arg, report_arg;
  std::string expect_arg = "fail-pass", shard_arg = "1/1", seed_arg, out_arg, skew_arg;
  std::map<report_format, std::string> out_per_format;
  bool fuzz_given = false;

  impl(std::string n, std::string s) : name(std::move(n)), summary(std::move(s)), cli(summary, name) {}

  void add_common_options();
  void outcome_of_batch(std::span<const case_def* const> cases, const variant& v, std::span<outcome> out);
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
  cli.add_option("--fixture", fixture_arg, "fixture path or name, repeatable; `all` (default) = every fixture");
  cli.add_option("--fuzz", opt.fuzz, "number of seeded fuzz cases");
  cli.add_option("--seed", seed_arg, "base seed of the fuzz cases (decimal or 0x-hex)");
  cli.add_option("--case", opt.case_filters, "run the case with this id, or ids matching a glob/substring; repeatable");
  cli.add_option("--input", opt.input, "run one tile given as data in FILE");
  cli.add_option("--report", report_arg, "text, md, json, junit; repeatable or comma list (default text)");
  cli.add_option("--out", out_arg,
                 "report file; with several formats, a stem: STEM.txt, STEM.md, STEM.json, STEM.xml");
  cli.add_option("--out-text", out_per_format[report_format::text], "text report file");
  cli.add_option("--out-md", out_per_format[report_format::md], "Markdown report file");
  cli.add_option("--out-json", out_per_format[report_format::json], "JSON report file");
  cli.add_option("--out-junit", out_per_format[report_format::junit], "JUnit XML report file");
  cli.add_option("--shard", shard_arg, "run shard I of N (1 <= I <= N)")->capture_default_str();
  cli.add_flag("--list-cases", opt.list_cases, "print the selected case ids and exit");
  cli.add_flag("--list-variants", opt.list_variants,
               "print the variants of the probe's kernel family built for --backend, one per line, and exit");
  cli.add_flag("--bench", opt.bench, "measure and print cases/s per variant");
  cli.add_option("--jobs", opt.jobs,
                 "host threads for the per-case host work of a batch: the probe's (generation, oracle, judging) where "
                 "it supports it, and the framework's bookkeeping; launches stay on one thread")
      ->check(CLI::Range(1u, 1024u))
      ->capture_default_str();
  cli.add_option("--batch", opt.batch,
                 "cases per batch (default: the probe's own); larger batches mean fewer, larger launches on a GPU")
      ->check(CLI::Range(std::size_t{1}, std::size_t{1} << 24));
  cli.add_flag("!--no-shrink", opt.shrink, "do not shrink failures");
  cli.add_option("--shrink-budget", opt.shrink_budget, "candidate runs per shrunk failure")->capture_default_str();
  cli.add_option("--skew", skew_arg,
                 "CUDA only: MASK:CYCLES, spin the warps whose bit is set in the hex MASK (bit w%32 for warp w) for "
                 "CYCLES clock cycles at every skew point of the kernels, to make races show");
  cli.add_option("--sanitize", opt.sanitize,
                 "CUDA only: re-run this command under compute-sanitizer: racecheck, initcheck, memcheck or synccheck");
}

void app::impl::outcome_of_batch(std::span<const case_def* const> cases, const variant& v, std::span<outcome> out) {
  try {
    if (batch_runner) {
      batch_runner(cases, v, out);
    } else {
      for (std::size_t i = 0; i < cases.size(); ++i) {
        try {
          out[i] = runner(*cases[i], v);
        } catch (const usage_error&) {
          throw;
        } catch (const backend_unavailable&) {
          throw;
        } catch (const std::exception& e) {
          out[i] = outcome{};
          out[i].error = e.what();
        }
      }
    }
  } catch (const usage_error&) {
    throw;
  } catch (const backend_unavailable&) {
    throw;
  } catch (const std::exception& e) {
    // A batch shares one launch, so one error fails every case of the batch.
    for (auto& o : out) {
      o = outcome{};
      o.error = e.what();
    }
  }
  for (auto& o : out)
    if (!o.error.empty()) o.pass = false;
}

int app::main(int argc, char** argv) {
  try {
    return impl_->run(argc, argv);
  } catch (const usage_error& e) {
    std::cerr << impl_->name << ": " << e.what() << '\n';
    return 2;
  } catch (const backend_unavailable& e) {
    std::cerr << impl_->name << ": " << e.what() << '\n';
    return 77;
  } catch (const std::logic_error& e) {
    std::cerr << impl_->name << ": probe defect: " << e.what() << '\n';
    return 1;
  } catch (const std::exception& e) {
    // A device call outside any case (setting the skew) failed: the run did not happen as asked.
    std::cerr << impl_->name << ": error: " << e.what() << '\n';
    return 1;
  }
}

int app::impl::run(int argc, char** argv) {
  for (int i = 0; i < argc; ++i) opt.command_line.emplace_back(argv[i]);
  try {
    cli.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return cli.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return cli.exit(e);
  } catch (const CLI::ParseError& e) {
    std::string msg = e.what();
    std::replace(msg.begin(), msg.end(), '\n', ' ');
    throw usage_error(msg + " (see --help)");
  }
  if (!runner && !batch_runner) throw std::logic_error("no runner registered");
  if (family.empty()) throw std::logic_error("no kernel family declared");

  // Usage checks first: nothing runs unless the whole command line makes sense.
  if (opt.backend != "cpu" && opt.backend != "cuda" && opt.backend != "hip")
    throw usage_error("--backend '" + opt.backend + "': unknown backend (expected cpu, cuda or hip)");
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
  if (expect_arg == "fail-pass") opt.expect = expect_mode::fail_pass;
  else if (expect_arg == "pass") opt.expect = expect_mode::pass;
  else if (expect_arg == "fail") opt.expect = expect_mode::fail;
  else throw usage_error("--expect '" + expect_arg + "': expected fail-pass, pass or fail");
  opt.shard = parse_shard(shard_arg);
  fuzz_given = cli.count("--fuzz") > 0;
  if (!fuzz_given) opt.fuzz = fuzz_default;
  opt.seed = seed_default;
  if (!seed_arg.empty()) {
    auto s = parse_seed(seed_arg);
    if (!s) throw usage_error("--seed '" + seed_arg + "': not a 64-bit decimal or 0x-hex number");
    opt.seed = *s;
  }
  for (const auto& f : split_list(fixture_arg))
    if (f != "all") opt.fixtures.push_back(f);
  if (!opt.input.empty()) {
    if (!input) throw usage_error("--input: this probe does not take tiles as data");
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
  std::map<report_format, std::ofstream> files;
  for (const auto& [f, path] : destination) {
    files[f].open(path, std::ios::binary | std::ios::trunc);
    if (!files[f]) throw usage_error("--out '" + path + "': cannot open the file for writing");
  }

  // Variants: from the registry, on the chosen backend.
  const auto registry = provider_set ? provider(family) : default_variant_provider()(family);
  const auto hook = hooks_set ? hooks : default_backend_hooks();
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
  case_list all;
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
  if (!opt.input.empty()) {
    case_list parsed;
    input(opt.input, parsed);
    if (parsed.empty()) throw usage_error("--input '" + opt.input + "': no case in the file");
    admit(std::move(parsed), source_kind::input, std::nullopt, all);
  } else {
    for (auto& [kind, fn] : sources) {
      case_list batch;
      fn(batch);
      admit(std::move(batch), kind, std::nullopt, all);
    }
    if (fuzz)
      for (std::uint64_t i = 0; i < opt.fuzz; ++i) {
        const std::uint64_t s = fuzz_case_seed(opt.seed, i);
        case_list batch;
        fuzz(s, batch);
        admit(std::move(batch), std::nullopt, s, all);
      }
    else if (fuzz_given && opt.fuzz > 0)
      throw usage_error("--fuzz: this probe has no fuzz generator");
  }
  {
    // Views into `all`, which no longer grows here (a --case rerun below only adds ids no case has).
    std::unordered_set<std::string_view> ids;
    ids.reserve(all.size());
    for (const auto& c : all)
      if (!ids.insert(c.id).second) throw std::logic_error("two cases share the id " + c.id);
  }

  case_list chosen;
  if (opt.case_filters.empty()) {
    chosen = std::move(all);
  } else {
    std::vector<bool> take(all.size(), false);
    for (const auto& f : opt.case_filters) {
      bool any = false;
      for (std::size_t i = 0; i < all.size(); ++i)
        if (id_matches(f, all[i].id)) take[i] = any = true;
      if (any) continue;
      // A fuzz id names its seed: regenerate that one case, whatever --fuzz and --seed are now.
      if (auto s = id_seed(f); s && fuzz && opt.input.empty()) {
        case_list batch, regenerated;
        fuzz(*s, batch);
        for (auto& c : batch)
          if (c.id == f) regenerated.push_back(std::move(c));
        if (!regenerated.empty()) {
          case_list admitted;
          admit(std::move(regenerated), std::nullopt, *s, admitted);
          for (auto& c : admitted) {
            take.push_back(true);
            all.push_back(std::move(c));
          }
          continue;
        }
      }
      throw usage_error("--case '" + f + "' matches no case (see --list-cases)");
    }
    for (std::size_t i = 0; i < all.size(); ++i)
      if (take[i]) chosen.push_back(std::move(all[i]));
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
  rec.fuzz = opt.fuzz;
  rec.filtered = !opt.case_filters.empty() || !opt.input.empty();
  rec.unsharded_cases = chosen.size();
  {
    std::string cmd;
    for (const auto& a : opt.command_line) cmd += (cmd.empty() ? "" : " ") + shell_quote(a);
    rec.command = cmd;
  }

  case_list cases;
  for (std::size_t p = 0; p < chosen.size(); ++p)
    if (opt.shard.contains(p)) cases.push_back(std::move(chosen[p]));

  if (opt.list_cases) {
    for (const auto& c : cases) std::cout << c.id << '\n';
    return 0;
  }

  for (const auto& v : selected) {
    variant_summary s;
    s.name = v.name;
    s.role = v.role;
    rec.variants.push_back(std::move(s));
  }
  for (const auto& c : cases)
    rec.cases.push_back({c.id, c.source, std::string(c.table_row()), c.tags, c.seed, c.buggy,
                         std::vector<std::uint8_t>(selected.size(), 0)});

  if (opt.batch) batch = opt.batch;
  // Run: batch-major, each batch through every variant in turn, so a batch runner sees many cases of one variant at
  // once and can keep what the variants share (generated tiles, oracle results) for the next variant of the batch.
  constexpr std::size_t kept_per_row = 3;
  std::map<std::pair<std::size_t, std::string>, std::size_t> kept_count;
  progress bar(isatty(STDERR_FILENO) != 0);
  std::vector<const case_def*> ptrs;
  std::vector<outcome> results;
  std::vector<variant_summary> partials;
  std::vector<std::optional<std::size_t>> first_failure(selected.size());
  const std::size_t total_runs = cases.size() * selected.size();
  std::size_t runs_done = 0;
  for (std::size_t start = 0; start < cases.size(); start += batch) {
    const std::size_t n = std::min(batch, cases.size() - start);
    ptrs.clear();
    for (std::size_t i = 0; i < n; ++i) ptrs.push_back(&cases[start + i]);
    for (std::size_t v = 0; v < selected.size(); ++v) {
      auto& summary_v = rec.variants[v];
      results.assign(n, outcome{});
      const auto t0 = clock_type::now();
      outcome_of_batch(ptrs, selected[v], results);
      summary_v.seconds += std::chrono::duration<double>(clock_type::now() - t0).count();
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
                rec.cases[start + i].passed[v] = results[i].pass ? 1 : 0;
              }
          },
          1);
      for (const auto& ps : partials) merge_summary(summary_v, ps);
      for (std::size_t i = 0; i < n; ++i) {
        if (results[i].pass) continue;
        const std::size_t ci = start + i;
        if (!first_failure[v]) first_failure[v] = ci;
        auto& k = kept_count[{v, rec.cases[ci].group}];
        if (k < kept_per_row) {
          ++k;
          rec.failures.push_back({ci, v, std::move(results[i])});
        }
      }
      parallel_for(
          n, opt.jobs,
          [&](std::size_t begin, std::size_t end) {
            for (std::size_t i = begin; i < end; ++i) results[i] = outcome{};
          },
          part);
      runs_done += n;
      bar.update(selected[v].name, runs_done, total_runs);
    }
  }
  rec.run_seconds = std::chrono::duration<double>(clock_type::now() - run_start).count();
  // Reports list kept failures variant by variant, in case order.
  std::stable_sort(rec.failures.begin(), rec.failures.end(), [](const kept_failure& a, const kept_failure& b) {
    return a.variant_index != b.variant_index ? a.variant_index < b.variant_index : a.case_index < b.case_index;
  });

  if (notes) rec.notes = notes();

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
  for (std::size_t v = 0; v < selected.size(); ++v) {
    if (!first_failure[v]) continue;
    const case_def& failing = cases[*first_failure[v]];
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
    if (reference && reference->name != selected[v].name) {
      ce.reference_variant = reference->name;
      ce.on_reference = run_one(sr.shrunk, *reference);
    }
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

  const bool stdout_tty = isatty(STDOUT_FILENO) != 0;
  const auto render = [&](report_format f, bool colour) -> std::string {
    switch (f) {
      case report_format::text: return render_text(rec, colour, opt.bench);
      case report_format::md: return render_markdown(rec, opt.bench);
      case report_format::json: return to_json(rec, opt.bench).dump(1) + "\n";
      case report_format::junit: return render_junit(rec);
    }
    return {};
  };
  for (auto& [f, file] : files) {
    file << render(f, false);
    file.flush();
    if (!file) throw usage_error("cannot write the " + std::string(to_string(f)) + " report");
  }
  if (!to_stdout.empty()) {
    std::cout << render(to_stdout[0], stdout_tty && to_stdout[0] == report_format::text);
  } else if (files.count(report_format::text)) {
    // The text report also goes to the terminal when it was written to a file and stdout is otherwise unused.
    std::cout << render(report_format::text, stdout_tty);
  }
  std::cout.flush();
  return rec.as_expected() ? 0 : 1;
}

}  // namespace tp::probe
