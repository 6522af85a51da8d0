// tp-bench-probe-memory: peak resident memory of a probe run against --fuzz N, side by side in one run. Each size is
// one child process (`PROBE --fuzz N ARGS --report json,junit --out STEM`), its peak RSS read from wait4's rusage; the
// table gives the ratio to the smallest size and what the reports weigh. Memory must stay flat (cases are generated
// per batch and reports list failing cases with counts, probes/common/README.md "Memory"), so the ratio stays near 1.
//
//   tp-bench-probe-memory PROBE [--sizes 10000,100000,1000000] [-- ARGS...]
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fcntl.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

extern char** environ;

namespace {
struct measured {
  unsigned long long n = 0;
  long max_rss_kib = 0;
  int exit_code = -1;
  double seconds = 0;
  std::uintmax_t json_bytes = 0, junit_bytes = 0;
};

measured run_one(const std::string& probe, unsigned long long n, const std::vector<std::string>& extra,
                 const std::string& stem) {
  std::vector<std::string> args{probe, "--fuzz", std::to_string(n)};
  args.insert(args.end(), extra.begin(), extra.end());
  args.insert(args.end(), {"--report", "json,junit", "--out", stem});
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
  measured m;
  m.n = n;
  const auto t0 = std::chrono::steady_clock::now();
  pid_t pid = 0;
  if (posix_spawn(&pid, probe.c_str(), &fa, nullptr, argv.data(), environ) != 0) {
    std::perror(probe.c_str());
    std::exit(2);
  }
  posix_spawn_file_actions_destroy(&fa);
  int status = 0;
  rusage ru{};
  wait4(pid, &status, 0, &ru);
  m.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  m.max_rss_kib = ru.ru_maxrss;  // Linux: KiB
  m.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  std::error_code ec;
  m.json_bytes = std::filesystem::file_size(stem + ".json", ec);
  m.junit_bytes = std::filesystem::file_size(stem + ".xml", ec);
  return m;
}
}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || std::string(argv[1]) == "--help") {
    std::fprintf(stderr, "usage: tp-bench-probe-memory PROBE [--sizes N,N,...] [-- ARGS...]\n");
    return 2;
  }
  const std::string probe = argv[1];
  std::vector<unsigned long long> sizes{10000, 100000, 1000000};
  std::vector<std::string> extra;
  for (int i = 2; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--sizes" && i + 1 < argc) {
      sizes.clear();
      std::string list = argv[++i];
      for (std::size_t p = 0; p <= list.size();) {
        const auto c = list.find(',', p);
        const std::string item = list.substr(p, c == std::string::npos ? std::string::npos : c - p);
        char* end = nullptr;
        const unsigned long long v = std::strtoull(item.c_str(), &end, 10);
        if (item.empty() || *end || item[0] == '-') {
          std::fprintf(stderr, "tp-bench-probe-memory: --sizes '%s': not a list of counts\n", list.c_str());
          return 2;
        }
        sizes.push_back(v);
        if (c == std::string::npos) break;
        p = c + 1;
      }
    } else if (a == "--") {
      extra.assign(argv + i + 1, argv + argc);
      break;
    } else {
      std::fprintf(stderr, "tp-bench-probe-memory: unknown argument '%s'\n", a.c_str());
      return 2;
    }
  }
  const auto dir = std::filesystem::temp_directory_path() / ("tp-bench-memory-" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  std::vector<measured> rows;
  for (auto n : sizes) rows.push_back(run_one(probe, n, extra, (dir / ("n" + std::to_string(n))).string()));
  std::filesystem::remove_all(dir);
  std::printf("%s: peak RSS by --fuzz N (each a fresh process; reports json + junit to files)\n", probe.c_str());
  std::printf("%12s %6s %12s %10s %12s %12s %10s\n", "fuzz N", "exit", "peak RSS MiB", "vs first", "JSON bytes",
              "JUnit bytes", "seconds");
  for (const auto& m : rows)
    std::printf("%12llu %6d %12.1f %9.2fx %12ju %12ju %10.1f\n", m.n, m.exit_code, m.max_rss_kib / 1024.0,
                double(m.max_rss_kib) / double(rows.front().max_rss_kib), m.json_bytes, m.junit_bytes, m.seconds);
  for (const auto& m : rows)
    if (m.exit_code != 0 && m.exit_code != 1) return 1;
  return 0;
}
