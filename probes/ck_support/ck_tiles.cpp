#include "probes/ck_support/ck_tiles.h"

#include "probes/common/parallel.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdio>
#include <map>
#include <stdexcept>
#include <tuple>
#include <ctime>

#include "fixtures/loader/fixture.h"
#include "reference/codecs.h"
#include "reference/int_gemm.h"
#include "reference/matrix.h"
#include "reference/pk_int4.h"
#include "reference/sparse24.h"

namespace tp::ck_probe {

namespace {
constexpr unsigned kPairs[6][2] = {{0, 1}, {0, 2}, {0, 3}, {1, 2}, {1, 3}, {2, 3}};

std::string fmt_hex(std::uint32_t v, int digits) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%0*x", digits, v);
  return buf;
}
std::string fmt_num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.9g", v);
  return buf;
}

// Codes of the small exact integers the generators draw (-64..64), per type, encoded once with reference/'s encoders:
// the fuzz loop draws thousands of values per tile.
constexpr int kCodeMin = -64, kCodeMax = 64;
struct code_tables {
  std::int32_t fp8[kCodeMax - kCodeMin + 1], fp16[kCodeMax - kCodeMin + 1];
  double fp8_value[256];
  std::vector<double> fp16_value;  // 65536 entries
  code_tables() : fp16_value(65536) {
    for (int v = kCodeMin; v <= kCodeMax; ++v) {
      fp8[v - kCodeMin] = ref::double_to_fp8_e4m3(v);
      fp16[v - kCodeMin] = ref::double_to_fp16(v);
    }
    for (unsigned c = 0; c < 256; ++c) fp8_value[c] = ref::fp8_e4m3_to_double(std::uint8_t(c));
    for (unsigned c = 0; c < 65536; ++c) fp16_value[c] = ref::fp16_to_double(std::uint16_t(c));
  }
};
const code_tables& tables() {
  static const code_tables t;
  return t;
}

// The code of the exact small integer `value` in type t.
std::int32_t code_for(api::dtype t, int value) {
  if (t == api::dtype::int8 || t == api::dtype::pk_int4) return value;
  if (value < kCodeMin || value > kCodeMax)
    return t == api::dtype::fp8_e4m3 ? ref::double_to_fp8_e4m3(value) : ref::double_to_fp16(value);
  return t == api::dtype::fp8_e4m3 ? tables().fp8[value - kCodeMin] : tables().fp16[value - kCodeMin];
}

// The values of a float type's codes (fp8 or fp16), from reference/'s decoders: code c is values[c & mask]. Taken
// once per tile, so the per-element work of the census and the oracle is one load.
struct float_decode {
  const double* values;
  std::uint32_t mask;
  double operator()(std::int32_t code) const { return values[std::uint32_t(code) & mask]; }
};
float_decode float_decode_of(api::dtype t) {
  return t == api::dtype::fp8_e4m3 ? float_decode{tables().fp8_value, 0xffu}
                                   : float_decode{tables().fp16_value.data(), 0xffffu};
}
}  // namespace

const char* group_kind_name(group_kind k) {
  static const char* names[] = {"(0,1)", "(0,2)", "(0,3)", "(1,2)", "(1,3)", "(2,3)",
                                "(0)",   "(1)",   "(2)",   "(3)",   "none"};
  return names[unsigned(k)];
}
const char* group_kind_id(group_kind k) {
  static const char* names[] = {"pair01", "pair02", "pair03", "pair12", "pair13", "pair23",
                                "single0", "single1", "single2", "single3", "none"};
  return names[unsigned(k)];
}
bool convention_neutral(group_kind k) {
  return std::find(convention_neutral_kinds.begin(), convention_neutral_kinds.end(), k) !=
         convention_neutral_kinds.end();
}

