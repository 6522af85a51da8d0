// Register file, placement and execution of the instruction model.
#include <algorithm>
#include <bit>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "reference/codecs.h"
#include "reference/isa/isa.h"

namespace tp::ref::isa {
namespace {

std::uint32_t mask_of(const reg_loc& at) {
  const unsigned width = at.bit_hi - at.bit_lo + 1;
  return width >= 32 ? 0xffffffffu : ((1u << width) - 1u);
}

void check_shape(const code_matrix& mtx, std::size_t rows, std::size_t cols, const char* what, instr in) {
  if (mtx.rows != rows || mtx.cols != cols)
    throw std::invalid_argument(std::string(what) + " must be " + std::to_string(rows) + "x" + std::to_string(cols) +
                                " for " + std::string(info(in).name) + ", got " + std::to_string(mtx.rows) + "x" +
                                std::to_string(mtx.cols));
}

void check_regs(const wave_regs& r, unsigned vgprs, const char* what, instr in) {
  const auto& f = info(in);
  if (r.lanes() != f.wave || r.vgprs() != vgprs)
    throw std::invalid_argument(std::string(what) + " registers must be " + std::to_string(f.wave) + " lanes x " +
                                std::to_string(vgprs) + " VGPRs for " + std::string(f.name));
}

bool signed_a(instr in, const modifiers& m) { return info(in).signedness_flags ? m.a_signed : true; }
bool signed_b(instr in, const modifiers& m) { return info(in).signedness_flags ? m.b_signed : true; }

// The binary16 result of a binary32 accumulator (README assumption 7): rounded to nearest even; a NaN is the canonical
// quiet NaN 0x7e00 (assumption 3).
std::uint32_t f16_result(float acc) { return acc != acc ? 0x7e00u : tp::ref::double_to_fp16(double(acc)); }

// The accumulation rule shared by the sparse and dense forms (see isa.h and README.md: an assumption).
struct accumulator {
  bool integer;
  bool half;  // binary16 C/D (f16_d_instrs): a binary32 accumulator rounded at every step (assumption 7)
  bool clamp;
  std::int64_t iacc = 0;
  double facc = 0;
  float hacc = 0;

