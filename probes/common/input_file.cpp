#include "probes/common/input_file.h"

#include <charconv>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <stdexcept>

#include "probes/common/case.h"

namespace tp::probe {

namespace {
std::string where(const std::string& file, unsigned line) { return file + ":" + std::to_string(line) + ": "; }

bool is_space(char c) { return c == ' ' || c == '\t'; }

// A value as it appears in a message: cut, so a hostile 16 KB token does not become a 16 KB line.
std::string shown(std::string_view v) {
  return v.size() <= 40 ? std::string(v) : std::string(v.substr(0, 37)) + "...";
}

bool valid_key(std::string_view k) {
  if (k.empty() || k.size() > 32 || !(k[0] >= 'a' && k[0] <= 'z')) return false;
  for (char c : k)
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-')) return false;
  return true;
}
}  // namespace

input_record::input_record(std::string file, unsigned line, std::string key, std::vector<std::string> values)
    : file_(std::move(file)), line_(line), key_(std::move(key)), values_(std::move(values)) {}

void input_record::fail(std::string_view what) const { throw usage_error(where(file_, line_) + std::string(what)); }

const input_record& input_record::expect_size(std::size_t n) const {
  if (values_.size() != n)
    fail("'" + key_ + "' takes " + std::to_string(n) + " value" + (n == 1 ? "" : "s") + ", got " +
         std::to_string(values_.size()));
  return *this;
}

const input_record& input_record::expect_at_least(std::size_t n) const {
  if (values_.size() < n)
    fail("'" + key_ + "' takes at least " + std::to_string(n) + " value" + (n == 1 ? "" : "s") + ", got " +
         std::to_string(values_.size()));
  return *this;
}

std::string_view input_record::word(std::size_t i) const {
  if (i >= values_.size()) fail("'" + key_ + "' is missing value " + std::to_string(i + 1));
  return values_[i];
}

std::int64_t input_record::integer(std::size_t i, std::int64_t lo, std::int64_t hi) const {
  const std::string_view s = word(i);
  std::int64_t v = 0;
  bool ok = false;
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
    std::uint64_t u = 0;
    const auto r = std::from_chars(s.data() + 2, s.data() + s.size(), u, 16);
    ok = r.ec == std::errc() && r.ptr == s.data() + s.size() && u <= std::uint64_t(INT64_MAX);
    v = std::int64_t(u);
  } else {
    const auto r = std::from_chars(s.data(), s.data() + s.size(), v);
    ok = r.ec == std::errc() && r.ptr == s.data() + s.size();
  }
  const std::string what = "'" + key_ + "' value " + std::to_string(i + 1) + " '" + shown(s) + "'";
  if (!ok) fail(what + " is not an integer");
  if (v < lo || v > hi) fail(what + " is out of range " + std::to_string(lo) + ".." + std::to_string(hi));
  return v;
}

double input_record::number(std::size_t i) const {
  const std::string_view s = word(i);
  double v = 0;
  const auto r = std::from_chars(s.data(), s.data() + s.size(), v);
  if (r.ec != std::errc() || r.ptr != s.data() + s.size() || !std::isfinite(v))
    fail("'" + key_ + "' value " + std::to_string(i + 1) + " '" + shown(s) + "' is not a finite decimal number");
  return v;
}

std::uint64_t input_record::seed(std::size_t i) const {
  const std::string_view s = word(i);
  const auto v = parse_seed(s);
  if (!v) fail("'" + key_ + "' value " + std::to_string(i + 1) + " '" + shown(s) + "' is not a 64-bit decimal or 0x-hex number");
  return *v;
}

std::size_t input_record::choice(std::size_t i, std::initializer_list<std::string_view> choices) const {
  const std::string_view s = word(i);
  std::size_t n = 0;
  std::string list;
  for (auto c : choices) {
    if (c == s) return n;
    list += (n++ ? ", " : "") + std::string(c);
  }
  fail("'" + key_ + "' value '" + shown(s) + "' is not one of " + list);
}

input_file input_file::read(const std::string& path, std::string_view probe) {
  // "-" is standard input: a reader pastes a counterexample's text from a report into `--input - <<'EOF'`.
  const bool from_stdin = path == input_stdin;
  std::error_code ec;
  if (!from_stdin && !std::filesystem::is_regular_file(path, ec))
    throw usage_error("--input '" + path + "': cannot open the file (not a regular file)");
  std::ifstream file;
  if (!from_stdin) file.open(path, std::ios::binary);
  std::istream& in = from_stdin ? std::cin : file;
  if (!in) throw usage_error("--input '" + path + "': cannot open the file");
  std::string text(input_max_bytes + 1, '\0');
  in.read(text.data(), std::streamsize(text.size()));
  if (in.bad()) throw usage_error("--input '" + path + "': cannot read the file");
  text.resize(std::size_t(in.gcount()));
  const std::string name = from_stdin ? "stdin" : path;
  if (text.size() > input_max_bytes)
    throw usage_error(name + ": larger than " + std::to_string(input_max_bytes >> 20) + " MiB, not an input file");
  return parse(text, name, probe);
}

