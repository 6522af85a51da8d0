// Observers of a dispatch, attached per launch (dispatch::plugins): the checks the hardware cannot give live here, not
// in the interpreter. The LDS race detector (plugins/lds_race_detector.h), the runtime's bounds and written-bit checks
// of global memory (runtime/global_checks.h) and the executed-instruction record of the coverage audit
// (plugins/executed_mnemonics.h) are plugins; so would be further checks (uninitialised VGPR reads: a per-wave
// written map in the wave's slot, filled after each instruction; scratch bounds: the scratch accesses; global races
// between workgroups: the global accesses with the workgroup of each).
//
// Every hook has an empty default. A plugin that does not observe instructions costs nothing per instruction: the
// interpreter runs its uninstrumented loop unless some attached plugin says observes_instructions(). The memory hook
// is called once per memory instruction and memory (with every lane's address), before the access happens, so a check
// may stop it (sim_error) and a detector sees the accesses in the order they happen.
#pragma once

#include <array>
#include <cstdint>

namespace tp::amdgpu_sim {
struct dispatch;
}

namespace tp::amdgpu_sim::machine {

struct op;
struct wave;
struct workgroup;

enum class memory_space : uint8_t { global, lds, scratch };

// The lanes of one instruction that access one memory. The access of lane l (bit l of `lanes`, ascending) is
// `bytes` bytes at address[l]; where `second` is set (the two-address DS forms) the lane then accesses second[l].
// Addresses: global, the device address; LDS, the byte offset in the workgroup's LDS; scratch, the byte offset in the
// lane's private memory. A scalar load is lane 0.
struct memory_access {
  memory_space space = memory_space::global;
  bool write = false;  // a store; LDS read-modify-write atomics are writes
  uint32_t bytes = 0;
  uint32_t lanes = 0;
  const uint64_t* address = nullptr;
  const uint64_t* second = nullptr;
};

class plugin {
 public:
  virtual ~plugin() = default;
  // True: before_instruction/after_instruction are called around every instruction dispatched.
  virtual bool observes_instructions() const { return false; }

  virtual void launch_begin(const dispatch&) {}
  virtual void workgroup_begin(const workgroup&) {}  // its LDS is cleared, its waves not yet started
  virtual void wave_start(wave&) {}                  // the wave's initial state is set; its slot is nullptr
  virtual void before_instruction(wave&, const op&) {}
  virtual void after_instruction(wave&, const op&) {}
  virtual void memory(const wave&, const op&, const memory_access&) {}
  virtual void barrier_resolved(const workgroup&) {}  // every live wave signalled: the generation moved on
  virtual void wave_end(wave&) {}                     // s_endpgm
  virtual void launch_end(const dispatch&) {}         // every workgroup ran (not called when the launch stopped)

  // This plugin's slot in each wave's per-plugin state (wave::plugin_state), set when a dispatch attaches it.
  unsigned slot() const { return slot_; }
  void set_slot(unsigned s) { slot_ = s; }

 private:
  unsigned slot_ = 0;
};

// At most this many plugins per dispatch (the waves' state slots are a fixed array).
inline constexpr unsigned max_plugins = 8;
using plugin_slots = std::array<void*, max_plugins>;

}  // namespace tp::amdgpu_sim::machine
