// The machine-level LDS race detector (issue #15), a plugin (plugin.h) on the LDS accesses: two waves of one workgroup
// touching the same LDS byte between two barriers, at least one of them writing. The CPU emulator's detector does the same on the dialect's source
// (simt/cpu/emulator.cpp); this one sees the instructions clang emitted, so a hazard names the two PCs, their
// instructions and (line tables permitting) their source lines.
//
// Shadow state per LDS byte, stamped with the epoch it was last touched in (workgroup serial number and the
// workgroup's barrier generation: a new epoch starts at every completed barrier and every workgroup, so nothing is
// cleared): the last writing wave and its instruction, and the
// last two distinct reading waves with theirs plus a mask of every reader. A write finds a reader of another wave in
// one of the two slots whenever the mask holds one (the slots always hold two different waves).
#pragma once

#include <cstdint>
#include <unordered_set>
#include <vector>

#include "simt/amdgpu_sim/machine.h"
#include "simt/amdgpu_sim/machine/plugin.h"
#include "simt/amdgpu_sim/machine/wave.h"

namespace tp::amdgpu_sim::machine {

class lds_race_detector final : public plugin {
 public:
  // `out` receives the hazards of the dispatches it is attached to; PCs are resolved to code locations through `co`
  // when a pair is first kept. One detector per dispatch: a pair of instructions is counted once per dispatch.
  lds_race_detector(const code_object& co, lds_hazard_report& out) : co_(co), out_(out) {}
  // A new workgroup: every earlier access is forgotten.
  void workgroup_begin(const workgroup& g) override;
  void memory(const wave& w, const op& o, const memory_access& a) override;

 private:
  static constexpr int8_t nobody = -1;
  struct byte_state {
    uint64_t epoch = 0;
    uint32_t readers = 0;  // bit per wave (a workgroup has at most 32 waves of 32 lanes)
    uint32_t writer_pc = 0, reader_pc[2] = {0, 0};
    int8_t writer = nobody, reader[2] = {nobody, nobody};
  };
  void access(const wave& w, const op& o, uint64_t addr, uint32_t bytes, bool write);
  void report(lds_hazard_kind kind, uint32_t offset, unsigned earlier_wave, uint32_t earlier_pc, bool earlier_write,
              const wave& w, const op& o, bool write);

  const code_object& co_;
  lds_hazard_report& out_;
  std::vector<byte_state> bytes_;
  uint64_t workgroup_serial_ = 0;  // epoch = serial << 32 | barrier generation
  uint32_t workgroup_ = 0;
  std::unordered_set<uint64_t> seen_;  // (kind, earlier pc, later pc) already counted in this dispatch
};

}  // namespace tp::amdgpu_sim::machine
