// Command-line parsing with the conventions every tileprobe executable shares (probes, tileprobe-report,
// isa-differential): --help and --version print and exit 0; any other parse error is bad usage, exit 2, reported in
// one line (CLI11's message with its newlines folded) that points at --help.
#pragma once

#include <algorithm>
#include <optional>
#include <string>

#include <CLI/CLI.hpp>

namespace tp {

struct cli_stop {
  int exit_code = 0;
  std::string usage_error;  // empty when the parser printed what was asked (--help, --version)
};

// --version: prints `line` (probe::version_line: the tool, the tileprobe version, the commit configured from) and exits 0.
inline void add_version_flag(CLI::App& cli, const std::string& line) {
  cli.set_version_flag("--version", line, "print the tileprobe version and the commit this build was configured from, "
                                          "and exit");
}

// Parses argv into `cli`; nothing when the program goes on, else why it stops.
inline std::optional<cli_stop> parse_command_line(CLI::App& cli, int argc, char** argv) {
  try {
    cli.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // CLI11 raises --help, --help-all and --version as parse "errors" with exit code 0.
    if (e.get_exit_code() == 0) return cli_stop{cli.exit(e), {}};
    std::string msg = e.what();
    std::replace(msg.begin(), msg.end(), '\n', ' ');
    return cli_stop{2, msg + " (see --help)"};
  }
  return std::nullopt;
}

}  // namespace tp
