// A tree variant (tree-upstream, tree-fixed) of the ck_sparse family: the ops struct of api.h, answered by a user's
// own sparse_transforms.hpp running in its harness process (harness/harness.cpp). Compiled once per tree variant with
// TP_CK_TREE_VARIANT (its name) and TP_CK_TREE_HARNESS (the harness executable).
//
// compress: one lane vector through the tree's SparseCompressTransform::exec.
// run_tiles: what CK's SparseMmaPipeline does with one wave, with the tree's code for the parts it holds. Each lane's
//   uncompressed A (every fragment, in load order) goes through the tree's exec and extract_fragment_idx; the
//   compressed registers, B and the fragment idx then go through the gfx12 instruction model (reference/isa), fragment
//   after fragment into one C. The lane geometry (which K each register word holds) is the pipeline's, as
//   kernels/ck_sparse/sparse_gfx12.cuh states it for the model: the tree file does not hold the pipeline.
// Every request runs in a child process of the harness (--isolate): a sanitizer report on one tile is that tile's
// evidence (tile_results::sanitizer_reports), and the run goes on.
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

#include "kernels/ck_sparse/api.h"
#include "kernels/ck_sparse/tree/tree_protocol.h"
#include "reference/isa/isa.h"
#include "simt/registry.h"

extern char** environ;

#ifndef TP_CK_TREE_VARIANT
#error "TP_CK_TREE_VARIANT (tree-upstream or tree-fixed) must be defined"
#endif
#if !defined(TP_CK_TREE_COPY) || !defined(TP_CK_TREE_ORIGIN)
#error "TP_CK_TREE_COPY (the build folder's copy of sparse_transforms.hpp) and TP_CK_TREE_ORIGIN (the user's file, relative to its tree) must be defined"
#endif
#if !defined(TP_CK_TREE_LAYOUT) || !defined(TP_CK_TREE_GIT) || !defined(TP_CK_TREE_SHA256) || \
    !defined(TP_CK_TREE_GENERATION) || !defined(TP_CK_TREE_SIGNATURE)
#error "the tree's provenance (TP_CK_TREE_LAYOUT, _GIT, _SHA256, _GENERATION, _SIGNATURE) comes from configure"
#endif
#ifndef TP_CK_TREE_HARNESS
#error "TP_CK_TREE_HARNESS (the harness executable) must be defined"
#endif

namespace {

namespace api = ::tp::ck_sparse;
namespace isa = ::tp::ref::isa;
namespace proto = ::tp::ck_tree;

// The harness as a coprocess: started on first use, requests written to its stdin, answers read from its stdout.
class harness_process {
 public:
  ~harness_process() { stop(); }

  struct answer {
    proto::response head;
    std::vector<std::uint8_t> payload;
  };

  answer ask(api::dtype type, unsigned lanes, unsigned frags_k, std::span<const std::uint8_t> vectors) {
    std::lock_guard<std::mutex> lock(mu_);
    if (pid_ <= 0) start();
    proto::request rq;
    rq.type = std::uint8_t(type);
    rq.lanes = std::uint8_t(lanes);
    rq.frags_k = std::uint8_t(frags_k);
    rq.vector_bytes = std::uint32_t(vectors.size() / lanes);
    answer a;
    if (!write_all(&rq, sizeof rq) || !write_all(vectors.data(), vectors.size()) ||
        !read_all(&a.head, sizeof a.head) || a.head.magic != proto::kMagic) {
      stop();
      throw std::runtime_error(std::string(TP_CK_TREE_VARIANT) + ": the harness " + TP_CK_TREE_HARNESS +
                               " stopped answering");
    }
    a.payload.resize(a.head.payload_bytes);
    if (!read_all(a.payload.data(), a.payload.size())) {
      stop();
      throw std::runtime_error(std::string(TP_CK_TREE_VARIANT) + ": the harness's answer was cut short");
    }
    return a;
  }

