#include "probes/common/matrix.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <stdexcept>

#include <fmt/format.h>

#include "probes/common/report.h"

namespace tp::report {

namespace {
std::set<std::string> caught_by(const matrix_row& r) {
  std::set<std::string> s;
  for (const auto& [p, code] : r.exit_codes)
    if (code == 1) s.insert(p);
  return s;
}
std::string join(const std::set<std::string>& s) {
  std::string out;
  for (const auto& x : s) out += (out.empty() ? "" : ", ") + x;
  return out.empty() ? "none" : out;
}
std::vector<std::string> row_problems(const matrix_row& r) {
  std::vector<std::string> problems;
  for (const auto& [p, code] : r.exit_codes)
    if (code != 0 && code != 1 && code != 77)
      problems.push_back(fmt::format("{} on {}: exit {} (neither pass, caught nor not available)", p, r.variant, code));
  const auto caught = caught_by(r);
  const std::set<std::string> want(r.targets.begin(), r.targets.end());
  if (r.kind == matrix_row::rule::exactly) {
    if (caught != want)
      problems.push_back("variant " + r.variant + " is caught by " + join(caught) + ", expected exactly " + join(want));
  } else if (caught.empty()) {
    problems.push_back("mutant " + r.variant + " survives: no probe catches it");
  } else if (!std::includes(caught.begin(), caught.end(), want.begin(), want.end())) {
    problems.push_back("mutant " + r.variant + " is caught by " + join(caught) + ", expected at least " + join(want));
  }
  return problems;
}
bool any_unavailable(const matrix_row& r) {
  return std::any_of(r.exit_codes.begin(), r.exit_codes.end(), [](const auto& e) { return e.second == 77; });
}
}  // namespace

mutation_matrix parse_matrix(const nlohmann::json& j) {
  mutation_matrix m;
  if (!j.is_object() || !j.contains("matrix_version") || j.at("matrix_version") != 1)
    throw std::runtime_error("matrix: missing or unsupported matrix_version (expected 1)");
  if (!j.contains("rows") || !j.at("rows").is_array()) throw std::runtime_error("matrix: missing rows");
  try {
    m.backend = j.value("backend", std::string());
    if (j.contains("probe_args")) m.probe_args = j.at("probe_args").get<std::vector<std::string>>();
    if (j.contains("problems")) m.problems = j.at("problems").get<std::vector<std::string>>();
  } catch (const nlohmann::json::exception& e) {
    throw std::runtime_error(std::string("matrix: bad backend, probe_args or problems: ") + e.what());
  }
  for (const auto& jr : j.at("rows")) {
    matrix_row row;
    try {
      row.variant = jr.at("variant").get<std::string>();
      row.family = jr.value("family", std::string());
      if (jr.contains("targets") && jr.contains("at_least"))
        throw std::runtime_error("matrix: row " + row.variant + " has both targets and at_least");
      if (jr.contains("targets")) {
        row.kind = matrix_row::rule::exactly;
        row.targets = jr.at("targets").get<std::vector<std::string>>();
      } else if (jr.contains("at_least")) {
        row.targets = jr.at("at_least").get<std::vector<std::string>>();
      }
      row.exit_codes = jr.at("exit").get<std::map<std::string, int>>();
    } catch (const nlohmann::json::exception& e) {
      throw std::runtime_error(std::string("matrix: bad row: ") + e.what());
    }
    m.rows.push_back(std::move(row));
  }
  return m;
}

nlohmann::json to_json(const mutation_matrix& m) {
  nlohmann::json j = {{"matrix_version", 1}, {"rows", nlohmann::json::array()}};
  if (!m.backend.empty()) j["backend"] = m.backend;
  if (!m.probe_args.empty()) j["probe_args"] = m.probe_args;
  if (!m.problems.empty()) j["problems"] = m.problems;
  for (const auto& r : m.rows)
    j["rows"].push_back({{"variant", r.variant},
                         {"family", r.family},
                         {r.kind == matrix_row::rule::exactly ? "targets" : "at_least", r.targets},
                         {"exit", r.exit_codes}});
  return j;
}

std::vector<std::string> matrix_problems(const mutation_matrix& m) {
  std::vector<std::string> problems = m.problems;
  for (const auto& r : m.rows)
    for (auto& p : row_problems(r)) problems.push_back(std::move(p));
  return problems;
}

bool row_holds(const matrix_row& r) { return row_problems(r).empty() && !any_unavailable(r); }

int matrix_exit_code(const mutation_matrix& m) {
  if (!matrix_problems(m).empty()) return 1;
  return std::any_of(m.rows.begin(), m.rows.end(), any_unavailable) ? 77 : 0;
}

family_targets read_targets(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error(path + ": cannot open the file (it declares which probe must catch which variant)");
  family_targets t;
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    line = line.substr(0, line.find('#'));
    std::istringstream words(line);
    std::string variant, probe;
    if (!(words >> variant)) continue;
    const bool known = variant == "upstream" || variant.rfind("mutant-", 0) == 0 ||
                       (variant.rfind("fixed-minus-", 0) == 0 && variant.size() == 16 &&
                        variant.find_first_not_of("0123456789", 12) == std::string::npos);
    if (!known)
      throw std::runtime_error(fmt::format("{}:{}: '{}' is not upstream, fixed-minus-NNNN or mutant-NAME", path, number,
                                           variant));
    if (t.probes.count(variant)) throw std::runtime_error(fmt::format("{}:{}: {} is listed twice", path, number, variant));
    auto& list = t.probes[variant];
    while (words >> probe) list.push_back(probe);
    t.variants.push_back(variant);
  }
  return t;
}

