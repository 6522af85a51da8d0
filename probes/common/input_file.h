// `tileprobe-input v1`: the text format every probe's --input reads (probes/common/README.md, "Input files").
//
//   tileprobe-input v1          <- line 1, exactly (the version: a later format gets a new number)
//   probe ck-phantom-fallback   <- the first record: the probe the file is for
//   # comment                   <- '#' to the end of a line is a comment anywhere; blank lines are ignored
//   dtype int8                  <- the probe's own records: a key and whitespace-separated values
//
// This part tokenizes and validates the envelope (header, probe line, characters, sizes) and gives the probe typed
// access to its records with their line numbers; each probe defines and documents its body. Every problem is a
// usage_error "FILE:LINE: what" (exit 2, nothing run). The reader is fuzzed (tests/fuzz): it must reject any byte
// string with a usage_error and nothing else.
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace tp::probe {

inline constexpr std::string_view input_header = "tileprobe-input v1";
// Envelope limits: a 16 x 256 tile with its B is ~300 lines of ~1.5 KB; these leave room and bound the work.
inline constexpr std::size_t input_max_bytes = 4u << 20, input_max_line = 16u << 10, input_max_values = 4096;

// One record: a line's key and values, and where it stands.
class input_record {
 public:
  input_record(std::string file, unsigned line, std::string key, std::vector<std::string> values);

  const std::string& key() const { return key_; }
  unsigned line() const { return line_; }
  std::size_t size() const { return values_.size(); }
  const std::vector<std::string>& values() const { return values_; }

  // Throws usage_error "FILE:LINE: what".
  [[noreturn]] void fail(std::string_view what) const;
  // Exactly n values / at least n values, else fail naming the key and the count.
  const input_record& expect_size(std::size_t n) const;
  const input_record& expect_at_least(std::size_t n) const;

  // Typed values (index i, 0-based, after the key); fail with the value and the allowed range.
  std::string_view word(std::size_t i) const;
  std::int64_t integer(std::size_t i, std::int64_t lo, std::int64_t hi) const;  // decimal, or 0x-hex >= 0
  double number(std::size_t i) const;                                            // finite decimal
  std::uint64_t seed(std::size_t i) const;                                       // decimal or 0x-hex, 64-bit
  // The index of the value among `choices`, failing with the list.
  std::size_t choice(std::size_t i, std::initializer_list<std::string_view> choices) const;

 private:
  std::string file_;
  unsigned line_;
  std::string key_;
  std::vector<std::string> values_;
};

// The --input path that reads standard input (messages and input_label name it "stdin").
inline constexpr std::string_view input_stdin = "-";

class input_file {
 public:
  // Reads and checks the envelope: the header, then `probe NAME` naming `probe` (a file for another probe is refused).
  // `path` input_stdin reads standard input.
  static input_file read(const std::string& path, std::string_view probe);
  // The same on text in memory; `name` stands for the file in messages (tests and the fuzz target use it).
  static input_file parse(std::string_view text, const std::string& name, std::string_view probe);

  const std::string& name() const { return name_; }
  const std::string& probe() const { return probe_; }
  std::span<const input_record> records() const { return records_; }  // the body, after the probe line

  // Sequential reading of the body.
  bool at_end() const { return next_ == records_.size(); }
  const input_record* peek() const { return at_end() ? nullptr : &records_[next_]; }
  // The next record, which must have `key` (else fail at it, or at the end of the file).
  const input_record& next(std::string_view key);
  // The next record if it has `key`.
  const input_record* next_if(std::string_view key);
  // Fail at the first record not read ("unexpected record 'x'").
  void expect_end() const;
  // Throws usage_error "FILE:LINE: what" for the line after the last (a record that is missing).
  [[noreturn]] void fail_at_end(std::string_view what) const;

 private:
  std::string name_, probe_;
  std::vector<input_record> records_;
  std::size_t next_ = 0;
  unsigned last_line_ = 0;
};

// "input:NAME": how a case read from the file at `path` names its source in its id (standard input: "stdin"). NAME is
// the file's name with every character other than letters, digits, '.', '-' and '_' made '_' (nothing that would
// split an id or trip a shell), at most 48 of them ("file" when empty).
std::string input_label(const std::string& path);

// Writes a file in the same format: the header and probe line, then records. Values must be single tokens (no
// whitespace, no '#'); a violation is a probe defect (std::logic_error).
class input_writer {
 public:
  explicit input_writer(std::string_view probe);
  input_writer& comment(std::string_view text);  // one "# text" line per line of text
  input_writer& record(std::string_view key, std::initializer_list<std::string_view> values);
  input_writer& record(std::string_view key, const std::vector<std::string>& values);
  const std::string& str() const { return text_; }

 private:
  std::string text_;
};

}  // namespace tp::probe
