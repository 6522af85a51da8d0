// The fa probes' tileprobe-input v1 body (format: fa_input.h).
#include "probes/fa_support/fa_input.h"

#include <charconv>
#include <memory>

#include "probes/common/input_file.h"
#include "reference/codecs.h"

namespace fa_probe {

namespace {
using tp::probe::input_file;
using tp::probe::input_record;
using tp::cpu::policy;


std::string double_text(double v) {
  char buf[40];
  const auto res = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, res.ptr);
}

std::string float_text(float v) {
  char buf[32];
  const auto res = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, res.ptr);
}

const policy policy_values[] = {policy::in_order, policy::reverse, policy::random, policy::adversarial};
const char* const policy_names[] = {"in_order", "reverse", "random", "adversarial"};

// `count` rows of `key`, each `key I R v1 .. v_width` with I in [0, outer) and R in [0, inner) in order.
void read_rows(input_file& f, std::string_view key, int outer, int inner, int width, std::vector<float>& out) {
  out.assign(std::size_t(outer) * inner * width, 0.0f);
  for (int i = 0; i < outer; ++i)
    for (int r = 0; r < inner; ++r) {
      const input_record& rec = f.next(key);
      rec.expect_size(std::size_t(2 + width));
      if (rec.integer(0, 0, outer - 1) != i || rec.integer(1, 0, inner - 1) != r)
        rec.fail("expected '" + std::string(key) + " " + std::to_string(i) + " " + std::to_string(r) +
                 " ...' here (rows in order: head, then row)");
      for (int d = 0; d < width; ++d) {
        const double v = rec.number(std::size_t(2 + d));
        const float h = tp::ref::fp16_to_float(tp::ref::double_to_fp16(v, true));  // fp16 round to nearest
        if (double(h) != v) {
          std::string msg = "'";  // built by appending: GCC 12 warns (-Wrestrict, a false positive) on a + chain here
          msg.append(key).append("' value ").append(std::to_string(d + 3)).append(" '").append(rec.word(2 + d));
          msg.append("' is not exactly an fp16 value (nearest: ").append(float_text(h)).append(")");
          rec.fail(msg);
        }
        out[(std::size_t(i) * inner + r) * width + d] = h;
      }
    }
}

input_case read_body(input_file& f, bool with_schedule) {
  const std::string& name = f.name();
  input_case ic;
  geometry& g = ic.g;
  {
    const auto& r = f.next("config").expect_size(1);
    g.config = tp::fattn::find_config(r.word(0));
    if (g.config < 0) {
      std::string known;
      for (const auto& c : configs) known += (known.empty() ? "" : ", ") + std::string(c.name);
      r.fail("unknown config '" + std::string(r.word(0)) + "' (known: " + known + ")");
    }
  }
  {
    const auto& r = f.next("kernel").expect_size(1);
    if (!tp::fattn::parse_kernel_kind(r.word(0), g.kernel)) r.fail("kernel must be f16, kvarn-kvarn or kvarn-k-orig-v");
  }
  g.n_q = int(f.next("nq").expect_size(1).integer(0, 1, 4096));
  g.n_kv = int(f.next("nkv").expect_size(1).integer(0, 1, 65536));
  g.n_tail = int(f.next("tail").expect_size(1).integer(0, 0, 4096));
  g.n_head = int(f.next("heads").expect_size(1).integer(0, 1, 64));
  if (const auto* r = f.next_if("gqa")) {
    r->expect_size(2);
    g.gqa = int(r->integer(0, 1, 64));
    g.ncols2 = int(r->integer(1, 1, 64));
    if (configs[g.config].ncols % g.ncols2 != 0)
      r->fail("ncols2 " + std::to_string(g.ncols2) + " does not divide the config's ncols " +
              std::to_string(configs[g.config].ncols));
  }
  {
    const auto& r = f.next("device").expect_size(2);
    g.cus = int(r.integer(0, 1, 4096));
    g.occupancy = int(r.integer(1, 1, 64));
  }
  if (const auto* r = f.next_if("mask")) {
    r->expect_size(1);
    if (r->word(0) != "none") r->fail("the model has no attention mask (kernels/fattn/api.h): only 'mask none' runs");
  }
  {
    const auto& r = f.next("data").expect_at_least(1);
    const std::size_t kind = r.choice(0, {"random", "fixture", "given"});
    std::size_t i = 1;
    if (kind == 0) {
      if (r.size() < 2) r.fail("'data random' needs a seed: data random SEED [qgain X] [kvarn on|off]");
      g.data = "random";
      g.data_seed = r.seed(1);
      i = 2;
    } else {
      g.data = kind == 1 ? "fixture" : "given";
    }
    while (i < r.size()) {
      const std::size_t opt = r.choice(i, {"qgain", "kvarn", "records"});
      if (kind == 2) r.fail("'data given' takes no options: the rows are used as given");
      if (i + 1 >= r.size()) r.fail("'" + std::string(r.word(i)) + "' needs a value");
      if (opt == 0) {
        g.q_gain = r.number(i + 1);
        if (!(g.q_gain > 0 && g.q_gain <= 1024)) r.fail("qgain must lie in (0, 1024]");
      } else if (opt == 1) {
        g.kvarn = r.choice(i + 1, {"on", "off"}) == 0;
      } else {
        // records BITS TAIL: KVarN records made by the tree's own store kernels (fa_support.h geometry)
        if (i + 2 >= r.size()) r.fail("'records' needs BITS and TAIL: records 4 1");
        g.records_bits = int(r.number(i + 1));
        g.records_tail = int(r.number(i + 2));
        if (g.records_bits != 2 && g.records_bits != 3 && g.records_bits != 4 && g.records_bits != 5 &&
            g.records_bits != 6 && g.records_bits != 8)
          r.fail("records BITS must be 2, 3, 4, 5, 6 or 8");
        if (g.records_tail < 1) r.fail("records TAIL must be >= 1");
        g.kvarn = false;
        ++i;
      }
      i += 2;
    }
    if (kind == 2) {
      auto d = std::make_shared<geometry::given_data>();
      d->label = tp::probe::input_label(name);
      const int D = dkq(g), Dv = dv(g);
      read_rows(f, "q", q_heads(g), g.n_q, D, d->q);
      read_rows(f, "k", g.n_head, g.n_kv, D, d->kb);
      read_rows(f, "v", g.n_head, g.n_kv, Dv, d->vb);
      read_rows(f, "k-tail", g.n_head, g.n_tail, D, d->kt);
      read_rows(f, "v-tail", g.n_head, g.n_tail, Dv, d->vt);
      g.given = std::move(d);
      g.kvarn = false;
    }
  }
  if (const auto* r = with_schedule ? &f.next("schedule") : f.next_if("schedule")) {
    if (!with_schedule) r->fail("this probe runs the in-order schedule; 'schedule' is fa-k00-combine-race's record");
    r->expect_at_least(1);
    const std::size_t p = r->choice(0, {policy_names[0], policy_names[1], policy_names[2], policy_names[3]});
    ic.sched = policy_values[p];
    if (ic.sched == policy::random) {
      r->expect_size(2);
      ic.sched_seed = r->seed(1);
    } else {
      r->expect_size(1);
    }
  }
  f.expect_end();
  if (g.kernel == tp::fattn::kernel_kind::kvarn_kvarn && dkq(g) != dv(g))
    f.fail_at_end("the kvarn-kvarn kernel needs DKQ == DV");
  ic.label = tp::probe::input_label(name);
  return ic;
}

}  // namespace

