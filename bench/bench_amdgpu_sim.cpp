// The AMDGPU simulator's figures, side by side in one run (printed, never asserted; the issue #14 targets are named
// next to the figures they concern):
//   1. decode: per code object given, instructions decoded, distinct mnemonics, and those without a handler (each would
//      stop a dispatch that reaches it);
//   2. simulated wave-instructions per second on one core, on the machine tests' int_ops kernel (executed
//      instructions: the no-ops the decoder links past, s_delay_alu / s_wait* / s_nop, are not counted);
//      with the price of plugins beside it: the same launch with none, with one doing nothing on memory accesses, and
//      with one doing nothing around every instruction (the instrumented interpreter loop);
//   3. each ck probe's default run, wall clock of the whole process, on the cpu backend and on the simulator
//      (TILEPROBE_HIP=sim:<arch>, --backend hip); target: <= 30 s on the simulator;
//   4. each ck probe's fuzz loop (--fuzz N --case src=fuzz: the seeded random tiles only), per variant the probe's own
//      cases/s (its --bench timing of the variant's batches: launches and judging, not process start-up or the
//      one-time decode of the code objects, which section 3 includes: the probe reports the decode as its run's
//      setup_seconds, printed here beside the figures), cpu and simulator side by side, and the ratio
//      simulator/cpu; target: >= 1. Each figure is the best of --repeat runs (the host may be shared).
//
//   5. with --fa: the two flash-attention probes' default runs the same way (issue #15's target: <= 120 s on the
//      simulator; every schedule and the LDS race detector on, as the probes run them), and their default runs on the
//      tree variants (--variant tree-upstream-d256,tree-fixed: beellama's own kernels, kernels/fattn_tree; issue
//      #31's target: <= 120 s) where those are built;
//   6. with --fa-tree (a build with -DTP_FA_ROOT): one case through beellama's own kernel (tree-fixed) on the
//      simulator beside the model's kernel on the simulator and the model on the CPU emulator, tiles/s and
//      wave-instructions/s side by side with their ratios (bench_fa_tree.cpp).
//
// The simulator runs the copy of its semantics the CPU can (simt/amdgpu_sim/machine/host_isa.h; the rate line names
// it); TILEPROBE_SIM_HOST_ISA=baseline in the environment measures the baseline copy instead, here and in the probes.
//
//   tp-bench-amdgpu-sim [--kernels test_kernels.<arch>.hsaco] [--probes DIR] [--arch gfx1201] [--fuzz N]
//                       [--repeat R] [--no-probes] [--fa] [--fa-tree] [code objects to survey ...]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <random>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <unistd.h>

#include <nlohmann/json.hpp>

#include "simt/amdgpu_sim/machine.h"
#include "simt/amdgpu_sim/machine/program.h"
#include "simt/amdgpu_sim/machine/schedule.h"
#include "simt/amdgpu_sim/machine/instruction.h"
#include "tests/amdgpu_sim/machine/harness.h"

using namespace tp::amdgpu_sim;

#if TP_BENCH_FA_TREE
int fa_tree_rates(unsigned repeat);  // bench_fa_tree.cpp
#endif

