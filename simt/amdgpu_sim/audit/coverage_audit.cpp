// The simulator's instruction coverage, per arch (gfx1100, gfx1201), from four sources:
//   ISA          every mnemonic LLVM's AMDGPU target has for the arch's generation: its MCInstrInfo's real opcodes
//                (names ending _gfx11 / _gfx12: the generation's encodings, gfx1150's too for gfx11) through the
//                instruction printer's mnemonic, the halves of every dual-issue pair the disassembler decodes, and
//                what it decodes the all-zero word to;
//   implemented  every mnemonic the machine declares for the arch (machine/instruction.h's rows);
//   emitted      every mnemonic clang emitted into the code objects of the given hip objects (their .hip_fatbin
//                bundles), as the machine's decoder reads them, except code after an s_trap no path reaches (listed
//                apart: add_program);
//   executed     every mnemonic a test executed: the files the tests wrote to TILEPROBE_SIM_EXECUTED_DIR
//                (machine/plugins/executed_mnemonics.h).
// It fails (exit 1) when an emitted mnemonic has no declaration, a declared one was executed by no test, or a declared
// spelling is not one LLVM has for that arch, listing each. The table it prints is the one in
// simt/amdgpu_sim/machine/README.md, between the coverage-audit markers: --readme checks that copy is current,
// --write-readme rewrites it.
//
//   tp-amdgpu-sim-coverage-audit --executed DIR [--config TEXT (--readme FILE | --write-readme FILE)] HIP_OBJECT...
//   tp-amdgpu-sim-coverage-audit --unexecutable CODE_OBJECT...   what the decoder could not make executable (below)
//
// The emitted column depends on the build (its kernel variants and archs, TEXT): the README's marker line names the
// configuration of its table, and --readme compares only in a build of that configuration (else exit 77, saying so).
//
// Exit codes: 0 all hold, 1 a rule broken (each listed), 2 bad usage or unreadable input, 77 the README's table is of
// another configuration (the rules were still checked and held).
#include <algorithm>
#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <mutex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <llvm/MC/MCInst.h>
#include <llvm/Object/ELFObjectFile.h>
#include <llvm/Object/ObjectFile.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/raw_ostream.h>

#include "simt/amdgpu_sim/machine.h"
#include "simt/amdgpu_sim/machine/decoder.h"
#include "simt/amdgpu_sim/machine/instruction.h"
#include "simt/amdgpu_sim/machine/llvm_amdgpu.h"
#include "simt/amdgpu_sim/machine/schedule.h"
#include "simt/amdgpu_sim/machine/wave.h"
#include "simt/amdgpu_sim/runtime/offload_bundle.h"