double value_of(api::dtype t, std::int32_t code) {
  return api::is_integer(t) ? double(code) : float_decode_of(t)(code);
}
// What CK's scan keeps. fp8 is CK's default build (CK_TILE_USE_CUSTOM_DATA_TYPE 0): fp8_t is the raw _BitInt(8) and
// `static_cast<float>(a) != 0.0f` tests the code, so 0x80 (-0) is a survivor (it contributes -0 to D, nothing). fp16
// is _Float16, whose -0 converts to -0.0f == 0: not a survivor.
bool fp8_code_survives(std::int32_t code) { return (code & 0xFF) != 0; }
bool survives(api::dtype t, std::int32_t code) {
  if (t == api::dtype::fp8_e4m3) return fp8_code_survives(code);
  return api::is_integer(t) ? ref::survives(std::int64_t(code)) : ref::survives(value_of(t, code));
}
unsigned survivor_mask(const tile& t, unsigned row, unsigned group) {
  unsigned m = 0;
  const std::int32_t* g = t.a.data() + row * t.shape.k + 4 * group;
  for (unsigned p = 0; p < 4; ++p)
    if (survives(t.shape.type, g[p])) m |= 1u << p;
  return m;
}

std::vector<std::uint8_t> physical_a(const tile& t) {
  const unsigned k = t.shape.k;
  std::vector<std::uint8_t> out;
  out.reserve(t.shape.operand_bytes());
  if (t.shape.type == api::dtype::pk_int4) {
    std::vector<std::int8_t> v(t.a.begin(), t.a.end());
    return ref::pack_int4(v, ref::nibble_order::ck_logical);  // rows of K/2 bytes, back to back
  }
  for (unsigned i = 0; i < 16 * k; ++i) {
    const std::uint32_t c = std::uint32_t(t.a[i]);
    out.push_back(std::uint8_t(c));
    if (t.shape.type == api::dtype::fp16) out.push_back(std::uint8_t(c >> 8));
  }
  return out;
}

void append_physical(const tile& t, std::vector<std::uint8_t>& a, std::vector<std::uint8_t>& b) {
  const std::size_t bytes = t.shape.operand_bytes(), a0 = a.size(), b0 = b.size();
  a.resize(a0 + bytes);
  b.resize(b0 + bytes);
  write_physical(t, a.data() + a0, b.data() + b0);
}

void write_physical(const tile& t, std::uint8_t* pa, std::uint8_t* pb) {
  const unsigned k = t.shape.k;
  // B goes column-major (K contiguous per column), the same packing along K as A's rows.
  switch (t.shape.type) {
    case api::dtype::pk_int4:  // CK's order: element 2i in the high nibble
      for (unsigned i = 0; i < 16 * k / 2; ++i)
        pa[i] = std::uint8_t((t.a[2 * i] & 15) << 4 | (t.a[2 * i + 1] & 15));
      for (unsigned j = 0; j < 16; ++j)
        for (unsigned kk = 0; kk < k; kk += 2)
          pb[(j * k + kk) / 2] = std::uint8_t((t.b[kk * 16 + j] & 15) << 4 | (t.b[(kk + 1) * 16 + j] & 15));
      break;
    case api::dtype::fp16:
      for (unsigned i = 0; i < 16 * k; ++i) {
        pa[2 * i] = std::uint8_t(t.a[i]);
        pa[2 * i + 1] = std::uint8_t(std::uint32_t(t.a[i]) >> 8);
      }
      for (unsigned j = 0; j < 16; ++j)
        for (unsigned kk = 0; kk < k; ++kk) {
          const std::uint32_t c = std::uint32_t(t.b[kk * 16 + j]);
          pb[2 * (j * k + kk)] = std::uint8_t(c);
          pb[2 * (j * k + kk) + 1] = std::uint8_t(c >> 8);
        }
      break;
    case api::dtype::int8:
    case api::dtype::fp8_e4m3:
      for (unsigned i = 0; i < 16 * k; ++i) pa[i] = std::uint8_t(t.a[i]);
      for (unsigned j = 0; j < 16; ++j)
        for (unsigned kk = 0; kk < k; ++kk) pb[j * k + kk] = std::uint8_t(t.b[kk * 16 + j]);
      break;
  }
}

