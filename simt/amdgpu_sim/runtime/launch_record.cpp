#include "simt/amdgpu_sim/runtime/launch_record.h"

#include <array>
#include <fstream>
#include <iterator>

#include <llvm/Object/ELFObjectFile.h>
#include <llvm/Support/SHA256.h>
#include <nlohmann/json.hpp>

#include "simt/amdgpu_sim/runtime/offload_bundle.h"

namespace tp::amdgpu_sim::record {
namespace {

using json = nlohmann::json;

constexpr const char* launch_magic = "tileprobe-launch 1";
constexpr const char* result_magic = "tileprobe-result 1";

const std::array<std::pair<wave_schedule, const char*>, 4> schedule_names{{{wave_schedule::in_order, "in_order"},
                                                                           {wave_schedule::reverse, "reverse"},
                                                                           {wave_schedule::random, "random"},
                                                                           {wave_schedule::adversarial, "adversarial"}}};

wave_schedule schedule_of(const std::string& s) {
  for (const auto& [v, name] : schedule_names)
    if (s == name) return v;
  throw sim_error("launch record: unknown wave schedule '" + s + "'");
}

json dims(const dim3u& d) { return json::array({d.x, d.y, d.z}); }
dim3u dims(const json& j) { return {j.at(0).get<uint32_t>(), j.at(1).get<uint32_t>(), j.at(2).get<uint32_t>()}; }

// magic line, JSON line, blobs.
std::vector<uint8_t> assemble(const char* magic, const json& header, const std::vector<std::span<const uint8_t>>& blobs) {
  const std::string head = std::string(magic) + "\n" + header.dump() + "\n";
  std::vector<uint8_t> out(head.begin(), head.end());
  for (const auto& b : blobs) out.insert(out.end(), b.begin(), b.end());
  return out;
}

struct parsed {
  json header;
  std::span<const uint8_t> blobs;
};
parsed split(std::span<const uint8_t> file, const char* magic) {
  const std::string_view text(reinterpret_cast<const char*>(file.data()), file.size());
  const std::size_t l1 = text.find('\n');
  if (l1 == std::string_view::npos || text.substr(0, l1) != magic)
    throw sim_error(std::string("launch record: not a '") + magic + "' file");
  const std::size_t l2 = text.find('\n', l1 + 1);
  if (l2 == std::string_view::npos) throw sim_error("launch record: no header line");
  parsed p;
  try {
    p.header = json::parse(text.substr(l1 + 1, l2 - l1 - 1));
  } catch (const json::exception& e) {
    throw sim_error(std::string("launch record: header: ") + e.what());
  }
  p.blobs = file.subspan(l2 + 1);
  return p;
}

// Consumes `n` bytes of the blob area; throws when it is shorter.
std::vector<uint8_t> take(std::span<const uint8_t>& blobs, uint64_t n, const std::string& what) {
  if (n > blobs.size())
    throw sim_error("launch record: " + what + " needs " + std::to_string(n) + " bytes, " +
                    std::to_string(blobs.size()) + " remain");
  std::vector<uint8_t> v(blobs.begin(), blobs.begin() + std::ptrdiff_t(n));
  blobs = blobs.subspan(n);
  return v;
}

}  // namespace

const char* to_string(wave_schedule s) {
  for (const auto& [v, name] : schedule_names)
    if (s == v) return name;
  return "?";
}

std::vector<uint8_t> encode(const launch& l) {
  json h;
  h["arch"] = l.arch;
  h["kernel"] = l.kernel;
  h["code_object"] = l.code_object;
  h["grid_blocks"] = dims(l.grid_blocks);
  h["block_threads"] = dims(l.block_threads);
  h["dynamic_lds_bytes"] = l.dynamic_lds_bytes;
  h["schedule"] = to_string(l.schedule);
  h["schedule_seed"] = l.schedule_seed;
  h["kernarg_bytes"] = l.kernarg.size();
  json rel = json::array();
  for (const auto& r : l.relocations) rel.push_back({r.kernarg_offset, r.buffer, r.delta});
  h["relocations"] = rel;
  json sizes = json::array();
  std::vector<std::span<const uint8_t>> blobs{l.kernarg};
  for (const auto& b : l.buffers) {
    sizes.push_back(b.size());
    blobs.emplace_back(b);
  }
  h["buffer_bytes"] = sizes;
  // Only where a buffer holds addresses: the launches without any keep the encoding (and id) they had before.
  if (!l.buffer_relocations.empty()) {
    json brel = json::array();
    for (const auto& r : l.buffer_relocations) brel.push_back({r.holder, r.offset, r.buffer, r.delta});
    h["buffer_relocations"] = brel;
  }
  return assemble(launch_magic, h, blobs);
}

launch decode_launch(std::span<const uint8_t> file) {
  auto [h, blobs] = split(file, launch_magic);
  launch l;
  try {
    l.arch = h.at("arch");
    l.kernel = h.at("kernel");
    l.code_object = h.at("code_object");
    l.grid_blocks = dims(h.at("grid_blocks"));
    l.block_threads = dims(h.at("block_threads"));
    l.dynamic_lds_bytes = h.at("dynamic_lds_bytes");
    l.schedule = schedule_of(h.at("schedule"));
    l.schedule_seed = h.at("schedule_seed");
    l.kernarg = take(blobs, h.at("kernarg_bytes").get<uint64_t>(), "the kernarg segment");
    for (const auto& s : h.at("buffer_bytes"))
      l.buffers.push_back(take(blobs, s.get<uint64_t>(), "buffer " + std::to_string(l.buffers.size())));
    for (const auto& r : h.at("relocations")) {
      relocation x{r.at(0), r.at(1), r.at(2)};
      if (x.buffer >= l.buffers.size() || uint64_t(x.kernarg_offset) + 8 > l.kernarg.size())
        throw sim_error("launch record: relocation at kernarg offset " + std::to_string(x.kernarg_offset) +
                        " names buffer " + std::to_string(x.buffer) + " or a word outside the segment");
      l.relocations.push_back(x);
    }
    if (h.contains("buffer_relocations"))
      for (const auto& r : h.at("buffer_relocations")) {
        buffer_relocation x{r.at(0), r.at(1), r.at(2), r.at(3)};
        if (x.holder >= l.buffers.size() || x.buffer >= l.buffers.size() || x.offset % 8 != 0 ||
            x.offset + 8 > l.buffers[x.holder].size())
          throw sim_error("launch record: buffer relocation at offset " + std::to_string(x.offset) + " of buffer " +
                          std::to_string(x.holder) + " names buffer " + std::to_string(x.buffer) +
                          ", an unaligned word or a word outside the buffer");
        l.buffer_relocations.push_back(x);
      }
  } catch (const json::exception& e) {
    throw sim_error(std::string("launch record: header: ") + e.what());
  }
  if (!blobs.empty()) throw sim_error("launch record: " + std::to_string(blobs.size()) + " bytes after the last buffer");
  return l;
}

std::vector<uint8_t> encode(const result& r) {
  json h;
  h["executor"] = r.executor;
  h["launch"] = r.launch_id;
  json bufs = json::array();
  std::vector<std::span<const uint8_t>> blobs;
  for (const auto& b : r.buffers) {
    bufs.push_back({{"bytes", b.size}, {"sha256", b.sha256}, {"stored", b.bytes.has_value()}});
    if (b.bytes) blobs.emplace_back(*b.bytes);
  }
  h["buffers"] = bufs;
  return assemble(result_magic, h, blobs);
}

result decode_result(std::span<const uint8_t> file) {
  auto [h, blobs] = split(file, result_magic);
  result r;
  try {
    r.executor = h.at("executor");
    r.launch_id = h.at("launch");
    for (const auto& b : h.at("buffers")) {
      buffer_result x;
      x.size = b.at("bytes");
      x.sha256 = b.at("sha256");
      if (b.at("stored").get<bool>()) x.bytes = take(blobs, x.size, "stored buffer " + std::to_string(r.buffers.size()));
      r.buffers.push_back(std::move(x));
    }
  } catch (const json::exception& e) {
    throw sim_error(std::string("result record: header: ") + e.what());
  }
  if (!blobs.empty()) throw sim_error("result record: " + std::to_string(blobs.size()) + " bytes after the last buffer");
  return r;
}

buffer_result summarize(std::span<const uint8_t> final_bytes) {
  buffer_result b;
  b.size = final_bytes.size();
  b.sha256 = sha256_hex(final_bytes);
  if (b.size <= stored_bytes_limit) b.bytes.emplace(final_bytes.begin(), final_bytes.end());
  return b;
}

std::string sha256_hex(std::span<const uint8_t> bytes) {
  const auto digest = llvm::SHA256::hash(llvm::ArrayRef<uint8_t>(bytes.data(), bytes.size()));
  static const char* const hexdigits = "0123456789abcdef";
  std::string s;
  for (uint8_t v : digest) {
    s += hexdigits[v >> 4];
    s += hexdigits[v & 15];
  }
  return s;
}

std::string launch_id(std::span<const uint8_t> encoded_launch) { return sha256_hex(encoded_launch).substr(0, 16); }

namespace {
// .text and the bytes of <kernel>.kd, read through LLVM's ELF reader (the code object is ELF64 little-endian).
struct text_and_descriptors {
  llvm::StringRef text;
  std::map<std::string, llvm::StringRef> descriptors;  // kernel -> its 64 bytes
};
text_and_descriptors read_text_and_descriptors(std::span<const uint8_t> elf) {
  llvm::MemoryBufferRef ref(llvm::StringRef(reinterpret_cast<const char*>(elf.data()), elf.size()), "code object");
  auto obj = llvm::object::ELF64LEObjectFile::create(ref);
  if (!obj) throw sim_error("code object key: not an ELF64 code object: " + llvm::toString(obj.takeError()));
  text_and_descriptors out;
  for (const auto& s : obj->sections()) {
    auto name = s.getName();
    if (name && *name == ".text") {
      auto c = s.getContents();
      if (c) out.text = *c;
    }
  }
  for (const auto& sym : obj->symbols()) {
    auto name = sym.getName();
    if (!name || !name->ends_with(".kd")) continue;
    auto sec = sym.getSection();
    auto addr = sym.getAddress();
    if (!sec || !addr || *sec == obj->section_end()) continue;
    auto contents = (*sec)->getContents();
    if (!contents) continue;
    const uint64_t off = *addr - (*sec)->getAddress();
    if (off + 64 > contents->size()) continue;
    out.descriptors[name->drop_back(3).str()] = contents->substr(off, 64);
  }
  if (out.text.empty()) throw sim_error("code object key: the code object has no .text");
  return out;
}
std::string key_of(const text_and_descriptors& t, const std::string& kernel) {
  const auto kd = t.descriptors.find(kernel);
  if (kd == t.descriptors.end()) throw sim_error("code object key: no kernel descriptor " + kernel + ".kd");
  llvm::SHA256 h;
  h.update(t.text);
  h.update(kd->second);
  const auto digest = h.final();
  return sha256_hex(std::span<const uint8_t>(digest.data(), digest.size()));
}
}  // namespace

std::string code_object_key(std::span<const uint8_t> elf, const std::string& kernel) {
  return key_of(read_text_and_descriptors(elf), kernel);
}

std::map<std::string, std::string> code_object_keys(std::span<const uint8_t> elf) {
  const auto t = read_text_and_descriptors(elf);
  std::map<std::string, std::string> keys;
  for (const auto& [kernel, kd] : t.descriptors) keys[kernel] = key_of(t, kernel);
  return keys;
}

std::vector<std::vector<uint8_t>> hip_code_objects(const std::string& path, const std::string& arch) {
  const std::vector<uint8_t> bytes = read_file(path);
  llvm::MemoryBufferRef ref(llvm::StringRef(reinterpret_cast<const char*>(bytes.data()), bytes.size()), path);
  auto obj = llvm::object::ObjectFile::createObjectFile(ref);
  if (!obj) throw sim_error(path + ": not an object file: " + llvm::toString(obj.takeError()));
  std::vector<std::vector<uint8_t>> out;
  for (const llvm::object::SectionRef& s : (*obj)->sections()) {
    auto name = s.getName();
    if (!name || *name != ".hip_fatbin") continue;
    auto contents = s.getContents();
    if (!contents) throw sim_error(path + ": unreadable .hip_fatbin");
    const auto* start = reinterpret_cast<const uint8_t*>(contents->data());
    const auto code = find_code_object(parse_offload_bundle(offload_bundle_extent(start)), arch);
    if (!code.empty()) out.emplace_back(code.begin(), code.end());
  }
  return out;
}

std::vector<uint8_t> read_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw sim_error("cannot read " + path);
  return {std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
}

void write_file(const std::string& path, std::span<const uint8_t> bytes) {
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  f.write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
  if (!f) throw sim_error("cannot write " + path);
}

uint64_t word_at(std::span<const uint8_t> bytes, uint64_t at) {
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v |= uint64_t(bytes[at + i]) << (8 * i);
  return v;
}
void set_word(std::span<uint8_t> bytes, uint64_t at, uint64_t v) {
  for (int i = 0; i < 8; ++i) bytes[at + i] = uint8_t(v >> (8 * i));
}

std::vector<uint8_t> relocated_kernarg(const launch& l, std::span<const uint64_t> addresses) {
  std::vector<uint8_t> seg = l.kernarg;
  for (const auto& r : l.relocations) set_word(seg, r.kernarg_offset, addresses[r.buffer] + r.delta);
  return seg;
}

std::vector<uint8_t> relocated_buffer(const launch& l, uint32_t holder, std::span<const uint64_t> addresses) {
  std::vector<uint8_t> b = l.buffers.at(holder);
  for (const auto& r : l.buffer_relocations)
    if (r.holder == holder) set_word(b, r.offset, addresses[r.buffer] + r.delta);
  return b;
}

void canonicalize_buffer(const launch& l, uint32_t holder, std::span<const uint64_t> addresses,
                         std::span<uint8_t> final_bytes) {
  for (const auto& r : l.buffer_relocations)
    if (r.holder == holder && r.offset + 8 <= final_bytes.size() &&
        word_at(final_bytes, r.offset) == addresses[r.buffer] + r.delta)
      set_word(final_bytes, r.offset, canonical_address(r.buffer) + r.delta);
}

}  // namespace tp::amdgpu_sim::record
