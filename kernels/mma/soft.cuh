// Software matrix instructions with the hardware's lane semantics, for every target without the real instruction
// (CPU emulator, CUDA, gfx9 for the gfx12 ops). Each lane gathers the wave's operand registers with one
// tp::warp_allgather and computes its own D registers; nothing else is shared, so a caller's per-lane register
// contents mean exactly what they would mean to the hardware.
//
// Semantics (docs/bugs/gfx12-swmmac.md §3, §4, §5): D[i][j] = C[i][j] + sum over groups g, stored slots s of
// a(i,g,s) * B[4g + F(i,g,s)][j], F = the 2-bit field of the selected index half, first stored value in the low
// two bits. Any F is legal and collisions add.
//
// Accumulation (an assumption; the hardware's internal order and rounding are undocumented):
//   integers: exact sum C + all products in int64, then wrapped to int32; with clamp, saturated to int32 instead
//             (the clamp behaviour is UNVERIFIED on hardware).
//   floats:   fp64 accumulator starting at C, products added in ascending (g, s) order (dense: ascending k), one
//             rounding to f32 at the end. Every f16/bf16/fp8/bf8 product is exact in fp64, so a compiler that fuses
//             acc + x*y into an fma computes the same bits.
// This file is written from the layout formulas, independently of reference/isa (which checks them against AMD's
// tables); tests/isa compares the two.
#pragma once
#include "kernels/mma/types.cuh"
#if TP_BACKEND_CPU
  #include <cstdio>
  #include <cstdlib>
  #include <vector>
#endif

