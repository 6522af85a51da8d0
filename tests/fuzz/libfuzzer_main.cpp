// libFuzzer entry point; TP_FUZZ_TARGET (input_file or manifest) picks the target at compile time (tests/fuzz/run-fuzz).
#include <cstddef>
#include <cstdint>

#include "tests/fuzz/fuzz_targets.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  tp::fuzz::TP_FUZZ_TARGET(data, size);
  return 0;
}