std::vector<matrix_run> read_matrix_runs(const std::string& dir) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) throw std::runtime_error(dir + ": not a directory of matrix runs");
  std::vector<fs::path> exits;
  for (const auto& e : fs::directory_iterator(dir, ec))
    if (e.path().extension() == ".exit") exits.push_back(e.path());
  std::sort(exits.begin(), exits.end());
  if (exits.empty()) throw std::runtime_error(dir + ": no PROBE@VARIANT.exit file (no matrix run recorded)");
  std::vector<matrix_run> runs;
  for (const auto& path : exits) {
    const std::string stem = path.stem().string();
    const auto at = stem.find('@');
    if (at == std::string::npos || at == 0 || at + 1 == stem.size())
      throw std::runtime_error(path.string() + ": the name is not PROBE@VARIANT.exit");
    matrix_run r;
    r.probe = stem.substr(0, at);
    r.variant = stem.substr(at + 1);
    r.source = path.string();
    std::ifstream in(path);
    std::string text;
    if (!(in >> text) || text.find_first_not_of("0123456789") != std::string::npos || text.size() > 3)
      throw std::runtime_error(path.string() + ": not an exit status (one decimal number)");
    r.exit_code = std::stoi(text);
    auto json_path = path;
    json_path.replace_extension(".json");
    if (fs::exists(json_path, ec)) {
      std::ifstream j(json_path);
      try {
        r.report = probe::from_json(nlohmann::json::parse(j));
      } catch (const std::exception& e) {
        // A crash can leave half a report: that is the run's problem (its exit status says so), not bad input.
        if (r.exit_code == 0 || r.exit_code == 1)
          throw std::runtime_error(json_path.string() + ": " + e.what());
      }
    }
    runs.push_back(std::move(r));
  }
  return runs;
}

namespace {
// Variant order in a family's table: upstream, fixed, the reverted patches in patch order, then the mutants.
int variant_rank(const std::string& v) {
  if (v == "upstream") return 0;
  if (v == "fixed") return 1;
  if (v.rfind("fixed-minus-", 0) == 0) return 2;
  return 3;
}
}  // namespace

