#include "simt/amdgpu_sim/runtime/offload_bundle.h"
#include "simt/amdgpu_sim/format.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <limits>

#include "simt/amdgpu_sim/machine.h"

namespace tp::amdgpu_sim {
namespace {

constexpr char bundle_magic[] = "__CLANG_OFFLOAD_BUNDLE__";
constexpr std::size_t magic_size = sizeof bundle_magic - 1;
// Plausibility limits, so that a corrupted header is reported instead of walked: a bundle has one entry per
// --offload-arch plus the host entry, and an ID is a target triple plus an arch name.
constexpr uint64_t max_entries = 256;
constexpr uint64_t max_id_length = 1024;
constexpr uint64_t max_bundle_bytes = uint64_t(1) << 32;


// Reads the header sequentially; `limit` is the number of readable bytes (the bundle size when known).
class header_reader {
 public:
  header_reader(const uint8_t* p, uint64_t limit) : p_(p), limit_(limit) {}
  uint64_t u64(const char* what) {
    need(8, what);
    uint64_t v = 0;
    for (int i = 7; i >= 0; --i) v = (v << 8) | p_[pos_ + i];  // little-endian, whatever the host
    pos_ += 8;
    return v;
  }
  std::string bytes(uint64_t n, const char* what) {
    need(n, what);
    std::string s(reinterpret_cast<const char*>(p_ + pos_), n);
    pos_ += n;
    return s;
  }
  uint64_t pos() const { return pos_; }

 private:
  void need(uint64_t n, const char* what) {
    if (n > limit_ || pos_ > limit_ - n)
      throw sim_error("offload bundle: truncated at byte " + std::to_string(pos_) + " reading " + what + " (bundle is " +
                      std::to_string(limit_) + " bytes)");
  }
  const uint8_t* p_;
  uint64_t limit_;
  uint64_t pos_ = 0;
};

struct raw_entry {
  std::string id;
  uint64_t offset, size;
};

std::vector<raw_entry> read_header(const uint8_t* p, uint64_t limit) {
  if (limit >= 4 && std::memcmp(p, "CCOB", 4) == 0)
    throw sim_error("offload bundle: compressed bundle (magic CCOB) is not supported; build without --offload-compress");
  if (limit < magic_size || std::memcmp(p, bundle_magic, magic_size) != 0)
    throw sim_error("offload bundle: bad magic (expected \"__CLANG_OFFLOAD_BUNDLE__\")");
  header_reader r(p + magic_size, limit - magic_size);
  const uint64_t n = r.u64("the entry count");
  if (n == 0 || n > max_entries)
    throw sim_error("offload bundle: implausible entry count " + std::to_string(n) + " (1.." +
                    std::to_string(max_entries) + ")");
  std::vector<raw_entry> out;
  for (uint64_t i = 0; i < n; ++i) {
    raw_entry e{};
    e.offset = r.u64("an entry offset");
    e.size = r.u64("an entry size");
    const uint64_t id_len = r.u64("an entry ID length");
    if (id_len == 0 || id_len > max_id_length)
      throw sim_error("offload bundle: entry " + std::to_string(i) + " has an implausible ID length " +
                      std::to_string(id_len));
    e.id = r.bytes(id_len, "an entry ID");
    if (e.offset > max_bundle_bytes || e.size > max_bundle_bytes)
      throw sim_error("offload bundle: entry " + std::to_string(i) + " (" + e.id + ") at offset " + hex(e.offset) +
                      " size " + hex(e.size) + " is implausibly large");
    out.push_back(std::move(e));
  }
  const uint64_t header_end = magic_size + r.pos();
  for (const auto& e : out)
    if (e.size != 0 && e.offset < header_end)
      throw sim_error("offload bundle: entry " + e.id + " at offset " + hex(e.offset) + " overlaps the header (" +
                      std::to_string(header_end) + " bytes)");
  return out;
}

}  // namespace

std::vector<bundle_entry> parse_offload_bundle(std::span<const uint8_t> bytes) {
  const auto raw = read_header(bytes.data(), bytes.size());
  std::vector<bundle_entry> out;
  for (const auto& e : raw) {
    if (e.offset > bytes.size() || e.size > bytes.size() - e.offset)
      throw sim_error("offload bundle: entry " + e.id + " [" + hex(e.offset) + ", +" + hex(e.size) +
                      ") lies outside the bundle (" + std::to_string(bytes.size()) + " bytes)");
    out.push_back({e.id, bytes.subspan(e.offset, e.size)});
  }
  return out;
}

std::span<const uint8_t> offload_bundle_extent(const uint8_t* start) {
  if (!start) throw sim_error("offload bundle: null pointer registered");
  // The header's length is not known before it is read: read it against the largest plausible size, then take
  // the end of the last entry as the extent (the entries follow the header; clang aligns each to 4 KiB).
  uint64_t end = 0;
  for (const auto& e : read_header(start, std::numeric_limits<uint64_t>::max())) end = std::max(end, e.offset + e.size);
  return {start, end};
}

std::string hip_entry_id(const std::string& arch) { return "hipv4-amdgcn-amd-amdhsa--" + arch; }

std::span<const uint8_t> find_code_object(const std::vector<bundle_entry>& entries, const std::string& arch) {
  const std::string id = hip_entry_id(arch);
  for (const auto& e : entries)
    if (e.id == id) return e.bytes;
  return {};
}

}  // namespace tp::amdgpu_sim
