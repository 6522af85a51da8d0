// tp-sim-replay: every launch of the rocJITsu corpus (README.md beside this file) run again on this simulator and
// compared with what AMD's rocJITsu emulator computed from the same machine code and inputs.
//
//   tp-sim-replay --corpus DIR [--known FILE] [--only ID [--trace FILE [--trace-workgroup N] [--trace-wave W]]] [--races] [--dump DIR]
//                 [--schedule S] [--finding F (--as-rocjitsu READING[,READING] | --witness W)] HIP_OBJECT...
//
// --known FILE lists the launches known to disagree (disagreements.txt: "<id> <finding>" per line, each finding
// investigated in README.md). Such a launch must still disagree: one that agrees fails too (the finding is gone: take
// it off the list), so the list can neither grow silently nor go stale.
//
// --dump writes this simulator's final buffers of each replayed launch as DIR/<id>.<buffer>.bin, to look at a
// disagreement element by element (rocJITsu's are in the .tpresult where stored).
// --trace FILE (with --only) writes, for wave 0 of workgroup 0 (--trace-workgroup N: of workgroup N), one line per
// executed instruction: its address in the code object and every VGPR it changed, all 32 lanes;
// tp-rocjitsu-runner --trace writes the same lines under rocJITsu (tools/rocjitsu-runner/README.md says how to
// compare them).
// --schedule S runs each launch's waves in another order than the recorded one (in_order, reverse, random:SEED,
// adversarial:SEED: machine.h wave_schedule): whether a launch's result depends on how its waves interleave. With
// --finding F --as-rocjitsu it proves a class of racing launches: each must give rocJITsu's bytes under S with the
// readings, and other bytes under its recorded schedule with the same readings (else S is not needed: a failure);
// --finding F --schedule S without readings, a class that is the race alone (a kernel that races on purpose).
// --races attaches the machine's LDS race detector to each replayed launch and prints the hazards it finds (the
// side-by-side with rocJITsu's race detector, docs/race-detectors.md); the comparison is unchanged.
//
// --finding F --as-rocjitsu READINGS is the proof of a disagreement class: it replays only the launches --known lists
// with finding F, with rocJITsu's own reading of the named instructions swapped in (rocjitsu_readings.h: a plugin
// overwrites each such instruction's result with rocJITsu's definition of it), and requires every one of them to give
// rocJITsu's bytes, each with at least one instruction replaced. Then the class is that difference and nothing else.
// Exit 0 every launch of the class reproduced, 1 some did not.
//
// --finding F --witness W is the evidence for a class no reading can reproduce, because the difference sends
// rocJITsu's accesses into its own memory (rocjitsu_readings.h, the witnesses: sgpr-102-103, rocJITsu's alias of
// SGPRs 102/103 to the scratch base; ds-noreturn-v0, the old LDS word a non-returning atomic writes to v0). It replays
// every launch of the corpus with the witness attached: each launch --known lists with finding F must still differ
// from rocJITsu and execute at least one instruction the difference changes; every other launch must execute none.
// Then the class is exactly the launches the difference reaches. Exit 0 both hold, 1 some launch breaks one.
//
// The code objects come from this build: the HIP_OBJECTS' .hip_fatbin bundles (or bare .hsaco code objects), each kernel found by its code object
// key (launch_record.h: SHA-256 of .text and the kernel descriptor), so a corpus recorded in another checkout finds
// the same kernels as long as clang emits the same machine code. A launch whose key no object has is a failure (the
// corpus is stale: the kernel's code changed; regenerate it), never a skip.
//
// Comparison, per buffer the launch reaches (through its kernarg, or through the addresses a buffer holds): the final bytes equal rocJITsu's where the corpus stored
// them, their SHA-256 equals rocJITsu's where it kept only the digest. Bit for bit, floats included: no tolerance is
// applied, so a float difference is a disagreement to explain (README.md here: which float results the ISA defines
// to the bit, and why no bound is derived for the approximate instructions the fa kernels execute).
//
// Exit: 0 every launch agrees or disagrees as listed; 1 some launch disagrees unlisted, agrees though listed, or
// cannot be replayed (each named, with its id: --only ID reruns it alone); 2 bad usage or a corpus file that does
// not parse; 77 the corpus holds no launch.
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "simt/amdgpu_sim/machine.h"
#include "simt/amdgpu_sim/runtime/device_memory.h"
#include "simt/amdgpu_sim/runtime/global_checks.h"
#include "simt/amdgpu_sim/runtime/kernarg.h"
#include "simt/amdgpu_sim/machine/plugins/lds_race_detector.h"
#include "simt/amdgpu_sim/machine/wave.h"
#include "simt/amdgpu_sim/runtime/launch_record.h"
#include "tests/amdgpu_sim/rocjitsu/rocjitsu_readings.h"

