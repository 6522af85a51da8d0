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
// On the simulator: which of the `bytes` bytes at `device_ptr` a kernel stored (flags[i] = 1 or 0), for an
// allocation the host never wrote (no copy to it, no memset). Returns 0, or -1 when not simulated, not inside one
// allocation, or the host wrote it (written then no longer means kernel-written).
int tpHipSimKernelWritten(const void* device_ptr, unsigned char* flags, unsigned long long bytes);
// On the simulator: the 8-byte words at device_ptr + byte_offsets[i] (n of them) hold device addresses the host wrote
// there (a kernel's descriptors), so that a launch recorded for another executor (TILEPROBE_SIM_RECORD_DIR) carries
// the buffers they point to and relocates them. Returns 0, or -1 when not simulated or a word is unaligned or not
// inside the allocation that contains device_ptr.
int tpHipSimDeclareAddressWords(const void* device_ptr, const unsigned long long* byte_offsets, unsigned long long n);
// On the simulator: how the waves of a workgroup are scheduled in later launches (0 in order, 1 reverse, 2 random
// from `seed`, 3 adversarial: simt/amdgpu_sim/machine.h wave_schedule) and whether the LDS race detector runs.
// Returns 0, or -1 when not simulated or `policy` is out of range.
int tpHipSimSetSchedule(int policy, unsigned long long seed, int detect_lds_races);
// On the simulator: the LDS hazards the detector found since the last take. Writes the RAW, WAR and WAW counts to
// counts[0..2] and returns the first few pairs described one per line ('\n'-terminated; valid until the next call
// from any thread); nullptr when not simulated.
const char* tpHipSimTakeLdsHazards(unsigned long long counts[3]);
// On the simulator: wall-clock seconds spent decoding code objects since the last take (each fat binary's once, at
// the first launch of one of its kernels); 0 when not simulated.
double tpHipSimTakeLoadSeconds(void);
// On the simulator: wave-instructions executed so far by every kernel of the process (s_nop / s_wait* / s_delay_alu
// not counted); 0 when not simulated. For a benchmark's wave-instructions per second.
unsigned long long tpHipSimExecutedInstructions(void);
}
