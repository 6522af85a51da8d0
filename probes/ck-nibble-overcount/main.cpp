// ck-nibble-overcount: vector_traits erases pk_int4_t to int8, so compress_a_impl scans BYTES: a byte counts as a
// survivor if either nibble is nonzero, a 4-byte window (two real 4-groups) can hold up to four survivors and the
// scan writes past nonzero_elems[1] (UB), only CompressedSize of the 2*CompressedSize idx fields exist, and the
// pipeline slices 8-bit idx pieces per fragment. The fix is patches/ck_sparse/0002. See README.md.
#include "probes/ck_support/ck_driver.h"

using namespace tp::ck_probe;
using tp::probe::source_kind;

namespace {

// Compress-level: one lane vector (8 bytes = 4 groups of 4 nibbles), every window with more than two nonzero bytes.
// A fixed variant emits one field per nibble, no UB, and the group values of reference/pk_int4.h (pk_int4_group_idx).
std::vector<std::pair<std::string, compress_case>> overcount_windows() {
  std::vector<std::pair<std::string, compress_case>> out;
  // (0,2) + (1,3): bytes {hi, hi}, {lo, lo} -> 4 nonzero bytes in window 0; (0,3) + (1,2) in window 1.
  const int values[16] = {3, 0, -8, 0, 0, 5, 0, 7, 1, 0, 0, -2, 0, 6, 4, 0};
  compress_case c{api::dtype::pk_int4, {}, {}, {}, {}};
  for (int b = 0; b < 8; ++b) c.input.push_back(std::uint8_t((values[2 * b] & 15) << 4 | (values[2 * b + 1] & 15)));
  // Survivors per group, high nibble = survivor 0: (3,-8) (5,7) (1,-2) (6,4); group values 0x7 0x2 0x6 0x3.
  c.want_compressed = {0x38, 0x57, 0x1E, 0x64};
  // The field values are ck-idx-swap-xor's business (reference/pk_int4.h pk_int4_group_idx gives 0x7 0x2 0x6 0x3);
  // here: one field per nibble.
  c.exact_idx = false;
  c.want_fields = 8;
  c.note = "4 nonzero bytes in each 4-byte window: upstream's byte scan finds 4 survivors for a 2-element array";
  out.emplace_back(tp::probe::case_name("ck-nibble")("test", "overcount-window")("dtype", "pk_int4")("NUM", 8).str(), c);
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  tp::probe::app app("ck-nibble-overcount",
                     "ck_tile compress_a_impl scans pk_int4 A by bytes: over-count (UB), half the idx fields, "
                     "8-bit fragment slices");
  app.family("ck_sparse").default_variants("upstream,fixed").buggy({"upstream"}).fixed({"fixed"})
      .must_catch({source_kind::fixture, source_kind::adversarial, source_kind::fuzz}).default_fuzz(2000, 1)
      .batch_size(128);  // a prepared batch (tiles, oracle D, operands) of 128 tiles stays in cache

  ck_probe_config cfg;
  cfg.case_prefix = "ck-nibble";
  cfg.dtypes = {api::dtype::pk_int4};
  cfg.fixtures = {{api::dtype::pk_int4, "ck-a-int4", "ck-b-int4"}};
  // Every group kind, so windows with 3 or 4 nonzero bytes occur in every tile.
  cfg.fuzz_kinds = every_group_kind;
  // Upstream gets no pk_int4 tile right except one without survivors (CK's AllZeroInput); that is the control.
  cfg.control_kinds = {group_kind::none};
  cfg.control_label = "all-zero";
  // Bug 2's own signature: UB writes, fewer idx fields than the instruction reads, and D on groups whose result does
  // not depend on the idx field convention (bug 3 is ck-idx-swap-xor's verdict; on the other groups D is printed,
  // not judged here).
  cfg.judge = [](const tile&, const tile_eval& e, tp::probe::outcome& o) {
    const bool neutral = e.groups.convention_neutral_only;
    if (!neutral && !e.d_ok())
      o.note("D differs on idx-convention-sensitive groups: judged by ck-idx-swap-xor, not here");
    // Missing fields matter once a survivor needs one; a tile without survivors reads none.
    const bool fields_ok = e.fields == e.logical_fields || e.groups.nonzero_groups == 0;
    return e.oob_survivor == 0 && e.oob_field == 0 && fields_ok && (!neutral || e.d_ok());
  };
  cfg.compress_cases = overcount_windows();
  cfg.input_exact_idx = false;  // as its own compress table: the field values are ck-idx-swap-xor's verdict
  install(app, cfg);

  // The idx-convention-neutral adversarial table: only (0,1), (2,3), single at 3 and empty groups, so any D error
  // here is byte scanning or fragment slicing (FragsK > 1 for K >= 64 over 16x16x32).
  app.source(source_kind::adversarial, [](tp::probe::case_list& out) {
    const group_kinds& neutral = convention_neutral_kinds;
    for (const auto& s : shapes_for(api::dtype::pk_int4))
      for (unsigned off = 0; off < neutral.size(); ++off) {
        tp::probe::case_def c;
        c.id = tp::probe::case_name("ck-nibble")("dtype", "pk_int4")("K", s.k)("op", api::to_string(s.instr))(
                   "src", "adversarial-neutral")("offset", off);
        c.group = "pk_int4 neutral";
        c.payload = tile_payload{std::make_shared<const tile>(adversarial_tile(s, off, &neutral)), "adversarial-neutral"};
        out.push_back(std::move(c));
      }
  });
  return app.main(argc, argv);
}