namespace {

using namespace tp::amdgpu_sim;
namespace fs = std::filesystem;

// "a, b, c": the readings --as-rocjitsu takes and the witnesses --witness takes, for --help and the errors.
std::string joined(const std::vector<std::string_view>& names) {
  std::string out;
  for (auto n : names) out += (out.empty() ? "" : ", ") + std::string(n);
  return out;
}
std::string reading_list() { return joined(rocjitsu_readings::all_names()); }
std::string witness_list() { return joined(rocjitsu_readings::witness_names()); }

struct usage_error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct code_store {
  struct entry {
    std::shared_ptr<const std::vector<uint8_t>> elf;
    std::string arch;
  };
  std::map<std::string, entry> by_key;
  std::map<const std::vector<uint8_t>*, std::unique_ptr<code_object>> loaded;

  // Host objects with .hip_fatbin bundles, or bare code objects (.hsaco: the machine tests' kernels).
  void add_objects(const std::vector<std::string>& paths) {
    for (const auto& path : paths) {
      if (fs::path(path).extension() == ".hsaco") {
        auto elf = std::make_shared<const std::vector<uint8_t>>(record::read_file(path));
        auto co = load_code_object(*elf);  // its arch; kept, so find() does not decode it again
        const std::string arch = co->arch();
        loaded[elf.get()] = std::move(co);
        for (const auto& [kernel, key] : record::code_object_keys(*elf)) by_key.emplace(key, entry{elf, arch});
        continue;
      }
      for (const char* arch : {"gfx1201", "gfx1100"})
        for (auto& code : record::hip_code_objects(path, arch)) {
          auto elf = std::make_shared<const std::vector<uint8_t>>(std::move(code));
          for (const auto& [kernel, key] : record::code_object_keys(*elf)) by_key.emplace(key, entry{elf, arch});
        }
    }
  }
  code_object* find(const std::string& key) {
    const auto it = by_key.find(key);
    if (it == by_key.end()) return nullptr;
    auto& co = loaded[it->second.elf.get()];
    if (!co) co = load_code_object(*it->second.elf);
    return co.get();
  }
};

// --trace: wave 0 of workgroup 0, each instruction's address and the VGPRs it changed (tp-rocjitsu-runner's format).
class wave_trace final : public machine::plugin {
 public:
  wave_trace(std::ostream& out, uint32_t workgroup, uint32_t wave) : out_(out), workgroup_(workgroup), wave_(wave) {}
  bool observes_instructions() const override { return true; }
  void before_instruction(machine::wave& w, const machine::op&) override {
    if (traced(w)) std::memcpy(before_, w.v, sizeof before_);
  }
  void after_instruction(machine::wave& w, const machine::op& o) override {
    if (!traced(w)) return;
    char buf[32];
    std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(w.prog->text_address + o.pc));
    out_ << buf;
    for (unsigned r = 0; r < 256; ++r) {
      if (std::memcmp(before_[r], w.v[r], sizeof before_[r]) == 0) continue;
      out_ << " v" << r << '=';
      for (unsigned l = 0; l < 32; ++l) {
        std::snprintf(buf, sizeof buf, l ? ",0x%x" : "0x%x", w.v[r][l]);
        out_ << buf;
      }
    }
    out_ << '\n';
  }

 private:
  bool traced(const machine::wave& w) const { return w.id == wave_ && w.wg && w.wg->linear_id == workgroup_; }
  std::ostream& out_;
  uint32_t workgroup_;
  uint32_t wave_;
  uint32_t before_[machine::vgpr_file_rows][machine::wave_lanes];
};

