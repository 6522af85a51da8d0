// The checks of global memory the hardware cannot give, as a plugin (machine/plugin.h) the simulator attaches to every
// launch: each global access of a wave (and each scalar load) is checked against the live allocations before it
// happens (outside every one: the launch stops, naming the nearest allocation), loads of never-written bytes are
// counted and stores mark their bytes written (device_memory.h). Without it the machine would touch host memory
// wherever a kernel points.
#pragma once

#include "simt/amdgpu_sim/machine/plugin.h"
#include "simt/amdgpu_sim/runtime/device_memory.h"

namespace tp::amdgpu_sim {

class global_checks final : public machine::plugin {
 public:
  explicit global_checks(device_memory& mem) : mem_(mem) {}
  void memory(const machine::wave& w, const machine::op& o, const machine::memory_access& a) override;

 private:
  device_memory& mem_;
};

}  // namespace tp::amdgpu_sim
