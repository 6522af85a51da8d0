// The CPU fiber emulator: barriers, scheduling policies, warp collectives, hazards, written bits, error reports.
#include <catch2/catch_test_macros.hpp>
#include <catch2/generators/catch_generators.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>
#include <string>
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

#include <sys/wait.h>
#include <unistd.h>

#include "gpu/simt_kernels.cuh"

namespace {

using tp::cpu::policy;
using Catch::Matchers::ContainsSubstring;
constexpr policy all_policies[] = {policy::in_order, policy::reverse, policy::random, policy::adversarial};

struct options_guard {
  explicit options_guard(const tp::cpu::run_options& o) {
    tp::cpu::set_run_options(o);
    (void)tp::cpu::take_hazard_report();
  }
  ~options_guard() { tp::cpu::set_run_options({}); }
};

std::vector<int> iota_vec(std::size_t n, int from = 0) {
  std::vector<int> v(n);
  std::iota(v.begin(), v.end(), from);
  return v;
}

// Source lines the reports must name, recorded by the kernels themselves on the line in question.
struct marked_lines {
  unsigned store = 0, load = 0, odd = 0, even = 0, split_shfl = 0, split_barrier = 0;
} lines;

// The barrier is missing: a thread reads tile cells other warps have not written yet.
TP_GLOBAL void transpose32_no_barrier(tp::gmem<int> in, tp::gmem<int> out) {
  TP_SHARED(int, tile, 32 * 33);
  const unsigned t = tp::thread_idx();
  for (unsigned k = t; k < 32 * 32; k += tp::block_dim()) { tile.st((k / 32) * 33 + k % 32, in.ld(k)); lines.store = __LINE__; }
  for (unsigned k = t; k < 32 * 32; k += tp::block_dim()) { out.st(k, tile.ld((k % 32) * 33 + k / 32)); lines.load = __LINE__; }
}

std::vector<int> transposed(const std::vector<int>& m) {
  std::vector<int> t(m.size());
  for (unsigned r = 0; r < 32; ++r)
    for (unsigned c = 0; c < 32; ++c) t[c * 32 + r] = m[r * 32 + c];
  return t;
}

}  // namespace

TEST_CASE("Shared-memory transpose with its barrier is correct and race-free under every policy") {
  const auto in_host = iota_vec(32 * 32, 1000);
  for (policy p : all_policies) {
    CAPTURE(tp::cpu::to_string(p));
    options_guard g({.sched = p, .seed = 11, .hazards = true});
    tp::device_buffer<int> in(in_host.size()), out(in_host.size());
    in.upload(in_host);
    tp::launch({2, 256}, tp_variant_default::transpose32, in.view(), out.view());
    CHECK(out.to_host() == transposed(in_host));
    const auto r = tp::cpu::take_hazard_report();
    CHECK(r.total() == 0);
  }
}

TEST_CASE("Transpose without its barrier reports RAW hazards naming both source lines and fails under adversarial") {
  const auto in_host = iota_vec(32 * 32, 1000);
  options_guard g({.sched = policy::adversarial, .hazards = true});
  tp::device_buffer<int> in(in_host.size()), out(in_host.size());
  in.upload(in_host);
  tp::launch({1, 256}, transpose32_no_barrier, in.view(), out.view());
  CHECK(out.to_host() != transposed(in_host));
  const auto r = tp::cpu::take_hazard_report();
  CHECK(r.raw > 0);
  REQUIRE_FALSE(r.first.empty());
  bool named_both = false;
  for (const auto& h : r.first) {
    INFO(tp::cpu::describe(h));
    CHECK(h.earlier.warp != h.later.warp);
    if (h.kind == tp::cpu::hazard_kind::raw && h.earlier.where.line() == lines.store &&
        h.later.where.line() == lines.load && h.earlier.write && !h.later.write)
      named_both = true;
  }
  CHECK(named_both);
  CHECK_THAT(tp::cpu::describe(r.first.front()), ContainsSubstring("emulator_test.cpp"));
}

