// tp-ck-tree-differential: the model (upstream, fixed) against the user's CK tree (tree-upstream, tree-fixed) at
// compress level, on the same seeded lane vectors: identical compressed values, idx words and field counts wherever
// CK's code is well defined, and identical UB flags where the harness runs under a sanitizer. Inputs where the model
// says CK's code is undefined (writes past its survivor array or its idx fields) are classified, never compared: in a
// build without sanitizers their result is whatever the compiler made of the UB.
//
//   tp-ck-tree-differential [--cases N] [--seed S] [--sanitized]
//
// Inputs: every element type (int8, fp8 E4M3 with CK's default raw-byte zero test, fp16, pk_int4), lane vectors of
// 8..128 physical elements, each 4-group (pk_int4: of nibbles) one of the 11 kinds inside the 2:4 contract; in one
// vector in ten, a group in four has three or four survivors instead (outside it); zeros sometimes written as -0 (fp8 0x80, fp16 0x8000).
// Exit: 0 no disagreement, 1 disagreements (the first ones printed), 2 bad usage, 77 no tree variant built.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "kernels/ck_sparse/api.h"
#include "simt/registry.h"

namespace {

namespace api = ::tp::ck_sparse;

struct splitmix {
  std::uint64_t s;
  std::uint64_t next() {
    std::uint64_t z = (s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  unsigned below(unsigned n) { return unsigned(next() % n); }
};

// Survivor masks of the 11 kinds inside the contract: the pairs, the singles, the empty group.
constexpr unsigned kContractMasks[11] = {0b0011, 0b0101, 0b1001, 0b0110, 0b1010, 0b1100, 1, 2, 4, 8, 0};
constexpr unsigned kOutsideMasks[5] = {0b0111, 0b1011, 0b1101, 0b1110, 0b1111};

unsigned group_mask(splitmix& r, bool allow_outside, bool& outside) {
  if (!allow_outside || r.below(4) != 0) return kContractMasks[r.below(11)];
  outside = true;
  return kOutsideMasks[r.below(5)];
}

std::uint32_t nonzero_code(api::dtype t, splitmix& r) {
  for (;;) {
    switch (t) {
      case api::dtype::int8: {
        const std::uint32_t c = r.below(256);
        if (c != 0) return c;
        break;
      }
      case api::dtype::fp8_e4m3: {
        const std::uint32_t c = r.below(256);
        if (c != 0 && c != 0x80) return c;
        break;
      }
      case api::dtype::fp16: {
        const std::uint32_t c = r.below(65536);
        if ((c & 0x7FFFu) != 0) return c;
        break;
      }
      case api::dtype::pk_int4: {
        const std::uint32_t c = r.below(16);
        if (c != 0) return c;
        break;
      }
    }
  }
}
std::uint32_t zero_code(api::dtype t, splitmix& r) {
  if (r.below(4) != 0) return 0;
  return t == api::dtype::fp8_e4m3 ? 0x80u : t == api::dtype::fp16 ? 0x8000u : 0u;
}

std::vector<std::uint8_t> make_vector(api::dtype t, splitmix& r, bool& outside) {
  outside = false;
  const bool allow_outside = r.below(10) == 0;  // one vector in ten may leave the contract
  static constexpr unsigned sizes[5] = {8, 16, 32, 64, 128};
  const unsigned n = sizes[r.below(5)];
  // Logical elements: pk_int4 packs two per byte, high nibble first.
  const unsigned logical = t == api::dtype::pk_int4 ? 2 * n : n;
  std::vector<std::uint32_t> codes(logical);
  for (unsigned g = 0; g < logical / 4; ++g) {
    const unsigned m = group_mask(r, allow_outside, outside);
    for (unsigned p = 0; p < 4; ++p) codes[4 * g + p] = (m >> p) & 1u ? nonzero_code(t, r) : zero_code(t, r);
  }
  std::vector<std::uint8_t> bytes;
  if (t == api::dtype::pk_int4)
    for (unsigned b = 0; b < n; ++b) bytes.push_back(std::uint8_t(codes[2 * b] << 4 | codes[2 * b + 1]));
  else if (t == api::dtype::fp16)
    for (auto c : codes) {
      bytes.push_back(std::uint8_t(c));
      bytes.push_back(std::uint8_t(c >> 8));
    }
  else
    for (auto c : codes) bytes.push_back(std::uint8_t(c));
  return bytes;
}

std::string hex(const std::vector<std::uint8_t>& b) {
  std::string s;
  char buf[4];
  for (auto x : b) {
    std::snprintf(buf, sizeof buf, "%02x", x);
    s += buf;
  }
  return s;
}
std::string hex_words(const std::vector<std::uint32_t>& w) {
  std::string s;
  char buf[12];
  for (auto x : w) {
    std::snprintf(buf, sizeof buf, "%s%08x", s.empty() ? "" : " ", x);
    s += buf;
  }
  return s;
}

}  // namespace

int main(int argc, char** argv) {
  unsigned long cases = 6000, seed = 17;
  bool sanitized = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if ((a == "--cases" || a == "--seed") && i + 1 < argc) {
      char* end = nullptr;
      const unsigned long v = std::strtoul(argv[++i], &end, 10);
      if (!end || *end) {
        std::fprintf(stderr, "tp-ck-tree-differential: %s takes a number\n", a.c_str());
        return 2;
      }
      (a == "--cases" ? cases : seed) = v;
    } else if (a == "--sanitized") {
      sanitized = true;
    } else {
      std::fprintf(stderr, "usage: tp-ck-tree-differential [--cases N] [--seed S] [--sanitized]\n");
      return 2;
    }
  }
  struct pair {
    const char *model, *tree;
  };
  std::vector<std::pair<const api::ops*, const api::ops*>> pairs;
  std::vector<pair> names;
  for (pair p : {pair{"upstream", "tree-upstream"}, pair{"fixed", "tree-fixed"}}) {
    const auto* m = tp::find_variant<api::ops>("ck_sparse", p.model, tp::backend::cpu);
    const auto* t = tp::find_variant<api::ops>("ck_sparse", p.tree, tp::backend::cpu);
    if (m && t) {
      pairs.emplace_back(m, t);
      names.push_back(p);
    }
  }
  if (pairs.empty()) {
    std::puts("skipped: no tree variant is built (configure with -DTP_CK_ROOT=<composable_kernel checkout>, and "
              "-DTP_CK_FIXED_ROOT=<tree> or -DTP_CK_PATCH=<file> for tree-fixed)");
    return 77;
  }
  const api::dtype types[4] = {api::dtype::int8, api::dtype::fp8_e4m3, api::dtype::fp16, api::dtype::pk_int4};
  int disagreements = 0;
  for (std::size_t p = 0; p < pairs.size(); ++p) {
    unsigned long compared = 0, ub_both = 0, ub_model_only = 0;
    // Inputs with a group outside the 2:4 contract: their own class, whatever happens to them.
    unsigned long outside_inputs = 0, outside_ub = 0, outside_compared = 0;
    splitmix r{seed};
    for (unsigned long c = 0; c < cases; ++c) {
      const api::dtype t = types[r.below(4)];
      bool outside = false;
      const auto v = make_vector(t, r, outside);
      const auto m = pairs[p].first->compress(t, v);
      const auto x = pairs[p].second->compress(t, v);
      const bool model_ub = m.oob_survivor_writes || m.oob_field_writes, tree_ub = !x.sanitizer_report.empty();
      std::string why;
      if (model_ub && tree_ub) {
        ++ub_both;
      } else if (model_ub) {
        ++ub_model_only;
        if (sanitized) why = "the model flags UB, the sanitized tree ran clean";
      } else if (tree_ub) {
        why = "the tree was stopped by a sanitizer where the model sees no UB:\n" + x.sanitizer_report;
      } else {
        ++compared;
        if (m.compressed != x.compressed || m.idx != x.idx || m.fields != x.fields)
          why = "model " + hex(m.compressed) + " idx " + hex_words(m.idx) + " (" + std::to_string(m.fields) +
                " fields), tree " + hex(x.compressed) + " idx " + hex_words(x.idx) + " (" + std::to_string(x.fields) +
                " fields)";
      }
      if (outside) {
        ++outside_inputs;
        (model_ub ? outside_ub : outside_compared) += 1;
      }
      if (!why.empty() && ++disagreements <= 10)
        std::printf("DISAGREE %s vs %s, case %lu (%s, %zu bytes %s): %s\n", names[p].model, names[p].tree, c,
                    api::to_string(t), v.size(), hex(v).c_str(), why.c_str());
    }
    std::printf("%s vs %s: %lu inputs (seed %lu): %lu compared, %lu UB on both (classified), %lu UB by the model%s\n",
                names[p].model, names[p].tree, cases, seed, compared, ub_both, ub_model_only,
                sanitized ? " only (each a disagreement)" : " (the harness is not sanitized: classified, not compared)");
    std::printf("  outside the 2:4 contract (a group with 3 or 4 survivors): %lu inputs, %lu of them UB by the model, "
                "%lu defined there and compared\n",
                outside_inputs, outside_ub, outside_compared);
  }
  std::printf("differential: %d disagreement(s)\n", disagreements);
  return disagreements ? 1 : 0;
}
