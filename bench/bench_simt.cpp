// CPU emulator figures: fiber switch cost, blocks/s for the 128-thread 6-barrier shape, hazard detector overhead
// (on/off measured side by side), warp_allgather launches/s (the ck_sparse fuzz loop shape), and the emulator against
// a plain host loop doing the same arithmetic. Prints; asserts nothing. Usage: tp-bench-simt [seconds per figure]
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <numeric>
#include <vector>

#include "simt/host.h"

namespace {

using clock_type = std::chrono::steady_clock;

// Six phases, each: write own slot, barrier, read a neighbour's slot and mix it in. Two slot arrays alternate, so one
// barrier per phase suffices (a phase's writes never hit the array the previous phase reads).
TP_GLOBAL void six_barrier_mix(tp::gmem<int> in, tp::gmem<int> out) {
  TP_SHARED(int, s, 2 * 128);
  const unsigned t = tp::thread_idx();
  int v = in.ld(tp::block_idx() % 64 * 128 + t);
  for (unsigned phase = 0; phase < 6; ++phase) {
    const unsigned half = (phase % 2) * 128;
    s.st(half + t, v);
    tp::sync_threads();
    v = v * 3 + s.ld(half + (t + phase + 1) % 128);
  }
  out.st(tp::block_idx() % 64 * 128 + t, v);
}

void six_barrier_mix_host(const int* in, int* out, unsigned block) {
  int cur[128], next[128];
  for (unsigned t = 0; t < 128; ++t) cur[t] = in[block % 64 * 128 + t];
  for (unsigned phase = 0; phase < 6; ++phase) {
    for (unsigned t = 0; t < 128; ++t) next[t] = cur[t] * 3 + cur[(t + phase + 1) % 128];
    std::copy(next, next + 128, cur);
  }
  for (unsigned t = 0; t < 128; ++t) out[block % 64 * 128 + t] = cur[t];
}

TP_GLOBAL void barriers_only(unsigned rounds) {
  for (unsigned r = 0; r < rounds; ++r) tp::sync_threads();
}

struct fragment {
  int w[7];  // 28 bytes
};
TP_GLOBAL void two_allgathers(tp::gmem<int> out) {
  const int l = int(tp::lane_id());
  fragment f{{l, l + 1, l + 2, l + 3, l + 4, l + 5, l + 6}};
  auto a = tp::warp_allgather(f);
  f.w[0] = a.lane[(l + 1) % 32].w[3];
  auto b = tp::warp_allgather(f);
  out.st(tp::thread_idx(), b.lane[(l + 7) % 32].w[0] + a.lane[l].w[6]);
}

template <class F>
double per_second(double seconds, F&& run_once) {  // calls per second
  run_once();
  std::size_t n = 0;
  const auto t0 = clock_type::now();
  double elapsed = 0;
  do {
    for (int i = 0; i < 16; ++i) run_once();
    n += 16;
    elapsed = std::chrono::duration<double>(clock_type::now() - t0).count();
  } while (elapsed < seconds);
  return double(n) / elapsed;
}

}  // namespace

int main(int argc, char** argv) {
  const double secs = argc > 1 ? std::atof(argv[1]) : 1.0;
  std::vector<int> host_in(64 * 128);
  std::iota(host_in.begin(), host_in.end(), 1);
  tp::device_buffer<int> in(host_in.size()), out(host_in.size()), out32(32);
  in.upload(host_in);

  {
    const unsigned threads = 128, rounds = 200;
    const double lps = per_second(secs, [&] { tp::launch({1, threads}, barriers_only, rounds); });
    // each barrier round: every thread parks once, i.e. one fiber-to-fiber switch per thread
    std::printf("fiber switch (park + resume of one thread at a barrier): %.1f ns (128 threads x %u barriers)\n",
                1e9 / (lps * threads * rounds), rounds);
  }

  const unsigned grid = 64;
  double blocks_off = 0, blocks_on = 0;
  for (int repeat = 0; repeat < 2; ++repeat) {  // interleaved, so both see the same machine load
    tp::cpu::set_run_options({.hazards = false});
    blocks_off = per_second(secs / 2, [&] { tp::launch({grid, 128}, six_barrier_mix, in.view(), out.view()); }) * grid;
    tp::cpu::set_run_options({.hazards = true});
    blocks_on = per_second(secs / 2, [&] { tp::launch({grid, 128}, six_barrier_mix, in.view(), out.view()); }) * grid;
    if (tp::cpu::take_hazard_report().total() != 0) std::printf("unexpected hazards in the bench kernel\n");
  }
  tp::cpu::set_run_options({});
  std::printf("128-thread 6-barrier block: %.0f blocks/s (hazards off), %.0f blocks/s (hazards on): on/off cost %.2fx\n",
              blocks_off, blocks_on, blocks_off / blocks_on);

  std::vector<int> host_out(host_in.size());
  const double host_blocks =
      per_second(secs, [&] {
        for (unsigned b = 0; b < grid; ++b) six_barrier_mix_host(host_in.data(), host_out.data(), b);
      }) * grid;
  const auto emu = out.to_host();
  for (unsigned b = 0; b < grid; ++b) six_barrier_mix_host(host_in.data(), host_out.data(), b);
  std::printf("same arithmetic as a plain host loop: %.0f blocks/s (emulator is %.0fx slower)%s\n", host_blocks,
              host_blocks / blocks_off, emu == host_out ? "" : " [results differ!]");

  const double ag = per_second(secs, [&] { tp::launch({1, 32}, two_allgathers, out32.view()); });
  std::printf("32-thread block, 2 warp_allgathers of 28 bytes: %.0f launches/s\n", ag);
  return 0;
}