TEST_CASE("A missing barrier gives the same wrong result on every rerun of one policy and seed") {
  const auto in_host = iota_vec(32 * 32);
  std::vector<int> first;
  for (int run = 0; run < 3; ++run) {
    options_guard g({.sched = policy::random, .seed = 99});
    tp::device_buffer<int> in(in_host.size()), out(in_host.size());
    in.upload(in_host);
    tp::launch({1, 256}, transpose32_no_barrier, in.view(), out.view());
    if (run == 0) first = out.to_host();
    CHECK(out.to_host() == first);
  }
  CHECK(first != transposed(in_host));
}

namespace {
TP_GLOBAL void half_block_barrier(tp::gmem<int> out) {
  if (tp::thread_idx() >= 16) return;
  tp::sync_threads();
  out.st(tp::thread_idx(), 1);
}
TP_GLOBAL void two_barriers(tp::gmem<int> out) {
  if (tp::thread_idx() % 2) {
    lines.odd = __LINE__; tp::sync_threads();
  } else {
    lines.even = __LINE__; tp::sync_threads();
  }
  out.st(tp::thread_idx(), 1);
}
TP_GLOBAL void split_warp(tp::gmem<int> out) {
  int v = int(tp::thread_idx());
  if (tp::lane_id() < 16) lines.split_shfl = __LINE__, v = tp::shfl(v, 0);
  lines.split_barrier = __LINE__; tp::sync_threads();
  out.st(tp::thread_idx(), v);
}
TP_GLOBAL void shfl_after_exit(tp::gmem<int> out) {
  if (tp::lane_id() == 5) return;
  out.st(tp::thread_idx(), tp::shfl(int(tp::thread_idx()), 5));
}
}  // namespace

TEST_CASE("A barrier reached by part of the block is reported as divergent") {
  tp::device_buffer<int> out(64);
  REQUIRE_THROWS_WITH(tp::launch({1, 64}, half_block_barrier, out.view()),
                      ContainsSubstring("divergent barrier") && ContainsSubstring("exited"));
  // The emulator recovers: the next launch on this thread runs normally.
  tp::device_buffer<int> in(64), sum(1);
  in.upload(iota_vec(64));
  tp::launch({1, 64}, tp_variant_default::block_sum_shfl, in.view(), sum.view());
  CHECK(sum.to_host()[0] == 63 * 64 / 2);
}

TEST_CASE("Threads waiting at two different barriers are reported with both locations") {
  tp::device_buffer<int> out(64);
  try {
    tp::launch({1, 64}, two_barriers, out.view());
    FAIL("no kernel_error");
  } catch (const tp::kernel_error& e) {
    const std::string m = e.what();
    CHECK_THAT(m, ContainsSubstring("different sync_threads"));
    REQUIRE((lines.odd != 0 && lines.even != 0));
    CHECK_THAT(m, ContainsSubstring(":" + std::to_string(lines.odd)));
    CHECK_THAT(m, ContainsSubstring(":" + std::to_string(lines.even)));
  }
}

TEST_CASE("A deadlock lists where each warp waits") {
  tp::device_buffer<int> out(64);
  try {
    tp::launch({1, 64}, split_warp, out.view());
    FAIL("no kernel_error");
  } catch (const tp::kernel_error& e) {
    const std::string m = e.what();
    INFO(m);
    CHECK_THAT(m, ContainsSubstring("deadlock"));
    CHECK_THAT(m, ContainsSubstring("warp 0: lanes 0-15 shfl at"));
    REQUIRE((lines.split_shfl != 0 && lines.split_barrier != 0));
    CHECK_THAT(m, ContainsSubstring(":" + std::to_string(lines.split_shfl)));
    CHECK_THAT(m, ContainsSubstring("lanes 16-31 sync_threads at"));
    CHECK_THAT(m, ContainsSubstring(":" + std::to_string(lines.split_barrier)));
    CHECK_THAT(m, ContainsSubstring("warp 1:"));
  }
}

TEST_CASE("A shuffle in a warp with an exited lane is an error, not a hang") {
  tp::device_buffer<int> out(32);
  REQUIRE_THROWS_WITH(tp::launch({1, 32}, shfl_after_exit, out.view()), ContainsSubstring("exited"));
}