std::string hex_byte(uint8_t v) {
  char b[8];
  std::snprintf(b, sizeof b, "0x%02x", v);
  return b;
}

// Each 8-byte word of a final buffer that holds an address inside this simulator's image of the code object (a kernel
// that stored its PC: s_getpc_b64) as the same offset from record::canonical_code_base, where rocJITsu's runner puts
// the image: the address is each executor's choice, the offset the machine code's. (A data word that happened to
// equal such a host address would be rewritten too; the image is a few MB of a 47-bit space.)
void canonicalize_code_addresses(std::span<uint8_t> bytes, uint64_t image_at, uint64_t image_bytes) {
  if (image_at == 0) return;
  for (std::size_t w = 0; w + 8 <= bytes.size(); w += 8)
    if (const uint64_t v = record::word_at(bytes, w); v >= image_at && v - image_at < image_bytes)
      record::set_word(bytes, w, record::canonical_code_base + (v - image_at));
}

// Runs one launch on this simulator; returns the final bytes of each buffer. `races`, when given, receives the LDS
// hazards of the launch.
std::vector<std::vector<uint8_t>> run_here(code_object& co, const record::launch& l, lds_hazard_report* races,
                                           machine::plugin* reading, machine::plugin* trace) {
  const kernel_info* k = co.find(l.kernel);
  if (!k) throw sim_error("the code object has no kernel " + l.kernel);
  device_memory mem;
  std::vector<uint64_t> addresses;
  for (const auto& b : l.buffers) {
    const uint64_t a = mem.allocate(std::max<std::size_t>(b.size(), 1));
    if (!a) throw sim_error("out of host memory for a buffer of " + std::to_string(b.size()) + " bytes");
    addresses.push_back(a);
  }
  for (uint32_t i = 0; i < l.buffers.size(); ++i)
    if (!l.buffers[i].empty()) {
      const std::vector<uint8_t> b = record::relocated_buffer(l, i, addresses);
      mem.host_write(addresses[i], b.data(), b.size());
    }
  // The code object's image (its globals), placed as the simulator's runtime places it before a first launch.
  const uint64_t image_at = place_image(mem, co);
  const std::vector<uint8_t> kernarg = record::relocated_kernarg(l, addresses);
  const uint64_t seg = mem.allocate(std::max<std::size_t>(kernarg.size(), 1), std::max<uint32_t>(k->kernarg_align, 16));
  if (!kernarg.empty()) mem.host_write(seg, kernarg.data(), kernarg.size());
  const launch_shape shape{l.grid_blocks, l.block_threads, l.dynamic_lds_bytes};
  const auto packet = build_dispatch_packet(*k, shape, seg);
  const uint64_t packet_addr = mem.allocate(packet.size(), 64);
  mem.host_write(packet_addr, packet.data(), packet.size());
  global_checks checks(mem);
  dispatch d;
  d.kernel = l.kernel;
  d.grid_blocks = l.grid_blocks;
  d.block_threads = l.block_threads;
  d.dynamic_lds_bytes = l.dynamic_lds_bytes;
  d.kernarg_address = seg;
  d.kernarg = std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(seg), kernarg.size());
  d.dispatch_packet_address = packet_addr;
  d.schedule = l.schedule;
  d.schedule_seed = l.schedule_seed;
  d.plugins.push_back(&checks);
  std::optional<machine::lds_race_detector> detector;
  if (races) d.plugins.push_back(&detector.emplace(co, *races));
  if (reading) d.plugins.push_back(reading);
  if (trace) d.plugins.push_back(trace);
  co.run(d);
  std::vector<std::vector<uint8_t>> out;
  for (std::size_t i = 0; i < l.buffers.size(); ++i) {
    std::vector<uint8_t> b(l.buffers[i].size());
    if (!b.empty()) mem.host_read(addresses[i], b.data(), b.size());
    record::canonicalize_buffer(l, uint32_t(i), addresses, b);
    canonicalize_code_addresses(b, image_at, co.image_bytes());
    out.push_back(std::move(b));
  }
  return out;
}