mutation_matrix matrix_from_runs(const std::vector<matrix_run>& runs, const std::string& targets_dir) {
  mutation_matrix m;
  // Each probe's family and each (probe, variant)'s role, from the reports.
  std::map<std::string, std::string> family_of;
  std::map<std::pair<std::string, std::string>, probe::variant_role> role;
  std::set<std::string> backends, args;
  for (const auto& r : runs) {
    if (!r.report) {
      if (r.exit_code == 0 || r.exit_code == 1)
        m.problems.push_back(fmt::format("{} on {}: exit {} but no JSON report", r.probe, r.variant, r.exit_code));
      continue;
    }
    const auto& rec = *r.report;
    auto [it, fresh] = family_of.emplace(r.probe, rec.family);
    if (!fresh && it->second != rec.family)
      m.problems.push_back(fmt::format("{}: family {} in one report, {} in another", r.probe, it->second, rec.family));
    backends.insert(rec.backend);
    if (rec.variants.size() != 1 || rec.variants[0].name != r.variant || rec.expect != probe::expect_mode::pass) {
      m.problems.push_back(fmt::format("{}: not a matrix run (one variant, {}, --expect pass)", r.source, r.variant));
      continue;
    }
    role[{r.probe, r.variant}] = rec.variants[0].role;
    // The status must be the report's verdict: 0 as expected (passes), 1 not (caught).
    if ((r.exit_code == 0) != rec.as_expected() && (r.exit_code == 0 || r.exit_code == 1))
      m.problems.push_back(fmt::format("{} on {}: exit {} but the report's verdict is {}", r.probe, r.variant,
                                       r.exit_code, rec.as_expected() ? "as expected" : "not as expected"));
  }
  if (backends.size() == 1) m.backend = *backends.begin();
  else if (backends.size() > 1) m.problems.push_back("the matrix runs are on more than one backend");

  std::map<std::string, std::set<std::string>> probes_of, variants_of;
  std::map<std::pair<std::string, std::string>, int> exit_of;
  for (const auto& r : runs) {
    const auto f = family_of.find(r.probe);
    if (f == family_of.end()) {
      m.problems.push_back(fmt::format("{} on {}: exit {}, and no run of {} wrote a report, so its kernel family is "
                                       "unknown",
                                       r.probe, r.variant, r.exit_code, r.probe));
      continue;
    }
    probes_of[f->second].insert(r.probe);
    variants_of[f->second].insert(r.variant);
    exit_of[{r.probe, r.variant}] = r.exit_code;
  }
  for (const auto& [family, variants] : variants_of) {
    const std::string path = (std::filesystem::path(targets_dir) / family / "targets").string();
    std::optional<family_targets> declared;
    try {
      declared = read_targets(path);
    } catch (const std::runtime_error& e) {
      m.problems.push_back(e.what());
    }
    const auto& probes = probes_of[family];
    if (declared)
      for (const auto& v : declared->variants) {
        if (!variants.count(v)) m.problems.push_back(fmt::format("{}: {} is not a variant any probe ran", path, v));
        for (const auto& p : declared->probes.at(v))
          if (!probes.count(p))
            m.problems.push_back(fmt::format("{}: {}: {} is not a probe of {} that ran", path, v, p, family));
      }
    std::vector<std::string> order(variants.begin(), variants.end());
    std::stable_sort(order.begin(), order.end(),
                     [](const std::string& a, const std::string& b) { return variant_rank(a) < variant_rank(b); });
    for (const auto& v : order) {
      matrix_row row;
      row.variant = v;
      row.family = family;
      for (const auto& p : probes) {
        const auto it = exit_of.find({p, v});
        if (it == exit_of.end()) m.problems.push_back(fmt::format("{} was not run on {}", p, v));
        else row.exit_codes[p] = it->second;
      }
      const std::vector<std::string>* listed = nullptr;
      if (declared)
        if (const auto it = declared->probes.find(v); it != declared->probes.end()) listed = &it->second;
      // tree-fixed / tree-upstream: a user's CK tree (kernels/ck_sparse/tree), held to the rules of fixed and upstream:
      // CK's own pre-fix code must be caught exactly where the model's upstream is.
      if (v == "fixed" || v == "tree-fixed") {
        row.kind = matrix_row::rule::exactly;  // caught by none
      } else if (v == "upstream" || v == "tree-upstream") {
        row.kind = matrix_row::rule::exactly;
        const std::vector<std::string>* up = listed;
        if (declared && !up)
          if (const auto it = declared->probes.find("upstream"); it != declared->probes.end()) up = &it->second;
        if (up) {
          row.targets = *up;
        } else {  // the probes that declare upstream buggy
          for (const auto& p : probes)
            if (role.count({p, "upstream"}) && role.at({p, "upstream"}) == probe::variant_role::buggy)
              row.targets.push_back(p);
        }
      } else if (v.rfind("fixed-minus-", 0) == 0) {
        row.kind = matrix_row::rule::exactly;
        if (listed) row.targets = *listed;
        else if (declared) m.problems.push_back(fmt::format("{} has no line for {}", path, v));
      } else {
        if (listed) row.targets = *listed;
        else if (declared) m.problems.push_back(fmt::format("{} has no line for {}", path, v));
      }
      m.rows.push_back(std::move(row));
    }
  }
  return m;
}

}  // namespace tp::report
