#include "simt/amdgpu_sim/runtime/device_memory.h"
#include "simt/amdgpu_sim/format.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <utility>

namespace tp::amdgpu_sim {
namespace {
constexpr std::size_t freed_kept = 64;

std::string range(uint64_t base, std::size_t size) {
  return "[" + hex(base) + ", " + hex(base + size) + ") (" + std::to_string(size) + " bytes)";
}
void keep(unwritten_loads& u, uint64_t addr) {
  ++u.loads;
  if (u.first.size() < unwritten_sites_kept) u.first.push_back(addr);
}
}  // namespace

device_memory::~device_memory() {
  for (auto& [base, a] : allocations_) std::free(a->raw);
}

uint64_t device_memory::allocate(std::size_t bytes, std::size_t align) {
  if (bytes == 0) bytes = 1;
  align = std::max<std::size_t>(align, 256);
  if (align & (align - 1)) throw sim_error("device_memory::allocate: alignment " + std::to_string(align) +
                                           " is not a power of two");
  if (bytes > SIZE_MAX - align) return 0;
  void* raw = std::malloc(bytes + align);
  if (!raw) return 0;
  const uint64_t base = (reinterpret_cast<uint64_t>(raw) + align - 1) & ~uint64_t(align - 1);
  auto a = std::make_unique<allocation>();
  a->base = base;
  a->size = bytes;
  a->raw = raw;
  a->written.assign(bytes, 0);
  a->unwritten_bytes = bytes;
  // Deterministic contents for memory no one wrote: a kernel that loads it reads the same values on every run (the
  // CPU emulator's poison byte; a load of it is counted as unwritten anyway).
  std::memset(reinterpret_cast<void*>(base), 0xA5, bytes);
  // Freed ranges this allocation reuses no longer explain a fault.
  std::erase_if(freed_, [&](const freed_range& f) { return f.base < base + bytes && base < f.base + f.size; });
  allocations_.emplace(base, std::move(a));
  return base;
}

bool device_memory::free(uint64_t addr) {
  const auto it = allocations_.find(addr);
  if (it == allocations_.end()) return false;
  if (last_ == it->second.get()) last_ = nullptr;
  if (freed_.size() == freed_kept) freed_.erase(freed_.begin());
  freed_.push_back({it->second->base, it->second->size});
  std::free(it->second->raw);
  allocations_.erase(it);
  return true;
}

device_memory::allocation* device_memory::lookup(uint64_t addr, std::size_t bytes) const {
  const auto inside = [&](const allocation& a) {
    return addr >= a.base && addr - a.base <= a.size && bytes <= a.size - (addr - a.base);
  };
  if (last_ && inside(*last_)) return last_;
  auto it = allocations_.upper_bound(addr);
  if (it == allocations_.begin()) return nullptr;
  --it;
  if (!inside(*it->second)) return nullptr;
  last_ = it->second.get();
  return last_;
}

bool device_memory::contains(uint64_t addr, std::size_t bytes) const { return lookup(addr, bytes) != nullptr; }

std::optional<std::pair<uint64_t, std::size_t>> device_memory::allocation_containing(uint64_t addr) const {
  const allocation* a = lookup(addr, 1);
  if (!a) return std::nullopt;
  return std::pair{a->base, a->size};
}

bool device_memory::declare_address_words(uint64_t addr, std::span<const uint64_t> offsets) {
  allocation* a = lookup(addr, 1);
  if (!a) return false;
  for (const uint64_t off : offsets)
    if ((addr + off) % 8 != 0 || lookup(addr + off, 8) != a) return false;
  for (const uint64_t off : offsets) a->address_words.push_back(addr + off - a->base);
  std::sort(a->address_words.begin(), a->address_words.end());
  a->address_words.erase(std::unique(a->address_words.begin(), a->address_words.end()), a->address_words.end());
  return true;
}

std::span<const uint64_t> device_memory::address_words(uint64_t base) const {
  const auto it = allocations_.find(base);
  if (it == allocations_.end()) return {};
  return it->second->address_words;
}

void device_memory::fault(uint64_t addr, std::size_t bytes, const char* what) const {
  std::string msg = std::string(what) + " of " + std::to_string(bytes) + " bytes at " + hex(addr) + " is outside every allocation";
  for (const auto& f : freed_)
    if (addr < f.base + f.size && f.base < addr + bytes) {
      msg += ": it hits memory freed earlier, " + range(f.base, f.size);
      throw sim_error(msg);
    }
  // The nearest live allocation: the one below (the usual overrun) or above (an underrun).
  const allocation* nearest = nullptr;
  uint64_t distance = UINT64_MAX;
  auto it = allocations_.upper_bound(addr);
  if (it != allocations_.end()) {
    nearest = it->second.get();
    distance = it->second->base - addr;
  }
  if (it != allocations_.begin()) {
    --it;
    const allocation& a = *it->second;
    const uint64_t d = addr >= a.base + a.size ? addr - (a.base + a.size) : 0;
    if (d <= distance) {
      nearest = &a;
      distance = d;
    }
  }
  if (nearest)
    msg += "; nearest allocation " + range(nearest->base, nearest->size) + ", the access starts at offset " +
           std::to_string(int64_t(addr - nearest->base)) + " from its base";
  else
    msg += "; there are no live allocations";
  throw sim_error(msg);
}

device_memory::allocation& device_memory::find(uint64_t addr, std::size_t bytes, const char* what) {
  if (auto* a = lookup(addr, bytes)) return *a;
  fault(addr, bytes, what);
}
const device_memory::allocation& device_memory::find(uint64_t addr, std::size_t bytes, const char* what) const {
  if (auto* a = lookup(addr, bytes)) return *a;
  fault(addr, bytes, what);
}

void device_memory::mark_written(allocation& a, std::size_t offset, std::size_t bytes) {
  if (a.unwritten_bytes == 0) return;
  uint8_t* w = a.written.data() + offset;
  for (std::size_t i = 0; i < bytes; ++i)
    if (!w[i]) {
      w[i] = 1;
      --a.unwritten_bytes;
    }
}

void device_memory::host_write(uint64_t addr, const void* src, std::size_t bytes) {
  if (bytes == 0) return;
  allocation& a = find(addr, bytes, "host write");
  std::memcpy(reinterpret_cast<void*>(addr), src, bytes);
  mark_written(a, addr - a.base, bytes);
  a.unwritten = {};
  a.host_written = true;
}

void device_memory::host_read(uint64_t addr, void* dst, std::size_t bytes) const {
  if (bytes == 0) return;
  (void)find(addr, bytes, "host read");
  std::memcpy(dst, reinterpret_cast<const void*>(addr), bytes);
}

void device_memory::fill(uint64_t addr, uint8_t value, std::size_t bytes) {
  if (bytes == 0) return;
  allocation& a = find(addr, bytes, "memset");
  std::memset(reinterpret_cast<void*>(addr), value, bytes);
  mark_written(a, addr - a.base, bytes);
  a.unwritten = {};
  a.host_written = true;
}

void device_memory::fill32(uint64_t addr, uint32_t value, std::size_t count) {
  if (count == 0) return;
  if (count > SIZE_MAX / 4) throw sim_error("memset of " + std::to_string(count) + " 32-bit words overflows");
  allocation& a = find(addr, count * 4, "memset");
  for (std::size_t i = 0; i < count; ++i) std::memcpy(reinterpret_cast<void*>(addr + 4 * i), &value, 4);
  mark_written(a, addr - a.base, count * 4);
  a.unwritten = {};
  a.host_written = true;
}

void device_memory::copy(uint64_t dst, uint64_t src, std::size_t bytes) {
  if (bytes == 0) return;
  const allocation& s = find(src, bytes, "device-to-device copy source");
  allocation& d = find(dst, bytes, "device-to-device copy destination");
  std::memmove(reinterpret_cast<void*>(dst), reinterpret_cast<const void*>(src), bytes);
  // memmove semantics for the flags too (the ranges may overlap within one allocation).
  std::vector<uint8_t> flags(s.written.begin() + (src - s.base), s.written.begin() + (src - s.base) + bytes);
  for (std::size_t i = 0; i < bytes; ++i) {
    uint8_t& w = d.written[dst - d.base + i];
    if (w != flags[i]) {
      if (flags[i])
        --d.unwritten_bytes;
      else
        ++d.unwritten_bytes;
      w = flags[i];
    }
  }
  d.host_written = true;
}

uint8_t* device_memory::load(uint64_t addr, uint32_t bytes) {
  allocation& a = find(addr, bytes, "global load");
  if (a.unwritten_bytes != 0) {
    const uint8_t* w = a.written.data() + (addr - a.base);
    for (uint32_t i = 0; i < bytes; ++i)
      if (!w[i]) {
        keep(a.unwritten, addr + i);
        keep(launch_unwritten_, addr + i);
        break;
      }
  }
  return reinterpret_cast<uint8_t*>(addr);
}

uint8_t* device_memory::store(uint64_t addr, uint32_t bytes) {
  allocation& a = find(addr, bytes, "global store");
  mark_written(a, addr - a.base, bytes);
  return reinterpret_cast<uint8_t*>(addr);
}

uint8_t* device_memory::plain_range(uint64_t lo, uint64_t end) {
  if (end <= lo) return nullptr;
  const allocation* a = lookup(lo, end - lo);
  // With no unwritten byte, load() counts nothing and store()'s marking is a no-op: only the bounds matter.
  return a && a->unwritten_bytes == 0 ? reinterpret_cast<uint8_t*>(lo) : nullptr;
}

unwritten_loads device_memory::take_unwritten_loads() { return std::exchange(launch_unwritten_, {}); }

unwritten_loads device_memory::unwritten_loads_of(uint64_t addr) const {
  const allocation* a = lookup(addr, 0);
  return a ? a->unwritten : unwritten_loads{};
}

bool device_memory::kernel_written(uint64_t addr, std::size_t bytes, uint8_t* flags) const {
  const allocation* a = lookup(addr, bytes);
  if (!a || a->host_written) return false;
  std::memcpy(flags, a->written.data() + (addr - a->base), bytes);
  return true;
}

uint64_t place_image(device_memory& memory, code_object& co) {
  const uint64_t bytes = co.image_bytes();
  if (bytes == 0) return 0;
  const uint64_t at = memory.allocate(bytes, std::max<std::size_t>(co.image_align(), 256));
  if (!at) throw sim_error("the code object's image (" + std::to_string(bytes) + " bytes): out of memory");
  std::vector<uint8_t> image(bytes);
  try {
    co.place_image(image.data(), at);
  } catch (...) {
    memory.free(at);
    throw;
  }
  memory.host_write(at, image.data(), bytes);
  return at;
}

}  // namespace tp::amdgpu_sim