const char* schedule_name(tp::cpu::policy p) {
  for (int i = 0; i < 4; ++i)
    if (policy_values[i] == p) return policy_names[i];
  return "?";
}

input_case read_input_text(std::string_view text, const std::string& name, const std::string& probe_name,
                           bool with_schedule) {
  input_file f = input_file::parse(text, name, probe_name);
  return read_body(f, with_schedule);
}

input_case read_input(const std::string& path, const std::string& probe_name, bool with_schedule) {
  input_file f = input_file::read(path, probe_name);
  return read_body(f, with_schedule);
}

std::string input_text(const std::string& probe_name, const geometry& g, std::optional<policy> sched,
                       std::uint64_t sched_seed) {
  tp::probe::input_writer w(probe_name);
  w.comment("rerun: probe-" + probe_name + " --input THIS_FILE");
  w.record("config", {configs[g.config].name});
  w.record("kernel", {tp::fattn::to_string(g.kernel)});
  w.record("nq", {std::to_string(g.n_q)});
  w.record("nkv", {std::to_string(g.n_kv)});
  w.record("tail", {std::to_string(g.n_tail)});
  w.record("heads", {std::to_string(g.n_head)});
  if (g.gqa != 1 || g.ncols2 != 1) w.record("gqa", {std::to_string(g.gqa), std::to_string(g.ncols2)});
  w.record("device", {std::to_string(g.cus), std::to_string(g.occupancy)});
  std::vector<std::string> data{g.data};
  if (g.data == "random") data.push_back(std::to_string(g.data_seed));
  if (g.data != "given") {
    if (g.q_gain != 1.0) data.insert(data.end(), {"qgain", double_text(g.q_gain)});
    if (g.records_bits > 0)
      data.insert(data.end(), {"records", std::to_string(g.records_bits), std::to_string(g.records_tail)});
    else if (!g.kvarn)
      data.insert(data.end(), {"kvarn", "off"});
  }
  w.record("data", data);
  if (g.data == "given" && g.given) {
    auto rows = [&](std::string_view key, const std::vector<float>& vals, int outer, int inner, int width) {
      for (int i = 0; i < outer; ++i)
        for (int r = 0; r < inner; ++r) {
          std::vector<std::string> v{std::to_string(i), std::to_string(r)};
          for (int d = 0; d < width; ++d) v.push_back(float_text(vals[(std::size_t(i) * inner + r) * width + d]));
          w.record(key, v);
        }
    };
    rows("q", g.given->q, q_heads(g), g.n_q, dkq(g));
    rows("k", g.given->kb, g.n_head, g.n_kv, dkq(g));
    rows("v", g.given->vb, g.n_head, g.n_kv, dv(g));
    rows("k-tail", g.given->kt, g.n_head, g.n_tail, dkq(g));
    rows("v-tail", g.given->vt, g.n_head, g.n_tail, dv(g));
  }
  if (sched) {
    std::vector<std::string> s{schedule_name(*sched)};
    if (*sched == policy::random) s.push_back(std::to_string(sched_seed));
    w.record("schedule", s);
  }
  return w.str();
}

}  // namespace fa_probe
