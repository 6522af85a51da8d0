// ck_sparse kernel launches alone, with no generation, oracle or judging: random operands (every byte random), one
// launch of N tiles per shape, per variant, on each backend asked for, side by side in one run. A launch is what the
// probes' "launches" phase costs: upload, kernel, read-back. Prints 16x16x32 tile-cases/s per launch (wall clock, best
// of R) and, with two backends, their ratio, so the probes' --bench split can be read against a pure kernel figure and
// a GPU's kernel speed against the emulator's. Asserts nothing.
//
// Usage: tp-bench-ck-kernel [--backends cpu[,cuda]] [--tiles N (cpu, default 2048)] [--gpu-tiles N (default 65536)]
//                           [--reps R (default 3)] [--type int8|pk_int4|fp8_e4m3|fp16]
// Exit codes: 0 measured, 2 bad usage, 77 a backend asked for is not available (not built, or no device).
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "kernels/ck_sparse/api.h"
#include "simt/host.h"
#include "simt/registry.h"

namespace api = tp::ck_sparse;

namespace {

[[noreturn]] void usage(const std::string& why) {
  std::fprintf(stderr,
               "tp-bench-ck-kernel: %s\nusage: tp-bench-ck-kernel [--backends cpu[,cuda]] [--tiles N] [--gpu-tiles N] "
               "[--reps R] [--type T]\n",
               why.c_str());
  std::exit(2);
}

std::size_t positive(const char* flag, const char* v) {
  char* end = nullptr;
  const unsigned long long n = std::strtoull(v, &end, 10);
  if (!*v || *end || n == 0 || n > (1ull << 24)) usage(std::string(flag) + " needs an integer in 1..16777216");
  return std::size_t(n);
}

// Tile-cases/s of one launch of `tiles` random tiles of shape s: the best wall clock of `reps` launches.
double measure(const api::ops& ops, const api::tile_shape& s, std::size_t tiles, int reps) {
  api::tile_batch in;
  in.shape = s;
  in.tiles = tiles;
  std::mt19937_64 rng(42);
  in.a.resize(tiles * s.operand_bytes());
  in.b.resize(tiles * s.operand_bytes());
  for (auto& x : in.a) x = std::uint8_t(rng());
  for (auto& x : in.b) x = std::uint8_t(rng() & 0x77);  // finite fp8/fp16 codes: no NaN/Inf surprises
  api::tile_results out;
  ops.run_tiles(in, out);  // warm-up: first-launch costs (device buffers, module load) are not the steady state
  double best = 1e30;
  for (int r = 0; r < reps; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    ops.run_tiles(in, out);
    best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  return double(tiles) * s.k / 32 / best;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<tp::backend> backends{tp::backend::cpu};
  std::size_t cpu_tiles = 2048, gpu_tiles = 65536;
  int reps = 3;
  std::string only;
  for (int i = 1; i < argc; ++i) {
    const std::string_view a = argv[i];
    const auto value = [&]() -> const char* {
      if (i + 1 >= argc) usage(std::string(a) + " needs a value");
      return argv[++i];
    };
    if (a == "--backends") {
      backends.clear();
      std::string list = value();
      for (std::size_t p = 0; p <= list.size();) {
        const std::size_t q = std::min(list.find(',', p), list.size());
        const std::string name = list.substr(p, q - p);
        if (name == "cpu") backends.push_back(tp::backend::cpu);
        else if (name == "cuda") backends.push_back(tp::backend::cuda);
        else if (name == "hip") backends.push_back(tp::backend::hip);
        else usage("--backends: unknown backend '" + name + "' (cpu, cuda, hip)");
        p = q + 1;
      }
    } else if (a == "--tiles") {
      cpu_tiles = positive("--tiles", value());
    } else if (a == "--gpu-tiles") {
      gpu_tiles = positive("--gpu-tiles", value());
    } else if (a == "--reps") {
      reps = int(std::min<std::size_t>(positive("--reps", value()), 1000));
    } else if (a == "--type") {
      only = value();
      if (only != "int8" && only != "pk_int4" && only != "fp8_e4m3" && only != "fp16")
        usage("--type: int8, pk_int4, fp8_e4m3 or fp16");
    } else {
      usage("unknown argument '" + std::string(a) + "'");
    }
  }
  for (auto b : backends)
    if (!tp::backend_available(b)) {
      std::fprintf(stderr, "tp-bench-ck-kernel: backend %s is not available here: %s\n", tp::to_string(b),
                   tp::device_description(b).c_str());
      return 77;
    }
  for (auto b : backends)
    std::printf("# %s: %s, %zu tiles per launch\n", tp::to_string(b), tp::device_description(b).c_str(),
                b == tp::backend::cpu ? cpu_tiles : gpu_tiles);

  const api::tile_shape shapes[] = {
      {api::dtype::int8, 32},     {api::dtype::int8, 256},     {api::dtype::pk_int4, 32},
      {api::dtype::pk_int4, 256}, {api::dtype::fp8_e4m3, 32},  {api::dtype::fp16, 32},
      {api::dtype::fp16, 256},    {api::dtype::pk_int4, 64, api::instruction::iu4_k64}};
  for (const char* variant : {"upstream", "fixed"})
    for (const auto& s : shapes) {
      if (!only.empty() && only != api::to_string(s.type)) continue;
      std::printf("%-8s %-8s K=%-3u %-9s", variant, api::to_string(s.type), s.k, api::to_string(s.instr));
      double first = 0;
      for (auto b : backends) {
        const auto* ops = tp::find_variant<api::ops>("ck_sparse", variant, b);
        if (!ops) {
          std::fprintf(stderr, "\ntp-bench-ck-kernel: variant %s is not built for %s\n", variant, tp::to_string(b));
          return 77;
        }
        const double rate = measure(*ops, s, b == tp::backend::cpu ? cpu_tiles : gpu_tiles, reps);
        std::printf("  %s %11.0f tile-cases/s", tp::to_string(b), rate);
        if (first == 0) first = rate;
        else std::printf(" = %6.1fx %s", rate / first, tp::to_string(backends.front()));
      }
      std::printf("   (wall clock per launch: upload, kernel, read-back; best of %d)\n", reps);
    }
  return 0;
}