std::vector<std::uint8_t> physical_b(const tile& t) {
  const unsigned k = t.shape.k;
  std::vector<std::int32_t> col_major(16 * k);
  for (unsigned kk = 0; kk < k; ++kk)
    for (unsigned j = 0; j < 16; ++j) col_major[j * k + kk] = t.b[kk * 16 + j];
  tile tmp{t.shape, col_major, {}};
  return physical_a(tmp);  // the same packing along K, now per column
}

expected_d oracle(const tile& t) {
  expected_d e;
  oracle_into(e, t);
  return e;
}

void oracle_into(expected_d& e, const tile& t) {
  const unsigned k = t.shape.k;
  e.d.assign(256, 0.0);
  e.bound.assign(256, 0.0);
  if (api::is_integer(t.shape.type)) {
    thread_local std::vector<std::int8_t> a, b;  // reused: the fuzz loop calls this for every tile
    a.assign(t.a.begin(), t.a.end());
    b.assign(t.b.begin(), t.b.end());
    const ref::matrix_view<std::int8_t> av(a.data(), 16, k), bv(b.data(), k, 16);
    const auto d = t.shape.type == api::dtype::pk_int4 ? ref::int4_gemm(av, bv) : ref::int8_gemm(av, bv);
    for (unsigned i = 0; i < 256; ++i) e.d[i] = double(ref::wrap_int32(d.data[i]));
    return;
  }
  thread_local std::vector<double> a, b;
  a.resize(16 * k);
  b.resize(16 * k);
  const float_decode value = float_decode_of(t.shape.type);
  for (unsigned i = 0; i < 16 * k; ++i) {
    a[i] = value(t.a[i]);
    b[i] = value(t.b[i]);
  }
  const ref::matrix_view<double> av(a.data(), 16, k), bv(b.data(), k, 16);
  const auto both = ref::float_gemm_with_abs(av, bv);
  const auto& d = both.d;
  const auto& mag = both.magnitude;
  // Every product is exact in f32; an f32 accumulation of K of them, in any order and with any fusing, is within
  // gamma_K = K*u/(1-K*u) (u = 2^-24) of the exact sum, relative to sum |a||b|. The fp64 oracle adds K*2^-53.
  const double u = std::ldexp(1.0, -24), gamma = k * u / (1.0 - k * u), own = k * std::ldexp(1.0, -53);
  for (unsigned i = 0; i < 256; ++i) {
    e.d[i] = d.data[i];
    e.bound[i] = (gamma + own) * mag.data[i];
  }
}

std::vector<std::int32_t> formula_b(api::tile_shape s) {
  std::vector<std::int32_t> b(16 * s.k);
  for (unsigned kk = 0; kk < s.k; ++kk)
    for (unsigned n = 0; n < 16; ++n) b[kk * 16 + n] = code_for(s.type, int((5 * kk + 3 * n) % 16) - 8);
  return b;
}

std::uint64_t fast_rng::below(std::uint64_t n) {
  switch (n) {  // the sizes the probes' class pools have
    case 1: return below<1>();
    case 4: return below<4>();
    case 7: return below<7>();
    case 11: return below<11>();
  }
  if (n == 0) throw std::logic_error("fast_rng::below(0)");
  const std::uint64_t limit = ~std::uint64_t{0} - (~std::uint64_t{0} % n + 1) % n;
  for (;;) {
    const std::uint64_t x = next();
    if (x <= limit) return x % n;
  }
}

namespace {
// code_for's table for values -64..64 (entry v - kCodeMin); nullptr for the integer types, whose codes are the values.
const std::int32_t* small_codes(api::dtype t) {
  if (api::is_integer(t)) return nullptr;
  return t == api::dtype::fp8_e4m3 ? tables().fp8 : tables().fp16;
}
}  // namespace

