// The differential check's mechanics (see differential.h).
#include "tools/isa-differential/differential.h"

#include <algorithm>
#include <bit>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <stdexcept>

#include "reference/codecs.h"

namespace tp::isa_diff {

std::string describe(isa::instr in, const isa::modifiers& m) {
  const auto& f = isa::info(in);
  std::string s(f.name);
  if (f.signedness_flags) s += std::string(",sa=") + (m.a_signed ? "1" : "0") + ",sb=" + (m.b_signed ? "1" : "0");
  if (m.clamp) s += ",clamp=1";
  if (f.sparse) s += (f.target == isa::arch::gfx9 ? ",abid=" : ",index_key=") + std::to_string(m.index_key);
  return s;
}

std::vector<op_variant> resolve(const tp::mma::wave_op_table& table) {
  std::vector<op_variant> out;
  for (const tp::mma::wave_op& op : table.ops) {
    const std::string where = std::string("table '") + table.name + "', entry " + op.instr;
    const auto in = isa::parse_instr(op.instr);
    if (!in) throw std::runtime_error(where + ": the model has no such instruction");
    const auto& f = isa::info(*in);
    const isa::modifiers mods{op.mods.a_signed, op.mods.b_signed, op.mods.clamp, op.mods.index_key};
    try {
      isa::check_modifiers(*in, mods);
    } catch (const std::invalid_argument& e) {
      throw std::runtime_error(where + ": " + e.what());
    }
    if (op.wave != f.wave || op.a_words != f.a_vgprs || op.b_words != f.b_vgprs || op.c_words != f.d_vgprs)
      throw std::runtime_error(where + ": wave" + std::to_string(op.wave) + ", A/B/C " + std::to_string(op.a_words) +
                               "/" + std::to_string(op.b_words) + "/" + std::to_string(op.c_words) +
                               " VGPRs per lane; the model says wave" + std::to_string(f.wave) + ", " +
                               std::to_string(f.a_vgprs) + "/" + std::to_string(f.b_vgprs) + "/" +
                               std::to_string(f.d_vgprs));
    out.push_back(op_variant{&op, *in, mods, describe(*in, mods)});
  }
  return out;
}

std::optional<std::string> not_applicable(const op_variant& v, unsigned device_wave) {
  if (v.op->wave == device_wave) return std::nullopt;
  return "a wave" + std::to_string(v.op->wave) + " op on a wave" + std::to_string(device_wave) + " device (" +
         (v.op->wave > device_wave ? "its waves do not have the op's upper " + std::to_string(v.op->wave - device_wave) +
                                         " lanes"
                                   : std::string("the op would fill half of one of its waves")) +
         ")";
}

const char* to_string(regime r) { return r == regime::random_bits ? "bits" : "finite"; }

std::optional<regime> parse_regime(std::string_view s) {
  if (s == "bits") return regime::random_bits;
  if (s == "finite") return regime::finite;
  return std::nullopt;
}

namespace {

// A finite code of a small magnitude (floats), or an int32 within 2,000,000 of a limit (C of integer ops).
std::uint32_t finite_code(std::mt19937_64& rng, isa::elem e) {
  switch (e) {
    case isa::elem::fp8: return tp::ref::double_to_fp8_e4m3(double(int(rng() % 33) - 16) / 4.0);
    case isa::elem::bf8: return tp::ref::double_to_fp8_e5m2(double(int(rng() % 33) - 16) / 4.0);
    case isa::elem::f16: return tp::ref::double_to_fp16(double(int(rng() % 2049) - 1024) / 64.0);
    case isa::elem::bf16: return tp::ref::double_to_bf16(double(int(rng() % 257) - 128) / 8.0);
    case isa::elem::f32: return std::bit_cast<std::uint32_t>(float(int(rng() % 2001) - 1000) / 16.0f);
    case isa::elem::i32: {
      const std::int32_t off = std::int32_t(rng() % 2000000);
      return std::uint32_t(rng() & 1 ? 0x7fffffff - off : std::int32_t(0x80000000u) + off);
    }
    default: {
      const unsigned b = isa::bits_of(e);
      return std::uint32_t(rng()) & ((1u << b) - 1u);
    }
  }
}

std::uint64_t mix64(std::uint64_t z) {  // splitmix64's finaliser
  z += 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

}  // namespace

operands make_operands(isa::instr in, std::uint64_t seed, regime r) {
  std::mt19937_64 rng(seed);
  const auto& f = isa::info(in);
  operands o{isa::make_a_regs(in), isa::make_b_regs(in), isa::make_d_regs(in), isa::make_index_regs(in)};
  for (auto* regs : {&o.a, &o.b, &o.c, &o.index})
    for (auto& w : regs->words()) w = std::uint32_t(rng());
  if (r == regime::random_bits) {
    // Where the layout holds an element at more than one register place (gfx11 WMMA's A rows and B columns, in lanes
    // i and i + 16), the ISA defines the result only for equal copies: the copies get the first place's bits, so
    // executors that read different copies (reference/isa reads the first; AMD's rocJITsu the copy in the D lane's
    // half) must agree. Every other bit stays random; a layout with one place per element is left as drawn.
    auto replicate = [](isa::wave_regs& regs, const std::vector<isa::reg_loc>& at) {
      for (std::size_t c = 1; c < at.size(); ++c) regs.set(at[c], regs.get(at[0]));
    };
    if (!f.sparse)
      for (unsigned i = 0; i < f.m; ++i)
        for (unsigned k = 0; k < f.k; ++k) replicate(o.a, isa::a_locs(in, i, k));
    for (unsigned k = 0; k < f.k; ++k)
      for (unsigned j = 0; j < f.n; ++j) replicate(o.b, isa::b_locs(in, k, j));
    return o;
  }
  // Every logical element gets a finite code at every register place that holds it; the index stays random, so
  // field collisions are still drawn.
  auto fill = [&](isa::wave_regs& regs, isa::elem e, auto locs_of, unsigned rows, unsigned cols) {
    for (unsigned i = 0; i < rows; ++i)
      for (unsigned j = 0; j < cols; ++j) {
        const std::uint32_t v = finite_code(rng, e);
        for (const auto& at : locs_of(i, j)) regs.set(at, v);
      }
  };
  fill(o.b, f.b, [&](unsigned k, unsigned j) { return isa::b_locs(in, k, j); }, f.k, f.n);
  fill(o.c, f.d, [&](unsigned i, unsigned j) { return std::vector<isa::reg_loc>{isa::d_loc(in, i, j)}; }, f.m, f.n);
  if (f.sparse)
    fill(o.a, f.a, [&](unsigned i, unsigned gs) { return std::vector<isa::reg_loc>{isa::a_slot_loc(in, i, gs / 2, gs % 2)}; },
         f.m, f.k / 2);
  else
    fill(o.a, f.a, [&](unsigned i, unsigned k) { return isa::a_locs(in, i, k); }, f.m, f.k);
  return o;
}

std::uint64_t case_seed(std::uint64_t base_seed, std::string_view op_variant_name, regime r, std::uint64_t n) {
  std::uint64_t h = 0xcbf29ce484222325ull;  // FNV-1a 64 of the op variant's name
  for (const char ch : op_variant_name) h = (h ^ std::uint8_t(ch)) * 0x100000001b3ull;
  return mix64(mix64(base_seed ^ h) + 2 * n + (r == regime::finite ? 1 : 0));
}

bool same_result(isa::elem d, std::uint32_t x, std::uint32_t y) {
  if (d == isa::elem::f32) {
    const float fx = std::bit_cast<float>(x), fy = std::bit_cast<float>(y);
    if (fx != fx && fy != fy) return true;
  }
  return x == y;
}

comparison compare(const isa::instr_info& f, std::span<const std::uint32_t> got, std::span<const std::uint32_t> want,
                   std::string_view got_label) {
  const std::size_t words = std::size_t(f.wave) * f.d_vgprs;
  if (got.size() != words || want.size() != words)
    throw std::invalid_argument("isa-diff compare: D of " + std::string(f.name) + " is " + std::to_string(words) +
                                " words, got " + std::to_string(got.size()) + " and " + std::to_string(want.size()));
  comparison c;
  for (std::size_t w = 0; w < words; ++w) {
    if (same_result(f.d, got[w], want[w])) continue;
    if (c.differing_words++ == 0) {
      char buf[96];
      std::snprintf(buf, sizeof buf, "lane %u v%u: %.*s 0x%08" PRIx32 ", model 0x%08" PRIx32, unsigned(w / f.d_vgprs),
                    unsigned(w % f.d_vgprs), int(got_label.size()), got_label.data(), got[w], want[w]);
      c.first = buf;
    }
  }
  return c;
}

std::vector<comparison> run_differential(const op_variant& v, std::span<const operands> cases,
                                         std::string_view backend_label) {
  const auto& f = isa::info(v.in);
  const std::size_t n = cases.size(), lanes = n * f.wave;
  std::vector<std::uint32_t> a, b, c, index, d(lanes * f.d_vgprs);
  a.reserve(lanes * f.a_vgprs);
  b.reserve(lanes * f.b_vgprs);
  c.reserve(lanes * f.d_vgprs);
  index.reserve(lanes);
  for (const operands& o : cases) {
    a.insert(a.end(), o.a.words().begin(), o.a.words().end());
    b.insert(b.end(), o.b.words().begin(), o.b.words().end());
    c.insert(c.end(), o.c.words().begin(), o.c.words().end());
    index.insert(index.end(), o.index.words().begin(), o.index.words().end());
  }
  v.op->run(n, a, b, c, index, d);
  std::vector<comparison> out;
  out.reserve(n);
  const std::size_t d_words = std::size_t(f.wave) * f.d_vgprs;
  for (std::size_t i = 0; i < n; ++i) {
    const operands& o = cases[i];
    const isa::wave_regs want = isa::execute(v.in, o.a, o.b, o.c, o.index, v.mods);
    out.push_back(compare(f, std::span<const std::uint32_t>(d).subspan(i * d_words, d_words), want.words(),
                          backend_label));
  }
  return out;
}

std::string format(const case_id& id) {
  char seed[24];
  std::snprintf(seed, sizeof seed, "0x%016" PRIx64, id.seed);
  std::string s = "isa-diff(" + id.op_variant + ",regime=" + to_string(id.r) + ",seed=" + seed;
  if (!id.policy.empty()) s += ",policy=" + id.policy;
  return s + ")";
}

std::optional<case_id> parse_case_id(std::string_view text) {
  constexpr std::string_view open = "isa-diff(";
  if (!text.starts_with(open) || !text.ends_with(")")) return std::nullopt;
  text = text.substr(open.size(), text.size() - open.size() - 1);
  case_id id;
  bool have_regime = false, have_seed = false;
  // Fields are comma separated; regime=, seed= and policy= are the case's, everything else names the op variant.
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t comma = std::min(text.find(',', start), text.size());
    const std::string_view field = text.substr(start, comma - start);
    if (field.starts_with("regime=")) {
      const auto r = parse_regime(field.substr(7));
      if (!r || have_regime) return std::nullopt;
      id.r = *r;
      have_regime = true;
    } else if (field.starts_with("seed=")) {
      const std::string digits(field.substr(5));
      if (have_seed || digits.size() < 3 || digits.size() > 18 || !digits.starts_with("0x")) return std::nullopt;
      char* end = nullptr;
      id.seed = std::strtoull(digits.c_str(), &end, 16);
      if (*end != '\0') return std::nullopt;
      have_seed = true;
    } else if (field.starts_with("policy=")) {
      if (!id.policy.empty() || field.size() == 7) return std::nullopt;
      id.policy = std::string(field.substr(7));
    } else {
      if (field.empty()) return std::nullopt;
      if (!id.op_variant.empty()) id.op_variant += ',';
      id.op_variant += field;
    }
    start = comma + 1;
  }
  if (!have_regime || !have_seed || id.op_variant.empty()) return std::nullopt;
  return id;
}

}  // namespace tp::isa_diff
