// The one hex formatter of the simulator's messages (addresses, PCs, magic numbers): "0x1a2c".
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>

namespace tp::amdgpu_sim {

inline std::string hex(uint64_t v) {
  char b[24];
  std::snprintf(b, sizeof b, "0x%llx", static_cast<unsigned long long>(v));
  return b;
}

}  // namespace tp::amdgpu_sim
