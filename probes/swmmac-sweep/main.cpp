// swmmac-sweep: the upstream reviewer's one-hot pairing sweep (PR #3759, docs/bugs/ck-sparse.md §12) as a probe over
// probes/common (the common options, reports and exit codes). For each sparse instruction and index_key: drive one
// stored A value (row 0 of one lane half, one group, one slot) under each 4-bit index nibble, scan one-hot B, and
// record which B K position the value paired with. One cell is one case; it passes when the measured pairing equals
// the model's prediction (reference/isa). The one variant is the software op table, family "mma", variant "soft".
//
//   --predict          print the model's table and its SHA-256, run nothing, exit 0 (the pre-registration)
//   (run mode)         measure every cell with the kernel-side op and compare (exit 0 every cell equal, 1 not)
//   --from-log FILE    compare a table measured elsewhere (e.g. on a gfx1201 card) with the prediction
//
// The measured op is the software form from kernels/mma, through the backend's table (kernels/mma/wave_op_table.h:
// the CPU emulator, or CUDA in a build with TP_WITH_CUDA), with the stimulus placed through AMD's layout tables
// (fixtures/isa-layouts) rather than through the model: a self-check of the software op on that backend and a
// cross-check of the model's layouts in one run. Every stimulus of one instruction and index_key is one launch.
#include <algorithm>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "fixtures/loader/fixture.h"
#include "kernels/mma/wave_op_table.h"
#include "probes/common/probe.h"
#include "reference/codecs.h"
#include "reference/isa/isa.h"
#include "reference/isa/layout_table.h"

namespace isa = tp::ref::isa;
namespace tables = tp::ref::isa::tables;
using isa::instr;

