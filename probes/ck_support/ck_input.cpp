#include "probes/ck_support/ck_input.h"

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <cmath>
#include <memory>

#include "reference/codecs.h"

namespace tp::ck_probe {

namespace {
using probe::input_file;
using probe::input_record;

constexpr api::dtype dtype_values[] = {api::dtype::int8, api::dtype::fp8_e4m3, api::dtype::fp16, api::dtype::pk_int4};

std::string dtype_list(const std::vector<api::dtype>& types) {
  std::string s;
  for (auto t : types) s += (s.empty() ? "" : ", ") + std::string(api::to_string(t));
  return s;
}

api::dtype read_dtype(const input_record& r, const ck_probe_config& cfg) {
  r.expect_size(1);
  const api::dtype t = dtype_values[r.choice(0, {"int8", "fp8", "fp16", "pk_int4"})];
  if (std::find(cfg.dtypes.begin(), cfg.dtypes.end(), t) == cfg.dtypes.end())
    r.fail("this probe runs " + dtype_list(cfg.dtypes) + ", not " + api::to_string(t));
  return t;
}

// One element: an integer in the type's range, or for fp8 / fp16 a decimal the type holds exactly, or its raw code
// as 0x-hex (for -0, NaN, inf).
std::int32_t read_code(const input_record& r, std::size_t i, api::dtype t) {
  switch (t) {
    case api::dtype::int8: return std::int32_t(r.integer(i, -128, 127));
    case api::dtype::pk_int4: return std::int32_t(r.integer(i, -8, 7));
    case api::dtype::fp8_e4m3:
    case api::dtype::fp16: break;
  }
  const bool fp16 = t == api::dtype::fp16;
  const std::string_view w = r.word(i);
  if (w.size() > 2 && w[0] == '0' && (w[1] == 'x' || w[1] == 'X')) return std::int32_t(r.integer(i, 0, fp16 ? 0xffff : 0xff));
  const double v = r.number(i);
  const std::int32_t code = fp16 ? std::int32_t(ref::double_to_fp16(v)) : std::int32_t(ref::double_to_fp8_e4m3(v));
  const double back = value_of(t, code);
  if (!(back == v && std::signbit(back) == std::signbit(v))) {
    char buf[48];
    std::snprintf(buf, sizeof buf, "%.9g", back);
    r.fail("'" + r.key() + "' value " + std::to_string(i + 1) + " '" + std::string(w) + "' is not exactly a " +
           api::to_string(t) + " value (nearest: " + buf + "; give a raw code as 0x-hex)");
  }
  return code;
}

std::string code_text(api::dtype t, std::int32_t code) {
  if (api::is_integer(t)) return std::to_string(code);
  const double v = value_of(t, code);
  const bool fp16 = t == api::dtype::fp16;
  const std::int32_t again = fp16 ? std::int32_t(ref::double_to_fp16(v)) : std::int32_t(ref::double_to_fp8_e4m3(v));
  if (std::isfinite(v) && again == code) {
    char buf[64];
    const auto res = std::to_chars(buf, buf + sizeof buf, v);
    return std::string(buf, res.ptr);
  }
  char buf[16];
  std::snprintf(buf, sizeof buf, fp16 ? "0x%04x" : "0x%02x", unsigned(code));
  return buf;
}


void check_groups(const input_record& r, api::dtype t, const std::int32_t* codes, std::size_t n, std::size_t first) {
  for (std::size_t g = 0; g < n / 4; ++g) {
    int survivors = 0;
    for (int p = 0; p < 4; ++p) survivors += survives(t, codes[4 * g + p]);
    if (survivors > 2)
      r.fail("values " + std::to_string(first + 4 * g + 1) + ".." + std::to_string(first + 4 * g + 4) + " (a 4-group) hold " +
             std::to_string(survivors) + " nonzero values; 2:4 sparsity allows at most 2");
  }
}

probe::case_def read_tile(input_file& f, const std::string& probe_name, const ck_probe_config& cfg) {
  tile t;
  t.shape.type = read_dtype(f.next("dtype"), cfg);
  const auto& kr = f.next("k").expect_size(1);
  t.shape.k = unsigned(kr.integer(0, 32, 256));
  if (t.shape.k != 32 && t.shape.k != 64 && t.shape.k != 128 && t.shape.k != 256) kr.fail("k must be 32, 64, 128 or 256");
  const auto& op = f.next("op").expect_size(1);
  t.shape.instr = op.choice(0, {"16x16x32", "16x16x64"}) == 0 ? api::instruction::k32 : api::instruction::iu4_k64;
  if (!t.shape.valid()) op.fail("op 16x16x64 is the pk_int4 instruction, for K 64..256");
  const unsigned k = t.shape.k;
  t.a.resize(16 * k);
  for (unsigned row = 0; row < 16; ++row) {
    const auto& r = f.next("a");
    r.expect_size(1 + k);
    if (r.integer(0, 0, 15) != row) r.fail("expected A row " + std::to_string(row) + " here (rows 0..15 in order)");
    for (unsigned c = 0; c < k; ++c) t.a[row * k + c] = read_code(r, 1 + c, t.shape.type);
    check_groups(r, t.shape.type, t.a.data() + row * k, k, 0);
  }
  const auto& b0 = f.next("b");
  if (b0.size() == 1 && b0.word(0) == "formula") {
    t.b = formula_b(t.shape);
  } else {
    t.b.resize(16 * k);
    for (unsigned row = 0; row < k; ++row) {
      const auto& r = row == 0 ? b0 : f.next("b");
      r.expect_size(17);
      if (r.integer(0, 0, k - 1) != row)
        r.fail("expected B row " + std::to_string(row) + " here (rows 0.." + std::to_string(k - 1) + " in order)");
      for (unsigned j = 0; j < 16; ++j) t.b[row * 16 + j] = read_code(r, 1 + j, t.shape.type);
    }
  }
  if (const auto* c = f.next_if("c")) {
    c->expect_size(1);
    if (c->word(0) != "zero")
      c->fail("the ck_sparse kernels accumulate into C = 0 (CK's pipeline clears the accumulator): only 'c zero' runs");
  }
  f.expect_end();
  probe::case_def cd;
  const std::string label = probe::input_label(f.name());
  cd.id = probe::case_name(cfg.case_prefix)("dtype", api::to_string(t.shape.type))("K", k)(
              "op", api::to_string(t.shape.instr))("src", label)
              .str();
  cd.group = api::to_string(t.shape.type);
  cd.payload = tile_payload{std::make_shared<const tile>(std::move(t)), label};
  (void)probe_name;
  return cd;
}

probe::case_def read_compress(input_file& f, const ck_probe_config& cfg) {
  const api::dtype type = read_dtype(f.next("dtype"), cfg);
  std::vector<std::int32_t> codes;
  const input_record* where = f.peek();
  if (const auto* g = f.next_if("group")) {
    g->expect_size(5);
    const unsigned n = type == api::dtype::pk_int4 ? 16 : 8;
    const auto slot = g->integer(0, 0, n / 4 - 1);
    codes.assign(n, 0);
    for (int p = 0; p < 4; ++p) codes[std::size_t(4 * slot + p)] = read_code(*g, std::size_t(1 + p), type);
    check_groups(*g, type, codes.data() + 4 * slot, 4, 1);
  } else if (const auto* v = f.next_if("vector")) {
    const std::size_t n = v->size();
    if (n != 8 && n != 16 && n != 32 && n != 64 && n != 128)
      v->fail("a lane vector holds 8, 16, 32, 64 or 128 values, got " + std::to_string(n));
    if (type == api::dtype::pk_int4 && n < 16) v->fail("a pk_int4 lane vector holds at least 16 values (8 bytes)");
    for (std::size_t i = 0; i < n; ++i) codes.push_back(read_code(*v, i, type));
    check_groups(*v, type, codes.data(), n, 0);
  } else {
    if (where) where->fail("expected 'group SLOT v0 v1 v2 v3' or 'vector v0 ... vN-1' here, found '" + where->key() + "'");
    f.fail_at_end("missing 'group' or 'vector' record");
  }
  f.expect_end();
  compress_case cc = expected_compress(type, codes);
  if (!cfg.input_exact_idx) {
    cc.exact_idx = false;
    cc.want_fields = unsigned(codes.size() / 2);
  }
  probe::case_def cd;
  cd.id = probe::case_name(cfg.case_prefix)("test", probe::input_label(f.name()))("dtype", api::to_string(type))(
              "NUM", codes.size())
              .str();
  cd.group = "compress:" + std::string(api::to_string(type));
  cd.payload = std::move(cc);
  return cd;
}

// The logical codes of a compress-level case's physical lane vector.
std::vector<std::int32_t> logical_codes(const compress_case& c) {
  std::vector<std::int32_t> out;
  switch (c.type) {
    case api::dtype::pk_int4:
      for (auto b : c.input) {
        out.push_back(std::int32_t(b >> 4) - (b >> 7 ? 16 : 0));
        out.push_back(std::int32_t(b & 15) - ((b >> 3) & 1 ? 16 : 0));
      }
      break;
    case api::dtype::fp16:
      for (std::size_t i = 0; i + 1 < c.input.size(); i += 2) out.push_back(std::int32_t(c.input[i] | c.input[i + 1] << 8));
      break;
    case api::dtype::int8:
      for (auto b : c.input) out.push_back(std::int8_t(b));
      break;
    case api::dtype::fp8_e4m3:
      for (auto b : c.input) out.push_back(b);
      break;
  }
  return out;
}
}  // namespace

compress_case expected_compress(api::dtype type, const std::vector<std::int32_t>& codes) {
  compress_case c{type, {}, {}, {}, {}};
  std::vector<unsigned> nibbles;
  for (std::size_t i = 0; i < codes.size(); ++i) {
    const std::uint32_t x = std::uint32_t(codes[i]);
    if (type == api::dtype::pk_int4) {
      if (i % 2 == 0) c.input.push_back(std::uint8_t((x & 15) << 4));
      else c.input.back() |= std::uint8_t(x & 15);
    } else {
      c.input.push_back(std::uint8_t(x));
      if (type == api::dtype::fp16) c.input.push_back(std::uint8_t(x >> 8));
    }
  }
  for (std::size_t g = 0; g < codes.size() / 4; ++g) {
    std::int32_t kept[2] = {0, 0};
    unsigned fields[2] = {2, 2}, n = 0;
    for (unsigned p = 0; p < 4; ++p) {
      if (!survives(type, codes[4 * g + p])) continue;
      if (n == 2)
        throw probe::usage_error("group " + std::to_string(g) + " holds more than two nonzero values (not 2:4-sparse)");
      kept[n] = codes[4 * g + p];
      // 0003: pk_int4 survivor s goes to field 1-s with the raw-order position p^1 (SWMMAC iu4 reads low nibble first).
      if (type == api::dtype::pk_int4) fields[1 - n] = p ^ 1u;
      else fields[n] = p;
      ++n;
    }
    nibbles.push_back(fields[0] | fields[1] << 2);
    if (type == api::dtype::pk_int4) {
      c.want_compressed.push_back(std::uint8_t((std::uint32_t(kept[0]) & 15) << 4 | (std::uint32_t(kept[1]) & 15)));
    } else {
      for (auto k : kept) {
        c.want_compressed.push_back(std::uint8_t(std::uint32_t(k)));
        if (type == api::dtype::fp16) c.want_compressed.push_back(std::uint8_t(std::uint32_t(k) >> 8));
      }
    }
  }
  c.want_idx = idx_words_of(nibbles);
  c.want_fields = unsigned(codes.size() / 2);
  return c;
}

namespace {
probe::case_list read_body(input_file& f, const std::string& probe_name, const ck_probe_config& cfg) {
  const auto& kind = f.next("case").expect_size(1);
  probe::case_list out;
  if (kind.choice(0, {"tile", "compress"}) == 0) out.push_back(read_tile(f, probe_name, cfg));
  else out.push_back(read_compress(f, cfg));
  return out;
}
}  // namespace

probe::case_list read_input(const std::string& path, const std::string& probe_name, const ck_probe_config& cfg) {
  auto f = input_file::read(path, probe_name);
  return read_body(f, probe_name, cfg);
}

probe::case_list read_input_text(std::string_view text, const std::string& name, const std::string& probe_name,
                                 const ck_probe_config& cfg) {
  auto f = input_file::parse(text, name, probe_name);
  return read_body(f, probe_name, cfg);
}

std::optional<std::string> input_text(const probe::case_def& c, const std::string& probe_name) {
  probe::input_writer w(probe_name);
  w.comment(c.id);
  if (const auto* p = std::any_cast<tile_payload>(&c.payload)) {
    const tile t = p->materialize();
    const unsigned k = t.shape.k;
    w.comment("A 16 x " + std::to_string(k) + " (logical values, rows 0..15), B " + std::to_string(k) +
              " x 16 (rows 0.." + std::to_string(k - 1) + "); D = A * B");
    w.record("case", {"tile"});
    w.record("dtype", {api::to_string(t.shape.type)});
    w.record("k", {std::to_string(k)});
    w.record("op", {api::to_string(t.shape.instr)});
    for (unsigned row = 0; row < 16; ++row) {
      std::vector<std::string> v{std::to_string(row)};
      for (unsigned col = 0; col < k; ++col) v.push_back(code_text(t.shape.type, t.a[row * k + col]));
      w.record("a", v);
    }
    for (unsigned row = 0; row < k; ++row) {
      std::vector<std::string> v{std::to_string(row)};
      for (unsigned j = 0; j < 16; ++j) v.push_back(code_text(t.shape.type, t.b[row * 16 + j]));
      w.record("b", v);
    }
    return w.str();
  }
  if (const auto* cc = std::any_cast<compress_case>(&c.payload)) {
    w.comment("one lane vector through compress_a_impl, judged against CK's fixed output convention");
    w.record("case", {"compress"});
    w.record("dtype", {api::to_string(cc->type)});
    std::vector<std::string> v;
    for (auto code : logical_codes(*cc)) v.push_back(code_text(cc->type, code));
    w.record("vector", v);
    return w.str();
  }
  return std::nullopt;
}

}  // namespace tp::ck_probe
