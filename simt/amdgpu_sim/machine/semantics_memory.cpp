// Memory: scalar loads (SMEM), global/flat/scratch (the FLAT family) and LDS (DS) (RDNA3 chapters 8 "Scalar Memory
// Operations", 11 "Global, Scratch and Flat Address Space" and 12 "Data Share Operations"; chapter 16's opcode tables,
// cited per row). Every access completes before the next instruction (the wait counters are no-ops, see
// semantics_salu.cpp), lanes are processed in ascending order (the set bits of EXEC, lowest first), and the
// dispatch's plugins see every access before it happens (machine/plugin.h: the runtime's bounds and written-bit checks
// of global memory, the LDS race detector). Global addresses are host addresses (machine.h). LDS and private accesses
// outside their segments stop the dispatch (hardware would drop or zero them silently: a check the hardware cannot
// give).
#include <bit>
#include <cstring>
#include <string>

#include "simt/amdgpu_sim/format.h"
#include "simt/amdgpu_sim/machine/host_isa.h"
#include "simt/amdgpu_sim/machine/instruction.h"
#include "simt/amdgpu_sim/machine/wave.h"

namespace tp::amdgpu_sim::machine::TP_SIM_HOST_LEVEL {
TP_SIM_HOST_CODE_BEGIN
namespace {

// What a load or store moves per lane, by name: the element's bytes, whether a sub-dword load sign-extends, and which
// half of the VGPR a d16 load writes or a d16_hi store reads (the other half is kept); the two-address DS forms'
// offsets count elements of 64 when stride64.
struct memory_form {
  uint8_t bytes = 4;
  bool sign_extend = false;
  enum half_t : uint8_t { whole, low_half, high_half } half = whole;
  bool stride64 = false;
  constexpr bool plain() const { return !sign_extend && half == whole; }
};
using enum memory_form::half_t;

// ---- moving one lane's bytes -------------------------------------------------------------------------------------
// Moves one lane's loaded bytes into its VGPRs (sub-dword loads zero- or sign-extend, d16 forms merge a half).
template <memory_form F>
inline void deliver(wave& w, uint16_t reg, unsigned l, const uint8_t* p) {
  if constexpr (F.bytes >= 4) {
    for (unsigned d = 0; d < F.bytes / 4u; ++d) std::memcpy(&w.v[reg + d][l], p + 4 * d, 4);
  } else {
    // Fixed-size reads: a memcpy of a run-time length into the word compiles to byte stores, and the word's reload
    // then misses store forwarding (perf: two thirds of scratch_load_u8's time on that one stall).
    uint32_t v;
    if constexpr (F.bytes == 1) {
      v = p[0];
    } else {
      uint16_t x;
      std::memcpy(&x, p, 2);
      v = x;
    }
    if constexpr (F.sign_extend) v = F.bytes == 1 ? uint32_t(int32_t(int8_t(v))) : uint32_t(int32_t(int16_t(v)));
    uint32_t& d = w.v[reg][l];
    if constexpr (F.half == low_half) d = (d & 0xffff0000u) | (v & 0xffffu);
    else if constexpr (F.half == high_half) d = (d & 0x0000ffffu) | (v << 16);
    else d = v;
  }
}
template <memory_form F>
inline void fetch(const wave& w, uint16_t reg, unsigned l, uint8_t* p) {
  if constexpr (F.bytes >= 4) {
    for (unsigned d = 0; d < F.bytes / 4u; ++d) std::memcpy(p + 4 * d, &w.v[reg + d][l], 4);
  } else {
    uint32_t v = w.v[reg][l];
    if constexpr (F.half == high_half) v >>= 16;
    if constexpr (F.bytes == 1) {
      p[0] = uint8_t(v);
    } else {
      const uint16_t x = uint16_t(v);
      std::memcpy(p, &x, 2);
    }
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
inline uint8_t* host(uint64_t global_address) { return reinterpret_cast<uint8_t*>(global_address); }

// The plugins' view of one instruction's accesses to one memory (nothing to build when none is attached).
inline void observe(const wave& w, const op& o, memory_space space, bool write, uint32_t bytes, uint32_t lanes,
                    const uint64_t* address, const uint64_t* second = nullptr) {
  if (w.wg->plugins.empty() || lanes == 0) return;
  w.wg->observe(w, o, {space, write, bytes, lanes, address, second});
}

// ---- SMEM --------------------------------------------------------------------------------------------------------
// s_load_bN sdst, sbase, offset: address = sbase (64-bit) + offset (immediate or SGPR) [+ offset:]; dwords in order.
template <unsigned Dwords>
void s_load(wave& w, const op& o) {
  uint64_t addr = read64(w, o.src[0], 0);
  if (o.nsrc > 1) addr += o.src[1].kind == opnd::sgpr ? uint64_t(w.s[o.src[1].reg]) : uint64_t(int64_t(int32_t(o.src[1].k)));
  addr += int64_t(o.offset);
  observe(w, o, memory_space::global, false, Dwords * 4, 1u, &addr);
  std::memcpy(&w.s[o.dst[0].reg], host(addr), Dwords * 4);
}

// ---- global, flat, scratch ---------------------------------------------------------------------------------------
enum class space : uint8_t { global, flat, scratch };

// Operand positions: loads print vdst, vaddr, saddr; stores vaddr, vdata, saddr (flat: no saddr).
inline const operand* saddr_of(const op& o, space s, bool store) {
  const unsigned at = store ? 2 : 1;
  return s == space::flat || o.nsrc <= at ? nullptr : &o.src[at];
}

// Every lane's global address (RDNA3 §11.2 "Addressing": an SGPR base plus a 32-bit VGPR offset, or a 64-bit VGPR
// address; plus the instruction's offset), formed over whole rows (vectorizable; inactive lanes' addresses are formed
// and ignored).
inline void global_addresses(const wave& w, const op& o, const operand* saddr, uint64_t* a) {
  const uint32_t* lo32 = w.v[o.src[0].reg];
  if (saddr && saddr->kind == opnd::sgpr) {
    const uint64_t b = read64(w, *saddr, 0) + int64_t(o.offset);
    for (unsigned l = 0; l < wave_lanes; ++l) a[l] = b + lo32[l];
  } else {
    const uint32_t* hi32 = w.v[o.src[0].reg + 1];
    for (unsigned l = 0; l < wave_lanes; ++l) a[l] = (uint64_t(hi32[l]) << 32 | lo32[l]) + int64_t(o.offset);
  }
}
// Scratch: every lane's address is offset + saddr (uniform) + its vaddr (when present), into its own private memory.
inline void scratch_addresses(const wave& w, const op& o, const operand* saddr, uint64_t* a) {
  uint64_t base = uint64_t(int64_t(o.offset));
  if (saddr && saddr->kind == opnd::sgpr) base += w.s[saddr->reg];
  if (o.src[0].kind == opnd::vgpr) {
    const uint32_t* va = w.v[o.src[0].reg];
    for (unsigned l = 0; l < wave_lanes; ++l) a[l] = uint32_t(base + va[l]);
  } else {
    for (unsigned l = 0; l < wave_lanes; ++l) a[l] = uint32_t(base);
  }
}

// One FLAT-family load or store: the lanes' addresses, the plugins' look at them, then the moves in lane order.
// Flat addresses route by aperture (see wave.h): LDS, a lane's private memory, or global memory.
template <space S, memory_form F, bool Store>
void vmem(wave& w, const op& o) {
  const uint32_t e = w.exec();
  if (e == 0) return;
  const uint16_t reg = Store ? o.src[1].reg : o.dst[0].reg;
  uint64_t a[wave_lanes];
  uint32_t global_lanes = e, lds_lanes = 0, private_lanes = 0;
  if constexpr (S == space::global) {
    global_addresses(w, o, saddr_of(o, S, Store), a);
  } else if constexpr (S == space::scratch) {
    scratch_addresses(w, o, saddr_of(o, S, Store), a);
    global_lanes = 0;
    private_lanes = e;
  } else {
    global_addresses(w, o, nullptr, a);
    for (uint32_t m = e; m; m &= m - 1) {
      const unsigned l = unsigned(std::countr_zero(m));
      const uint32_t hi = uint32_t(a[l] >> 32);
      if (hi == shared_aperture_hi || hi == private_aperture_hi) {
        global_lanes &= ~lane_bits[l];
        (hi == shared_aperture_hi ? lds_lanes : private_lanes) |= lane_bits[l];
        a[l] = uint32_t(a[l]);
      }
    }
  }
  observe(w, o, memory_space::global, Store, F.bytes, global_lanes, a);
  observe(w, o, memory_space::lds, Store, F.bytes, lds_lanes, a);
  observe(w, o, memory_space::scratch, Store, F.bytes, private_lanes, a);
  for (uint32_t m = e; m; m &= m - 1) {
    const unsigned l = unsigned(std::countr_zero(m));
    uint8_t* p = (global_lanes & lane_bits[l]) ? host(a[l])
                 : (lds_lanes & lane_bits[l])  ? lds_at(w, o, a[l], F.bytes)
                                               : private_at(w, o, l, a[l], F.bytes);
    if constexpr (Store) fetch<F>(w, reg, l, p);
    else deliver<F>(w, reg, l, p);
  }
}

// ---- DS ----------------------------------------------------------------------------------------------------------
// ds_load_* vdst, vaddr [offset:N] / ds_store_* vaddr, vdata [offset:N]: address = vaddr + offset. The per-lane work
// is the bounds check and the move; with the form a template argument deliver()/fetch() reduce to fixed-size copies.
// The addresses of all lanes first, then one bounds check for the wave, as a loop the host vectorizes: an active lane
// whose access does not end inside the LDS sets `bad` (the LDS is at most 64 KiB, so the signed compares are exact; a
// larger one takes the checked loop). When it is set, the checked lane loop stops at the first lane out of bounds.
template <memory_form F, bool Store>
void ds_access(wave& w, const op& o) {
  const uint32_t e = w.exec();
  if (e == 0) return;
  const uint32_t* va = w.v[o.src[0].reg];
  const uint16_t reg = Store ? o.src[1].reg : o.dst[0].reg;
  const uint32_t off = uint32_t(o.offset);
  const std::size_t size = w.wg->lds.size();
  const int32_t lim = size <= uint32_t(INT32_MAX) ? int32_t(size) - int32_t(F.bytes) : -1;
  uint32_t addr[wave_lanes], bad = 0;
  for (unsigned l = 0; l < wave_lanes; ++l) {
    addr[l] = va[l] + off;
    const int32_t x = int32_t(addr[l]);
    bad |= (e & lane_bits[l]) & (0u - uint32_t((x < 0) | (x > lim)));
  }
  if (!w.wg->plugins.empty()) {
    uint64_t a[wave_lanes];
    for (unsigned l = 0; l < wave_lanes; ++l) a[l] = addr[l];
    observe(w, o, memory_space::lds, Store, F.bytes, e, a);
  }
  uint8_t* const lds = w.wg->lds.data();
  if (bad == 0) [[likely]] {
    for (uint32_t m = e; m; m &= m - 1) {
      const unsigned l = unsigned(std::countr_zero(m));
      if constexpr (Store) fetch<F>(w, reg, l, lds + addr[l]);
      else deliver<F>(w, reg, l, lds + addr[l]);
    }
    return;
  }
  for (uint32_t m = e; m; m &= m - 1) {
    const unsigned l = unsigned(std::countr_zero(m));
    uint8_t* p = lds_at(w, o, addr[l], F.bytes);
    if constexpr (Store) fetch<F>(w, reg, l, p);
    else deliver<F>(w, reg, l, p);
  }
}
// ds_load_2addr_bN vdst, vaddr offset0:a offset1:b: two elements at vaddr + a*size and vaddr + b*size (the stride64
// forms: * 64 * size); the store form writes vdata0 and vdata1 there.
template <memory_form F, bool Store>
void ds_2addr(wave& w, const op& o) {
  const uint32_t e = w.exec();
  constexpr uint32_t size = F.bytes, scale = F.stride64 ? 64u * size : size;
  uint64_t a0[wave_lanes], a1[wave_lanes];
  for (unsigned l = 0; l < wave_lanes; ++l) {
    const uint32_t base = w.v[o.src[0].reg][l];
    a0[l] = uint32_t(base + uint32_t(o.offset) * scale);
    a1[l] = uint32_t(base + o.offset1 * scale);
  }
  observe(w, o, memory_space::lds, Store, size, e, a0, a1);
  for (uint32_t m = e; m; m &= m - 1) {
    const unsigned l = unsigned(std::countr_zero(m));
    if constexpr (Store) {
      fetch<F>(w, o.src[1].reg, l, lds_at(w, o, a0[l], size));
      fetch<F>(w, o.src[2].reg, l, lds_at(w, o, a1[l], size));
    } else {
      deliver<F>(w, o.dst[0].reg, l, lds_at(w, o, a0[l], size));
      deliver<F>(w, uint16_t(o.dst[0].reg + size / 4), l, lds_at(w, o, a1[l], size));
    }
  }
}
// ds_bpermute_b32 vdst, vaddr, vdata [offset]: lane l reads vdata of lane ((vaddr + offset) / 4) mod 32; a source lane
// that is inactive gives 0 (RDNA3 §12.5.2 "LDS Lane-permute Ops"). No LDS memory is touched.
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
// LDS read-modify-write (RDNA3 §12.5.1 "LDS Atomic Ops"; ds_add_u32 vaddr, vdata; ds_add_rtn_u32 vdst, vaddr, vdata):
// per lane, in lane order; the _rtn forms return the old value.
template <bool Rtn, class F>
void run_ds_rmw(wave& w, const op& o) {
  const uint32_t e = w.exec();
  const unsigned a_idx = 0, d_idx = 1;
  uint64_t a[wave_lanes];
  for (unsigned l = 0; l < wave_lanes; ++l) a[l] = uint32_t(w.v[o.src[a_idx].reg][l] + uint32_t(o.offset));
  observe(w, o, memory_space::lds, true, 4, e, a);
  for (uint32_t m = e; m; m &= m - 1) {
    const unsigned l = unsigned(std::countr_zero(m));
    uint8_t* p = lds_at(w, o, a[l], 4);
    uint32_t old;
    std::memcpy(&old, p, 4);
    const uint32_t nv = F{}(old, w.v[o.src[d_idx].reg][l]);
    std::memcpy(p, &nv, 4);
    if (Rtn) w.v[o.dst[0].reg][l] = old;
  }
}
template <class F>
constexpr handler ds_rmw(F) { return &run_ds_rmw<false, F>; }
template <class F>
constexpr handler ds_rmw_rtn(F) { return &run_ds_rmw<true, F>; }

// Global atomics are not modelled yet (gfx12 spells the returning form with th:TH_ATOMIC_RETURN): they decode as
// unimplemented and stop the dispatch if reached.

// The forms of the loads and stores, named as the mnemonics' suffixes spell them.
constexpr memory_form b32{4}, b64{8}, b96{12}, b128{16}, u8{1}, u16{2};
constexpr memory_form i8{.bytes = 1, .sign_extend = true}, i16{.bytes = 2, .sign_extend = true};
constexpr memory_form lo_b16{.bytes = 2, .half = low_half}, hi_b16{.bytes = 2, .half = high_half};
constexpr memory_form lo_u8{.bytes = 1, .half = low_half}, hi_u8{.bytes = 1, .half = high_half};
constexpr memory_form lo_i8{.bytes = 1, .sign_extend = true, .half = low_half};
constexpr memory_form hi_i8{.bytes = 1, .sign_extend = true, .half = high_half};
constexpr memory_form hi_b8{.bytes = 1, .half = high_half};
constexpr memory_form b32_stride64{.bytes = 4, .stride64 = true}, b64_stride64{.bytes = 8, .stride64 = true};

using enum guide_section;
constexpr uint16_t mem = f_switch_point;
constexpr uint16_t cache_control = f_no_op | f_not_data;  // one coherent memory: nothing to write back or invalidate

// The load and store forms of the FLAT family: X(suffix, form), the suffix as gfx11 and gfx12 print it.
#define TP_VMEM_LOADS(X) X(b32, b32) X(b64, b64) X(b96, b96) X(b128, b128) X(u8, u8) X(i8, i8) X(u16, u16) \
  X(i16, i16) X(d16_b16, lo_b16) X(d16_hi_b16, hi_b16) X(d16_u8, lo_u8) X(d16_hi_u8, hi_u8) X(d16_i8, lo_i8)  \
  X(d16_hi_i8, hi_i8)
#define TP_VMEM_STORES(X) X(b32, b32) X(b64, b64) X(b96, b96) X(b128, b128) X(b8, u8) X(b16, u16) \
  X(d16_hi_b8, hi_b8) X(d16_hi_b16, hi_b16)
#define TP_VMEM_LOAD_ROWS(sfx, form)                                                          \
  decl("global_load_" #sfx, vmem<space::global, form, false>, global).with(mem),              \
  decl("flat_load_" #sfx, vmem<space::flat, form, false>, flat).with(mem),                    \
  decl("scratch_load_" #sfx, vmem<space::scratch, form, false>, scratch),
#define TP_VMEM_STORE_ROWS(sfx, form)                                                         \
  decl("global_store_" #sfx, vmem<space::global, form, true>, global).dsts(0).with(mem),      \
  decl("flat_store_" #sfx, vmem<space::flat, form, true>, flat).dsts(0).with(mem),            \
  decl("scratch_store_" #sfx, vmem<space::scratch, form, true>, scratch).dsts(0),
// The DS forms spell d16 after the width.
#define TP_DS_LOADS(X) X(b32, b32) X(b64, b64) X(b96, b96) X(b128, b128) X(u8, u8) X(i8, i8) X(u16, u16) X(i16, i16) \
  X(u16_d16, lo_b16) X(u16_d16_hi, hi_b16) X(u8_d16, lo_u8) X(u8_d16_hi, hi_u8) X(i8_d16, lo_i8) X(i8_d16_hi, hi_i8)
#define TP_DS_STORES(X) X(b32, b32) X(b64, b64) X(b96, b96) X(b128, b128) X(b8, u8) X(b16, u16) \
  X(b8_d16_hi, hi_b8) X(b16_d16_hi, hi_b16)
#define TP_DS_LOAD_ROWS(sfx, form) decl("ds_load_" #sfx, ds_access<form, false>, ds).with(mem),
#define TP_DS_STORE_ROWS(sfx, form) decl("ds_store_" #sfx, ds_access<form, true>, ds).dsts(0).with(mem),

constexpr instruction table[] = {
    // ---- SMEM: 1 to 16 dwords from sbase + offset ----
    decl("s_load_b32", s_load<1>, smem).srcs(ty::b64),
    decl("s_load_b64", s_load<2>, smem).srcs(ty::b64),
    decl("s_load_b96", s_load<3>, smem).srcs(ty::b64).only(on_gfx12),
    decl("s_load_b128", s_load<4>, smem).srcs(ty::b64),
    decl("s_load_b256", s_load<8>, smem).srcs(ty::b64),
    decl("s_load_b512", s_load<16>, smem).srcs(ty::b64),

    // ---- global, flat, scratch ----
    TP_VMEM_LOADS(TP_VMEM_LOAD_ROWS)
    TP_VMEM_STORES(TP_VMEM_STORE_ROWS)
    // Cache write-back and invalidation: gfx12's global_wb / global_inv, gfx11's buffer_gl0_inv / buffer_gl1_inv.
    decl("global_wb", exec_no_op, global).dsts(0).with(cache_control).only(on_gfx12),
    decl("global_inv", exec_no_op, global).dsts(0).with(cache_control).only(on_gfx12),
    decl("buffer_gl0_inv", exec_no_op, mubuf).dsts(0).with(cache_control).only(on_gfx11),
    decl("buffer_gl1_inv", exec_no_op, mubuf).dsts(0).with(cache_control).only(on_gfx11),

    // ---- DS ----
    TP_DS_LOADS(TP_DS_LOAD_ROWS)
    TP_DS_STORES(TP_DS_STORE_ROWS)
    decl("ds_load_2addr_b32", ds_2addr<b32, false>, ds).with(mem),
    decl("ds_load_2addr_b64", ds_2addr<b64, false>, ds).with(mem),
    decl("ds_load_2addr_stride64_b32", ds_2addr<b32_stride64, false>, ds).with(mem),
    decl("ds_load_2addr_stride64_b64", ds_2addr<b64_stride64, false>, ds).with(mem),
    decl("ds_store_2addr_b32", ds_2addr<b32, true>, ds).dsts(0).with(mem),
    decl("ds_store_2addr_b64", ds_2addr<b64, true>, ds).dsts(0).with(mem),
    decl("ds_store_2addr_stride64_b32", ds_2addr<b32_stride64, true>, ds).dsts(0).with(mem),
    decl("ds_store_2addr_stride64_b64", ds_2addr<b64_stride64, true>, ds).dsts(0).with(mem),
    // Cross-lane through the LDS crossbar: no LDS memory is read or written, so not a switch point.
    decl("ds_bpermute_b32", ds_bpermute_b32, ds),
    decl("ds_permute_b32", ds_permute_b32, ds),
    decl("ds_add_u32", ds_rmw([](uint32_t m, uint32_t v) { return m + v; }), ds).dsts(0).with(mem),
    decl("ds_add_rtn_u32", ds_rmw_rtn([](uint32_t m, uint32_t v) { return m + v; }), ds).with(mem),
    decl("ds_sub_u32", ds_rmw([](uint32_t m, uint32_t v) { return m - v; }), ds).dsts(0).with(mem),
    decl("ds_sub_rtn_u32", ds_rmw_rtn([](uint32_t m, uint32_t v) { return m - v; }), ds).with(mem),
    decl("ds_min_u32", ds_rmw([](uint32_t m, uint32_t v) { return m < v ? m : v; }), ds).dsts(0).with(mem),
    decl("ds_min_rtn_u32", ds_rmw_rtn([](uint32_t m, uint32_t v) { return m < v ? m : v; }), ds).with(mem),
    decl("ds_max_u32", ds_rmw([](uint32_t m, uint32_t v) { return m > v ? m : v; }), ds).dsts(0).with(mem),
    decl("ds_max_rtn_u32", ds_rmw_rtn([](uint32_t m, uint32_t v) { return m > v ? m : v; }), ds).with(mem),
    decl("ds_min_i32", ds_rmw([](uint32_t m, uint32_t v) { return int32_t(m) < int32_t(v) ? m : v; }), ds).dsts(0).with(mem),
    decl("ds_min_rtn_i32", ds_rmw_rtn([](uint32_t m, uint32_t v) { return int32_t(m) < int32_t(v) ? m : v; }), ds).with(mem),
    decl("ds_max_i32", ds_rmw([](uint32_t m, uint32_t v) { return int32_t(m) > int32_t(v) ? m : v; }), ds).dsts(0).with(mem),
    decl("ds_max_rtn_i32", ds_rmw_rtn([](uint32_t m, uint32_t v) { return int32_t(m) > int32_t(v) ? m : v; }), ds).with(mem),
    decl("ds_and_b32", ds_rmw([](uint32_t m, uint32_t v) { return m & v; }), ds).dsts(0).with(mem),
    decl("ds_and_rtn_b32", ds_rmw_rtn([](uint32_t m, uint32_t v) { return m & v; }), ds).with(mem),
    decl("ds_or_b32", ds_rmw([](uint32_t m, uint32_t v) { return m | v; }), ds).dsts(0).with(mem),
    decl("ds_or_rtn_b32", ds_rmw_rtn([](uint32_t m, uint32_t v) { return m | v; }), ds).with(mem),
    decl("ds_xor_b32", ds_rmw([](uint32_t m, uint32_t v) { return m ^ v; }), ds).dsts(0).with(mem),
    decl("ds_xor_rtn_b32", ds_rmw_rtn([](uint32_t m, uint32_t v) { return m ^ v; }), ds).with(mem),
    // The old value back, the new one stored.
    decl("ds_storexchg_rtn_b32", ds_rmw_rtn([](uint32_t, uint32_t v) { return v; }), ds).with(mem),
};
#undef TP_DS_STORE_ROWS
#undef TP_DS_LOAD_ROWS
#undef TP_DS_STORES
#undef TP_DS_LOADS
#undef TP_VMEM_STORE_ROWS
#undef TP_VMEM_LOAD_ROWS
#undef TP_VMEM_STORES
#undef TP_VMEM_LOADS

}  // namespace

std::span<const instruction> memory_instructions() { return table; }

TP_SIM_HOST_CODE_END

}  // namespace tp::amdgpu_sim::machine::TP_SIM_HOST_LEVEL
