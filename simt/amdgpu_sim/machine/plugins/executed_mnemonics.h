// Which instructions of a code object ran, for the coverage audit (simt/amdgpu_sim/audit): a plugin on every
// instruction, attached to the launches of one code object for as long as the process lives. An instruction counts
// as executed when a wave dispatched it, or went past it where the decoder links past a no-op (the hardware executes
// those: s_delay_alu, the wait counters, ...). Attached only where asked for (TILEPROBE_SIM_EXECUTED_DIR): it
// observes instructions, so the interpreter runs its instrumented loop.
#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "simt/amdgpu_sim/machine.h"
#include "simt/amdgpu_sim/machine/plugin.h"

namespace tp::amdgpu_sim::machine {

struct program;

class executed_mnemonics final : public plugin {
 public:
  explicit executed_mnemonics(const code_object& co);
  bool observes_instructions() const override { return true; }
  // Before: an instruction that stops the dispatch (s_trap, v_illegal) ran too. After: whether a branch jumped.
  void before_instruction(wave& w, const op& o) override;
  void after_instruction(wave& w, const op& o) override;

  // The mnemonics executed so far, as declared (canonical: no _e32/_e64; each half of a dual issue as v_dual_<name>).
  std::set<std::string> mnemonics() const;
  // Whether an instruction ran for the first time since the last call.
  bool take_news();
  // Writes `arch` and the mnemonics, one per line, to a file of its own in `dir` (the audit reads every file there).
  void write(const std::string& dir) const;

  // The folder TILEPROBE_SIM_EXECUTED_DIR names; empty when it is unset (record nothing).
  static std::string directory();

 private:
  const code_object& co_;
  const program& prog_;
  enum : uint8_t { ran = 1, taken = 3 };  // taken: a branch that jumped (it ran too)
  std::vector<uint8_t> seen_;             // per op index
  void mark(const op& o, uint8_t how);
  bool news_ = false;
  uint64_t id_;                // names this recorder's file
};

}  // namespace tp::amdgpu_sim::machine