// "" when ours agrees with theirs, else what differs first.
std::string compare(const std::vector<std::vector<uint8_t>>& ours, const record::result& theirs) {
  if (ours.size() != theirs.buffers.size())
    return std::to_string(ours.size()) + " buffers here, " + std::to_string(theirs.buffers.size()) + " in the result";
  for (std::size_t i = 0; i < ours.size(); ++i) {
    const auto& t = theirs.buffers[i];
    if (ours[i].size() != t.size) return "buffer " + std::to_string(i) + ": size differs";
    if (t.bytes) {
      std::size_t differing = 0, first = 0;
      for (std::size_t j = 0; j < ours[i].size(); ++j)
        if (ours[i][j] != (*t.bytes)[j] && differing++ == 0) first = j;
      if (differing)
        return "buffer " + std::to_string(i) + ": " + std::to_string(differing) + " of " + std::to_string(t.size) +
               " bytes differ, first at byte " + std::to_string(first) + " (here " + hex_byte(ours[i][first]) +
               ", rocJITsu " + hex_byte((*t.bytes)[first]) + ")";
    } else if (record::sha256_hex(ours[i]) != t.sha256) {
      return "buffer " + std::to_string(i) + " (" + std::to_string(t.size) + " bytes, digest only): SHA-256 differs";
    }
  }
  return "";
}