void fill_random_b(std::vector<std::int32_t>& b, api::tile_shape s, fast_rng& r) {
  b.resize(16 * s.k);
  const std::int32_t* codes = small_codes(s.type);
  if (s.type == api::dtype::pk_int4) {
    for (auto& x : b) x = std::int32_t(r.range<-8, 7>());
  } else if (!codes) {
    for (auto& x : b) x = std::int32_t(r.range<-16, 16>());
  } else {
    for (auto& x : b) x = codes[r.range<-16, 16>() - kCodeMin];
  }
}

// CK's AdversarialGeneratedTile (docs/bugs/ck-sparse.md §11): group g of row m is case (m*groups + g) % 11; stored
// value 1 + ((13m + 5g + 3pos) % 14), negated when m+g+pos is odd. int4 keeps 1..7 positive and 1..8 negative, so -8
// and every high/low nibble pairing occur.
tile adversarial_tile(api::tile_shape s, unsigned kind_offset, const group_kinds* kinds) {
  tile t{s, std::vector<std::int32_t>(16 * s.k, 0), formula_b(s)};
  const unsigned groups = s.k / 4;
  for (unsigned m = 0; m < 16; ++m)
    for (unsigned g = 0; g < groups; ++g) {
      const unsigned n = m * groups + g + kind_offset;
      const unsigned mask = ref::survivor_mask(kinds ? (*kinds)[n % kinds->size()] : ref::all_group_kinds[n % 11]);
      for (unsigned pos = 0; pos < 4; ++pos) {
        if (!((mask >> pos) & 1u)) continue;
        const bool neg = (m + g + pos) % 2 == 1;
        int v = s.type == api::dtype::pk_int4 ? (neg ? 1 + int((13 * m + 5 * g + 3 * pos) % 8)
                                                     : 1 + int((13 * m + 5 * g + 3 * pos) % 7))
                                              : 1 + int((13 * m + 5 * g + 3 * pos) % 14);
        t.a[m * s.k + 4 * g + pos] = code_for(s.type, neg ? -v : v);
      }
    }
  return t;
}

tile canonical_tile(api::tile_shape s, std::uint64_t seed) {
  fast_rng r(seed);
  tile t{s, std::vector<std::int32_t>(16 * s.k, 0), {}};
  fill_random_b(t.b, s, r);
  for (unsigned i = 0; i < 16 * s.k; ++i) {
    const int v = int(s.type == api::dtype::pk_int4 ? r.range<-8, 7>() : r.range<-8, 8>());
    t.a[i] = (i % 4 == 1 || i % 4 == 3) ? 0 : code_for(s.type, v);  // apply_sparse_pattern: slots 1, 3 zeroed
  }
  return t;
}

void fill_random_tile(tile& t, api::tile_shape s, std::uint64_t seed, const group_kinds& kinds) {
  fast_rng r(seed);
  t.shape = s;
  fill_random_b(t.b, s, r);
  t.a.assign(16 * s.k, 0);
  const bool int4 = s.type == api::dtype::pk_int4;
  const std::int32_t* codes = small_codes(s.type);
  // The kind pool's masks once, not per group.
  thread_local std::vector<unsigned> masks;
  masks.clear();
  for (group_kind k : kinds) masks.push_back(ref::survivor_mask(k));
  for (unsigned m = 0; m < 16; ++m)
    for (unsigned g = 0; g < s.k / 4; ++g) {
      const unsigned mask = r.pick(masks);
      for (unsigned pos = 0; pos < 4; ++pos) {
        if (!((mask >> pos) & 1u)) continue;
        int v = 0;
        while (v == 0) v = int(int4 ? r.range<-8, 7>() : r.range<-64, 64>());
        t.a[m * s.k + 4 * g + pos] = codes ? codes[v - kCodeMin] : v;
      }
    }
}

tile random_tile(api::tile_shape s, std::uint64_t seed, const group_kinds& kinds) {
  tile t;
  fill_random_tile(t, s, seed, kinds);
  return t;
}