namespace {
TP_GLOBAL void shuffles(tp::gmem<int> out) {
  const int l = int(tp::lane_id());
  const unsigned i = tp::thread_idx() * 4;
  out.st(i + 0, tp::shfl(100 + l, 3));                      // broadcast
  out.st(i + 1, tp::shfl(100 + l, l + 1));                  // rotate: lane warp_size-1 wraps to lane 0
  out.st(i + 2, tp::shfl_xor(100 + l, 5));
  out.st(i + 3, int(tp::shfl(float(l) * 0.5f, int(tp::warp_size()) - 1 - l) * 2.0f));  // 32-bit float lanes
}
TP_GLOBAL void read_partly_written(tp::gmem<int> in, tp::gmem<int> out) {
  const unsigned t = tp::thread_idx();
  out.st(t, in.ld(t));
}
TP_GLOBAL void read_shared_unwritten(tp::gmem<unsigned> out) {
  TP_SHARED(unsigned, s, 64);
  if (tp::thread_idx() < 32) s.st(tp::thread_idx(), 7);
  tp::sync_threads();
  out.st(tp::thread_idx(), s.ld(tp::thread_idx()));
}
TP_GLOBAL void out_of_bounds(tp::gmem<int> out) { out.st(tp::thread_idx() + 1, 0); }
}  // namespace

TEST_CASE("Warp shuffles move each lane's word as CUDA's __shfl_sync does") {
  const unsigned ws = GENERATE(32u, 64u);
  CAPTURE(ws);
  options_guard g({.warp_size = ws});
  tp::device_buffer<int> out(2 * ws * 4);
  tp::launch({1, 2 * ws}, shuffles, out.view());
  const auto got = out.to_host();
  for (unsigned t = 0; t < 2 * ws; ++t) {
    const int l = int(t % ws);
    CAPTURE(t);
    CHECK(got[t * 4 + 0] == 103);
    CHECK(got[t * 4 + 1] == 100 + (l + 1) % int(ws));
    CHECK(got[t * 4 + 2] == 100 + (l ^ 5));
    CHECK(got[t * 4 + 3] == int(ws) - 1 - l);
  }
}

TEST_CASE("warp_allgather gives every lane every lane's value") {
  const unsigned ws = GENERATE(32u, 64u);
  CAPTURE(ws);
  for (policy p : all_policies) {
    options_guard g({.sched = p, .seed = 5, .warp_size = ws});
    tp::device_buffer<int> out(3 * 128);
    tp::launch({3, 128}, tp_variant_default::allgather_sum, out.view());
    const auto got = out.to_host();
    // sum_k (k + k^2 + 7k) over the warp, whatever the rotation.
    long long want = 0;
    for (long long k = 0; k < ws; ++k) want += k + k * k + 7 * k;
    for (int v : got) CHECK(v == want);
  }
}

TEST_CASE("Reads of global elements no kernel wrote are counted by state with their locations") {
  tp::device_buffer<int> in(64), out(64);
  in.upload(iota_vec(40).data(), 40);  // 0..39 host-initialised, 40..63 never written
  tp::launch({1, 64}, read_partly_written, in.view(), out.view());
  const auto r = in.unwritten_reads();
  REQUIRE(r.has_value());
  CHECK(r->host_initialised_reads == 40);
  CHECK(r->never_written_reads == 24);
  REQUIRE(!r->first.empty());
  CHECK_THAT(tp::describe(r->first.front()), ContainsSubstring("emulator_test.cpp"));
  const auto w = out.kernel_written();
  REQUIRE(w.has_value());
  CHECK(std::count(w->begin(), w->end(), true) == 64);
  const auto w_in = in.kernel_written();
  CHECK(std::count(w_in->begin(), w_in->end(), true) == 0);
  // never-written int elements hold the 0xA5 pattern
  CHECK(static_cast<unsigned>(out.to_host()[50]) == 0xA5A5A5A5u);
  // out was written by the kernel: reading it in a second launch is clean
  tp::device_buffer<int> again(64);
  tp::launch({1, 64}, read_partly_written, out.view(), again.view());
  CHECK(out.unwritten_reads()->total() == 0);
}

