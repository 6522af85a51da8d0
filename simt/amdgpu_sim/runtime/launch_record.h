// One kernel launch on the simulated device, written down so that another executor can run the same machine code on
// the same inputs: the corpus that AMD's rocJITsu emulator and this simulator both replay
// (tests/amdgpu_sim/rocjitsu/README.md). Three files share the format of this header:
//
//   <id>.tplaunch   the launch (launch_recorder.h writes it): arch, kernel, code object key, grid/block/dynamic LDS,
//                   wave schedule, the kernarg segment and every buffer a kernarg pointer reaches, with its bytes
//   <id>.tpresult   another executor's result of that launch (tools/rocjitsu-runner writes it): per buffer its final
//                   bytes where they are few, else their SHA-256
//   <key>.co        the code object a key names (the recorder dumps it beside the launches; never committed: CI builds
//                   its own and finds it by key, code_object_key())
//
// Layout: a first line "tileprobe-<kind> 1", a second line of JSON (the fields below), then the blobs the JSON lists,
// back to back. Buffers are placed at canonical addresses (canonical_address()): a recorded kernarg holds those, and
// `relocations` say which 8-byte words are buffer addresses, so an executor that places the buffers elsewhere (this
// simulator: host memory) rewrites exactly those words. A buffer may hold addresses too (a kernel's descriptors, which
// the host declared: device_memory::declare_address_words); `buffer_relocations` name those words, canonical in the
// recorded bytes, and a result holds them canonical again (canonicalize_buffer). The files are a function of the launch alone (no host
// address, no time, no path), so recording the same test twice gives the same bytes.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "simt/amdgpu_sim/machine.h"

namespace tp::amdgpu_sim::record {

// Buffer i lives at canonical_base + i * canonical_stride in a replay that is free to choose (rocJITsu's memory):
// far above the code, kernarg and queue addresses an executor puts below 4 GiB, 4 GiB apart, so a buffer can be as
// large as any the hip-sim tests allocate.
inline constexpr uint64_t canonical_base = uint64_t(1) << 36;
inline constexpr uint64_t canonical_stride = uint64_t(1) << 32;
inline constexpr uint64_t canonical_address(uint32_t buffer) { return canonical_base + buffer * canonical_stride; }

// The code object's image in such a replay (rocJITsu's runner puts it here, below the kernarg segment and the
// buffers): a kernel that stores an address of its own code (s_getpc_b64) stores canonical_code_base + its offset in
// the image, which an executor placing the image elsewhere (this simulator: host memory) writes back before comparing.
inline constexpr uint64_t canonical_code_base = uint64_t(1) << 16;

struct relocation {
  uint32_t kernarg_offset = 0;  // an 8-byte word of the kernarg segment that holds an address
  uint32_t buffer = 0;          // which buffer
  uint64_t delta = 0;           // the address's offset into it
};

// An 8-byte word of a buffer that holds a buffer address (a descriptor's pointer member).
struct buffer_relocation {
  uint32_t holder = 0;  // the buffer whose bytes hold the address
  uint64_t offset = 0;  // the word's offset in it
  uint32_t buffer = 0;  // which buffer the address points into
  uint64_t delta = 0;   // the address's offset into that one
};

struct launch {
  std::string arch;                // "gfx1201"
  std::string kernel;              // the kernel symbol
  std::string code_object;         // code_object_key() of the code object and kernel
  dim3u grid_blocks, block_threads;
  uint32_t dynamic_lds_bytes = 0;
  wave_schedule schedule = wave_schedule::adversarial;
  uint64_t schedule_seed = 0;
  std::vector<uint8_t> kernarg;    // canonical addresses in the relocated words
  std::vector<relocation> relocations;
  std::vector<std::vector<uint8_t>> buffers;  // initial bytes, buffer i at canonical_address(i)
  std::vector<buffer_relocation> buffer_relocations;  // canonical addresses in those words of `buffers`
};

// A buffer's final state in a result: its bytes when stored, else its SHA-256 (hex) and size.
struct buffer_result {
  uint64_t size = 0;
  std::string sha256;
  std::optional<std::vector<uint8_t>> bytes;
};
struct result {
  std::string executor;   // "rocjitsu a3c6becc8b gfx1201_r9700.json": who ran it, which commit and config
  std::string launch_id;  // the .tplaunch's id (file name without extension)
  std::vector<buffer_result> buffers;
};

// Buffers up to this many bytes are stored whole in a result (a float mismatch then shows which element and by how
// much); larger ones by digest: the corpus stays a few MB (tests/amdgpu_sim/rocjitsu/README.md).
inline constexpr uint64_t stored_bytes_limit = 16 * 1024;

std::vector<uint8_t> encode(const launch&);
launch decode_launch(std::span<const uint8_t> file);  // throws sim_error naming what is malformed
std::vector<uint8_t> encode(const result&);
result decode_result(std::span<const uint8_t> file);
buffer_result summarize(std::span<const uint8_t> final_bytes);  // stored or digest, by stored_bytes_limit

// The identity of a kernel's machine code: SHA-256 (hex) over the code object's .text and the kernel's 64-byte kernel
// descriptor (<kernel>.kd). Not the whole ELF: its DWARF holds build paths, so each build of the same kernels gives
// another file, while .text and the descriptor are what executes. Throws sim_error when the ELF has neither.
std::string code_object_key(std::span<const uint8_t> elf, const std::string& kernel);
// The keys of every kernel (every <kernel>.kd) in a code object: kernel -> key.
std::map<std::string, std::string> code_object_keys(std::span<const uint8_t> elf);

// The code objects of `arch` in a host object or executable's .hip_fatbin sections (clang's offload bundles), each
// copied out. Throws sim_error for a file that is not an object or a malformed bundle.
std::vector<std::vector<uint8_t>> hip_code_objects(const std::string& path, const std::string& arch);

std::string sha256_hex(std::span<const uint8_t> bytes);
// The launch's id: the first 16 hex digits of the SHA-256 of its encoding, so identical launches recorded by two
// tests are one file.
std::string launch_id(std::span<const uint8_t> encoded_launch);

std::vector<uint8_t> read_file(const std::string& path);  // throws sim_error
void write_file(const std::string& path, std::span<const uint8_t> bytes);  // throws sim_error

// The little-endian 8-byte word at byte `at` (an address in a kernarg segment or a buffer), and its store.
uint64_t word_at(std::span<const uint8_t> bytes, uint64_t at);
void set_word(std::span<uint8_t> bytes, uint64_t at, uint64_t v);

// The kernarg segment with every relocated word pointing at `addresses[buffer] + delta`.
std::vector<uint8_t> relocated_kernarg(const launch&, std::span<const uint64_t> addresses);
// Buffer `holder`'s initial bytes with every address it holds pointing at `addresses[buffer] + delta`.
std::vector<uint8_t> relocated_buffer(const launch&, uint32_t holder, std::span<const uint64_t> addresses);
// The reverse on a buffer's final bytes: each word that still holds the address relocated_buffer wrote there is
// canonical again (one the kernel overwrote stays as it is), so a result does not depend on where an executor put the
// buffers.
void canonicalize_buffer(const launch&, uint32_t holder, std::span<const uint64_t> addresses,
                         std::span<uint8_t> final_bytes);

const char* to_string(wave_schedule);

}  // namespace tp::amdgpu_sim::record