int run(int argc, char** argv) {
  std::string corpus, only, dump, known_path, finding, trace_path;
  uint32_t trace_workgroup = 0, trace_wave = 0;
  std::vector<rocjitsu_readings::reading> readings;
  std::string witness;
  bool races = false;
  std::optional<std::pair<wave_schedule, uint64_t>> schedule;  // --schedule: in place of each launch's own
  std::vector<std::string> objects;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const auto value = [&]() -> std::string {
      if (i + 1 >= argc) throw usage_error(a + " needs a value");
      return argv[++i];
    };
    if (a == "--corpus") corpus = value();
    else if (a == "--only") only = value();
    else if (a == "--races") races = true;
    else if (a == "--known") known_path = value();
    else if (a == "--dump") dump = value();
    else if (a == "--finding") finding = value();
    else if (a == "--trace") trace_path = value();
    else if (a == "--witness") {
      witness = value();
      if (!rocjitsu_readings::make_witness(witness))
        throw usage_error("--witness: no witness '" + witness + "' (" + witness_list() + ")");
    }
    else if (a == "--schedule") {
      const std::string v = value();
      const std::string name = v.substr(0, v.find(':'));
      const std::string seed = v.find(':') == std::string::npos ? "0" : v.substr(v.find(':') + 1);
      std::optional<wave_schedule> s;
      for (auto c : {wave_schedule::in_order, wave_schedule::reverse, wave_schedule::random, wave_schedule::adversarial})
        if (name == record::to_string(c)) s = c;
      if (!s || seed.empty() || seed.find_first_not_of("0123456789") != std::string::npos)
        throw usage_error("--schedule: not in_order, reverse, random[:SEED] or adversarial[:SEED]: " + v);
      schedule.emplace(*s, std::stoull(seed));
    }
    else if (a == "--trace-workgroup") trace_workgroup = uint32_t(std::stoul(value()));
    else if (a == "--trace-wave") trace_wave = uint32_t(std::stoul(value()));
    else if (a == "--as-rocjitsu") {
      const std::string list = value();
      for (std::size_t at = 0; at <= list.size();) {
        const std::size_t comma = std::min(list.find(',', at), list.size());
        const std::string one = list.substr(at, comma - at);
        const auto r = rocjitsu_readings::parse(one);
        if (!r) {
          throw usage_error("--as-rocjitsu: no reading '" + one + "' (" + reading_list() + ")");
        }
        readings.push_back(*r);
        at = comma + 1;
      }
    }
    else if (a == "-h" || a == "--help") {
      std::cout << "usage: tp-sim-replay --corpus DIR [--known FILE] [--only ID] [--races] [--dump DIR] [--schedule S]\n"
                   "                     [--finding F (--as-rocjitsu READING[,READING] | --witness W)] HIP_OBJECT...\n"
                   "  replays every launch of the rocJITsu corpus DIR on this simulator and compares with rocJITsu's\n"
                   "  results; --known FILE lists launches that must disagree (\"<id> <finding>\" lines); --only ID\n"
                   "  replays the launch ID alone (--trace FILE [--trace-workgroup N] [--trace-wave W]: wave W (0) of workgroup N (0)'s changed VGPRs per instruction,\n"
                   "  as tp-rocjitsu-runner --trace writes them); --races prints the LDS hazards the machine's\n"
                   "  race detector finds in each launch; --dump DIR writes this simulator's final buffers as\n"
                   "  DIR/<id>.<buffer>.bin; --schedule S (in_order, reverse, random[:SEED], adversarial[:SEED]) runs\n"
                   "  each launch's waves in that order instead of the recorded one (does a result depend on it?).\n"
                   "  --finding F --as-rocjitsu READINGS replays the launches --known lists\n"
                   "  with finding F under rocJITsu's reading of those instructions (" << reading_list() << ")\n"
                   "  and requires each to give rocJITsu's bytes (with --schedule S: under S,\n"
                   "  and other bytes under the recorded schedule: a racing launch; --schedule S without readings: a\n"
                   "  race alone). --finding F --witness W (sgpr-102-103: rocJITsu's s102/s103 alias; ds-noreturn-v0:\n"
                   "  its v0 write by a non-returning LDS atomic) replays every launch and requires those\n"
                   "  listed with F to differ and to run an instruction that difference changes, and\n"
                   "  every other launch to run none. Exit 0 agree (or disagree as listed), 1 disagree, 2 bad input,\n"
                   "  77 empty.\n";
      return 0;
    } else if (!a.empty() && a[0] == '-') throw usage_error("unknown option " + a);
    else objects.push_back(a);
  }
  if (corpus.empty()) throw usage_error("--corpus DIR is required");
  if (!trace_path.empty() && only.empty()) throw usage_error("--trace needs --only ID (one launch)");
  if (!readings.empty() && !witness.empty()) throw usage_error("--as-rocjitsu and --witness exclude each other");
  if (finding.empty() != (readings.empty() && witness.empty() && !schedule))
    throw usage_error("--finding goes with --as-rocjitsu, --schedule (or both), or --witness");
  if (schedule && !witness.empty()) throw usage_error("--schedule and --witness exclude each other");
  // What the witness observes, for the summary ("rocJITsu's s102/s103 alias").
  const std::string difference = witness.empty() ? "" : std::string(rocjitsu_readings::make_witness(witness)->difference());
  // A class proven by replaying its launches: with rocJITsu's readings, under another schedule, or both.
  const bool proving = !finding.empty() && witness.empty();
  if (!finding.empty() && known_path.empty()) throw usage_error("--finding needs --known FILE (the launches of the class)");
  if (!fs::is_directory(corpus)) throw usage_error("corpus " + corpus + " is not a folder");
  std::vector<fs::path> launches;
  for (const auto& e : fs::recursive_directory_iterator(corpus))
    if (e.path().extension() == ".tplaunch" && (only.empty() || e.path().stem() == only)) launches.push_back(e.path());
  std::sort(launches.begin(), launches.end());
  if (launches.empty()) {
    std::cout << (only.empty() ? "no launch in the corpus " + corpus : "no launch " + only + " in " + corpus) << '\n';
    return only.empty() ? 77 : 2;
  }
  std::map<std::string, std::string> known;  // launch id -> finding
  if (!known_path.empty()) {
    std::ifstream f(known_path);
    if (!f) throw usage_error("cannot read " + known_path);
    std::string line;
    while (std::getline(f, line)) {
      if (line.empty() || line[0] == '#') continue;
      const auto space = line.find(' ');
      if (space == std::string::npos || space == 0) throw usage_error(known_path + ": not \"<id> <finding>\": " + line);
      known[line.substr(0, space)] = line.substr(space + 1);
    }
  }
  // Whether --known lists the launch with finding F (a listed finding's first word is its class).
  const auto in_finding = [&](const std::string& id) {
    const auto it = known.find(id);
    return it != known.end() && it->second.substr(0, it->second.find(' ')) == finding;
  };
  // --finding: a class with no launch proves nothing. With a reading: the launches of that class only (the witness
  // replays them all).
  if (!finding.empty()) {
    if (std::none_of(known.begin(), known.end(), [&](const auto& k) { return in_finding(k.first); }))
      throw usage_error(known_path + " lists no launch with finding " + finding);
    if (witness.empty()) {
      std::erase_if(launches, [&](const fs::path& p) { return !in_finding(p.stem().string()); });
      if (launches.empty()) throw usage_error("the corpus holds no launch " + known_path + " lists with finding " + finding);
    }
  }
  code_store store;
  store.add_objects(objects);
  unsigned agree = 0, disagree = 0, as_known = 0, stale = 0, unreplayable = 0, explained = 0, unexplained = 0;
  unsigned witnessed = 0, unwitnessed = 0, reached_unlisted = 0, others = 0;
  std::string executor;  // the results' (one corpus, one rocJITsu commit and config per arch)
  for (const auto& path : launches) {
    const std::string id = path.stem().string();
    record::launch l = record::decode_launch(record::read_file(path.string()));
    const std::pair recorded{l.schedule, l.schedule_seed};
    if (schedule) std::tie(l.schedule, l.schedule_seed) = *schedule;
    const std::string result_path = fs::path(path).replace_extension(".tpresult").string();
    const std::string what = l.arch + " " + l.kernel;
    if (!fs::exists(result_path)) {
      std::cout << "FAIL " << id << " " << what << ": no rocJITsu result beside it (" << result_path << ")\n";
      ++unreplayable;
      continue;
    }
    const record::result theirs = record::decode_result(record::read_file(result_path));
    if (executor.find(theirs.executor) == std::string::npos)
      executor += (executor.empty() ? "" : "; ") + theirs.executor;
    code_object* co = store.find(l.code_object);
    if (!co) {
      std::cout << "FAIL " << id << " " << what << ": no code object of this build has key " << l.code_object
                << " (the kernel's machine code changed since the corpus was recorded: regenerate it, "
                   "tests/amdgpu_sim/rocjitsu/README.md)\n";
      ++unreplayable;
      continue;
    }
    std::string diff;
    bool schedule_matters = false;
    lds_hazard_report found;
    std::optional<rocjitsu_readings::plugin> reading;
    if (!readings.empty()) reading.emplace(readings);
    std::unique_ptr<rocjitsu_readings::witness> alias;
    if (!witness.empty()) alias = rocjitsu_readings::make_witness(witness);
    machine::plugin* extra = reading ? static_cast<machine::plugin*>(&*reading) : alias.get();
    try {
      std::ofstream trace_file;
      std::optional<wave_trace> trace;
      if (!trace_path.empty()) {
        trace_file.open(trace_path);
        if (!trace_file) throw usage_error("cannot write " + trace_path);
        trace.emplace(trace_file, trace_workgroup, trace_wave);
      }
      const auto ours = run_here(*co, l, races ? &found : nullptr, extra, trace ? &*trace : nullptr);
      // A reading proven under another schedule than the recorded one must need it: under the recorded schedule,
      // with the same reading, the launch gives other bytes (its waves race; which interleaving rocJITsu ran is not
      // ours to pick, only to find).
      if (proving && schedule) {
        std::optional<rocjitsu_readings::plugin> again;
        if (!readings.empty()) again.emplace(readings);
        std::tie(l.schedule, l.schedule_seed) = recorded;
        schedule_matters = run_here(*co, l, nullptr, again ? &*again : nullptr, nullptr) != ours;
        std::tie(l.schedule, l.schedule_seed) = *schedule;
      }
      if (!dump.empty()) {
        fs::create_directories(dump);
        for (std::size_t i = 0; i < ours.size(); ++i)
          record::write_file(dump + "/" + id + "." + std::to_string(i) + ".bin", ours[i]);
      }
      diff = compare(ours, theirs);
    } catch (const sim_error& e) {
      diff = std::string("the simulator stopped: ") + e.what();
    }
    if (races) {
      std::cout << "RACES " << id << " " << what << ": " << found.raw << " RAW, " << found.war << " WAR, " << found.waw
                << " WAW instruction pairs\n";
      for (const auto& h : found.first) std::cout << "  " << describe(h) << '\n';
    }
    const auto listed = known.find(id);
    if (alias) {
      const std::string seen = std::to_string(alias->affected()) + " instructions " + std::string(alias->difference()) +
                               " changes" +
                               (alias->first().empty() ? "" : ", first " + alias->first());
      if (in_finding(id)) {
        if (!diff.empty() && alias->affected() > 0) {
          ++witnessed;
          std::cout << "EXPLAINED " << id << " " << what << " (" << seen << ")\n";
        } else {
          ++unwitnessed;
          std::cout << "FAIL " << id << " " << what << ": listed with " << finding << ", but "
                    << (diff.empty() ? "it agrees with rocJITsu" : "it runs no instruction the difference changes") << '\n';
        }
      } else if (alias->affected() > 0) {
        ++reached_unlisted;
        std::cout << "FAIL " << id << " " << what << ": not listed with " << finding << ", but it runs " << seen << '\n';
      } else {
        ++others;
      }
      continue;
    }
    if (proving) {
      std::string counts = reading ? "" : "none";
      uint64_t replaced = 0;
      for (std::size_t r = 0; r < readings.size(); ++r) {
        counts += (r ? ", " : "") + std::string(rocjitsu_readings::name(readings[r])) + " " +
                  std::to_string(reading->replaced()[r]);
        replaced += reading->replaced()[r];
      }
      // With readings, each must have replaced something; a schedule alone proves nothing about instructions.
      const bool replaced_enough = readings.empty() || replaced > 0;
      if (diff.empty() && replaced_enough && schedule && !schedule_matters) {
        ++unexplained;
        std::cout << "FAIL " << id << " " << what << ": gives rocJITsu's bytes under " << record::to_string(l.schedule)
                  << ", but the same under its recorded schedule " << record::to_string(recorded.first)
                  << ": no reason to name another schedule\n";
      } else if (diff.empty() && replaced_enough) {
        ++explained;
        std::cout << "EXPLAINED " << id << " " << what << " (instructions replaced: " << counts
                  << (schedule ? std::string("; waves ") + record::to_string(l.schedule) + ", another result under the "
                                     "recorded " + record::to_string(recorded.first)
                               : std::string())
                  << ")\n";
      } else {
        ++unexplained;
        std::cout << "FAIL " << id << " " << what << ": under rocJITsu's reading (" << counts
                  << (schedule ? std::string("; waves ") + record::to_string(l.schedule) : std::string()) << "): "
                  << (diff.empty() ? "agrees, but no instruction was replaced" : diff) << '\n';
      }
      continue;
    }
    if (diff.empty() && listed == known.end()) {
      ++agree;
      if (!only.empty()) std::cout << "PASS " << id << " " << what << '\n';
    } else if (diff.empty()) {
      ++stale;
      std::cout << "FAIL " << id << " " << what << ": agrees, but " << known_path
                << " lists it as a known disagreement (" << listed->second << "): take it off the list\n";
    } else if (listed != known.end()) {
      ++as_known;
      if (!only.empty()) std::cout << "KNOWN " << id << " " << what << " (" << listed->second << "): " << diff << '\n';
    } else {
      ++disagree;
      std::cout << "FAIL " << id << " " << what << ": " << diff << '\n';
    }
  }
  if (!witness.empty()) {
    std::cout << witnessed << " launches of " << finding << " differ and run instructions " << difference
              << " changes; " << unwitnessed << " listed do not; " << reached_unlisted << " not listed run such "
              << "instructions; " << others << " others run none; " << unreplayable << " cannot be replayed\n";
    return unwitnessed || reached_unlisted || unreplayable ? 1 : 0;
  }
  if (proving) {
    std::cout << explained << " of " << launches.size() << " launches of " << finding
              << " give rocJITsu's bytes under its reading; " << unexplained << " do not, " << unreplayable
              << " cannot be replayed\n";
    return unexplained || unreplayable ? 1 : 0;
  }
  std::cout << agree << " launches agree with " << (executor.empty() ? "rocJITsu" : executor) << ", " << as_known
            << " disagree as listed in " << (known_path.empty() ? "no list" : known_path) << ", " << disagree
            << " disagree unlisted, " << stale << " listed but agree, " << unreplayable << " cannot be replayed\n";
  return disagree || stale || unreplayable ? 1 : 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const usage_error& e) {
    std::cerr << "tp-sim-replay: " << e.what() << '\n';
    return 2;
  } catch (const sim_error& e) {
    std::cerr << "tp-sim-replay: " << e.what() << '\n';
    return 2;
  }
}
