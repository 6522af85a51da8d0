// A dispatch: the checks of what the interpreter models, then every workgroup in turn, each a set of wave32 waves
// that a wave_picker (schedule.h) interleaves at its switch points, with the dispatch's plugins (plugin.h) told what
// happens. The interpreter loop itself is `o = ops[pc]; pc = o.next; o.exec(wave, o)`, in one instantiation per
// schedule kind and per whether some plugin observes instructions: with none, the loop pays nothing for plugins.
#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "simt/amdgpu_sim/format.h"
#include "simt/amdgpu_sim/machine/code_object.h"
#include "simt/amdgpu_sim/machine/instruction.h"
#include "simt/amdgpu_sim/machine/schedule.h"

namespace tp::amdgpu_sim::machine {

namespace kd = llvm::amdhsa;

void fail(const wave& w, const op& o, const std::string& what) {
  const int32_t idx = w.prog->index_at(o.pc);
  const std::string text = idx >= 0 ? w.prog->text[std::size_t(idx)] : std::string();
  throw sim_error(what + " in kernel " + (w.wg && w.wg->kernel_name ? *w.wg->kernel_name : std::string("?")) +
                  " at pc " + hex(w.prog->text_address + o.pc) + " (wave " + std::to_string(w.id) + "): " + text);
}

void exec_unimplemented(wave& w, const op& o) { fail(w, o, "unimplemented " + w.prog->mnemonics[o.mnemonic]); }
void exec_undecodable(wave& w, const op& o) {
  fail(w, o, "no executable instruction (" + w.prog->mnemonics[o.mnemonic] + ")");
}
void exec_no_op(wave&, const op&) {}

// VOPD (RDNA3 §7.6 / RDNA4 §7.8 "Dual Issue VALU"): both halves read their sources before either writes. Each half
// writes into its own scratch row first, then both rows are copied to the real destinations under EXEC.
void exec_vopd(wave& w, const op& o) {
  const op& x = w.prog->vopd_halves[o.vopd_x];
  const op& y = w.prog->vopd_halves[o.vopd_y];
  op xt = x, yt = y;
  // fmac reads its destination: give the scratch row the old value first.
  std::memcpy(w.v[vopd_temp_x], w.v[x.dst[0].reg], sizeof w.v[0]);
  std::memcpy(w.v[vopd_temp_y], w.v[y.dst[0].reg], sizeof w.v[0]);
  xt.dst[0].reg = vopd_temp_x;
  yt.dst[0].reg = vopd_temp_y;
  x.exec(w, xt);
  y.exec(w, yt);
  std::memcpy(w.v[x.dst[0].reg], w.v[vopd_temp_x], sizeof w.v[0]);
  std::memcpy(w.v[y.dst[0].reg], w.v[vopd_temp_y], sizeof w.v[0]);
}

namespace {

// Runs wave `w` from its PC until it yields (a barrier wait, s_endpgm) or, when the schedule interleaves, until it has
// executed a memory instruction. Returns the instructions executed.
template <bool SwitchAtMemory, bool Observed>
uint64_t run_slice(wave& w, const op* ops, std::span<plugin* const> observers) {
  uint64_t n = 0;
  w.yield = false;
  for (;;) {
    const op& o = ops[w.pc];
    if constexpr (Observed)
      for (plugin* p : observers) p->before_instruction(w, o);
    w.pc = o.next;
    o.exec(w, o);
    ++n;
    if constexpr (Observed)
      for (plugin* p : observers) p->after_instruction(w, o);
    if (w.yield) break;
    if constexpr (SwitchAtMemory)
      if (o.switch_point) break;
  }
  return n;
}
slice_fn slice_for(bool switch_at_memory, bool observed) {
  if (switch_at_memory) return observed ? run_slice<true, true> : run_slice<true, false>;
  return observed ? run_slice<false, true> : run_slice<false, false>;
}

}  // namespace

// The modes and features the interpreter models; anything else stops the launch (never runs approximately).
void loaded_code_object::check_launchable(const kernel_entry& k, const dispatch& d) const {
  const auto& desc = k.desc;
  const uint32_t r1 = desc.compute_pgm_rsrc1, r2 = desc.compute_pgm_rsrc2;
  const uint16_t props = desc.kernel_code_properties;
  const std::string who = "kernel " + k.info.name + ": ";
  if (!AMDHSA_BITS_GET(props, kd::KERNEL_CODE_PROPERTY_ENABLE_WAVEFRONT_SIZE32))
    throw sim_error(who + "wave64 code is not modelled (the simulator executes wave32)");
  if (AMDHSA_BITS_GET(r1, kd::COMPUTE_PGM_RSRC1_FLOAT_ROUND_MODE_32) != 0 ||
      AMDHSA_BITS_GET(r1, kd::COMPUTE_PGM_RSRC1_FLOAT_ROUND_MODE_16_64) != 0)
    throw sim_error(who + "float round mode other than round-to-nearest-even is not modelled");
  if (AMDHSA_BITS_GET(r1, kd::COMPUTE_PGM_RSRC1_FLOAT_DENORM_MODE_32) != 3 ||
      AMDHSA_BITS_GET(r1, kd::COMPUTE_PGM_RSRC1_FLOAT_DENORM_MODE_16_64) != 3)
    throw sim_error(who + "denormal flushing (FLOAT_DENORM_MODE != 3) is not modelled");
  for (auto [bit, what] : {std::pair{kd::KERNEL_CODE_PROPERTY_ENABLE_SGPR_PRIVATE_SEGMENT_BUFFER, "private segment buffer"},
                           std::pair{kd::KERNEL_CODE_PROPERTY_ENABLE_SGPR_QUEUE_PTR, "queue pointer"},
                           std::pair{kd::KERNEL_CODE_PROPERTY_ENABLE_SGPR_DISPATCH_ID, "dispatch id"},
                           std::pair{kd::KERNEL_CODE_PROPERTY_ENABLE_SGPR_FLAT_SCRATCH_INIT, "flat scratch init"},
                           std::pair{kd::KERNEL_CODE_PROPERTY_USES_DYNAMIC_STACK, "dynamic stack"}})
    if (props & bit) throw sim_error(who + "the " + std::string(what) + " user SGPR/feature is not modelled");
  if ((props & kd::KERNEL_CODE_PROPERTY_ENABLE_SGPR_DISPATCH_PTR) && d.dispatch_packet_address == 0)
    throw sim_error(who + "the kernel reads the dispatch packet and the launch gave none (dispatch_packet_address 0)");
  if (AMDHSA_BITS_GET(r2, kd::COMPUTE_PGM_RSRC2_ENABLE_SGPR_WORKGROUP_INFO))
    throw sim_error(who + "the workgroup info SGPR is not modelled");
  if (!has_architected_sgprs(arch_)) {
    // GFX6-GFX11 descriptors carry the IEEE and DX10 clamp mode bits (AMDGPUUsage "compute_pgm_rsrc1"); the model's
    // gfx11 v_max/v_min follow IEEE mode (RDNA3 ISA guide, V_MAX_F32 "if WAVE_MODE.IEEE") and its clamp turns NaN into
    // 0 (DX10 clamp), the settings every compute kernel gets.
    if (!AMDHSA_BITS_GET(r1, kd::COMPUTE_PGM_RSRC1_GFX6_GFX11_ENABLE_IEEE_MODE))
      throw sim_error(who + "IEEE mode off (COMPUTE_PGM_RSRC1.ENABLE_IEEE_MODE 0) is not modelled");
    if (!AMDHSA_BITS_GET(r1, kd::COMPUTE_PGM_RSRC1_GFX6_GFX11_ENABLE_DX10_CLAMP))
      throw sim_error(who + "DX10 clamp off (COMPUTE_PGM_RSRC1.ENABLE_DX10_CLAMP 0) is not modelled");
    const unsigned system = AMDHSA_BITS_GET(r2, kd::COMPUTE_PGM_RSRC2_USER_SGPR_COUNT) +
                            AMDHSA_BITS_GET(r2, kd::COMPUTE_PGM_RSRC2_ENABLE_SGPR_WORKGROUP_ID_X) +
                            AMDHSA_BITS_GET(r2, kd::COMPUTE_PGM_RSRC2_ENABLE_SGPR_WORKGROUP_ID_Y) +
                            AMDHSA_BITS_GET(r2, kd::COMPUTE_PGM_RSRC2_ENABLE_SGPR_WORKGROUP_ID_Z) +
                            AMDHSA_BITS_GET(r2, kd::COMPUTE_PGM_RSRC2_ENABLE_PRIVATE_SEGMENT);
    if (system > sreg::vcc_lo)
      throw sim_error(who + std::to_string(system) + " initial SGPRs do not fit the SGPR file");
  }
  const dim3u b = d.block_threads;
  if (b.x == 0 || b.y == 0 || b.z == 0 || b.x > 1024 || b.y > 1024 || b.z > 1024 || uint64_t(b.x) * b.y * b.z > 1024)
    throw sim_error(who + "block " + std::to_string(b.x) + "x" + std::to_string(b.y) + "x" + std::to_string(b.z) +
                    " is not a valid workgroup size");
  if (d.kernarg.size() < k.info.kernarg_size)
    throw sim_error(who + "kernarg segment of " + std::to_string(d.kernarg.size()) + " bytes, the kernel needs " +
                    std::to_string(k.info.kernarg_size));
  const unsigned expected_user = ((props & kd::KERNEL_CODE_PROPERTY_ENABLE_SGPR_DISPATCH_PTR) ? 2u : 0u) +
                                 ((props & kd::KERNEL_CODE_PROPERTY_ENABLE_SGPR_KERNARG_SEGMENT_PTR) ? 2u : 0u) +
                                 ((props & kd::KERNEL_CODE_PROPERTY_ENABLE_SGPR_PRIVATE_SEGMENT_SIZE) ? 1u : 0u);
  if (AMDHSA_BITS_GET(r2, kd::COMPUTE_PGM_RSRC2_USER_SGPR_COUNT) < expected_user)
    throw sim_error(who + "USER_SGPR_COUNT " + std::to_string(AMDHSA_BITS_GET(r2, kd::COMPUTE_PGM_RSRC2_USER_SGPR_COUNT)) +
                    " is less than the enabled user SGPRs");
  if (d.plugins.size() > max_plugins)
    throw sim_error(who + std::to_string(d.plugins.size()) + " plugins attached, at most " +
                    std::to_string(max_plugins));
}

void loaded_code_object::run(const dispatch& d) {
  auto it = entries_.find(d.kernel);
  if (it == entries_.end()) throw sim_error("no kernel " + d.kernel + " in the " + arch_ + " code object");
  const kernel_entry& k = it->second;
  check_launchable(k, d);
  for (unsigned i = 0; i < d.plugins.size(); ++i) d.plugins[i]->set_slot(i);
  const dim3u b = d.block_threads;
  const unsigned nwaves = (b.x * b.y * b.z + wave_lanes - 1) / wave_lanes;
  while (waves_.size() < nwaves) waves_.push_back(std::make_unique<wave>());

  workgroup g;
  g.kernel_name = &k.info.name;
  g.lds.assign(std::size_t(k.desc.group_segment_fixed_size) + d.dynamic_lds_bytes, 0);
  g.plugins = d.plugins;
  // One picker for the whole dispatch: the random schedule's draws continue from workgroup to workgroup.
  wave_picker picker(d.schedule, d.schedule_seed);
  std::vector<plugin*> observers;
  for (plugin* p : d.plugins)
    if (p->observes_instructions()) observers.push_back(p);
  const slice_fn slice = slice_for(picker.switches_at_memory(), !observers.empty());
  for (plugin* p : d.plugins) p->launch_begin(d);
  for (uint32_t z = 0; z < d.grid_blocks.z; ++z)
    for (uint32_t y = 0; y < d.grid_blocks.y; ++y)
      for (uint32_t x = 0; x < d.grid_blocks.x; ++x) run_workgroup(k, d, g, {x, y, z}, nwaves, picker, slice, observers);
  for (plugin* p : d.plugins) p->launch_end(d);
}

void loaded_code_object::run_workgroup(const kernel_entry& k, const dispatch& d, workgroup& g, dim3u id,
                                       unsigned nwaves, wave_picker& picker, slice_fn slice,
                                       std::span<plugin* const> observers) {
  std::fill(g.lds.begin(), g.lds.end(), uint8_t(0));
  g.linear_id = id.x + d.grid_blocks.x * (id.y + d.grid_blocks.y * id.z);
  g.waves = g.live = nwaves;
  g.arrived = 0;
  g.generation = 0;
  for (plugin* p : d.plugins) p->workgroup_begin(g);
  for (unsigned wi = 0; wi < nwaves; ++wi) {
    start_wave(*waves_[wi], wi, k, d, id, has_architected_sgprs(arch_), g, prog_);
    for (plugin* p : d.plugins) p->wave_start(*waves_[wi]);
  }
  std::vector<unsigned> ready;
  ready.reserve(nwaves);
  // Each wave runs until it parks at a barrier or ends (or, when the schedule interleaves, until it has executed a
  // memory instruction); then the picker chooses the next among the ready ones.
  int last = -1;
  for (;;) {
    ready.clear();
    bool any_live = false;
    for (unsigned wi = 0; wi < nwaves; ++wi) {
      wave& w = *waves_[wi];
      if (w.state == wave::run_state::done) continue;
      any_live = true;
      if (w.state == wave::run_state::at_barrier && w.barrier_gen != g.generation) w.state = wave::run_state::ready;
      if (w.state == wave::run_state::ready) ready.push_back(wi);
    }
    if (!any_live) break;
    if (ready.empty())
      throw sim_error("kernel " + k.info.name + ": every live wave waits at a barrier that cannot complete");
    const unsigned wi = picker.pick(ready, last);
    last = int(wi);
    wave& w = *waves_[wi];
    const uint64_t n = slice(w, prog_.ops.data(), observers);
    w.executed += n;
    executed_instructions += n;
    if (w.state == wave::run_state::done) {
      --g.live;
      for (plugin* p : d.plugins) p->wave_end(w);
      if (g.arrived > 0 && g.arrived >= g.live) g.complete_barrier();  // the waves still running have all signalled
    }
  }
}

}  // namespace tp::amdgpu_sim::machine