namespace {

using namespace tp::amdgpu_sim;
using mnemonics = std::set<std::string>;

struct arch_t {
  std::string name;        // the processor audited
  std::string generation;  // LLVM's suffix of its real opcodes
  bool gfx11;
};
const std::array<arch_t, 2> archs = {arch_t{"gfx1100", "gfx11", true}, arch_t{"gfx1201", "gfx12", false}};

struct usage_error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// ---- ISA: LLVM's AMDGPU target (machine/llvm_amdgpu.h, as the decoder has it) -----------------------------------
using llvm_target = machine::llvm_amdgpu;

// The printer's mnemonic without the encoding or DPP/SDWA suffix the printer adds ("v_cmpx_lt_f32_e64_dpp" and
// "v_add_nc_u32_e32" name the instructions v_cmpx_lt_f32 and v_add_nc_u32).
std::string base_mnemonic(std::string m) {
  m = m.substr(0, m.find_first_of(" \t"));
  for (const char* suffix : {"_e64_dpp", "_e32_dpp", "_dpp", "_sdwa", "_e32", "_e64"}) {
    const std::string s = suffix;
    if (m.size() > s.size() && m.compare(m.size() - s.size(), s.size(), s) == 0) return m.substr(0, m.size() - s.size());
  }
  return m;
}

// The dual-issue halves the disassembler decodes for the arch: every opX/opY pair of the VOPD encoding (RDNA3 §15.3.7 /
// RDNA4 "VOPD" format: 0b110010 in bits 31:26, opX in 25:22, opY in 21:17) on VGPR operands, with a literal dword
// after it for the forms that take one.
void add_vopd_halves(llvm_target& t, mnemonics& out) {
  // vsrc1 0 and 1: the moves decode only with an unused vsrc1 of 0.
  for (uint32_t x = 0; x < 16; ++x)
    for (uint32_t y = 0; y < 32; ++y)
      for (uint32_t v1 = 0; v1 < 2; ++v1) {
      const uint32_t w0 = (0x32u << 26) | (x << 22) | (y << 17) | (v1 << 9) | 256u;  // src0X v0, vsrc1X
      const uint32_t w1 = (2u << 24) | (1u << 17) | (v1 << 9) | 258u;                // vdstX v2, vdstY, vsrc1Y, src0Y v2
      const uint32_t words[3] = {w0, w1, 0x3f800000u};
      llvm::MCInst inst;
      uint64_t size = 0;
      const auto bytes = llvm::ArrayRef<uint8_t>(reinterpret_cast<const uint8_t*>(words), sizeof words);
      if (t.dis->getInstruction(inst, size, bytes, 0, llvm::nulls()) != llvm::MCDisassembler::Success) continue;
      std::string text;
      llvm::raw_string_ostream os(text);
      t.printer->printInst(&inst, 0, "", *t.sti, os);
      os.flush();
      const auto sep = text.find(" :: ");
      if (sep == std::string::npos) continue;
      std::istringstream halves(text.substr(0, sep) + "\n" + text.substr(sep + 4));
      for (std::string h; std::getline(halves, h);) {
        h.erase(0, h.find_first_not_of(" \t"));
        out.insert(base_mnemonic(h));
      }
    }
}

mnemonics isa_mnemonics(const arch_t& a) {
  llvm_target t(a.name);
  mnemonics out;
  const std::string suffix = "_" + a.generation;
  for (unsigned op = 0; op < t.mii->getNumOpcodes(); ++op) {
    const std::string name = t.mii->getName(op).str();
    const bool real = name.size() > suffix.size() && (name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0 ||
                                                      name.find(suffix + "_format") != std::string::npos);
    if (!real || name.rfind("V_DUAL_", 0) == 0) continue;
    llvm::MCInst inst;
    inst.setOpcode(op);
    const auto m = t.printer->getMnemonic(&inst);
    if (!m.first || !*m.first) continue;
    out.insert(base_mnemonic(m.first));
  }
  add_vopd_halves(t, out);
  // The all-zero word, what pads .text between kernels, decodes to a generic encoding (v_illegal) of no generation.
  const uint32_t zero = 0;
  llvm::MCInst inst;
  uint64_t size = 0;
  if (t.dis->getInstruction(inst, size, llvm::ArrayRef<uint8_t>(reinterpret_cast<const uint8_t*>(&zero), 4), 0,
                            llvm::nulls()) == llvm::MCDisassembler::Success)
    if (const auto m = t.printer->getMnemonic(&inst); m.first) out.insert(base_mnemonic(m.first));
  return out;
}

// ---- implemented: the declarations --------------------------------------------------------------------------------
mnemonics implemented_mnemonics(const arch_t& a) {
  mnemonics out;
  for (const machine::instruction* i : machine::all_instructions()) {
    const std::string_view sp = i->spelling(a.gfx11);
    if (sp.empty()) continue;
    out.emplace(sp);
    if (i->has(machine::f_vopd)) out.insert("v_dual_" + std::string(sp.substr(2)));
  }
  return out;
}

// ---- emitted: the code objects of the hip objects ------------------------------------------------------------------
// The mnemonics of one decoded program, each half of a dual issue on its own (a pair with an undeclared half is one
// unimplemented op: its halves are read back from its printed text). Code after an s_trap that no path from a kernel
// entry reaches is not counted: LLVM appends its queue-signalling sequence there on gfx11 (s_sendmsg_rtn_b32 for the
// doorbell, then s_sethalt in a loop), which never runs here because s_trap stops the dispatch (machine/README.md);
// those mnemonics go to `after_trap`, which the audit lists. (A computed jump, s_setpc_b64 / s_swappc_b64, makes
// everything count.)
// Which ops sit after such an s_trap (true: never executed).
std::vector<bool> after_trap_ops(const machine::program& p, const std::vector<uint32_t>& entries) {
  const std::size_t n = p.ops.size() - 1;  // the last op is the decoder's end-of-text sentinel
  const auto name = [&](std::size_t i) { return machine::canonical_mnemonic(p.mnemonics[p.ops[i].mnemonic]); };
  std::vector<bool> reached(n, false);
  std::vector<std::size_t> todo(entries.begin(), entries.end());
  bool computed_jump = false;
  while (!todo.empty()) {
    const std::size_t i = todo.back();
    todo.pop_back();
    if (i >= n || reached[i]) continue;
    reached[i] = true;
    const std::string_view m = name(i);
    if (m == "s_setpc_b64" || m == "s_swappc_b64") computed_jump = true;
    if (p.ops[i].target != 0) todo.push_back(p.ops[i].target);
    if (m != "s_endpgm" && m != "s_branch" && m != "s_trap" && m != "s_setpc_b64") todo.push_back(i + 1);
  }
  std::vector<bool> dead(n, false);
  bool trapped = false;
  for (std::size_t i = 0; i < n && !computed_jump; ++i) {
    if (reached[i]) trapped = false;
    dead[i] = trapped;
    if (name(i) == "s_trap") trapped = true;
  }
  return dead;
}

void add_program(const machine::program& p, const std::vector<uint32_t>& entries, mnemonics& all,
                 mnemonics& after_trap) {
  const std::size_t n = p.ops.size() - 1;
  const std::vector<bool> dead = after_trap_ops(p, entries);
  for (std::size_t i = 0; i < n; ++i) {
    const machine::op& o = p.ops[i];
    const std::string& text = p.text[i];
    mnemonics& to = dead[i] ? after_trap : all;
    const auto add = [&](const machine::op& x) { to.emplace(machine::canonical_mnemonic(p.mnemonics[x.mnemonic])); };
    if (o.exec == machine::exec_vopd) {
      add(p.vopd_halves[o.vopd_x]);
      add(p.vopd_halves[o.vopd_y]);
    } else if (o.exec == machine::exec_undecodable) {
      to.insert("<undecodable word>");
    } else if (const auto sep = text.find(" :: "); sep != std::string::npos) {
      to.insert(base_mnemonic(text));
      to.insert(base_mnemonic(text.substr(sep + 4)));
    } else {
      add(o);
    }
  }
}

std::vector<uint8_t> read_bytes(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw usage_error("cannot read " + path);
  return {std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
}

void emitted_from_object(const std::string& path, std::map<std::string, mnemonics>& emitted,
                         std::map<std::string, mnemonics>& after_trap) {
  const std::vector<uint8_t> bytes = read_bytes(path);
  llvm::MemoryBufferRef ref(llvm::StringRef(reinterpret_cast<const char*>(bytes.data()), bytes.size()), path);
  auto obj = llvm::object::ObjectFile::createObjectFile(ref);
  if (!obj) throw usage_error(path + ": not an object file: " + llvm::toString(obj.takeError()));
  bool found = false;
  for (const llvm::object::SectionRef& s : (*obj)->sections()) {
    auto name = s.getName();
    if (!name || *name != ".hip_fatbin") continue;
    auto contents = s.getContents();
    if (!contents) throw usage_error(path + ": unreadable .hip_fatbin");
    const std::span<const uint8_t> section(reinterpret_cast<const uint8_t*>(contents->data()), contents->size());
    const auto entries = parse_offload_bundle(offload_bundle_extent(section.data()));
    for (const arch_t& a : archs) {
      const auto code = find_code_object(entries, a.name);
      if (code.empty()) continue;
      found = true;
      const std::vector<uint8_t> copy(code.begin(), code.end());  // the loader keeps no reference past decoding
      const auto co = load_code_object(copy);
      add_program(machine::program_of(*co), machine::entry_indices(*co), emitted[a.name], after_trap[a.name]);
    }
  }
  if (!found) throw usage_error(path + ": no gfx1100 or gfx1201 code object in a .hip_fatbin section");
}

// ---- --unexecutable: what the decoder could not make executable ------------------------------------------------
// --unexecutable CODE_OBJECT...: every instruction of the code objects (linked device ELFs of gfx1100 / gfx1201) that
// the machine's decoder turned into an op that stops the dispatch, with the decoder's reason, as
//   <arch> TAB <function symbol> TAB <reason> TAB <the printer's text>
// (reasons: "unimplemented <mnemonic>", "unimplemented modifier ... of <mnemonic>", "<undecodable word>", ...). Code
// after an s_trap that no path reaches is left out (add_program). tests/fa_tree/needed_instructions.py lists a beellama
// tree's from this, so the list follows the decoder's own rules.
void print_unexecutable(const std::string& path) {
  const std::vector<uint8_t> bytes = read_bytes(path);
  const auto co = load_code_object(bytes);
  const machine::program& p = machine::program_of(*co);
  llvm::MemoryBufferRef ref(llvm::StringRef(reinterpret_cast<const char*>(bytes.data()), bytes.size()), path);
  auto obj = llvm::object::ObjectFile::createObjectFile(ref);
  if (!obj) throw usage_error(path + ": not an object file: " + llvm::toString(obj.takeError()));
  // The function symbols by address: the one an op's address falls in names it.
  std::map<uint64_t, std::pair<uint64_t, std::string>> functions;
  for (const llvm::object::SymbolRef& sym : (*obj)->symbols()) {
    auto type = sym.getType();
    auto name = sym.getName();
    auto address = sym.getAddress();
    if (!type || !name || !address || *type != llvm::object::SymbolRef::ST_Function) continue;
    functions[*address] = {llvm::object::ELFSymbolRef(sym).getSize(), name->str()};
  }
  const auto function_at = [&](uint64_t address) -> std::string {
    auto it = functions.upper_bound(address);
    if (it == functions.begin()) return "?";
    --it;
    return address < it->first + std::max<uint64_t>(it->second.first, 1) ? it->second.second : "?";
  };
  const std::vector<bool> dead = after_trap_ops(p, machine::entry_indices(*co));
  for (std::size_t i = 0; i + 1 < p.ops.size(); ++i) {
    const machine::op& o = p.ops[i];
    if (dead[i] || (o.exec != machine::exec_unimplemented && o.exec != machine::exec_undecodable)) continue;
    const std::string& text = p.text[i];
    const auto sep = text.find("    ; ");
    const std::string printed = sep == std::string::npos ? text : text.substr(0, sep);
    const std::string reason = sep == std::string::npos ? text : text.substr(sep + 6);
    std::printf("%s\t%s\t%s\t%s\n", co->arch().c_str(), function_at(p.text_address + o.pc).c_str(), reason.c_str(),
                printed.c_str());
  }
}

// ---- executed: the tests' records ------------------------------------------------------------------------------------
std::map<std::string, mnemonics> executed_mnemonics(const std::string& dir) {
  std::map<std::string, mnemonics> out;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(dir, ec)) {
    if (e.path().extension() != ".txt") continue;
    std::ifstream f(e.path());
    std::string arch, m;
    if (!std::getline(f, arch)) continue;
    while (std::getline(f, m))
      if (!m.empty()) out[arch].insert(m);
  }
  if (ec) throw usage_error("cannot read the executed-instruction records in " + dir + ": " + ec.message());
  return out;
}

// ---- the table -----------------------------------------------------------------------------------------------------
// Classes by how the mnemonic is spelled (the encoding families of the guides' chapter 16).
std::string class_of(const std::string& m) {
  const auto starts = [&](const char* p) { return m.rfind(p, 0) == 0; };
  if (starts("s_load") || starts("s_buffer") || starts("s_dcache") || starts("s_prefetch") || starts("s_atc") ||
      starts("s_scratch") || starts("s_store") || starts("s_gl1"))
    return "scalar memory";
  if (starts("s_")) return "scalar ALU, program flow";
  if (starts("v_dual_")) return "dual issue (VOPD halves)";
  if (starts("v_wmma") || starts("v_swmmac")) return "matrix";
  if (starts("v_cmp")) return "vector compares (VOPC)";
  if (starts("v_")) return "vector ALU";
  if (starts("ds_")) return "LDS (DS)";
  if (starts("global_") || starts("flat_") || starts("scratch_")) return "global, flat, scratch";
  if (starts("buffer_") || starts("tbuffer_")) return "buffer";
  if (starts("image_")) return "image";
  return "other";
}

struct audit {
  std::map<std::string, mnemonics> isa, implemented, emitted, executed;
  std::map<std::string, mnemonics> after_trap;  // emitted only where s_trap has stopped the dispatch (add_program)
};

std::string table(const audit& r) {
  std::ostringstream t;
  t << "| arch | class | ISA (LLVM) | implemented | emitted by clang | executed by a test |\n";
  t << "|---|---|---|---|---|---|\n";
  for (const arch_t& a : archs) {
    std::map<std::string, std::array<std::size_t, 4>> rows;
    const auto count = [&](const std::map<std::string, mnemonics>& m, unsigned col) {
      const auto it = m.find(a.name);
      if (it == m.end()) return;
      for (const std::string& x : it->second) ++rows[class_of(x)][col];
    };
    count(r.isa, 0);
    count(r.implemented, 1);
    count(r.emitted, 2);
    count(r.executed, 3);
    std::array<std::size_t, 4> total{};
    for (const auto& [cls, n] : rows) {
      if (n[1] == 0 && n[2] == 0) continue;  // a class the machine does not touch: counted in the total only
      t << "| " << a.name << " | " << cls << " | " << n[0] << " | " << n[1] << " | " << n[2] << " | " << n[3] << " |\n";
    }
    for (const auto& [cls, n] : rows)
      for (unsigned c = 0; c < 4; ++c) total[c] += n[c];
    t << "| " << a.name << " | **all** | " << total[0] << " | " << total[1] << " | " << total[2] << " | " << total[3]
      << " |\n";
  }
  return t.str();
}

// The README's copy of the table sits between these markers; the first names the configuration it is of.
constexpr const char* begin_marker = "<!-- coverage-audit table (tp-amdgpu-sim-coverage-audit --write-readme) of ";
constexpr const char* end_marker = "<!-- end of the coverage-audit table -->";

struct table_place {
  std::size_t marker, start, end;  // the marker line, the table's first byte, one past its last
  std::string config;              // what the marker line names
};
table_place table_span(const std::string& readme, const std::string& path) {
  const auto b = readme.find(begin_marker), e = readme.find(end_marker);
  if (b == std::string::npos || e == std::string::npos || e < b)
    throw usage_error(path + " has no coverage-audit table markers");
  const std::size_t line_end = readme.find('\n', b), config_at = b + std::string(begin_marker).size();
  const std::size_t config_end = readme.rfind(" -->", line_end);
  return {b, line_end + 1, e, readme.substr(config_at, config_end - config_at)};
}

std::vector<std::string> difference(const mnemonics& a, const mnemonics& b) {
  std::vector<std::string> out;
  std::set_difference(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(out));
  return out;
}
mnemonics intersection(const mnemonics& a, const mnemonics& b) {
  mnemonics out;
  std::set_intersection(a.begin(), a.end(), b.begin(), b.end(), std::inserter(out, out.end()));
  return out;
}

bool report(const char* what, const std::string& arch, const std::vector<std::string>& list) {
  if (list.empty()) return true;
  std::printf("FAIL %s: %zu %s:", arch.c_str(), list.size(), what);
  for (const std::string& m : list) std::printf(" %s", m.c_str());
  std::printf("\n");
  return false;
}

int run(int argc, char** argv) {
  std::string executed_dir, readme, write_readme, config;
  std::vector<std::string> objects;
  if (argc >= 3 && std::string(argv[1]) == "--unexecutable") {
    for (int i = 2; i < argc; ++i) print_unexecutable(argv[i]);
    return 0;
  }
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const bool value = i + 1 < argc;
    if (a == "--executed" && value) executed_dir = argv[++i];
    else if (a == "--readme" && value) readme = argv[++i];
    else if (a == "--write-readme" && value) write_readme = argv[++i];
    else if (a == "--config" && value) config = argv[++i];
    else if (a.rfind("--", 0) == 0) throw usage_error("unknown option " + a);
    else objects.push_back(a);
  }
  if (executed_dir.empty() || objects.empty() || ((!readme.empty() || !write_readme.empty()) && config.empty()))
    throw usage_error("usage: tp-amdgpu-sim-coverage-audit --executed DIR [--config TEXT (--readme FILE | "
                      "--write-readme FILE)] HIP_OBJECT... | --unexecutable CODE_OBJECT...");
  audit r;
  for (const arch_t& a : archs) {
    r.isa[a.name] = isa_mnemonics(a);
    r.implemented[a.name] = implemented_mnemonics(a);
  }
  for (const std::string& o : objects) emitted_from_object(o, r.emitted, r.after_trap);
  // Executed counts what is declared: an instruction a test runs into to see the dispatch stop (s_getreg_b32) is not.
  for (auto& [arch, ran] : executed_mnemonics(executed_dir)) r.executed[arch] = intersection(ran, r.implemented[arch]);

