#include "simt/cuda/sanitizer.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace tp::cuda {

namespace {
std::string find_on_path(const std::string& exe) {
  const char* path = std::getenv("PATH");
  std::string p = path ? path : "";
  std::size_t start = 0;
  while (start <= p.size()) {
    std::size_t end = p.find(':', start);
    if (end == std::string::npos) end = p.size();
    std::string dir = p.substr(start, end - start);
    if (!dir.empty()) {
      std::string cand = dir + "/" + exe;
      if (access(cand.c_str(), X_OK) == 0) return cand;
    }
    start = end + 1;
  }
  return {};
}
}  // namespace

std::string running_under_sanitizer() {
  const char* t = std::getenv("TP_UNDER_SANITIZER");
  return t ? t : "";
}

void reexec_under_sanitizer(const std::string& tool, int argc, char** argv) {
  if (!running_under_sanitizer().empty()) return;
  if (tool != "racecheck" && tool != "initcheck" && tool != "memcheck" && tool != "synccheck") {
    std::fprintf(stderr, "error: --sanitize %s: expected racecheck, initcheck, memcheck or synccheck\n", tool.c_str());
    std::exit(2);
  }
  const std::string exe = find_on_path("compute-sanitizer");
  if (exe.empty()) {
    std::fprintf(stderr, "error: --sanitize %s needs compute-sanitizer on PATH (CUDA toolkit bin/)\n", tool.c_str());
    std::exit(2);
  }
  setenv("TP_UNDER_SANITIZER", tool.c_str(), 1);
  std::vector<std::string> args{exe, "--tool", tool, "--error-exitcode", "1"};
  if (tool == "racecheck") args.insert(args.end(), {"--racecheck-report", "all"});
  for (int i = 0; i < argc; ++i) args.emplace_back(argv[i]);
  std::vector<char*> cargs;
  for (auto& a : args) cargs.push_back(a.data());
  cargs.push_back(nullptr);
  execv(exe.c_str(), cargs.data());
  std::perror("error: exec compute-sanitizer");
  std::exit(2);
}

}  // namespace tp::cuda
