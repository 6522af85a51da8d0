// Entry of the variant-builder test family: launch wrappers and the registration (host side only).
#include "kernel.cuh"

#if !defined(TP_DEVICE_ONLY)
#include "simt/host.h"
#include "simt/registry.h"
#include "vfam_ops.h"

namespace TP_VARIANT_NS {

std::vector<int> run_row_sums(const std::vector<int>& matrix, unsigned rows, unsigned cols) {
  tp::device_buffer<int> in(matrix.size()), out(rows);
  in.upload(matrix.data(), matrix.size());
  tp::launch({(rows + 63) / 64, 64}, row_sums, in.view(), out.view(), rows, cols);
  return out.to_host();
}

std::vector<int> run_scaled(const std::vector<int>& v) {
  tp::device_buffer<int> buf(v.size());
  buf.upload(v.data(), v.size());
  tp::launch({unsigned((v.size() + 31) / 32), 32}, scaled, buf.view(), unsigned(v.size()));
  return buf.to_host();
}

const vfam_ops ops{&run_row_sums, &run_scaled};
TP_REGISTER_VARIANT(vfam, vfam_ops, ops);

}  // namespace TP_VARIANT_NS
#endif
