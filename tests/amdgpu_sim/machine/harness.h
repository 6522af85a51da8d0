// Test-side stand-ins for the runtime half: a global memory of a few host allocations, whose checks (out-of-bounds and
// never-written reads throw, as the runtime's checks stop or count them) are a plugin on the machine, and a launcher
// that fills the kernarg segment from the code object's metadata, hidden arguments included. Where
// TILEPROBE_SIM_EXECUTED_DIR names a folder, the code objects loaded through load() record which instructions ran, for
// the coverage audit (simt/amdgpu_sim/audit).
#pragma once

#include <bit>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <iterator>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "simt/amdgpu_sim/machine.h"
#include "simt/amdgpu_sim/machine/plugin.h"
#include "simt/amdgpu_sim/machine/plugins/executed_mnemonics.h"
#include "simt/amdgpu_sim/machine/plugins/lds_race_detector.h"
#include "simt/amdgpu_sim/runtime/launch_recorder.h"

namespace tp::amdgpu_sim::test {

inline std::vector<uint8_t> read_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw std::runtime_error("cannot open " + path);
  return {std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
}

// The machine addresses global memory by host address (machine.h): each allocation is host memory at the address
// handed out.
// It is also what the launch recorder reads (TILEPROBE_SIM_RECORD_DIR: the machine tests' kernels recorded for
// rocJITsu, tests/amdgpu_sim/rocjitsu/README.md).
class test_memory final : public machine::plugin, public recorded_memory {
 public:
  uint64_t alloc(std::size_t bytes) {
    auto a = std::make_unique<alloc_t>();
    a->bytes.reset(new uint8_t[bytes + 256]());
    a->size = bytes;
    a->written.assign(bytes, false);
    const uint64_t base = (reinterpret_cast<uint64_t>(a->bytes.get()) + 255) & ~uint64_t(255);
    allocs_[base] = std::move(a);
    return base;
  }
  // ROCr's loader step (machine.h, code_object::place_image): the code object's image in an allocation of its own,
  // every byte written. Aligned to 256 bytes, not to image_align(): the kernels address the image only relative to
  // its base.
  uint64_t place_image(code_object& co) {
    std::vector<uint8_t> image(co.image_bytes());
    const uint64_t at = alloc(image.size());
    co.place_image(image.data(), at);
    std::memcpy(reinterpret_cast<void*>(at), image.data(), image.size());
    allocs_.at(at)->written.assign(image.size(), true);
    return at;
  }
  template <class T>
  uint64_t upload(const std::vector<T>& v) {
    const uint64_t at = alloc(v.size() * sizeof(T));
    std::memcpy(reinterpret_cast<void*>(at), v.data(), v.size() * sizeof(T));
    auto& a = *allocs_.at(at);
    a.written.assign(a.written.size(), true);
    return at;
  }
  template <class T>
  std::vector<T> download(uint64_t at, std::size_t n) {
    std::vector<T> v(n);
    (void)allocs_.at(at);
    std::memcpy(v.data(), reinterpret_cast<const void*>(at), n * sizeof(T));
    return v;
  }
  std::optional<std::pair<uint64_t, std::size_t>> allocation_containing(uint64_t addr) const override {
    auto it = allocs_.upper_bound(addr);
    if (it == allocs_.begin()) return std::nullopt;
    --it;
    if (addr >= it->first + it->second->size) return std::nullopt;
    return std::pair{it->first, it->second->size};
  }
  void read(uint64_t addr, void* dst, std::size_t bytes) const override {
    std::memcpy(dst, reinterpret_cast<const void*>(addr), bytes);
  }
  std::span<const uint64_t> address_words(uint64_t) const override { return {}; }  // the tests declare none

  // The checks, before each global access of a wave (lane by lane, ascending).
  void memory(const machine::wave&, const machine::op&, const machine::memory_access& a) override {
    if (a.space != machine::memory_space::global) return;
    for (uint32_t m = a.lanes; m; m &= m - 1) {
      const uint64_t addr = a.address[std::countr_zero(m)];
      auto& [base, al] = find(addr, a.bytes);
      for (uint32_t i = 0; i < a.bytes; ++i) {
        if (!a.write && !al->written[addr - base + i])
          throw sim_error("read of never-written global memory at " + std::to_string(addr));
        if (a.write) al->written[addr - base + i] = true;
      }
    }
  }

