// What tileprobe's HIP runtime library (simt/amdgpu_sim/runtime: tp_hip_runtime, linked by every hip binary instead
// of libamdhip64) exports beyond the HIP API, so that simt/host.h can tell the real runtime from the simulator and
// report a misconfiguration instead of "no device". C linkage, no HIP types: the library forwards to the real
// libamdhip64 unless TILEPROBE_HIP asks for the simulator.
#pragma once

extern "C" {
// Why the HIP runtime cannot run as TILEPROBE_HIP asks (an unknown value, an arch the simulator does not execute,
// the simulator asked of a build without it), as one line; nullptr when it can.
const char* tpHipRuntimeProblem(void);
// 1 when the HIP entry points run on tileprobe's AMDGPU simulator (TILEPROBE_HIP=sim[:arch]), 0 otherwise.
int tpHipRuntimeIsSimulator(void);
// On the simulator: the kernel loads of never-written bytes counted in the allocation that contains `device_ptr`
// since its last host write (hipMemcpy to it, hipMemset); -1 when not simulated or not an allocation.
long long tpHipSimUnwrittenLoads(const void* device_ptr);
}
