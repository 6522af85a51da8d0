// What a probe's runner returns for one case on one variant.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace tp::probe {

// A metric's run-level summary: the maximum over cases (errors) or the sum (counts).
enum class metric_merge { max, sum };
struct metric {
  double value = 0;
  metric_merge merge = metric_merge::max;
};

// Shared-memory hazards of the case's launches (CPU emulator), as tp::cpu::take_hazard_report() gives them;
// `first` holds readable pairs with both source locations.
struct hazard_evidence {
  std::uint64_t raw = 0, war = 0, waw = 0;
  std::vector<std::string> first{};
  std::uint64_t total() const { return raw + war + waw; }
};
// Kernel reads of global elements no kernel wrote (device_buffer::unwritten_reads() on the CPU backend).
struct unwritten_evidence {
  std::uint64_t host_initialised = 0, never_written = 0;
  std::vector<std::string> first{};
  std::uint64_t total() const { return host_initialised + never_written; }
};

struct outcome {
  bool pass = false;
  std::map<std::string, metric> metrics{};         // e.g. max_abs_err (max), wrong (sum)
  std::vector<std::string> detail{};               // lines shown with a failure and in counterexamples
  std::map<std::string, std::uint64_t> coverage{}; // counter increments, summed over the run per variant
  hazard_evidence hazards{};                       // all zero unless the runner collected them
  unwritten_evidence unwritten{};
  std::string error{};                               // set by the framework when the runner threw; pass is false

  outcome& metric_max(std::string_view name, double v);  // keeps the larger if set twice
  outcome& metric_sum(std::string_view name, double v);  // adds
  outcome& note(std::string line) { detail.push_back(std::move(line)); return *this; }
  outcome& count(std::string_view counter, std::uint64_t n = 1) { coverage[std::string(counter)] += n; return *this; }
};

}  // namespace tp::probe
