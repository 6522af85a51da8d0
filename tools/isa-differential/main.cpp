// isa-differential: every software matrix op of a backend (kernels/mma/wave_op_table.h) against the instruction model
// (reference/isa) on random registers; one line per op variant, a summary, exit 0 every op that ran equal (op variants
// not applicable to this device named, never run) / 1 a mismatch, an error or an op the backend could not run / 2 bad
// usage / 77 backend not built or not available, or no selected op applicable to this device. README.md beside this
// file.
#include <algorithm>
#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <exception>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "kernels/mma/wave_op_table.h"
#include "probes/common/cli.h"
#include "simt/host.h"
#include "simt/registry.h"
#include "tools/isa-differential/differential.h"

namespace diff = tp::isa_diff;
namespace isa = tp::ref::isa;

namespace {

struct usage_error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

std::vector<std::string> split_list(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  for (std::string item; std::getline(ss, item, ',');)
    if (!item.empty()) out.push_back(item);
  return out;
}

std::optional<tp::cpu::policy> parse_policy(std::string_view s) {
  for (auto p : {tp::cpu::policy::in_order, tp::cpu::policy::reverse, tp::cpu::policy::random,
                 tp::cpu::policy::adversarial})
    if (s == tp::cpu::to_string(p)) return p;
  return std::nullopt;
}

// What one op variant is asked to run: every case of a regime, or the cases named by --case.
struct planned_case {
  diff::regime r;
  std::uint64_t seed;
  tp::cpu::policy policy;  // cpu only
};

struct variant_tally {
  std::size_t cases[2] = {0, 0}, equal[2] = {0, 0};
  std::string first_mismatch;  // case id + where
  std::string error;
};

std::string shell_quoted(const std::string& s) { return "'" + s + "'"; }

// The device's wave size where the table runs an op only in a device wave of its own size (HIP), asked before any
// launch; 0 where every op runs (the CPU emulator, CUDA).
unsigned device_wave_of(const tp::mma::wave_op_table& table, const std::string& backend_name) {
  if (!table.device_wave) return 0;
  const unsigned w = table.device_wave();
  if (w == 0) throw std::runtime_error("the " + backend_name + " device reports no wave size");
  return w;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"isa-differential: software matrix ops (kernels/mma) vs the instruction model (reference/isa) on random "
               "registers, on one backend"};
  std::string backend_name = "cpu", instr_list = "all", policy_list = "all", wave_list = "32,64";
  std::optional<std::size_t> cases_opt, batch_opt;
  std::uint64_t base_seed = 1;
  std::vector<std::string> case_ids;
  bool list_only = false;
  std::string json_path;
  app.add_option("--backend", backend_name, "cpu|cuda|hip (default cpu)");
  app.add_option("--cases", cases_opt, "cases per op variant and regime (default 64 on cpu, 2048 on a GPU)")
      ->check(CLI::PositiveNumber);
  app.add_option("--seed", base_seed, "base seed; each case's seed derives from it, the op variant, regime and number");
  app.add_option("--instr", instr_list, "comma list of instructions (model names or mnemonics), or all");
  app.add_option("--wave", wave_list, "comma list of wave sizes to run: 32, 64 (default both)");
  app.add_option("--policy", policy_list,
                 "cpu scheduling policies, comma list of in_order,reverse,random,adversarial or all (default); case n "
                 "runs under policy n mod count");
  app.add_option("--case", case_ids,
                 "run only this case id, as printed (repeatable); --instr, --wave and --cases then do not apply");
  app.add_option("--batch", batch_opt,
                 "cases per launch (default: 1 on cpu, so each case's random schedule is seeded by its own seed and a "
                 "--case rerun replays it; every case of an op variant and regime on a GPU)")
      ->check(CLI::PositiveNumber);
  app.add_flag("--list", list_only,
               "list the backend's op variants and whether it can run them (on this device, where one answers); run "
               "nothing");
  app.add_option("--json", json_path,
                 "also write the run's counts as JSON to FILE: op variants that ran, those not applicable to this "
                 "device (with the reason), failed ones, cases and the exit code");
  if (const auto stop = tp::parse_command_line(app, argc, argv)) {
    if (!stop->usage_error.empty()) std::cerr << "isa-differential: " << stop->usage_error << "\n";
    return stop->exit_code;
  }

