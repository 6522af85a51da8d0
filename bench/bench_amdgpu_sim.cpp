// The AMDGPU simulator's figures, side by side in one run (printed, never asserted):
//   1. decode: per code object, instructions decoded, distinct mnemonics, and those without a handler (each would
//      stop a dispatch that reaches it);
//   2. simulated wave-instructions per second on one core, on the machine tests' int_ops kernel;
//   3. with --probe: a ck probe's fuzz loop (tile cases per second) on the cpu backend and on the simulator
//      (TILEPROBE_HIP=sim, --backend hip), and their ratio.
//
//   tp-bench-amdgpu-sim [--kernels test_kernels.gfx1201.hsaco] [--probe build/bin/probe-ck-phantom-fallback
//                       --fuzz N] [code objects to survey ...]
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "simt/amdgpu_sim/machine.h"
#include "simt/amdgpu_sim/machine/program.h"
#include "simt/amdgpu_sim/machine/schedule.h"
#include "simt/amdgpu_sim/machine/semantics.h"
#include "tests/amdgpu_sim/machine/harness.h"

using namespace tp::amdgpu_sim;

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

void wave_instruction_rate(const std::string& path) {
  std::unique_ptr<code_object> co = load_code_object(test::read_file(path));
  test::test_memory mem;
  const uint32_t n = 64 * 256;
  std::vector<uint32_t> in(3 * n);
  std::mt19937 rng(1);
  for (auto& x : in) x = rng();
  const uint64_t din = mem.upload(in), dout = mem.alloc(std::size_t(n) * 64 * 4);
  const std::string k = test::kernel_named(*co, "int_ops");
  const uint64_t before = machine::executed_instructions(*co);
  const auto t0 = std::chrono::steady_clock::now();
  test::launch(*co, mem, k, {n / 64, 1, 1}, {64, 1, 1}, {din, dout, n});
  const double s = seconds_since(t0);
  const uint64_t wi = machine::executed_instructions(*co) - before;
  std::printf("rate    int_ops, %u threads: %llu wave-instructions in %.3f s = %.2f M wave-instructions/s (one core)\n",
              n, static_cast<unsigned long long>(wi), s, double(wi) / s / 1e6);
}

double timed_run(const std::string& cmd) {
  const auto t0 = std::chrono::steady_clock::now();
  const int rc = std::system(cmd.c_str());
  const double s = seconds_since(t0);
  std::printf("probe   %-100s exit %d, %.2f s\n", cmd.c_str(), WIFEXITED(rc) ? WEXITSTATUS(rc) : -1, s);
  return s;
}

}  // namespace

int main(int argc, char** argv) {
  std::string kernels = TP_SIM_BENCH_DEFAULT_KERNELS, probe;
  unsigned fuzz = 200;
  std::vector<std::string> objects;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--kernels" && i + 1 < argc) kernels = argv[++i];
    else if (a == "--probe" && i + 1 < argc) probe = argv[++i];
    else if (a == "--fuzz" && i + 1 < argc) fuzz = unsigned(std::stoul(argv[++i]));
    else if (a.rfind("--", 0) == 0) {
      std::fprintf(stderr, "usage: %s [--kernels F.hsaco] [--probe PROBE --fuzz N] [code objects ...]\n", argv[0]);
      return 2;
    } else objects.push_back(a);
  }
  try {
    for (const std::string& o : objects) survey(o);
    wave_instruction_rate(kernels);
    if (!probe.empty()) {
      // Same cases on both backends: the fuzz loop's tile cases divided by the run's wall time.
      const std::string args = " --variant upstream,fixed --fixture none --fuzz " + std::to_string(fuzz) + " --seed 1 >/dev/null";
      const double cpu = timed_run(probe + " --backend cpu" + args);
      const double sim = timed_run("TILEPROBE_HIP=sim " + probe + " --backend hip" + args);
      std::printf("fuzz    %u cases x 2 variants: cpu %.1f cases/s, simulator %.1f cases/s, simulator/cpu = %.2f\n", fuzz,
                  2.0 * fuzz / cpu, 2.0 * fuzz / sim, cpu / sim);
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench: %s\n", e.what());
    return 3;
  }
  return 0;
}
