// app: the probe's declarations (probe.h), its command line, and main() as the sequence of the run's phases
// (probes/common/phases/phases.h says what each one does).
#include <iostream>
#include <set>

#include <CLI/CLI.hpp>

#include "probes/common/cli.h"
#include "probes/common/phases/phases.h"
#include "probes/common/probe.h"
#include "probes/common/report.h"
#include "probes/common/run.h"

namespace tp::probe {

struct app::impl {
  phase::declaration d;
  phase::raw_options raw;
  options opt;
  CLI::App cli;
  variant_provider provider;
  backend_hooks hooks;
  bool provider_set = false, hooks_set = false;

  impl(std::string n, std::string s) : cli(s, n) {
    d.name = std::move(n);
    d.summary = std::move(s);
  }

  void add_common_options();
  void add_probe_options();
  // Which options that can contradict others (--fuzz, --seed, --fixture, --shrink-budget) the command line gave.
  void note_given_options();
  int run(int argc, char** argv);
};

app::app(std::string name, std::string summary) : impl_(std::make_unique<impl>(std::move(name), std::move(summary))) {
  impl_->add_common_options();
}
app::~app() = default;

app& app::family(std::string f) { impl_->d.family = std::move(f); return *this; }
app& app::default_variants(std::string list) { impl_->d.default_variant_list = std::move(list); return *this; }
app& app::buggy(std::initializer_list<std::string_view> names) {
  impl_->d.buggy_default.assign(names.begin(), names.end());
  return *this;
}
app& app::fixed(std::initializer_list<std::string_view> names) {
  impl_->d.fixed_default.assign(names.begin(), names.end());
  return *this;
}
app& app::must_catch(std::initializer_list<source_kind> kinds) {
  impl_->d.must_catch = std::set<source_kind>(kinds);
  return *this;
}
app& app::default_fuzz(std::uint64_t n, std::uint64_t seed) {
  impl_->d.fuzz_default = n;
  impl_->d.seed_default = seed;
  return *this;
}
app& app::batch_size(std::size_t n) { impl_->d.batch = std::max<std::size_t>(1, n); return *this; }
app& app::env(std::string key, std::string value) {
  impl_->d.extra_env.emplace_back(std::move(key), std::move(value));
  return *this;
}
app& app::source(source_kind kind, source_fn fn) { impl_->d.sources.emplace_back(kind, std::move(fn)); return *this; }
app& app::fuzz(fuzz_fn fn) { impl_->d.fuzz = std::move(fn); return *this; }
app& app::input(input_fn fn) { impl_->d.input = std::move(fn); return *this; }
app& app::runner(runner_fn fn) { impl_->d.runner = std::move(fn); return *this; }
app& app::batch_runner(batch_runner_fn fn) { impl_->d.batch_runner = std::move(fn); return *this; }
app& app::shrinker(shrink_fn fn) { impl_->d.shrinker = std::move(fn); return *this; }
app& app::notes(notes_fn fn) { impl_->d.notes = std::move(fn); return *this; }
app& app::bench_figures(bench_figures_fn fn) { impl_->d.bench_figures = std::move(fn); return *this; }
app& app::before_run(before_run_fn fn) { impl_->d.before = std::move(fn); return *this; }
app& app::shrunk_parent(parent_fn fn) { impl_->d.parent_of = std::move(fn); return *this; }
app& app::input_text(input_text_fn fn) { impl_->d.input_text = std::move(fn); return *this; }
app& app::skew_points() { impl_->d.skew_points = true; return *this; }
app& app::fixture_names(std::vector<std::string> names) { impl_->d.fixture_list = std::move(names); return *this; }
const std::string& app::name() const { return impl_->d.name; }
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
  cli.add_option("--backend", raw.backend, "where the kernels run: cpu, cuda or hip")->capture_default_str();
  cli.add_option("--variant", raw.variant, "comma list of variants, or `all` (default given by the probe)");
  cli.add_option("--buggy", raw.buggy, "variants expected to fail (overrides the probe's declaration)");
  cli.add_option("--fixed", raw.fixed, "variants expected to pass (overrides the probe's declaration)");
  cli.add_option("--expect", raw.expect, "fail-pass, pass or fail")->capture_default_str();
  cli.add_option("--case", raw.case_filters, "run the case with this id, or ids matching a glob/substring; repeatable");
  cli.add_option("--report", raw.report, "text, md, json, junit; repeatable or comma list (default text)");
  cli.add_option("--out", raw.out,
                 "report file; with several formats, a stem: STEM.txt, STEM.md, STEM.json, STEM.xml");
  cli.add_option("--out-text", raw.out_per_format[report_format::text], "text report file");
  cli.add_option("--out-md", raw.out_per_format[report_format::md], "Markdown report file");
  cli.add_option("--out-json", raw.out_per_format[report_format::json], "JSON report file");
  cli.add_option("--out-junit", raw.out_per_format[report_format::junit], "JUnit XML report file");
  cli.add_flag("--junit-failing-only", raw.junit_failing_only,
               "JUnit: list only the testcases that break an expectation (and one for the unlisted rest)");
  cli.add_option("--color", raw.colour,
                 "auto (colour on a terminal unless NO_COLOR is set), always or never: the text report's colours")
      ->capture_default_str();
  add_version_flag(cli, version_line(d.name));
  cli.add_option("--shard", raw.shard, "run shard I of N (1 <= I <= N)")->capture_default_str();
  cli.add_flag("--list-cases", raw.list_cases, "print the selected case ids and exit");
  cli.add_flag("--list-variants", raw.list_variants,
               "print the variants of the probe's kernel family built for --backend, one per line, and exit");
  cli.add_flag("--bench", raw.bench, "measure and print cases/s per variant");
  cli.add_option("--jobs", raw.jobs,
                 "host threads for the per-case host work of a batch: the probe's (generation, oracle, judging) where "
                 "it supports it, and the framework's bookkeeping; launches stay on one thread; 1..1024")
      ->type_name("N")
      ->capture_default_str();
  cli.add_option("--batch", raw.batch,
                 "cases per batch, 1..16777216 (default: the probe's own); larger batches mean fewer, larger launches "
                 "on a GPU")
      ->type_name("N");
  cli.add_option("--sanitize", raw.sanitize,
                 "CUDA only: re-run this command under compute-sanitizer: racecheck, initcheck, memcheck or synccheck");
}