  accumulator(instr in, std::uint32_t c_code, bool clamp_)
      : integer(is_integer(info(in).d)), half(info(in).d == elem::f16), clamp(clamp_) {
    start_from(c_code);
  }
  void start_from(std::uint32_t c_code) {
    if (integer) iacc = std::int32_t(c_code);
    else if (half) hacc = float(tp::ref::fp16_to_double(std::uint16_t(c_code)));  // exact
    else facc = double(std::bit_cast<float>(c_code));
  }
  void add(double a, double b) {
    if (integer) iacc += std::int64_t(a) * std::int64_t(b);  // |a|,|b| <= 255: exact in double and int64
    else if (half) hacc += float(a * b);                      // a binary16 product is exact in binary32
    else facc += a * b;                                       // product exact in fp64 for every A/B format here
  }
  std::uint32_t result() const {
    if (half) return f16_result(hacc);
    // A NaN result is the canonical quiet NaN: payload and sign are not modelled (README assumption 3), and the
    // host's would depend on the operand order the compiler picked for a commutative add or multiply.
    if (!integer) return facc != facc ? 0x7fc00000u : std::bit_cast<std::uint32_t>(float(facc));
    if (clamp) {
      if (iacc > std::numeric_limits<std::int32_t>::max()) return std::uint32_t(std::numeric_limits<std::int32_t>::max());
      if (iacc < std::numeric_limits<std::int32_t>::min()) return std::uint32_t(std::numeric_limits<std::int32_t>::min());
    }
    return std::uint32_t(std::uint64_t(iacc));
  }
};

}  // namespace

std::uint32_t& wave_regs::word(unsigned lane, unsigned vgpr) {
  if (lane >= lanes_ || vgpr >= vgprs_) throw std::out_of_range("wave_regs: lane or VGPR out of range");
  return words_[std::size_t(lane) * vgprs_ + vgpr];
}

std::uint32_t wave_regs::word(unsigned lane, unsigned vgpr) const {
  if (lane >= lanes_ || vgpr >= vgprs_) throw std::out_of_range("wave_regs: lane or VGPR out of range");
  return words_[std::size_t(lane) * vgprs_ + vgpr];
}

std::uint32_t wave_regs::get(const reg_loc& at) const { return (word(at.lane, at.vgpr) >> at.bit_lo) & mask_of(at); }

void wave_regs::set(const reg_loc& at, std::uint32_t value) {
  const std::uint32_t m = mask_of(at);
  if (value & ~m) throw std::invalid_argument("wave_regs: value " + std::to_string(value) + " does not fit " + to_string(at));
  std::uint32_t& w = word(at.lane, at.vgpr);
  w = (w & ~(m << at.bit_lo)) | (value << at.bit_lo);
}

wave_regs make_a_regs(instr in) { return {info(in).wave, info(in).a_vgprs}; }
wave_regs make_b_regs(instr in) { return {info(in).wave, info(in).b_vgprs}; }
wave_regs make_d_regs(instr in) { return {info(in).wave, info(in).d_vgprs}; }
wave_regs make_index_regs(instr in) { return {info(in).wave, 1}; }

void check_modifiers(instr in, const modifiers& m) {
  const auto& f = info(in);
  if (f.sparse ? m.index_key >= f.index_keys : m.index_key != 0)
    throw std::invalid_argument("index_key " + std::to_string(m.index_key) + " is not legal for " + std::string(f.name));
  if (m.clamp && (!is_integer(f.d) || f.target == arch::gfx9))
    throw std::invalid_argument(std::string(f.name) + " has no clamp modifier");
  if (m.d_half > (f.d == elem::f16 && f.target == arch::gfx11 ? 1u : 0u))
    throw std::invalid_argument("op_sel[2] (d_half " + std::to_string(m.d_half) + ") is not legal for " +
                                std::string(f.name));
}

void place_sparse_a(instr in, const sparse_a& a, wave_regs& a_regs, wave_regs& index_regs, unsigned index_key) {
  const auto& f = info(in);
  if (a.rows != f.m || a.groups != f.k / 4)
    throw std::invalid_argument("sparse A must be " + std::to_string(f.m) + " rows x " + std::to_string(f.k / 4) +
                                " groups for " + std::string(f.name));
  check_regs(a_regs, f.a_vgprs, "A", in);
  check_regs(index_regs, 1, "index", in);
  for (unsigned i = 0; i < f.m; ++i)
    for (unsigned g = 0; g < f.k / 4; ++g) {
      const reg_loc field = index_field_loc(in, i, g, index_key);
      std::uint32_t nibble = 0;
      for (unsigned s = 0; s < 2; ++s) {
        a_regs.set(a_slot_loc(in, i, g, s), a.value(i, g, s));
        if (a.field(i, g, s) > 3) throw std::invalid_argument("sparse A field must be 0..3");
        nibble |= std::uint32_t(a.field(i, g, s)) << (2 * s);
      }
      index_regs.set(field, nibble);
    }
}

sparse_a read_sparse_a(instr in, const wave_regs& a_regs, const wave_regs& index_regs, unsigned index_key) {
  const auto& f = info(in);
  check_regs(a_regs, f.a_vgprs, "A", in);
  check_regs(index_regs, 1, "index", in);
  sparse_a a(f.m, f.k / 4);
  for (unsigned i = 0; i < f.m; ++i)
    for (unsigned g = 0; g < f.k / 4; ++g) {
      const std::uint32_t nibble = index_regs.get(index_field_loc(in, i, g, index_key));
      for (unsigned s = 0; s < 2; ++s) {
        a.value(i, g, s) = a_regs.get(a_slot_loc(in, i, g, s));
        a.field(i, g, s) = std::uint8_t((nibble >> (2 * s)) & 3u);
      }
    }
  return a;
}

void place_dense_a(instr in, const code_matrix& a, wave_regs& a_regs) {
  const auto& f = info(in);
  check_shape(a, f.m, f.k, "A", in);
  check_regs(a_regs, f.a_vgprs, "A", in);
  for (unsigned i = 0; i < f.m; ++i)
    for (unsigned k = 0; k < f.k; ++k)
      for (const reg_loc& at : a_locs(in, i, k)) a_regs.set(at, a(i, k));
}

code_matrix read_dense_a(instr in, const wave_regs& a_regs) {
  const auto& f = info(in);
  check_regs(a_regs, f.a_vgprs, "A", in);
  code_matrix a(f.m, f.k);
  for (unsigned i = 0; i < f.m; ++i)
    for (unsigned k = 0; k < f.k; ++k) a(i, k) = a_regs.get(a_locs(in, i, k).front());
  return a;
}

void place_b(instr in, const code_matrix& b, wave_regs& b_regs) {
  const auto& f = info(in);
  check_shape(b, f.k, f.n, "B", in);
  check_regs(b_regs, f.b_vgprs, "B", in);
  for (unsigned k = 0; k < f.k; ++k)
    for (unsigned j = 0; j < f.n; ++j)
      for (const reg_loc& at : b_locs(in, k, j)) b_regs.set(at, b(k, j));
}

code_matrix read_b(instr in, const wave_regs& b_regs) {
  const auto& f = info(in);
  check_regs(b_regs, f.b_vgprs, "B", in);
  code_matrix b(f.k, f.n);
  for (unsigned k = 0; k < f.k; ++k)
    for (unsigned j = 0; j < f.n; ++j) b(k, j) = b_regs.get(b_locs(in, k, j).front());
  return b;
}

void place_d(instr in, const code_matrix& d, wave_regs& d_regs, unsigned d_half) {
  const auto& f = info(in);
  check_shape(d, f.m, f.n, "C/D", in);
  check_regs(d_regs, f.d_vgprs, "C/D", in);
  for (unsigned i = 0; i < f.m; ++i)
    for (unsigned j = 0; j < f.n; ++j) d_regs.set(d_loc(in, i, j, d_half), d(i, j));
}

code_matrix read_d(instr in, const wave_regs& d_regs, unsigned d_half) {
  const auto& f = info(in);
  check_regs(d_regs, f.d_vgprs, "C/D", in);
  code_matrix d(f.m, f.n);
  for (unsigned i = 0; i < f.m; ++i)
    for (unsigned j = 0; j < f.n; ++j) d(i, j) = d_regs.get(d_loc(in, i, j, d_half));
  return d;
}

double element_value(elem e, std::uint32_t code, bool is_signed) {
  switch (e) {
    case elem::iu4: return is_signed ? double(std::int32_t(code << 28) >> 28) : double(code & 0xfu);
    case elem::iu8: return is_signed ? double(std::int8_t(std::uint8_t(code))) : double(code & 0xffu);
    case elem::fp8: return tp::ref::fp8_e4m3_to_double(std::uint8_t(code));
    case elem::bf8: return tp::ref::fp8_e5m2_to_double(std::uint8_t(code));
    case elem::f16: return tp::ref::fp16_to_double(std::uint16_t(code));
    case elem::bf16: return tp::ref::bf16_to_double(std::uint16_t(code));
    case elem::i32: return double(std::int32_t(code));
    case elem::f32: return double(std::bit_cast<float>(code));
  }
  throw std::logic_error("element_value: unknown format");
}

code_matrix execute_sparse(instr in, const sparse_a& a, const code_matrix& b, const code_matrix& c, const modifiers& m) {
  const auto& f = info(in);
  if (!f.sparse) throw std::invalid_argument(std::string(f.name) + " is dense; use execute_dense");
  check_modifiers(in, m);
  if (a.rows != f.m || a.groups != f.k / 4) throw std::invalid_argument("sparse A has the wrong shape for " + std::string(f.name));
  check_shape(b, f.k, f.n, "B", in);
  check_shape(c, f.m, f.n, "C", in);
  const bool sa = signed_a(in, m), sb = signed_b(in, m);
  code_matrix d(f.m, f.n);
  for (unsigned i = 0; i < f.m; ++i)
    for (unsigned j = 0; j < f.n; ++j) {
      accumulator acc(in, c(i, j), m.clamp);
      for (unsigned g = 0; g < f.k / 4; ++g)
        for (unsigned s = 0; s < 2; ++s) {
          const unsigned k = 4 * g + (a.field(i, g, s) & 3u);
          acc.add(element_value(f.a, a.value(i, g, s), sa), element_value(f.b, b(k, j), sb));
        }
      d(i, j) = acc.result();
    }
  return d;
}

code_matrix execute_dense(instr in, const code_matrix& a, const code_matrix& b, const code_matrix& c, const modifiers& m) {
  const auto& f = info(in);
  if (f.sparse) throw std::invalid_argument(std::string(f.name) + " is sparse; use execute_sparse");
  check_modifiers(in, m);
  check_shape(a, f.m, f.k, "A", in);
  check_shape(b, f.k, f.n, "B", in);
  check_shape(c, f.m, f.n, "C", in);
  const bool sa = signed_a(in, m), sb = signed_b(in, m);
  code_matrix d(f.m, f.n);
  for (unsigned i = 0; i < f.m; ++i)
    for (unsigned j = 0; j < f.n; ++j) {
      accumulator acc(in, c(i, j), m.clamp);
      for (unsigned k = 0; k < f.k; ++k) acc.add(element_value(f.a, a(i, k), sa), element_value(f.b, b(k, j), sb));
      d(i, j) = acc.result();
    }
  return d;
}

wave_regs execute_by_parts(instr in, const wave_regs& a, const wave_regs& b, const wave_regs& c,
                           const wave_regs& index, const modifiers& m) {
  const auto& f = info(in);
  check_modifiers(in, m);
  const code_matrix bm = read_b(in, b), cm = read_d(in, c, m.d_half);
  const code_matrix dm = f.sparse ? execute_sparse(in, read_sparse_a(in, a, index, m.index_key), bm, cm, m)
                                  : execute_dense(in, read_dense_a(in, a), bm, cm, m);
  wave_regs d = c;  // the bits no element of D covers keep C's (isa.h)
  place_d(in, dm, d, m.d_half);
  return d;
}

namespace {

// execute() sits in the inner loop of the AMDGPU simulator and the differential tools (one call per simulated matrix
// instruction), where execute_by_parts spends its time asking the layout functions for the same cells and decoding
// the same codes over and over. The plan below is their answers, computed once per instruction and register order:
// for every register word of A and B, which element each of its bit fields holds (the first replica's, as
// read_dense_a / read_b read; a field no element reads, or a later replica, goes to a slot nobody reads), the word of
// every index field and of every C/D element; and element_value of every code of the 4- and 8-bit formats (the 16-bit
// float formats are computed). The arithmetic is execute_sparse's / execute_dense's: the same accumulation rule, the
// same order. tests/isa checks execute() against execute_by_parts on random registers for every instruction and
// modifier, and execute_rows() against execute_words().
//
// The kernel below is a template over what the instruction fixes (integer or float, sparse or dense, K, the element
// widths and decoders), so its loops have constant trip counts, shifts and masks: the simulator spent ~20% of a ck
// fuzz loop here when one generic loop read every cell's position and width from the table.

// Where a register word lives in the caller's buffer: lane-major (wave_regs::words(), execute_words) or
// register-major (VGPR r of lane l at r * wave + l: a register file's rows, execute_rows).
enum class order { lanes, rows };

std::uint16_t word_at(const reg_loc& at, unsigned vgprs, unsigned wave, order o) {
  return std::uint16_t(o == order::lanes ? at.lane * vgprs + at.vgpr : at.vgpr * wave + at.lane);
}

struct field_cell {
  std::uint16_t word;
  std::uint8_t lo;
};

struct plan {
  // A and B by register word: element e (bits [e*width, e*width + width)) of word w goes to slot dst[w * per_word + e]
  // of the decoded operand: sparse A [i * terms + 2g + s], dense A [i * k + kk], B [kk * n + j]; the slot one past
  // the operand's elements is the sink for fields no element reads.
  std::vector<std::uint16_t> a_dst, b_dst;
  std::vector<std::vector<field_cell>> fields;  // sparse: per index_key, [i * groups + g] (4-bit fields)
  std::vector<std::uint16_t> d_word;            // [i * n + j]: the word of C/D element (i, j)
  std::vector<std::uint8_t> d_lo;               // [i * n + j]: its lowest bit (binary16 C/D; d_half 0 on gfx11)
};

// Every field (of the element width) of an operand's words, mapped to the element loc_of places there (its first
// replica's place: read_dense_a / read_b read that one); every other field, to the sink slot.
template <class Loc>
std::vector<std::uint16_t> by_word(unsigned words, unsigned width, unsigned vgprs, unsigned wave, order o,
                                   std::size_t elements, Loc loc_of) {
  const unsigned per_word = 32 / width;
  const auto sink = std::uint16_t(elements);
  std::vector<std::uint16_t> dst(std::size_t(words) * per_word, sink);
  for (std::size_t x = 0; x < elements; ++x) {
    const reg_loc at = loc_of(x);
    if (at.bit_hi - at.bit_lo + 1 != width || at.bit_lo % width != 0)
      throw std::logic_error("isa::execute: an operand field is not aligned to its element width");
    dst[std::size_t(word_at(at, vgprs, wave, o)) * per_word + at.bit_lo / width] = std::uint16_t(x);
  }
  return dst;
}

plan make_plan(instr in, order o) {
  const auto& f = info(in);
  plan p;
  const unsigned groups = f.k / 4, terms = f.sparse ? 2 * groups : f.k;
  const unsigned wa = bits_of(f.a), wb = bits_of(f.b);
  if (f.sparse) {
    p.a_dst = by_word(f.wave * f.a_vgprs, wa, f.a_vgprs, f.wave, o, std::size_t(f.m) * terms, [&](std::size_t x) {
      const unsigned i = unsigned(x / terms), t = unsigned(x % terms);
      return a_slot_loc(in, i, t / 2, t % 2);
    });
    for (unsigned key = 0; key < f.index_keys; ++key) {
      p.fields.emplace_back();
      for (unsigned i = 0; i < f.m; ++i)
        for (unsigned g = 0; g < groups; ++g) {
          const reg_loc at = index_field_loc(in, i, g, key);
          if (at.bit_hi - at.bit_lo != 3) throw std::logic_error("isa::execute: index fields must be 4 bits");
          p.fields.back().push_back({word_at(at, 1, f.wave, o), std::uint8_t(at.bit_lo)});
        }
    }
  } else {
    p.a_dst = by_word(f.wave * f.a_vgprs, wa, f.a_vgprs, f.wave, o, std::size_t(f.m) * f.k, [&](std::size_t x) {
      return a_locs(in, unsigned(x / f.k), unsigned(x % f.k)).front();
    });
  }
  p.b_dst = by_word(f.wave * f.b_vgprs, wb, f.b_vgprs, f.wave, o, std::size_t(f.k) * f.n, [&](std::size_t x) {
    return b_locs(in, unsigned(x / f.n), unsigned(x % f.n)).front();
  });
  std::vector<bool> covered(std::size_t(f.wave) * f.d_vgprs, false);
  for (unsigned i = 0; i < f.m; ++i)
    for (unsigned j = 0; j < f.n; ++j) {
      const reg_loc at = d_loc(in, i, j);
      if (at.bit_hi - at.bit_lo + 1 != bits_of(f.d) || at.bit_lo % bits_of(f.d) != 0)
        throw std::logic_error("isa::execute: a C/D element is not aligned to its width");
      p.d_word.push_back(word_at(at, f.d_vgprs, f.wave, o));
      p.d_lo.push_back(std::uint8_t(at.bit_lo));
      covered[p.d_word.back()] = true;
    }
  // D is written element by element; every word must be one, or the rest of D would keep stale bits.
  if (std::find(covered.begin(), covered.end(), false) != covered.end())
    throw std::logic_error("isa::execute: the C/D elements do not cover every D word");
  return p;
}

const plan& plan_of(instr in, order o) {
  static const std::vector<plan> plans = [] {
    std::vector<plan> v(2 * (all_instrs.size() + f16_d_instrs.size()));
    for (const auto& list : {std::span<const instr>(all_instrs), std::span<const instr>(f16_d_instrs)})
      for (instr i : list)
        for (order x : {order::lanes, order::rows}) v[2 * std::size_t(i) + std::size_t(x)] = make_plan(i, x);
    return v;
  }();
  return plans[2 * std::size_t(in) + std::size_t(o)];
}

// element_value of every code of a 4- or 8-bit format, per signedness (integers) or once (floats).
const std::vector<double>& values_of(elem e, bool is_signed) {
  static const auto tables = [] {
    std::vector<std::vector<double>> t(2 * 8);
    for (elem x : {elem::iu4, elem::iu8, elem::fp8, elem::bf8})
      for (bool sg : {false, true}) {
        auto& v = t[2 * std::size_t(x) + sg];
        v.resize(std::size_t(1) << bits_of(x));
        for (std::uint32_t code = 0; code < v.size(); ++code) v[code] = element_value(x, code, sg);
      }
    return t;
  }();
  return tables[2 * std::size_t(e) + is_signed];
}

// The same tables as float for the integer formats (iu4, iu8: every value an integer of magnitude <= 255, exact).
const std::vector<float>& ivalues_of(elem e, bool is_signed) {
  static const auto tables = [] {
    std::vector<std::vector<float>> t(2 * 8);
    for (elem x : {elem::iu4, elem::iu8})
      for (bool sg : {false, true}) {
        const std::vector<double>& d = values_of(x, sg);
        t[2 * std::size_t(x) + sg].assign(d.begin(), d.end());
      }
    return t;
  }();
  return tables[2 * std::size_t(e) + is_signed];
}

// Decoders, one type per way of decoding (the kernel's template argument): a table of a 4- or 8-bit format, int32
// (integers) or double (fp8/bf8); f16 and bf16 computed from the code's fields (2^16-entry tables missed the cache).
// Exact: the value of every finite code is representable in double with the same sign, exponent and fraction. Inf and
// NaN keep their class (a NaN's payload does not matter: a NaN result is canonicalized).
struct int_table {
  static constexpr bool integer = true;
  const float* t;
  float operator()(std::uint32_t code) const { return t[code]; }
};
struct float_table {
  static constexpr bool integer = false;
  const double* t;
  double operator()(std::uint32_t code) const { return t[code]; }
};
struct f16_code {
  static constexpr bool integer = false;
  double operator()(std::uint32_t code) const {
    // Selects rather than branches (the codes are data: a branch per element mispredicts).
    const std::uint64_t sign = std::uint64_t(code >> 15 & 1u) << 63;
    const std::uint32_t e = code >> 10 & 0x1fu, m = code & 0x3ffu;
    const std::uint64_t de = e == 0x1fu ? 0x7ffu : e + (1023 - 15);
    const std::uint64_t normal = sign | de << 52 | std::uint64_t(m) << 42;
    const std::uint64_t subnormal = std::bit_cast<std::uint64_t>(double(m) * 0x1p-24) | sign;  // m * 2^-24, exact
    return std::bit_cast<double>(e == 0 ? subnormal : normal);
  }
};
struct bf16_code {
  static constexpr bool integer = false;
  double operator()(std::uint32_t code) const { return double(std::bit_cast<float>((code & 0xffffu) << 16)); }
};

// The MAC loops work on 16-byte vectors of the compiler's vector extension (SSE2 on every x86-64, NEON on arm64):
// four float or eight double vectors per 16-column row, held in registers across the term loop. Plain loops did not
// vectorize (the terms' B rows are picked through the index), and a 64-byte vector type was split through the stack.
typedef float f32x4 __attribute__((vector_size(16)));
typedef double f64x2 __attribute__((vector_size(16)));
template <class Vec, class T>
inline Vec load_vec(const T* p) {
  Vec v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

// Decodes every field of an operand's words into its slot (slot `elements` is the sink).
template <unsigned Width, class Dec, class V>
inline void decode_words(const std::uint32_t* words, std::size_t n_words, const std::uint16_t* dst, Dec dec, V* out) {
  constexpr unsigned per_word = 32 / Width;
  constexpr std::uint32_t mask = Width == 32 ? 0xffffffffu : (1u << Width) - 1u;
  for (std::size_t w = 0; w < n_words; ++w) {
    const std::uint32_t x = words[w];
    for (unsigned e = 0; e < per_word; ++e) out[dst[w * per_word + e]] = dec((x >> (e * Width)) & mask);
  }
}

// D = C + A * B for one instruction shape: M = N = 16, K, sparse or dense, A/B element widths and decoders.
// Integer forms sum in int32 (|a|,|b| <= 255 and at most 64 terms give |sum| <= 64 * 255 * 255 < 2^31) and add C in
// int64, clamped or wrapped to int32: accumulator semantics (the exact sum), without a conversion per product. Float
// forms sum in fp64 from C, terms in (g, s) / k order, each product exact in fp64, rounded once to f32; a NaN result
// is the canonical quiet NaN (payload and sign are not modelled: README assumption 3).
// HalfD: binary16 C/D (f16_d_instrs), the binary32 accumulator of assumption 7 per element, D's halves written in
// place (d_shift: 16 for gfx11's op_sel[2] = 1).
template <unsigned K, bool Sparse, unsigned WA, unsigned WB, bool HalfD, class DA, class DB>
void run_planned(const plan& p, unsigned wave, unsigned a_vgprs, unsigned b_vgprs, const std::uint32_t* aw,
                 const std::uint32_t* bw, const std::uint32_t* cw, const std::uint32_t* iw, unsigned index_key,
                 bool clamp, unsigned d_shift, DA av, DB bv, std::uint32_t* dw) {
  static_assert(DA::integer == DB::integer);
  constexpr bool integer = DA::integer;
  constexpr unsigned M = 16, N = 16, groups = K / 4, terms = Sparse ? 2 * groups : K;
  using V = std::conditional_t<integer, float, double>;
  V b[K * N + 1];
  decode_words<WB>(bw, std::size_t(wave) * b_vgprs, p.b_dst.data(), bv, b);
  V a[M * terms + 1];
  decode_words<WA>(aw, std::size_t(wave) * a_vgprs, p.a_dst.data(), av, a);
  for (unsigned i = 0; i < M; ++i) {
    unsigned krow[terms];
    if constexpr (Sparse) {
      const field_cell* fields = p.fields[index_key].data() + i * groups;
      for (unsigned g = 0; g < groups; ++g) {
        const std::uint32_t nibble = iw[fields[g].word] >> fields[g].lo;
        krow[2 * g] = 4 * g + (nibble & 3u);
        krow[2 * g + 1] = 4 * g + ((nibble >> 2) & 3u);
      }
    } else {
      for (unsigned k = 0; k < K; ++k) krow[k] = k;
    }
    const V* arow = a + i * terms;
    const std::uint16_t* dword = p.d_word.data() + i * N;
    if constexpr (integer) {
      // The products and partial sums are integers below 2^24 in magnitude (|a|,|b| <= 255, at most 64 terms: 64 *
      // 255 * 255 < 2^22), so a float sum is exact and SIMD-wide on any x86-64 (SSE2 has no 32-bit multiply).
      f32x4 sum[N / 4] = {};
      for (unsigned t = 0; t < terms; ++t) {
        const float* bk = b + krow[t] * N;
        const float x = arow[t];
        for (unsigned q = 0; q < N / 4; ++q) sum[q] += x * load_vec<f32x4>(bk + 4 * q);
      }
      for (unsigned j = 0; j < N; ++j) {
        std::int64_t acc = std::int64_t(std::int32_t(cw[dword[j]])) + std::int64_t(sum[j / 4][j % 4]);
        if (clamp) acc = std::clamp<std::int64_t>(acc, std::numeric_limits<std::int32_t>::min(),
                                                  std::numeric_limits<std::int32_t>::max());
        dw[dword[j]] = std::uint32_t(std::uint64_t(acc));
      }
    } else if constexpr (HalfD) {
      const std::uint8_t* dlo = p.d_lo.data() + i * N;
      float acc[N];
      for (unsigned j = 0; j < N; ++j)
        acc[j] = float(tp::ref::fp16_to_double(std::uint16_t(cw[dword[j]] >> (dlo[j] + d_shift))));
      for (unsigned t = 0; t < terms; ++t) {
        const double* bk = b + krow[t] * N;
        for (unsigned j = 0; j < N; ++j) acc[j] += float(arow[t] * bk[j]);  // exact product, one binary32 rounding
      }
      for (unsigned j = 0; j < N; ++j) {
        const unsigned sh = dlo[j] + d_shift;
        dw[dword[j]] = (dw[dword[j]] & ~(0xffffu << sh)) | f16_result(acc[j]) << sh;
      }
    } else {
      f64x2 acc[N / 2];
      for (unsigned j = 0; j < N; ++j) acc[j / 2][j % 2] = double(std::bit_cast<float>(cw[dword[j]]));
      for (unsigned t = 0; t < terms; ++t) {
        const double* bk = b + krow[t] * N;
        const double x = arow[t];
        for (unsigned q = 0; q < N / 2; ++q) acc[q] += x * load_vec<f64x2>(bk + 2 * q);
      }
      for (unsigned j = 0; j < N; ++j) {
        const double r = acc[j / 2][j % 2];
        dw[dword[j]] = r != r ? 0x7fc00000u : std::bit_cast<std::uint32_t>(float(r));
      }
    }
  }
}

// The instruction's shape as template arguments.
template <unsigned WA, unsigned WB, bool HalfD = false, class DA, class DB>
void run_shape(const instr_info& f, const plan& p, const std::uint32_t* aw, const std::uint32_t* bw,
               const std::uint32_t* cw, const std::uint32_t* iw, const modifiers& m, DA av, DB bv,
               std::uint32_t* dw) {
  const auto go = [&]<unsigned K, bool Sparse>() {
    run_planned<K, Sparse, WA, WB, HalfD>(p, f.wave, f.a_vgprs, f.b_vgprs, aw, bw, cw, iw, m.index_key, m.clamp,
                                          16 * m.d_half, av, bv, dw);
  };
  if (f.m != 16 || f.n != 16) throw std::logic_error("isa::execute: the kernel assumes M = N = 16");
  if (f.sparse && f.k == 32) return go.template operator()<32, true>();
  if (f.sparse && f.k == 64) return go.template operator()<64, true>();
  if (!f.sparse && f.k == 16) return go.template operator()<16, false>();
  if (!f.sparse && f.k == 32) return go.template operator()<32, false>();
  throw std::logic_error("isa::execute: no kernel for K = " + std::to_string(f.k));
}

void execute_planned(instr in, order o, const std::uint32_t* aw, const std::uint32_t* bw, const std::uint32_t* cw,
                     const std::uint32_t* iw, const modifiers& m, std::uint32_t* dw) {
  const auto& f = info(in);
  check_modifiers(in, m);
  const plan& p = plan_of(in, o);
  const bool sa = f.signedness_flags ? m.a_signed : true, sb = f.signedness_flags ? m.b_signed : true;
  const auto ints = [&](elem e, bool sg) { return int_table{ivalues_of(e, sg).data()}; };
  const auto floats = [&](elem e) { return float_table{values_of(e, true).data()}; };
  using E = elem;
  if (f.a == E::iu4 && f.b == E::iu4) return run_shape<4, 4>(f, p, aw, bw, cw, iw, m, ints(f.a, sa), ints(f.b, sb), dw);
  if (f.a == E::iu8 && f.b == E::iu8) return run_shape<8, 8>(f, p, aw, bw, cw, iw, m, ints(f.a, sa), ints(f.b, sb), dw);
  if ((f.a == E::fp8 || f.a == E::bf8) && (f.b == E::fp8 || f.b == E::bf8))
    return run_shape<8, 8>(f, p, aw, bw, cw, iw, m, floats(f.a), floats(f.b), dw);
  if (f.a == E::f16 && f.b == E::f16 && f.d == E::f16)
    return run_shape<16, 16, true>(f, p, aw, bw, cw, iw, m, f16_code{}, f16_code{}, dw);
  if (f.a == E::f16 && f.b == E::f16) return run_shape<16, 16>(f, p, aw, bw, cw, iw, m, f16_code{}, f16_code{}, dw);
  if (f.a == E::bf16 && f.b == E::bf16) return run_shape<16, 16>(f, p, aw, bw, cw, iw, m, bf16_code{}, bf16_code{}, dw);
  throw std::logic_error("isa::execute: no kernel for " + std::string(f.name));
}

}  // namespace

void execute_words(instr in, std::span<const std::uint32_t> aw, std::span<const std::uint32_t> bw,
                   std::span<const std::uint32_t> cw, std::span<const std::uint32_t> iw, const modifiers& m,
                   std::span<std::uint32_t> dw) {
  const auto& f = info(in);
  const auto check_words = [&](std::size_t got, unsigned vgprs, const char* what) {
    if (got != std::size_t(f.wave) * vgprs)
      throw std::invalid_argument(std::string(what) + " registers must be " + std::to_string(f.wave) + " lanes x " +
                                  std::to_string(vgprs) + " VGPRs for " + std::string(f.name));
  };
  check_words(aw.size(), f.a_vgprs, "A");
  check_words(bw.size(), f.b_vgprs, "B");
  check_words(cw.size(), f.d_vgprs, "C/D");
  check_words(dw.size(), f.d_vgprs, "D");
  if (f.sparse) check_words(iw.size(), 1, "index");
  execute_planned(in, order::lanes, aw.data(), bw.data(), cw.data(), iw.data(), m, dw.data());
}

void execute_rows(instr in, const std::uint32_t* a, const std::uint32_t* b, const std::uint32_t* c,
                  const std::uint32_t* index, const modifiers& m, std::uint32_t* d) {
  execute_planned(in, order::rows, a, b, c, index, m, d);
}

wave_regs execute(instr in, const wave_regs& a, const wave_regs& b, const wave_regs& c, const wave_regs& index,
                  const modifiers& m) {
  const auto& f = info(in);
  check_modifiers(in, m);
  check_regs(a, f.a_vgprs, "A", in);
  check_regs(b, f.b_vgprs, "B", in);
  check_regs(c, f.d_vgprs, "C/D", in);
  if (f.sparse) check_regs(index, 1, "index", in);
  wave_regs d = c;  // the bits no element of D covers keep C's (isa.h)
  execute_words(in, a.words(), b.words(), c.words(), index.words(), m, d.words());
  return d;
}

}  // namespace tp::ref::isa
