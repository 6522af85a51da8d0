// Shared mechanics of the three ck_sparse probes (ck-phantom-fallback, ck-nibble-overcount, ck-idx-swap-xor):
// logical tiles, their physical packing for the kernel, the oracle, the case generators, evaluation and the
// per-group counterexample lines. Expected values come from reference/ on the LOGICAL dense A, never from the
// kernel's compression or register layout.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "kernels/ck_sparse/api.h"
#include "probes/common/probe.h"
#include "reference/sparse24.h"

namespace tp::ck_probe {

namespace api = ::tp::ck_sparse;

// One 16 x 16 x K case. Values are LOGICAL: int8 / int4 values, or fp8 / fp16 codes, one per element.
struct tile {
  api::tile_shape shape;
  std::vector<std::int32_t> a;  // 16 x K, row-major
  std::vector<std::int32_t> b;  // K x 16, row-major: b[k*16 + j] = B[k][j]
};
using tile_ptr = std::shared_ptr<const tile>;

// The 11 kinds of 4-group (reference/sparse24.h; CK's adversarial cycle, docs/bugs/ck-sparse.md §11).
using ref::group_kind;
using group_kinds = std::vector<group_kind>;
const char* group_kind_name(group_kind k);  // "(0,2)", "(3)", "none"
const char* group_kind_id(group_kind k);    // the same for case ids: "pair02", "single3", "none"
// The kinds on which the pk_int4 idx convention (bug 3) cannot show: the raw and the logical order give the same
// fields by coincidence for (0,1), (2,3), a single survivor at 3 and the empty group.
inline const group_kinds convention_neutral_kinds = {group_kind::pair01, group_kind::pair23, group_kind::single3,
                                                     group_kind::none};
// The others: where the wrong convention always shows.
inline const group_kinds convention_dependent_kinds = {group_kind::pair02,  group_kind::pair03,  group_kind::pair12,
                                                       group_kind::pair13,  group_kind::single0, group_kind::single1,
                                                       group_kind::single2};
inline const group_kinds every_group_kind(ref::all_group_kinds.begin(), ref::all_group_kinds.end());
bool convention_neutral(group_kind k);

double value_of(api::dtype t, std::int32_t code);
bool survives(api::dtype t, std::int32_t code);
unsigned survivor_mask(const tile& t, unsigned row, unsigned group);

// Physical operands as api.h stores them (pk_int4: CK's high-nibble-first convention).
std::vector<std::uint8_t> physical_a(const tile& t);
std::vector<std::uint8_t> physical_b(const tile& t);

// D = A_logical * B with its per-element allowance: 0 for integers; for fp8/fp16 the f32-accumulation bound
// gamma_K * sum_k |a_ik||b_kj| + the fp64 oracle's own K*2^-53 (see the probe READMEs for the derivation).
struct expected_d {
  std::vector<double> d, bound;
};
expected_d oracle(const tile& t);
void oracle_into(expected_d& into, const tile& t);  // the same, reusing into's storage

// probe::rng's exact stream (splitmix64, then rejection of the top partial block and a modulo), inline and with the
// bounds known at compile time: the generators draw two or more numbers per element, and the out-of-line rng's two
// 64-bit divisions per draw were most of the fuzz loop. Same seed, same numbers (tests/ck_sparse checks), so every
// printed id still names the same tile.
class fast_rng {
 public:
  explicit fast_rng(std::uint64_t seed) : state_(seed) {}
  std::uint64_t next() {
    std::uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  template <std::uint64_t N>
  std::uint64_t below() {
    static_assert(N > 0);
    constexpr std::uint64_t limit = ~std::uint64_t{0} - (~std::uint64_t{0} % N + 1) % N;
    for (;;) {
      const std::uint64_t x = next();
      if (x <= limit) return x % N;
    }
  }
  std::uint64_t below(std::uint64_t n);  // any n > 0, as probe::rng::below
  template <std::int64_t Lo, std::int64_t Hi>
  std::int64_t range() {
    return Lo + std::int64_t(below<std::uint64_t(Hi - Lo) + 1>());
  }
  template <class C>
  const auto& pick(const C& c) {
    return c[below(c.size())];
  }

 private:
  std::uint64_t state_;
};

// Generators. Every value is nonzero where a survivor is meant, so a misplaced one always shows.
tile adversarial_tile(api::tile_shape s, unsigned kind_offset = 0, const group_kinds* kinds = nullptr);
tile canonical_tile(api::tile_shape s, std::uint64_t seed);  // CK's host fill: uniform -8..8, slots 1 and 3 zeroed
tile random_tile(api::tile_shape s, std::uint64_t seed, const group_kinds& kinds);
// The same tile into `t`, reusing its storage (the fuzz loop's form).
void fill_random_tile(tile& t, api::tile_shape s, std::uint64_t seed, const group_kinds& kinds);
void fill_random_b(std::vector<std::int32_t>& b, api::tile_shape s, fast_rng& r);
std::vector<std::int32_t> formula_b(api::tile_shape s);  // CK E2E's B = ((5k + 3n) % 16) - 8 (fp: the same values)
// Tile `index` (K columns of A from index*K, the same rows of B) of a 16 x 256 A fixture and a 256 x 16 B fixture.
tile fixture_tile(const std::string& a_name, const std::string& b_name, api::tile_shape s, unsigned index);
// Only group `g` of row `row` kept (the rest of A zeroed): the one-group counterexample.
tile single_group(const tile& t, unsigned row, unsigned group);
// Nonzero groups of A as (row, group).
std::vector<std::pair<unsigned, unsigned>> nonzero_groups(const tile& t);

// The 4-groups of a tile by kind (one pass over A, shared by the judges and the coverage counters).
struct tile_census {
  // by_kind[int(kind) + 1]; [0] counts groups with more than two survivors
  std::uint64_t by_count[5] = {}, single_at[4] = {}, by_kind[12] = {};
  unsigned nonzero_groups = 0;
  bool convention_neutral_only = true;  // every nonzero group is of a convention-neutral kind
};
tile_census census(const tile& t);

// What one variant did with one tile.
struct tile_eval {
  tile_census groups;
  double max_abs_err = 0;
  std::size_t wrong = 0;
  int first_wrong = -1;                         // i*16+j
  std::uint64_t oob_survivor = 0, oob_field = 0;  // over all lanes
  unsigned fields = 0, logical_fields = 0;      // per lane: emitted by the variant, read by the instruction
  bool d_ok() const { return wrong == 0; }
};
tile_eval evaluate(const tile& t, const expected_d& want, const api::tile_results& r, std::size_t index);
// The same with the tile's census already taken (the fuzz loop takes it once for every variant).
tile_eval evaluate(const tile& t, const tile_census& groups, const expected_d& want, const api::tile_results& r,
                   std::size_t index);

// Group census of A into outcome coverage counters (survivors per group, singles at each position, FragsK > 1,
// pk_int4 fragments, OOB writes).
void count_coverage(probe::outcome& o, const tile& t, const tile_eval& e);
// Metrics and the usual detail lines (max_abs_err, wrong, first wrong element, UB writes).
void describe(probe::outcome& o, const tile& t, const tile_eval& e, const expected_d& want, const api::tile_results& r,
              std::size_t index);
// One line per nonzero group (at most `limit`): row, group, A values, the lane and fragment holding it, what the
// variant compressed it to and its idx field(s), e.g. "row 0 group 1 A={0 0 0 5} lane 0 frag 0: compressed 5 5, idx
// field 0xb, idx word 0x000000bb".
void group_lines(probe::outcome& o, const tile& t, const api::tile_results& r, std::size_t index, unsigned limit);

// The kernel's physical operands of `t`, appended to a and b (no temporaries: the fuzz loop's form of physical_a/b).
void append_physical(const tile& t, std::vector<std::uint8_t>& a, std::vector<std::uint8_t>& b);
// The same bytes written at pa and pb (operand_bytes() each).
void write_physical(const tile& t, std::uint8_t* pa, std::uint8_t* pb);

// A batch of tiles as kernel operands: one tile_batch per distinct shape, packed once and launched by every variant.
struct packed_tiles {
  std::vector<api::tile_batch> per_shape;
  std::vector<std::pair<std::size_t, std::size_t>> where;  // tile -> (shape group, tile index in its launch)
};
// Reuses into's storage; `jobs` threads write the bytes (the result does not depend on it).
void pack_tiles(packed_tiles& into, std::span<const tile* const> tiles, unsigned jobs = 1);

// Runs every case's tile through `ops`, one launch per distinct shape; where[i] locates case i's result.
struct batch_run {
  std::vector<api::tile_results> results;  // one per shape
  std::vector<std::pair<std::size_t, std::size_t>> where;  // case -> (result, tile index)
};
batch_run run_tiles(const api::ops& ops, std::span<const tile* const> tiles);
// One launch per shape group of `packed` into `results` (reusing its storage); `launch_seconds` (when given) gets the
// CPU time of each launch.
void launch_packed(const api::ops& ops, const packed_tiles& packed, std::vector<api::tile_results>& results,
                   std::vector<double>* launch_seconds = nullptr);

double thread_cpu_seconds();   // CPU time of the calling thread (bench figures are per core, whatever the load)
double process_cpu_seconds();  // CPU time of every thread of the process (--jobs > 1)

std::string shape_label(const api::tile_shape& s);  // "int8,K=64" style pieces for ids
std::vector<api::tile_shape> shapes_for(api::dtype t);  // K = 32..256 (and the 16x16x64 forms for pk_int4)

}  // namespace tp::ck_probe
