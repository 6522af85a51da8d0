#include "simt/amdgpu_sim/machine/plugins/executed_mnemonics.h"

#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <utility>

#include "simt/amdgpu_sim/machine/decoder.h"
#include "simt/amdgpu_sim/machine/instruction.h"
#include "simt/amdgpu_sim/machine/schedule.h"
#include "simt/amdgpu_sim/machine/wave.h"

namespace tp::amdgpu_sim::machine {

namespace {
std::atomic<uint64_t> recorders{0};
}

executed_mnemonics::executed_mnemonics(const code_object& co)
    : co_(co), prog_(program_of(co)), seen_(prog_.ops.size(), 0), id_(recorders++) {}

void executed_mnemonics::mark(const op& o, uint8_t how) {
  const std::size_t i = std::size_t(&o - prog_.ops.data());
  if (i >= seen_.size()) return;  // a dual-issue half: its pair is what ran
  const uint8_t now = seen_[i] | how;
  if (now == seen_[i]) return;
  news_ = true;
  seen_[i] = now;
}

void executed_mnemonics::before_instruction(wave&, const op& o) { mark(o, ran); }

void executed_mnemonics::after_instruction(wave& w, const op& o) {
  if (o.target != 0 && w.pc == o.target) mark(o, taken);
}

std::set<std::string> executed_mnemonics::mnemonics() const {
  std::set<std::string> out;
  const auto add = [&](const op& o) { out.emplace(canonical_mnemonic(prog_.mnemonics[o.mnemonic])); };
  // The no-ops from op i on that the decoder links past (they precede the next live op).
  const auto add_no_ops = [&](std::size_t i, std::size_t end) {
    for (; i < end && i < prog_.ops.size(); ++i)
      if (prog_.ops[i].exec == exec_no_op) add(prog_.ops[i]);
  };
  for (std::size_t i = 0; i < seen_.size(); ++i) {
    if (!seen_[i]) continue;
    const op& o = prog_.ops[i];
    if (o.exec == exec_vopd) {
      add(prog_.vopd_halves[o.vopd_x]);
      add(prog_.vopd_halves[o.vopd_y]);
    } else {
      add(o);
    }
    add_no_ops(i + 1, o.next);
    // A taken branch passes the no-ops at its destination.
    if (seen_[i] & taken)
      if (const int32_t d = branch_destination(prog_, o); d >= 0) add_no_ops(std::size_t(d), o.target);
  }
  return out;
}

bool executed_mnemonics::take_news() { return std::exchange(news_, false); }

void executed_mnemonics::write(const std::string& dir) const {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);  // a failure shows as the file's
  const std::string path = dir + "/" + co_.arch() + "." + std::to_string(getpid()) + "." + std::to_string(id_) + ".txt";
  std::ofstream f(path, std::ios::trunc);
  f << co_.arch() << '\n';
  for (const std::string& m : mnemonics()) f << m << '\n';
  if (!f) throw sim_error("cannot write the executed instructions to " + path);
}

std::string executed_mnemonics::directory() {
  const char* d = std::getenv("TILEPROBE_SIM_EXECUTED_DIR");
  return d ? d : "";
}

}  // namespace tp::amdgpu_sim::machine