namespace {

void survey(const std::string& path) {
  std::unique_ptr<code_object> co;
  try {
    co = load_code_object(test::read_file(path));
  } catch (const std::exception& e) {
    std::printf("decode  %s: not loaded: %s\n", path.c_str(), e.what());
    return;
  }
  const machine::program& p = machine::program_of(*co);
  std::set<std::string> all;
  std::map<std::string, unsigned> missing;
  for (std::size_t i = 0; i + 1 < p.ops.size(); ++i) {
    const std::string& m = p.mnemonics[p.ops[i].mnemonic];
    all.insert(m);
    if (p.ops[i].exec == machine::exec_unimplemented || p.ops[i].exec == machine::exec_undecodable) ++missing[m];
  }
  std::printf("decode  %s (%s): %zu instructions, %zu mnemonics, %zu without a handler\n", path.c_str(),
              co->arch().c_str(), p.ops.size() - 1, all.size(), missing.size());
  for (const auto& [m, n] : missing) std::printf("        unimplemented %-40s x%u\n", m.c_str(), n);
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// A plugin that does nothing: on memory accesses only, or around every instruction too.
struct does_nothing final : machine::plugin {
  explicit does_nothing(bool instructions) : instructions_(instructions) {}
  bool observes_instructions() const override { return instructions_; }
  bool instructions_;
};

// The int_ops kernel over 64K threads: the rate with the harness's memory checks (one launch, as the figure has always
// been taken), then the price of plugins (machine/plugin.h) on the same launch: none attached (the interpreter's plain
// loop, as every launch without plugins runs), one doing nothing on every memory access (the plain loop with the
// memory hook called), one doing nothing around every instruction (the instrumented loop); alternating, best of
// `repeat` each. The runtime's own checks (global_checks) come on top in the probes.
void wave_instruction_rates(const std::string& path, unsigned repeat) {
  std::unique_ptr<code_object> co = load_code_object(test::read_file(path));
  test::test_memory mem;
  const uint32_t n = 64 * 1024;
  std::vector<uint32_t> in(3 * n);
  std::mt19937 rng(1);
  for (auto& x : in) x = rng();
  const uint64_t din = mem.upload(in), dout = mem.alloc(std::size_t(n) * 64 * 4);
  const std::string k = test::kernel_named(*co, "int_ops");
  const auto run = [&](bool memory_checks, machine::plugin* extra) {  // wave-instructions and seconds
    const uint64_t before = machine::executed_instructions(*co);
    const auto t0 = std::chrono::steady_clock::now();
    test::launch(*co, mem, k, {n / 64, 1, 1}, {64, 1, 1}, {din, dout, n}, 0, wave_schedule::adversarial, 0, nullptr,
                 memory_checks, extra);
    const double s = seconds_since(t0);
    return std::pair{machine::executed_instructions(*co) - before, s};
  };
  const auto [wi, s] = run(true, nullptr);
  std::printf("rate    %s int_ops, %u threads: %llu wave-instructions in %.3f s = %.2f M wave-instructions/s "
              "(one core; the %s copy of the semantics)\n",
              co->arch().c_str(), n, static_cast<unsigned long long>(wi), s, double(wi) / s / 1e6,
              machine::host_isa_level());
  does_nothing on_memory(false), on_instructions(true);
  machine::plugin* const attached[] = {nullptr, &on_memory, &on_instructions};
  const char* names[] = {"no plugin", "one plugin doing nothing on memory accesses",
                         "one plugin doing nothing around every instruction"};
  double best[3] = {0, 0, 0};
  for (unsigned r = 0; r < repeat; ++r)
    for (unsigned c = 0; c < 3; ++c) {
      const auto [i, t] = run(false, attached[c]);
      best[c] = std::max(best[c], double(i) / t / 1e6);
    }
  for (unsigned c = 0; c < 3; ++c)
    std::printf("plugins %s int_ops, %-50s %6.2f M wave-instructions/s (best of %u)\n", co->arch().c_str(), names[c],
                best[c], repeat);
}

std::string quoted(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

struct run_result {
  int exit_code = -1;
  double wall = 0;
  nlohmann::json report;
};

// One probe process; its JSON report read back. The environment picks the runtime: TILEPROBE_HIP unset for cpu.
run_result run_probe(const std::string& probe, const std::string& sim, bool hip, const std::string& args) {
  char tmpl[] = "/tmp/tp-bench-amdgpu-sim-XXXXXX";
  const int fd = mkstemp(tmpl);
  if (fd < 0) throw std::runtime_error("mkstemp failed");
  close(fd);
  const std::string json = tmpl;
  const std::string cmd = std::string(hip ? "env TILEPROBE_HIP=" + sim + " " : "env -u TILEPROBE_HIP ") +
                          quoted(probe) + " --backend " + (hip ? "hip" : "cpu") + " " + args +
                          " --report json --out-json " + json + " >/dev/null 2>&1";
  run_result r;
  const auto t0 = std::chrono::steady_clock::now();
  const int rc = std::system(cmd.c_str());
  r.wall = seconds_since(t0);
  r.exit_code = WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
  std::ifstream f(json);
  try {
    if (f) r.report = nlohmann::json::parse(f);
  } catch (const std::exception&) {
  }
  std::remove(json.c_str());
  return r;
}

// The variants' cases/s of a --bench run, by name.
std::map<std::string, std::pair<double, double>> variant_rates(const nlohmann::json& report) {
  std::map<std::string, std::pair<double, double>> out;  // name -> (cases, seconds)
  if (!report.contains("variants")) return out;
  for (const auto& v : report["variants"]) {
    const double cases = double(v.value("passed", 0ull) + v.value("failed", 0ull));
    out[v.value("name", std::string("?"))] = {cases, v.value("seconds", 0.0)};
  }
  return out;
}

// Each probe's default run, cpu and simulator side by side (wall clock of the process, best of `repeat`).
void default_runs(const std::string& dir, const std::string& sim, unsigned repeat, std::vector<const char*> names,
                  double target_s, const std::string& args = "", bool with_cpu = true) {
  std::printf("\ndefault runs (wall clock of the process; best of %u)      cpu        simulator (%s)   target <= %.0f s\n",
              repeat, sim.c_str(), target_s);
  for (const char* name : names) {
    const std::string probe = dir + "/probe-" + name;
    if (access(probe.c_str(), X_OK) != 0) {
      std::printf("  %-24s not built (%s)\n", name, probe.c_str());
      continue;
    }
    run_result best_cpu, best_sim;
    for (unsigned i = 0; i < repeat; ++i) {
      const run_result c = with_cpu ? run_probe(probe, sim, false, args) : run_result{},
                       s = run_probe(probe, sim, true, args);
      if (i == 0 || c.wall < best_cpu.wall) best_cpu = c;
      if (i == 0 || s.wall < best_sim.wall) best_sim = s;
    }
    char cpu[32] = "       not run";
    if (with_cpu) std::snprintf(cpu, sizeof cpu, "%6.2f s (exit %d)", best_cpu.wall, best_cpu.exit_code);
    std::printf("  %-52s %s  %6.2f s (exit %d)  %s\n", name, cpu, best_sim.wall, best_sim.exit_code,
                best_sim.exit_code == 0 ? (best_sim.wall <= target_s ? "met" : "MISSED") : "not judged (exit != 0)");
  }
}

void probes(const std::string& dir, const std::string& sim, unsigned fuzz, unsigned repeat) {
  const std::vector<const char*> names = {"ck-phantom-fallback", "ck-nibble-overcount", "ck-idx-swap-xor"};
  default_runs(dir, sim, repeat, names, 30);
  std::printf("\nfuzz loop (--fuzz %u --case src=fuzz --no-shrink --bench; per variant, best of %u)\n", fuzz, repeat);
  std::printf("  %-24s %-22s %14s %14s %10s\n", "probe", "variant", "cpu cases/s", "sim cases/s", "sim/cpu");
  const std::string args = "--fuzz " + std::to_string(fuzz) + " --seed 1 --case src=fuzz --no-shrink --bench";
  double all_cpu_s = 0, all_sim_s = 0, all_cases = 0;
  for (const char* name : names) {
    const std::string probe = dir + "/probe-" + name;
    if (access(probe.c_str(), X_OK) != 0) continue;
    std::map<std::string, std::pair<double, double>> cpu, simr;
    double setup = -1;  // the simulator runs' setup_seconds (code-object decode), the smallest seen
    for (unsigned i = 0; i < repeat; ++i) {
      for (auto& [hip, into] : {std::pair{false, &cpu}, std::pair{true, &simr}}) {
        const run_result r = run_probe(probe, sim, hip, args);
        if (r.exit_code != 0 && r.exit_code != 1) {
          std::printf("  %-24s %s run exited %d: no figures\n", name, hip ? "simulator" : "cpu", r.exit_code);
          continue;
        }
        if (hip && r.report.contains("setup_seconds")) {
          const double s = r.report["setup_seconds"].get<double>();
          setup = setup < 0 ? s : std::min(setup, s);
        }
        for (const auto& [v, cs] : variant_rates(r.report)) {
          auto [it, fresh] = into->emplace(v, cs);
          if (!fresh && cs.second < it->second.second) it->second = cs;
        }
      }
    }
    for (const auto& [v, c] : cpu) {
      const auto s = simr.find(v);
      if (s == simr.end() || c.second <= 0 || s->second.second <= 0) continue;
      const double rc = c.first / c.second, rs = s->second.first / s->second.second;
      std::printf("  %-24s %-22s %14.0f %14.0f %10.2f\n", name, v.c_str(), rc, rs, rs / rc);
      all_cases += c.first;
      all_cpu_s += c.second;
      all_sim_s += s->second.second;
    }
    if (setup >= 0)
      std::printf("  %-24s simulator's one-time code-object decode, outside the figures above: %.3f s\n", name, setup);
  }
  if (all_cpu_s > 0 && all_sim_s > 0)
    std::printf("  %-47s %14.0f %14.0f %10.2f   target >= 1: %s\n", "all variants of the three probes",
                all_cases / all_cpu_s, all_cases / all_sim_s, all_cpu_s / all_sim_s,
                all_cpu_s / all_sim_s >= 1 ? "met" : "MISSED");
}

}  // namespace

int main(int argc, char** argv) {
  std::string kernels, dir = TP_SIM_BENCH_PROBE_DIR, arch = "gfx1201";
  unsigned fuzz = 10000, repeat = 3;
  bool with_probes = true, with_fa = false, with_fa_tree = false, fa_tree_child = false;
  std::vector<std::string> objects;
  const auto usage = [&] {
    std::fprintf(stderr,
                 "usage: %s [--kernels F.hsaco] [--probes DIR] [--arch gfx1201|gfx1100] [--fuzz N] [--repeat R] "
                 "[--no-probes] [--fa] [--fa-tree] [code objects ...]\n",
                 argv[0]);
    return 2;
  };
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const bool has_value = i + 1 < argc;
    try {
      if (a == "--kernels" && has_value) kernels = argv[++i];
      else if (a == "--probes" && has_value) dir = argv[++i];
      else if (a == "--arch" && has_value) arch = argv[++i];
      else if (a == "--fuzz" && has_value) fuzz = unsigned(std::stoul(argv[++i]));
      else if (a == "--repeat" && has_value) repeat = std::max(1u, unsigned(std::stoul(argv[++i])));
      else if (a == "--no-probes") with_probes = false;
      else if (a == "--fa") with_fa = true;
      else if (a == "--fa-tree") with_fa_tree = true;
      else if (a == "--fa-tree-rates") fa_tree_child = true;  // the child --fa-tree starts under the simulator
      else if (a.rfind("--", 0) == 0) return usage();
      else objects.push_back(a);
    } catch (const std::exception&) {
      return usage();
    }
  }
  if (fa_tree_child) {
#if TP_BENCH_FA_TREE
    return fa_tree_rates(repeat);
#else
    return usage();
#endif
  }
  if (kernels.empty()) kernels = std::string(TP_SIM_BENCH_KERNELS_DIR) + "/test_kernels." + arch + ".hsaco";
  if (!arch_supported(arch)) {
    std::fprintf(stderr, "bench: --arch %s: the simulator does not execute it\n", arch.c_str());
    return 2;
  }
  try {
    for (const std::string& o : objects) survey(o);
    wave_instruction_rates(kernels, repeat);
    if (with_probes) probes(dir, "sim:" + arch, fuzz, repeat);
    if (with_fa) {
      default_runs(dir, "sim:" + arch, repeat, {"fa-k00-combine-race", "fa-missing-tile-meta"}, 120);
#if TP_BENCH_FA_TREE
      std::printf("\non the tree variants tree-upstream-d256 and tree-fixed (beellama's own kernels, which run on the "
                  "simulator only):\n");
      default_runs(dir, "sim:" + arch, repeat, {"fa-k00-combine-race", "fa-missing-tile-meta"}, 120,
                   "--variant tree-upstream-d256,tree-fixed --buggy tree-upstream-d256 --fixed tree-fixed", false);
#endif
    }
    if (with_fa_tree) {
#if TP_BENCH_FA_TREE
      const std::string self = quoted(argv[0]);
      std::fflush(stdout);
      if (std::system(("env TILEPROBE_HIP=sim:" + arch + " " + self + " --fa-tree-rates --repeat " +
                       std::to_string(repeat)).c_str()) != 0)
        std::printf("fa tree: the measuring child failed\n");
#else
      std::printf("\nfa tree: not built (configure with -DTP_FA_ROOT and fattn/tree-fixed in TP_HIP_VARIANTS)\n");
#endif
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench: %s\n", e.what());
    return 3;
  }
  return 0;
}