namespace {
// A fixture's codes and shape, loaded (and checksum-verified) once per run rather than once per K-window.
struct fixture_codes {
  std::size_t rows = 0, cols = 0;
  std::vector<std::int32_t> codes;
};
const fixture_codes& cached_fixture(const std::string& name) {
  static std::map<std::string, fixture_codes> cache;
  if (auto it = cache.find(name); it != cache.end()) return it->second;
  // A missing, unreadable or corrupted fixture (or manifest) is bad input: exit 2 with the loader's one line.
  const auto f = [&] {
    try {
      return fixtures::load(name);
    } catch (const fixtures::fixture_error& e) {
      throw probe::usage_error(e.what());
    }
  }();
  fixture_codes c{f.rows(), f.cols(), {}};
  if (f.info.type == fixtures::dtype::fp16) {
    for (auto x : f.fp16_codes()) c.codes.push_back(x);
  } else if (f.info.type == fixtures::dtype::fp8_e4m3) {
    for (auto x : f.fp8_codes()) c.codes.push_back(x);
  } else {
    for (auto x : f.int8_values()) c.codes.push_back(x);
  }
  return cache.emplace(name, std::move(c)).first->second;
}
}  // namespace

tile fixture_tile(const std::string& a_name, const std::string& b_name, api::tile_shape s, unsigned index) {
  const auto& fa = cached_fixture(a_name);
  const auto& fb = cached_fixture(b_name);
  if (fa.rows != 16 || fb.cols != 16 || fa.cols != fb.rows || (index + 1) * s.k > fa.cols)
    throw probe::usage_error("fixtures " + a_name + " / " + b_name + " do not hold a 16x" + std::to_string(s.k) +
                             " tile " + std::to_string(index));
  const auto& a = fa.codes;
  const auto& b = fb.codes;
  tile t{s, std::vector<std::int32_t>(16 * s.k), std::vector<std::int32_t>(16 * s.k)};
  const std::size_t ka = fa.cols;
  for (unsigned i = 0; i < 16; ++i)
    for (unsigned kk = 0; kk < s.k; ++kk) t.a[i * s.k + kk] = a[i * ka + index * s.k + kk];
  for (unsigned kk = 0; kk < s.k; ++kk)
    for (unsigned j = 0; j < 16; ++j) t.b[kk * 16 + j] = b[(index * s.k + kk) * 16 + j];
  return t;
}

tile single_group(const tile& t, unsigned row, unsigned group) {
  tile s{t.shape, std::vector<std::int32_t>(t.a.size(), 0), t.b};
  for (unsigned p = 0; p < 4; ++p) s.a[row * t.shape.k + 4 * group + p] = t.a[row * t.shape.k + 4 * group + p];
  return s;
}

std::vector<std::pair<unsigned, unsigned>> nonzero_groups(const tile& t) {
  std::vector<std::pair<unsigned, unsigned>> out;
  for (unsigned i = 0; i < 16; ++i)
    for (unsigned g = 0; g < t.shape.k / 4; ++g)
      if (survivor_mask(t, i, g)) out.emplace_back(i, g);
  return out;
}

namespace {
// The census for one element type: `survives` is inlined into the loop over every group of the tile.
template <class Survives>
tile_census census_with(const tile& t, Survives survives) {
  // Per survivor mask: its by_kind slot (0: more than two survivors), survivor count and convention neutrality,
  // tabulated once.
  struct mask_info {
    int slot, survivors;
    bool neutral;
  };
  static const auto info_of = [] {
    std::array<mask_info, 16> c{};
    for (unsigned m = 0; m < 16; ++m) {
      const auto k = ref::group_kind_of(m);
      c[m] = {k ? int(*k) + 1 : 0, std::popcount(m), k && convention_neutral(*k)};
    }
    return c;
  }();
  tile_census c;
  const std::int32_t* a = t.a.data();
  for (unsigned i = 0; i < 16; ++i)
    for (unsigned g = 0; g < t.shape.k / 4; ++g, a += 4) {
      const unsigned m = unsigned(survives(a[0])) | unsigned(survives(a[1])) << 1 | unsigned(survives(a[2])) << 2 |
                         unsigned(survives(a[3])) << 3;
      const auto [slot, n, neutral] = info_of[m];
      ++c.by_count[n];
      if (n == 1) ++c.single_at[std::countr_zero(m)];
      ++c.by_kind[slot];
      if (m) {
        ++c.nonzero_groups;
        c.convention_neutral_only = c.convention_neutral_only && neutral;
      }
    }
  return c;
}
}  // namespace