namespace {

constexpr instr sweep_instrs[] = {
    instr::swmmac_i32_16x16x32_iu4,     instr::swmmac_i32_16x16x64_iu4,     instr::swmmac_i32_16x16x32_iu8,
    instr::swmmac_f32_16x16x32_fp8_fp8, instr::swmmac_f32_16x16x32_fp8_bf8, instr::swmmac_f32_16x16x32_bf8_fp8,
    instr::swmmac_f32_16x16x32_bf8_bf8, instr::swmmac_f32_16x16x32_f16,     instr::swmmac_f32_16x16x32_bf16};

struct cell {
  instr in;
  unsigned key, half, group, nibble, slot;
  std::string id() const {
    char buf[160];
    std::snprintf(buf, sizeof buf, "%s key=%u half=%u group=%u nibble=0x%x slot=%u",
                  std::string(isa::info(in).name).c_str(), key, half, group, nibble, slot);
    return buf;
  }
};

// The pre-registered table's SHA-256 (the one implementation, fixtures/loader), hex.
std::string text_sha256(std::string_view text) {
  return tp::fixtures::sha256_hex({reinterpret_cast<const std::uint8_t*>(text.data()), text.size()});
}

std::uint32_t one(isa::elem e) {
  switch (e) {
    case isa::elem::fp8: return tp::ref::double_to_fp8_e4m3(1.0);
    case isa::elem::bf8: return tp::ref::double_to_fp8_e5m2(1.0);
    case isa::elem::f16: return tp::ref::double_to_fp16(1.0);
    case isa::elem::bf16: return tp::ref::double_to_bf16(1.0);
    default: return 1;
  }
}

// Groups whose row-0 values live in lanes [16h, 16h+16).
std::vector<unsigned> groups_of_half(instr in, unsigned half) {
  std::vector<unsigned> out;
  for (unsigned g = 0; g < isa::info(in).k / 4; ++g)
    if (isa::a_group_loc(in, 0, g).lane / 16 == half) out.push_back(g);
  return out;
}

std::vector<cell> cells_for(instr in, unsigned key, unsigned half) {
  std::vector<cell> out;
  for (unsigned g : groups_of_half(in, half))
    for (unsigned nibble = 0; nibble < 16; ++nibble)
      for (unsigned s = 0; s < 2; ++s) out.push_back({in, key, half, g, nibble, s});
  return out;
}

std::string pairing_text(const std::set<unsigned>& ks) {
  if (ks.empty()) return "none";
  std::string s = "k=";
  bool first = true;
  for (unsigned k : ks) {
    s += (first ? "" : "+") + std::to_string(k);
    first = false;
  }
  return s;
}

// The model's prediction: place with the model's layouts, execute the model, read row 0 of D.
std::string predict(const cell& c) {
  const auto& f = isa::info(c.in);
  std::set<unsigned> paired;
  for (unsigned q = 0; q < f.k / f.n; ++q) {
    isa::wave_regs a = isa::make_a_regs(c.in), b = isa::make_b_regs(c.in), cc = isa::make_d_regs(c.in),
                   ix = isa::make_index_regs(c.in);
    isa::sparse_a am(f.m, f.k / 4);
    am.value(0, c.group, c.slot) = one(f.a);
    am.field(0, c.group, 0) = std::uint8_t(c.nibble & 3u);
    am.field(0, c.group, 1) = std::uint8_t(c.nibble >> 2);
    isa::place_sparse_a(c.in, am, a, ix, c.key);
    isa::code_matrix bm(f.k, f.n, 0u);
    for (unsigned j = 0; j < f.n; ++j) bm(f.n * q + j, j) = one(f.b);  // column j carries K position 16q+j
    isa::place_b(c.in, bm, b);
    const isa::code_matrix d = isa::read_d(c.in, isa::execute(c.in, a, b, cc, ix, {.index_key = c.key}));
    for (unsigned j = 0; j < f.n; ++j)
      if (isa::element_value(f.d, d(0, j)) != 0) paired.insert(f.n * q + j);
  }
  return pairing_text(paired);
}

// Placement through AMD's tables: the measured side never uses the model's layout functions.
struct table_layout {
  std::map<std::pair<unsigned, unsigned>, isa::reg_loc> a_group, index_field;  // (row, group)
  std::map<std::pair<unsigned, unsigned>, std::vector<isa::reg_loc>> b;         // (k, j)
  std::map<std::pair<unsigned, unsigned>, isa::reg_loc> d;                      // (i, j)
};

table_layout load_layout(const std::string& dir, instr in, unsigned key) {
  const std::string stem = dir + "/" + std::string(isa::info(in).layout_stem);
  table_layout t;
  for (const auto& ce : tables::read_table(stem + ".A.csv").cells)
    if (ce.elements.size() == 4) t.a_group[{ce.elements[0].r, ce.elements[0].c / 4}] = ce.at;
  for (const auto& ce : tables::read_table(stem + ".k.opsel" + std::to_string(key) + ".csv").cells)
    if (ce.elements.size() == 4) t.index_field[{ce.elements[0].r, ce.elements[0].c / 4}] = ce.at;
  for (const auto& ce : tables::read_table(stem + ".B.csv").cells)
    if (ce.elements.size() == 1) t.b[{ce.elements[0].r, ce.elements[0].c}].push_back(ce.at);
  for (const auto& ce : tables::read_table(stem + ".D.csv").cells)
    if (ce.elements.size() == 1) t.d[{ce.elements[0].r, ce.elements[0].c}] = ce.at;
  return t;
}

bool is_sweep_instr(instr in) {
  return std::find(std::begin(sweep_instrs), std::end(sweep_instrs), in) != std::end(sweep_instrs);
}

// One run of a cell: its A value under its index nibble, B one-hot by column so that column j carries K position
// n*q + j. Placed through the calculator tables only.
struct stimulus {
  isa::wave_regs a, b, c, index;
};
stimulus place_stimulus(const cell& c, const table_layout& t, unsigned q) {
  const auto& f = isa::info(c.in);
  stimulus s{isa::make_a_regs(c.in), isa::make_b_regs(c.in), isa::make_d_regs(c.in), isa::make_index_regs(c.in)};
  isa::reg_loc slot = t.a_group.at({0, c.group});
  const unsigned w = (slot.bit_hi - slot.bit_lo + 1) / 2;  // the cell holds the group's two stored values
  slot.bit_lo += c.slot * w;
  slot.bit_hi = slot.bit_lo + w - 1;
  s.a.set(slot, one(f.a));
  s.index.set(t.index_field.at({0, c.group}), c.nibble);
  for (unsigned j = 0; j < f.n; ++j)
    for (const auto& at : t.b.at({f.n * q + j, j})) s.b.set(at, one(f.b));
  return s;
}

// Measures cells of one instruction and index_key with the table's op: every (cell, q) run is one case of a single
// batched launch; row 0 of each D is read back through the D table.
std::vector<std::string> measure(const std::vector<cell>& cells, const table_layout& t, const tp::mma::wave_op& op) {
  if (cells.empty()) return {};
  const instr in = cells.front().in;
  const auto& f = isa::info(in);
  const unsigned runs_per_cell = f.k / f.n;
  std::vector<std::uint32_t> a, b, c, index;
  for (const cell& ce : cells)
    for (unsigned q = 0; q < runs_per_cell; ++q) {
      const stimulus s = place_stimulus(ce, t, q);
      a.insert(a.end(), s.a.words().begin(), s.a.words().end());
      b.insert(b.end(), s.b.words().begin(), s.b.words().end());
      c.insert(c.end(), s.c.words().begin(), s.c.words().end());
      index.insert(index.end(), s.index.words().begin(), s.index.words().end());
    }
  const std::size_t n_runs = cells.size() * runs_per_cell, d_words = std::size_t(f.wave) * f.d_vgprs;
  std::vector<std::uint32_t> d(n_runs * d_words);
  op.run(n_runs, a, b, c, index, d);
  std::vector<std::string> out;
  for (std::size_t n = 0; n < cells.size(); ++n) {
    std::set<unsigned> paired;
    for (unsigned q = 0; q < runs_per_cell; ++q) {
      isa::wave_regs dr = isa::make_d_regs(in);
      const auto first = d.begin() + std::ptrdiff_t((n * runs_per_cell + q) * d_words);
      std::copy(first, first + std::ptrdiff_t(d_words), dr.words().begin());
      for (unsigned j = 0; j < f.n; ++j)
        if (isa::element_value(f.d, dr.get(t.d.at({0, j}))) != 0) paired.insert(f.n * q + j);
    }
    out.push_back(pairing_text(paired));
  }
  return out;
}

std::string render(const std::vector<cell>& cells, const std::vector<std::string>& paired) {
  std::string s;
  for (std::size_t n = 0; n < cells.size(); ++n) s += cells[n].id() + " -> " + paired[n] + "\n";
  return s;
}

// A table line: "<cell id> -> <pairing>"; '#' lines and blank lines are comments. Malformed: FILE:LINE usage error.
std::map<std::string, std::string> read_log(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw tp::probe::usage_error("--from-log '" + path + "': cannot open the file");
  std::map<std::string, std::string> out;
  std::string line;
  for (unsigned no = 1; std::getline(in, line); ++no) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty() || line[0] == '#') continue;
    const auto arrow = line.find(" -> ");
    char name[64];
    unsigned key, half, group, nibble, slot;
    if (line.size() > 256 || arrow == std::string::npos ||
        std::sscanf(line.c_str(), "%63s key=%u half=%u group=%u nibble=0x%x slot=%u", name, &key, &half, &group, &nibble,
                    &slot) != 6)
      throw tp::probe::usage_error(path + ":" + std::to_string(no) + ": not a pairing line: " + line.substr(0, 120));
    out[line.substr(0, arrow)] = line.substr(arrow + 4);
  }
  return out;
}

