// Splitting a batch's per-case host work (generation, oracle, judging) over --jobs threads. Each index is handled by
// exactly one thread and results go to per-index slots, so the outcome does not depend on the thread count; work
// functions keep any scratch thread_local. The first exception thrown by any part is rethrown to the caller after
// every thread has finished.
#pragma once

#include <algorithm>
#include <cstddef>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace tp::probe {

// Calls fn(begin, end) on contiguous parts of [0, n): on the calling thread alone when jobs <= 1 or n is small,
// else on up to `jobs` threads (the calling thread takes the first part).
template <class Fn>
void parallel_for(std::size_t n, unsigned jobs, Fn&& fn, std::size_t min_per_thread = 16) {
  const std::size_t parts = std::min<std::size_t>(jobs, std::max<std::size_t>(1, n / min_per_thread));
  if (parts <= 1) {
    fn(std::size_t{0}, n);
    return;
  }
  std::exception_ptr first_error;
  std::mutex m;
  auto run = [&](std::size_t p) {
    try {
      fn(n * p / parts, n * (p + 1) / parts);
    } catch (...) {
      std::lock_guard<std::mutex> lock(m);
      if (!first_error) first_error = std::current_exception();
    }
  };
  std::vector<std::thread> threads;
  threads.reserve(parts - 1);
  for (std::size_t p = 1; p < parts; ++p) threads.emplace_back(run, p);
  run(0);
  for (auto& t : threads) t.join();
  if (first_error) std::rethrow_exception(first_error);
}

}  // namespace tp::probe