input_file input_file::parse(std::string_view text, const std::string& name, std::string_view probe) {
  input_file f;
  f.name_ = name;
  if (text.size() > input_max_bytes)
    throw usage_error(name + ": larger than " + std::to_string(input_max_bytes >> 20) + " MiB, not an input file");
  unsigned line_no = 0;
  bool header_seen = false, probe_seen = false;
  std::size_t pos = 0;
  while (pos < text.size() || !header_seen) {
    const std::size_t nl = text.find('\n', pos);
    std::string_view line = text.substr(pos, nl == std::string_view::npos ? std::string_view::npos : nl - pos);
    pos = nl == std::string_view::npos ? text.size() : nl + 1;
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.size() > input_max_line)
      throw usage_error(where(name, line_no) + "line longer than " + std::to_string(input_max_line) + " characters");
    // Only printable ASCII and tabs outside comments; a comment may hold anything but control characters.
    const std::size_t hash = line.find('#');
    for (std::size_t i = 0; i < line.size(); ++i) {
      const unsigned char c = static_cast<unsigned char>(line[i]);
      const bool control = (c < 0x20 && c != '\t') || c == 0x7f;
      if (control || (c >= 0x80 && i < hash))
        throw usage_error(where(name, line_no) + "character 0x" + "0123456789abcdef"[c >> 4] +
                          "0123456789abcdef"[c & 15] + " at column " + std::to_string(i + 1) +
                          (control ? " (a control character)" : " (only ASCII outside comments)"));
    }
    if (!header_seen) {
      std::string_view h = line;
      while (!h.empty() && is_space(h.back())) h.remove_suffix(1);
      if (h != input_header) {
        if (h.rfind("tileprobe-input ", 0) == 0)
          throw usage_error(where(name, line_no) + "format '" + shown(h) + "' is not supported (this build reads '" +
                            std::string(input_header) + "')");
        throw usage_error(where(name, line_no) + "not a tileprobe input file: line 1 must be '" +
                          std::string(input_header) + "'");
      }
      header_seen = true;
      continue;
    }
    if (hash != std::string_view::npos) line = line.substr(0, hash);
    std::vector<std::string> tokens;
    for (std::size_t i = 0; i < line.size();) {
      while (i < line.size() && is_space(line[i])) ++i;
      const std::size_t start = i;
      while (i < line.size() && !is_space(line[i])) ++i;
      if (i > start) {
        if (tokens.size() > input_max_values)
          throw usage_error(where(name, line_no) + "more than " + std::to_string(input_max_values) + " values");
        tokens.emplace_back(line.substr(start, i - start));
      }
    }
    if (tokens.empty()) continue;
    if (!valid_key(tokens[0]))
      throw usage_error(where(name, line_no) + "'" + shown(tokens[0]) +
                        "' is not a record key (a lower-case word: letters, digits, '_', '-')");
    std::string key = std::move(tokens[0]);
    tokens.erase(tokens.begin());
    input_record rec(name, line_no, std::move(key), std::move(tokens));
    if (!probe_seen) {
      if (rec.key() != "probe") rec.fail("the first record must be 'probe NAME' (the probe this file is for)");
      rec.expect_size(1);
      if (rec.word(0) != probe)
        rec.fail("this file is for probe '" + shown(rec.word(0)) + "', not " + std::string(probe));
      f.probe_ = rec.word(0);
      probe_seen = true;
      continue;
    }
    f.records_.push_back(std::move(rec));
  }
  if (!probe_seen) throw usage_error(where(name, line_no + 1) + "missing the 'probe NAME' record after the header");
  f.last_line_ = line_no;
  return f;
}

const input_record& input_file::next(std::string_view key) {
  if (at_end()) fail_at_end("missing '" + std::string(key) + "' record");
  const input_record& r = records_[next_];
  if (r.key() != key) r.fail("expected a '" + std::string(key) + "' record here, found '" + r.key() + "'");
  ++next_;
  return r;
}

const input_record* input_file::next_if(std::string_view key) {
  if (at_end() || records_[next_].key() != key) return nullptr;
  return &records_[next_++];
}

void input_file::expect_end() const {
  if (!at_end()) records_[next_].fail("unexpected record '" + records_[next_].key() + "' (the case is complete)");
}

void input_file::fail_at_end(std::string_view what) const {
  throw usage_error(where(name_, last_line_ + 1) + std::string(what) + " (end of file)");
}

namespace {
void check_token(std::string_view t) {
  if (t.empty() || t.find_first_of(" \t\r\n#") != std::string_view::npos)
    throw std::logic_error("input_writer: '" + std::string(t) + "' is not a single token");
}
}  // namespace

input_writer::input_writer(std::string_view probe) {
  check_token(probe);
  text_ = std::string(input_header) + "\nprobe " + std::string(probe) + "\n";
}

input_writer& input_writer::comment(std::string_view text) {
  std::size_t start = 0;
  while (start <= text.size()) {
    const auto nl = text.find('\n', start);
    const std::string_view line = text.substr(start, nl == std::string_view::npos ? std::string_view::npos : nl - start);
    text_ += line.empty() ? "#\n" : "# " + std::string(line) + "\n";
    if (nl == std::string_view::npos) break;
    start = nl + 1;
  }
  return *this;
}

input_writer& input_writer::record(std::string_view key, std::initializer_list<std::string_view> values) {
  return record(key, std::vector<std::string>(values.begin(), values.end()));
}

input_writer& input_writer::record(std::string_view key, const std::vector<std::string>& values) {
  if (!valid_key(key)) throw std::logic_error("input_writer: '" + std::string(key) + "' is not a record key");
  text_ += key;
  for (const auto& v : values) {
    check_token(v);
    text_ += ' ';
    text_ += v;
  }
  text_ += '\n';
  return *this;
}

std::string input_label(const std::string& path) {
  std::string s = path == input_stdin ? "stdin" : std::filesystem::path(path).filename().string();
  for (char& c : s)
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '-' || c == '_'))
      c = '_';
  if (s.size() > 48) s.resize(48);
  return "input:" + (s.empty() ? std::string("file") : s);
}

}  // namespace tp::probe
