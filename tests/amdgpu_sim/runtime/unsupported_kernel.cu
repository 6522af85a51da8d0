// A kernel the simulator must refuse: after a store it executes an image load, a texture-unit instruction that a
// compute-kernel simulator does not model (the machine half implements what the suite's kernels emit). On the
// simulator the launch must stop at that instruction with its mnemonic, the kernel and the PC; it must never be
// skipped or run as a no-op. Built for every arch of the hip build; the instruction is gfx12 only (elsewhere the
// kernel traps, and this test runs on the simulated gfx1201).
#include "simt/host.h"

namespace tp_sim_unsupported {

__global__ void image_load_kernel(tp::gmem<int> out) {
  out.st(0, 1);
#if defined(__gfx1200__) || defined(__gfx1201__)
  asm volatile("image_load v[0:3], v0, s[0:7] dmask:0xf dim:SQ_RSRC_IMG_1D" ::: "v0", "v1", "v2", "v3");
#elif defined(__HIP_DEVICE_COMPILE__)
  __builtin_trap();
#endif
  out.st(1, 2);
}

// Called by the probe's runner (probe_unsupported.cpp): one launch; a device error propagates as tp::device_error.
int run_image_load_kernel() {
  tp::device_buffer<int> out(2);
  TP_LAUNCH(image_load_kernel, tp::dims{1, 32}, out.view());
  return out.to_host()[1];
}

}  // namespace tp_sim_unsupported