 private:
  struct alloc_t {
    std::unique_ptr<uint8_t[]> bytes;
    std::size_t size = 0;
    std::vector<bool> written;
  };
  std::pair<const uint64_t, std::unique_ptr<alloc_t>>& find(uint64_t addr, uint64_t bytes) {
    auto it = allocs_.upper_bound(addr);
    if (it == allocs_.begin()) throw sim_error("global access out of bounds at " + std::to_string(addr));
    --it;
    if (addr + bytes > it->first + it->second->size)
      throw sim_error("global access out of bounds at " + std::to_string(addr));
    return *it;
  }
  std::map<uint64_t, std::unique_ptr<alloc_t>> allocs_;
};

// The executed-instruction records of the code objects load() returned, while they live.
inline std::map<const code_object*, std::unique_ptr<machine::executed_mnemonics>>& recorders() {
  static std::map<const code_object*, std::unique_ptr<machine::executed_mnemonics>> r;
  return r;
}
// The launch recorders (TILEPROBE_SIM_RECORD_DIR) of the code objects load() returned: one per code object, so its
// per-kernel count holds across the tests of the process, reading the memory of the launch at hand.
struct launch_recording {
  class current_memory final : public recorded_memory {
   public:
    const test_memory* of = nullptr;
    std::optional<std::pair<uint64_t, std::size_t>> allocation_containing(uint64_t addr) const override {
      return of->allocation_containing(addr);
    }
    void read(uint64_t addr, void* dst, std::size_t bytes) const override { of->read(addr, dst, bytes); }
    std::span<const uint64_t> address_words(uint64_t base) const override { return of->address_words(base); }
  };
  std::vector<uint8_t> elf;
  current_memory memory;
  std::unique_ptr<launch_recorder> recorder;
};
inline std::map<const code_object*, std::unique_ptr<launch_recording>>& launch_recordings() {
  static std::map<const code_object*, std::unique_ptr<launch_recording>> r;
  return r;
}
struct forget_record {
  void operator()(code_object* co) const {
    recorders().erase(co);
    launch_recordings().erase(co);
    delete co;
  }
};
using loaded_object = std::unique_ptr<code_object, forget_record>;
inline loaded_object load(const std::vector<uint8_t>& elf) {
  loaded_object co(load_code_object(elf).release());
  if (const std::string dir = machine::executed_mnemonics::directory(); !dir.empty())
    recorders()[co.get()] = std::make_unique<machine::executed_mnemonics>(*co);
  if (const std::string dir = launch_recorder::directory(); !dir.empty()) {
    auto r = std::make_unique<launch_recording>();
    r->elf = elf;
    r->recorder = std::make_unique<launch_recorder>(r->memory, r->elf, *co, dir);
    launch_recordings()[co.get()] = std::move(r);
  }
  return co;
}

// Explicit arguments in order (pointers and scalars as up to 8 little-endian bytes); hidden ones from the launch.
// memory_checks false leaves test_memory's plugin off (accesses go unchecked); `extra` is one more plugin.
inline void launch(code_object& co, test_memory& mem, const std::string& kernel, dim3u grid, dim3u block,
                   const std::vector<uint64_t>& args, uint32_t dynamic_lds = 0,
                   wave_schedule schedule = wave_schedule::adversarial, uint64_t schedule_seed = 0,
                   lds_hazard_report* hazards = nullptr, bool memory_checks = true,
                   machine::plugin* extra = nullptr) {
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
  std::optional<machine::lds_race_detector> races;
  if (memory_checks) d.plugins.push_back(&mem);
  if (extra) d.plugins.push_back(extra);
  if (hazards) d.plugins.push_back(&races.emplace(co, *hazards));
  const auto rec = recorders().find(&co);
  if (rec != recorders().end()) d.plugins.push_back(rec->second.get());
  // Recorded with the memory this launch sees; never with memory_checks off (a test that reaches outside its
  // allocations on purpose is no launch for another executor).
  if (const auto lr = launch_recordings().find(&co); lr != launch_recordings().end() && memory_checks) {
    lr->second->memory.of = &mem;
    d.plugins.push_back(lr->second->recorder.get());
  }
  // The record is written after the launch, also when it stopped.
  const auto record = [&] {
    if (rec != recorders().end() && rec->second->take_news())
      rec->second->write(machine::executed_mnemonics::directory());
  };
  try {
    co.run(d);
  } catch (...) {
    record();
    throw;
  }
  record();
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
