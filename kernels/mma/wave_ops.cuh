// One-instruction kernels: each lane loads its own operand registers, the wave runs one matrix op, each lane stores
// its D registers. Used by the host table of software ops (wave_op_table.cu: tests/isa, tools/isa-differential,
// probe swmmac-sweep), one instance set per backend linked into the binary.
//
// Buffers are per-lane register words: lane l's register r of an operand with R registers is word l*R + r. The index
// buffer has one word per lane (dense ops ignore it). A block is one wave; wave_op_kernel's grid is one block,
// wave_op_batch_kernel's one block per case.
#pragma once
#include "kernels/mma/mma.cuh"

namespace tp::mma {

// Op tags: operand types and the call, so one kernel template serves every instruction and flag combination.
template <bool SA, bool SB, bool Clamp, int Key>
struct op_swmmac_i32_16x16x32_iu4 {
  using a_t = int32_t; using b_t = v2i; using c_t = v8i;
  static TP_DEVICE c_t run(a_t a, b_t b, c_t c, int32_t i) { return swmmac_i32_16x16x32_iu4<SA, SB, Clamp, Key>(a, b, c, i); }
};
template <bool SA, bool SB, bool Clamp>
struct op_swmmac_i32_16x16x64_iu4 {
  using a_t = v2i; using b_t = v4i; using c_t = v8i;
  static TP_DEVICE c_t run(a_t a, b_t b, c_t c, int32_t i) { return swmmac_i32_16x16x64_iu4<SA, SB, Clamp>(a, b, c, i); }
};
template <bool SA, bool SB, bool Clamp, int Key>
struct op_swmmac_i32_16x16x32_iu8 {
  using a_t = v2i; using b_t = v4i; using c_t = v8i;
  static TP_DEVICE c_t run(a_t a, b_t b, c_t c, int32_t i) { return swmmac_i32_16x16x32_iu8<SA, SB, Clamp, Key>(a, b, c, i); }
};
template <int Key>
struct op_swmmac_f32_16x16x32_fp8_fp8 {
  using a_t = v2i; using b_t = v4i; using c_t = v8f;
  static TP_DEVICE c_t run(a_t a, b_t b, c_t c, int32_t i) { return swmmac_f32_16x16x32_fp8_fp8<Key>(a, b, c, i); }
};
template <int Key>
struct op_swmmac_f32_16x16x32_fp8_bf8 {
  using a_t = v2i; using b_t = v4i; using c_t = v8f;
  static TP_DEVICE c_t run(a_t a, b_t b, c_t c, int32_t i) { return swmmac_f32_16x16x32_fp8_bf8<Key>(a, b, c, i); }
};
template <int Key>
struct op_swmmac_f32_16x16x32_bf8_fp8 {
  using a_t = v2i; using b_t = v4i; using c_t = v8f;
  static TP_DEVICE c_t run(a_t a, b_t b, c_t c, int32_t i) { return swmmac_f32_16x16x32_bf8_fp8<Key>(a, b, c, i); }
};
template <int Key>
struct op_swmmac_f32_16x16x32_bf8_bf8 {
  using a_t = v2i; using b_t = v4i; using c_t = v8f;
  static TP_DEVICE c_t run(a_t a, b_t b, c_t c, int32_t i) { return swmmac_f32_16x16x32_bf8_bf8<Key>(a, b, c, i); }
};
template <int Key>
struct op_swmmac_f32_16x16x32_f16 {
  using a_t = v8h; using b_t = v16h; using c_t = v8f;
  static TP_DEVICE c_t run(a_t a, b_t b, c_t c, int32_t i) { return swmmac_f32_16x16x32_f16<Key>(a, b, c, i); }
};
template <int Key>
struct op_swmmac_f32_16x16x32_bf16 {
  using a_t = v8bf; using b_t = v16bf; using c_t = v8f;
  static TP_DEVICE c_t run(a_t a, b_t b, c_t c, int32_t i) { return swmmac_f32_16x16x32_bf16<Key>(a, b, c, i); }
};
template <bool SA, bool SB, bool Clamp>
struct op_wmma_i32_16x16x32_iu4 {
  using a_t = v2i; using b_t = v2i; using c_t = v8i;
  static TP_DEVICE c_t run(a_t a, b_t b, c_t c, int32_t) { return wmma_i32_16x16x32_iu4<SA, SB, Clamp>(a, b, c); }
};
template <bool SA, bool SB, bool Clamp>
struct op_wmma_i32_16x16x16_iu8 {
  using a_t = v2i; using b_t = v2i; using c_t = v8i;
  static TP_DEVICE c_t run(a_t a, b_t b, c_t c, int32_t) { return wmma_i32_16x16x16_iu8<SA, SB, Clamp>(a, b, c); }
};
struct op_wmma_f32_16x16x16_f16 {
  using a_t = v8h; using b_t = v8h; using c_t = v8f;
  static TP_DEVICE c_t run(a_t a, b_t b, c_t c, int32_t) { return wmma_f32_16x16x16_f16(a, b, c); }
};
struct op_gfx11_wmma_f32_16x16x16_f16 {
  using a_t = v16h; using b_t = v16h; using c_t = v8f;
  static TP_DEVICE c_t run(a_t a, b_t b, c_t c, int32_t) { return gfx11::wmma_f32_16x16x16_f16(a, b, c); }
};
template <bool SA, bool SB, bool Clamp>
struct op_gfx11_wmma_i32_16x16x16_iu8 {
  using a_t = v4i; using b_t = v4i; using c_t = v8i;
  static TP_DEVICE c_t run(a_t a, b_t b, c_t c, int32_t) { return gfx11::wmma_i32_16x16x16_iu8<SA, SB, Clamp>(a, b, c); }
};
template <int Abid>
struct op_gfx9_smfmac_f32_16x16x32_f16 {
  using a_t = v4h; using b_t = v8h; using c_t = v4f;
  static TP_DEVICE c_t run(a_t a, b_t b, c_t c, int32_t i) { return gfx9::smfmac_f32_16x16x32_f16<Abid>(a, b, c, i); }
};
template <int Abid>
struct op_gfx9_smfmac_i32_16x16x64_i8 {
  using a_t = v2i; using b_t = v4i; using c_t = v4i;
  static TP_DEVICE c_t run(a_t a, b_t b, c_t c, int32_t i) { return gfx9::smfmac_i32_16x16x64_i8<Abid>(a, b, c, i); }
};

template <class T>
TP_DEVICE T load_lane_words(gmem<uint32_t> buf, unsigned lane) {
  constexpr unsigned words = sizeof(T) / 4;
  uint32_t w[words];
  for (unsigned r = 0; r < words; ++r) w[r] = buf.ld(lane * words + r);
  T t;
  __builtin_memcpy(&t, w, sizeof t);
  return t;
}

template <class T>
TP_DEVICE void store_lane_words(gmem<uint32_t> buf, unsigned lane, const T& t) {
  constexpr unsigned words = sizeof(T) / 4;
  uint32_t w[words];
  __builtin_memcpy(w, &t, sizeof t);
  for (unsigned r = 0; r < words; ++r) buf.st(lane * words + r, w[r]);
}

// One copy per backend of the binary (the hip build links the cpu and the hip table): see TP_BACKEND_NS.
inline namespace TP_BACKEND_NS {

template <class Op>
TP_GLOBAL void wave_op_kernel(gmem<uint32_t> a, gmem<uint32_t> b, gmem<uint32_t> c, gmem<uint32_t> index,
                              gmem<uint32_t> d) {
  const unsigned l = thread_idx();
  const auto av = load_lane_words<typename Op::a_t>(a, l);
  const auto bv = load_lane_words<typename Op::b_t>(b, l);
  const auto cv = load_lane_words<typename Op::c_t>(c, l);
  const int32_t iv = int32_t(index.ld(l));
  store_lane_words(d, l, Op::run(av, bv, cv, iv));
}

// Many independent cases in one launch (kernels/mma/wave_op_table.cu): block n is one wave running case n. Each buffer
// holds the cases back to back in the single-case layout above, so case n's lane l starts at lane word
// (n * block_dim() + l) * words; the index buffer has one word per lane of every case.
template <class Op>
TP_GLOBAL void wave_op_batch_kernel(gmem<uint32_t> a, gmem<uint32_t> b, gmem<uint32_t> c, gmem<uint32_t> index,
                                    gmem<uint32_t> d) {
  constexpr std::size_t a_words = sizeof(typename Op::a_t) / 4, b_words = sizeof(typename Op::b_t) / 4,
                        c_words = sizeof(typename Op::c_t) / 4;
  const std::size_t first_lane = std::size_t(block_idx()) * block_dim();
  const unsigned l = thread_idx();
  const auto av = load_lane_words<typename Op::a_t>(a + first_lane * a_words, l);
  const auto bv = load_lane_words<typename Op::b_t>(b + first_lane * b_words, l);
  const auto cv = load_lane_words<typename Op::c_t>(c + first_lane * c_words, l);
  const int32_t iv = int32_t(index.ld(first_lane + l));
  store_lane_words(d + first_lane * c_words, l, Op::run(av, bv, cv, iv));
}

}  // inline namespace TP_BACKEND_NS
}  // namespace tp::mma