tile_census census(const tile& t) {
  if (api::is_integer(t.shape.type))
    return census_with(t, [](std::int32_t code) { return ref::survives(std::int64_t(code)); });
  if (t.shape.type == api::dtype::fp8_e4m3) return census_with(t, fp8_code_survives);
  const float_decode value = float_decode_of(t.shape.type);
  return census_with(t, [value](std::int32_t code) { return ref::survives(value(code)); });
}

tile_eval evaluate(const tile& t, const expected_d& want, const api::tile_results& r, std::size_t index) {
  return evaluate(t, census(t), want, r, index);
}

tile_eval evaluate(const tile& t, const tile_census& groups, const expected_d& want, const api::tile_results& r,
                   std::size_t index) {
  tile_eval e;
  e.groups = groups;
  const bool integer = api::is_integer(t.shape.type);
  for (unsigned i = 0; i < 256; ++i) {
    const double got = integer ? double(r.d_int[index * 256 + i]) : double(r.d_float[index * 256 + i]);
    const double err = std::isnan(got) ? INFINITY : std::fabs(got - want.d[i]);
    e.max_abs_err = std::max(e.max_abs_err, err);
    if (err > want.bound[i]) {
      if (e.first_wrong < 0) e.first_wrong = int(i);
      ++e.wrong;
    }
  }
  for (unsigned l = 0; l < 32; ++l) {
    e.oob_survivor += r.oob_survivor_writes[index * 32 + l];
    e.oob_field += r.oob_field_writes[index * 32 + l];
  }
  e.fields = r.idx_fields_per_lane;
  e.logical_fields = t.shape.logical_fields_per_lane();
  return e;
}

void count_coverage(probe::outcome& o, const tile& t, const tile_eval& e) {
  // Counter names built once: this runs for every tile of the fuzz loop.
  static const std::string survivors[3] = {"groups.survivors=0", "groups.survivors=1", "groups.survivors=2"};
  static const std::string single[4] = {"groups.single_at_0", "groups.single_at_1", "groups.single_at_2",
                                        "groups.single_at_3"};
  static const std::vector<std::string> pk4_class = [] {  // indexed as tile_census::by_kind
    std::vector<std::string> v{"pk4.class>2"};
    for (group_kind k : ref::all_group_kinds) v.push_back(std::string("pk4.class") + group_kind_name(k));
    return v;
  }();
  const tile_census& g = e.groups;
  for (int n = 0; n <= 2; ++n)
    if (g.by_count[n]) o.count(survivors[n], g.by_count[n]);
  if (g.by_count[3] + g.by_count[4]) o.count("groups.survivors>2", g.by_count[3] + g.by_count[4]);
  for (int p = 0; p < 4; ++p)
    if (g.single_at[p]) o.count(single[p], g.single_at[p]);
  if (t.shape.type == api::dtype::pk_int4)
    for (std::size_t slot = 0; slot < pk4_class.size(); ++slot)
      if (g.by_kind[slot]) o.count(pk4_class[slot], g.by_kind[slot]);
  if (t.shape.frags_k() > 1) o.count("cases.fragsK>1");
  if (t.shape.type == api::dtype::pk_int4) o.count("pk4.fragments", t.shape.frags_k());
  o.count("ub.oob_survivor_writes", e.oob_survivor);
  o.count("ub.oob_field_writes", e.oob_field);
}

