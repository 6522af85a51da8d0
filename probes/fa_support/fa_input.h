// --input for the two flash-attention probes: the body of their tileprobe-input v1 files (one geometry plus its data,
// seeded or given row by row, and the race probe's schedule), and the input files of their counterexamples.
// Format and examples: probes/fa-k00-combine-race/README.md, probes/fa-missing-tile-meta/README.md.
//
//   tileprobe-input v1
//   probe fa-k00-combine-race
//   config rdna-d256-ncols64        the model's config row (kernels/fattn/api.h configs[])
//   kernel kvarn-kvarn              f16 | kvarn-kvarn | kvarn-k-orig-v
//   nq 64                           query rows (tokens) per Q head, 1..4096
//   nkv 128                         body KV rows, 1..65536
//   tail 0                          f16 tail rows, 0..4096 (0: body only, no tail merge)
//   heads 1                         K/V heads, 1..64
//   gqa 1 1                         optional: Q heads per K/V head 1..64, Q heads per tile (ncols2) dividing ncols
//   device 1 1                      CUs as the runtime reports them 1..4096, resident blocks per CU 1..64
//   mask none                       optional; the model has no mask, so only `none`
//   data random 1                   random SEED [qgain X] [kvarn on|off] | fixture [qgain X] | given
//   q 0 0 v1 ... vDKQ               `data given` only: every Q row (Q head, token) in order, then `k`, `v` (K/V head,
//   ...                             body row), then `k-tail`, `v-tail` (K/V head, tail row); fp16 values, exactly
//   schedule adversarial            fa-k00-combine-race only: in_order | reverse | random SEED | adversarial
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "probes/fa_support/fa_support.h"
#include "simt/cpu/emulator.h"

namespace fa_probe {

struct input_case {
  geometry g;
  std::string label;  // "input:<file stem>", for the case id
  std::optional<tp::cpu::policy> sched;
  std::uint64_t sched_seed = 0;
};

// One input file for `probe_name`; `with_schedule`: the `schedule` record is required (race probe), else refused.
// usage_error "FILE:LINE: what" on anything malformed.
input_case read_input(const std::string& path, const std::string& probe_name, bool with_schedule);
input_case read_input_text(std::string_view text, const std::string& name, const std::string& probe_name,
                           bool with_schedule);
// The schedule's name as the `schedule` record spells it (tp::cpu::to_string's names; here without linking the
// emulator, so the fuzz target builds from the reader's sources alone).
const char* schedule_name(tp::cpu::policy p);
// The file that reruns a case (its data seeded or given), with its schedule when given.
std::string input_text(const std::string& probe_name, const geometry& g, std::optional<tp::cpu::policy> sched,
                       std::uint64_t sched_seed);

}  // namespace fa_probe
