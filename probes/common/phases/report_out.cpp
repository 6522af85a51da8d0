// Phases 9-10: the verdict and environment, then every file and stdout report. Nothing is judged or printed after
// the reports: the exit code is the verdict's.
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <ostream>

#include <fmt/format.h>

#include "probes/common/phases/phases.h"

namespace tp::probe::phase {

namespace {

// --color=auto|always|never; auto (the default): colour when stdout is a terminal and NO_COLOR is unset or empty
// (https://no-color.org).
bool use_colour(const std::string& mode, bool tty) {
  if (mode == "always") return true;
  if (mode == "never") return false;
  const char* no_color = std::getenv("NO_COLOR");
  return tty && !(no_color && *no_color);
}

// The folder a format's report is written in: its file's, or the current one for stdout.
std::string folder_of(const report_plan& plan, report_format f) {
  const auto it = plan.destination.find(f);
  return it == plan.destination.end() ? std::string() : std::filesystem::path(it->second).parent_path().string();
}

void write_file(const std::string& path, const std::string& text, const std::string& what) {
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  f << text;
  f.flush();
  if (!f) throw usage_error(what);
}

}  // namespace

void finish_record(run_record& rec, const declaration& d, const options& opt, const backend_hooks& hooks) {
  rec.broken = evaluate(rec, opt.shard.is_whole());
  rec.environment.emplace_back("probe", d.name);
  rec.environment.emplace_back("backend", opt.backend);
  rec.environment.emplace_back("device", hooks.device_name ? hooks.device_name(opt.backend) : "unknown");
  if (opt.skew)
    rec.environment.emplace_back("skew", fmt::format("warp mask 0x{:x}, {} cycles at each skew point", opt.skew->first,
                                                     opt.skew->second));
  if (hooks.sanitizer)
    if (const auto tool = hooks.sanitizer(); !tool.empty()) rec.environment.emplace_back("sanitizer", tool);
  for (auto& e : build_environment()) rec.environment.push_back(std::move(e));
  for (const auto& e : d.extra_env) rec.environment.push_back(e);
}

int write_reports(const run_record& rec, const report_plan& plan, bool bench, std::ostream& out) {
  for (const auto& ce : rec.counterexamples)
    if (!ce.input_file.empty())
      write_file(ce.input_file, ce.input_text, "cannot write the counterexample input file " + ce.input_file);
  const auto render = [&](report_format f, bool with_colour) -> std::string {
    switch (f) {
      case report_format::text: return render_text(rec, with_colour, bench);
      case report_format::md: return render_markdown(rec, bench, folder_of(plan, report_format::md));
      case report_format::json: return to_json(rec, bench).dump(1) + "\n";
      case report_format::junit: return render_junit(rec, {plan.junit_failing_only});
    }
    return {};
  };
  for (const auto& [f, path] : plan.destination)
    write_file(path, render(f, false),
               "--out '" + path + "': cannot write the " + std::string(to_string(f)) + " report");
  const bool colour = use_colour(plan.colour, isatty(STDOUT_FILENO) != 0);
  if (!plan.to_stdout.empty()) {
    out << render(plan.to_stdout[0], colour && plan.to_stdout[0] == report_format::text);
  } else if (plan.destination.count(report_format::text)) {
    // The text report also goes to the terminal when it was written to a file and stdout is otherwise unused.
    out << render(report_format::text, colour);
  }
  out.flush();
  return rec.as_expected() ? 0 : 1;
}

}  // namespace tp::probe::phase
