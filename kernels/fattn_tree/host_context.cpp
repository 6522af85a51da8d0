// The one ggml symbol the tree's inline host helpers reach that tileprobe defines: ggml_abort, the failure path of
// GGML_ASSERT (ggml/include/ggml.h). tree_variant.cu calls helpers that assert (init_fastdiv_values, the config
// getters); a failed assertion there is the tree refusing a launch tileprobe asked for, so it becomes an exception
// that fails that case with the tree's own message and location, as device errors do. Linked once with the tree
// variants.
#include <cstdarg>
#include <cstdio>
#include <stdexcept>
#include <string>

extern "C" [[noreturn]] void ggml_abort(const char* file, int line, const char* fmt, ...) {
  char msg[512];
  va_list ap;
  va_start(ap, fmt);
  std::vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  throw std::runtime_error(std::string("fattn tree: the tree's assertion at ") + file + ":" + std::to_string(line) +
                           ": " + msg);
}
