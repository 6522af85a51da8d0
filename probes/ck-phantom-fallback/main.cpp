// ck-phantom-fallback: compress_a_impl seeds unused survivor slots from input slots 2 and 3 while their idx field
// defaults to position 2, so a 4-group whose only nonzero sits at position 3 also multiplies a3 by B[4g+2].
// Scalar types only (int8, fp8 E4M3, fp16); the fix is patches/ck_sparse/0001. See README.md.
#include "probes/ck_support/ck_driver.h"
#include "reference/codecs.h"

using namespace tp::ck_probe;
using tp::probe::source_kind;

namespace {

// CK's SparseTransformsTest patterns (docs/bugs/ck-sparse.md §10), fp16, on lane vectors of NUM elements: the post-PR
// expectations. Group i's stored values are 1 + 4i + position, so every value is distinct.
std::vector<std::pair<std::string, compress_case>> ck_transform_tests() {
  struct pattern {
    const char* name;
    unsigned mask_even, mask_odd;  // survivor positions of even / odd groups
  };
  const pattern patterns[] = {{"ValidCompressionRatio", 0b0101, 0b0101}, {"AllZeroInput", 0, 0},
                              {"SingleNonZeroPerGroup", 0b1000, 0b1000}, {"NonZerosAtSlots1And3", 0b1010, 0b1010},
                              {"NonZerosAtSlots0And3", 0b1001, 0b1001},  {"MixedSparsityPattern", 0b0101, 0b1010}};
  std::vector<std::pair<std::string, compress_case>> out;
  for (const auto& p : patterns)
    for (unsigned num : {8u, 16u, 32u, 64u}) {
      compress_case c{api::dtype::fp16, {}, {}, {}, {}};
      std::vector<unsigned> nibbles;
      for (unsigned g = 0; g < num / 4; ++g) {
        const unsigned mask = g % 2 ? p.mask_odd : p.mask_even;
        std::vector<double> kept;
        std::vector<unsigned> fields;
        for (unsigned pos = 0; pos < 4; ++pos) {
          const double v = (mask >> pos) & 1u ? 1.0 + 4 * g + pos : 0.0;
          const auto code = tp::ref::double_to_fp16(v);
          c.input.push_back(std::uint8_t(code));
          c.input.push_back(std::uint8_t(code >> 8));
          if (v != 0) {
            kept.push_back(v);
            fields.push_back(pos);
          }
        }
        while (kept.size() < 2) kept.push_back(0.0);  // an unused survivor must be zero
        while (fields.size() < 2) fields.push_back(2);  // and its field keeps the default position 2
        for (double v : kept) {
          const auto code = tp::ref::double_to_fp16(v);
          c.want_compressed.push_back(std::uint8_t(code));
          c.want_compressed.push_back(std::uint8_t(code >> 8));
        }
        nibbles.push_back(fields[0] | fields[1] << 2);
      }
      c.want_idx = idx_words_of(nibbles);
      if (p.mask_even == 0b1000)
        c.note = "CK's own SparseTransformsTest.SingleNonZeroPerGroup expected {V,V} per group before PR #3759 (it "
                 "codified the phantom); the fix changes that expectation to {V,0}. idx is unchanged.";
      out.emplace_back(tp::probe::case_name("ck-phantom")("test", std::string("SparseTransformsTest.") + p.name)(
                           "dtype", "fp16")("NUM", num)
                           .str(),
                       std::move(c));
    }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  tp::probe::app app("ck-phantom-fallback",
                     "ck_tile compress_a_impl: a 4-group with one nonzero at position 3 adds a phantom a3*B[4g+2]");
  app.family("ck_sparse").default_variants("upstream,fixed").buggy({"upstream"}).fixed({"fixed"})
      .must_catch({source_kind::fixture, source_kind::adversarial, source_kind::fuzz}).default_fuzz(2000, 1)
      .batch_size(128);  // a prepared batch (tiles, oracle D, operands) of 128 tiles stays in cache

  ck_probe_config cfg;
  cfg.case_prefix = "ck-phantom";
  cfg.dtypes = {api::dtype::int8, api::dtype::fp8_e4m3, api::dtype::fp16};
  // Real weights magnitude-pruned to 2:4: under-filled groups, some with their only survivor at position 3.
  cfg.fixtures = {{api::dtype::int8, "ck-a-int8", "ck-b-int8"},       {api::dtype::int8, "ck-a-int8-singles", "ck-b-int8"},
                  {api::dtype::fp8_e4m3, "ck-a-fp8", "ck-b-fp8"},     {api::dtype::fp8_e4m3, "ck-a-fp8-singles", "ck-b-fp8"},
                  {api::dtype::fp16, "ck-a-fp16", "ck-b-fp16"},       {api::dtype::fp16, "ck-a-fp16-singles", "ck-b-fp16"}};
  cfg.fuzz_kinds = every_group_kind;
  // The pattern CK's tests used: slots 1 and 3 always zero, so the seed a3 is always 0 and upstream passes.
  cfg.control_label = "canonical";
  cfg.judge = [](const tile&, const tile_eval& e, tp::probe::outcome&) {
    return e.d_ok() && e.oob_survivor == 0 && e.oob_field == 0;
  };
  cfg.shrink_first = {group_kind::single3};  // the bug's own group
  cfg.compress_cases = ck_transform_tests();
  install(app, cfg);
  return app.main(argc, argv);
}
