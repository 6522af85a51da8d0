// The dialect test kernels on a real GPU (CUDA with nvcc, HIP with clang + the HIP runtime): results checked against
// host arithmetic. Exit 0 all correct, 1 a mismatch, 77 no device (a CTest skip).
#include <cstdio>
#include <numeric>
#include <vector>

#include "simt_kernels.cuh"
#include "simt/host.h"

namespace k = TP_VARIANT_NS;

int main() {
  if (!tp::backend_available(tp::this_backend)) {
    std::printf("no %s device: skipped\n", tp::to_string(tp::this_backend));
    return 77;
  }
  int bad = 0;
  auto check = [&](const char* what, bool ok) {
    std::printf("%s %s\n", ok ? "ok  " : "FAIL", what);
    bad += !ok;
  };
  try {
    const unsigned ws = 32;  // these tests launch on wave32/warp32 devices (NVIDIA, gfx11/gfx12)
    std::vector<int> in_host(4 * 128);
    std::iota(in_host.begin(), in_host.end(), -100);
    tp::device_buffer<int> in(in_host.size()), sums(4);
    in.upload(in_host);
    TP_LAUNCH(k::block_sum_shfl, tp::dims{4, 128}, in.view(), sums.view());
    const auto got = sums.to_host();
    bool ok = true;
    for (unsigned b = 0; b < 4; ++b) ok &= got[b] == std::accumulate(in_host.begin() + b * 128, in_host.begin() + (b + 1) * 128, 0);
    check("block_sum_shfl (xor shuffles + barrier)", ok);

    std::vector<int> m(32 * 32);
    std::iota(m.begin(), m.end(), 7);
    tp::device_buffer<int> min(m.size()), mout(m.size());
    min.upload(m);
    TP_LAUNCH(k::transpose32, tp::dims{1, 256}, min.view(), mout.view());
    const auto t = mout.to_host();
    ok = true;
    for (unsigned r = 0; r < 32; ++r)
      for (unsigned c = 0; c < 32; ++c) ok &= t[c * 32 + r] == m[r * 32 + c];
    check("transpose32 through shared memory", ok);

    tp::device_buffer<int> ag(64);
    TP_LAUNCH(k::allgather_sum, tp::dims{1, 64}, ag.view());
    long long want = 0;
    for (long long l = 0; l < ws; ++l) want += l + l * l + 7 * l;
    ok = true;
    for (int v : ag.to_host()) ok &= v == want;
    check("warp_allgather of a 12-byte struct", ok);

    // poison() and resize() fill on the device: the pattern must be the host's, byte for byte.
    tp::device_buffer<float> pf(1000);
    std::vector<unsigned> bits(1000);
    pf.download_bytes(bits.data(), 4000);
    ok = true;
    for (unsigned b : bits) ok &= b == 0x7FC0A5A5u;
    pf.upload(std::vector<float>(1000, 1.0f));
    pf.resize(600);  // shrink: same allocation, poisoned again
    bits.assign(600, 0);
    pf.download_bytes(bits.data(), 2400);
    for (unsigned b : bits) ok &= b == 0x7FC0A5A5u;
    tp::device_buffer<int> pi(10);
    pi.resize(300000);  // grow: a new allocation, several fill blocks
    const auto pv = pi.to_host();
    for (int v : pv) ok &= unsigned(v) == 0xA5A5A5A5u;
    check("poison and resize fill the pattern on the device", ok && pf.size() == 600 && pv.size() == 300000);
  } catch (const tp::device_error& e) {
    std::printf("FAIL %s\n", e.what());
    return 1;
  }
  return bad ? 1 : 0;
}
