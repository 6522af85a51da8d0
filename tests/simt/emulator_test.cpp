// The CPU fiber emulator: barriers, scheduling policies, warp collectives, hazards, written bits, error reports.
#include <catch2/catch_test_macros.hpp>
#include <catch2/generators/catch_generators.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

#include <numeric>
#include <vector>

#include "simt/host.h"

namespace {

TP_GLOBAL void block_sum(tp::gmem<int> in, tp::gmem<int> out, unsigned n) {
  TP_SHARED(int, partial, 256);
  const unsigned t = tp::thread_idx();
  const unsigned i = tp::block_idx() * tp::block_dim() + t;
  partial.st(t, i < n ? in.ld(i) : 0);
  tp::sync_threads();
  for (unsigned stride = tp::block_dim() / 2; stride > 0; stride /= 2) {
    if (t < stride) partial.st(t, partial.ld(t) + partial.ld(t + stride));
    tp::sync_threads();
  }
  if (t == 0) out.st(tp::block_idx(), partial.ld(0));
}

}  // namespace

TEST_CASE("Block reduction gives the same sums under every scheduling policy") {
  const auto sched = GENERATE(tp::cpu::policy::in_order, tp::cpu::policy::reverse, tp::cpu::policy::random,
                              tp::cpu::policy::adversarial);
  CAPTURE(tp::cpu::to_string(sched));
  tp::cpu::set_run_options({.sched = sched, .seed = 7, .hazards = true});
  const unsigned n = 1000, block = 128, grid = (n + block - 1) / block;
  std::vector<int> host(n);
  std::iota(host.begin(), host.end(), -300);
  tp::device_buffer<int> in(n), out(grid);
  in.upload(host.data(), n);
  tp::launch({grid, block}, block_sum, in.view(), out.view(), n);
  const auto got = out.to_host();
  for (unsigned b = 0; b < grid; ++b) {
    int want = 0;
    for (unsigned i = b * block; i < std::min(n, (b + 1) * block); ++i) want += host[i];
    CHECK(got[b] == want);
  }
  CHECK(tp::cpu::take_hazard_report().total() == 0);
  tp::cpu::set_run_options({});
}
