// A wave's state at its first instruction (AMDGPUUsage "Initial Kernel Execution State"; RDNA3/RDNA4 §3.5 "Initial
// Wave State"):
//   user SGPRs in the order private segment buffer (4), dispatch ptr (2), queue ptr (2), kernarg segment ptr (2),
//     dispatch id (2), flat scratch init (2), private segment size (1), USER_SGPR_COUNT of them in all (the loader
//     refuses the ones this model does not provide);
//   GFX11, which has no architected SGPRs: then the system SGPRs, each present when its COMPUTE_PGM_RSRC2 bit is set:
//     workgroup ID X, Y, Z (ENABLE_SGPR_WORKGROUP_ID_X/Y/Z), private segment wavefront offset
//     (ENABLE_PRIVATE_SEGMENT); GFX12 has architected SGPRs: the workgroup IDs are in TTMP9 (X) and TTMP7 (Y in [15:0],
//     Z in [31:16]);
//   GFX11+ deliver the work-item IDs packed in v0 ("Packed work-item IDs" in the processor table): X in [9:0],
//     Y in [19:10], Z in [29:20], as many as ENABLE_VGPR_WORKITEM_ID says (0: X, 1: X Y, 2: X Y Z);
//   EXEC: the wave's valid lanes; "Architected flat scratch" (GFX11, GFX12): the hardware sets the wave's scratch base,
//     scratch_* instructions address the lane's private memory from it, and no user SGPR carries it.
#include <cstring>

#include "simt/amdgpu_sim/machine/code_object.h"

namespace tp::amdgpu_sim::machine {

namespace kd = llvm::amdhsa;

void start_wave(wave& w, unsigned index, const kernel_entry& k, const dispatch& d, dim3u id, bool architected_sgprs,
                workgroup& g, const program& prog) {
  const auto& desc = k.desc;
  const uint32_t r2 = desc.compute_pgm_rsrc2;
  const uint16_t props = desc.kernel_code_properties;
  std::memset(w.s, 0, sizeof w.s);
  std::memset(w.v, 0, sizeof(w.v[0]) * 2);  // v0/v1 carry IDs; other VGPRs are undefined at entry
  w.pc = k.entry_index;
  w.state = wave::run_state::ready;
  w.id = index;
  w.wg = &g;
  w.prog = &prog;
  w.barrier_gen = 0;
  w.private_bytes = desc.private_segment_fixed_size;
  w.scratch.assign(std::size_t(w.private_bytes) * wave_lanes, 0);
  w.plugin_state.fill(nullptr);

  unsigned s = 0;
  if (props & kd::KERNEL_CODE_PROPERTY_ENABLE_SGPR_DISPATCH_PTR) {
    w.s[s++] = uint32_t(d.dispatch_packet_address);
    w.s[s++] = uint32_t(d.dispatch_packet_address >> 32);
  }
  if (props & kd::KERNEL_CODE_PROPERTY_ENABLE_SGPR_KERNARG_SEGMENT_PTR) {
    w.s[s++] = uint32_t(d.kernarg_address);
    w.s[s++] = uint32_t(d.kernarg_address >> 32);
  }
  if (props & kd::KERNEL_CODE_PROPERTY_ENABLE_SGPR_PRIVATE_SEGMENT_SIZE) w.s[s++] = desc.private_segment_fixed_size;
  if (architected_sgprs) {
    w.s[sreg::ttmp0 + 9] = id.x;
    w.s[sreg::ttmp0 + 7] = (id.y & 0xffffu) | (id.z << 16);
  } else {
    // The system SGPRs after the USER_SGPR_COUNT user SGPRs (checked to fit when the launch was checked). The private
    // segment wavefront offset is the wave's offset into the queue's scratch; this model gives each lane its own
    // private memory, so it is 0 (architected flat scratch: the code does not read it).
    unsigned sys = AMDHSA_BITS_GET(r2, kd::COMPUTE_PGM_RSRC2_USER_SGPR_COUNT);
    if (AMDHSA_BITS_GET(r2, kd::COMPUTE_PGM_RSRC2_ENABLE_SGPR_WORKGROUP_ID_X)) w.s[sys++] = id.x;
    if (AMDHSA_BITS_GET(r2, kd::COMPUTE_PGM_RSRC2_ENABLE_SGPR_WORKGROUP_ID_Y)) w.s[sys++] = id.y;
    if (AMDHSA_BITS_GET(r2, kd::COMPUTE_PGM_RSRC2_ENABLE_SGPR_WORKGROUP_ID_Z)) w.s[sys++] = id.z;
    if (AMDHSA_BITS_GET(r2, kd::COMPUTE_PGM_RSRC2_ENABLE_PRIVATE_SEGMENT)) w.s[sys++] = 0;
  }
  const dim3u b = d.block_threads;
  const unsigned threads = b.x * b.y * b.z;
  const unsigned vgpr_ids = AMDHSA_BITS_GET(r2, kd::COMPUTE_PGM_RSRC2_ENABLE_VGPR_WORKITEM_ID);
  uint32_t exec = 0;
  for (unsigned l = 0; l < wave_lanes; ++l) {
    const unsigned t = index * wave_lanes + l;
    if (t >= threads) break;
    exec |= 1u << l;
    const uint32_t x = t % b.x, y = (t / b.x) % b.y, z = t / (b.x * b.y);
    w.v[0][l] = x | (vgpr_ids >= 1 ? y << 10 : 0u) | (vgpr_ids >= 2 ? z << 20 : 0u);
  }
  w.s[sreg::exec_lo] = exec;
}

}  // namespace tp::amdgpu_sim::machine
