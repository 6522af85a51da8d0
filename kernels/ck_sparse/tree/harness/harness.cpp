// tp-ck-tree-harness: a user's composable_kernel sparse_transforms.hpp, compiled on the host through our shim
// (kernels/ck_sparse/tree/shim), serving compress requests to the probes' tree variants over stdin/stdout.
//
// Built by clang-19 (the tree needs ext_vector_type, _BitInt and _Float16), one executable per tree variant, with the
// API the configure step detected: TP_CK_TREE_API 1 = pre-fix (SparseCompressTransform::exec(VecType&),
// compress_a_impl<ADataType, CompressedSize>), 2 = post-fix (execExtVec, exec(const ATensor&), LogicalADataType).
//
//   tp-ck-tree-harness --api          prints "pre-fix" or "post-fix"
//   tp-ck-tree-harness [--isolate]    serves requests until stdin closes; --isolate runs each one in a child process,
//                                     so a sanitizer abort or a crash on one request is that request's answer
//
// The wire format is tree_protocol.h. Each lane vector goes through SparseCompressTransform<2>::exec, the route CK's
// SparseMmaPipeline takes; when the request names FragsK, each fragment's idx comes from the tree's own
// extract_fragment_idx, sliced at the fragment's share of the fields compress_a_impl emitted (the pre-fix pipeline's
// InternalAVecSize, the fixed one's InternalAVecSize * APackedSize: both equal that share for their own scan).
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

#include "ck_tile/core/arch/mma/sparse/sparse_transforms.hpp"
#include "kernels/ck_sparse/tree/tree_protocol.h"

#ifndef TP_CK_TREE_API
#error "TP_CK_TREE_API must be 1 (pre-fix API) or 2 (post-fix API): the configure step detects it"
#endif