  bool ok = true;
  for (const arch_t& a : archs) {
    const std::vector<std::string> unreached = difference(r.after_trap[a.name], r.emitted[a.name]);
    if (!unreached.empty()) {
      std::printf("note %s: emitted only after an s_trap, which stops the dispatch (not counted):", a.name.c_str());
      for (const std::string& m : unreached) std::printf(" %s", m.c_str());
      std::printf("\n");
    }
    ok &= report("mnemonics clang emitted without a declaration", a.name,
                 difference(r.emitted[a.name], r.implemented[a.name]));
    ok &= report("declared mnemonics no test executed", a.name, difference(r.implemented[a.name], r.executed[a.name]));
    ok &= report("declared spellings LLVM does not have for the arch", a.name,
                 difference(r.implemented[a.name], r.isa[a.name]));
  }
  const std::string t = table(r);
  std::printf("%s", t.c_str());
  std::printf("%s\n", ok ? "coverage audit: every rule holds" : "coverage audit: FAILED");
  if (!write_readme.empty()) {
    const auto bytes = read_bytes(write_readme);
    std::string text(bytes.begin(), bytes.end());
    const table_place p = table_span(text, write_readme);
    text.replace(p.marker, p.end - p.marker, std::string(begin_marker) + config + " -->\n" + t);
    std::ofstream(write_readme, std::ios::trunc) << text;
  } else if (!readme.empty()) {
    const auto bytes = read_bytes(readme);
    const std::string text(bytes.begin(), bytes.end());
    const table_place p = table_span(text, readme);
    if (p.config != config) {
      std::printf("the table in %s is of %s, this build is %s: not compared\n", readme.c_str(), p.config.c_str(),
                  config.c_str());
      return ok ? 77 : 1;
    }
    if (text.substr(p.start, p.end - p.start) != t) {
      std::printf("FAIL the table in %s is not this one: rerun with --write-readme\n", readme.c_str());
      ok = false;
    }
  }
  return ok ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const usage_error& e) {
    std::fprintf(stderr, "tp-amdgpu-sim-coverage-audit: %s\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "tp-amdgpu-sim-coverage-audit: %s\n", e.what());
    return 2;
  }
}
