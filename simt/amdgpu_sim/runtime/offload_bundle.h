// The clang offload bundle that clang's HIP host code registers (__hipRegisterFatBinary): the code objects of every
// --offload-arch, each under an entry ID such as "hipv4-amdgcn-amd-amdhsa--gfx1201".
//
// Format (uncompressed bundles; https://clang.llvm.org/docs/ClangOffloadBundler.html, "Bundled Binary File Layout"):
//   "__CLANG_OFFLOAD_BUNDLE__"          24-byte magic string, no terminator
//   uint64 number of entries
//   per entry: uint64 offset (from the start of the bundle), uint64 size, uint64 ID length, ID bytes (no terminator)
//   the entries' bytes at their offsets
// All integers little-endian. A compressed bundle (magic "CCOB", clang --offload-compress) is rejected with a message
// saying so: cmake/hip.cmake never asks for one.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace tp::amdgpu_sim {

// The fat binary wrapper clang puts in .hipFatBinSegment and passes to __hipRegisterFatBinary
// (clang/lib/CodeGen/CGCUDANV.cpp: magic, version 1, pointer to the bundle, unused pointer).
struct hip_fatbin_wrapper {
  uint32_t magic;    // hip_fatbin_magic
  uint32_t version;  // 1
  const void* bundle;
  const void* unused;
};
inline constexpr uint32_t hip_fatbin_magic = 0x48495046;  // "HIPF"

struct bundle_entry {
  std::string id;  // "hipv4-amdgcn-amd-amdhsa--gfx1201", "host-x86_64-unknown-linux-gnu--"
  std::span<const uint8_t> bytes;
};

// The entries of a bundle held in `bytes`; throws sim_error naming what is malformed (bad magic, an entry outside the
// bundle, an implausible count or ID length).
std::vector<bundle_entry> parse_offload_bundle(std::span<const uint8_t> bytes);

// The bundle's extent when only its start is known (the registered pointer: the section's size is not passed):
// the header is read with the same checks, and the extent is the end of the last entry. Throws sim_error.
std::span<const uint8_t> offload_bundle_extent(const uint8_t* start);

// The entry ID clang gives the code object of `arch` ("gfx1201" -> "hipv4-amdgcn-amd-amdhsa--gfx1201").
std::string hip_entry_id(const std::string& arch);

// The code object for `arch`, or an empty span when the bundle has none. An entry with target features
// ("...--gfx1201:xnack-") does not count: cmake/hip.cmake builds featureless code objects.
std::span<const uint8_t> find_code_object(const std::vector<bundle_entry>& entries, const std::string& arch);

}  // namespace tp::amdgpu_sim