  try {
    // Options first: bad usage is exit 2 whatever the backend.
    std::optional<tp::backend> backend;
    for (auto b : {tp::backend::cpu, tp::backend::cuda, tp::backend::hip})
      if (backend_name == tp::to_string(b)) backend = b;
    if (!backend) throw usage_error("--backend: '" + backend_name + "' is not cpu, cuda or hip");
    const bool on_cpu = *backend == tp::backend::cpu;

    std::set<isa::instr> instrs;
    if (instr_list != "all")
      for (const auto& name : split_list(instr_list)) {
        const auto in = isa::parse_instr(name);
        if (!in) throw usage_error("--instr: '" + name + "' is not an instruction of the model (reference/isa)");
        instrs.insert(*in);
      }
    std::set<unsigned> waves;
    for (const auto& w : split_list(wave_list)) {
      if (w != "32" && w != "64") throw usage_error("--wave: '" + w + "' is not 32 or 64");
      waves.insert(unsigned(std::stoul(w)));
    }
    if (waves.empty()) throw usage_error("--wave: no wave size given");
    std::vector<tp::cpu::policy> policies;
    if (policy_list == "all") {
      policies = {tp::cpu::policy::in_order, tp::cpu::policy::reverse, tp::cpu::policy::random,
                  tp::cpu::policy::adversarial};
    } else {
      for (const auto& name : split_list(policy_list)) {
        const auto p = parse_policy(name);
        if (!p) throw usage_error("--policy: '" + name + "' is not in_order, reverse, random or adversarial");
        policies.push_back(*p);
      }
      if (policies.empty()) throw usage_error("--policy: no policy given");
      if (!on_cpu)
        throw usage_error("--policy chooses the CPU emulator's schedule; on " + backend_name +
                          " the hardware schedules (leave it out)");
    }
    std::vector<diff::case_id> wanted_cases;
    for (const auto& text : case_ids) {
      const auto id = diff::parse_case_id(text);
      if (!id) throw usage_error("--case: '" + text + "' is not a case id (isa-diff(<op variant>,regime=bits|finite,"
                                 "seed=0x<hex>[,policy=<cpu policy>]))");
      if (!id->policy.empty() && !parse_policy(id->policy))
        throw usage_error("--case: policy '" + id->policy + "' is not in_order, reverse, random or adversarial");
      wanted_cases.push_back(*id);
    }

    const auto* table = tp::find_variant<tp::mma::wave_op_table>("mma", "soft", *backend);
    if (!table) {
      std::cerr << "isa-differential: backend " << backend_name << " is not built into this binary (the software-op "
                << "table is registered for: ";
      bool first = true;
      for (const auto& e : tp::variants("mma")) {
        std::cerr << (first ? "" : ", ") << tp::to_string(e.where);
        first = false;
      }
      std::cerr << (first ? "nothing" : "") << "; build the cuda or hip preset for those backends)\n";
      return 77;
    }
    const std::vector<diff::op_variant> all_variants = diff::resolve(*table);

    const std::string unusable = tp::backend_unusable(*backend);
    const bool available = unusable.empty() && tp::backend_available(*backend);
    // Applicability comes from the device's reported wave size, before any launch (never from a trap).
    const unsigned device_wave = available ? device_wave_of(*table, backend_name) : 0;
    const auto not_applicable = [&](const diff::op_variant& v) {
      return device_wave ? diff::not_applicable(v, device_wave) : std::nullopt;
    };
    if (list_only) {
      for (const auto& v : all_variants) {
        const auto na = not_applicable(v);
        std::cout << v.name << "  wave" << v.op->wave << "  "
                  << (v.op->not_runnable ? std::string("not run on this backend: ") + v.op->not_runnable
                      : na               ? "not applicable to this device: " + *na
                                         : std::string("runs"))
                  << "\n";
      }
      return 0;
    }
    if (!unusable.empty()) {
      std::cerr << "isa-differential: " << unusable << "\n";
      return 2;
    }
    if (!available) {
      std::cerr << "isa-differential: backend " << backend_name << " is not available on this machine ("
                << tp::device_description(*backend) << ")\n";
      return 77;
    }

    const std::size_t cases_per_regime = cases_opt.value_or(on_cpu ? 64 : 2048);
    const std::size_t batch = batch_opt.value_or(on_cpu ? 1 : cases_per_regime);

    // The plan: op variant -> its cases.
    std::vector<std::pair<const diff::op_variant*, std::vector<planned_case>>> plan;
    if (!wanted_cases.empty()) {
      for (const auto& id : wanted_cases) {
        const diff::op_variant* v = nullptr;
        for (const auto& cand : all_variants)
          if (cand.name == id.op_variant) v = &cand;
        if (!v) throw usage_error("--case: op variant '" + id.op_variant + "' is not in the " + backend_name + " table");
        if (!id.policy.empty() && !on_cpu)
          std::cout << "# " << diff::format(id) << ": policy " << id.policy << " applies to the cpu backend only; "
                    << backend_name << " schedules by itself\n";
        const auto pol = id.policy.empty() ? policies.front() : *parse_policy(id.policy);
        auto it = std::find_if(plan.begin(), plan.end(), [&](const auto& p) { return p.first == v; });
        if (it == plan.end()) it = plan.insert(plan.end(), {v, {}});
        it->second.push_back({id.r, id.seed, pol});
      }
    } else {
      for (const auto& v : all_variants) {
        if (!instrs.empty() && !instrs.count(v.in)) continue;
        if (!waves.count(v.op->wave)) continue;
        std::vector<planned_case> cs;
        for (diff::regime r : diff::all_regimes)
          for (std::size_t n = 0; n < cases_per_regime; ++n)
            cs.push_back({r, diff::case_seed(base_seed, v.name, r, n), policies[n % policies.size()]});
        plan.push_back({&v, std::move(cs)});
      }
      if (plan.empty()) throw usage_error("--instr/--wave select no op variant of the " + backend_name + " table");
    }

    std::cout << "# isa-differential: software matrix ops (kernels/mma, table '" << table->name
              << "') vs reference/isa on random registers\n"
              << "# backend " << backend_name << ": " << tp::device_description(*backend) << "\n";
    if (wanted_cases.empty()) {
      std::cout << "# seed " << base_seed << ", " << cases_per_regime << " cases per op variant and regime (bits: "
                << "every bit random; finite: small finite values, int32 C near the limits), " << batch
                << " per launch";
      if (on_cpu) {
        std::cout << ", policies";
        for (std::size_t i = 0; i < policies.size(); ++i) std::cout << (i ? "," : " ") << tp::cpu::to_string(policies[i]);
      }
      std::cout << "\n";
    }

    const auto t0 = std::chrono::steady_clock::now();
    std::size_t total_cases = 0, total_equal = 0, launches = 0, variants_ran = 0;
    std::vector<std::string> variants_bad, variants_not_run;
    std::vector<std::pair<std::string, std::string>> variants_not_applicable;  // name, why
    std::string first_bad_id;
    for (auto& [v, cs] : plan) {
      const auto& f = isa::info(v->in);
      char head[96];
      std::snprintf(head, sizeof head, "%-52s wave%-2u", v->name.c_str(), v->op->wave);
      if (v->op->not_runnable) {
        variants_not_run.push_back(v->name);
        std::cout << "NOT RUN  " << head << "  not run on this backend: " << v->op->not_runnable << "\n";
        continue;
      }
      if (const auto why = not_applicable(*v)) {
        variants_not_applicable.emplace_back(v->name, *why);
        std::cout << "N/A      " << head << "  not applicable to this device: " << *why << "\n";
        continue;
      }
      ++variants_ran;
      variant_tally t;
      // Launch groups: consecutive cases of one regime (and, on cpu, one policy), at most `batch` each.
      std::map<std::pair<int, int>, std::vector<std::size_t>> groups;
      for (std::size_t i = 0; i < cs.size(); ++i)
        groups[{int(cs[i].r), on_cpu ? int(cs[i].policy) : 0}].push_back(i);
      try {
        for (const auto& [key, members] : groups)
          for (std::size_t from = 0; from < members.size(); from += batch) {
            const std::size_t to = std::min(members.size(), from + batch);
            std::vector<diff::operands> ops;
            for (std::size_t m = from; m < to; ++m)
              ops.push_back(diff::make_operands(v->in, cs[members[m]].seed, cs[members[m]].r));
            if (on_cpu) {
              tp::cpu::run_options o;
              o.sched = cs[members[from]].policy;
              o.seed = cs[members[from]].seed;  // the random policy's schedule; per case with --batch 1
              tp::cpu::set_run_options(o);
            }
            const auto results = diff::run_differential(*v, ops, backend_name);
            if (on_cpu) tp::cpu::set_run_options({});
            ++launches;
            for (std::size_t m = from; m < to; ++m) {
              const planned_case& pc = cs[members[m]];
              const auto& res = results[m - from];
              const int ri = int(pc.r);
              ++t.cases[ri];
              if (res.differing_words == 0) {
                ++t.equal[ri];
                continue;
              }
              if (t.first_mismatch.empty()) {
                const diff::case_id id{v->name, pc.r, pc.seed, on_cpu ? tp::cpu::to_string(pc.policy) : ""};
                t.first_mismatch = diff::format(id) + " " + res.first + " (" + std::to_string(res.differing_words) +
                                   " of " + std::to_string(std::size_t(f.wave) * f.d_vgprs) + " D words differ)";
                if (first_bad_id.empty()) first_bad_id = diff::format(id);
              }
            }
          }
      } catch (const std::exception& e) {
        if (on_cpu) tp::cpu::set_run_options({});
        t.error = e.what();
      }
      const std::size_t cases = t.cases[0] + t.cases[1], equal = t.equal[0] + t.equal[1];
      total_cases += cases;
      total_equal += equal;
      const bool ok = t.error.empty() && equal == cases;
      if (!ok) variants_bad.push_back(v->name);
      std::cout << (ok ? "ok       " : t.error.empty() ? "MISMATCH " : "ERROR    ") << head << "  ";
      for (int ri = 0; ri < 2; ++ri)
        std::cout << (ri ? ", " : "") << diff::to_string(diff::regime(ri)) << " " << t.equal[ri] << "/" << t.cases[ri]
                  << " equal";
      if (!t.first_mismatch.empty()) std::cout << "; first: " << t.first_mismatch;
      if (!t.error.empty()) std::cout << "; error: " << t.error;
      std::cout << "\n";
    }
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::printf("# summary: %zu op variants, %zu ran, %zu not applicable to this device; %zu cases, %zu equal, %zu "
                "mismatching; %zu op variants failed, %zu not run on this backend; %zu launches, %.2f s\n",
                plan.size(), variants_ran, variants_not_applicable.size(), total_cases, total_equal,
                total_cases - total_equal, variants_bad.size(), variants_not_run.size(), launches, seconds);
    if (!variants_not_run.empty())
      std::cout << "# not run on this backend counts as a failed check; --wave 32 leaves the wave64 ops out\n";
    if (!variants_not_applicable.empty())
      std::cout << "# not applicable to this wave" << device_wave << " device: " << variants_not_applicable.size()
                << " op variants of another wave size, neither run nor counted as passed (a device of their wave size, "
                << "or --backend cpu, runs them)\n";
    if (!first_bad_id.empty())
      std::cout << "# rerun the first mismatch: isa-differential --backend " << backend_name << " --case "
                << shell_quoted(first_bad_id) << "\n";
    // Nothing ran at all is no verdict: every selected op variant needs a device this is not.
    const int rc = !variants_bad.empty() || !variants_not_run.empty() ? 1 : variants_ran == 0 ? 77 : 0;
    if (rc == 77) std::cout << "# nothing ran: no selected op variant applies to this device\n";
    if (!json_path.empty()) {
      nlohmann::json na = nlohmann::json::array();
      for (const auto& [name, why] : variants_not_applicable) na.push_back({{"op_variant", name}, {"reason", why}});
      const nlohmann::json j = {{"isa_differential_version", 1},
                                {"backend", backend_name},
                                {"device", tp::device_description(*backend)},
                                {"device_wave", device_wave ? nlohmann::json(device_wave) : nlohmann::json(nullptr)},
                                {"op_variants", plan.size()},
                                {"ran", variants_ran},
                                {"not_applicable", na},
                                {"failed", variants_bad},
                                {"not_run_on_backend", variants_not_run},
                                {"cases", total_cases},
                                {"equal", total_equal},
                                {"exit_code", rc}};
      std::ofstream out(json_path);
      out << j.dump(1) << "\n";
      if (!out.flush()) {
        std::cerr << "isa-differential: " << json_path << ": cannot write\n";
        return 2;
      }
    }
    return rc;
  } catch (const usage_error& e) {
    std::cerr << "isa-differential: " << e.what() << "\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "isa-differential: error: " << e.what() << "\n";
    return 1;
  }
}
