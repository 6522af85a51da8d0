#include "simt/amdgpu_sim/runtime/launch_recorder.h"

#include <cstdlib>
#include <filesystem>
#include <iostream>

namespace tp::amdgpu_sim {
namespace {
uint64_t env_number(const char* name, uint64_t fallback) {
  const char* v = std::getenv(name);
  if (!v || !*v) return fallback;
  char* end = nullptr;
  const unsigned long long n = std::strtoull(v, &end, 10);
  if (*end != '\0') {
    std::cerr << "tileprobe simulator: " << name << "='" << v << "' is not a number; using " << fallback << '\n';
    return fallback;
  }
  return n;
}
bool is_hidden(const kernel_arg& a) { return a.value_kind.rfind("hidden_", 0) == 0; }
}  // namespace

std::string launch_recorder::directory() {
  const char* d = std::getenv("TILEPROBE_SIM_RECORD_DIR");
  return d ? d : "";
}

launch_recorder::launch_recorder(device_memory& mem, std::span<const uint8_t> elf, const code_object& co,
                                 std::string dir)
    : mem_(mem),
      elf_(elf),
      co_(co),
      dir_(std::move(dir)),
      keys_(record::code_object_keys(elf)),
      per_kernel_(unsigned(env_number("TILEPROBE_SIM_RECORD_PER_KERNEL", 2))),
      max_bytes_(env_number("TILEPROBE_SIM_RECORD_MAX_BYTES", uint64_t(4) << 20)) {}

void launch_recorder::launch_begin(const dispatch& d) {
  pending_.reset();
  if (kept_[d.kernel] >= per_kernel_) return;
  const kernel_info* k = co_.find(d.kernel);
  if (!k) return;
  record::launch l;
  l.arch = co_.arch();
  l.kernel = d.kernel;
  const auto key = keys_.find(d.kernel);
  if (key == keys_.end()) return;
  l.code_object = key->second;
  l.grid_blocks = d.grid_blocks;
  l.block_threads = d.block_threads;
  l.dynamic_lds_bytes = d.dynamic_lds_bytes;
  l.schedule = d.schedule;
  l.schedule_seed = d.schedule_seed;
  l.kernarg.assign(d.kernarg.begin(), d.kernarg.end());
  std::map<uint64_t, uint32_t> buffer_of;  // allocation base -> buffer index
  uint64_t total = 0;
  for (const kernel_arg& a : k->args) {
    if (is_hidden(a)) continue;
    for (uint32_t off = (a.offset + 7) & ~7u; off + 8 <= a.offset + a.size && off + 8 <= l.kernarg.size(); off += 8) {
      uint64_t v = 0;
      for (int i = 0; i < 8; ++i) v |= uint64_t(l.kernarg[off + i]) << (8 * i);
      const auto extent = mem_.allocation_containing(v);
      if (!extent) continue;
      auto [it, fresh] = buffer_of.emplace(extent->first, uint32_t(l.buffers.size()));
      if (fresh) {
        std::vector<uint8_t> bytes(extent->second);
        mem_.host_read(extent->first, bytes.data(), bytes.size());
        total += bytes.size();
        l.buffers.push_back(std::move(bytes));
      }
      const uint64_t delta = v - extent->first;
      l.relocations.push_back({off, it->second, delta});
      const uint64_t canonical = record::canonical_address(it->second) + delta;
      for (int i = 0; i < 8; ++i) l.kernarg[off + i] = uint8_t(canonical >> (8 * i));
    }
  }
  if (total > max_bytes_) {
    if (!std::exchange(size_noted_[d.kernel], true))
      std::cerr << "tileprobe simulator: not recording a launch of " << d.kernel << ": its buffers hold " << total
                << " bytes, TILEPROBE_SIM_RECORD_MAX_BYTES allows " << max_bytes_ << '\n';
    return;
  }
  pending_ = std::move(l);
}

void launch_recorder::launch_end(const dispatch& d) {
  if (!pending_ || pending_->kernel != d.kernel) return;
  const std::vector<uint8_t> bytes = record::encode(*pending_);
  std::filesystem::create_directories(dir_);
  record::write_file(dir_ + "/" + record::launch_id(bytes) + ".tplaunch", bytes);
  const std::string co_path = dir_ + "/" + pending_->code_object + ".co";
  if (!std::filesystem::exists(co_path)) record::write_file(co_path, elf_);
  ++kept_[d.kernel];
  pending_.reset();
}

}  // namespace tp::amdgpu_sim
