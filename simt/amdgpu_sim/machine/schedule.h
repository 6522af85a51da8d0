// Which wave of a workgroup runs next (machine.h's wave_schedule says what each policy means). The run loop asks at
// every switch point: a barrier, s_endpgm, and, unless the schedule is adversarial, after every LDS or global memory
// instruction (op::switch_point), so that the waves interleave at the instructions where interleaving can change a
// result.
#pragma once

#include <cstdint>
#include <vector>
#include <span>

#include "simt/amdgpu_sim/machine.h"

namespace tp::amdgpu_sim::machine {

class wave_picker {
 public:
  wave_picker(wave_schedule s, uint64_t seed) : s_(s), state_(seed) {}
  bool switches_at_memory() const { return s_ != wave_schedule::adversarial; }
  // `ready` lists the ready waves' indices in ascending order (never empty); `last` is the wave that ran last
  // (-1 at the start of a workgroup). Returns a wave index from `ready`.
  unsigned pick(std::span<const unsigned> ready, int last) {
    switch (s_) {
      case wave_schedule::adversarial: return ready.front();
      case wave_schedule::in_order:
        for (unsigned w : ready)
          if (int(w) > last) return w;
        return ready.front();
      case wave_schedule::reverse:
        for (auto it = ready.rbegin(); it != ready.rend(); ++it)
          if (last < 0 || int(*it) < last) return *it;
        return ready.back();
      case wave_schedule::random: {
        uint64_t z = (state_ += 0x9e3779b97f4a7c15ull);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
        return ready[std::size_t((z ^ (z >> 31)) % ready.size())];
      }
    }
    return ready.front();
  }

 private:
  wave_schedule s_;
  uint64_t state_;
};

struct program;
// Introspection for tests and the bench (not part of the runtime contract).
const program& program_of(const code_object& co);
uint64_t executed_instructions(const code_object& co);  // wave-instructions retired over every run()
std::vector<uint32_t> entry_indices(const code_object& co);  // the op index of every kernel's first instruction

}  // namespace tp::amdgpu_sim::machine
