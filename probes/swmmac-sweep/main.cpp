// swmmac-sweep: the upstream reviewer's one-hot pairing sweep (PR #3759, spec ck-sparse.md §6.2) as a probe.
// For each sparse instruction and index_key: drive one stored A value (row 0 of one lane half, one group, one slot)
// under each 4-bit index nibble, scan one-hot B, and record which B K position the value paired with.
//
//   --predict          print the model's table (reference/isa) and its SHA-256, before anything runs, and exit
//   (run mode)         predict, then measure with the kernel-side op and compare cell by cell (exit 0 equal, 1 not)
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

#include "kernels/mma/wave_op_table.h"
#include "probes/swmmac-sweep/sha256.h"
#include "reference/codecs.h"
#include "reference/isa/isa.h"
#include "reference/isa/layout_table.h"
#include "simt/host.h"
#include "simt/registry.h"

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

// A table line: "<cell id> -> <pairing>"; '#' lines and blank lines are comments.
bool read_log(const std::string& path, std::map<std::string, std::string>& out, std::string& error) {
  std::ifstream in(path);
  if (!in) {
    error = "cannot open " + path;
    return false;
  }
  std::string line;
  for (unsigned no = 1; std::getline(in, line); ++no) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty() || line[0] == '#') continue;
    const auto arrow = line.find(" -> ");
    char name[64];
    unsigned key, half, group, nibble, slot;
    if (arrow == std::string::npos ||
        std::sscanf(line.c_str(), "%63s key=%u half=%u group=%u nibble=0x%x slot=%u", name, &key, &half, &group, &nibble,
                    &slot) != 6) {
      error = path + ":" + std::to_string(no) + ": not a pairing line: " + line;
      return false;
    }
    out[line.substr(0, arrow)] = line.substr(arrow + 4);
  }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"swmmac-sweep: one-hot pairing sweep of the gfx12 SWMMAC index law (model vs measured)"};
  std::string backend = "cpu", instr_list = "all", from_log, out_file, layouts = TP_ISA_LAYOUTS_DIR;
  std::vector<unsigned> keys{0}, halves{0};
  bool predict_only = false;
  app.add_option("--backend", backend, "cpu|cuda|hip: where the software op is measured (cuda: a TP_WITH_CUDA build)");
  app.add_option("--instr", instr_list, "comma list of sparse gfx12 instructions, or all");
  app.add_option("--index-key", keys, "index_key values to sweep (default 0)")->delimiter(',');
  app.add_option("--lane-half", halves, "lane halves whose row-0 values are driven (default 0)")->delimiter(',');
  app.add_flag("--predict", predict_only, "print the predicted table and its SHA-256, run nothing");
  app.add_option("--from-log", from_log, "compare a measured table from FILE with the prediction");
  app.add_option("--out", out_file, "also write the measured (or predicted) table to FILE");
  app.add_option("--layouts", layouts, "directory of the calculator layout tables");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);
    std::cerr << "swmmac-sweep: " << e.what() << "\n";
    return 2;
  }

  std::vector<instr> selected;
  if (instr_list == "all") {
    selected.assign(std::begin(sweep_instrs), std::end(sweep_instrs));
  } else {
    std::stringstream ss(instr_list);
    for (std::string name; std::getline(ss, name, ',');) {
      const auto in = isa::parse_instr(name);
      if (!in || !is_sweep_instr(*in)) {
        std::cerr << "swmmac-sweep: --instr: '" << name << "' is not a sparse gfx12 instruction\n";
        return 2;
      }
      selected.push_back(*in);
    }
  }
  std::vector<cell> cells;
  for (instr in : selected)
    for (unsigned key : keys)
      for (unsigned half : halves) {
        if (key >= isa::info(in).index_keys && instr_list == "all" && half <= 1) continue;  // e.g. K=64 has no key 1
        if (key >= isa::info(in).index_keys || half > 1) {
          std::cerr << "swmmac-sweep: index_key " << key << " / lane half " << half << " is not legal for "
                    << isa::info(in).name << "\n";
          return 2;
        }
        const auto more = cells_for(in, key, half);
        cells.insert(cells.end(), more.begin(), more.end());
      }

  std::vector<std::string> predicted;
  for (const cell& c : cells) predicted.push_back(predict(c));
  const std::string predicted_text = render(cells, predicted);
  std::cout << "# predicted by reference/isa (index law: stored value s of group g pairs with K 4g + bits[2s+1:2s])\n"
            << "# cells " << cells.size() << ", sha256 " << tp::sweep::sha256_hex(predicted_text) << "\n";
  if (predict_only) {
    std::cout << predicted_text;
    if (!out_file.empty()) std::ofstream(out_file) << predicted_text;
    return 0;
  }

  std::map<std::string, std::string> measured;
  std::string source;
  if (!from_log.empty()) {
    std::string error;
    if (!read_log(from_log, measured, error)) {
      std::cerr << "swmmac-sweep: " << error << "\n";
      return 2;
    }
    source = "log " + from_log;
  } else {
    std::optional<tp::backend> where;
    for (auto b : {tp::backend::cpu, tp::backend::cuda, tp::backend::hip})
      if (backend == tp::to_string(b)) where = b;
    if (!where) {
      std::cerr << "swmmac-sweep: --backend: '" << backend << "' is not cpu, cuda or hip\n";
      return 2;
    }
    const auto* table = tp::find_variant<tp::mma::wave_op_table>("mma", "soft", *where);
    if (!table) {
      std::cerr << "swmmac-sweep: backend " << backend << " is not built into this binary; use --from-log with a table "
                << "measured there\n";
      return 77;
    }
    if (const std::string why = tp::backend_unusable(*where); !why.empty()) {
      std::cerr << "swmmac-sweep: " << why << "\n";
      return 2;
    }
    if (!tp::backend_available(*where)) {
      std::cerr << "swmmac-sweep: backend " << backend << " is not available on this machine ("
                << tp::device_description(*where) << ")\n";
      return 77;
    }
    std::string measured_text;
    try {
      // Cells in their printed order, one launch per run of consecutive cells of one instruction and index_key.
      for (std::size_t from = 0; from < cells.size();) {
        std::size_t to = from;
        while (to < cells.size() && cells[to].in == cells[from].in && cells[to].key == cells[from].key) ++to;
        const cell& c0 = cells[from];
        const tp::mma::wave_op* op = tp::mma::find_op(*table, isa::info(c0.in).name, {true, true, false, c0.key});
        if (!op) throw std::runtime_error(std::string("the ") + backend + " table has no " +
                                          std::string(isa::info(c0.in).name) + " with index_key " +
                                          std::to_string(c0.key));
        const std::vector<cell> group(cells.begin() + std::ptrdiff_t(from), cells.begin() + std::ptrdiff_t(to));
        const std::vector<std::string> got = measure(group, load_layout(layouts, c0.in, c0.key), *op);
        for (std::size_t n = 0; n < group.size(); ++n) {
          measured[group[n].id()] = got[n];
          measured_text += group[n].id() + " -> " + got[n] + "\n";
        }
        from = to;
      }
    } catch (const tp::kernel_error& e) {  // the op itself failed on the backend: a failed measurement, not bad input
      std::cerr << "swmmac-sweep: measuring on " << backend << " failed: " << e.what() << "\n";
      return 1;
    } catch (const tp::device_error& e) {
      std::cerr << "swmmac-sweep: measuring on " << backend << " failed: " << e.what() << "\n";
      return 1;
    } catch (const std::exception& e) {  // a missing or malformed layout table
      std::cerr << "swmmac-sweep: " << e.what() << "\n";
      return 2;
    }
    if (!out_file.empty()) std::ofstream(out_file) << measured_text;
    source = backend + " software op (kernels/mma table '" + table->name + "', " +
             tp::device_description(*where) + "), stimulus placed through " + layouts;
  }

  std::size_t differing = 0, missing = 0;
  for (std::size_t n = 0; n < cells.size(); ++n) {
    const std::string id = cells[n].id();
    const auto it = measured.find(id);
    if (it == measured.end()) {
      if (missing++ < 10) std::cout << "MISSING  " << id << " (predicted " << predicted[n] << ")\n";
    } else if (it->second != predicted[n]) {
      if (differing++ < 20) std::cout << "DIFFERS  " << id << ": measured " << it->second << ", predicted " << predicted[n] << "\n";
    }
  }
  std::cout << "# measured: " << source << "\n# " << cells.size() - differing - missing << "/" << cells.size()
            << " cells equal, " << differing << " differ, " << missing << " not measured\n";
  return differing == 0 && missing == 0 ? 0 : 1;
}