// Comma-separated 0/1 values of --index-key / --lane-half (as strings: CLI11 2.1.2 wraps a negative unsigned).
std::vector<unsigned> zero_or_one(const char* option, const std::string& list) {
  std::vector<unsigned> out;
  std::stringstream ss(list);
  for (std::string item; std::getline(ss, item, ',');) {
    if (item != "0" && item != "1")
      throw tp::probe::usage_error(std::string(option) + " '" + list + "': expected a comma list of 0 and 1");
    if (std::find(out.begin(), out.end(), unsigned(item[0] - '0')) == out.end()) out.push_back(unsigned(item[0] - '0'));
  }
  if (out.empty()) throw tp::probe::usage_error(std::string(option) + ": empty list");
  return out;
}

// What the sweep keeps between its source, runner and notes: the cells, their predictions, the layout tables (read
// before anything runs, so a missing table is bad input) and what was measured.
struct sweep_state {
  std::vector<cell> cells;
  std::vector<std::string> predicted;
  std::string predicted_text, measured_text;
  std::map<std::pair<instr, unsigned>, table_layout> layouts;
  std::optional<std::map<std::string, std::string>> log;
  std::size_t equal = 0, differ = 0, missing = 0;
};

tp::probe::case_def cell_case(const cell& c, std::size_t index) {
  tp::probe::case_def d;
  char nib[8];
  std::snprintf(nib, sizeof nib, "0x%x", c.nibble);
  d.id = tp::probe::case_name("swmmac-sweep")("instr", isa::info(c.in).name)("key", c.key)("half", c.half)(
             "group", c.group)("nibble", nib)("slot", c.slot)
             .str();
  d.group = std::string(isa::info(c.in).name) + " key " + std::to_string(c.key);
  d.payload = index;
  return d;
}

}  // namespace