 private:
  void start() {
    std::signal(SIGPIPE, SIG_IGN);
    int to[2], from[2];
    if (pipe(to) != 0 || pipe(from) != 0) throw std::runtime_error("tree harness: pipe: " + std::string(strerror(errno)));
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, to[0], 0);
    posix_spawn_file_actions_adddup2(&fa, from[1], 1);
    posix_spawn_file_actions_addclose(&fa, to[1]);
    posix_spawn_file_actions_addclose(&fa, from[0]);
    char arg0[] = TP_CK_TREE_HARNESS, arg1[] = "--isolate";
    char* argv[] = {arg0, arg1, nullptr};
    const int rc = posix_spawn(&pid_, TP_CK_TREE_HARNESS, &fa, nullptr, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    close(to[0]);
    close(from[1]);
    if (rc != 0) {
      close(to[1]);
      close(from[0]);
      pid_ = 0;
      throw std::runtime_error(std::string("tree harness: cannot start ") + TP_CK_TREE_HARNESS + ": " + strerror(rc));
    }
    in_ = to[1];
    out_ = from[0];
  }
  void stop() {
    if (in_ >= 0) close(in_);
    if (out_ >= 0) close(out_);
    in_ = out_ = -1;
    if (pid_ > 0) {
      int st;
      waitpid(pid_, &st, 0);
    }
    pid_ = 0;
  }
  bool write_all(const void* p, std::size_t n) {
    const auto* b = static_cast<const std::uint8_t*>(p);
    while (n) {
      const ssize_t r = write(in_, b, n);
      if (r < 0 && errno == EINTR) continue;
      if (r <= 0) return false;
      b += r;
      n -= std::size_t(r);
    }
    return true;
  }
  bool read_all(void* p, std::size_t n) {
    auto* b = static_cast<std::uint8_t*>(p);
    while (n) {
      const ssize_t r = read(out_, b, n);
      if (r < 0 && errno == EINTR) continue;
      if (r <= 0) return false;
      b += r;
      n -= std::size_t(r);
    }
    return true;
  }

