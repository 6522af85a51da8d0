// A toy probe for the framework's tests: the "kernel" sums a list, the upstream variant drops every 3 (the bug),
// so a case fails on upstream iff it contains a 3. Variants are plain host functions behind an injected registry.
#pragma once

#include <cstdint>
#include <algorithm>
#include <fstream>
#include <functional>
#include <iostream>
#include <new>
#include <optional>
#include <numeric>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "probes/common/probe.h"

namespace toy {

using list = std::vector<int>;
struct ops {
  std::int64_t (*sum)(const list&);
};
inline std::int64_t sum_correct(const list& l) { return std::accumulate(l.begin(), l.end(), std::int64_t{0}); }
inline std::int64_t sum_upstream(const list& l) {
  std::int64_t s = 0;
  for (int x : l) s += x == 3 ? 0 : x;
  return s;
}
inline std::int64_t sum_broken_long(const list& l) { return sum_correct(l) + (l.size() > 5 ? 1 : 0); }
inline std::int64_t sum_throws(const list&) { throw std::runtime_error("divergent barrier at toy.cu:12"); }
inline std::int64_t sum_out_of_memory(const list&) { throw std::bad_alloc(); }
inline const ops upstream_ops{sum_upstream}, fixed_ops{sum_correct}, clone_ops{sum_correct},
    broken_ops{sum_broken_long}, throws_ops{sum_throws}, oom_ops{sum_out_of_memory};

inline std::string join(const list& l) {
  std::string s;
  for (int x : l) {
    if (!s.empty()) s += '.';
    s += std::to_string(x);
  }
  return s.empty() ? "empty" : s;
}

struct config {
  bool batch = false;              // use batch_runner instead of runner
  std::size_t batch_size = 4;
  std::vector<std::size_t>* batch_sizes_seen = nullptr;
  bool with_fixture = true;
  bool bare = false;  // tables only, as swmmac-sweep: no fixture names, fuzz generator, input parser, shrinker or skew
  bool out_of_memory_variant = false;  // registers "out-of-memory", whose runner throws std::bad_alloc
  bool gpu_available = false;      // what the backend hook says about cuda
  std::vector<std::pair<unsigned, unsigned>>* skews_set = nullptr;  // set: a set_skew hook records its calls here
  std::vector<std::string>* sanitizer_args = nullptr;  // set: a run_under_sanitizer hook records tool, then argv
  // The adversarial source also declares one of its cases `control` (as a sweep with clean points does); with
  // control_fails_upstream that case holds a 3, so upstream fails a control case.
  bool control_in_adversarial = false, control_fails_upstream = false;
};

// The toy's shrinker: drop one element at a time; shrunk ids name their parent.
inline tp::probe::case_list drop_one(const tp::probe::case_def& c) {
  using namespace tp::probe;
  const list& l = c.as<list>();
  case_list smaller;
  for (std::size_t i = 0; l.size() > 1 && i < l.size(); ++i) {
    list s = l;
    s.erase(s.begin() + std::ptrdiff_t(i));
    smaller.push_back({.id = shrunk_id(c.id, {{"drop", std::to_string(i)}}), .source = c.source, .payload = s});
  }
  return smaller;
}

inline void build(tp::probe::app& a, const config& cfg = {}) {
  using namespace tp::probe;
  a.family("toy").default_variants("upstream,fixed").buggy({"upstream"}).fixed({"fixed"})
      .must_catch({source_kind::fixture, source_kind::adversarial}).default_fuzz(10, 5).batch_size(cfg.batch_size);
  a.use_variant_provider([oom = cfg.out_of_memory_variant](std::string_view family) {
    std::vector<registered_variant> v;
    if (family != "toy") return v;
    v.push_back({"toy", "upstream", "cpu", &upstream_ops});
    v.push_back({"toy", "fixed", "cpu", &fixed_ops});
    v.push_back({"toy", "clone", "cpu", &clone_ops});
    v.push_back({"toy", "broken-long", "cpu", &broken_ops});
    v.push_back({"toy", "throws", "cpu", &throws_ops});
    if (oom) v.push_back({"toy", "out-of-memory", "cpu", &oom_ops});
    v.push_back({"toy", "upstream", "cuda", &upstream_ops});
    v.push_back({"toy", "fixed", "cuda", &fixed_ops});
    return v;
  });
  backend_hooks hooks{[gpu = cfg.gpu_available](std::string_view b) { return b == "cpu" || gpu; },
                      [](std::string_view b) { return std::string("toy ") + std::string(b); }};
  if (cfg.skews_set)
    hooks.set_skew = [seen = cfg.skews_set](unsigned mask, unsigned cycles) { seen->emplace_back(mask, cycles); };
  if (cfg.sanitizer_args)
    // Records instead of exec'ing, so the run goes on in-process as the re-executed child would.
    hooks.run_under_sanitizer = [seen = cfg.sanitizer_args](const std::string& tool, const std::vector<std::string>& args) {
      seen->push_back(tool);
      seen->insert(seen->end(), args.begin(), args.end());
    };
  a.use_backend_hooks(hooks);
  const auto make = [](const list& l, std::string src) {
    return case_def{.id = case_name("toy")("v", join(l))("src", src), .payload = l};
  };
  // One fixture, "x", both of whose cases --fixture x selects (declared also when its source is left out).
  if (!cfg.bare) a.fixture_names({"x"}).skew_points();
  if (cfg.with_fixture)
    a.source(source_kind::fixture, [make, &a](case_list& out) {
      const auto& sel = a.opts().fixtures;
      if (!sel.empty() && std::find(sel.begin(), sel.end(), "x") == sel.end()) return;
      out.push_back(make({1, 2, 3}, "fixture"));
      out.push_back(make({4, 5}, "fixture"));
    });
  a.source(source_kind::adversarial, [make, cfg](case_list& out) {
    if (cfg.control_in_adversarial) {
      auto c = make(cfg.control_fails_upstream ? list{3, 7} : list{7, 8}, "sweep-clean-point");
      c.source = source_kind::control;
      c.group = "sweep (control)";
      out.push_back(std::move(c));
    }
    for (int n = 1; n <= 6; ++n) {
      list l(static_cast<std::size_t>(n));
      std::iota(l.begin(), l.end(), 1);
      auto c = make(l, "iota");
      c.group = "iota";
      if (n >= 3) c.buggy = on_buggy::fail;
      out.push_back(std::move(c));
    }
  });
  a.source(source_kind::control, [make](case_list& out) { out.push_back(make({1, 2}, "upstream-test")); });
  if (cfg.bare) {
    a.runner([](const case_def& c, const variant& v) {
      outcome o;
      o.pass = v.ops_as<ops>().sum(c.as<list>()) == sum_correct(c.as<list>());
      return o;
    });
    return;
  }
  a.fuzz([](std::uint64_t seed, case_list& out) {
    rng r(seed);
    list l(static_cast<std::size_t>(r.range(1, 10)));
    for (auto& x : l) x = int(r.range(0, 9));
    out.push_back({.id = case_name("toy")("n", l.size()).seed(seed), .seed = seed, .payload = l});
  });
  // The toy's input body (tileprobe-input v1): `list V...`, the values summed.
  a.input([](const std::string& path, case_list& out) {
    auto f = input_file::read(path, "probe-toy");
    const auto& r = f.next("list");
    list l;
    for (std::size_t i = 0; i < r.size(); ++i) l.push_back(int(r.integer(i, -1000, 1000)));
    f.expect_end();
    out.push_back({.id = case_name("toy")("v", join(l))("src", "input"), .payload = l});
  });
  a.input_text([](const case_def& c) -> std::optional<std::string> {
    std::vector<std::string> v;
    for (int x : c.as<list>()) v.push_back(std::to_string(x));
    return input_writer("probe-toy").record("list", v).str();
  });
  a.shrunk_parent([](std::string_view id) { return shrunk_parent(id, 1); });
  const auto one = [](const case_def& c, const variant& v) {
    const list& l = c.as<list>();
    const auto want = sum_correct(l);
    const auto got = v.ops_as<ops>().sum(l);
    outcome o;
    o.pass = got == want;
    o.metric_max("abs_err", double(got > want ? got - want : want - got)).metric_sum("wrong", o.pass ? 0 : 1);
    o.count("lists");
    o.count("threes", std::uint64_t(std::count(l.begin(), l.end(), 3)));
    o.note("sum " + std::to_string(got) + ", expected " + std::to_string(want));
    return o;
  };
  if (cfg.batch) {
    a.batch_runner([one, seen = cfg.batch_sizes_seen](std::span<const case_def* const> cs, const variant& v,
                                                      std::span<outcome> out) {
      if (seen) seen->push_back(cs.size());
      for (std::size_t i = 0; i < cs.size(); ++i) out[i] = one(*cs[i], v);
    });
  } else {
    a.runner(one);
  }
  a.notes([] { return std::vector<std::string>{"toy note: lists are summed"}; });
  a.shrinker(drop_one);
}

}  // namespace toy
