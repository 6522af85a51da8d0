// Whether the HIP backend can honestly run here, for simt/host.h's hip_backend. Host-only, no HIP headers: the HIP
// side passes in what its runtime reported.
//
// Three outcomes, never "skipped" while a card is present:
//   - no AMD GPU at all (the runtime counts none and the kernel driver's topology lists none): not available (exit 77)
//   - a GPU the runtime does not know (the topology lists one, the runtime counts none), a GPU whose arch has no code
//     object in this binary, or a runtime older than the first ROCm release that supports the arch: unusable, with
//     one line naming the arch, the archs built in, the runtime version and what to do (exit 2)
//   - otherwise usable.
#pragma once

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace tp::hip {

// "gfx1201:sramecc-:xnack-" -> "gfx1201": the feature suffix does not change which code object loads.
inline std::string base_arch(const std::string& gcn_arch_name) {
  return gcn_arch_name.substr(0, gcn_arch_name.find(':'));
}

inline std::vector<std::string> split_archs(const std::string& comma_list) {
  std::vector<std::string> out;
  std::stringstream in(comma_list);
  for (std::string a; std::getline(in, a, ',');)
    if (!a.empty()) out.push_back(a);
  return out;
}

// The first ROCm release AMD supports an arch family with (cmake/hip.cmake's tp_hip_min_rocm has the sources), as
// {major, minor}: the HIP runtime's version number carries a build number, not the ROCm patch level, so the runtime
// check compares major.minor (configure checks the full release of a ROCm it builds against).
struct release {
  int major = 0, minor = 0, patch = 0;
  std::string str() const { return std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(patch); }
};
inline release min_rocm_for(const std::string& arch) {
  if (arch.rfind("gfx12", 0) == 0) return {6, 4, 1};
  if (arch.rfind("gfx11", 0) == 0) return {5, 7, 0};
  if (arch.rfind("gfx94", 0) == 0) return {6, 0, 0};
  return {};
}

// AMD GPUs the kernel driver (amdkfd) exposes, as gfx names, from its topology in sysfs: a node's
// `gfx_target_version` is major*10000 + minor*100 + stepping in decimal, with the minor and stepping digits being
// the arch name's hexadecimal digits (110000 = gfx1100, 120001 = gfx1201, 90402 = gfx942); CPU nodes have 0.
inline std::vector<std::string> kfd_gpus(const std::filesystem::path& topology = "/sys/class/kfd/kfd/topology/nodes") {
  // Nodes in the driver's order (node 0, 1, ...): directory iteration order is the file system's, not the driver's.
  std::vector<std::pair<unsigned long, std::filesystem::path>> nodes;
  std::error_code ec;
  for (const auto& node : std::filesystem::directory_iterator(topology, ec)) {
    const auto stem = node.path().filename().string();
    if (stem.empty() || stem.find_first_not_of("0123456789") != std::string::npos) continue;
    nodes.emplace_back(std::stoul(stem), node.path());
  }
  std::sort(nodes.begin(), nodes.end());
  std::vector<std::string> out;
  for (const auto& [index, path] : nodes) {
    std::ifstream props(path / "properties");
    for (std::string key; props >> key;) {
      unsigned long v = 0;
      props >> v;
      if (key != "gfx_target_version" || v == 0) continue;
      const unsigned long major = v / 10000, minor = (v / 100) % 100, step = v % 100;
      static const char hex[] = "0123456789abcdef";
      std::string name = "gfx" + std::to_string(major);
      name += minor < 16 ? hex[minor] : '?';
      name += step < 16 ? hex[step] : '?';
      out.push_back(name);
    }
  }
  return out;
}

// Why the HIP backend cannot honestly run on the device the runtime reported, or nullopt when it can.
//   device_count / gcn_arch_name: from the runtime (gcn_arch_name empty when device_count is 0)
//   runtime: "major.minor.build" and its major/minor; built: the archs of this binary's code objects (comma list)
inline std::optional<std::string> unusable_reason(int device_count, const std::string& gcn_arch_name,
                                                  const std::string& runtime, release runtime_release,
                                                  const std::string& built, const std::vector<std::string>& kfd) {
  const std::string what_to_do = "build the hip preset against a ROCm that supports it (README: On an AMD card)";
  if (device_count == 0) {
    if (kfd.empty()) return std::nullopt;  // no card: not available, which is not this function's answer
    return "an AMD GPU (" + kfd.front() + ", from the kernel driver's topology) is present, but HIP runtime " +
           runtime + " reports no device: it is too old to know " + kfd.front() + " (code objects built: " + built +
           "); " + what_to_do;
  }
  const std::string arch = base_arch(gcn_arch_name);
  bool have = false;
  for (const auto& a : split_archs(built)) have |= a == arch;
  if (!have)
    return "HIP device " + gcn_arch_name + ": this binary has no code object for " + arch + " (built: " + built +
           "; runtime " + runtime + "); reconfigure with -DTP_HIP_ARCHS=" + arch + " (or add it to the list)";
  const release need = min_rocm_for(arch);
  if (runtime_release.major < need.major ||
      (runtime_release.major == need.major && runtime_release.minor < need.minor))
    return "HIP device " + gcn_arch_name + ": HIP runtime " + runtime + " predates " + arch + " (AMD supports it from " +
           "ROCm " + need.str() + "; code objects built: " + built + "); " + what_to_do;
  return std::nullopt;
}

}  // namespace tp::hip
