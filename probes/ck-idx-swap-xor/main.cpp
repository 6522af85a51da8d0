// ck-idx-swap-xor: with the nibble-aware scan in place, compress_a_impl still writes pk_int4 idx fields in CK's
// logical order (element 0 = high nibble) while SWMMAC iu4 reads raw nibbles, low first. Survivor s must go to field
// 2i+(1-s) with position j^1. The buggy variant is fixed-minus-0003 (upstream never reaches this code: bug 2 comes
// first). The fix is patches/ck_sparse/0003. See README.md.
#include "probes/ck_support/ck_driver.h"
#include "reference/pk_int4.h"

using namespace tp::ck_probe;
using tp::probe::source_kind;

namespace {

// Compress-level: each kind of group alone in a lane vector of 4 groups (the other three empty), values including
// -8 in both nibbles of a byte.
std::vector<std::pair<std::string, compress_case>> field_table() {
  std::vector<std::pair<std::string, compress_case>> out;
  for (group_kind kind : tp::ref::all_group_kinds)
    for (int slot = 0; slot < 4; ++slot) {
      const int cls = int(kind);  // only to vary the values from kind to kind
      int values[16] = {};
      const unsigned mask = tp::ref::survivor_mask(kind);
      int s0 = 0, s1 = 0, n = 0;
      for (int p = 0; p < 4; ++p)
        if ((mask >> p) & 1u) {
          // The second survivor of a pair (cls 0..5) is 6 - cls, in 1..6: never 0, so pair (2,3) stays a pair (a
          // second value of 0 would make it a single at 2, whose field value 0xE is the same).
          const int v = n == 0 ? -8 : 6 - cls;
          values[4 * slot + p] = v;
          (n++ == 0 ? s0 : s1) = v;
        }
      compress_case c{api::dtype::pk_int4, {}, {0, 0, 0, 0}, {}, {}};
      for (int b = 0; b < 8; ++b) c.input.push_back(std::uint8_t((values[2 * b] & 15) << 4 | (values[2 * b + 1] & 15)));
      c.want_compressed[slot] = std::uint8_t((s0 & 15) << 4 | (s1 & 15));
      std::vector<unsigned> nibbles(4, 0xA);
      nibbles[slot] = tp::ref::pk_int4_group_idx(kind);
      c.want_idx = idx_words_of(nibbles);
      out.emplace_back(tp::probe::case_name("ck-swapxor")("test", "field-table")("group", group_kind_id(kind))(
                           "slot", slot)
                           .str(),
                       std::move(c));
    }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  tp::probe::app app("ck-idx-swap-xor",
                     "ck_tile pk_int4 idx fields in CK's logical nibble order; SWMMAC iu4 reads raw order (needs swap + "
                     "XOR-1)");
  // upstream carries bug 3 too (under bug 2), and fails this probe: it is declared buggy so the mutation matrix
  // expects that; the default run compares fixed-minus-0003, where bug 3 is alone, with fixed.
  app.family("ck_sparse").default_variants("fixed-minus-0003,fixed").buggy({"fixed-minus-0003", "upstream"})
      .fixed({"fixed"})
      .must_catch({source_kind::fixture, source_kind::adversarial, source_kind::fuzz}).default_fuzz(2000, 1)
      .batch_size(128);  // a prepared batch (tiles, oracle D, operands) of 128 tiles stays in cache

  ck_probe_config cfg;
  cfg.case_prefix = "ck-swapxor";
  cfg.dtypes = {api::dtype::pk_int4};
  cfg.fixtures = {{api::dtype::pk_int4, "ck-a-int4", "ck-b-int4"}};
  cfg.fuzz_kinds = every_group_kind;
  // The groups on which the wrong convention is right by coincidence.
  cfg.control_kinds = convention_neutral_kinds;
  cfg.control_label = "convention-neutral";
  cfg.judge = [](const tile&, const tile_eval& e, tp::probe::outcome&) {
    return e.d_ok() && e.oob_survivor == 0 && e.oob_field == 0;
  };
  cfg.shrink_first = convention_dependent_kinds;
  cfg.compress_cases = field_table();
  install(app, cfg);
  return app.main(argc, argv);
}
