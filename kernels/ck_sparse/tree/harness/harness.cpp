// tp-ck-tree-harness: a user's composable_kernel sparse_transforms.hpp, compiled on the host through our shim
// (kernels/ck_sparse/tree/shim), serving compress requests to the probes' tree variants over stdin/stdout.
//
// Built by clang-19 (the tree needs ext_vector_type, _BitInt and _Float16), one executable per tree variant, with the
// entries into SparseCompressTransform the configure step found in the file (entries.h: TP_CK_TREE_ENTRY for
// int8/fp8/fp16, TP_CK_TREE_ENTRY_PK_INT4, TP_CK_TREE_EXTRACT).
//
//   tp-ck-tree-harness --api          prints the routes it takes (entries.h's signature, as configure matched it)
//   tp-ck-tree-harness [--isolate]    serves requests until stdin closes; --isolate runs each one in a child process,
//                                     so a sanitizer abort or a crash on one request is that request's answer
//
// The wire format is tree_protocol.h. Each lane vector goes through the entry the pipeline of the tree's generation
// takes (exec of its thread tensor, or of the buffer as one vector); when the request names FragsK, each fragment's
// idx comes from the tree's own extract_fragment_idx, sliced at the fragment's share of the fields compress_a_impl
// emitted (the pre-fix pipeline's InternalAVecSize, the fixed one's InternalAVecSize * APackedSize: both equal that
// share for their own scan).
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#if !defined(TP_CK_TREE_ENTRY) || !defined(TP_CK_TREE_ENTRY_PK_INT4) || !defined(TP_CK_TREE_EXTRACT)
#error "TP_CK_TREE_ENTRY, TP_CK_TREE_ENTRY_PK_INT4 and TP_CK_TREE_EXTRACT come from the configure step (tree.cmake)"
#endif

#include "ck_tile/core/arch/mma/sparse/sparse_transforms.hpp"
#include "kernels/ck_sparse/tree/harness/entries.h"
#include "kernels/ck_sparse/tree/tree_protocol.h"

