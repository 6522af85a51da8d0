// The probe framework: everything a probe's main.cpp uses. See probes/common/README.md for a complete probe.
//
// A probe declares its kernel family and which variants are buggy / fixed, registers case sources (fixtures,
// adversarial tables, canonical controls, a seeded fuzz generator, an --input parser), a runner (one case on one
// variant -> outcome) and optionally a shrinker; app::main parses the common CLI, builds the case list, runs every
// selected case on every selected variant, shrinks failures, decides the verdict and writes the reports.
#pragma once

#include <cstdint>
#include <exception>
#include <functional>
#include <map>
#include <initializer_list>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "probes/common/case.h"
#include "probes/common/input_file.h"
#include "probes/common/outcome.h"

namespace CLI {
class App;
}

namespace tp::probe {

// What the run demands of the verdicts (--expect).
//   fail_pass: fixed variants pass every case; buggy variants fail at least one case of each must_catch source kind
//              (and every on_buggy::fail case); control cases pass on every variant.
//   pass:      every selected variant passes every case (non-target variants in the mutation matrix).
//   fail:      every selected variant fails at least one case ("killed", for mutants).
enum class expect_mode { fail_pass, pass, fail };
constexpr std::string_view names_of(expect_mode) { return "fail-pass pass fail"; }

// The role a selected variant plays in fail_pass mode; `other` variants are run and reported, with only the
// control-case rule applied to them.
enum class variant_role { buggy, fixed, other };
constexpr std::string_view names_of(variant_role) { return "buggy fixed other"; }

// A selected variant, as the runner sees it. `ops` is the ops struct the variant registered (TP_REGISTER_VARIANT).
struct variant {
  std::string name;     // upstream, fixed, fixed-minus-0003, mutant-swap-without-xor, ...
  std::string backend;  // cpu, cuda, hip
  const void* ops = nullptr;
  variant_role role = variant_role::other;
  template <class Ops>
  const Ops& ops_as() const { return *static_cast<const Ops*>(ops); }
};

// A variant as the registry lists it; the provider is simt/registry.h's tp::variants() unless a test injects one.
struct registered_variant {
  std::string family, name, backend;
  const void* ops = nullptr;
};
using variant_provider = std::function<std::vector<registered_variant>(std::string_view family)>;
// Whether a backend can run here (false -> exit 77) and the device's name for the environment block.
struct backend_hooks {
  std::function<bool(std::string_view backend)> available;
  std::function<std::string(std::string_view backend)> device_name;
  // --skew MASK:CYCLES on CUDA: tp::set_skew (simt/host.h) in every CUDA translation unit; empty when not built.
  std::function<void(unsigned warp_mask, unsigned cycles)> set_skew = {};
  // --sanitize TOOL: re-execute `args` (argv without --sanitize) under compute-sanitizer; does not return when it
  // execs. `sanitizer` names the tool this process already runs under ("" when none), for the environment block.
  std::function<void(const std::string& tool, const std::vector<std::string>& args)> run_under_sanitizer = {};
  std::function<std::string()> sanitizer = {};
  // Whether an exception a runner threw is a failure of the machinery (simt's device_error), not of the case: the
  // run stops with exit 3 instead of counting the case as failed.
  std::function<bool(const std::exception&)> internal = {};
  // Wall-clock seconds of one-time runtime work inside the runners since the last call (tp::take_setup_seconds:
  // tileprobe's simulator decoding a code object at its first launch); kept out of the variants' seconds and
  // reported as the run's setup_seconds. Empty: none.
  std::function<double(std::string_view backend)> setup_seconds = {};
};

// The common options after parsing; valid inside sources, runners and shrinkers.
struct options {
  std::string backend = "cpu";
  std::vector<std::string> variants;     // resolved names (after `all` and the probe's default)
  std::vector<std::string> fixtures;     // --fixture values; empty means all
  bool all_fixtures() const { return fixtures.empty(); }
  std::uint64_t fuzz = 0;                // --fuzz N (the probe may set a default)
  std::uint64_t seed = 0;                // --seed S (base of fuzz_case_seed)
  std::vector<std::string> case_filters; // --case (repeatable); empty: every case
  std::string input;                     // --input FILE; when set, only the parsed input cases run
  expect_mode expect = expect_mode::fail_pass;
  shard_spec shard;
  bool list_cases = false, list_variants = false, bench = false, shrink = true;
  unsigned shrink_budget = 200;          // runs of candidate cases per shrunk failure
  unsigned jobs = 1;                     // --jobs: host threads a batch runner may use for its per-case host work
  std::size_t batch = 0;                 // --batch: cases per batch_runner call (0: the probe's batch_size)
  std::vector<std::string> command_line; // argv as given, for the reproduce line
  std::optional<std::pair<unsigned, unsigned>> skew;  // --skew: warp mask, spin cycles (CUDA only)
  std::string sanitize;                  // --sanitize tool (CUDA only; the run itself happens in the re-executed child)
};

class app {
 public:
  // `name` is the executable name (ck-phantom-fallback); `summary` one line on the bug, shown in --help and reports.
  app(std::string name, std::string summary);
  ~app();
  app(const app&) = delete;
  app& operator=(const app&) = delete;

