// A deliberately buggy family for the variant builder's own test: two independent bugs, each fixed by one patch of
// the series, and one mutant that breaks the fixed code in a third way. Every variant gives a different answer.
#pragma once
#include "simt/simt.h"

namespace TP_VARIANT_NS {

// One thread per row.
TP_GLOBAL void row_sums(tp::gmem<int> in, tp::gmem<int> out, unsigned rows, unsigned cols) {
  const unsigned r = tp::block_idx() * tp::block_dim() + tp::thread_idx();
  if (r >= rows) return;
  int acc = 0;
  for (unsigned c = 1; c < cols; ++c) acc += in.ld(r * cols + c);  // starts at column 1
  out.st(r, acc);
}

// Should triple each element.
TP_GLOBAL void scaled(tp::gmem<int> v, unsigned n) {
  const unsigned i = tp::block_idx() * tp::block_dim() + tp::thread_idx();
  if (i < n) v.st(i, v.ld(i) * 2);
}

}  // namespace TP_VARIANT_NS
