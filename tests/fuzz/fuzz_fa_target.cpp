// The fa probes' --input reader as a fuzz target (fuzz_targets.h): accepted bytes must round-trip through the writer.
#include <cstdio>
#include <cstdlib>
#include <string_view>

#include "probes/fa_support/fa_input.h"
#include "tests/fuzz/fuzz_targets.h"

namespace tp::fuzz {

namespace {
[[noreturn]] void fa_finding(const std::string& what) {
  std::fprintf(stderr, "fuzz finding: %s\n", what.c_str());
  std::abort();
}

// Everything a case's run depends on, for the round trip.
std::string fingerprint(const fa_probe::input_case& c) {
  const auto& g = c.g;
  std::string s = std::to_string(g.config) + "," + tp::fattn::to_string(g.kernel) + "," + std::to_string(g.n_q) + "," +
                  std::to_string(g.n_kv) + "," + std::to_string(g.n_tail) + "," + std::to_string(g.n_head) + "," +
                  std::to_string(g.gqa) + "," + std::to_string(g.ncols2) + "," + std::to_string(g.cus) + "," +
                  std::to_string(g.occupancy) + "," + g.data + "," + std::to_string(g.data_seed) + "," +
                  std::to_string(g.q_gain) + "," + std::to_string(g.kvarn) + "," +
                  (c.sched ? fa_probe::schedule_name(*c.sched) : "-") + "," + std::to_string(c.sched_seed);
  if (g.given)
    for (const auto* v : {&g.given->q, &g.given->kb, &g.given->vb, &g.given->kt, &g.given->vt}) {
      s += "|";
      for (float x : *v) s += std::to_string(x) + ",";
    }
  return s;
}
}  // namespace

int fa_input_file(const std::uint8_t* data, std::size_t size, std::string* message) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const std::string probe = "fa-k00-combine-race";
  fa_probe::input_case c;
  try {
    c = fa_probe::read_input_text(text, "fuzz.tpin", probe, true);
  } catch (const probe::usage_error& e) {
    if (message) *message = e.what();
    return 2;
  }
  const std::string written = fa_probe::input_text(probe, c.g, c.sched, c.sched_seed);
  fa_probe::input_case again;
  try {
    again = fa_probe::read_input_text(written, "fuzz.tpin", probe, true);
  } catch (const probe::usage_error& e) {
    fa_finding(std::string("the writer's file is refused: ") + e.what());
  }
  if (fingerprint(again) != fingerprint(c)) fa_finding("the round trip changed the case");
  if (message) *message = std::string(tp::fattn::configs[c.g.config].name) + " " + tp::fattn::to_string(c.g.kernel);
  return 0;
}

}  // namespace tp::fuzz
