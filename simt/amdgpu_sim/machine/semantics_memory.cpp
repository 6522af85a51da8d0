// Memory: scalar loads (SMEM), global/flat/scratch (VMEM "FLAT" family) and LDS (DS) (RDNA4 ISA guide chapter 6
// "Scalar memory operations", chapter 10 "Flat, scratch and global memory operations", chapter 11 "Data share
// operations"). Every access completes before the next instruction (the wait counters are no-ops, see
// semantics_salu.cpp), lanes are processed in ascending order (the set bits of EXEC, lowest first), and every global access goes through global_memory so
// the runtime checks it against its allocations. LDS and private accesses outside their segments stop the dispatch
// (hardware would drop or zero them silently: a check the hardware cannot give).
#include <bit>
#include <cstring>
#include <deque>
#include <string>
#include <vector>

#include "simt/amdgpu_sim/machine/semantics.h"
#include "simt/amdgpu_sim/machine/wave.h"

namespace tp::amdgpu_sim::machine {
namespace {

std::string hex(uint64_t v) {
  char b[24];
  std::snprintf(b, sizeof b, "0x%llx", static_cast<unsigned long long>(v));
  return b;
}

// ---- SMEM --------------------------------------------------------------------------------------------------------
// s_load_bN sdst, sbase, offset: address = sbase (64-bit) + offset (immediate or SGPR) [+ offset:]; dwords in order.
void s_load(wave& w, const op& o) {
  uint64_t addr = read64(w, o.src[0], 0);
  if (o.nsrc > 1) addr += o.src[1].kind == opnd::sgpr ? uint64_t(w.s[o.src[1].reg]) : uint64_t(int64_t(int32_t(o.src[1].k)));
  addr += int64_t(o.offset);
  const uint32_t dwords = o.variant;
  const uint8_t* p = w.wg->mem->load(addr, dwords * 4);
  std::memcpy(&w.s[o.dst[0].reg], p, dwords * 4);
}

// ---- VMEM: address generation ------------------------------------------------------------------------------------
enum class space : uint8_t { global, flat, scratch };

// The width and extension of a load or store (op::variant): bytes, sign-extend, d16 (low half, high kept), d16_hi.
enum : uint32_t { w_sext = 1u << 8, w_d16 = 1u << 9, w_d16_hi = 1u << 10 };
constexpr uint32_t width(unsigned bytes, uint32_t flags = 0) { return bytes | flags; }

struct lane_target {
  enum kind : uint8_t { global, lds, priv } where;
  uint64_t addr;
};

lane_target route_flat(uint64_t a) {
  const uint32_t hi = uint32_t(a >> 32);
  if (hi == shared_aperture_hi) return {lane_target::lds, uint32_t(a)};
  if (hi == private_aperture_hi) return {lane_target::priv, uint32_t(a)};
  return {lane_target::global, a};
}

// Operand positions: loads print vdst, vaddr, saddr; stores vaddr, vdata, saddr (flat: no saddr).
template <space S>
lane_target address(const wave& w, const op& o, const operand& vaddr, const operand* saddr, unsigned l) {
  if constexpr (S == space::scratch) {
    uint64_t a = uint64_t(int64_t(o.offset));
    if (vaddr.kind == opnd::vgpr) a += w.v[vaddr.reg][l];
    if (saddr && saddr->kind == opnd::sgpr) a += w.s[saddr->reg];
    return {lane_target::priv, uint32_t(a)};
  } else if constexpr (S == space::global) {
    if (saddr && saddr->kind == opnd::sgpr)  // SGPR base + 32-bit VGPR offset
      return {lane_target::global, read64(w, *saddr, 0) + w.v[vaddr.reg][l] + int64_t(o.offset)};
    return {lane_target::global, read64(w, vaddr, l) + int64_t(o.offset)};
  } else {
    return route_flat(read64(w, vaddr, l) + int64_t(o.offset));
  }
}

// The checks run per lane and inline; building the message is out of line (a stop, never the common path).
[[noreturn, gnu::cold, gnu::noinline]] void lds_fault(const wave& w, const op& o, uint64_t addr, uint32_t bytes) {
  fail(w, o, "LDS access of " + std::to_string(bytes) + " bytes at " + hex(addr) + " outside the workgroup's " +
                 std::to_string(w.wg->lds.size()) + " bytes");
}
[[noreturn, gnu::cold, gnu::noinline]] void private_fault(const wave& w, const op& o, unsigned lane, uint64_t addr,
                                                          uint32_t bytes) {
  fail(w, o, "private (scratch) access of " + std::to_string(bytes) + " bytes at " + hex(addr) + " outside lane " +
                 std::to_string(lane) + "'s " + std::to_string(w.private_bytes) + " bytes");
}
inline uint8_t* lds_at(const wave& w, const op& o, uint64_t addr, uint32_t bytes) {
  if (addr + bytes > w.wg->lds.size()) [[unlikely]]
    lds_fault(w, o, addr, bytes);
  return const_cast<uint8_t*>(w.wg->lds.data()) + addr;
}
inline uint8_t* private_at(wave& w, const op& o, unsigned lane, uint64_t addr, uint32_t bytes) {
  if (addr + bytes > w.private_bytes) [[unlikely]]
    private_fault(w, o, lane, addr, bytes);
  return w.scratch.data() + std::size_t(lane) * w.private_bytes + addr;
}

uint8_t* target_ptr(wave& w, const op& o, const lane_target& t, unsigned lane, uint32_t bytes, bool write) {
  switch (t.where) {
    case lane_target::global: return write ? w.wg->mem->store(t.addr, bytes) : w.wg->mem->load(t.addr, bytes);
    case lane_target::lds:
      if (w.wg->observer) w.wg->observer->lds_access(w, o, uint32_t(t.addr), bytes, write);
      return lds_at(w, o, t.addr, bytes);
    case lane_target::priv: return private_at(w, o, lane, t.addr, bytes);
  }
  return nullptr;
}

// Moves one lane's loaded bytes into its VGPRs (sub-dword loads zero- or sign-extend, d16 forms merge a half).
inline void deliver(wave& w, uint16_t reg, unsigned l, const uint8_t* p, uint32_t wd) {
  const unsigned bytes = wd & 0xffu;
  if (bytes >= 4) {
    for (unsigned d = 0; d < bytes / 4; ++d) std::memcpy(&w.v[reg + d][l], p + 4 * d, 4);
    return;
  }
  // Fixed-size reads: a memcpy of a run-time length into the word compiles to byte stores, and the word's reload then
  // misses store forwarding (perf: two thirds of scratch_load_u8's time on that one stall).
  uint32_t v;
  if (bytes == 1) {
    v = p[0];
  } else if (bytes == 2) {
    uint16_t x;
    std::memcpy(&x, p, 2);
    v = x;
  } else {
    v = 0;
    std::memcpy(&v, p, bytes);
  }
  if (wd & w_sext) v = bytes == 1 ? uint32_t(int32_t(int8_t(v))) : uint32_t(int32_t(int16_t(v)));
  uint32_t& d = w.v[reg][l];
  if (wd & w_d16) {
    if (wd & w_sext) v &= 0xffffu;
    d = (d & 0xffff0000u) | (v & 0xffffu);
  } else if (wd & w_d16_hi) {
    if (wd & w_sext) v &= 0xffffu;
    d = (d & 0x0000ffffu) | (v << 16);
  } else {
    d = v;
  }
}
inline void fetch(const wave& w, uint16_t reg, unsigned l, uint8_t* p, uint32_t wd) {
  const unsigned bytes = wd & 0xffu;
  if (bytes >= 4) {
    for (unsigned d = 0; d < bytes / 4; ++d) std::memcpy(p + 4 * d, &w.v[reg + d][l], 4);
    return;
  }
  uint32_t v = w.v[reg][l];
  if (wd & w_d16_hi) v >>= 16;
  if (bytes == 1) {
    p[0] = uint8_t(v);
  } else if (bytes == 2) {
    const uint16_t x = uint16_t(v);
    std::memcpy(p, &x, 2);
  } else {
    std::memcpy(p, &v, bytes);
  }
}

// Scratch: every lane's address is offset + saddr (uniform) + its vaddr (when present), into its own private
// memory; the uniform part is formed once per instruction.
inline uint64_t scratch_base(const wave& w, const op& o, const operand* saddr) {
  uint64_t a = uint64_t(int64_t(o.offset));
  if (saddr && saddr->kind == opnd::sgpr) a += w.s[saddr->reg];
  return a;
}

// The scratch lane loop with the width a template argument for the plain widths (as ds_plain): fixed-size moves,
// the same per-lane bounds check (private_at) and lane order.
template <uint32_t WD, bool Store>
void scratch_lanes(wave& w, const op& o, uint64_t base, const uint32_t* va, uint16_t reg) {
  for (uint32_t m = w.exec(); m; m &= m - 1) {
    const unsigned l = unsigned(std::countr_zero(m));
    uint8_t* p = private_at(w, o, l, uint32_t(base + (va ? va[l] : 0u)), WD & 0xffu);
    if constexpr (Store) fetch(w, reg, l, p, WD);
    else deliver(w, reg, l, p, WD);
  }
}
template <bool Store>
void scratch_access(wave& w, const op& o, const operand* saddr, uint16_t reg) {
  const uint64_t base = scratch_base(w, o, saddr);
  const uint32_t* va = o.src[0].kind == opnd::vgpr ? w.v[o.src[0].reg] : nullptr;
  switch (o.variant) {
    case width(1): return scratch_lanes<width(1), Store>(w, o, base, va, reg);
    case width(2): return scratch_lanes<width(2), Store>(w, o, base, va, reg);
    case width(4): return scratch_lanes<width(4), Store>(w, o, base, va, reg);
    case width(8): return scratch_lanes<width(8), Store>(w, o, base, va, reg);
    case width(16): return scratch_lanes<width(16), Store>(w, o, base, va, reg);
  }
  const uint32_t wd = o.variant, bytes = wd & 0xffu;
  for (uint32_t m = w.exec(); m; m &= m - 1) {
    const unsigned l = unsigned(std::countr_zero(m));
    uint8_t* p = private_at(w, o, l, uint32_t(base + (va ? va[l] : 0u)), bytes);
    if constexpr (Store) fetch(w, reg, l, p, wd);
    else deliver(w, reg, l, p, wd);
  }
}

// Global accesses of a whole wave (~8% of a ck fuzz loop's simulator time went to the per-lane virtual calls and
// allocation lookups): the active lanes' addresses first, then one check of their span through
// global_memory::plain_range. Where it answers (one live allocation, nothing to count or mark) each lane moves
// through its pointer in ascending lane order, exactly what the lane loop would do; elsewhere the caller runs the lane
// loop, whose per-access checks and unwritten-byte counting are unchanged.
template <uint32_t WD, bool Store>
void global_lanes(wave& w, uint32_t e, const uint64_t* a, uint64_t lo, uint8_t* base, uint16_t reg, uint32_t wd) {
  for (uint32_t m = e; m; m &= m - 1) {
    const unsigned l = unsigned(std::countr_zero(m));
    uint8_t* p = base + (a[l] - lo);
    if constexpr (Store) fetch(w, reg, l, p, WD ? WD : wd);
    else deliver(w, reg, l, p, WD ? WD : wd);
  }
}
template <bool Store>
bool global_wave(wave& w, const op& o, const operand* saddr, uint16_t reg) {
  const uint32_t e = w.exec(), wd = o.variant, bytes = wd & 0xffu;
  if (e == 0) return false;
  // Every lane's address as address<space::global> forms it, over whole rows (vectorizable; inactive lanes' addresses
  // are formed and ignored), then the span of the active lanes'.
  uint64_t a[wave_lanes];
  const uint32_t* lo32 = w.v[o.src[0].reg];
  if (saddr && saddr->kind == opnd::sgpr) {  // SGPR base + 32-bit VGPR offset
    const uint64_t b = read64(w, *saddr, 0) + int64_t(o.offset);
    for (unsigned l = 0; l < wave_lanes; ++l) a[l] = b + lo32[l];
  } else if (o.src[0].kind == opnd::vgpr) {  // 64-bit VGPR address
    const uint32_t* hi32 = w.v[o.src[0].reg + 1];
    for (unsigned l = 0; l < wave_lanes; ++l) a[l] = (uint64_t(hi32[l]) << 32 | lo32[l]) + int64_t(o.offset);
  } else {
    for (uint32_t m = e; m; m &= m - 1) {
      const unsigned l = unsigned(std::countr_zero(m));
      a[l] = address<space::global>(w, o, o.src[0], saddr, l).addr;
    }
  }
  uint64_t lo = UINT64_MAX, hi = 0;
  for (uint32_t m = e; m; m &= m - 1) {
    const unsigned l = unsigned(std::countr_zero(m));
    lo = a[l] < lo ? a[l] : lo;
    hi = a[l] > hi ? a[l] : hi;
  }
  if (hi > UINT64_MAX - bytes) return false;  // the lane loop reports the wrapped access
  uint8_t* base = w.wg->mem->plain_range(lo, hi + bytes);
  if (!base) return false;
  switch (wd) {
    case width(4): global_lanes<width(4), Store>(w, e, a, lo, base, reg, wd); break;
    case width(8): global_lanes<width(8), Store>(w, e, a, lo, base, reg, wd); break;
    case width(16): global_lanes<width(16), Store>(w, e, a, lo, base, reg, wd); break;
    default: global_lanes<0, Store>(w, e, a, lo, base, reg, wd); break;
  }
  return true;
}

template <space S>
void vmem_load(wave& w, const op& o) {
  const uint32_t e = w.exec(), wd = o.variant, bytes = wd & 0xffu;
  const operand* saddr = (S == space::flat || o.nsrc < 2) ? nullptr : &o.src[1];
  if constexpr (S == space::scratch) return scratch_access<false>(w, o, saddr, o.dst[0].reg);
  if constexpr (S == space::global)
    if (global_wave<false>(w, o, saddr, o.dst[0].reg)) return;
  for (uint32_t m = e; m; m &= m - 1) {
    const unsigned l = unsigned(std::countr_zero(m));
    const lane_target t = address<S>(w, o, o.src[0], saddr, l);
    deliver(w, o.dst[0].reg, l, target_ptr(w, o, t, l, bytes, false), wd);
  }
}
template <space S>
void vmem_store(wave& w, const op& o) {
  const uint32_t e = w.exec(), wd = o.variant, bytes = wd & 0xffu;
  const operand* saddr = (S == space::flat || o.nsrc < 3) ? nullptr : &o.src[2];
  if constexpr (S == space::scratch) return scratch_access<true>(w, o, saddr, o.src[1].reg);
  if constexpr (S == space::global)
    if (global_wave<true>(w, o, saddr, o.src[1].reg)) return;
  for (uint32_t m = e; m; m &= m - 1) {
    const unsigned l = unsigned(std::countr_zero(m));
    const lane_target t = address<S>(w, o, o.src[0], saddr, l);
    fetch(w, o.src[1].reg, l, target_ptr(w, o, t, l, bytes, true), wd);
  }
}

// ---- DS ----------------------------------------------------------------------------------------------------------
inline uint8_t* lds_lane(wave& w, const op& o, uint32_t addr, uint32_t bytes, bool write) {
  if (w.wg->observer) w.wg->observer->lds_access(w, o, addr, bytes, write);
  return lds_at(w, o, addr, bytes);
}
// Without an observer the per-lane work of the plain DS forms is the bounds check and the move; with the width a
// template argument (1, 2, 4, 8, 16 bytes, no sign-extension or d16 flags) deliver()/fetch() reduce to fixed-size
// copies. The same accesses, checks and lane order as the general loop below (DS loads and stores were ~9% of a ck
// fuzz loop's simulator time).
template <uint32_t WD, bool Store>
void ds_plain(wave& w, const op& o) {
  constexpr uint32_t bytes = WD & 0xffu;
  const uint32_t e = w.exec();
  if (e == 0) return;
  const uint32_t* va = w.v[o.src[0].reg];
  const uint16_t reg = Store ? o.src[1].reg : o.dst[0].reg;
  // The addresses of all lanes, then one bounds check for the wave, as a loop the host vectorizes: an active lane
  // whose access does not end inside the LDS sets `bad` (the LDS is at most 64 KiB, so the signed compares are
  // exact; a larger one takes the checked loop). When it is set, the checked lane loop below stops at the first lane
  // out of bounds, as before.
  const uint32_t off = uint32_t(o.offset);
  const std::size_t size = w.wg->lds.size();
  const int32_t lim = size <= uint32_t(INT32_MAX) ? int32_t(size) - int32_t(bytes) : -1;
  uint32_t addr[wave_lanes], bad = 0;
  for (unsigned l = 0; l < wave_lanes; ++l) {
    addr[l] = va[l] + off;
    const int32_t x = int32_t(addr[l]);
    bad |= (e & lane_bits[l]) & (0u - uint32_t((x < 0) | (x > lim)));
  }
  uint8_t* const lds = w.wg->lds.data();
  if (bad == 0) [[likely]] {
    for (uint32_t m = e; m; m &= m - 1) {
      const unsigned l = unsigned(std::countr_zero(m));
      if constexpr (Store) fetch(w, reg, l, lds + addr[l], WD);
      else deliver(w, reg, l, lds + addr[l], WD);
    }
    return;
  }
  for (uint32_t m = e; m; m &= m - 1) {
    const unsigned l = unsigned(std::countr_zero(m));
    uint8_t* p = lds_at(w, o, addr[l], bytes);
    if constexpr (Store) fetch(w, reg, l, p, WD);
    else deliver(w, reg, l, p, WD);
  }
}
template <bool Store>
bool ds_plain_dispatch(wave& w, const op& o) {
  if (w.wg->observer) return false;
  switch (o.variant) {
    case width(1): ds_plain<width(1), Store>(w, o); return true;
    case width(2): ds_plain<width(2), Store>(w, o); return true;
    case width(4): ds_plain<width(4), Store>(w, o); return true;
    case width(8): ds_plain<width(8), Store>(w, o); return true;
    case width(16): ds_plain<width(16), Store>(w, o); return true;
    default: return false;
  }
}
// ds_load_* vdst, vaddr [offset:N]: address = vaddr + offset.
void ds_load(wave& w, const op& o) {
  if (ds_plain_dispatch<false>(w, o)) return;
  const uint32_t e = w.exec(), wd = o.variant, bytes = wd & 0xffu;
  for (uint32_t m = e; m; m &= m - 1) {
    const unsigned l = unsigned(std::countr_zero(m));
    deliver(w, o.dst[0].reg, l, lds_lane(w, o, w.v[o.src[0].reg][l] + uint32_t(o.offset), bytes, false), wd);
  }
}
// ds_store_* vaddr, vdata [offset:N].
void ds_store(wave& w, const op& o) {
  if (ds_plain_dispatch<true>(w, o)) return;
  const uint32_t e = w.exec(), wd = o.variant, bytes = wd & 0xffu;
  for (uint32_t m = e; m; m &= m - 1) {
    const unsigned l = unsigned(std::countr_zero(m));
    fetch(w, o.src[1].reg, l, lds_lane(w, o, w.v[o.src[0].reg][l] + uint32_t(o.offset), bytes, true), wd);
  }
}
// ds_load_2addr_bN vdst, vaddr offset0:a offset1:b: two elements at vaddr + a*size and vaddr + b*size (stride64
// forms: * 64 * size).
void ds_load_2addr(wave& w, const op& o) {
  const uint32_t e = w.exec(), size = o.variant & 0xffu, scale = (o.variant >> 16) ? 64u * size : size;
  for (uint32_t m = e; m; m &= m - 1) {
    const unsigned l = unsigned(std::countr_zero(m));
    const uint32_t base = w.v[o.src[0].reg][l];
    deliver(w, o.dst[0].reg, l, lds_lane(w, o, base + uint32_t(o.offset) * scale, size, false), size);
    deliver(w, uint16_t(o.dst[0].reg + size / 4), l, lds_lane(w, o, base + o.offset1 * scale, size, false), size);
  }
}
void ds_store_2addr(wave& w, const op& o) {
  const uint32_t e = w.exec(), size = o.variant & 0xffu, scale = (o.variant >> 16) ? 64u * size : size;
  for (uint32_t m = e; m; m &= m - 1) {
    const unsigned l = unsigned(std::countr_zero(m));
    const uint32_t base = w.v[o.src[0].reg][l];
    fetch(w, o.src[1].reg, l, lds_lane(w, o, base + uint32_t(o.offset) * scale, size, true), size);
    fetch(w, o.src[2].reg, l, lds_lane(w, o, base + o.offset1 * scale, size, true), size);
  }
}
// ds_bpermute_b32 vdst, vaddr, vdata [offset]: lane l reads vdata of lane ((vaddr + offset) / 4) mod 32; a source
// lane that is inactive gives 0 (RDNA4 ISA guide §11.? "DS_BPERMUTE_B32"). No LDS memory is touched.
void ds_bpermute_b32(wave& w, const op& o) {
  const uint32_t e = w.exec();
  uint32_t tmp[wave_lanes];
  const uint32_t* a = w.v[o.src[0].reg];
  const uint32_t* d = w.v[o.src[1].reg];
  for (unsigned l = 0; l < wave_lanes; ++l) {
    const unsigned src = ((a[l] + uint32_t(o.offset)) >> 2) & 31u;
    tmp[l] = ((e >> src) & 1u) ? d[src] : 0u;
  }
  uint32_t* out = w.v[o.dst[0].reg];
  for (unsigned l = 0; l < wave_lanes; ++l)
    if ((e >> l) & 1u) out[l] = tmp[l];
}
// ds_permute_b32: lane l sends vdata to lane ((vaddr + offset) / 4) mod 32 (forward permute; collisions: the highest
// sending lane wins, in ascending-lane order).
void ds_permute_b32(wave& w, const op& o) {
  const uint32_t e = w.exec();
  uint32_t tmp[wave_lanes] = {};
  const uint32_t* a = w.v[o.src[0].reg];
  const uint32_t* d = w.v[o.src[1].reg];
  for (unsigned l = 0; l < wave_lanes; ++l)
    if ((e >> l) & 1u) tmp[((a[l] + uint32_t(o.offset)) >> 2) & 31u] = d[l];
  uint32_t* out = w.v[o.dst[0].reg];
  for (unsigned l = 0; l < wave_lanes; ++l)
    if ((e >> l) & 1u) out[l] = tmp[l];
}
// LDS read-modify-write (ds_add_u32 vaddr, vdata; ds_add_rtn_u32 vdst, vaddr, vdata): per lane, in lane order.
template <bool rtn, typename F>
void ds_rmw(wave& w, const op& o, F f) {
  const uint32_t e = w.exec();
  const unsigned a_idx = 0, d_idx = 1;
  for (uint32_t m = e; m; m &= m - 1) {
    const unsigned l = unsigned(std::countr_zero(m));
    uint8_t* p = lds_lane(w, o, w.v[o.src[a_idx].reg][l] + uint32_t(o.offset), 4, true);
    uint32_t old;
    std::memcpy(&old, p, 4);
    const uint32_t nv = f(old, w.v[o.src[d_idx].reg][l]);
    std::memcpy(p, &nv, 4);
    if (rtn) w.v[o.dst[0].reg][l] = old;
  }
}
#define DS_RMW(name, ...)                                                                              \
  [[maybe_unused]] void name(wave& w, const op& o) { ds_rmw<false>(w, o, [](uint32_t m, uint32_t v) -> uint32_t { __VA_ARGS__; }); }     \
  void name##_rtn(wave& w, const op& o) { ds_rmw<true>(w, o, [](uint32_t m, uint32_t v) -> uint32_t { __VA_ARGS__; }); }
DS_RMW(ds_add_u32, return m + v)
DS_RMW(ds_sub_u32, return m - v)
DS_RMW(ds_min_u32, return m < v ? m : v)
DS_RMW(ds_max_u32, return m > v ? m : v)
DS_RMW(ds_min_i32, return int32_t(m) < int32_t(v) ? m : v)
DS_RMW(ds_max_i32, return int32_t(m) > int32_t(v) ? m : v)
DS_RMW(ds_and_b32, return m & v)
DS_RMW(ds_or_b32, return m | v)
DS_RMW(ds_xor_b32, return m ^ v)
DS_RMW(ds_swap_b32, (void)m; return v)

// Global atomics are not modelled yet (gfx12 spells the returning form with th:TH_ATOMIC_RETURN): they decode as
// unimplemented and stop the dispatch if reached.

struct width_name {
  std::string_view suffix;
  uint32_t wd;
};

const std::vector<semantic>& table() {
  static const std::vector<semantic> t = [] {
    std::vector<semantic> v = {
        {"s_load_b32", s_load, 1, {ty::b64}, 1},   {"s_load_b64", s_load, 1, {ty::b64}, 2},
        {"s_load_b96", s_load, 1, {ty::b64}, 3},   {"s_load_b128", s_load, 1, {ty::b64}, 4},
        {"s_load_b256", s_load, 1, {ty::b64}, 8},  {"s_load_b512", s_load, 1, {ty::b64}, 16},
        {"ds_load_2addr_b32", ds_load_2addr, 1, {}, 4},
        {"ds_load_2addr_b64", ds_load_2addr, 1, {}, 8},
        {"ds_load_2addr_stride64_b32", ds_load_2addr, 1, {}, 4 | (1u << 16)},
        {"ds_load_2addr_stride64_b64", ds_load_2addr, 1, {}, 8 | (1u << 16)},
        {"ds_store_2addr_b32", ds_store_2addr, 0, {}, 4},
        {"ds_store_2addr_b64", ds_store_2addr, 0, {}, 8},
        {"ds_store_2addr_stride64_b32", ds_store_2addr, 0, {}, 4 | (1u << 16)},
        {"ds_store_2addr_stride64_b64", ds_store_2addr, 0, {}, 8 | (1u << 16)},
        {"ds_bpermute_b32", ds_bpermute_b32, 1}, {"ds_permute_b32", ds_permute_b32, 1},
        {"ds_add_u32", ds_add_u32, 0}, {"ds_add_rtn_u32", ds_add_u32_rtn, 1},
        {"ds_sub_u32", ds_sub_u32, 0}, {"ds_sub_rtn_u32", ds_sub_u32_rtn, 1},
        {"ds_min_u32", ds_min_u32, 0}, {"ds_min_rtn_u32", ds_min_u32_rtn, 1},
        {"ds_max_u32", ds_max_u32, 0}, {"ds_max_rtn_u32", ds_max_u32_rtn, 1},
        {"ds_min_i32", ds_min_i32, 0}, {"ds_min_rtn_i32", ds_min_i32_rtn, 1},
        {"ds_max_i32", ds_max_i32, 0}, {"ds_max_rtn_i32", ds_max_i32_rtn, 1},
        {"ds_and_b32", ds_and_b32, 0}, {"ds_and_rtn_b32", ds_and_b32_rtn, 1},
        {"ds_or_b32", ds_or_b32, 0}, {"ds_or_rtn_b32", ds_or_b32_rtn, 1},
        {"ds_xor_b32", ds_xor_b32, 0}, {"ds_xor_rtn_b32", ds_xor_b32_rtn, 1},
        {"ds_storexchg_rtn_b32", ds_swap_b32_rtn, 1},
    };
    static std::deque<std::string> names;
    const width_name loads[] = {{"b32", width(4)},   {"b64", width(8)},    {"b96", width(12)}, {"b128", width(16)},
                                {"u8", width(1)},    {"i8", width(1, w_sext)}, {"u16", width(2)}, {"i16", width(2, w_sext)},
                                {"d16_b16", width(2, w_d16)}, {"d16_hi_b16", width(2, w_d16_hi)},
                                {"d16_u8", width(1, w_d16)}, {"d16_hi_u8", width(1, w_d16_hi)},
                                {"d16_i8", width(1, w_d16 | w_sext)}, {"d16_hi_i8", width(1, w_d16_hi | w_sext)}};
    const width_name ds_loads[] = {{"b32", width(4)},  {"b64", width(8)},  {"b96", width(12)}, {"b128", width(16)},
                                   {"u8", width(1)},   {"i8", width(1, w_sext)}, {"u16", width(2)}, {"i16", width(2, w_sext)},
                                   {"u16_d16", width(2, w_d16)}, {"u16_d16_hi", width(2, w_d16_hi)},
                                   {"u8_d16", width(1, w_d16)}, {"u8_d16_hi", width(1, w_d16_hi)},
                                   {"i8_d16", width(1, w_d16 | w_sext)}, {"i8_d16_hi", width(1, w_d16_hi | w_sext)}};
    const width_name stores[] = {{"b32", width(4)}, {"b64", width(8)}, {"b96", width(12)}, {"b128", width(16)},
                                 {"b8", width(1)},  {"b16", width(2)}, {"d16_hi_b8", width(1, w_d16_hi)},
                                 {"d16_hi_b16", width(2, w_d16_hi)}};
    const width_name ds_stores[] = {{"b32", width(4)}, {"b64", width(8)}, {"b96", width(12)}, {"b128", width(16)},
                                    {"b8", width(1)},  {"b16", width(2)}, {"b8_d16_hi", width(1, w_d16_hi)},
                                    {"b16_d16_hi", width(2, w_d16_hi)}};
    const auto add = [&](std::string name, handler h, uint8_t ndst, uint32_t wd) {
      names.push_back(std::move(name));
      v.push_back({names.back(), h, ndst, {}, wd});
    };
    for (const width_name& x : loads) {
      add("global_load_" + std::string(x.suffix), vmem_load<space::global>, 1, x.wd);
      add("flat_load_" + std::string(x.suffix), vmem_load<space::flat>, 1, x.wd);
      add("scratch_load_" + std::string(x.suffix), vmem_load<space::scratch>, 1, x.wd);
    }
    for (const width_name& x : stores) {
      add("global_store_" + std::string(x.suffix), vmem_store<space::global>, 0, x.wd);
      add("flat_store_" + std::string(x.suffix), vmem_store<space::flat>, 0, x.wd);
      add("scratch_store_" + std::string(x.suffix), vmem_store<space::scratch>, 0, x.wd);
    }
    for (const width_name& x : ds_loads) add("ds_load_" + std::string(x.suffix), ds_load, 1, x.wd);
    for (const width_name& x : ds_stores) add("ds_store_" + std::string(x.suffix), ds_store, 0, x.wd);
    return v;
  }();
  return t;
}

}  // namespace

std::span<const semantic> memory_semantics() { return table(); }

}  // namespace tp::amdgpu_sim::machine
