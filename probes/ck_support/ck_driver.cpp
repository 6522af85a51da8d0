#include "probes/ck_support/ck_driver.h"

#include <algorithm>
#include <cstdio>
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

}  // namespace

std::vector<std::uint32_t> idx_words_of(const std::vector<unsigned>& group_nibbles) {
  std::vector<std::uint32_t> w((4 * group_nibbles.size() + 31) / 32, 0u);
  for (std::size_t i = 0; i < group_nibbles.size(); ++i) w[i / 8] |= (group_nibbles[i] & 0xFu) << (4 * (i % 8));
  return w;
}

void install(probe::app& app, const ck_probe_config& cfg_in) {
  auto cfg = std::make_shared<ck_probe_config>(cfg_in);
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

  app.fuzz([cfg, tile_case](std::uint64_t seed, case_list& out) {
    probe::rng r(seed);
    const api::dtype t = r.pick(cfg->dtypes);
    const auto shapes = shapes_for(t);
    const auto s = r.pick(shapes);
    auto c = tile_case(case_name(cfg->case_prefix)("dtype", api::to_string(s.type))("K", s.k)("op", api::to_string(s.instr))(
                           "src", "fuzz")
                           .seed(seed),
                       random_tile(s, r.next(), cfg->fuzz_classes), "fuzz");
    c.seed = seed;
    out.push_back(std::move(c));
  });

  app.batch_runner([cfg](std::span<const case_def* const> cases, const probe::variant& v, std::span<probe::outcome> out) {
    const auto& ops = v.ops_as<api::ops>();
    std::vector<const tile*> tiles;
    std::vector<std::size_t> tile_case_index;
    for (std::size_t i = 0; i < cases.size(); ++i) {
      if (const auto* cc = std::any_cast<compress_case>(&cases[i]->payload)) {
        out[i] = run_compress(*cc, ops);
      } else {
        tiles.push_back(cases[i]->as<tile_payload>().t.get());
        tile_case_index.push_back(i);
      }
    }
    if (tiles.empty()) return;
    const auto run = run_tiles(ops, tiles);
    for (std::size_t n = 0; n < tiles.size(); ++n) {
      const auto [res, idx] = run.where[n];
      const auto& r = run.results[res];
      const tile& t = *tiles[n];
      const auto want = oracle(t);
      const auto e = evaluate(t, want, r, idx);
      probe::outcome& o = out[tile_case_index[n]];
      o = probe::outcome{};
      o.pass = cfg->judge(t, e, o);
      describe(o, t, e, want, r, idx);
      count_coverage(o, t, e);
      if (nonzero_groups(t).size() <= 2) group_lines(o, t, r, idx, 2);
    }
  });

  app.shrinker([cfg](const case_def& c) {
    case_list smaller;
    const auto* p = std::any_cast<tile_payload>(&c.payload);
    if (!p) return smaller;
    const tile& t = *p->t;
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