  // Declarations (before main()).
  app& family(std::string family_name);                                 // registry family, e.g. "ck_sparse"
  app& default_variants(std::string list);                              // default of --variant, e.g. "upstream,fixed"
  app& buggy(std::initializer_list<std::string_view> names);           // default of --buggy
  app& fixed(std::initializer_list<std::string_view> names);           // default of --fixed
  app& must_catch(std::initializer_list<source_kind> kinds);           // kinds each buggy variant must fail on
  app& default_fuzz(std::uint64_t n, std::uint64_t seed = 1);           // defaults of --fuzz / --seed
  app& batch_size(std::size_t n);                                       // cases per batch_runner call (default 256)
  app& env(std::string key, std::string value);                         // extra environment line (fixture manifest...)

  // Case sources; called once, after the CLI is parsed, in the order registered. Sources must be deterministic:
  // the same options give the same list in the same order (sharding and --case rely on it).
  using source_fn = std::function<void(case_list& out)>;
  app& source(source_kind kind, source_fn fn);  // every case it adds gets `kind` as its source
  // Fuzz: called with fuzz_case_seed(--seed, i) for i in [0, --fuzz); adds the case(s) for that seed. Must depend on
  // the seed (and probe options) only: `--case <id with seed=S>` calls it once with S to rerun that case alone.
  // Each case must carry the seed in its id (case_name::seed); the framework checks.
  using fuzz_fn = std::function<void(std::uint64_t case_seed, case_list& out)>;
  app& fuzz(fuzz_fn fn);
  // --input FILE: parse one tile given as data; throw usage_error for malformed input (exit 2, nothing run).
  using input_fn = std::function<void(const std::string& path, case_list& out)>;
  app& input(input_fn fn);

  // Running. Either a single-case runner or a batch runner (the ck_sparse fuzz loop launches many tiles at once).
  // An exception escaping a runner marks the case(s) failed with the message as `error` (a kernel_error on a
  // fixed variant is a regression, not a crash); usage_error / backend_unavailable still end the run.
  using runner_fn = std::function<outcome(const case_def& c, const variant& v)>;
  using batch_runner_fn =
      std::function<void(std::span<const case_def* const> cases, const variant& v, std::span<outcome> out)>;
  app& runner(runner_fn fn);
  app& batch_runner(batch_runner_fn fn);

  // Shrinking: smaller candidates of a failing case (one group, one lane, one tile...), most aggressive first.
  // The framework keeps the first candidate that still fails, repeats until none fails or the budget is spent, then
  // runs the final case on the first fixed variant (when the failure was on another) to print both side by side.
  using shrink_fn = std::function<case_list(const case_def& c)>;
  app& shrinker(shrink_fn fn);

  // Shrunk ids rerun alone (`--case ID`): the parent id of a shrunk case's id (probe::shrunk_parent(id, n) when the
  // shrinker names its candidates with probe::shrunk_id), nullopt for other ids. The framework finds the parent case
  // (a listed case, a fuzz seed, or itself a shrunk id) and takes the shrinker's candidate with that id.
  using parent_fn = std::function<std::optional<std::string>(std::string_view id)>;
  app& shrunk_parent(parent_fn fn);
  // A case as a tileprobe-input v1 file (probes/common/input_file.h), or nullopt: each shrunk counterexample is also
  // written as one beside the reports, and its reproduce line uses it.
  using input_text_fn = std::function<std::optional<std::string>(const case_def& c)>;
  app& input_text(input_text_fn fn);
  // A mode that prints and runs nothing (swmmac-sweep --predict): called with the fixed (non-fuzz) cases once the
  // options are checked and the cases built, before anything runs; an exit code ends main() there, nullopt runs on.
  using before_run_fn = std::function<std::optional<int>(const case_list& cases)>;
  app& before_run(before_run_fn fn);
  // The names --fixture accepts (any other is a usage error listing these). Only a probe that declares them, and
  // reads opts().fixtures in its fixture source, offers --fixture; likewise --fuzz/--seed need fuzz(), --input needs
  // input(), --no-shrink/--shrink-budget need shrinker(), and --skew needs skew_points().
  app& fixture_names(std::vector<std::string> names);
  // This probe's kernels call tp::skew_point() (simt/simt.h): offer --skew, which delays chosen warps there on CUDA.
  app& skew_points();

  // Lines summarising the whole run that no single case shows (e.g. "ubatch threshold: 512"), gathered by the
  // probe's runner in its own state; called once after every case ran (before shrinking), shown in every report.
  using notes_fn = std::function<std::vector<std::string>()>;
  app& notes(notes_fn fn);
  // With --bench: the probe's measured figures by name (seconds, counts), written into the JSON report's "bench"
  // object so tools compare runs from fields, not from the notes' prose; called once after every case ran.
  using bench_figures_fn = std::function<std::map<std::string, double>()>;
  app& bench_figures(bench_figures_fn fn);

  // The CLI11 app, for probe-specific options (add before main()).
  CLI::App& cli();
  const options& opts() const;
  const std::string& name() const;  // as given to the constructor

  // Parse, build cases, run, report. Returns the exit code: 0 as expected, 1 not, 2 usage/input, 3 internal failure
  // (out of memory, a device error, a probe defect: the run could not be judged), 77 unavailable.
  int main(int argc, char** argv);

  // Tests inject a registry and backend stand-in; by default they come from simt/ (registry.h, host.h).
  app& use_variant_provider(variant_provider p);
  app& use_backend_hooks(backend_hooks h);

  struct impl;

 private:
  std::unique_ptr<impl> impl_;
};

// The registry and backend hooks built from simt/ (probes/common/simt_bridge.cpp), or stand-ins that list nothing
// and report every backend unavailable when simt/ was not built.
variant_provider default_variant_provider();
backend_hooks default_backend_hooks();

}  // namespace tp::probe
