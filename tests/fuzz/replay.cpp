// tp-fuzz-replay KIND FILE...: feeds each file to a fuzz target (KIND: input, manifest or fa-input) as libFuzzer would, in the
// ordinary (and the ASan+UBSan) build: the committed corpus of crashers and edge cases runs in ctest. Prints one line
// per file (accepted / rejected and the message); exits 0 when every file was accepted or rejected the documented
// way. A finding aborts, as under the fuzzer.
#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "tests/fuzz/fuzz_targets.h"

int main(int argc, char** argv) {
  const std::string kind = argc >= 3 ? argv[1] : "";
#ifdef TP_FUZZ_WITH_FA
  const bool fa_built = true;
#else
  const bool fa_built = false;  // tp-fuzz-replay: the ck reader and the manifest; tp-fuzz-replay-fa adds fa-input
#endif
  if (kind != "input" && kind != "manifest" && !(fa_built && kind == "fa-input")) {
    std::fprintf(stderr, "usage: tp-fuzz-replay input|manifest|fa-input FILE...\n");
    return 2;
  }
  unsigned accepted = 0, rejected = 0;
  for (int i = 2; i < argc; ++i) {
    std::ifstream in(argv[i], std::ios::binary);
    if (!in) {
      std::fprintf(stderr, "tp-fuzz-replay: cannot open %s\n", argv[i]);
      return 2;
    }
    const std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::string message;
    const auto* data = reinterpret_cast<const std::uint8_t*>(bytes.data());
    const int rc = kind == "input"      ? tp::fuzz::input_file(data, bytes.size(), &message)
                   : kind == "manifest" ? tp::fuzz::manifest(data, bytes.size(), &message)
#ifdef TP_FUZZ_WITH_FA
                                        : tp::fuzz::fa_input_file(data, bytes.size(), &message);
#else
                                        : 2;
#endif
    (rc == 0 ? accepted : rejected) += 1;
    std::printf("%s: %s: %s\n", argv[i], rc == 0 ? "accepted" : "rejected", message.substr(0, 200).c_str());
  }
  std::printf("%u accepted, %u rejected, no finding\n", accepted, rejected);
  return 0;
}
