#include "simt/amdgpu_sim/runtime/launch_recorder.h"

#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

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

namespace {
class device_memory_view final : public recorded_memory {
 public:
  explicit device_memory_view(const device_memory& m) : m_(m) {}
  std::optional<std::pair<uint64_t, std::size_t>> allocation_containing(uint64_t addr) const override {
    return m_.allocation_containing(addr);
  }
  void read(uint64_t addr, void* dst, std::size_t bytes) const override { m_.host_read(addr, dst, bytes); }
  std::span<const uint64_t> address_words(uint64_t base) const override { return m_.address_words(base); }

 private:
  const device_memory& m_;
};
}  // namespace

launch_recorder::launch_recorder(const device_memory& mem, std::span<const uint8_t> elf, const code_object& co,
                                 std::string dir)
    : launch_recorder(std::make_unique<device_memory_view>(mem), elf, co, std::move(dir)) {}

launch_recorder::launch_recorder(std::unique_ptr<recorded_memory> owned, std::span<const uint8_t> elf,
                                 const code_object& co, std::string dir)
    : launch_recorder(*owned, elf, co, std::move(dir)) {
  owned_ = std::move(owned);
}

launch_recorder::launch_recorder(const recorded_memory& mem, std::span<const uint8_t> elf, const code_object& co,
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
  // The allocation an address points into, as a buffer of the record (taken when first reached), and the address's
  // offset into it; nullopt for an address outside every live allocation (null, say).
  std::map<uint64_t, uint32_t> buffer_of;  // allocation base -> buffer index
  std::vector<uint64_t> base_of;           // buffer index -> allocation base
  uint64_t total = 0;
  const auto reach = [&](uint64_t address) -> std::optional<std::pair<uint32_t, uint64_t>> {
    const auto extent = mem_.allocation_containing(address);
    if (!extent) return std::nullopt;
    auto [it, fresh] = buffer_of.emplace(extent->first, uint32_t(l.buffers.size()));
    if (fresh) {
      std::vector<uint8_t> bytes(extent->second);
      mem_.read(extent->first, bytes.data(), bytes.size());
      total += bytes.size();
      l.buffers.push_back(std::move(bytes));
      base_of.push_back(extent->first);
    }
    return std::pair{it->second, address - extent->first};
  };
  for (const kernel_arg& a : k->args) {
    if (is_hidden(a)) continue;
    for (uint32_t off = (a.offset + 7) & ~7u; off + 8 <= a.offset + a.size && off + 8 <= l.kernarg.size(); off += 8) {
      const auto to = reach(record::word_at(l.kernarg, off));
      if (!to) continue;
      l.relocations.push_back({off, to->first, to->second});
      record::set_word(l.kernarg, off, record::canonical_address(to->first) + to->second);
    }
  }
  // Then the addresses the host declared inside the buffers reached (device_memory::declare_address_words), which
  // may reach more buffers: each buffer is visited once, in the order reached.
  for (uint32_t holder = 0; holder < l.buffers.size(); ++holder)
    for (const uint64_t off : mem_.address_words(base_of[holder])) {
      const auto to = reach(record::word_at(l.buffers[holder], off));
      if (!to) continue;
      l.buffer_relocations.push_back({holder, off, to->first, to->second});
      record::set_word(l.buffers[holder], off, record::canonical_address(to->first) + to->second);
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
