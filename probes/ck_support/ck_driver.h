// The case plumbing the three ck_sparse probes share: sources (fixture tiles, adversarial tables, canonical
// controls, seeded fuzz), compress-level cases, the batched runner and the one-group shrinker. A probe's main.cpp
// fills a ck_probe_config with what makes its bug show and how to judge one tile.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "probes/ck_support/ck_tiles.h"

namespace tp::ck_probe {

// A compress-level case: one lane vector through the variant's compress entry, with the expected output.
struct compress_case {
  api::dtype type;
  std::vector<std::uint8_t> input;          // physical lane vector
  std::vector<std::uint8_t> want_compressed;  // physical, first half of the vector
  std::vector<std::uint32_t> want_idx;      // SparseIdxPack words
  std::string note;                         // what upstream CK's own test expected, when it differs
  // Judge the idx words exactly (else only the field count: the idx convention is another probe's verdict).
  bool exact_idx = true;
  unsigned want_fields = 0;                 // checked when !exact_idx
};

// How a tile case is labelled and judged. Fuzz cases carry only their shape and generator seed (`t` empty): the
// batch runner generates the tile into reused storage when it runs, and the shrinker when it needs it.
struct tile_payload {
  tile_ptr t;
  std::string label;  // for the id: src=...
  api::tile_shape shape{};
  std::uint64_t tile_seed = 0;
  const group_kinds* kinds = nullptr;  // the probe's fuzz kind pool (lives as long as the app)
  tile materialize() const { return t ? *t : random_tile(shape, tile_seed, *kinds); }
};

struct ck_probe_config {
  std::string case_prefix;                 // "ck-phantom"
  std::vector<api::dtype> dtypes;
  struct fixture_pair {
    api::dtype type;
    std::string a, b;  // fixture names: A 16 x 256, B 256 x 16
  };
  std::vector<fixture_pair> fixtures;
  group_kinds adversarial_kinds;  // empty: all 11, in CK's adversarial cycle (docs/bugs/ck-sparse.md §11)
  group_kinds fuzz_kinds;         // the pool a fuzz group's kind is drawn from
  group_kinds control_kinds;      // empty: CK's canonical fill (slots 1 and 3 zeroed)
  std::string control_label;
  // Whether one variant's result on one tile passes; `why` gets the reason lines.
  std::function<bool(const tile&, const tile_eval&, probe::outcome&)> judge;
  // Kinds of group the shrinker tries first (the bug's own groups).
  group_kinds shrink_first;
  std::vector<std::pair<std::string, compress_case>> compress_cases;  // (id, case)
  // --input compress-level vectors: judge the idx words exactly against CK's fixed convention, or (false) only the
  // field count, when the field values are another probe's verdict.
  bool input_exact_idx = true;
};

void install(probe::app& app, const ck_probe_config& cfg);

// Expected SparseIdxPack words of CompressedSize fields (group i's 4-bit value at bits 4i).
std::vector<std::uint32_t> idx_words_of(const std::vector<unsigned>& group_nibbles);

}  // namespace tp::ck_probe