  std::mutex mu_;
  pid_t pid_ = 0;
  int in_ = -1, out_ = -1;
};

harness_process& harness() {
  static harness_process h;
  return h;
}

// A sanitizer's report cut to what a reader needs: the error line, the access, the first frames (function names
// shortened, file:line kept) and the summary. pids and addresses are dropped, so two runs give the same evidence.
std::string condensed_report(const std::string& text) {
  std::vector<std::string> keep;
  unsigned frames = 0;
  bool in_first_stack = false, stack_done = false;
  std::size_t at = 0;
  while (at < text.size()) {
    std::size_t end = text.find('\n', at);
    if (end == std::string::npos) end = text.size();
    std::string line = text.substr(at, end - at);
    at = end + 1;
    if (line.rfind("==", 0) == 0) {
      const auto close = line.find("==", 2);
      if (close != std::string::npos) line = line.substr(close + 2);
    }
    const auto first = line.find_first_not_of(' ');
    if (first == std::string::npos) {
      if (in_first_stack) stack_done = true;
      continue;
    }
    line = line.substr(first);
    const bool frame = line.size() > 1 && line[0] == '#' && std::isdigit(static_cast<unsigned char>(line[1]));
    if (frame) {
      if (stack_done) continue;
      in_first_stack = true;
      if (++frames > 4) continue;
      // "#0 0xADDR in FUNCTION FILE:LINE:COL": keep the frame number, a short function name and the location.
      const auto in = line.find(" in ");
      const auto loc = line.rfind(' ');
      std::string fn = in != std::string::npos && loc > in + 4 ? line.substr(in + 4, loc - in - 4) : "";
      while (fn.rfind("auto ", 0) == 0) fn = fn.substr(5);  // deduced return types
      if (const auto lt = fn.find('<'); lt != std::string::npos) fn = fn.substr(0, lt) + "<...>";
      if (const auto pr = fn.find('('); pr != std::string::npos) fn = fn.substr(0, pr);
      keep.push_back(line.substr(0, line.find(' ')) + " " + fn + " " + (loc != std::string::npos ? line.substr(loc + 1) : ""));
      continue;
    }
    const bool access = line.rfind("WRITE of size", 0) == 0 || line.rfind("READ of size", 0) == 0;
    if (line.find("ERROR: AddressSanitizer") != std::string::npos || line.find("runtime error:") != std::string::npos ||
        access || line.rfind("SUMMARY:", 0) == 0 || line.rfind("[tp-ck-tree-harness:", 0) == 0) {
      // Addresses, pcs and the summary's (long, templated) function name vary or say nothing the frames do not.
      for (const char* cut : {" on address 0x", " at pc 0x"})
        if (const auto at_cut = line.find(cut); at_cut != std::string::npos) line = line.substr(0, at_cut);
      if (access)
        if (const auto at_cut = line.find(" at 0x"); at_cut != std::string::npos) line = line.substr(0, at_cut);
      if (line.rfind("SUMMARY:", 0) == 0)
        if (const auto in = line.find(" in "); in != std::string::npos) line = line.substr(0, in);
      keep.push_back(line);
    }
  }
  std::string out;
  for (const auto& l : keep) out += (out.empty() ? "" : "\n") + l;
  if (out.empty()) out = text.substr(0, 400);
  // The tree's file is compiled from a copy in the build folder: name the user's own file instead, by its path in
  // its tree (a report names no folder of this machine).
  const std::string copy = TP_CK_TREE_COPY, origin = TP_CK_TREE_ORIGIN;
  for (std::size_t at_copy; (at_copy = out.find(copy)) != std::string::npos;) out.replace(at_copy, copy.size(), origin);
  return out;
}

api::compress_result compress(api::dtype type, std::span<const std::uint8_t> vector) {
  const auto a = harness().ask(type, 1, 0, vector);
  api::compress_result r;
  const std::string text(a.payload.begin(), a.payload.end());
  if (a.head.result == proto::status::bad_request) throw std::invalid_argument(TP_CK_TREE_VARIANT ": " + text);
  if (a.head.result == proto::status::sanitizer_report) {
    r.sanitizer_report = condensed_report(text);
    return r;
  }
  const std::size_t half = vector.size() / 2;
  r.compressed.assign(a.payload.begin(), a.payload.begin() + std::ptrdiff_t(half));
  r.idx.resize(a.head.idx_words);
  std::memcpy(r.idx.data(), a.payload.data() + half, 4 * r.idx.size());
  r.fields = a.head.fields;
  return r;
}

// The pipeline's lane geometry per instruction (kernels/ck_sparse/sparse_gfx12.cuh): K per fragment, elements per
// register word, uncompressed A / compressed A / B words per lane and fragment, and the first K of word w for lane
// half h.
struct lane_geometry {
  isa::instr in;
  unsigned k, elems_per_word, a_words, compressed_a_words, b_words;
  unsigned (*lane_k)(unsigned h, unsigned w);
};
lane_geometry geometry_of(const api::tile_shape& s) {
  auto linear16x4 = [](unsigned h, unsigned w) { return 16u * h + 4u * w; };
  auto f16 = [](unsigned h, unsigned w) { return 16u * (w >> 2) + 8u * h + 2u * (w & 3u); };
  auto iu4_k32 = [](unsigned h, unsigned w) { return 16u * h + 8u * w; };
  auto iu4_k64 = [](unsigned h, unsigned w) { return 32u * h + 8u * w; };
  switch (s.type) {
    case api::dtype::int8: return {isa::instr::swmmac_i32_16x16x32_iu8, 32, 4, 4, 2, 4, linear16x4};
    case api::dtype::fp8_e4m3: return {isa::instr::swmmac_f32_16x16x32_fp8_fp8, 32, 4, 4, 2, 4, linear16x4};
    case api::dtype::fp16: return {isa::instr::swmmac_f32_16x16x32_f16, 32, 2, 8, 4, 8, f16};
    case api::dtype::pk_int4:
      if (s.instr == api::instruction::iu4_k64) return {isa::instr::swmmac_i32_16x16x64_iu4, 64, 8, 4, 2, 4, iu4_k64};
      return {isa::instr::swmmac_i32_16x16x32_iu4, 32, 8, 2, 1, 2, iu4_k32};
  }
  throw std::invalid_argument("tree variant: unknown dtype");
}

void run_tiles(const api::tile_batch& in, api::tile_results& out) {
  const api::tile_shape& s = in.shape;
  if (!s.valid() || (s.instr == api::instruction::iu4_k64 && s.frags_k() > 4))
    throw std::invalid_argument(std::string(TP_CK_TREE_VARIANT ": unsupported shape ") + api::to_string(s.type) +
                                " K=" + std::to_string(s.k));
  if (in.a.size() != in.tiles * s.operand_bytes() || in.b.size() != in.tiles * s.operand_bytes())
    throw std::invalid_argument(TP_CK_TREE_VARIANT ": A and B sizes do not match the tile count");
  const lane_geometry g = geometry_of(s);
  const unsigned frags = s.frags_k(), vector_bytes = 4 * g.a_words * frags, compressed_bytes = vector_bytes / 2;
  const unsigned idx_words = s.idx_words_per_lane();
  const std::size_t operand = s.operand_bytes();
  const bool integer = api::is_integer(s.type);
  out = api::tile_results{};
  (integer ? out.d_int.resize(in.tiles * 256) : out.d_float.resize(in.tiles * 256));
  out.compressed.assign(in.tiles * 32 * compressed_bytes, 0);
  out.idx.assign(in.tiles * 32 * idx_words, 0);
  out.oob_survivor_writes.assign(in.tiles * 32, 0);
  out.oob_field_writes.assign(in.tiles * 32, 0);
  out.sanitizer_reports.assign(in.tiles, std::string());
  // Word w of operand row/column rc at fragment bk (api.h: both stored K-contiguous per row / column).
  auto word_at = [&](const std::uint8_t* op, unsigned rc, unsigned h, unsigned bk, unsigned w) {
    const unsigned k = bk * g.k + g.lane_k(h, w);
    std::uint32_t v;
    std::memcpy(&v, op + 4 * ((rc * s.k + k) / g.elems_per_word), 4);
    return v;
  };
  std::vector<std::uint8_t> lanes(32 * vector_bytes);
  for (std::size_t t = 0; t < in.tiles; ++t) {
    const std::uint8_t* a = in.a.data() + t * operand;
    const std::uint8_t* b = in.b.data() + t * operand;
    for (unsigned lane = 0; lane < 32; ++lane)
      for (unsigned bk = 0; bk < frags; ++bk)
        for (unsigned w = 0; w < g.a_words; ++w) {
          const std::uint32_t v = word_at(a, lane & 15u, lane >> 4, bk, w);
          std::memcpy(lanes.data() + lane * vector_bytes + 4 * (bk * g.a_words + w), &v, 4);
        }
    const auto ans = harness().ask(s.type, 32, frags, lanes);
    if (ans.head.result == proto::status::bad_request)
      throw std::invalid_argument(TP_CK_TREE_VARIANT ": " + std::string(ans.payload.begin(), ans.payload.end()));
    if (ans.head.result == proto::status::sanitizer_report) {
      out.sanitizer_reports[t] = condensed_report(std::string(ans.payload.begin(), ans.payload.end()));
      continue;  // D stays 0: the tile has no result, only the evidence
    }
    out.idx_fields_per_lane = ans.head.fields;
    const unsigned tree_words = ans.head.idx_words, per_lane = compressed_bytes + 4 * tree_words + 4 * frags;
    if (ans.payload.size() != std::size_t(32) * per_lane)
      throw std::runtime_error(TP_CK_TREE_VARIANT ": the harness's answer has the wrong size");
    isa::wave_regs c = isa::make_d_regs(g.in);
    for (unsigned bk = 0; bk < frags; ++bk) {
      isa::wave_regs ar = isa::make_a_regs(g.in), br = isa::make_b_regs(g.in), ir = isa::make_index_regs(g.in);
      for (unsigned lane = 0; lane < 32; ++lane) {
        const std::uint8_t* p = ans.payload.data() + lane * per_lane;
        for (unsigned r = 0; r < g.compressed_a_words; ++r)
          std::memcpy(&ar.word(lane, r), p + 4 * (bk * g.compressed_a_words + r), 4);
        for (unsigned r = 0; r < g.b_words; ++r) br.word(lane, r) = word_at(b, lane & 15u, lane >> 4, bk, r);
        std::memcpy(&ir.word(lane, 0), p + compressed_bytes + 4 * tree_words + 4 * bk, 4);
      }
      c = isa::execute(g.in, ar, br, c, ir, isa::modifiers{});
    }
    const auto d = isa::read_d(g.in, c);
    for (unsigned i = 0; i < 16; ++i)
      for (unsigned j = 0; j < 16; ++j) {
        const std::uint32_t code = d(i, j);
        if (integer) out.d_int[t * 256 + i * 16 + j] = std::int32_t(code);
        else std::memcpy(&out.d_float[t * 256 + i * 16 + j], &code, 4);
      }
    for (unsigned lane = 0; lane < 32; ++lane) {
      const std::uint8_t* p = ans.payload.data() + lane * per_lane;
      std::memcpy(out.compressed.data() + (t * 32 + lane) * compressed_bytes, p, compressed_bytes);
      std::memcpy(out.idx.data() + (t * 32 + lane) * idx_words, p + compressed_bytes, 4 * std::min(idx_words, tree_words));
    }
  }
}

// What configure found (kernels/ck_sparse/tree/tree.cmake), for the reports: which file, in which layout, at which
// commit, with which bytes, declaring which API.
const char* const provenance[] = {"file", TP_CK_TREE_ORIGIN, "layout", TP_CK_TREE_LAYOUT, "git commit", TP_CK_TREE_GIT,
                                  "sha256", TP_CK_TREE_SHA256, "API generation", TP_CK_TREE_GENERATION,
                                  "harness routes", TP_CK_TREE_SIGNATURE, nullptr};
const api::ops tree_ops{TP_CK_TREE_VARIANT, &run_tiles, &compress, provenance};
// Host code: registered for the cpu backend, the one the ck probes' compress-level and tile runs take here.
[[maybe_unused]] const bool registered = ::tp::detail::register_variant(
    "ck_sparse", TP_CK_TREE_VARIANT, ::tp::backend::cpu, &tree_ops, typeid(api::ops).name());

}  // namespace
