// The launch recorder (TILEPROBE_SIM_RECORD_DIR): a plugin (machine/plugin.h) the simulator attaches to the launches
// of one code object, writing each launch it keeps as a launch record (launch_record.h) with the code object beside
// it, for another executor to replay (tools/rocjitsu-runner; tests/amdgpu_sim/rocjitsu/README.md).
//
// At launch_begin it takes the kernarg segment and every allocation an explicit argument's 8-byte word points into
// (a global_buffer, or an address inside a by_value struct), with the allocation's bytes as the launch finds them,
// then every allocation an address the host declared inside one of those points into (a kernel's descriptors:
// device_buffer::holds_device_addresses, device_memory::declare_address_words), and so on: the kernel reaches global
// memory through those pointers only. An address in memory that no one declared is not followed (a replay's bounds
// checks would name the access through it). The record is written at launch_end, so a launch the simulator
// stopped (an unimplemented instruction, a fault) is never recorded.
//
// Kept per process: the first `per_kernel` launches of each kernel (TILEPROBE_SIM_RECORD_PER_KERNEL, default 2: a
// probe's fixture tile and its first fuzz tile), and only launches whose buffers total at most `max_bytes`
// (TILEPROBE_SIM_RECORD_MAX_BYTES, default 4 MiB); a launch left out for its size is named on stderr once per kernel.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <utility>

#include "simt/amdgpu_sim/machine/plugin.h"
#include "simt/amdgpu_sim/runtime/device_memory.h"
#include "simt/amdgpu_sim/runtime/launch_record.h"

namespace tp::amdgpu_sim {

// What the recorder reads of the launch's global memory: the allocation holding an address, its bytes, the words the
// host declared to hold addresses. The runtime's device_memory is one; the machine tests' own memory another
// (tests/amdgpu_sim/machine/harness.h), so their kernels are recorded too.
class recorded_memory {
 public:
  virtual ~recorded_memory() = default;
  virtual std::optional<std::pair<uint64_t, std::size_t>> allocation_containing(uint64_t addr) const = 0;
  virtual void read(uint64_t addr, void* dst, std::size_t bytes) const = 0;
  virtual std::span<const uint64_t> address_words(uint64_t base) const = 0;
};

class launch_recorder final : public machine::plugin {
 public:
  // `mem`, `elf` and `co` (the same code object) outlive the recorder.
  launch_recorder(const recorded_memory& mem, std::span<const uint8_t> elf, const code_object& co, std::string dir);
  // The runtime's global memory.
  launch_recorder(const device_memory& mem, std::span<const uint8_t> elf, const code_object& co, std::string dir);
  void launch_begin(const dispatch& d) override;
  void launch_end(const dispatch& d) override;

  // The folder TILEPROBE_SIM_RECORD_DIR names; empty when it is unset (record nothing).
  static std::string directory();

 private:
  launch_recorder(std::unique_ptr<recorded_memory> owned, std::span<const uint8_t> elf, const code_object& co,
                  std::string dir);
  std::unique_ptr<recorded_memory> owned_;  // the device_memory view, for that constructor
  const recorded_memory& mem_;
  std::span<const uint8_t> elf_;
  const code_object& co_;
  std::string dir_;
  std::map<std::string, std::string> keys_;  // kernel -> code_object_key
  unsigned per_kernel_;
  uint64_t max_bytes_;
  std::map<std::string, unsigned> kept_;     // kernel -> launches recorded
  std::map<std::string, bool> size_noted_;   // kernel -> a too-large launch was named on stderr
  std::optional<record::launch> pending_;
};

}  // namespace tp::amdgpu_sim
