// The framework's view of simt/: the variant registry and backend availability. Kept in one file so the rest of
// probes/common builds and is tested without any kernel linked in.
#include <fstream>
#include <string>

#include "probes/common/probe.h"

#if defined(TP_PROBE_HAVE_SIMT)
#include "simt/host.h"
#include "simt/cuda/sanitizer.h"
#include "simt/registry.h"
#endif

namespace tp::probe {

#if defined(TP_PROBE_HAVE_CUDA)
namespace detail {
void cuda_set_skew(unsigned warp_mask, unsigned cycles);  // cuda_skew.cu (nvcc)
}
#endif

#if !defined(TP_PROBE_HAVE_SIMT)
namespace {
std::string cpu_model() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("model name", 0) == 0) {
      const auto colon = line.find(':');
      if (colon != std::string::npos) return line.substr(line.find_first_not_of(" \t", colon + 1));
    }
  return "unknown CPU";
}
}  // namespace
#endif

#if defined(TP_PROBE_HAVE_SIMT)
variant_provider default_variant_provider() {
  return [](std::string_view family) {
    std::vector<registered_variant> out;
    for (const auto& e : tp::variants(family)) out.push_back({e.family, e.variant, to_string(e.where), e.ops});
    return out;
  };
}

backend_hooks default_backend_hooks() {
  const auto parse = [](std::string_view b) {
    return b == "cuda" ? tp::backend::cuda : b == "hip" ? tp::backend::hip : tp::backend::cpu;
  };
  // A present device that cannot honestly run this binary (HIP: no code object for its arch, a runtime too old for it)
  // is bad input, not "not available": a card holder must never read "skipped" (exit 2 with the reason, not 77).
  backend_hooks h{[parse](std::string_view b) {
                    if (const std::string why = tp::backend_unusable(parse(b)); !why.empty()) throw usage_error(why);
                    return tp::backend_available(parse(b));
                  },
                  [parse](std::string_view b) { return tp::device_description(parse(b)); }};
#if defined(TP_PROBE_HAVE_CUDA)
  h.set_skew = [](unsigned warp_mask, unsigned cycles) { detail::cuda_set_skew(warp_mask, cycles); };
  h.run_under_sanitizer = [](const std::string& tool, const std::vector<std::string>& args) {
    std::vector<std::string> storage = args;
    std::vector<char*> argv;
    for (auto& a : storage) argv.push_back(a.data());
    argv.push_back(nullptr);
    tp::cuda::reexec_under_sanitizer(tool, int(storage.size()), argv.data());
  };
#endif
  h.sanitizer = [] { return tp::cuda::running_under_sanitizer(); };
  h.internal = [](const std::exception& e) { return dynamic_cast<const tp::device_error*>(&e) != nullptr; };
  h.setup_seconds = [parse](std::string_view b) { return tp::take_setup_seconds(parse(b)); };
  return h;
}
#else
variant_provider default_variant_provider() {
  return [](std::string_view) { return std::vector<registered_variant>{}; };
}
backend_hooks default_backend_hooks() {
  return backend_hooks{[](std::string_view b) { return b == "cpu"; },
                       [](std::string_view b) -> std::string {
                         return b == "cpu" ? "CPU on " + cpu_model() : std::string(b) + " device";
                       }};
}
#endif

}  // namespace tp::probe
