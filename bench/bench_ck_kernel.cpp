// ck_sparse kernel launches alone on the CPU backend: random operands (every byte random), one launch of N tiles per
// shape, per variant; prints 16x16x32 tile-cases/s per core for the launch (upload, emulated kernel, download) so the
// probes' --bench split (generate / kernel / oracle) can be read against a pure kernel figure. Asserts nothing.
// Usage: tp-bench-ck-kernel [tiles per launch (default 2048)] [repetitions (default 3)] [only this dtype, e.g. fp16]
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <random>

#include "kernels/ck_sparse/api.h"
#include "simt/registry.h"

namespace api = tp::ck_sparse;

namespace {
double cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return double(ts.tv_sec) + 1e-9 * double(ts.tv_nsec);
}
}  // namespace

int main(int argc, char** argv) {
  const std::size_t tiles = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 2048;
  const int reps = argc > 2 ? std::atoi(argv[2]) : 3;
  const char* only = argc > 3 ? argv[3] : nullptr;
  const api::tile_shape shapes[] = {
      {api::dtype::int8, 32},     {api::dtype::int8, 256},     {api::dtype::pk_int4, 32},
      {api::dtype::pk_int4, 256}, {api::dtype::fp8_e4m3, 32},  {api::dtype::fp16, 32},
      {api::dtype::fp16, 256},    {api::dtype::pk_int4, 64, api::instruction::iu4_k64}};
  for (const char* variant : {"upstream", "fixed"}) {
    const auto* ops = tp::find_variant<api::ops>("ck_sparse", variant, tp::backend::cpu);
    if (!ops) {
      std::fprintf(stderr, "tp-bench-ck-kernel: variant %s not linked\n", variant);
      return 2;
    }
    for (const auto& s : shapes) {
      if (only && std::strcmp(only, api::to_string(s.type)) != 0) continue;
      api::tile_batch in;
      in.shape = s;
      in.tiles = tiles;
      std::mt19937_64 rng(42);
      in.a.resize(tiles * s.operand_bytes());
      in.b.resize(tiles * s.operand_bytes());
      for (auto& x : in.a) x = std::uint8_t(rng());
      for (auto& x : in.b) x = std::uint8_t(rng() & 0x77);  // finite fp8/fp16 codes: no NaN/Inf surprises
      api::tile_results out;
      double best = 1e30;
      for (int r = 0; r < reps; ++r) {
        const double t0 = cpu_seconds();
        ops->run_tiles(in, out);
        best = std::min(best, cpu_seconds() - t0);
      }
      const double units = double(tiles) * s.k / 32;
      std::printf("%-8s %-7s K=%-3u %s: %8.0f 16x16x32 tile-cases/s per core (%.2f us per tile-case, best of %d)\n",
                  variant, api::to_string(s.type), s.k, api::to_string(s.instr), units / best, 1e6 * best / units,
                  reps);
    }
  }
  return 0;
}