namespace tp::mma::detail {

// One operand element's place: lane (relative to the 16x16 op's wave), register, lowest bit.
struct bitloc { unsigned lane, reg, bit; };

TP_HOST_DEVICE double pow2(int e) {  // exact for e in [-1022, 1023]
  uint64_t bits = uint64_t(1023 + e) << 52;
  double d;
  __builtin_memcpy(&d, &bits, sizeof d);
  return d;
}

TP_HOST_DEVICE double double_from_bits(uint64_t bits) {
  double d;
  __builtin_memcpy(&d, &bits, sizeof d);
  return d;
}

// IEEE-style minifloat (f16, bf16, bf8=E5M2) or OCP E4M3 (fp8: no infinities, only S.1111.111 is NaN).
TP_HOST_DEVICE double minifloat_value(uint32_t bits, int ebits, int mbits, bool ieee_specials) {
  const uint32_t sign = (bits >> (ebits + mbits)) & 1u;
  const uint32_t e = (bits >> mbits) & ((1u << ebits) - 1u);
  const uint32_t m = bits & ((1u << mbits) - 1u);
  const int bias = (1 << (ebits - 1)) - 1;
  const uint32_t emax = (1u << ebits) - 1u, mmax = (1u << mbits) - 1u;
  double mag;
  if (ieee_specials && e == emax)
    mag = m ? double_from_bits(0x7ff8000000000000ull) : double_from_bits(0x7ff0000000000000ull);
  else if (!ieee_specials && e == emax && m == mmax)
    mag = double_from_bits(0x7ff8000000000000ull);
  else if (e == 0)
    mag = double(m) * pow2(1 - bias - mbits);
  else
    mag = double(m | (1u << mbits)) * pow2(int(e) - bias - mbits);
  return sign ? -mag : mag;
}

// The same values as minifloat_value, faster: normal numbers are built as fp64 bits (1.m x 2^(e-bias) re-biased;
// exact), zero/subnormals and specials take minifloat_value itself, so those bits (NaN payloads included) agree.
template <int EBits, int MBits, bool IeeeSpecials>
TP_HOST_DEVICE double minifloat_value_fast(uint32_t bits) {
  constexpr uint32_t emax = (1u << EBits) - 1u, mmax = (1u << MBits) - 1u;
  constexpr int bias = (1 << (EBits - 1)) - 1;
  const uint32_t e = (bits >> MBits) & emax, m = bits & mmax;
  const bool special = IeeeSpecials ? e == emax : (e == emax && m == mmax);
  if (e == 0 || special) return minifloat_value(bits, EBits, MBits, IeeeSpecials);
  const uint64_t sign = uint64_t((bits >> (EBits + MBits)) & 1u) << 63;
  return double_from_bits(sign | (uint64_t(int(e) - bias + 1023) << 52) | (uint64_t(m) << (52 - MBits)));
}

#if TP_BACKEND_CPU
// On the emulator every format decodes with one load from a table filled by minifloat_value (identical by
// construction): 256 entries for the 8-bit formats, 65536 (512 KiB) for f16/bf16, filled at static initialisation
// (no kernel runs before main).
template <int EBits, int MBits, bool IeeeSpecials>
struct minifloat_table {
  std::vector<double> v = std::vector<double>(std::size_t(1) << (1 + EBits + MBits));
  minifloat_table() {
    for (uint32_t b = 0; b < v.size(); ++b) v[b] = minifloat_value(b, EBits, MBits, IeeeSpecials);
  }
};
template <int EBits, int MBits, bool IeeeSpecials>
inline const minifloat_table<EBits, MBits, IeeeSpecials> minifloat_values{};
#endif

template <int EBits, int MBits, bool IeeeSpecials>
TP_HOST_DEVICE double minifloat_decode(uint32_t bits) {
#if TP_BACKEND_CPU
  constexpr uint32_t mask = (1u << (1 + EBits + MBits)) - 1u;
  return minifloat_values<EBits, MBits, IeeeSpecials>.v[bits & mask];
#else
  return minifloat_value_fast<EBits, MBits, IeeeSpecials>(bits);
#endif
}

struct dec_f16  { static TP_HOST_DEVICE double value(uint32_t b) { return minifloat_decode<5, 10, true>(b); } };
struct dec_bf16 { static TP_HOST_DEVICE double value(uint32_t b) { return minifloat_decode<8, 7, true>(b); } };
struct dec_fp8  { static TP_HOST_DEVICE double value(uint32_t b) { return minifloat_decode<4, 3, false>(b); } };
struct dec_bf8  { static TP_HOST_DEVICE double value(uint32_t b) { return minifloat_decode<5, 2, true>(b); } };

template <unsigned Bits, bool Signed>
TP_HOST_DEVICE int64_t int_value(uint32_t raw) {
  if (Signed && ((raw >> (Bits - 1)) & 1u)) return int64_t(raw) - (int64_t(1) << Bits);
  return int64_t(raw);
}

template <unsigned Bits, bool SignedA, bool SignedB, bool Clamp>
struct int_ops {
  using acc_t = int64_t;
  using out_t = int32_t;
  static constexpr unsigned a_bits = Bits, b_bits = Bits;
  using val_t = int64_t;
  static TP_HOST_DEVICE acc_t from_c(int32_t c) { return c; }
  static TP_HOST_DEVICE val_t a_value(uint32_t ra) { return int_value<Bits, SignedA>(ra); }
  static TP_HOST_DEVICE val_t b_value(uint32_t rb) { return int_value<Bits, SignedB>(rb); }
  static TP_HOST_DEVICE acc_t add(acc_t acc, val_t a, val_t b) { return acc + a * b; }
  static TP_HOST_DEVICE int32_t finish(acc_t acc) {
    if (Clamp) {
      if (acc > int64_t(2147483647)) return 2147483647;
      if (acc < -int64_t(2147483648ll)) return int32_t(-2147483647 - 1);
      return int32_t(acc);
    }
    return int32_t(uint32_t(uint64_t(acc)));
  }
};

template <unsigned Bits, class DecA, class DecB>
struct float_ops {
  using acc_t = double;
  using out_t = float;
  static constexpr unsigned a_bits = Bits, b_bits = Bits;
  using val_t = double;
  static TP_HOST_DEVICE acc_t from_c(float c) { return double(c); }
  static TP_HOST_DEVICE val_t a_value(uint32_t ra) { return DecA::value(ra); }
  static TP_HOST_DEVICE val_t b_value(uint32_t rb) { return DecB::value(rb); }
  static TP_HOST_DEVICE acc_t add(acc_t acc, val_t a, val_t b) { return acc + a * b; }
  static TP_HOST_DEVICE float finish(acc_t acc) { return float(acc); }
};

TP_HOST_DEVICE uint32_t field(uint32_t word, unsigned bit, unsigned bits) {
  return bits == 32 ? word : (word >> bit) & ((1u << bits) - 1u);
}

// Layouts (lane relative to the op's wave; docs/bugs/gfx12-swmmac.md §5, §7, §9).
// Sparse layouts give where stored value s of group g of row i lives, where the 4-bit index field of (i, g) lives
// (bit inside the selected index bits), and where B[k][j] lives. D rows: which row lane l holds in D register r.
struct rows_gfx12 {  // D: lane 16*(i>>3)+j, VGPR i&7
  static constexpr unsigned wave = 32, d_regs = 8;
  static TP_HOST_DEVICE unsigned row(unsigned l, unsigned r) { return 8 * (l >> 4) + r; }
};
struct rows_gfx11 {  // D: lane 16*(i&1)+j, VGPR i>>1
  static constexpr unsigned wave = 32, d_regs = 8;
  static TP_HOST_DEVICE unsigned row(unsigned l, unsigned r) { return 2 * r + (l >> 4); }
};
struct rows_gfx9 {   // D: lane 16*(i>>2)+j, VGPR i&3 (wave64)
  static constexpr unsigned wave = 64, d_regs = 4;
  static TP_HOST_DEVICE unsigned row(unsigned l, unsigned r) { return 4 * (l >> 4) + r; }
};

struct swmmac_iu4_k32_layout : rows_gfx12 {
  static constexpr unsigned K = 32, a_words = 1, b_words = 2;
  static TP_HOST_DEVICE bitloc a(unsigned i, unsigned g, unsigned s) { return {16 * (g >> 2) + i, 0, 8 * (g & 3) + 4 * s}; }
  static TP_HOST_DEVICE bitloc idx(unsigned i, unsigned g) { return {16 * (g >> 2) + i, 0, 4 * (g & 3)}; }
  static TP_HOST_DEVICE bitloc b(unsigned k, unsigned j) { return {16 * (k >> 4) + j, (k >> 3) & 1, 4 * (k & 7)}; }
};
struct swmmac_iu4_k64_layout : rows_gfx12 {
  static constexpr unsigned K = 64, a_words = 2, b_words = 4;
  static TP_HOST_DEVICE bitloc a(unsigned i, unsigned g, unsigned s) { return {16 * (g >> 3) + i, (g >> 2) & 1, 8 * (g & 3) + 4 * s}; }
  static TP_HOST_DEVICE bitloc idx(unsigned i, unsigned g) { return {16 * (g >> 3) + i, 0, 4 * (g & 7)}; }
  static TP_HOST_DEVICE bitloc b(unsigned k, unsigned j) { return {16 * (k >> 5) + j, (k >> 3) & 3, 4 * (k & 7)}; }
};
struct swmmac_8bit_k32_layout : rows_gfx12 {  // iu8, fp8, bf8
  static constexpr unsigned K = 32, a_words = 2, b_words = 4;
  static TP_HOST_DEVICE bitloc a(unsigned i, unsigned g, unsigned s) { return {16 * (g >> 2) + i, (g >> 1) & 1, 16 * (g & 1) + 8 * s}; }
  static TP_HOST_DEVICE bitloc idx(unsigned i, unsigned g) { return {16 * (g >> 2) + i, 0, 4 * (g & 3)}; }
  static TP_HOST_DEVICE bitloc b(unsigned k, unsigned j) { return {16 * (k >> 4) + j, (k >> 2) & 3, 8 * (k & 3)}; }
};
struct swmmac_16bit_k32_layout : rows_gfx12 {  // f16, bf16: not linear in k
  static constexpr unsigned K = 32, a_words = 4, b_words = 8;
  static TP_HOST_DEVICE bitloc a(unsigned i, unsigned g, unsigned s) { return {16 * ((g >> 1) & 1) + i, 2 * (g >> 2) + (g & 1), 16 * s}; }
  static TP_HOST_DEVICE bitloc idx(unsigned i, unsigned g) { return {16 * ((g >> 1) & 1) + i, 0, 8 * (g >> 2) + 4 * (g & 1)}; }
  static TP_HOST_DEVICE bitloc b(unsigned k, unsigned j) { return {16 * ((k >> 3) & 1) + j, 4 * (k >> 4) + ((k >> 1) & 3), 16 * (k & 1)}; }
};
struct smfmac_f16_layout : rows_gfx9 {
  static constexpr unsigned K = 32, a_words = 2, b_words = 4;
  static TP_HOST_DEVICE bitloc a(unsigned i, unsigned g, unsigned s) { return {16 * (g >> 1) + i, g & 1, 16 * s}; }
  static TP_HOST_DEVICE bitloc idx(unsigned i, unsigned g) { return {16 * (g >> 1) + i, 0, 4 * (g & 1)}; }
  static TP_HOST_DEVICE bitloc b(unsigned k, unsigned j) { return {16 * (k >> 3) + j, (k & 7) >> 1, 16 * (k & 1)}; }
};
struct smfmac_i8_layout : rows_gfx9 {
  static constexpr unsigned K = 64, a_words = 2, b_words = 4;
  static TP_HOST_DEVICE bitloc a(unsigned i, unsigned g, unsigned s) { return {16 * (g >> 2) + i, (g >> 1) & 1, 16 * (g & 1) + 8 * s}; }
  static TP_HOST_DEVICE bitloc idx(unsigned i, unsigned g) { return {16 * (g >> 2) + i, 0, 4 * (g & 3)}; }
  static TP_HOST_DEVICE bitloc b(unsigned k, unsigned j) { return {16 * (k >> 4) + j, (k >> 2) & 3, 8 * (k & 3)}; }
};

// Dense layouts: A[i][k] and B[k][j] (gfx11 A/B are replicated in lanes x and x+16; the lower copy is read).
struct wmma_iu4_k32_layout : rows_gfx12 {
  static constexpr unsigned K = 32, a_words = 2, b_words = 2;
  static TP_HOST_DEVICE bitloc a(unsigned i, unsigned k) { return {16 * (k >> 4) + i, (k >> 3) & 1, 4 * (k & 7)}; }
  static TP_HOST_DEVICE bitloc b(unsigned k, unsigned j) { return a(j, k); }
};
struct wmma_iu8_k16_layout : rows_gfx12 {
  static constexpr unsigned K = 16, a_words = 2, b_words = 2;
  static TP_HOST_DEVICE bitloc a(unsigned i, unsigned k) { return {16 * (k >> 3) + i, (k >> 2) & 1, 8 * (k & 3)}; }
  static TP_HOST_DEVICE bitloc b(unsigned k, unsigned j) { return a(j, k); }
};
struct wmma_f16_k16_layout : rows_gfx12 {
  static constexpr unsigned K = 16, a_words = 4, b_words = 4;
  static TP_HOST_DEVICE bitloc a(unsigned i, unsigned k) { return {16 * ((k >> 2) & 1) + i, 2 * (k >> 3) + ((k >> 1) & 1), 16 * (k & 1)}; }
  static TP_HOST_DEVICE bitloc b(unsigned k, unsigned j) { return a(j, k); }
};
struct gfx11_wmma_f16_layout : rows_gfx11 {
  static constexpr unsigned K = 16, a_words = 8, b_words = 8;
  static TP_HOST_DEVICE bitloc a(unsigned i, unsigned k) { return {i, k >> 1, 16 * (k & 1)}; }
  static TP_HOST_DEVICE bitloc b(unsigned k, unsigned j) { return a(j, k); }
};
struct gfx11_wmma_iu8_layout : rows_gfx11 {
  static constexpr unsigned K = 16, a_words = 4, b_words = 4;
  static TP_HOST_DEVICE bitloc a(unsigned i, unsigned k) { return {i, k >> 2, 8 * (k & 3)}; }
  static TP_HOST_DEVICE bitloc b(unsigned k, unsigned j) { return a(j, k); }
};

[[noreturn]] TP_DEVICE void wave_size_mismatch() {
#if TP_BACKEND_CPU
  std::fputs("tp::mma: a wave64 (gfx9) matrix op was called on a warp that is not 64 lanes wide\n", stderr);
  std::abort();
#elif TP_BACKEND_CUDA
  __trap();
  __builtin_unreachable();
#else
  __builtin_trap();
#endif
}

template <class L, unsigned AW, unsigned BW>
struct wave_operands { uint32_t a[AW]; uint32_t b[BW]; uint32_t idx; };

template <class L>
TP_DEVICE unsigned wave_base() {
  if (warp_size() % L::wave != 0) wave_size_mismatch();
  return lane_id() - lane_id() % L::wave;
}

// Every lane's operands (all.lane[base + x] is lane x of the op's wave) and this lane's index l in the wave. Normally
// one warp collective (base: where the op's wave starts in the warp, when a wave64 warp runs a wave32 op). A wave64
// (gfx9) op on CUDA, whose warps have 32 lanes, gathers through shared memory instead, which needs the op's block to
// be exactly one 64-thread wave with every thread calling the op together (tp::mma's wave-op kernels launch it so);
// any other block size stops the kernel rather than mixing lanes of different waves.
template <class L, class T>
TP_DEVICE warp_lanes<T> gather_wave(const T& mine, unsigned& base, unsigned& l) {
#if TP_BACKEND_CUDA
  if constexpr (L::wave == 64) {
    if (block_dim() != 64) wave_size_mismatch();
    __shared__ T staged[64];
    const unsigned t = thread_idx();
    staged[t] = mine;
    __syncthreads();
    warp_lanes<T> all;
    for (unsigned x = 0; x < 64; ++x) all.lane[x] = staged[x];
    __syncthreads();  // staged is written again by the next op
    base = 0;
    l = t;
    return all;
  }
#endif
  base = wave_base<L>();
  l = lane_id() - base;
  return warp_allgather(mine);  // a prvalue: no copy of the gathered lanes
}

// Every output of a lane uses only its own column j of B, so that column is decoded once up front; each A element
// of the lane's rows is used once and decoded where it is used. Accumulation order is unchanged (ascending g, s).
template <class L, class Ops, class Lanes>
TP_DEVICE void decode_b_column(const Lanes& all, unsigned base, unsigned j, typename Ops::val_t (&bcol)[L::K]) {
  TP_UNROLL for (unsigned k = 0; k < L::K; ++k) {
    const bitloc bl = L::b(k, j);
    bcol[k] = Ops::b_value(field(all.lane[base + bl.lane].b[bl.reg], bl.bit, Ops::b_bits));
  }
}

// idx_shift: first bit of the selected index bits (16 * index_key on gfx12 K=32; the set offset on gfx9).
template <class L, class Ops, class AIn, class BIn, class CIn>
TP_DEVICE CIn sparse_op(const AIn& a, const BIn& b, const CIn& c, int32_t index, unsigned idx_shift) {
  static_assert(sizeof(AIn) == 4 * L::a_words && sizeof(BIn) == 4 * L::b_words, "operand size does not match layout");
  wave_operands<L, L::a_words, L::b_words> mine;
  __builtin_memcpy(mine.a, &a, sizeof a);
  __builtin_memcpy(mine.b, &b, sizeof b);
  mine.idx = uint32_t(index);
  unsigned base, l;
  const warp_lanes<wave_operands<L, L::a_words, L::b_words>> all = gather_wave<L>(mine, base, l);
  const unsigned j = l & 15u;
  typename Ops::val_t bcol[L::K];
  decode_b_column<L, Ops>(all, base, j, bcol);
  CIn d;
  for (unsigned r = 0; r < L::d_regs; ++r) {
    const unsigned i = L::row(l, r);
    typename Ops::acc_t acc = Ops::from_c(c.v[r]);
    TP_UNROLL for (unsigned g = 0; g < L::K / 4; ++g) {
      const bitloc fl = L::idx(i, g);
      const uint32_t nibble = field(all.lane[base + fl.lane].idx, idx_shift + fl.bit, 4);
      TP_UNROLL for (unsigned s = 0; s < 2; ++s) {
        const bitloc al = L::a(i, g, s);
        const uint32_t ra = field(all.lane[base + al.lane].a[al.reg], al.bit, Ops::a_bits);
        const unsigned k = 4 * g + ((nibble >> (2 * s)) & 3u);
        acc = Ops::add(acc, Ops::a_value(ra), bcol[k]);
      }
    }
    d.v[r] = Ops::finish(acc);
  }
  return d;
}

template <class L, class Ops, class AIn, class BIn, class CIn>
TP_DEVICE CIn dense_op(const AIn& a, const BIn& b, const CIn& c) {
  static_assert(sizeof(AIn) == 4 * L::a_words && sizeof(BIn) == 4 * L::b_words, "operand size does not match layout");
  wave_operands<L, L::a_words, L::b_words> mine;
  __builtin_memcpy(mine.a, &a, sizeof a);
  __builtin_memcpy(mine.b, &b, sizeof b);
  mine.idx = 0;
  unsigned base, l;
  const warp_lanes<wave_operands<L, L::a_words, L::b_words>> all = gather_wave<L>(mine, base, l);
  const unsigned j = l & 15u;
  typename Ops::val_t bcol[L::K];
  decode_b_column<L, Ops>(all, base, j, bcol);
  CIn d;
  for (unsigned r = 0; r < L::d_regs; ++r) {
    const unsigned i = L::row(l, r);
    typename Ops::acc_t acc = Ops::from_c(c.v[r]);
    for (unsigned k = 0; k < L::K; ++k) {
      const bitloc al = L::a(i, k);
      acc = Ops::add(acc, Ops::a_value(field(all.lane[base + al.lane].a[al.reg], al.bit, Ops::a_bits)), bcol[k]);
    }
    d.v[r] = Ops::finish(acc);
  }
  return d;
}

}  // namespace tp::mma::detail

