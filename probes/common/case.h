// Cases: what a probe runs. A case is an id (readable, doubles as a --case filter), a source kind, a table row
// (group), an expectation on the buggy variants, an optional seed and a payload only the probe's runner reads.
#pragma once

#include <any>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <typeinfo>
#include <vector>

#include "probes/common/names.h"

namespace tp::probe {

// Bad usage or bad input: main() prints the message as one line and exits 2, having run nothing.
struct usage_error : std::runtime_error {
  using std::runtime_error::runtime_error;
};
// The run cannot be judged: the machinery failed (a device error, out of memory) or the probe is defective. Exit 3.
struct internal_error : std::runtime_error {
  using std::runtime_error::runtime_error;
};
// The backend (or every selected variant on it) is not built or has no device: exit 77.
struct backend_unavailable : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Where a case comes from. `control` cases are the upstream-style inputs that hid the bug: they must pass on every
// variant, buggy ones included, otherwise the probe is testing something other than the bug.
enum class source_kind { fixture, adversarial, control, fuzz, input };
inline constexpr source_kind all_source_kinds[] = {source_kind::fixture, source_kind::adversarial,
                                                   source_kind::control, source_kind::fuzz, source_kind::input};
constexpr std::string_view names_of(source_kind) { return "fixture adversarial control fuzz input"; }
// Not only the template: a case_source (below) converts to source_kind here.
constexpr std::string_view to_string(source_kind k) { return to_string<source_kind>(k); }
constexpr std::optional<source_kind> parse_source_kind(std::string_view s) { return parse_name<source_kind>(s); }

// A case's source kind, remembering whether the probe set it. A source registered with app::source(kind, fn) (or the
// fuzz generator, or --input) supplies the kind of every case that leaves this unset; a case that names its own kind
// keeps it, so an adversarial sweep can declare some of its points `control` (they then must pass on buggy variants).
// Converts to source_kind, so comparisons and to_string work as on the enum.
class case_source {
 public:
  constexpr case_source() = default;
  constexpr case_source(source_kind k) : kind_(k), given_(true) {}  // NOLINT: implicit on purpose
  constexpr operator source_kind() const { return kind_; }
  constexpr source_kind kind() const { return kind_; }
  constexpr bool given() const { return given_; }

 private:
  source_kind kind_ = source_kind::fixture;
  bool given_ = false;
};

// What a case must do on a variant with the `buggy` role (fixed variants must always pass).
//   any:  no per-case demand; the case counts towards its source kind's must_catch rule.
//   pass: must pass on buggy variants too (set automatically for control cases).
//   fail: this very case must fail on every buggy variant (e.g. the one adversarial group that hits the bug).
enum class on_buggy { any, pass, fail };
constexpr std::string_view names_of(on_buggy) { return "any pass fail"; }

// Builds `name(k=v,...)`, the id format of every case. Keys and values must not contain ',', '(', ')' or '=' (they
// would make the id ambiguous as a filter); a violation throws std::logic_error, since it is a probe bug.
//   case_name("ck-phantom")("dtype", "int8")("K", 64)("src", "fixture:ocr-qkv0")("row", 3).str()
//     == "ck-phantom(dtype=int8,K=64,src=fixture:ocr-qkv0,row=3)"
// Seeds are written in hex (seed=0x...) by seed(); parse_seed accepts hex and decimal.
class case_name {
 public:
  explicit case_name(std::string_view probe_name);
  case_name& operator()(std::string_view key, std::string_view value);
  case_name& operator()(std::string_view key, const char* value) { return (*this)(key, std::string_view(value)); }
  case_name& operator()(std::string_view key, const std::string& value) { return (*this)(key, std::string_view(value)); }
  case_name& operator()(std::string_view key, bool value) { return (*this)(key, std::string_view(value ? "1" : "0")); }
  template <class I>
    requires std::is_integral_v<I>
  case_name& operator()(std::string_view key, I value) { return (*this)(key, std::string_view(std::to_string(value))); }
  case_name& operator()(std::string_view key, double value);  // shortest round-trip form
  case_name& seed(std::uint64_t s);                           // appends seed=0x<16 hex digits>
  std::string str() const;
  operator std::string() const { return str(); }