namespace {

namespace proto = tp::ck_tree;
using ck_tile::index_t;
using tp::ck_tree::entry;

struct lane_result {
  std::vector<uint8_t> compressed;
  std::vector<uint32_t> idx, frag_idx;
};

template <uint32_t FragFields, uint32_t FragsK, typename Idx>
void extract_fragments(const Idx& idx, lane_result& r) {
  for (uint32_t k = 0; k < FragsK; ++k) r.frag_idx.push_back(tp::ck_tree::fragment_idx<FragFields, FragsK>(idx, k));
}

template <typename Idx, uint32_t Fields>
void extract_any(const Idx& idx, unsigned frags_k, lane_result& r) {
  switch (frags_k) {
    case 0: return;
    case 1: return extract_fragments<Fields / 1, 1>(idx, r);
    case 2: if constexpr (Fields % 2 == 0) return extract_fragments<Fields / 2, 2>(idx, r); break;
    case 4: if constexpr (Fields % 4 == 0) return extract_fragments<Fields / 4, 4>(idx, r); break;
    case 8: if constexpr (Fields % 8 == 0) return extract_fragments<Fields / 8, 8>(idx, r); break;
  }
  throw std::string("FragsK " + std::to_string(frags_k) + " does not divide " + std::to_string(Fields) + " fields");
}

template <typename Logical>
constexpr entry entry_for() {
  return std::is_same_v<Logical, ck_tile::pk_int4_t> ? entry(TP_CK_TREE_ENTRY_PK_INT4) : entry(TP_CK_TREE_ENTRY);
}

// One lane vector of N physical elements whose register type is ext_vector_t<Logical, N>.
template <typename Logical, index_t N>
lane_result compress_lane(const uint8_t* bytes, unsigned frags_k) {
  constexpr entry E = entry_for<Logical>();
  ck_tile::ext_vector_t<Logical, N> v;
  std::memcpy(&v, bytes, sizeof v);
  auto c = tp::ck_tree::compress<E, Logical, N>(v);
  lane_result r;
  r.compressed.assign(c.bytes.begin(), c.bytes.end());
  const auto words = tp::ck_tree::words_of(c.idx);
  r.idx.assign(words.begin(), words.end());
  extract_any<decltype(c.idx), tp::ck_tree::fields<E, Logical, N>()>(c.idx, frags_k, r);
  return r;
}

// What one lane's answer holds for a vector of N elements: decided by the types, before the tree's code runs.
struct lane_layout {
  unsigned fields = 0, idx_words = 0;
};
template <typename Logical, index_t N>
lane_layout layout_of() {
  constexpr entry E = entry_for<Logical>();
  return {tp::ck_tree::fields<E, Logical, N>(), unsigned(tp::ck_tree::idx_words<tp::ck_tree::idx_of<E, Logical, N>>())};
}

// The lane vector sizes the harness serves, as (element count, what to do with it) for one element type.
template <typename Logical, typename F>
auto with_elements(std::size_t n, F&& f) {
  switch (n) {
    case 8: return f.template operator()<Logical, 8>();
    case 16: return f.template operator()<Logical, 16>();
    case 32: return f.template operator()<Logical, 32>();
    case 64: return f.template operator()<Logical, 64>();
    case 128: return f.template operator()<Logical, 128>();
  }
  throw std::string("a lane vector holds 8, 16, 32, 64 or 128 physical elements, got " + std::to_string(n));
}
template <typename F>
auto with_type(proto::dtype t, std::size_t bytes, F&& f) {
  switch (t) {
    case proto::dtype::int8: return with_elements<int8_t>(bytes, f);
    case proto::dtype::fp8: return with_elements<ck_tile::fp8_t>(bytes, f);
    case proto::dtype::fp16:
      if (bytes % 2) throw std::string("odd byte count for fp16");
      return with_elements<ck_tile::fp16_t>(bytes / 2, f);
    case proto::dtype::pk_int4: return with_elements<ck_tile::pk_int4_t>(bytes, f);
  }
  throw std::string("unknown dtype " + std::to_string(unsigned(t)));
}

// The answer a request must get, or (thrown) why the request is bad. Checked before the tree's code runs, so that in
// the child nothing but undefined behaviour in that code can make the answer differ from it.
struct expected_answer {
  lane_layout lane;
  std::size_t payload_bytes = 0;
};
expected_answer expect(const proto::request& rq) {
  const lane_layout l = with_type(proto::dtype(rq.type), rq.vector_bytes,
                                  []<typename Logical, index_t N>() { return layout_of<Logical, N>(); });
  const unsigned k = rq.frags_k;
  if (k != 0 && k != 1 && k != 2 && k != 4 && k != 8)
    throw std::string("FragsK " + std::to_string(k) + " is not 0, 1, 2, 4 or 8");
  if (k != 0 && l.fields % k != 0)
    throw std::string("FragsK " + std::to_string(k) + " does not divide " + std::to_string(l.fields) + " fields");
  return {l, std::size_t(rq.lanes) * (rq.vector_bytes / 2 + 4 * l.idx_words + 4 * k)};
}

std::vector<uint8_t> with_header(proto::response rs, const std::vector<uint8_t>& payload) {
  rs.payload_bytes = uint32_t(payload.size());
  std::vector<uint8_t> out(sizeof rs);
  std::memcpy(out.data(), &rs, sizeof rs);
  out.insert(out.end(), payload.begin(), payload.end());
  return out;
}

// The whole answer to one request, as bytes for stdout.
std::vector<uint8_t> answer(const proto::request& rq, const std::vector<uint8_t>& body) {
  proto::response rs{};
  std::vector<uint8_t> payload;
  try {
    const expected_answer want = expect(rq);
    rs.fields = want.lane.fields;
    rs.idx_words = want.lane.idx_words;
    for (unsigned l = 0; l < rq.lanes; ++l) {
      const uint8_t* bytes = body.data() + std::size_t(l) * rq.vector_bytes;
      const auto r = with_type(proto::dtype(rq.type), rq.vector_bytes, [&]<typename Logical, index_t N>() {
        return compress_lane<Logical, N>(bytes, rq.frags_k);
      });
      const auto* c = r.compressed.data();
      payload.insert(payload.end(), c, c + r.compressed.size());
      const auto* i = reinterpret_cast<const uint8_t*>(r.idx.data());
      payload.insert(payload.end(), i, i + 4 * r.idx.size());
      const auto* f = reinterpret_cast<const uint8_t*>(r.frag_idx.data());
      payload.insert(payload.end(), f, f + 4 * r.frag_idx.size());
    }
    rs.result = proto::status::ok;
  } catch (const std::string& why) {
    rs.result = proto::status::bad_request;
    payload.assign(why.begin(), why.end());
  }
  return with_header(rs, payload);
}

bool read_all(int fd, void* p, std::size_t n) {
  auto* b = static_cast<uint8_t*>(p);
  while (n) {
    const ssize_t r = read(fd, b, n);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return false;
    b += r;
    n -= std::size_t(r);
  }
  return true;
}
bool write_all(int fd, const void* p, std::size_t n) {
  const auto* b = static_cast<const uint8_t*>(p);
  while (n) {
    const ssize_t r = write(fd, b, n);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return false;
    b += r;
    n -= std::size_t(r);
  }
  return true;
}

std::vector<uint8_t> file_contents(int fd) {
  std::vector<uint8_t> out;
  lseek(fd, 0, SEEK_SET);
  uint8_t buf[4096];
  for (ssize_t r; (r = read(fd, buf, sizeof buf)) > 0;) out.insert(out.end(), buf, buf + r);
  return out;
}

// The request in a child process. Its answer and its stderr go to memory files the parent reads once it has exited,
// so no pipe can fill up while the parent waits. A child that does not exit 0 with the answer expect() foresaw was
// stopped by the sanitizer, crashed, or had its own state overwritten by undefined behaviour in the tree's code (the
// pre-fix scan's writes past nonzero_elems land on the harness's stack): its stderr, and what went wrong, are the
// evidence. The request is checked here first, so a bad request is answered as one, never blamed on the tree.
std::vector<uint8_t> answer_isolated(const proto::request& rq, const std::vector<uint8_t>& body) {
  expected_answer want;
  try {
    want = expect(rq);
  } catch (const std::string& why) {
    proto::response rs{};
    rs.result = proto::status::bad_request;
    return with_header(rs, std::vector<uint8_t>(why.begin(), why.end()));
  }
  const int out_fd = memfd_create("tp-ck-tree-answer", 0), err_fd = memfd_create("tp-ck-tree-stderr", 0);
  if (out_fd < 0 || err_fd < 0) {
    std::perror("tp-ck-tree-harness: memfd_create");
    std::exit(3);
  }
  std::fflush(stderr);
  const pid_t pid = fork();
  if (pid < 0) {
    std::perror("tp-ck-tree-harness: fork");
    std::exit(3);
  }
  if (pid == 0) {
    dup2(err_fd, 2);
    alarm(60);  // a loop whose counter the tree's code overwrote ends here, as a signal
    const auto a = answer(rq, body);
    _exit(write_all(out_fd, a.data(), a.size()) ? 0 : 3);
  }
  int st = 0;
  while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {
  }
  auto out = file_contents(out_fd);
  auto err = file_contents(err_fd);
  close(out_fd);
  close(err_fd);
  proto::response rs{};
  std::string how;
  if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
    how = WIFSIGNALED(st) ? "child killed by signal " + std::to_string(WTERMSIG(st))
                          : "child exited with status " + std::to_string(WEXITSTATUS(st));
  } else if (out.size() >= sizeof rs && (std::memcpy(&rs, out.data(), sizeof rs), true) &&
             rs.result == proto::status::ok && rs.fields == want.lane.fields &&
             rs.idx_words == want.lane.idx_words && rs.payload_bytes == want.payload_bytes &&
             out.size() == sizeof rs + want.payload_bytes) {
    // Recoverable sanitizer reports (UBSan) leave the child running: they still belong to the answer.
    if (err.empty()) return out;
    rs.result = proto::status::sanitizer_report;
    return with_header(rs, err);
  } else {
    how = "its answer is not the one the request asks for: the tree's code overwrote the harness's own state";
  }
  std::string text(err.begin(), err.end());
  text += "[tp-ck-tree-harness: " + how + "]\n";
  rs = proto::response{};
  rs.result = proto::status::sanitizer_report;
  return with_header(rs, std::vector<uint8_t>(text.begin(), text.end()));
}

}  // namespace

int main(int argc, char** argv) {
  bool isolate = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--api") {
      tp::ck_tree::print_signature<entry(TP_CK_TREE_ENTRY), entry(TP_CK_TREE_ENTRY_PK_INT4)>(stdout);
      return 0;
    }
    if (a == "--isolate") {
      isolate = true;
      continue;
    }
    std::fprintf(stderr, "usage: %s [--api | --isolate]  (requests on stdin, see tree_protocol.h)\n", argv[0]);
    return 2;
  }
  std::signal(SIGPIPE, SIG_IGN);
  for (;;) {
    proto::request rq{};
    if (!read_all(0, &rq, sizeof rq)) return 0;  // the probe closed the pipe: done
    if (rq.magic != proto::kMagic || rq.lanes == 0 || rq.lanes > 64 || rq.vector_bytes > 4096) {
      std::fprintf(stderr, "tp-ck-tree-harness: malformed request header\n");
      return 2;
    }
    std::vector<uint8_t> body(std::size_t(rq.lanes) * rq.vector_bytes);
    if (!read_all(0, body.data(), body.size())) return 2;
    const auto a = isolate ? answer_isolated(rq, body) : answer(rq, body);
    if (!write_all(1, a.data(), a.size())) return 0;
  }
}
