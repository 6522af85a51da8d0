#include "probes/ck_support/ck_driver.h"
#include "probes/ck_support/ck_input.h"

#include "probes/common/parallel.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <optional>

namespace tp::ck_probe {

namespace {

std::string hex_words(const std::vector<std::uint32_t>& w) {
  std::string s;
  char buf[16];
  for (auto x : w) {
    std::snprintf(buf, sizeof buf, "0x%08x", x);
    s += (s.empty() ? "" : " ") + std::string(buf);
  }
  return s;
}

std::string values_of(api::dtype t, const std::vector<std::uint8_t>& bytes) {
  std::string s;
  char buf[32];
  const std::size_t step = t == api::dtype::fp16 ? 2 : 1;
  for (std::size_t i = 0; i + step <= bytes.size(); i += step) {
    std::int32_t code = t == api::dtype::fp16 ? std::int32_t(bytes[i] | bytes[i + 1] << 8)
                        : t == api::dtype::int8 ? std::int32_t(std::int8_t(bytes[i]))
                                                : std::int32_t(bytes[i]);
    if (t == api::dtype::pk_int4) {
      std::snprintf(buf, sizeof buf, "%02x", bytes[i]);
    } else {
      std::snprintf(buf, sizeof buf, "%g", value_of(t, code));
    }
    s += (s.empty() ? "" : " ") + std::string(buf);
  }
  return s;
}

// FNV-1a (32-bit) over the raw bits of one tile's D, element 0..255 (row-major 16 x 16), each element's 4 bytes
// least significant first: int32 for the integer types, the float's bit pattern otherwise (NaN payloads included).
std::uint32_t d_digest(const tile& t, const api::tile_results& r, std::size_t index) {
  std::uint32_t h = 2166136261u;
  const bool integer = api::is_integer(t.shape.type);
  for (unsigned i = 0; i < 256; ++i) {
    std::uint32_t bits;
    if (integer) std::memcpy(&bits, &r.d_int[index * 256 + i], 4);
    else std::memcpy(&bits, &r.d_float[index * 256 + i], 4);
    for (int b = 0; b < 4; ++b) {
      h ^= (bits >> (8 * b)) & 0xFFu;
      h *= 16777619u;
    }
  }
  return h;
}

// A tree variant's run stopped by a sanitizer (kernels/ck_sparse/tree): the case fails with the report as its evidence.
void sanitizer_evidence(probe::outcome& o, const std::string& report) {
  o.pass = false;
  o.note("sanitizer report from the tree's own code (first frames):");
  std::size_t at = 0;
  while (at <= report.size()) {
    const auto end = std::min(report.find('\n', at), report.size());
    if (end > at) o.note("  " + report.substr(at, end - at));
    at = end + 1;
  }
  o.count("tree.sanitizer_reports");
  o.metric_sum("wrong", 1);
}

probe::outcome run_compress(const compress_case& c, const api::ops& ops) {
  const auto r = ops.compress(c.type, c.input);
  probe::outcome o;
  if (!r.sanitizer_report.empty()) {
    sanitizer_evidence(o, r.sanitizer_report);
    o.count("compress.cases");
    return o;
  }
  const bool idx_ok = c.exact_idx ? r.idx == c.want_idx : r.fields == c.want_fields;
  o.pass = r.compressed == c.want_compressed && idx_ok && r.oob_survivor_writes == 0 && r.oob_field_writes == 0;
  o.note("compressed out " + values_of(c.type, r.compressed) + ", idx " + hex_words(r.idx) + " (" +
         std::to_string(r.fields) + " fields)");
  if (!o.pass)
    o.note("expected       " + values_of(c.type, c.want_compressed) + ", " +
           (c.exact_idx ? "idx " + hex_words(c.want_idx) : std::to_string(c.want_fields) + " fields"));
  if (r.oob_survivor_writes || r.oob_field_writes)
    o.note("UB upstream: " + std::to_string(r.oob_survivor_writes) + " writes past nonzero_elems[1], " +
           std::to_string(r.oob_field_writes) + " idx fields past the field count");
  if (!c.note.empty()) o.note(c.note);
  o.metric_sum("wrong", o.pass ? 0 : 1);
  o.count("compress.cases");
  return o;
}

double seconds_between(std::chrono::steady_clock::time_point a, std::chrono::steady_clock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

// Whether two payloads name the same tile: the same fixture/adversarial/control object (the prepared batch keeps a
// copy of the payload, so that object stays alive and its address cannot be reused), or the same fuzz generator input.
bool same_tile(const tile_payload& a, const tile_payload& b) {
  if (a.t || b.t) return a.t == b.t;
  return a.shape == b.shape && a.tile_seed == b.tile_seed && a.kinds == b.kinds;
}

// What every variant of one batch shares: the generated tiles, their packed operands, the oracle's D and the group
// census. The framework runs each batch through every variant in turn, so the batch is prepared by the first variant
// and reused by the others; any other batch (the next one, a shrink candidate) is prepared afresh.
struct prepared_batch {
  std::vector<std::optional<tile_payload>> keys;  // per case; nullopt for compress-level cases
  std::vector<tile> pool;                         // generated fuzz tiles
  std::vector<const tile*> tiles;
  std::vector<std::size_t> tile_case_index;       // tile -> case index in the batch
  packed_tiles packed;
  std::vector<expected_d> want;
  std::vector<tile_census> groups;

  bool holds(std::span<const probe::case_def* const> cases) const {
    if (keys.size() != cases.size()) return false;
    for (std::size_t i = 0; i < cases.size(); ++i) {
      const auto* p = std::any_cast<tile_payload>(&cases[i]->payload);
      if (bool(p) != keys[i].has_value() || (p && !same_tile(*p, *keys[i]))) return false;
    }
    return true;
  }

  // Generation, oracle and census are per tile and independent: `jobs` threads share them out.
  void prepare(std::span<const probe::case_def* const> cases, unsigned jobs) {
    keys.clear();
    tiles.clear();
    tile_case_index.clear();
    std::vector<std::pair<const tile_payload*, tile*>> to_generate;
    // The pool grows before any pointer into it is taken.
    if (pool.size() < cases.size()) pool.resize(cases.size());
    for (std::size_t i = 0; i < cases.size(); ++i) {
      const auto* p = std::any_cast<tile_payload>(&cases[i]->payload);
      keys.emplace_back(p ? std::optional<tile_payload>(*p) : std::nullopt);
      if (!p) continue;
      if (p->t) {
        tiles.push_back(p->t.get());
      } else {
        tile* slot = &pool[to_generate.size()];
        to_generate.emplace_back(p, slot);
        tiles.push_back(slot);
      }
      tile_case_index.push_back(i);
    }
    want.resize(tiles.size());
    groups.resize(tiles.size());
    const auto t0 = std::chrono::steady_clock::now();
    probe::parallel_for(to_generate.size(), jobs, [&](std::size_t begin, std::size_t end) {
      for (std::size_t n = begin; n < end; ++n) {
        const auto& [p, slot] = to_generate[n];
        fill_random_tile(*slot, p->shape, p->tile_seed, *p->kinds);
      }
    });
    const auto t1 = std::chrono::steady_clock::now();
    probe::parallel_for(tiles.size(), jobs, [&](std::size_t begin, std::size_t end) {
      for (std::size_t n = begin; n < end; ++n) {
        oracle_into(want[n], *tiles[n]);
        groups[n] = census(*tiles[n]);
      }
    });
    const auto t2 = std::chrono::steady_clock::now();
    pack_tiles(packed, tiles, jobs);
    const auto t3 = std::chrono::steady_clock::now();
    wall.generate += seconds_between(t0, t1);
    wall.oracle += seconds_between(t1, t2);
    wall.pack += seconds_between(t2, t3);
  }

  // Wall-clock seconds of each phase, summed over the batches prepared (for --bench).
  struct phase_walls {
    double generate = 0, oracle = 0, pack = 0;
  } wall;
};

// What the batch runner reuses from batch to batch, and the --bench tallies: CPU time of the process (every --jobs
// thread), split into what the variants share (generation + packing, oracle + census: once per batch) and what each
// variant does alone (the launches, judging), per shape.
struct runner_state {
  bool bench = false;
  prepared_batch batch;
  std::vector<api::tile_results> results;
  std::vector<double> launch_seconds;
  std::map<api::dtype, std::vector<api::tile_shape>> shapes;
  const std::vector<api::tile_shape>& shapes_of(api::dtype t) {
    auto& v = shapes[t];
    if (v.empty()) v = shapes_for(t);
    return v;
  }

  std::uint64_t fuzz_cases = 0;
  double fuzz_id_seconds = 0;
  struct tally {
    std::uint64_t tiles = 0, tile_cases = 0;  // tile_cases: 16x16x32 units (a 16x16xK tile is K/32 of them)
    double launch = 0, judge = 0;
  };
  // (variant, shape label) -> tally; "" label: every shape.
  std::map<std::pair<std::string, std::string>, tally> tallies;
  struct shared_tally {
    std::uint64_t tiles = 0;
    double prepare = 0;
  } shared;
  double wall = 0;  // wall-clock seconds inside the batch runner
  double launch_wall = 0, judge_wall = 0;  // of which launching and judging (every variant); preparing: batch.wall
  unsigned jobs = 1;

  void account_prepare(double seconds) {
    shared.tiles += batch.tiles.size();
    shared.prepare += seconds;
  }

  void account_variant(const std::string& variant, double judge) {
    const auto& p = batch.packed;
    std::uint64_t units = 0;
    for (const auto* t : batch.tiles) units += t->shape.k / 32;
    auto& all = tallies[{variant, ""}];
    all.tiles += batch.tiles.size();
    all.tile_cases += units;
    for (double l : launch_seconds) all.launch += l;
    all.judge += judge;
    for (std::size_t n = 0; n < p.per_shape.size(); ++n) {
      const auto& s = p.per_shape[n];
      auto& t = tallies[{variant, shape_label(s.shape)}];
      const std::uint64_t u = s.tiles * (s.shape.k / 32);
      t.tiles += s.tiles;
      t.tile_cases += u;
      t.launch += launch_seconds[n];
      t.judge += units ? judge * double(u) / double(units) : 0.0;  // judging is shared out by tile-cases
    }
  }

  // The loop as a whole: every tile through every variant, all CPU time of the batch runner counted once.
  struct loop_totals {
    std::uint64_t runs = 0;  // 16x16x32 tile-cases run and judged, over the variants
    double per_variant = 0, judge = 0, total = 0;
    std::size_t variants = 0;
  };
  loop_totals totals() const {
    loop_totals l;
    for (const auto& [key, t] : tallies)
      if (key.second.empty()) {
        l.runs += t.tile_cases;
        l.per_variant += t.launch + t.judge;
        l.judge += t.judge;
        ++l.variants;
      }
    l.total = shared.prepare + l.per_variant;
    return l;
  }
  // Host work per tile-case run (everything but the launches): what bounds a GPU run, whatever the device does.
  double host_us_per_run(const loop_totals& l) const {
    return l.runs ? 1e6 * (shared.prepare + l.judge) / double(l.runs) : 0.0;
  }

  // The figures tileprobe-report --throughput reads (JSON "bench"); the lines below say the same in words.
  std::map<std::string, double> bench_figures() const {
    const auto l = totals();
    return {{"cpu_seconds", l.total},
            {"tile_case_runs", double(l.runs)},
            {"host_cpu_us_per_tile_case_run", host_us_per_run(l)},
            {"batch_runner_wall_seconds", wall},
            {"host_threads", double(jobs)}};
  }

  std::vector<std::string> bench_lines() const {
    std::vector<std::string> lines;
    if (!bench) return lines;
    char buf[400];
    const double id_per_case = fuzz_cases ? fuzz_id_seconds / double(fuzz_cases) : 0.0;
    std::snprintf(buf, sizeof buf, "bench: fuzz case ids and seeds: %llu cases in %.3f s CPU (%.2f us/case)",
                  (unsigned long long)fuzz_cases, fuzz_id_seconds, 1e6 * id_per_case);
    lines.push_back(buf);
    const auto l = totals();
    const std::uint64_t runs = l.runs;
    const double per_variant = l.per_variant, total = l.total;
    const std::size_t variants = l.variants;
    std::snprintf(buf, sizeof buf,
                  "bench: fuzz loop, %zu variant(s): %llu tiles, %llu 16x16x32 tile-cases run and judged in %.3f s "
                  "CPU = %.0f tile-cases/s per core (shared by the variants: generate+pack+oracle+census %.3f s; "
                  "per variant: kernel+judge %.3f s)",
                  variants, (unsigned long long)shared.tiles, (unsigned long long)runs, total,
                  total > 0 ? double(runs) / total : 0.0, shared.prepare, per_variant);
    lines.push_back(buf);
    std::snprintf(buf, sizeof buf,
                  "bench: fuzz loop wall clock in the batch runner: %.3f s with %u host thread(s) = %.0f tile-cases/s "
                  "(CPU time above counts every thread; the report's run line adds case generation and bookkeeping)",
                  wall, jobs, wall > 0 ? double(runs) / wall : 0.0);
    lines.push_back(buf);
    const auto& w = batch.wall;
    std::snprintf(buf, sizeof buf,
                  "bench: batch runner wall clock by phase: generate %.3f s, oracle+census %.3f s, pack %.3f s (once "
                  "per batch); launches %.3f s, judging %.3f s (every variant); other %.3f s",
                  w.generate, w.oracle, w.pack, launch_wall, judge_wall,
                  std::max(0.0, wall - w.generate - w.oracle - w.pack - launch_wall - judge_wall));
    lines.push_back(buf);
    // What bounds a GPU run: the host work per run (everything but the launches), whatever the device does.
    if (runs > 0) {
      const double us = host_us_per_run(l);
      std::snprintf(buf, sizeof buf,
                    "bench: host work per tile-case run (generate, oracle, census, pack, judge; launches excluded): "
                    "%.2f us CPU = at most %.0f tile-cases/s per host thread, whatever runs the kernels",
                    us, us > 0 ? 1e6 / us : 0.0);
      lines.push_back(buf);
    }
    for (const auto& [key, t] : tallies) {
      // The whole mix, and the smallest tile of the probe's integer type (one 16x16x32 instruction, FragsK 1).
      if (!key.second.empty() && key.second != "int8,K=32" && key.second != "pk_int4,K=32") continue;
      const double secs = t.launch + t.judge;
      std::snprintf(buf, sizeof buf,
                    "bench: %s %s: %llu tiles = %llu 16x16x32 tile-cases, kernel %.3f s + judge %.3f s CPU = %.0f "
                    "tile-cases/s per core for this variant's own work",
                    key.first.c_str(), key.second.empty() ? "all shapes" : key.second.c_str(),
                    (unsigned long long)t.tiles, (unsigned long long)t.tile_cases, t.launch, t.judge,
                    secs > 0 ? double(t.tile_cases) / secs : 0.0);
      lines.push_back(buf);
    }
    return lines;
  }
};

}  // namespace

std::vector<std::uint32_t> idx_words_of(const std::vector<unsigned>& group_nibbles) {
  std::vector<std::uint32_t> w((4 * group_nibbles.size() + 31) / 32, 0u);
  for (std::size_t i = 0; i < group_nibbles.size(); ++i) w[i / 8] |= (group_nibbles[i] & 0xFu) << (4 * (i % 8));
  return w;
}

void install(probe::app& app, const ck_probe_config& cfg_in) {
  auto cfg = std::make_shared<ck_probe_config>(cfg_in);
  auto st = std::make_shared<runner_state>();
  using probe::case_def;
  using probe::case_list;
  using probe::case_name;
  using probe::source_kind;

  auto tile_case = [cfg](case_name id, tile t, std::string label) {
    case_def c;
    c.id = id.str();
    c.group = std::string(api::to_string(t.shape.type));
    c.payload = tile_payload{std::make_shared<const tile>(std::move(t)), std::move(label)};
    return c;
  };

  {
    std::vector<std::string> names;
    for (const auto& f : cfg->fixtures) names.push_back(f.a);
    app.fixture_names(std::move(names));
  }
  // A tree variant's provenance (the user's CK file: layout, commit, SHA-256, API generation) in the environment block,
  // for every tree variant this build holds.
  for (const auto& v : probe::default_variant_provider()("ck_sparse"))
    if (const auto* ops = static_cast<const api::ops*>(v.ops); ops && ops->provenance)
      for (const char* const* kv = ops->provenance; kv[0] && kv[1]; kv += 2) app.env(v.name + " " + kv[0], kv[1]);
  app.source(source_kind::fixture, [cfg, &app, tile_case](case_list& out) {
    const auto& sel = app.opts().fixtures;
    for (const auto& f : cfg->fixtures) {
      if (!sel.empty() && std::find(sel.begin(), sel.end(), f.a) == sel.end() &&
          std::find(sel.begin(), sel.end(), "all") == sel.end())
        continue;
      for (const auto& s : shapes_for(f.type))
        for (unsigned t = 0; t < 256 / s.k; ++t)
          out.push_back(tile_case(case_name(cfg->case_prefix)("dtype", api::to_string(s.type))("K", s.k)(
                                      "op", api::to_string(s.instr))("src", "fixture:" + f.a)("tile", t),
                                  fixture_tile(f.a, f.b, s, t), "fixture"));
    }
  });

  app.source(source_kind::adversarial, [cfg, tile_case](case_list& out) {
    const group_kinds* kinds = cfg->adversarial_kinds.empty() ? nullptr : &cfg->adversarial_kinds;
    const unsigned rotations = kinds ? unsigned(kinds->size()) : unsigned(ref::all_group_kinds.size());
    for (auto t : cfg->dtypes)
      for (const auto& s : shapes_for(t))
        for (unsigned off = 0; off < rotations; ++off)
          out.push_back(tile_case(case_name(cfg->case_prefix)("dtype", api::to_string(s.type))("K", s.k)(
                                      "op", api::to_string(s.instr))("src", "adversarial")("offset", off),
                                  adversarial_tile(s, off, kinds), "adversarial"));
    for (const auto& [id, cc] : cfg->compress_cases) {
      case_def c;
      c.id = id;
      c.group = "compress:" + std::string(api::to_string(cc.type));
      c.payload = cc;
      out.push_back(std::move(c));
    }
  });

  app.source(source_kind::control, [cfg, tile_case](case_list& out) {
    for (auto t : cfg->dtypes)
      for (const auto& s : shapes_for(t))
        for (std::uint64_t seed = 1; seed <= 4; ++seed) {
          tile tl = cfg->control_kinds.empty() ? canonical_tile(s, seed) : random_tile(s, seed, cfg->control_kinds);
          out.push_back(tile_case(case_name(cfg->case_prefix)("dtype", api::to_string(s.type))("K", s.k)(
                                      "op", api::to_string(s.instr))("src", cfg->control_label)("seed", seed),
                                  std::move(tl), cfg->control_label));
        }
  });

  // The fuzz loop: a case is its id and a seed; the tile is generated by the runner (see tile_payload).
  app.fuzz([cfg, st, &app](std::uint64_t seed, case_list& out) {
    st->bench = app.opts().bench;
    const double t0 = st->bench ? thread_cpu_seconds() : 0.0;
    probe::rng r(seed);
    const api::dtype t = r.pick(cfg->dtypes);
    const auto& shapes = st->shapes_of(t);
    const auto s = r.pick(shapes);
    case_def c;
    c.id = case_name(cfg->case_prefix)("dtype", api::to_string(s.type))("K", s.k)("op", api::to_string(s.instr))(
               "src", "fuzz")
               .seed(seed)
               .str();
    c.group = api::to_string(s.type);
    c.payload = tile_payload{nullptr, "fuzz", s, r.next(), &cfg->fuzz_kinds};
    c.seed = seed;
    out.push_back(std::move(c));
    if (st->bench) {
      st->fuzz_cases += 1;
      st->fuzz_id_seconds += thread_cpu_seconds() - t0;
    }
  });

  app.batch_runner([cfg, st, &app](std::span<const case_def* const> cases, const probe::variant& v,
                                    std::span<probe::outcome> out) {
    st->bench = app.opts().bench;
    const auto wall0 = std::chrono::steady_clock::now();
    const auto& ops = v.ops_as<api::ops>();
    auto& b = st->batch;
    const unsigned jobs = st->jobs = app.opts().jobs;
    if (!b.holds(cases)) {
      const double t0 = st->bench ? process_cpu_seconds() : 0.0;
      b.prepare(cases, jobs);
      if (st->bench) st->account_prepare(process_cpu_seconds() - t0);
    }
    for (std::size_t i = 0; i < cases.size(); ++i)
      if (const auto* cc = std::any_cast<compress_case>(&cases[i]->payload)) out[i] = run_compress(*cc, ops);
    if (b.tiles.empty()) return;
    const auto wall_launch = std::chrono::steady_clock::now();
    launch_packed(ops, b.packed, st->results, st->bench ? &st->launch_seconds : nullptr);
    const auto wall_judge = std::chrono::steady_clock::now();
    const double t_judge = st->bench ? process_cpu_seconds() : 0.0;
    probe::parallel_for(b.tiles.size(), jobs, [&](std::size_t begin, std::size_t end) {
      for (std::size_t n = begin; n < end; ++n) {
        const auto [res, idx] = b.packed.where[n];
        const auto& r = st->results[res];
        const tile& t = *b.tiles[n];
        const auto& want = b.want[n];
        const auto e = evaluate(t, b.groups[n], want, r, idx);
        probe::outcome& o = out[b.tile_case_index[n]];
        o = probe::outcome{};
        o.pass = cfg->judge(t, e, o);
        // Summed per variant over the run (exact in a double below 2^53, i.e. for up to 2^21 tiles): equal sums on two
        // backends say the D outputs were bit-identical, whatever order the cases ran in.
        o.metric_sum("d_digest", double(d_digest(t, r, idx)));
        o.metric_sum("d_digest_cases", 1);
        describe(o, t, e, want, r, idx);
        if (idx < r.sanitizer_reports.size() && !r.sanitizer_reports[idx].empty())
          sanitizer_evidence(o, r.sanitizer_reports[idx]);
        count_coverage(o, t, e);
        if (e.groups.nonzero_groups <= 2) group_lines(o, t, r, idx, 2);
      }
    });
    if (st->bench) {
      st->account_variant(v.name, process_cpu_seconds() - t_judge);
      const auto end = std::chrono::steady_clock::now();
      st->launch_wall += seconds_between(wall_launch, wall_judge);
      st->judge_wall += seconds_between(wall_judge, end);
      st->wall += seconds_between(wall0, end);
    }
  });

  app.notes([st] { return st->bench_lines(); });
  app.bench_figures([st] { return st->bench_figures(); });

  // --input files (ck_input.h), the input files of counterexamples, and reruns of shrunk ids through their parent.
  app.input([cfg, &app](const std::string& path, case_list& out) {
    for (auto& c : read_input(path, app.name(), *cfg)) out.push_back(std::move(c));
  });
  app.input_text([&app](const case_def& c) { return input_text(c, app.name()); });
  app.shrunk_parent([](std::string_view id) { return probe::shrunk_parent(id, 2); });

  app.shrinker([cfg](const case_def& c) {
    case_list smaller;
    const auto* p = std::any_cast<tile_payload>(&c.payload);
    if (!p) return smaller;
    const tile t = p->materialize();
    auto groups = nonzero_groups(t);
    if (groups.size() <= 1) return smaller;
    auto rank = [&](std::pair<unsigned, unsigned> rg) {
      const auto kind = ref::group_kind_of(survivor_mask(t, rg.first, rg.second));
      const auto& first = cfg->shrink_first;
      const auto it = kind ? std::find(first.begin(), first.end(), *kind) : first.end();
      return it == first.end() ? 100 : int(it - first.begin());
    };
    std::stable_sort(groups.begin(), groups.end(), [&](auto x, auto y) { return rank(x) < rank(y); });
    for (auto [row, g] : groups) {
      if (smaller.size() == 150) break;
      case_def s;
      s.id = probe::shrunk_id(c.id, {{"row", std::to_string(row)}, {"group", std::to_string(g)}});
      s.source = c.source;
      s.group = c.group;
      s.payload = tile_payload{std::make_shared<const tile>(single_group(t, row, g)), p->label};
      smaller.push_back(std::move(s));
    }
    return smaller;
  });
}

}  // namespace tp::ck_probe