// The software forms, callable on every backend (tests use them on the CPU emulator; tp::mma::* dispatch to them
// wherever the real instruction is missing). Signatures mirror the builtins; flags are template arguments because
// the hardware takes them as constants.
namespace tp::mma::soft {

template <bool SignedA, bool SignedB, bool Clamp = false, int IndexKey = 0>
TP_DEVICE v8i swmmac_i32_16x16x32_iu4(int32_t a, v2i b, v8i c, int32_t index) {
  static_assert(IndexKey == 0 || IndexKey == 1, "index_key is 0 or 1 for K=32");
  return detail::sparse_op<detail::swmmac_iu4_k32_layout, detail::int_ops<4, SignedA, SignedB, Clamp>>(a, b, c, index, 16 * IndexKey);
}
template <bool SignedA, bool SignedB, bool Clamp = false>
TP_DEVICE v8i swmmac_i32_16x16x64_iu4(v2i a, v4i b, v8i c, int32_t index) {
  return detail::sparse_op<detail::swmmac_iu4_k64_layout, detail::int_ops<4, SignedA, SignedB, Clamp>>(a, b, c, index, 0);
}
template <bool SignedA, bool SignedB, bool Clamp = false, int IndexKey = 0>
TP_DEVICE v8i swmmac_i32_16x16x32_iu8(v2i a, v4i b, v8i c, int32_t index) {
  static_assert(IndexKey == 0 || IndexKey == 1, "index_key is 0 or 1 for K=32");
  return detail::sparse_op<detail::swmmac_8bit_k32_layout, detail::int_ops<8, SignedA, SignedB, Clamp>>(a, b, c, index, 16 * IndexKey);
}

#define TP_MMA_SOFT_SWMMAC_F8(name, DA, DB)                                                                       \
  template <int IndexKey = 0>                                                                                     \
  TP_DEVICE v8f name(v2i a, v4i b, v8f c, int32_t index) {                                                        \
    static_assert(IndexKey == 0 || IndexKey == 1, "index_key is 0 or 1 for K=32");                                \
    return detail::sparse_op<detail::swmmac_8bit_k32_layout, detail::float_ops<8, detail::DA, detail::DB>>(       \
        a, b, c, index, 16 * IndexKey);                                                                           \
  }
TP_MMA_SOFT_SWMMAC_F8(swmmac_f32_16x16x32_fp8_fp8, dec_fp8, dec_fp8)
TP_MMA_SOFT_SWMMAC_F8(swmmac_f32_16x16x32_fp8_bf8, dec_fp8, dec_bf8)
TP_MMA_SOFT_SWMMAC_F8(swmmac_f32_16x16x32_bf8_fp8, dec_bf8, dec_fp8)
TP_MMA_SOFT_SWMMAC_F8(swmmac_f32_16x16x32_bf8_bf8, dec_bf8, dec_bf8)
#undef TP_MMA_SOFT_SWMMAC_F8

template <int IndexKey = 0>
TP_DEVICE v8f swmmac_f32_16x16x32_f16(v8h a, v16h b, v8f c, int32_t index) {
  static_assert(IndexKey == 0 || IndexKey == 1, "index_key is 0 or 1 for K=32");
  return detail::sparse_op<detail::swmmac_16bit_k32_layout, detail::float_ops<16, detail::dec_f16, detail::dec_f16>>(a, b, c, index, 16 * IndexKey);
}
template <int IndexKey = 0>
TP_DEVICE v8f swmmac_f32_16x16x32_bf16(v8bf a, v16bf b, v8f c, int32_t index) {
  static_assert(IndexKey == 0 || IndexKey == 1, "index_key is 0 or 1 for K=32");
  return detail::sparse_op<detail::swmmac_16bit_k32_layout, detail::float_ops<16, detail::dec_bf16, detail::dec_bf16>>(a, b, c, index, 16 * IndexKey);
}

template <bool SignedA, bool SignedB, bool Clamp = false>
TP_DEVICE v8i wmma_i32_16x16x32_iu4(v2i a, v2i b, v8i c) {
  return detail::dense_op<detail::wmma_iu4_k32_layout, detail::int_ops<4, SignedA, SignedB, Clamp>>(a, b, c);
}
template <bool SignedA, bool SignedB, bool Clamp = false>
TP_DEVICE v8i wmma_i32_16x16x16_iu8(v2i a, v2i b, v8i c) {
  return detail::dense_op<detail::wmma_iu8_k16_layout, detail::int_ops<8, SignedA, SignedB, Clamp>>(a, b, c);
}
TP_DEVICE v8f wmma_f32_16x16x16_f16(v8h a, v8h b, v8f c) {
  return detail::dense_op<detail::wmma_f16_k16_layout, detail::float_ops<16, detail::dec_f16, detail::dec_f16>>(a, b, c);
}

namespace gfx11 {
TP_DEVICE v8f wmma_f32_16x16x16_f16(v16h a, v16h b, v8f c) {
  return detail::dense_op<detail::gfx11_wmma_f16_layout, detail::float_ops<16, detail::dec_f16, detail::dec_f16>>(a, b, c);
}
template <bool SignedA, bool SignedB, bool Clamp = false>
TP_DEVICE v8i wmma_i32_16x16x16_iu8(v4i a, v4i b, v8i c) {
  return detail::dense_op<detail::gfx11_wmma_iu8_layout, detail::int_ops<8, SignedA, SignedB, Clamp>>(a, b, c);
}
}  // namespace gfx11

namespace gfx9 {
// Abid selects the index set: 8-bit sets for f16 (0..3), 16-bit sets for i8 (0..1) [INF: CBSZ=0 assumed].
template <int Abid = 0>
TP_DEVICE v4f smfmac_f32_16x16x32_f16(v4h a, v8h b, v4f c, int32_t index) {
  static_assert(Abid >= 0 && Abid < 4, "abid selects one of four 8-bit index sets");
  return detail::sparse_op<detail::smfmac_f16_layout, detail::float_ops<16, detail::dec_f16, detail::dec_f16>>(a, b, c, index, 8 * Abid);
}
template <int Abid = 0>
TP_DEVICE v4i smfmac_i32_16x16x64_i8(v2i a, v4i b, v4i c, int32_t index) {
  static_assert(Abid >= 0 && Abid < 2, "abid selects one of two 16-bit index sets");
  return detail::sparse_op<detail::smfmac_i8_layout, detail::int_ops<8, true, true, false>>(a, b, c, index, 16 * Abid);
}
}  // namespace gfx9

}  // namespace tp::mma::soft