TEST_CASE("resize() leaves a reused buffer as a fresh one would be: poisoned, never written, no read evidence") {
  tp::device_buffer<int> in(64), out(64);
  in.upload(iota_vec(64).data(), 64);
  tp::launch({1, 64}, read_partly_written, in.view(), out.view());
  // Shrink: the old writes and host uploads are forgotten, the pattern is back.
  out.resize(48);
  in.resize(48);
  CHECK(out.size() == 48);
  const auto w = out.kernel_written();
  REQUIRE(w.has_value());
  CHECK(w->size() == 48);
  CHECK(std::count(w->begin(), w->end(), true) == 0);
  for (int x : out.to_host()) CHECK(static_cast<unsigned>(x) == 0xA5A5A5A5u);
  // Upload bytes into the first 10 elements; a 48-thread launch then reads 10 host-initialised, 38 never written.
  const auto ten = iota_vec(10);
  in.upload_bytes(ten.data(), 10 * sizeof(int));
  tp::launch({1, 48}, read_partly_written, in.view(), out.view());
  CHECK(in.unwritten_reads()->host_initialised_reads == 10);
  CHECK(in.unwritten_reads()->never_written_reads == 38);
  // Grow past the capacity: a new allocation, the same fresh state.
  in.resize(100);
  CHECK(in.size() == 100);
  CHECK(static_cast<unsigned>(in.to_host()[99]) == 0xA5A5A5A5u);
  std::vector<unsigned char> bytes(404);
  in.download_bytes(bytes.data(), 400);
  CHECK(bytes[399] == 0xA5);
  CHECK_THROWS_WITH(in.upload_bytes(bytes.data(), 3), ContainsSubstring("whole number"));
  CHECK_THROWS_WITH(in.download_bytes(bytes.data(), 404), ContainsSubstring("elements requested"));
}

TEST_CASE("Float buffers are poisoned with a NaN and shared memory starts poisoned") {
  tp::device_buffer<float> f(4);
  for (float x : f.to_host()) CHECK(std::isnan(x));
  f.fill(1.5f);
  for (float x : f.to_host()) CHECK(x == 1.5f);
  f.poison();
  CHECK(std::isnan(f.to_host()[2]));
  tp::device_buffer<unsigned> out(64);
  tp::launch({1, 64}, read_shared_unwritten, out.view());
  const auto got = out.to_host();
  CHECK(got[0] == 7u);
  CHECK(got[40] == 0xFFFFFFFFu);
}

TEST_CASE("An out-of-bounds global store is an error naming the element") {
  tp::device_buffer<int> out(32);
  REQUIRE_THROWS_WITH(tp::launch({1, 32}, out_of_bounds, out.view()),
                      ContainsSubstring("out of bounds") && ContainsSubstring("element 32"));
}

namespace {
TP_DEVICE int deep(int n) {
  volatile char pad[1024];
  pad[0] = char(n);
  return n == 0 ? pad[0] : deep(n - 1) + pad[0];
}
TP_GLOBAL void recurse(tp::gmem<int> out, int depth) { out.st(tp::thread_idx(), deep(depth)); }
}  // namespace

TEST_CASE("A fiber stack overflow hits the guard page instead of corrupting memory") {
  // In a child process: the overflow must not take the test runner down whichever way it is reported.
  std::fflush(nullptr);
  const pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    tp::cpu::set_run_options({.stack_bytes = 32 * 1024});
    tp::cpu::install_stack_overflow_handler();  // Catch2 swapped in its own handler for this test case
    tp::device_buffer<int> out(32);
    try {
      tp::launch({1, 32}, recurse, out.view(), 1000);
    } catch (const tp::kernel_error& e) {
      _exit(std::string(e.what()).find("stack overflow") != std::string::npos ? 3 : 4);
    }
    _exit(5);
  }
  int status = 0;
  waitpid(pid, &status, 0);
#if defined(TP_ASAN) || defined(__SANITIZE_ADDRESS__)
  // ASan's own SEGV handler reports the overflow and aborts the child.
  CHECK(!(WIFEXITED(status) && WEXITSTATUS(status) == 5));
  CHECK(!(WIFEXITED(status) && WEXITSTATUS(status) == 0));
#else
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 3);
#endif
  // The same kernel with a stack that fits runs normally here.
  options_guard g({.stack_bytes = 2 * 1024 * 1024});
  tp::device_buffer<int> out(32);
  tp::launch({1, 32}, recurse, out.view(), 100);
  CHECK(out.to_host()[0] == 100 * 101 / 2);
}
