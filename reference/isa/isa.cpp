// Register file, placement and execution of the instruction model.
#include <algorithm>
#include <bit>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <string>

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

// The accumulation rule shared by the sparse and dense forms (see isa.h and README.md: an assumption).
struct accumulator {
  bool integer;
  bool clamp;
  std::int64_t iacc = 0;
  double facc = 0;

  accumulator(instr in, std::uint32_t c_code, bool clamp_) : integer(is_integer(info(in).d)), clamp(clamp_) {
    start_from(c_code);
  }
  void start_from(std::uint32_t c_code) {
    if (integer) iacc = std::int32_t(c_code);
    else facc = double(std::bit_cast<float>(c_code));
  }
  void add(double a, double b) {
    if (integer) iacc += std::int64_t(a) * std::int64_t(b);  // |a|,|b| <= 255: exact in double and int64
    else facc += a * b;                                       // product exact in fp64 for every A/B format here
  }
  std::uint32_t result() const {
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

void place_d(instr in, const code_matrix& d, wave_regs& d_regs) {
  const auto& f = info(in);
  check_shape(d, f.m, f.n, "C/D", in);
  check_regs(d_regs, f.d_vgprs, "C/D", in);
  for (unsigned i = 0; i < f.m; ++i)
    for (unsigned j = 0; j < f.n; ++j) d_regs.set(d_loc(in, i, j), d(i, j));
}

code_matrix read_d(instr in, const wave_regs& d_regs) {
  const auto& f = info(in);
  check_regs(d_regs, f.d_vgprs, "C/D", in);
  code_matrix d(f.m, f.n);
  for (unsigned i = 0; i < f.m; ++i)
    for (unsigned j = 0; j < f.n; ++j) d(i, j) = d_regs.get(d_loc(in, i, j));
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
  const code_matrix bm = read_b(in, b), cm = read_d(in, c);
  const code_matrix dm = f.sparse ? execute_sparse(in, read_sparse_a(in, a, index, m.index_key), bm, cm, m)
                                  : execute_dense(in, read_dense_a(in, a), bm, cm, m);
  wave_regs d = make_d_regs(in);
  place_d(in, dm, d);
  return d;
}

namespace {

// execute() sits in the inner loop of the AMDGPU simulator and the differential tools (one call per simulated matrix
// instruction), where execute_by_parts spends its time asking the layout functions for the same cells and decoding
// the same codes over and over. The plan below is their answers, computed once per instruction: the cell of every
// operand element (the first replica, as read_dense_a / read_b read), and element_value of every code of the 4-, 8-
// and 16-bit formats. The arithmetic is execute_sparse's / execute_dense's: the same accumulator, the same order.
// tests/isa checks execute() against execute_by_parts on random registers for every instruction and modifier.
struct cell {
  std::uint16_t word;  // lane * vgprs + vgpr in wave_regs::words()
  std::uint8_t lo;
  std::uint32_t mask;
  std::uint32_t of(std::span<const std::uint32_t> w) const { return (w[word] >> lo) & mask; }
};
cell cell_of(const reg_loc& at, unsigned vgprs) {
  return {std::uint16_t(at.lane * vgprs + at.vgpr), std::uint8_t(at.bit_lo), mask_of(at)};
}

struct plan {
  std::vector<cell> a;                    // sparse: [(i*groups + g)*2 + s]; dense: [i*k + kk]
  std::vector<std::vector<cell>> fields;  // sparse: per index_key, [i*groups + g]
  std::vector<cell> b;                    // [kk*n + j]
  std::vector<cell> d;                    // [i*n + j], also C
};

plan make_plan(instr in) {
  const auto& f = info(in);
  plan p;
  if (f.sparse) {
    for (unsigned i = 0; i < f.m; ++i)
      for (unsigned g = 0; g < f.k / 4; ++g)
        for (unsigned s = 0; s < 2; ++s) p.a.push_back(cell_of(a_slot_loc(in, i, g, s), f.a_vgprs));
    for (unsigned key = 0; key < f.index_keys; ++key) {
      p.fields.emplace_back();
      for (unsigned i = 0; i < f.m; ++i)
        for (unsigned g = 0; g < f.k / 4; ++g) p.fields.back().push_back(cell_of(index_field_loc(in, i, g, key), 1));
    }
  } else {
    for (unsigned i = 0; i < f.m; ++i)
      for (unsigned k = 0; k < f.k; ++k) p.a.push_back(cell_of(a_locs(in, i, k).front(), f.a_vgprs));
  }
  for (unsigned k = 0; k < f.k; ++k)
    for (unsigned j = 0; j < f.n; ++j) p.b.push_back(cell_of(b_locs(in, k, j).front(), f.b_vgprs));
  for (unsigned i = 0; i < f.m; ++i)
    for (unsigned j = 0; j < f.n; ++j) p.d.push_back(cell_of(d_loc(in, i, j), f.d_vgprs));
  return p;
}

const plan& plan_of(instr in) {
  static const std::vector<plan> plans = [] {
    std::vector<plan> v(all_instrs.size());
    for (instr i : all_instrs) v[std::size_t(i)] = make_plan(i);
    return v;
  }();
  return plans[std::size_t(in)];
}

// element_value of every code of a 4- or 8-bit format, per signedness (integers) or once (floats).
const std::vector<double>& values_of(elem e, bool is_signed) {
  static const auto tables = [] {
    std::vector<std::vector<double>> t(2 * 8);
    // f16/bf16 are computed (f16_value / bf16_value below): their 2^16-entry tables cost ~260k element_value calls
    // the first time a matrix instruction ran, inside a probe's timed first batch.
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

// The 16-bit float formats computed from the code's fields rather than read from 2^16-entry tables (512 KiB each:
// their lookups missed the cache in the simulator's v_swmmac_f32_16x16x32_f16). Exact: the
// value of every finite code is representable in double with the same sign, exponent and fraction. Inf and NaN keep
// their class (a NaN's payload does not matter: accumulator::result canonicalizes a NaN result).
inline double f16_value(std::uint32_t code) {
  const std::uint64_t sign = std::uint64_t(code >> 15 & 1u) << 63;
  const std::uint32_t e = code >> 10 & 0x1fu, m = code & 0x3ffu;
  if (e == 0) {
    const double v = double(m) * 0x1p-24;  // subnormal (or zero): m * 2^-24, exact
    return std::bit_cast<double>(std::bit_cast<std::uint64_t>(v) | sign);
  }
  const std::uint64_t de = e == 0x1fu ? 0x7ffu : e - 15 + 1023;
  return std::bit_cast<double>(sign | de << 52 | std::uint64_t(m) << 42);
}
inline double bf16_value(std::uint32_t code) { return double(std::bit_cast<float>((code & 0xffffu) << 16)); }
// One operand format's decoder for execute_words: the computed forms above, or the table.
struct decoder {
  elem e;
  const double* table;  // values_of(e): empty (unused) for f16/bf16
  double operator()(std::uint32_t code) const {
    if (e == elem::f16) return f16_value(code);
    if (e == elem::bf16) return bf16_value(code);
    return table[code];
  }
};

// The same tables as int32 for the integer formats (iu4, iu8: every value an integer of magnitude <= 255).
const std::vector<std::int32_t>& ivalues_of(elem e, bool is_signed) {
  static const auto tables = [] {
    std::vector<std::vector<std::int32_t>> t(2 * 8);
    for (elem x : {elem::iu4, elem::iu8})
      for (bool sg : {false, true}) {
        const std::vector<double>& d = values_of(x, sg);
        t[2 * std::size_t(x) + sg].assign(d.begin(), d.end());
      }
    return t;
  }();
  return tables[2 * std::size_t(e) + is_signed];
}

}  // namespace

void execute_words(instr in, std::span<const std::uint32_t> aw, std::span<const std::uint32_t> bw,
                   std::span<const std::uint32_t> cw, std::span<const std::uint32_t> iw, const modifiers& m,
                   std::span<std::uint32_t> dw) {
  const auto& f = info(in);
  check_modifiers(in, m);
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
  const plan& p = plan_of(in);
  const bool sa = f.signedness_flags ? m.a_signed : true, sb = f.signedness_flags ? m.b_signed : true;
  const decoder av{f.a, values_of(f.a, sa).data()};
  const decoder bv{f.b, values_of(f.b, sb).data()};
  // B decoded once, row k contiguous over j: the j loop below runs over the 16 columns of one row.
  if (f.k > 64 || f.n != 16) throw std::logic_error("isa::execute: the tables assume K <= 64, N = 16");
  const bool integer = is_integer(f.d);
  // Integer forms in int32 (the products and their row sums are exact there: |a|,|b| <= 255 and at most 64 terms give
  // |sum| <= 64 * 255 * 255 < 2^31), added to C in int64 afterwards: the same exact sum as accumulator::add's, without
  // a double-to-integer conversion per product.
  const auto small_int = [](elem e) { return e == elem::iu4 || e == elem::iu8; };
  if (integer && !(small_int(f.a) && small_int(f.b)))
    throw std::logic_error("isa::execute: integer tables assume 4- or 8-bit A/B");
  double brow[64 * 16];
  std::int32_t ibrow[64 * 16];
  if (integer) {
    const std::vector<std::int32_t>& bi = ivalues_of(f.b, sb);
    for (std::size_t x = 0; x < p.b.size(); ++x) ibrow[x] = bi[p.b[x].of(bw)];
  } else {
    for (std::size_t x = 0; x < p.b.size(); ++x) brow[x] = bv(p.b[x].of(bw));
  }
  std::fill(dw.begin(), dw.end(), 0u);  // as make_d_regs: every D word is then written through its cells
  const unsigned groups = f.k / 4;
  const unsigned terms = f.sparse ? 2 * groups : f.k;
  // The accumulator's rule (start from C, sum the products in term order, round once), with its instruction-wide
  // facts (integer or float, clamp) looked up once here rather than per cell.
  const accumulator proto(in, 0u, m.clamp);
  for (unsigned i = 0; i < f.m; ++i) {
    // Row i of A: its values, and (sparse) the K position each pairs with.
    double arow[64];
    std::int32_t iarow[64];
    unsigned krow[64];
    if (integer) {
      // The A codes through the integer table; arow is not read on this path.
      const std::vector<std::int32_t>& ai = ivalues_of(f.a, sa);
      if (f.sparse) {
        const std::vector<cell>& fields = p.fields[m.index_key];
        for (unsigned g = 0; g < groups; ++g) {
          const std::uint32_t nibble = fields[i * groups + g].of(iw);
          for (unsigned s = 0; s < 2; ++s) {
            iarow[2 * g + s] = ai[p.a[(i * groups + g) * 2 + s].of(aw)];
            krow[2 * g + s] = 4 * g + ((nibble >> (2 * s)) & 3u);
          }
        }
      } else {
        for (unsigned k = 0; k < f.k; ++k) {
          iarow[k] = ai[p.a[i * f.k + k].of(aw)];
          krow[k] = k;
        }
      }
    } else if (f.sparse) {
      const std::vector<cell>& fields = p.fields[m.index_key];
      for (unsigned g = 0; g < groups; ++g) {
        const std::uint32_t nibble = fields[i * groups + g].of(iw);
        for (unsigned s = 0; s < 2; ++s) {
          arow[2 * g + s] = av(p.a[(i * groups + g) * 2 + s].of(aw));
          krow[2 * g + s] = 4 * g + ((nibble >> (2 * s)) & 3u);
        }
      }
    } else {
      for (unsigned k = 0; k < f.k; ++k) {
        arow[k] = av(p.a[i * f.k + k].of(aw));
        krow[k] = k;
      }
    }
    // One accumulator per column of row i, each summed in accumulator::add's order (terms ascending), the two forms
    // spelled out so the loops carry no branch; the columns are independent, so the j loop vectorizes.
    std::int64_t iacc[16];
    double facc[16];
    for (unsigned j = 0; j < f.n; ++j) {
      accumulator start = proto;
      start.start_from(p.d[i * f.n + j].of(cw));
      iacc[j] = start.iacc;
      facc[j] = start.facc;
    }
    // The integer/float choice outside the term loop, so each j loop is straight-line and vectorizes.
    if (integer) {
      std::int32_t isum[16] = {};
      for (unsigned t = 0; t < terms; ++t) {
        const std::int32_t* bk = ibrow + krow[t] * f.n;
        const std::int32_t a = iarow[t];
        for (unsigned j = 0; j < 16; ++j) isum[j] += a * bk[j];
      }
      for (unsigned j = 0; j < 16; ++j) iacc[j] += isum[j];
    } else {
      for (unsigned t = 0; t < terms; ++t) {
        const double* bk = brow + krow[t] * f.n;
        const double a = arow[t];
        for (unsigned j = 0; j < 16; ++j) facc[j] += a * bk[j];
      }
    }
    for (unsigned j = 0; j < f.n; ++j) {
      const cell& dc = p.d[i * f.n + j];
      accumulator acc = proto;
      acc.iacc = iacc[j];
      acc.facc = facc[j];
      dw[dc.word] = (dw[dc.word] & ~(dc.mask << dc.lo)) | (acc.result() << dc.lo);
    }
  }
}

wave_regs execute(instr in, const wave_regs& a, const wave_regs& b, const wave_regs& c, const wave_regs& index,
                  const modifiers& m) {
  const auto& f = info(in);
  check_modifiers(in, m);
  check_regs(a, f.a_vgprs, "A", in);
  check_regs(b, f.b_vgprs, "B", in);
  check_regs(c, f.d_vgprs, "C/D", in);
  if (f.sparse) check_regs(index, 1, "index", in);
  wave_regs d = make_d_regs(in);
  execute_words(in, a.words(), b.words(), c.words(), index.words(), m, d.words());
  return d;
}

}  // namespace tp::ref::isa
