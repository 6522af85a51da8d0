// Parser for AMD Matrix Instruction Calculator layout tables (fixtures/isa-layouts, format in PROVENANCE.md) and a
// checker that compares a layout function against every cell. Used by tests/isa and probe swmmac-sweep, which
// places its stimulus with these tables instead of the model. Standard library only.
#pragma once

#include <cstdio>
#include <fstream>
#include <algorithm>
#include <map>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "reference/isa/isa.h"

namespace tp::ref::isa::tables {

struct element {  // A[i][k] -> name 'A', r = i, c = k
  char name = 0;
  unsigned r = 0, c = 0;
  friend auto operator<=>(const element&, const element&) = default;
};

struct cell {
  tp::ref::isa::reg_loc at;
  std::vector<element> elements;
};

struct table {
  std::string architecture, instruction;
  unsigned lanes = 0;
  std::vector<cell> cells;
};

inline tp::ref::isa::reg_loc parse_cell_header(const std::string& h) {
  // "vN" (whole VGPR) or "vN.[hi:lo]"
  unsigned vgpr = 0, hi = 31, lo = 0;
  char tail = 0;
  if (std::sscanf(h.c_str(), "v%u.[%u:%u%c", &vgpr, &hi, &lo, &tail) == 4 && tail == ']') return {0, vgpr, lo, hi};
  int consumed = 0;
  if (std::sscanf(h.c_str(), "v%u%n", &vgpr, &consumed) == 1 && std::size_t(consumed) == h.size()) return {0, vgpr, 0, 31};
  throw std::runtime_error("bad register cell header '" + h + "'");
}

inline element parse_element(const std::string& s) {
  element e;
  int consumed = 0;
  if (s.size() < 5 || std::sscanf(s.c_str(), "%c[%u][%u]%n", &e.name, &e.r, &e.c, &consumed) != 3 ||
      std::size_t(consumed) != s.size())
    throw std::runtime_error("bad matrix element '" + s + "'");
  return e;
}

inline std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::string cur;
  std::istringstream in(s);
  while (std::getline(in, cur, sep)) out.push_back(cur);
  if (!s.empty() && s.back() == sep) out.emplace_back();
  return out;
}

inline table read_table(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot open layout table " + path);
  table t;
  std::string line;
  auto next = [&](const char* what) {
    if (!std::getline(in, line)) throw std::runtime_error(path + ": missing " + what);
    if (!line.empty() && line.back() == '\r') line.pop_back();
  };
  next("architecture line");
  if (line.rfind("Architecture: ", 0) != 0) throw std::runtime_error(path + ": line 1 is not 'Architecture: ...'");
  t.architecture = line.substr(14);
  next("instruction line");
  if (line.rfind("Instruction: ", 0) != 0) throw std::runtime_error(path + ": line 2 is not 'Instruction: ...'");
  t.instruction = line.substr(13);
  next("header");
  const auto header = split(line, ',');
  if (header.size() < 2 || header[0] != "lane") throw std::runtime_error(path + ": header does not start with 'lane'");
  std::vector<tp::ref::isa::reg_loc> columns;
  for (std::size_t c = 1; c < header.size(); ++c) columns.push_back(parse_cell_header(header[c]));
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty()) continue;
    const auto fields = split(line, ',');
    if (fields.size() != header.size()) throw std::runtime_error(path + ": row with the wrong number of cells: " + line);
    const unsigned lane = unsigned(std::stoul(fields[0]));
    if (lane != t.lanes) throw std::runtime_error(path + ": lanes out of order at " + fields[0]);
    ++t.lanes;
    for (std::size_t c = 1; c < fields.size(); ++c) {
      cell ce;
      ce.at = columns[c - 1];
      ce.at.lane = lane;
      for (const auto& tok : split(fields[c], ' '))
        if (!tok.empty()) ce.elements.push_back(parse_element(tok));
      t.cells.push_back(std::move(ce));
    }
  }
  return t;
}

}  // namespace tp::ref::isa::tables

namespace tp::ref::isa::tables {

struct check_result {
  std::size_t cells = 0, elements = 0;
  std::vector<std::string> errors;  // first few mismatches, readable
  std::size_t error_count = 0;
  void fail(std::string e) {
    if (errors.size() < 8) errors.push_back(std::move(e));
    ++error_count;
  }
};

inline std::string to_string(const element& e) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%c[%u][%u]", e.name, e.r, e.c);
  return buf;
}