int main(int argc, char** argv) {
  tp::probe::app probe("swmmac-sweep",
                       "one-hot pairing sweep of the gfx12 SWMMAC index law: the software op measured against the "
                       "model's prediction");
  // No buggy variant: the one variant must pair every cell as predicted (fail-pass: fixed passes every case).
  probe.family("mma").default_variants("soft").buggy({}).fixed({"soft"}).must_catch({}).batch_size(std::size_t{1} << 20);
  std::string instr_list = "all", from_log, table_out, layouts = TP_ISA_LAYOUTS_DIR, keys_arg = "0", halves_arg = "0";
  bool predict_only = false;
  auto& cli = probe.cli();
  cli.add_option("--instr", instr_list, "comma list of sparse gfx12 instructions, or all")->capture_default_str();
  cli.add_option("--index-key", keys_arg, "index_key values to sweep: comma list of 0 and 1")->capture_default_str();
  cli.add_option("--lane-half", halves_arg, "lane halves whose row-0 values are driven: comma list of 0 and 1")
      ->capture_default_str();
  cli.add_flag("--predict", predict_only, "print the predicted table and its SHA-256, run nothing");
  cli.add_option("--from-log", from_log, "compare a table measured elsewhere (FILE, the --table format) with the "
                                         "prediction instead of measuring");
  cli.add_option("--table", table_out, "also write the measured (or, with --predict, the predicted) table to FILE");
  cli.add_option("--layouts", layouts, "directory of the calculator layout tables")->capture_default_str();
  auto st = std::make_shared<sweep_state>();

  probe.source(tp::probe::source_kind::adversarial, [&, st](tp::probe::case_list& out) {
    std::vector<instr> selected;
    if (instr_list == "all") {
      selected.assign(std::begin(sweep_instrs), std::end(sweep_instrs));
    } else {
      std::stringstream ss(instr_list);
      for (std::string name; std::getline(ss, name, ',');) {
        const auto in = isa::parse_instr(name);
        if (!in || !is_sweep_instr(*in))
          throw tp::probe::usage_error("--instr: '" + name + "' is not a sparse gfx12 instruction");
        selected.push_back(*in);
      }
    }
    const auto keys = zero_or_one("--index-key", keys_arg), halves = zero_or_one("--lane-half", halves_arg);
    for (instr in : selected)
      for (unsigned key : keys)
        for (unsigned half : halves) {
          if (key >= isa::info(in).index_keys) {
            if (instr_list == "all") continue;  // e.g. K=64 has no key 1
            throw tp::probe::usage_error("index_key " + std::to_string(key) + " is not legal for " +
                                         std::string(isa::info(in).name));
          }
          const auto more = cells_for(in, key, half);
          st->cells.insert(st->cells.end(), more.begin(), more.end());
        }
    for (const cell& c : st->cells) st->predicted.push_back(predict(c));
    st->predicted_text = render(st->cells, st->predicted);
    if (!predict_only) {
      try {
        for (const cell& c : st->cells)
          if (!st->layouts.count({c.in, c.key})) st->layouts.emplace(std::pair{c.in, c.key}, load_layout(layouts, c.in, c.key));
      } catch (const std::exception& e) {  // a missing or malformed layout table
        throw tp::probe::usage_error(std::string("--layouts: ") + e.what());
      }
      if (!from_log.empty()) st->log = read_log(from_log);
    }
    for (std::size_t n = 0; n < st->cells.size(); ++n) out.push_back(cell_case(st->cells[n], n));
  });

  probe.before_run([&, st](const tp::probe::case_list&) -> std::optional<int> {
    if (!predict_only) return std::nullopt;
    std::cout << "# predicted by reference/isa (index law: stored value s of group g pairs with K 4g + bits[2s+1:2s])\n"
              << "# cells " << st->cells.size() << ", sha256 " << text_sha256(st->predicted_text) << "\n"
              << st->predicted_text;
    if (!table_out.empty()) {
      std::ofstream f(table_out);
      f << st->predicted_text;
      if (!f) throw tp::probe::usage_error("--table '" + table_out + "': cannot write the file");
    }
    return 0;
  });

  // Every cell of one instruction and index_key in one launch (a batch holds the whole sweep).
  probe.batch_runner([&, st](std::span<const tp::probe::case_def* const> cases, const tp::probe::variant& v,
                             std::span<tp::probe::outcome> out) {
    for (std::size_t from = 0; from < cases.size();) {
      const cell& c0 = st->cells[cases[from]->as<std::size_t>()];
      std::size_t to = from;
      while (to < cases.size() && st->cells[cases[to]->as<std::size_t>()].in == c0.in &&
             st->cells[cases[to]->as<std::size_t>()].key == c0.key)
        ++to;
      std::vector<cell> group;
      for (std::size_t i = from; i < to; ++i) group.push_back(st->cells[cases[i]->as<std::size_t>()]);
      std::vector<std::string> got(group.size());
      if (st->log) {
        for (std::size_t n = 0; n < group.size(); ++n) {
          const auto it = st->log->find(group[n].id());
          got[n] = it == st->log->end() ? std::string() : it->second;
        }
      } else {
        const auto& table = v.ops_as<tp::mma::wave_op_table>();
        const tp::mma::wave_op* op = tp::mma::find_op(table, isa::info(c0.in).name, {true, true, false, c0.key});
        if (!op)
          throw std::runtime_error("the " + v.backend + " table has no " + std::string(isa::info(c0.in).name) +
                                   " with index_key " + std::to_string(c0.key));
        got = measure(group, st->layouts.at({c0.in, c0.key}), *op);
      }
      for (std::size_t n = 0; n < group.size(); ++n) {
        const std::size_t index = cases[from + n]->as<std::size_t>();
        auto& o = out[from + n];
        o = tp::probe::outcome{};
        o.pass = !got[n].empty() && got[n] == st->predicted[index];
        if (got[n].empty()) {
          o.note("not in the log: measured nowhere, predicted " + st->predicted[index]);
          ++st->missing;
        } else {
          o.note("measured " + got[n] + ", predicted " + st->predicted[index]);
          st->measured_text += group[n].id() + " -> " + got[n] + "\n";
          ++(o.pass ? st->equal : st->differ);
        }
        o.metric_sum("cells_differing", o.pass ? 0 : 1);
        o.count("cells." + std::string(isa::info(group[n].in).name));
      }
      from = to;
    }
  });

  probe.notes([&, st]() {
    std::vector<std::string> lines;
    lines.push_back("predicted by reference/isa: " + std::to_string(st->cells.size()) + " cells, sha256 " +
                    text_sha256(st->predicted_text) + " (--predict prints the table)");
    lines.push_back(std::to_string(st->equal) + "/" + std::to_string(st->cells.size()) + " cells equal, " +
                    std::to_string(st->differ) + " differ, " + std::to_string(st->missing) + " not measured (" +
                    (st->log ? "log " + from_log : "measured with the software op, stimulus placed through " + layouts) +
                    ")");
    if (!table_out.empty()) {
      std::ofstream f(table_out);
      f << st->measured_text;
      if (!f) throw tp::probe::usage_error("--table '" + table_out + "': cannot write the file");
    }
    return lines;
  });
  return probe.main(argc, argv);
}
