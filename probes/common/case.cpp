#include "probes/common/case.h"

#include <charconv>
#include <cstdio>

namespace tp::probe {

namespace {
void check_id_part(std::string_view what, std::string_view s) {
  if (s.find_first_of(",()=") != std::string_view::npos)
    throw std::logic_error("case_name: " + std::string(what) + " '" + std::string(s) +
                           "' contains one of , ( ) = and would make the id ambiguous");
}
}  // namespace

case_name::case_name(std::string_view probe_name) : text_(probe_name) {
  check_id_part("name", probe_name);
  text_.reserve(96);
}

case_name& case_name::operator()(std::string_view key, std::string_view value) {
  check_id_part("key", key);
  check_id_part("value", value);
  text_ += has_fields_ ? ',' : '(';
  has_fields_ = true;
  text_ += key;
  text_ += '=';
  text_ += value;
  return *this;
}

case_name& case_name::operator()(std::string_view key, double value) {
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof buf, value);
  return (*this)(key, std::string_view(buf, std::size_t(r.ptr - buf)));
}

case_name& case_name::seed(std::uint64_t s) {
  char buf[18] = {'0', 'x'};
  for (int i = 17; i >= 2; --i, s >>= 4) buf[i] = "0123456789abcdef"[s & 0xf];
  return (*this)("seed", std::string_view(buf, sizeof buf));
}

std::string case_name::str() const {
  std::string out;
  out.reserve(text_.size() + 2);
  out += text_;
  out += has_fields_ ? ")" : "()";
  return out;
}

std::string_view id_name(std::string_view id) {
  const auto p = id.find('(');
  return p == std::string_view::npos ? id : id.substr(0, p);
}

std::vector<std::pair<std::string, std::string>> id_fields(std::string_view id) {
  std::vector<std::pair<std::string, std::string>> out;
  const auto open = id.find('(');
  if (open == std::string_view::npos || id.empty() || id.back() != ')') return out;
  std::string_view body = id.substr(open + 1, id.size() - open - 2);
  while (!body.empty()) {
    const auto comma = body.find(',');
    const std::string_view field = body.substr(0, comma);
    const auto eq = field.find('=');
    if (eq == std::string_view::npos) return {};
    out.emplace_back(std::string(field.substr(0, eq)), std::string(field.substr(eq + 1)));
    if (comma == std::string_view::npos) break;
    body.remove_prefix(comma + 1);
  }
  return out;
}

std::optional<std::uint64_t> parse_seed(std::string_view s) {
  int base = 10;
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
    base = 16;
    s.remove_prefix(2);
  }
  if (s.empty()) return std::nullopt;
  std::uint64_t v = 0;
  auto r = std::from_chars(s.data(), s.data() + s.size(), v, base);
  if (r.ec != std::errc() || r.ptr != s.data() + s.size()) return std::nullopt;
  return v;
}

std::optional<std::uint64_t> id_seed(std::string_view id) {
  // id_fields without its copies: this runs for every fuzz case.
  const auto open = id.find('(');
  if (open == std::string_view::npos || id.back() != ')') return std::nullopt;
  std::string_view body = id.substr(open + 1, id.size() - open - 2);
  while (!body.empty()) {
    const auto comma = body.find(',');
    const std::string_view field = body.substr(0, comma);
    const auto eq = field.find('=');
    if (eq == std::string_view::npos) return std::nullopt;
    if (field.substr(0, eq) == "seed") return parse_seed(field.substr(eq + 1));
    if (comma == std::string_view::npos) break;
    body.remove_prefix(comma + 1);
  }
  return std::nullopt;
}

std::string shrunk_id(std::string_view parent_id, std::initializer_list<std::pair<std::string_view, std::string>> step) {
  case_name n(id_name(parent_id));
  bool has_src = false;
  for (const auto& [k, v] : id_fields(parent_id)) {
    if (k == "src") {
      n(k, "shrunk:" + v);
      has_src = true;
    } else {
      n(k, v);
    }
  }
  if (!has_src) n("src", "shrunk");
  for (const auto& [k, v] : step) n(k, v);
  return n.str();
}