// Operands with one element per cell (B, D, dense A; RDNA3 A/B list each element in two cells): the set of cells
// holding each element must equal the model's set of locations, and the table must hold nothing else.
template <class Model>
check_result check_single(const table& t, char name, unsigned rows, unsigned cols, Model model) {
  check_result res;
  std::map<element, std::vector<tp::ref::isa::reg_loc>> seen;
  for (const auto& c : t.cells) {
    ++res.cells;
    if (c.elements.size() != 1) {
      res.fail(tp::ref::isa::to_string(c.at) + ": expected one element, table lists " + std::to_string(c.elements.size()));
      continue;
    }
    const element& e = c.elements[0];
    if (e.name != name || e.r >= rows || e.c >= cols) {
      res.fail(tp::ref::isa::to_string(c.at) + ": element " + to_string(e) + " is outside the operand");
      continue;
    }
    seen[e].push_back(c.at);
  }
  for (unsigned r = 0; r < rows; ++r)
    for (unsigned c = 0; c < cols; ++c) {
      const element e{name, r, c};
      std::vector<tp::ref::isa::reg_loc> want = model(r, c), got = seen.count(e) ? seen[e] : std::vector<tp::ref::isa::reg_loc>{};
      std::sort(want.begin(), want.end());
      std::sort(got.begin(), got.end());
      ++res.elements;
      if (want != got) {
        std::string w, g;
        for (auto& x : want) w += " " + tp::ref::isa::to_string(x);
        for (auto& x : got) g += " " + tp::ref::isa::to_string(x);
        res.fail(to_string(e) + ": model says" + w + ", table says" + (g.empty() ? " nothing" : g));
      }
    }
  return res;
}

// Sparse A and index tables: a cell lists the four uncompressed K positions of one group (4g..4g+3 of one row).
// The model's two slots (stored values, or 2-bit fields) must tile the cell exactly: slot 0 in the low bits, slot 1
// directly above it, each group in exactly one cell.
template <class Slot>
check_result check_groups(const table& t, char name, unsigned rows, unsigned groups, unsigned slot_bits, Slot slot) {
  check_result res;
  std::map<std::pair<unsigned, unsigned>, unsigned> hits;
  for (const auto& c : t.cells) {
    ++res.cells;
    const std::string where = tp::ref::isa::to_string(c.at);
    if (c.elements.size() != 4) {
      res.fail(where + ": expected the four positions of one group, table lists " + std::to_string(c.elements.size()));
      continue;
    }
    const element& first = c.elements[0];
    bool contiguous = first.name == name && first.c % 4 == 0 && first.r < rows && first.c / 4 < groups;
    for (unsigned p = 1; p < 4 && contiguous; ++p)
      contiguous = c.elements[p].name == name && c.elements[p].r == first.r && c.elements[p].c == first.c + p;
    if (!contiguous) {
      res.fail(where + ": cell does not list one group's positions 4g..4g+3 in order (starts " + to_string(first) + ")");
      continue;
    }
    const unsigned i = first.r, g = first.c / 4;
    ++hits[{i, g}];
    const tp::ref::isa::reg_loc s0 = slot(i, g, 0u), s1 = slot(i, g, 1u);
    const bool ok = s0.lane == c.at.lane && s1.lane == c.at.lane && s0.vgpr == c.at.vgpr && s1.vgpr == c.at.vgpr &&
                    s0.bit_lo == c.at.bit_lo && s0.bit_hi + 1 == s1.bit_lo && s1.bit_hi == c.at.bit_hi &&
                    s0.bit_hi - s0.bit_lo + 1 == slot_bits && s1.bit_hi - s1.bit_lo + 1 == slot_bits;
    if (!ok)
      res.fail(to_string(element{name, i, 4 * g}) + " (group " + std::to_string(g) + "): model slots " +
               tp::ref::isa::to_string(s0) + " + " + tp::ref::isa::to_string(s1) + ", table cell " + where);
  }
  for (unsigned i = 0; i < rows; ++i)
    for (unsigned g = 0; g < groups; ++g) {
      ++res.elements;
      const auto it = hits.find({i, g});
      const unsigned n = it == hits.end() ? 0 : it->second;
      if (n != 1)
        res.fail(to_string(element{name, i, 4 * g}) + " (group " + std::to_string(g) + ") appears in " +
                 std::to_string(n) + " cells");
    }
  return res;
}

}  // namespace tp::ref::isa::tables
