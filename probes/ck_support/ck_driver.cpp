#include "probes/ck_support/ck_driver.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>

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

probe::outcome run_compress(const compress_case& c, const api::ops& ops) {
  const auto r = ops.compress(c.type, c.input);
  probe::outcome o;
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

// What the batch runner reuses from batch to batch (tiles of fuzz cases, launch buffers), and the --bench tallies:
// CPU time of the calling thread, split into generation + packing, the launches, and oracle + judging, per shape.
struct runner_state {
  bool bench = false;
  std::vector<tile> pool;
  std::vector<const tile*> tiles;
  std::vector<std::size_t> tile_case_index;
  batch_run run;
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
    double gen = 0, launch = 0, eval = 0;
  };
  // (variant, shape label) -> tally; "" label: every shape.
  std::map<std::pair<std::string, std::string>, tally> tallies;

  void account(const std::string& variant, const std::vector<const tile*>& ts, const batch_run& r, double gen,
               double launch_total, double eval) {
    // Generation and evaluation are shared out by tile-cases; each launch is its shape's own.
    std::uint64_t units = 0;
    for (const auto* t : ts) units += t->shape.k / 32;
    std::vector<std::uint64_t> units_of(r.results.size(), 0), tiles_of(r.results.size(), 0);
    for (std::size_t i = 0; i < ts.size(); ++i) {
      units_of[r.shape_of[i]] += ts[i]->shape.k / 32;
      ++tiles_of[r.shape_of[i]];
    }
    std::vector<std::string> labels(r.results.size());
    for (std::size_t i = 0; i < ts.size(); ++i) labels[r.shape_of[i]] = shape_label(ts[i]->shape);
    auto& all = tallies[{variant, ""}];
    all.tiles += ts.size();
    all.tile_cases += units;
    all.gen += gen;
    all.launch += launch_total;
    all.eval += eval;
    for (std::size_t n = 0; n < r.results.size(); ++n) {
      auto& t = tallies[{variant, labels[n]}];
      const double share = double(units_of[n]) / double(units);
      t.tiles += tiles_of[n];
      t.tile_cases += units_of[n];
      t.gen += gen * share;
      t.launch += launch_seconds[n];
      t.eval += eval * share;
    }
  }

  std::vector<std::string> bench_lines() const {
    std::vector<std::string> lines;
    if (!bench) return lines;
    char buf[320];
    const double id_per_case = fuzz_cases ? fuzz_id_seconds / double(fuzz_cases) : 0.0;
    std::snprintf(buf, sizeof buf, "bench: fuzz case ids and seeds: %llu cases in %.3f s CPU (%.2f us/case)",
                  (unsigned long long)fuzz_cases, fuzz_id_seconds, 1e6 * id_per_case);
    lines.push_back(buf);
    for (const auto& [key, t] : tallies) {
      // The whole mix, and the smallest tile of the probe's integer type (one 16x16x32 instruction, FragsK 1).
      if (!key.second.empty() && key.second != "int8,K=32" && key.second != "pk_int4,K=32") continue;
      const double secs = t.gen + t.launch + t.eval;
      std::snprintf(buf, sizeof buf,
                    "bench: %s %s: %llu tiles = %llu 16x16x32 tile-cases in %.3f s CPU = %.0f tile-cases/s per core "
                    "(generate+pack %.3f s, kernel %.3f s, oracle+judge %.3f s)",
                    key.first.c_str(), key.second.empty() ? "all shapes" : key.second.c_str(),
                    (unsigned long long)t.tiles, (unsigned long long)t.tile_cases, secs,
                    secs > 0 ? double(t.tile_cases) / secs : 0.0, t.gen, t.launch, t.eval);
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
    const std::vector<int>* classes = cfg->adversarial_classes.empty() ? nullptr : &cfg->adversarial_classes;
    const unsigned rotations = classes ? unsigned(classes->size()) : 11u;
    for (auto t : cfg->dtypes)
      for (const auto& s : shapes_for(t))
        for (unsigned off = 0; off < rotations; ++off)
          out.push_back(tile_case(case_name(cfg->case_prefix)("dtype", api::to_string(s.type))("K", s.k)(
                                      "op", api::to_string(s.instr))("src", "adversarial")("offset", off),
                                  adversarial_tile(s, off, classes), "adversarial"));
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
          tile tl = cfg->control_classes.empty() ? canonical_tile(s, seed) : random_tile(s, seed, cfg->control_classes);
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
    c.payload = tile_payload{nullptr, "fuzz", s, r.next(), &cfg->fuzz_classes};
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
    const auto& ops = v.ops_as<api::ops>();
    auto& tiles = st->tiles;
    auto& tile_case_index = st->tile_case_index;
    tiles.clear();
    tile_case_index.clear();
    std::size_t lazy = 0;
    // The pool grows before any pointer into it is taken.
    if (st->pool.size() < cases.size()) st->pool.resize(cases.size());
    const double t_gen = st->bench ? thread_cpu_seconds() : 0.0;
    for (std::size_t i = 0; i < cases.size(); ++i) {
      if (const auto* cc = std::any_cast<compress_case>(&cases[i]->payload)) {
        out[i] = run_compress(*cc, ops);
        continue;
      }
      const auto& p = cases[i]->as<tile_payload>();
      if (p.t) {
        tiles.push_back(p.t.get());
      } else {
        fill_random_tile(st->pool[lazy], p.shape, p.tile_seed, *p.classes);
        tiles.push_back(&st->pool[lazy++]);
      }
      tile_case_index.push_back(i);
    }
    if (tiles.empty()) return;
    const double t_run = st->bench ? thread_cpu_seconds() : 0.0;
    run_tiles_into(st->run, ops, tiles, st->bench ? &st->launch_seconds : nullptr);
    const double t_eval = st->bench ? thread_cpu_seconds() : 0.0;
    for (std::size_t n = 0; n < tiles.size(); ++n) {
      const auto [res, idx] = st->run.where[n];
      const auto& r = st->run.results[res];
      const tile& t = *tiles[n];
      const auto want = oracle(t);
      const auto e = evaluate(t, want, r, idx);
      probe::outcome& o = out[tile_case_index[n]];
      o = probe::outcome{};
      o.pass = cfg->judge(t, e, o);
      // Summed per variant over the run (exact in a double below 2^53, i.e. for up to 2^21 tiles): equal sums on two
      // backends say the D outputs were bit-identical, whatever order the cases ran in.
      o.metric_sum("d_digest", double(d_digest(t, r, idx)));
      o.metric_sum("d_digest_cases", 1);
      describe(o, t, e, want, r, idx);
      count_coverage(o, t, e);
      if (e.groups.nonzero_groups <= 2) group_lines(o, t, r, idx, 2);
    }
    if (st->bench) st->account(v.name, tiles, st->run, t_run - t_gen, t_eval - t_run, thread_cpu_seconds() - t_eval);
  });

  app.notes([st] { return st->bench_lines(); });

  app.shrinker([cfg](const case_def& c) {
    case_list smaller;
    const auto* p = std::any_cast<tile_payload>(&c.payload);
    if (!p) return smaller;
    const tile t = p->materialize();
    auto groups = nonzero_groups(t);
    if (groups.size() <= 1) return smaller;
    auto rank = [&](std::pair<unsigned, unsigned> rg) {
      const int cls = group_class(survivor_mask(t, rg.first, rg.second));
      const auto it = std::find(cfg->shrink_first.begin(), cfg->shrink_first.end(), cls);
      return it == cfg->shrink_first.end() ? 100 : int(it - cfg->shrink_first.begin());
    };
    std::stable_sort(groups.begin(), groups.end(), [&](auto x, auto y) { return rank(x) < rank(y); });
    for (auto [row, g] : groups) {
      if (smaller.size() == 150) break;
      case_def s;
      s.id = probe::case_name(cfg->case_prefix)("dtype", api::to_string(t.shape.type))("K", t.shape.k)(
                 "op", api::to_string(t.shape.instr))("src", "shrunk:" + p->label)("row", row)("group", g)
                 .str();
      s.source = c.source;
      s.group = c.group;
      s.payload = tile_payload{std::make_shared<const tile>(single_group(t, row, g)), p->label};
      smaller.push_back(std::move(s));
    }
    return smaller;
  });
}

}  // namespace tp::ck_probe