namespace {

namespace mma = ck_tile::core::arch::mma;
namespace proto = tp::ck_tree;
using ck_tile::index_t;

// What CK's pipeline hands exec() in the post-fix API: a thread tensor whose DataType is the logical element type.
template <typename T, index_t N>
struct host_thread_tensor {
  using DataType = T;
  using VecType = ck_tile::ext_vector_t<T, N>;
  struct view {
    VecType value;
    template <index_t I>
    VecType at() const {
      return value;
    }
  };
  struct buffer {
    VecType value;
    template <typename V>
    view get_as() const {
      static_assert(std::is_same_v<V, VecType>, "the pipeline reads the thread buffer as one vector");
      return view{value};
    }
  };
  VecType v;
  static constexpr index_t get_thread_buffer_size() { return N; }
  buffer get_thread_buffer() const { return buffer{v}; }
};

struct lane_result {
  std::vector<uint8_t> compressed;
  std::vector<uint32_t> idx, frag_idx;
};

template <typename Idx, uint32_t FragCompressedSize, uint32_t FragsK>
void extract_fragments(const Idx& idx, lane_result& r) {
  for (uint32_t k = 0; k < FragsK; ++k)
    r.frag_idx.push_back(uint32_t(mma::sparse::detail::extract_fragment_idx<FragCompressedSize, FragsK>(idx, 0, k)));
}

template <typename Idx, uint32_t Fields>
void extract_any(const Idx& idx, unsigned frags_k, lane_result& r) {
  switch (frags_k) {
    case 0: return;
    case 1: return extract_fragments<Idx, Fields / 1, 1>(idx, r);
    case 2: if constexpr (Fields % 2 == 0) return extract_fragments<Idx, Fields / 2, 2>(idx, r); break;
    case 4: if constexpr (Fields % 4 == 0) return extract_fragments<Idx, Fields / 4, 4>(idx, r); break;
    case 8: if constexpr (Fields % 8 == 0) return extract_fragments<Idx, Fields / 8, 8>(idx, r); break;
  }
  throw std::string("FragsK " + std::to_string(frags_k) + " does not divide " + std::to_string(Fields) + " fields");
}

// One lane vector of N physical elements whose register type is ext_vector_t<Logical, N>.
template <typename Logical, index_t N>
lane_result compress_lane(const uint8_t* bytes, unsigned frags_k, unsigned& fields) {
  using VecType = ck_tile::ext_vector_t<Logical, N>;
  static_assert(sizeof(VecType) >= 1);
  VecType v;
  std::memcpy(&v, bytes, sizeof v);
  lane_result r;
#if TP_CK_TREE_API == 1
  auto [compressed, idx] = mma::SparseCompressTransform<2>::exec(v);
  constexpr uint32_t Fields = uint32_t(N / 2);
#else
  host_thread_tensor<Logical, N> t{v};
  auto [compressed, idx] = mma::SparseCompressTransform<2>::exec(t);
  constexpr uint32_t Fields = uint32_t(N / 2 * ck_tile::numeric_traits<Logical>::PackedSize);
#endif
  static_assert(sizeof(compressed) * 2 == sizeof(VecType), "the compressed vector is half the input");
  r.compressed.resize(sizeof(compressed));
  std::memcpy(r.compressed.data(), &compressed, sizeof(compressed));
  const auto* w = idx.words;
  r.idx.assign(w, w + sizeof(idx.words) / sizeof(idx.words[0]));
  extract_any<decltype(idx), Fields>(idx, frags_k, r);
  fields = Fields;
  return r;
}

template <typename Logical>
lane_result compress_elements(std::size_t n, const uint8_t* bytes, unsigned frags_k, unsigned& fields) {
  switch (n) {
    case 8: return compress_lane<Logical, 8>(bytes, frags_k, fields);
    case 16: return compress_lane<Logical, 16>(bytes, frags_k, fields);
    case 32: return compress_lane<Logical, 32>(bytes, frags_k, fields);
    case 64: return compress_lane<Logical, 64>(bytes, frags_k, fields);
    case 128: return compress_lane<Logical, 128>(bytes, frags_k, fields);
  }
  throw std::string("a lane vector holds 8, 16, 32, 64 or 128 physical elements, got " + std::to_string(n));
}

lane_result compress_vector(proto::dtype t, const uint8_t* bytes, std::size_t size, unsigned frags_k,
                            unsigned& fields) {
  switch (t) {
    case proto::dtype::int8: return compress_elements<int8_t>(size, bytes, frags_k, fields);
    case proto::dtype::fp8: return compress_elements<ck_tile::fp8_t>(size, bytes, frags_k, fields);
    case proto::dtype::fp16:
      if (size % 2) throw std::string("odd byte count for fp16");
      return compress_elements<ck_tile::fp16_t>(size / 2, bytes, frags_k, fields);
    case proto::dtype::pk_int4: return compress_elements<ck_tile::pk_int4_t>(size, bytes, frags_k, fields);
  }
  throw std::string("unknown dtype " + std::to_string(unsigned(t)));
}

// The whole answer to one request, as bytes for stdout.
std::vector<uint8_t> answer(const proto::request& rq, const std::vector<uint8_t>& body) {
  proto::response rs{};
  std::vector<uint8_t> payload;
  try {
    for (unsigned l = 0; l < rq.lanes; ++l) {
      unsigned fields = 0;
      const auto r = compress_vector(proto::dtype(rq.type), body.data() + std::size_t(l) * rq.vector_bytes,
                                     rq.vector_bytes, rq.frags_k, fields);
      rs.fields = fields;
      rs.idx_words = uint32_t(r.idx.size());
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
  rs.payload_bytes = uint32_t(payload.size());
  std::vector<uint8_t> out(sizeof rs);
  std::memcpy(out.data(), &rs, sizeof rs);
  out.insert(out.end(), payload.begin(), payload.end());
  return out;
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
// so no pipe can fill up while the parent waits. A child that does not exit 0 with a whole answer was stopped by the
// sanitizer (or crashed): its stderr is the evidence.
std::vector<uint8_t> answer_isolated(const proto::request& rq, const std::vector<uint8_t>& body) {
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
  if (WIFEXITED(st) && WEXITSTATUS(st) == 0 && out.size() >= sizeof rs) {
    std::memcpy(&rs, out.data(), sizeof rs);
    if (out.size() == sizeof rs + rs.payload_bytes) {
      // Recoverable sanitizer reports (UBSan) leave the child running: they still belong to the answer.
      if (err.empty() || rs.result != proto::status::ok) return out;
      rs.result = proto::status::sanitizer_report;
      rs.payload_bytes = uint32_t(err.size());
      std::vector<uint8_t> o(sizeof rs);
      std::memcpy(o.data(), &rs, sizeof rs);
      o.insert(o.end(), err.begin(), err.end());
      return o;
    }
  }
  std::string how = WIFSIGNALED(st) ? "child killed by signal " + std::to_string(WTERMSIG(st))
                                    : "child exited with status " + std::to_string(WEXITSTATUS(st));
  std::string text(err.begin(), err.end());
  text += "[tp-ck-tree-harness: " + how + "]\n";
  rs = proto::response{};
  rs.result = proto::status::sanitizer_report;
  rs.payload_bytes = uint32_t(text.size());
  std::vector<uint8_t> o(sizeof rs);
  std::memcpy(o.data(), &rs, sizeof rs);
  o.insert(o.end(), text.begin(), text.end());
  return o;
}

}  // namespace

int main(int argc, char** argv) {
  bool isolate = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--api") {
      std::puts(TP_CK_TREE_API == 1 ? "pre-fix" : "post-fix");
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
