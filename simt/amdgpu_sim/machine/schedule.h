// Which wave of a workgroup runs next. The machine switches waves when the running one parks at a barrier or ends
// (enough for #14: the result of race-free code does not depend on the order); a policy picks among the ready waves.
// Issue #15 adds switching at LDS and global memory instructions (the memory_observer hook in wave.h is where the
// handlers call out) and the CPU emulator's adversarial policy; the interface stays this one.
#pragma once

#include <cstdint>
#include <span>

#include "simt/amdgpu_sim/machine.h"

namespace tp::amdgpu_sim::machine {

struct wave_policy {
  virtual ~wave_policy() = default;
  // `ready` lists wave indices in ascending order; returns a position in it.
  virtual std::size_t pick(std::span<const unsigned> ready) = 0;
};

struct in_order_policy final : wave_policy {
  std::size_t pick(std::span<const unsigned>) override { return 0; }
};
struct reverse_policy final : wave_policy {
  std::size_t pick(std::span<const unsigned> ready) override { return ready.size() - 1; }
};
// Deterministic for a seed (splitmix64), so a schedule that fails can be replayed.
struct seeded_random_policy final : wave_policy {
  explicit seeded_random_policy(uint64_t seed) : state(seed) {}
  std::size_t pick(std::span<const unsigned> ready) override {
    uint64_t z = (state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return std::size_t((z ^ (z >> 31)) % ready.size());
  }
  uint64_t state;
};

struct program;
// Introspection for tests and the bench (not part of the runtime contract).
const program& program_of(const code_object& co);
uint64_t executed_instructions(const code_object& co);  // wave-instructions retired over every run()
void set_wave_policy(code_object& co, wave_policy* p);  // null: in order; the policy must outlive the runs

}  // namespace tp::amdgpu_sim::machine