void describe(probe::outcome& o, const tile& t, const tile_eval& e, const expected_d& want, const api::tile_results& r,
              std::size_t index) {
  o.metric_max("max_abs_err", e.max_abs_err).metric_sum("wrong", double(e.wrong));
  o.metric_sum("oob_writes", double(e.oob_survivor + e.oob_field));
  if (e.first_wrong >= 0) {
    const unsigned i = unsigned(e.first_wrong) / 16, j = unsigned(e.first_wrong) % 16;
    const double got = api::is_integer(t.shape.type) ? double(r.d_int[index * 256 + e.first_wrong])
                                                     : double(r.d_float[index * 256 + e.first_wrong]);
    o.note(std::to_string(e.wrong) + " of 256 D elements wrong; first D[" + std::to_string(i) + "][" +
           std::to_string(j) + "] = " + fmt_num(got) + ", expected " + fmt_num(want.d[e.first_wrong]) +
           (want.bound[e.first_wrong] > 0 ? " +- " + fmt_num(want.bound[e.first_wrong]) : std::string()) +
           ", max_abs_err " + fmt_num(e.max_abs_err));
  }
  if (e.oob_survivor || e.oob_field)
    o.note("UB upstream: " + std::to_string(e.oob_survivor) + " writes past nonzero_elems[1], " +
           std::to_string(e.oob_field) + " idx fields past the field count (counted and dropped by the model)");
  if (e.fields != e.logical_fields)
    o.note("compress_a_impl emits " + std::to_string(e.fields) + " idx fields per lane; the instruction reads " +
           std::to_string(e.logical_fields));
}

namespace {
const char* kind_name(unsigned survivors) {
  const auto k = ref::group_kind_of(survivors);
  return k ? group_kind_name(*k) : ">2";
}
}  // namespace

void group_lines(probe::outcome& o, const tile& t, const api::tile_results& r, std::size_t index, unsigned limit) {
  const api::tile_shape& s = t.shape;
  const unsigned kk = s.kk(), frag_logical = kk / 2 / 2;  // compressed values (fields) per lane and fragment
  const std::size_t cbytes = s.compressed_bytes_per_lane();
  const unsigned idx_words = s.idx_words_per_lane();
  unsigned shown = 0;
  for (auto [row, g] : nonzero_groups(t)) {
    if (shown++ == limit) break;
    const unsigned k = 4 * g, bk = k / kk, kf = k % kk;
    unsigned h, local;  // lane half and the group's place among the lane's groups of this fragment
    if (s.type == api::dtype::fp16) {
      h = (kf >> 3) & 1u;
      local = 2 * (kf >> 4) + ((kf >> 2) & 1u);
    } else {
      h = kf / (kk / 2);
      local = (kf % (kk / 2)) / 4;
    }
    const unsigned lane = 16 * h + row, c0 = bk * frag_logical + 2 * local;  // first compressed value, logically
    const std::uint8_t* cb = r.compressed.data() + (index * 32 + lane) * cbytes;
    std::string vals;
    if (s.type == api::dtype::pk_int4) {
      const std::uint8_t byte = cb[c0 / 2];
      vals = "byte " + fmt_hex(byte, 2) + " (hi " + std::to_string(ref::decode_int4(byte >> 4, ref::int4_code::twos_complement)) +
             ", lo " + std::to_string(ref::decode_int4(byte & 15, ref::int4_code::twos_complement)) + ")";
    } else {
      for (unsigned c = c0; c < c0 + 2; ++c) {
        const std::int32_t code = s.type == api::dtype::fp16 ? std::int32_t(cb[2 * c] | cb[2 * c + 1] << 8)
                                  : s.type == api::dtype::int8 ? std::int32_t(std::int8_t(cb[c]))
                                                               : std::int32_t(cb[c]);
        if (!vals.empty()) vals += ' ';
        vals += fmt_num(value_of(s.type, code));
      }
    }
    const std::uint32_t* iw = r.idx.data() + (index * 32 + lane) * idx_words;
    const std::uint32_t field = (iw[(2 * c0) / 32] >> ((2 * c0) % 32)) & 0xFu;
    std::string a;
    for (unsigned p = 0; p < 4; ++p) {
      if (p) a += ' ';
      a += fmt_num(value_of(s.type, t.a[row * s.k + k + p]));
    }
    std::string words;
    for (unsigned w = 0; w < idx_words; ++w) {
      if (w) words += ' ';
      words += fmt_hex(iw[w], 8);
    }
    o.note("row " + std::to_string(row) + " group " + std::to_string(g) + " " +
           kind_name(survivor_mask(t, row, g)) + " A={" + a + "} lane " + std::to_string(lane) +
           " frag " + std::to_string(bk) + ": compressed out " + vals + ", idx field " + fmt_hex(field, 1) +
           ", lane idx " + words);
  }
}

