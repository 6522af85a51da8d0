// Phase 8: each variant's first failure made as small as the shrinker can, shown beside the reference variant.
#include "probes/common/phases/phases.h"

namespace tp::probe::phase {

std::vector<counterexample> shrink_failures(const case_runner& run, const declaration& d, const options& opt,
                                            const variant_selection& sel, const execution& ran,
                                            const std::string& input_stem) {
  const std::string exe =
      opt.command_line.empty() ? d.name : shell_quote(reported_executable(opt.command_line[0]));
  std::vector<counterexample> out;
  for (std::size_t v = 0; v < sel.selected.size(); ++v) {
    if (!ran.first_failing[v]) continue;
    const variant& on = sel.selected[v];
    const case_def& failing = *ran.first_failing[v];
    shrink_result sr{failing, 0, 0, false};
    if (opt.shrink && d.shrinker)
      sr = shrink_case(
          failing, d.shrinker, [&](const case_def& c) { return !run.one(c, on).pass; }, opt.shrink_budget);
    counterexample ce;
    ce.variant = on.name;
    ce.original_id = failing.id;
    ce.shrunk_id = sr.shrunk.id;
    ce.steps = sr.steps;
    ce.runs = sr.runs;
    ce.budget_exhausted = sr.budget_exhausted;
    ce.on_variant = run.one(sr.shrunk, on);
    std::string variants_arg = on.name;
    if (sel.reference && sel.reference->name != on.name) {
      ce.reference_variant = sel.reference->name;
      ce.on_reference = run.one(sr.shrunk, *sel.reference);
      variants_arg += "," + sel.reference->name;
    }
    const std::string base = exe + " --backend " + opt.backend + " --variant " + shell_quote(variants_arg);
    if (d.input_text)
      if (const auto text = d.input_text(sr.shrunk)) ce.input_text = *text;
    if (!ce.input_text.empty() && !input_stem.empty()) {
      ce.input_file = input_stem + "." + on.name + ".tpin";
      ce.reproduce.push_back(base + " --input " + shell_quote(ce.input_file));
    }
    if (opt.input.empty()) ce.reproduce.push_back(base + " --case " + shell_quote(ce.shrunk_id));
    out.push_back(std::move(ce));
  }
  return out;
}

}  // namespace tp::probe::phase
