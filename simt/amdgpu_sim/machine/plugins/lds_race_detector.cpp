#include "simt/amdgpu_sim/machine/plugins/lds_race_detector.h"

#include <algorithm>
#include <bit>
#include <string>

#include "simt/amdgpu_sim/format.h"

namespace tp::amdgpu_sim {

const char* to_string(lds_hazard_kind k) {
  switch (k) {
    case lds_hazard_kind::raw: return "RAW";
    case lds_hazard_kind::war: return "WAR";
    case lds_hazard_kind::waw: return "WAW";
  }
  return "?";
}

std::string describe(const lds_hazard& h) {
  auto site = [](const lds_access_site& s) {
    return std::string(s.write ? "write" : "read") + " by wave " + std::to_string(s.wave) + " at pc " + hex(s.at.pc) + " `" +
           s.at.instruction + "`" + (s.at.source.empty() ? std::string(" (no line table)") : " (" + s.at.source + ")");
  };
  return std::string(to_string(h.kind)) + " hazard on LDS byte " + std::to_string(h.lds_offset) + " (workgroup " +
         std::to_string(h.workgroup) + "): " + site(h.earlier) + ", then " + site(h.later) + " in the same barrier epoch";
}

}  // namespace tp::amdgpu_sim

namespace tp::amdgpu_sim::machine {

void lds_race_detector::workgroup_begin(const workgroup& g) {
  if (bytes_.size() < g.lds.size()) bytes_.resize(g.lds.size());
  ++workgroup_serial_;
  workgroup_ = g.linear_id;
}

// Lane by lane in ascending order, a lane's second address (the two-address DS forms) right after its first: the order
// the accesses happen in.
void lds_race_detector::memory(const wave& w, const op& o, const memory_access& a) {
  if (a.space != memory_space::lds) return;
  for (uint32_t m = a.lanes; m; m &= m - 1) {
    const unsigned l = unsigned(std::countr_zero(m));
    access(w, o, a.address[l], a.bytes, a.write);
    if (a.second) access(w, o, a.second[l], a.bytes, a.write);
  }
}

void lds_race_detector::report(lds_hazard_kind kind, uint32_t offset, unsigned earlier_wave, uint32_t earlier_pc,
                               bool earlier_write, const wave& w, const op& o, bool write) {
  const uint64_t key = (uint64_t(kind) << 62) | (uint64_t(earlier_pc) << 31) | o.pc;
  if (!seen_.insert(key).second) return;
  switch (kind) {
    case lds_hazard_kind::raw: ++out_.raw; break;
    case lds_hazard_kind::war: ++out_.war; break;
    case lds_hazard_kind::waw: ++out_.waw; break;
  }
  if (out_.first.size() >= lds_hazard_pairs_kept) return;
  lds_hazard h;
  h.kind = kind;
  h.workgroup = workgroup_;
  h.lds_offset = offset;
  h.earlier = {earlier_wave, earlier_write, co_.locate(w.prog->text_address + earlier_pc)};
  h.later = {w.id, write, co_.locate(w.prog->text_address + o.pc)};
  out_.first.push_back(std::move(h));
}

void lds_race_detector::access(const wave& w, const op& o, uint64_t addr, uint32_t bytes, bool write) {
  const uint64_t epoch = (workgroup_serial_ << 32) | w.wg->generation;
  const int8_t me = int8_t(w.id);
  const uint32_t bit = 1u << w.id;
  // An access past the LDS segment stops the dispatch before it happens (lds_at); record only what exists.
  const uint64_t end = std::min<uint64_t>(addr + bytes, bytes_.size());
  for (uint64_t a = addr; a < end; ++a) {
    byte_state& b = bytes_[a];
    if (b.epoch != epoch) b = byte_state{epoch};
    if (write) {
      if (b.writer != nobody && b.writer != me)
        report(lds_hazard_kind::waw, uint32_t(a), unsigned(b.writer), b.writer_pc, true, w, o, true);
      if (b.readers & ~bit) {
        const int slot = b.reader[0] != me ? 0 : 1;
        report(lds_hazard_kind::war, uint32_t(a), unsigned(b.reader[slot]), b.reader_pc[slot], false, w, o, true);
      }
      b.writer = me;
      b.writer_pc = o.pc;
    } else {
      if (b.writer != nobody && b.writer != me)
        report(lds_hazard_kind::raw, uint32_t(a), unsigned(b.writer), b.writer_pc, true, w, o, false);
      b.readers |= bit;
      if (b.reader[0] != me) {
        b.reader[1] = b.reader[0];
        b.reader_pc[1] = b.reader_pc[0];
        b.reader[0] = me;
      }
      b.reader_pc[0] = o.pc;
    }
  }
}

}  // namespace tp::amdgpu_sim::machine