namespace {
double clock_seconds(clockid_t clock) {
  timespec ts{};
  clock_gettime(clock, &ts);
  return double(ts.tv_sec) + 1e-9 * double(ts.tv_nsec);
}
}  // namespace
double thread_cpu_seconds() { return clock_seconds(CLOCK_THREAD_CPUTIME_ID); }
double process_cpu_seconds() { return clock_seconds(CLOCK_PROCESS_CPUTIME_ID); }

void pack_tiles(packed_tiles& into, std::span<const tile* const> tiles, unsigned jobs) {
  // First the layout (which launch and slot each tile goes to), then the bytes, in parallel: each tile owns its slot.
  into.where.resize(tiles.size());
  std::size_t groups = 0;
  for (std::size_t i = 0; i < tiles.size(); ++i) {
    // A batch holds a handful of shapes: a linear search beats a map, and the batches are reused.
    const auto& s = tiles[i]->shape;
    std::size_t n = 0;
    while (n < groups && !(into.per_shape[n].shape == s)) ++n;
    if (n == groups) {
      if (into.per_shape.size() <= n) into.per_shape.resize(n + 1);
      auto& b = into.per_shape[n];
      b.shape = s;
      b.tiles = 0;
      ++groups;
    }
    into.where[i] = {n, into.per_shape[n].tiles++};
  }
  into.per_shape.resize(groups);
  for (auto& b : into.per_shape) {
    b.a.resize(b.tiles * b.shape.operand_bytes());
    b.b.resize(b.tiles * b.shape.operand_bytes());
  }
  probe::parallel_for(tiles.size(), jobs, [&](std::size_t begin, std::size_t end) {
    for (std::size_t i = begin; i < end; ++i) {
      const auto [n, slot] = into.where[i];
      auto& b = into.per_shape[n];
      const std::size_t bytes = b.shape.operand_bytes();
      write_physical(*tiles[i], b.a.data() + slot * bytes, b.b.data() + slot * bytes);
    }
  });
}

void launch_packed(const api::ops& ops, const packed_tiles& packed, std::vector<api::tile_results>& results,
                   std::vector<double>* launch_seconds) {
  results.resize(packed.per_shape.size());
  if (launch_seconds) launch_seconds->assign(packed.per_shape.size(), 0.0);
  for (std::size_t n = 0; n < packed.per_shape.size(); ++n) {
    const double t0 = launch_seconds ? thread_cpu_seconds() : 0.0;
    ops.run_tiles(packed.per_shape[n], results[n]);
    if (launch_seconds) (*launch_seconds)[n] = thread_cpu_seconds() - t0;
  }
}

batch_run run_tiles(const api::ops& ops, std::span<const tile* const> tiles) {
  packed_tiles packed;
  pack_tiles(packed, tiles);
  batch_run run;
  launch_packed(ops, packed, run.results);
  run.where = packed.where;
  return run;
}

std::string shape_label(const api::tile_shape& s) {
  return std::string(api::to_string(s.type)) + ",K=" + std::to_string(s.k) +
         (s.instr == api::instruction::iu4_k64 ? ",op=16x16x64" : "");
}

std::vector<api::tile_shape> shapes_for(api::dtype t) {
  std::vector<api::tile_shape> out;
  for (unsigned k : {32u, 64u, 128u, 256u}) out.push_back({t, k, api::instruction::k32});
  if (t == api::dtype::pk_int4)
    for (unsigned k : {64u, 128u, 256u}) out.push_back({t, k, api::instruction::iu4_k64});
  return out;
}

}  // namespace tp::ck_probe
