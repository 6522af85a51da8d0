// Phases 4-5: which variants run, in which roles, and the backend made ready for them.
#include <unistd.h>

#include <algorithm>

#include "probes/common/phases/phases.h"

namespace tp::probe::phase {

namespace {

// How to get a backend that this executable was built without (the presets in CMakePresets.json).
std::string build_hint(std::string_view backend) {
  if (backend == "hip")
    return "build the hip preset: cmake --preset hip && cmake --build --preset hip (README: On an AMD card)";
  if (backend == "cuda") return "build the cuda preset: cmake --preset cuda && cmake --build --preset cuda";
  return "no preset builds backend '" + std::string(backend) + "'";
}

bool contains(const std::vector<std::string>& names, const std::string& n) {
  return std::find(names.begin(), names.end(), n) != names.end();
}

// The command line without --sanitize (both `--sanitize T` and `--sanitize=T`), with argv[0] made absolute so
// compute-sanitizer finds the same executable however it was started.
std::vector<std::string> without_sanitize(const std::vector<std::string>& argv) {
  std::vector<std::string> out;
  for (std::size_t i = 0; i < argv.size(); ++i) {
    if (argv[i] == "--sanitize") {
      ++i;
      continue;
    }
    if (argv[i].rfind("--sanitize=", 0) == 0) continue;
    out.push_back(argv[i]);
  }
  if (!out.empty()) {
    char self[4096];
    const ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n > 0) out[0].assign(self, std::size_t(n));
  }
  return out;
}

}  // namespace

variant_selection resolve_variants(const std::vector<registered_variant>& registry, const declaration& d,
                                   const raw_options& raw, options& opt) {
  const std::string& backend = opt.backend;
  std::vector<registered_variant> on_backend;
  std::set<std::string> other_backends;
  for (const auto& v : registry) {
    if (v.backend == backend) on_backend.push_back(v);
    else other_backends.insert(v.backend);
  }
  if (on_backend.empty()) {
    if (registry.empty())
      throw backend_unavailable("no variant of kernel family '" + d.family + "' is registered in this executable");
    std::string built;
    for (const auto& b : other_backends) built += (built.empty() ? "" : ", ") + b;
    throw backend_unavailable("backend " + backend + " is not built into this probe (built: " + built + "); " +
                              build_hint(backend));
  }
  const auto find_registered = [&](const std::string& n) -> const registered_variant* {
    for (const auto& v : on_backend)
      if (v.name == n) return &v;
    return nullptr;
  };
  const auto unknown = [&](const std::string& what) {
    std::string known;
    for (const auto& v : on_backend) known += (known.empty() ? "" : ", ") + v.name;
    return usage_error(what + ": no such variant of " + d.family + " on " + backend + " (known: " + known + ")");
  };
  std::vector<std::string> names;
  for (const auto& w : split_list(raw.variant.empty() ? std::vector<std::string>{d.default_variant_list} : raw.variant)) {
    if (w == "all") {
      for (const auto& v : on_backend)
        if (!contains(names, v.name)) names.push_back(v.name);
      continue;
    }
    if (!find_registered(w)) throw unknown("--variant '" + w + "'");
    if (!contains(names, w)) names.push_back(w);
  }
  if (names.empty()) throw usage_error("--variant selects no variant");
  opt.variants = names;
  const auto buggy_names = raw.buggy.empty() ? d.buggy_default : split_list(raw.buggy);
  const auto fixed_names = raw.fixed.empty() ? d.fixed_default : split_list(raw.fixed);
  for (const auto& b : buggy_names)
    if (contains(fixed_names, b)) throw usage_error("variant '" + b + "' is declared both buggy and fixed");
  for (const auto* list : {&raw.buggy, &raw.fixed})
    for (const auto& n : split_list(*list))
      if (!find_registered(n)) throw unknown("--buggy/--fixed '" + n + "'");

  variant_selection sel;
  for (const auto& n : names) {
    const auto* reg = find_registered(n);
    variant v{reg->name, reg->backend, reg->ops, variant_role::other};
    if (contains(buggy_names, n)) v.role = variant_role::buggy;
    if (contains(fixed_names, n)) v.role = variant_role::fixed;
    sel.selected.push_back(v);
  }
  for (const auto& v : sel.selected)
    if (v.role == variant_role::fixed) {
      sel.reference = v;
      break;
    }
  if (!sel.reference)
    for (const auto& n : fixed_names)
      if (const auto* reg = find_registered(n)) {
        sel.reference = variant{reg->name, reg->backend, reg->ops, variant_role::fixed};
        break;
      }
  return sel;
}

void prepare_backend(const backend_hooks& hooks, const options& opt) {
  if (!hooks.available || !hooks.available(opt.backend))
    throw backend_unavailable("backend " + opt.backend + " is not available on this machine: " +
                              (hooks.device_name ? hooks.device_name(opt.backend) : "no device or driver"));
  if (!opt.sanitize.empty()) {
    if (!hooks.run_under_sanitizer) throw usage_error("--sanitize: this probe was built without the CUDA backend");
    // Does not return when it execs; the child runs the same command without --sanitize.
    hooks.run_under_sanitizer(opt.sanitize, without_sanitize(opt.command_line));
  }
  if (opt.skew) {
    if (!hooks.set_skew) throw usage_error("--skew: this probe was built without the CUDA backend");
    hooks.set_skew(opt.skew->first, opt.skew->second);
  }
}

}  // namespace tp::probe::phase