std::optional<std::string> shrunk_parent(std::string_view id, std::size_t step_fields) {
  auto fields = id_fields(id);
  if (fields.size() < step_fields + 1) return std::nullopt;
  fields.resize(fields.size() - step_fields);
  case_name n(id_name(id));
  bool shrunk = false;
  for (const auto& [k, v] : fields) {
    if (k == "src" && !shrunk && (v == "shrunk" || v.rfind("shrunk:", 0) == 0)) {
      shrunk = true;
      if (v != "shrunk") n(k, v.substr(7));
    } else {
      n(k, v);
    }
  }
  if (!shrunk) return std::nullopt;
  return n.str();
}

namespace {
// Iterative glob with backtracking to the last '*': linear in practice, no recursion depth issues.
bool glob_match(std::string_view pat, std::string_view s) {
  std::size_t p = 0, i = 0, star = std::string_view::npos, mark = 0;
  while (i < s.size()) {
    if (p < pat.size() && (pat[p] == '?' || pat[p] == s[i])) {
      ++p;
      ++i;
    } else if (p < pat.size() && pat[p] == '*') {
      star = p++;
      mark = i;
    } else if (star != std::string_view::npos) {
      p = star + 1;
      i = ++mark;
    } else {
      return false;
    }
  }
  while (p < pat.size() && pat[p] == '*') ++p;
  return p == pat.size();
}
}  // namespace

bool id_matches(std::string_view filter, std::string_view id) {
  if (filter == id) return true;
  if (filter.find_first_of("*?") != std::string_view::npos) return glob_match(filter, id);
  return id.find(filter) != std::string_view::npos;
}

std::uint64_t splitmix64(std::uint64_t& state) {
  std::uint64_t z = (state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

std::uint64_t fuzz_case_seed(std::uint64_t base, std::uint64_t index) {
  std::uint64_t state = base + index * 0x9E3779B97F4A7C15ull;
  return splitmix64(state);
}

std::uint64_t rng::below(std::uint64_t n) {
  if (n == 0) throw std::logic_error("rng::below(0)");
  // Reject the top partial block of 2^64 so every residue is equally likely.
  const std::uint64_t limit = ~std::uint64_t{0} - (~std::uint64_t{0} % n + 1) % n;
  for (;;) {
    const std::uint64_t x = next();
    if (x <= limit) return x % n;
  }
}

std::int64_t rng::range(std::int64_t lo, std::int64_t hi) {
  if (hi < lo) throw std::logic_error("rng::range: hi < lo");
  const std::uint64_t span = std::uint64_t(hi) - std::uint64_t(lo);
  if (span == ~std::uint64_t{0}) return std::int64_t(next());
  return std::int64_t(std::uint64_t(lo) + below(span + 1));
}

double rng::unit() { return double(next() >> 11) * 0x1.0p-53; }

shard_spec parse_shard(std::string_view s) {
  const auto slash = s.find('/');
  const auto bad = [&](const char* why) {
    return usage_error("--shard '" + std::string(s) + "': " + why + " (expected I/N with 1 <= I <= N)");
  };
  if (slash == std::string_view::npos) throw bad("no '/'");
  unsigned i = 0, n = 0;
  const std::string_view a = s.substr(0, slash), b = s.substr(slash + 1);
  auto ra = std::from_chars(a.data(), a.data() + a.size(), i);
  auto rb = std::from_chars(b.data(), b.data() + b.size(), n);
  if (a.empty() || b.empty() || ra.ec != std::errc() || rb.ec != std::errc() || ra.ptr != a.data() + a.size() ||
      rb.ptr != b.data() + b.size())
    throw bad("not two unsigned integers");
  if (n == 0) throw bad("N is 0");
  if (i == 0 || i > n) throw bad("I out of range");
  return shard_spec{i, n};
}

}  // namespace tp::probe
