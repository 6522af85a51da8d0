// The compute-sanitizer re-exec helper refuses loudly (exit 2) when it cannot do what was asked.
#include <catch2/catch_test_macros.hpp>

#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <string>

#include "simt/cuda/sanitizer.h"

namespace {
int exit_code_of(const char* tool, const char* path) {
  const pid_t pid = fork();
  if (pid == 0) {
    unsetenv("TP_UNDER_SANITIZER");
    setenv("PATH", path, 1);
    char arg0[] = "probe";
    char* argv[] = {arg0, nullptr};
    tp::cuda::reexec_under_sanitizer(tool, 1, argv);
    _exit(0);  // returning means it decided to run unsanitized
  }
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}
}  // namespace

TEST_CASE("A sanitize request without compute-sanitizer on PATH exits 2") {
  CHECK(exit_code_of("racecheck", "/nonexistent-dir") == 2);
}

TEST_CASE("A sanitize request with an unknown tool exits 2") { CHECK(exit_code_of("speedcheck", "/nonexistent-dir") == 2); }

TEST_CASE("Under the sanitizer already, the helper returns and the probe runs") {
  setenv("TP_UNDER_SANITIZER", "racecheck", 1);
  char arg0[] = "probe";
  char* argv[] = {arg0, nullptr};
  tp::cuda::reexec_under_sanitizer("racecheck", 1, argv);
  CHECK(tp::cuda::running_under_sanitizer() == "racecheck");
  unsetenv("TP_UNDER_SANITIZER");
  CHECK(tp::cuda::running_under_sanitizer().empty());
}
