// Test-side stand-ins for the runtime half: a global_memory over a few host allocations (out-of-bounds and
// never-written reads throw, as the runtime's checks do) and a launcher that fills the kernarg segment from the
// code object's metadata, hidden arguments included.
#pragma once

#include <cstdint>
#include <cstring>
#include <fstream>
#include <iterator>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "simt/amdgpu_sim/machine.h"

namespace tp::amdgpu_sim::test {

inline std::vector<uint8_t> read_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw std::runtime_error("cannot open " + path);
  return {std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
}

class test_memory final : public global_memory {
 public:
  // A new allocation, 256-byte aligned and separated from its neighbours by an unmapped gap.
  uint64_t alloc(std::size_t bytes) {
    const uint64_t base = next_;
    next_ += (bytes + 4096 + 255) & ~uint64_t(255);
    auto& a = allocs_[base];
    a.bytes.assign(bytes, 0);
    a.written.assign(bytes, false);
    return base;
  }
  template <class T>
  uint64_t upload(const std::vector<T>& v) {
    const uint64_t at = alloc(v.size() * sizeof(T));
    std::memcpy(find(at, v.size() * sizeof(T)).bytes.data(), v.data(), v.size() * sizeof(T));
    auto& a = allocs_.at(at);
    a.written.assign(a.written.size(), true);
    return at;
  }
  template <class T>
  std::vector<T> download(uint64_t at, std::size_t n) {
    std::vector<T> v(n);
    auto& a = allocs_.at(at);
    std::memcpy(v.data(), a.bytes.data(), n * sizeof(T));
    return v;
  }
  uint8_t* load(uint64_t addr, uint32_t bytes) override {
    alloc_t& a = find(addr, bytes);
    const std::size_t off = addr - base_of(addr);
    for (uint32_t i = 0; i < bytes; ++i)
      if (!a.written[off + i]) throw sim_error("read of never-written global memory at " + std::to_string(addr));
    return a.bytes.data() + off;
  }
  uint8_t* store(uint64_t addr, uint32_t bytes) override {
    alloc_t& a = find(addr, bytes);
    const std::size_t off = addr - base_of(addr);
    for (uint32_t i = 0; i < bytes; ++i) a.written[off + i] = true;
    return a.bytes.data() + off;
  }

 private:
  struct alloc_t {
    std::vector<uint8_t> bytes;
    std::vector<bool> written;
  };
  uint64_t base_of(uint64_t addr) const { return std::prev(allocs_.upper_bound(addr))->first; }
  alloc_t& find(uint64_t addr, uint64_t bytes) {
    auto it = allocs_.upper_bound(addr);
    if (it == allocs_.begin()) throw sim_error("global access out of bounds at " + std::to_string(addr));
    --it;
    if (addr + bytes > it->first + it->second.bytes.size())
      throw sim_error("global access out of bounds at " + std::to_string(addr));
    return it->second;
  }
  std::map<uint64_t, alloc_t> allocs_;
  uint64_t next_ = 0x7f0000000000ull;
};

// Explicit arguments in order (pointers and scalars as up to 8 little-endian bytes); hidden ones from the launch.
inline void launch(code_object& co, test_memory& mem, const std::string& kernel, dim3u grid, dim3u block,
                   const std::vector<uint64_t>& args, uint32_t dynamic_lds = 0,
                   wave_schedule schedule = wave_schedule::adversarial, uint64_t schedule_seed = 0,
                   lds_hazard_report* hazards = nullptr) {
  const kernel_info* k = co.find(kernel);
  if (!k) throw std::runtime_error("no kernel " + kernel);
  std::vector<uint8_t> seg(k->kernarg_size, 0);
  std::size_t next = 0;
  auto put = [&](const kernel_arg& a, uint64_t v) { std::memcpy(seg.data() + a.offset, &v, a.size); };
  for (const kernel_arg& a : k->args) {
    const std::string& vk = a.value_kind;
    if (vk == "global_buffer" || vk == "by_value") {
      if (next >= args.size()) throw std::runtime_error("too few arguments for " + kernel);
      put(a, args[next++]);
    } else if (vk == "hidden_block_count_x") put(a, grid.x);
    else if (vk == "hidden_block_count_y") put(a, grid.y);
    else if (vk == "hidden_block_count_z") put(a, grid.z);
    else if (vk == "hidden_group_size_x") put(a, block.x);
    else if (vk == "hidden_group_size_y") put(a, block.y);
    else if (vk == "hidden_group_size_z") put(a, block.z);
    else if (vk == "hidden_grid_dims") put(a, grid.z > 1 ? 3 : grid.y > 1 ? 2 : 1);
    // remainders (uniform work-group sizes: 0), global offsets: 0
  }
  if (next != args.size()) throw std::runtime_error("too many arguments for " + kernel);
  const uint64_t at = mem.upload(seg);
  // hsa_kernel_dispatch_packet_t: workgroup_size_x/y/z (u16 at 4/6/8), grid_size_x/y/z in work-items (u32 at 12/16/20)
  std::vector<uint8_t> packet(64, 0);
  const uint16_t wg[3] = {uint16_t(block.x), uint16_t(block.y), uint16_t(block.z)};
  const uint32_t gs[3] = {grid.x * block.x, grid.y * block.y, grid.z * block.z};
  std::memcpy(packet.data() + 4, wg, sizeof wg);
  std::memcpy(packet.data() + 12, gs, sizeof gs);
  std::memcpy(packet.data() + 40, &at, 8);
  const uint64_t packet_at = mem.upload(packet);
  dispatch d;
  d.dispatch_packet_address = packet_at;
  d.kernel = kernel;
  d.grid_blocks = grid;
  d.block_threads = block;
  d.dynamic_lds_bytes = dynamic_lds;
  d.kernarg_address = at;
  d.kernarg = seg;
  d.schedule = schedule;
  d.schedule_seed = schedule_seed;
  d.lds_hazards = hazards;
  co.run(d, mem);
}

// The mangled name of a kernel of test_kernels.cu, found by its unqualified name in the code object.
inline std::string kernel_named(const code_object& co, const std::string& plain) {
  const std::string needle = std::to_string(plain.size()) + plain;
  for (const kernel_info& k : co.kernels())
    if (k.name.find("tp_sim_machine_test") != std::string::npos && k.name.find(needle) != std::string::npos)
      return k.name;
  throw std::runtime_error("no kernel named " + plain);
}

}  // namespace tp::amdgpu_sim::test
