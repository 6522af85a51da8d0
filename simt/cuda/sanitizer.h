// Re-run the current process under NVIDIA compute-sanitizer (racecheck, initcheck, memcheck, synccheck).
// Host code only: a probe calls it first thing when given --sanitize TOOL; the child sees TP_UNDER_SANITIZER=TOOL and
// runs normally. Exit codes: the child's; 2 when the tool name is unknown or compute-sanitizer is not on PATH.
#pragma once

#include <string>

namespace tp::cuda {

// Never returns in the parent: execs compute-sanitizer or exits 2 with a one-line message. Returns immediately when
// already running under the sanitizer (TP_UNDER_SANITIZER set).
void reexec_under_sanitizer(const std::string& tool, int argc, char** argv);

// The sanitizer tool this process runs under, or "" when none.
std::string running_under_sanitizer();

}  // namespace tp::cuda
