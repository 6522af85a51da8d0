// The simulated device's global memory: every hipMalloc is an allocation of host memory whose address is the device
// pointer handed out, so the machine reaches it without translation. What the hardware cannot give, the simulator
// checks cheaply on every access the machine makes (load/store here, called by the global_checks plugin of every
// launch, global_checks.h):
//   - bounds: an access outside every live allocation stops the launch (sim_error naming the address, the size and
//     the nearest allocation, and saying so when it hits memory freed earlier);
//   - written bytes: one flag per byte, set by host copies, memsets and kernel stores. A kernel load of bytes no one
//     wrote is counted (not an error: a kernel may legitimately load and discard), with the first few addresses kept,
//     and reported by the runtime after the launch (a warning line on stderr) and per allocation to the dialect
//     (device_buffer::unwritten_reads on the simulator).
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "simt/amdgpu_sim/machine.h"

namespace tp::amdgpu_sim {

// Loads of never-written bytes: `loads` accesses touched at least one such byte; `first` keeps the first
// addresses (at most unwritten_sites_kept).
struct unwritten_loads {
  uint64_t loads = 0;
  std::vector<uint64_t> first;
};
inline constexpr std::size_t unwritten_sites_kept = 4;

class device_memory final {
 public:
  device_memory() = default;
  device_memory(const device_memory&) = delete;
  device_memory& operator=(const device_memory&) = delete;
  ~device_memory();

  // A new allocation of `bytes` (at least 1), aligned to `align` (a power of two, at least 256 as HIP's), all bytes
  // never written. Returns its device address; 0 when the host is out of memory.
  uint64_t allocate(std::size_t bytes, std::size_t align = 256);
  // false when addr is not the start of a live allocation (nothing changes then).
  bool free(uint64_t addr);

  // Whether [addr, addr+bytes) lies inside one live allocation.
  bool contains(uint64_t addr, std::size_t bytes) const;
  // Host copies: throw sim_error when the range is not inside one live allocation. host_write and fill mark the
  // bytes written; host_read does not count unwritten bytes (a host download of a never-written result is the
  // probe's business, as on the hardware).
  void host_write(uint64_t addr, const void* src, std::size_t bytes);
  void host_read(uint64_t addr, void* dst, std::size_t bytes) const;
  void fill(uint64_t addr, uint8_t value, std::size_t bytes);
  void fill32(uint64_t addr, uint32_t value, std::size_t count);  // hipMemsetD32: count 32-bit words
  // Device-to-device copy within or between live allocations; the destination's written flags are the source's.
  void copy(uint64_t dst, uint64_t src, std::size_t bytes);

  // A kernel's access: the host pointer for [addr, addr+bytes), or throw sim_error naming the access (outside every
  // allocation / in memory freed earlier). A load counts never-written bytes; a store marks its bytes written.
  uint8_t* load(uint64_t addr, uint32_t bytes);
  uint8_t* store(uint64_t addr, uint32_t bytes);
  // A whole wave's accesses at once: the host pointer of `lo` when [lo, end) lies inside one live allocation and
  // load/store of any part of it would change nothing but return the pointer (no bookkeeping due: every byte of the
  // allocation already written); nullptr otherwise (the caller then goes access by access through load/store).
  uint8_t* plain_range(uint64_t lo, uint64_t end);

  // The unwritten loads counted since the last take, over all allocations, then reset.
  unwritten_loads take_unwritten_loads();
  // The unwritten loads counted in the allocation containing addr (live), since its last host write; not reset.
  unwritten_loads unwritten_loads_of(uint64_t addr) const;

  // Which bytes of [addr, addr+bytes) a kernel stored (flags[i] 1 or 0), for an allocation the host never wrote
  // (no copy to it, no memset; device-to-device copies count as host writes): there, written means kernel-written.
  // false otherwise.
  bool kernel_written(uint64_t addr, std::size_t bytes, uint8_t* flags) const;

  std::size_t live_allocations() const { return allocations_.size(); }
  // The live allocation holding byte `addr`: its base and size (the launch recorder's question: which allocation a
  // kernel argument points into).
  std::optional<std::pair<uint64_t, std::size_t>> allocation_containing(uint64_t addr) const;

  // The host's word that the 8-byte words at `addr + offsets[i]` hold device addresses (a struct of pointers it
  // uploaded, as a kernel's descriptors): the launch recorder follows them to the allocations they point into and
  // records them as relocations (launch_recorder.h). Kept with the allocation until it is freed; a word may be
  // declared again. false (nothing kept) when a word is not 8-byte aligned or not inside the one live allocation that
  // contains addr.
  bool declare_address_words(uint64_t addr, std::span<const uint64_t> offsets);
  // The declared address words of the allocation that starts at `base`, as offsets from base, ascending; empty for
  // none or no such allocation.
  std::span<const uint64_t> address_words(uint64_t base) const;

 private:
  struct allocation {
    uint64_t base = 0;
    std::size_t size = 0;
    void* raw = nullptr;               // what was allocated (base is raw aligned up)
    std::vector<uint8_t> written;      // one flag per byte
    std::size_t unwritten_bytes = 0;   // flags still 0: when 0, loads skip the per-byte check
    unwritten_loads unwritten;         // since the last host write of the allocation
    bool host_written = false;         // a host copy or memset wrote some of it
    std::vector<uint64_t> address_words;  // declare_address_words, from base, ascending, unique
  };
  allocation& find(uint64_t addr, std::size_t bytes, const char* what);
  const allocation& find(uint64_t addr, std::size_t bytes, const char* what) const;
  allocation* lookup(uint64_t addr, std::size_t bytes) const;
  [[noreturn]] void fault(uint64_t addr, std::size_t bytes, const char* what) const;
  static void mark_written(allocation& a, std::size_t offset, std::size_t bytes);

  std::map<uint64_t, std::unique_ptr<allocation>> allocations_;  // by base address
  mutable allocation* last_ = nullptr;  // the allocation of the previous access: most accesses hit it again
  struct freed_range {
    uint64_t base;
    std::size_t size;
  };
  std::vector<freed_range> freed_;  // the most recent frees, for "use after free" in a fault's message
  unwritten_loads launch_unwritten_;
};

// ROCr's loader step for one code object: an allocation for its image (code_object::image_bytes, aligned), the image
// written there with its relocations resolved for that address (every byte counts as written: .bss is zero, as the
// loader leaves it), and the code object's PC-relative addresses rebased onto it. Returns the allocation (free it
// when the code object goes), 0 when the object has no loadable segment. Throws sim_error when memory runs out or a
// relocation is not resolved.
uint64_t place_image(device_memory& memory, code_object& co);

}  // namespace tp::amdgpu_sim