// The options that exist only where the probe registered what they act on (a fixture list, a fuzz generator, an input
// parser, a shrinker, kernels with skew points): added when the run starts, after the probe's registrations, so no
// probe's --help offers an option it does not honour.
void app::impl::add_probe_options() {
  const bool fixtures = !d.fixture_list.empty(), fuzzes = bool(d.fuzz), inputs = bool(d.input);
  if (fixtures || fuzzes || inputs) {
    auto& g = *cli.add_option_group("Case sources", "the sources of cases this probe has besides its own tables");
    if (fixtures)
      g.add_option("--fixture", raw.fixture, "fixture name, repeatable or comma list; `all` (default) = every fixture");
    if (fuzzes) {
      g.add_option("--fuzz", raw.fuzz, "number of seeded fuzz cases, 0..1000000000 (memory does not grow with it)")
          ->type_name("N");
      g.add_option("--seed", raw.seed, "base seed of the fuzz cases: 64-bit, decimal or 0x-hex")->type_name("S");
    }
    if (inputs)
      g.add_option("--input", raw.input,
                   "run only the case(s) FILE holds (- reads standard input), written in the tileprobe-input v1 format "
                   "(probes/common/README.md; the probe's README has an example); a shrunk counterexample's .tpin file "
                   "is one, and the Markdown report holds its text")
          ->type_name("FILE");
  }
  if (d.shrinker) {
    auto& g = *cli.add_option_group("Shrinking", "how a failing case is reduced to a smaller one that still fails");
    g.add_flag("!--no-shrink", raw.shrink, "do not shrink failures");
    g.add_option("--shrink-budget", raw.shrink_budget, "candidate runs per shrunk failure, 0..1000000")
        ->type_name("N")
        ->capture_default_str();
  }
  if (d.skew_points)
    cli.add_option_group("Races on CUDA", "this probe's kernels have skew points (tp::skew_point)")
        ->add_option("--skew", raw.skew,
                     "CUDA only: MASK:CYCLES, spin the warps whose bit is set in the hex MASK (bit w%32 for warp w) "
                     "for CYCLES clock cycles at every skew point of the kernels, to make races show")
        ->type_name("MASK:CYCLES");
}

void app::impl::note_given_options() {
  for (const char* option : {"--fuzz", "--seed", "--fixture", "--shrink-budget"})
    if (const auto* o = cli.get_option_no_throw(option); o && o->count() > 0) raw.given.insert(option);
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
    std::cerr << impl_->d.name << ": " << one_line(e.what()) << '\n';
    return 2;
  } catch (const backend_unavailable& e) {
    std::cerr << impl_->d.name << ": " << one_line(e.what()) << '\n';
    return 77;
  } catch (const internal_error& e) {
    std::cerr << impl_->d.name << ": internal error: " << one_line(e.what()) << '\n';
    return 3;
  } catch (const std::bad_alloc&) {
    std::cerr << impl_->d.name << ": internal error: out of memory\n";
    return 3;
  } catch (const std::logic_error& e) {
    std::cerr << impl_->d.name << ": internal error: probe defect: " << one_line(e.what()) << '\n';
    return 3;
  } catch (const std::exception& e) {
    // A device call outside any case (setting the skew) failed: the run did not happen as asked.
    std::cerr << impl_->d.name << ": internal error: " << one_line(e.what()) << '\n';
    return 3;
  }
}

int app::impl::run(int argc, char** argv) {
  opt.command_line.assign(argv, argv + argc);
  add_probe_options();
  if (const auto stop = parse_command_line(cli, argc, argv)) {
    if (stop->usage_error.empty()) return stop->exit_code;
    throw usage_error(stop->usage_error);
  }
  note_given_options();
  if (!d.runner && !d.batch_runner) throw std::logic_error("no runner registered");
  if (d.family.empty()) throw std::logic_error("no kernel family declared");
  const auto registry = provider_set ? provider(d.family) : default_variant_provider()(d.family);

  phase::check_target(raw, opt);
  if (opt.list_variants) return phase::list_variants(registry, d.family, opt.backend, std::cout);
  const auto reports = phase::check_run_options(raw, d, opt);
  const auto sel = phase::resolve_variants(registry, d, raw, opt);
  const auto hook = hooks_set ? hooks : default_backend_hooks();
  phase::prepare_backend(hook, opt);

  const auto started = std::chrono::steady_clock::now();  // the run's wall clock: case generation onwards
  const phase::case_plan plan(d, opt);
  if (!opt.list_cases && d.before)
    if (const auto code = d.before(plan.fixed_cases())) {
      std::cout.flush();
      return *code;
    }
  if (opt.list_cases) {
    plan.list(opt.shard, std::cout);
    return 0;
  }
  const phase::case_runner runner{d, hook};
  run_record rec = phase::new_record(d, opt, raw, sel);
  const auto ran = phase::execute(plan, runner, sel, opt, started, rec);
  rec.counterexamples = phase::shrink_failures(runner, d, opt, sel, ran, reports.input_stem());
  phase::finish_record(rec, d, opt, hook);
  return phase::write_reports(rec, reports, opt.bench, std::cout);
}

}  // namespace tp::probe
