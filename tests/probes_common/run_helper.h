// Runs a toy probe in-process with an argv, capturing stdout, stderr, the exit code and the JSON report.
#pragma once

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "toy_probe.h"

namespace toy {

inline std::string temp_path(const std::string& stem) {
  static int counter = 0;
  return (std::filesystem::temp_directory_path() /
          ("tp-probes-common-" + std::to_string(getpid()) + "-" + std::to_string(counter++) + "-" + stem))
      .string();
}

inline std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

struct run_result {
  int code = -1;
  std::string out, err;
  nlohmann::json report;  // null unless want_json and the run wrote one
};

// want_json adds --report json --out-json TMP (unless the args already say where JSON goes).
inline run_result run(std::vector<std::string> args, const config& cfg = {}, bool want_json = true) {
  std::string json_path;
  if (want_json) {
    json_path = temp_path("report.json");
    args.insert(args.end(), {"--report", "json", "--out-json", json_path});
  }
  std::vector<std::string> storage{"probe-toy"};
  storage.insert(storage.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& s : storage) argv.push_back(s.data());
  argv.push_back(nullptr);

  tp::probe::app a("probe-toy", "toy sum drops every 3");
  build(a, cfg);
  std::ostringstream out, err;
  auto* old_out = std::cout.rdbuf(out.rdbuf());
  auto* old_err = std::cerr.rdbuf(err.rdbuf());
  run_result r;
  r.code = a.main(int(storage.size()), argv.data());
  std::cout.rdbuf(old_out);
  std::cerr.rdbuf(old_err);
  r.out = out.str();
  r.err = err.str();
  if (!json_path.empty() && std::filesystem::exists(json_path)) {
    const std::string text = slurp(json_path);
    if (!text.empty()) r.report = nlohmann::json::parse(text);
    std::filesystem::remove(json_path);
  }
  return r;
}

}  // namespace toy