 private:
  std::string text_;  // "name(k=v,k=v" so far: one buffer, built in place (ids are made per fuzz case)
  bool has_fields_ = false;
};

// The key=value pairs of an id, in order; empty if the id is not of the form name(...).
std::vector<std::pair<std::string, std::string>> id_fields(std::string_view id);
std::string_view id_name(std::string_view id);  // the part before '(' (whole id if none)
std::optional<std::uint64_t> id_seed(std::string_view id);  // the value of seed=, if present and well-formed
std::optional<std::uint64_t> parse_seed(std::string_view s);  // decimal or 0x-hex, whole string, 64-bit

// Shrunk ids name their parent, so a printed shrunk id reruns alone (the framework rebuilds it through the parent and
// the shrinker): the parent's fields with `src=X` turned into `src=shrunk:X` (a parent without src gets
// src=shrunk), then the step's own fields.
//   shrunk_id("ck(K=32,src=fuzz,seed=0x..)", {{"row", "3"}, {"group", "1"}})
//     == "ck(K=32,src=shrunk:fuzz,seed=0x..,row=3,group=1)"
// shrunk_parent(id, 2) inverts it; nullopt when the id is not such a shrunk id.
std::string shrunk_id(std::string_view parent_id, std::initializer_list<std::pair<std::string_view, std::string>> step);
std::optional<std::string> shrunk_parent(std::string_view id, std::size_t step_fields);

// --case filter: an exact id, a glob (`*` any run, `?` one character), or else a substring of the id.
bool id_matches(std::string_view filter, std::string_view id);

struct case_def {
  // Every member has a default initialiser so designated initialisers ({.id = ..., .payload = ...}) compile
  // without -Wmissing-field-initializers noise on g++ 12.
  std::string id{};
  case_source source{};               // unset: the kind of the source that added the case
  std::string group{};                // row of the fail->pass table; empty: the source kind's name
  std::vector<std::string> tags{};    // free-form labels, shown in JSON
  std::optional<std::uint64_t> seed{};  // every fuzz case has one (its id carries seed= as well)
  on_buggy buggy = on_buggy::any;     // forced to `pass` for control cases
  std::any payload{};                 // what the probe's runner needs; the framework never looks inside

  std::string_view table_row() const { return group.empty() ? to_string(source) : std::string_view(group); }
  template <class T>
  const T& as() const {
    if (const T* p = std::any_cast<T>(&payload)) return *p;
    throw std::logic_error("case " + id + ": payload is not a " + typeid(T).name());
  }
};
using case_list = std::vector<case_def>;

// Seeds. splitmix64 (Steele, Lea, Flood 2014; the constants of Vigna's reference): state += 0x9E3779B97F4A7C15,
// then z = state; z = (z ^ z>>30) * 0xBF58476D1CE4E5B9; z = (z ^ z>>27) * 0x94D049BB133111EB; return z ^ z>>31.
std::uint64_t splitmix64(std::uint64_t& state);
// The seed of fuzz case `index` (0-based) of a run with --seed `base`: the (index+1)-th output of splitmix64 started
// at `base`, i.e. mix(base + (index+1)*0x9E3779B97F4A7C15). Independent of --fuzz N and of sharding, so the printed
// id reruns exactly that case.
std::uint64_t fuzz_case_seed(std::uint64_t base, std::uint64_t index);

// A small deterministic generator for probes (same numbers on every platform and standard library, unlike
// std::uniform_int_distribution): splitmix64 stream from a case seed.
class rng {
 public:
  explicit rng(std::uint64_t seed) : state_(seed) {}
  std::uint64_t next() { return splitmix64(state_); }
  std::uint64_t below(std::uint64_t n);                   // uniform in [0, n), n > 0 (rejection, no modulo bias)
  std::int64_t range(std::int64_t lo, std::int64_t hi);   // uniform in [lo, hi], inclusive
  double unit();                                          // uniform in [0, 1), 53 bits
  bool chance(double p) { return unit() < p; }
  template <class C>
  const auto& pick(const C& c) { return c[below(c.size())]; }

 private:
  std::uint64_t state_;
};

// --shard I/N with 1 <= I <= N: the case at position p (0-based, in the full deterministic case list) belongs to
// shard I iff p % N == I-1. Disjoint and covering for any list, since every p has exactly one residue.
struct shard_spec {
  unsigned index = 1, count = 1;
  bool contains(std::size_t position) const { return position % count == index - 1; }
  bool is_whole() const { return count == 1; }
};
shard_spec parse_shard(std::string_view s);  // throws usage_error with the reason

}  // namespace tp::probe
