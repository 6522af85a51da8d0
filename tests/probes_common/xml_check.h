// A minimal XML 1.0 well-formedness checker for the JUnit report: one root element, properly nested and matching
// tags, quoted attributes without duplicates, only the five predefined entities or numeric references, no raw '<'
// or '&' in text, comments and the XML declaration skipped. Returns the first problem, or empty when well-formed.
#pragma once

#include <cctype>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace xmlcheck {

struct element {
  std::string name;
  std::map<std::string, std::string> attrs;
  std::vector<element> children;
  std::string text;
};

class parser {
 public:
  explicit parser(std::string_view s) : s_(s) {}

  std::string check(element* root_out = nullptr) {
    skip_ws();
    if (s_.substr(i_, 5) == "<?xml") {
      const auto end = s_.find("?>", i_);
      if (end == s_.npos) return "unterminated XML declaration";
      i_ = end + 2;
    }
    skip_misc();
    element root;
    if (auto e = parse_element(root); !e.empty()) return e;
    skip_misc();
    if (i_ != s_.size()) return "content after the root element at offset " + std::to_string(i_);
    if (root_out) *root_out = std::move(root);
    return {};
  }

 private:
  std::string_view s_;
  std::size_t i_ = 0;

  void skip_ws() {
    while (i_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[i_]))) ++i_;
  }
  void skip_misc() {
    for (;;) {
      skip_ws();
      if (s_.substr(i_, 4) == "<!--") {
        const auto end = s_.find("-->", i_);
        if (end == s_.npos) return;
        i_ = end + 3;
      } else {
        return;
      }
    }
  }
  static bool name_char(char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.' || c == ':';
  }
  std::string parse_name() {
    const auto start = i_;
    if (i_ < s_.size() && (std::isalpha(static_cast<unsigned char>(s_[i_])) || s_[i_] == '_' || s_[i_] == ':'))
      while (i_ < s_.size() && name_char(s_[i_])) ++i_;
    return std::string(s_.substr(start, i_ - start));
  }
  std::string check_text(std::string_view t, std::string* decoded) {
    for (std::size_t k = 0; k < t.size(); ++k) {
      if (t[k] == '<') return "raw '<' in text";
      if (t[k] == '&') {
        const auto semi = t.find(';', k);
        if (semi == t.npos) return "unterminated entity";
        const auto ent = t.substr(k + 1, semi - k - 1);
        static const std::map<std::string_view, char> named{
            {"amp", '&'}, {"lt", '<'}, {"gt", '>'}, {"quot", '"'}, {"apos", '\''}};
        if (auto it = named.find(ent); it != named.end()) {
          if (decoded) *decoded += it->second;
        } else if (ent.size() > 1 && ent[0] == '#') {
          if (decoded) *decoded += '?';
        } else {
          return "unknown entity &" + std::string(ent) + ";";
        }
        k = semi;
      } else if (decoded) {
        *decoded += t[k];
      }
    }
    return {};
  }
  std::string parse_element(element& el) {
    if (i_ >= s_.size() || s_[i_] != '<') return "expected '<' at offset " + std::to_string(i_);
    ++i_;
    el.name = parse_name();
    if (el.name.empty()) return "bad element name at offset " + std::to_string(i_);
    for (;;) {
      const auto before = i_;
      skip_ws();
      if (i_ >= s_.size()) return "unterminated start tag <" + el.name;
      if (s_.substr(i_, 2) == "/>") {
        i_ += 2;
        return {};
      }
      if (s_[i_] == '>') {
        ++i_;
        break;
      }
      if (before == i_) return "missing space before attribute in <" + el.name;
      const auto an = parse_name();
      if (an.empty()) return "bad attribute name in <" + el.name;
      skip_ws();
      if (i_ >= s_.size() || s_[i_] != '=') return "attribute " + an + " without '='";
      ++i_;
      skip_ws();
      if (i_ >= s_.size() || (s_[i_] != '"' && s_[i_] != '\'')) return "unquoted attribute " + an;
      const char q = s_[i_++];
      const auto end = s_.find(q, i_);
      if (end == s_.npos) return "unterminated attribute " + an;
      std::string value;
      if (auto e = check_text(s_.substr(i_, end - i_), &value); !e.empty()) return "attribute " + an + ": " + e;
      if (!el.attrs.emplace(an, value).second) return "duplicate attribute " + an + " in <" + el.name;
      i_ = end + 1;
    }
    for (;;) {
      const auto lt = s_.find('<', i_);
      if (lt == s_.npos) return "unterminated element <" + el.name;
      if (auto e = check_text(s_.substr(i_, lt - i_), &el.text); !e.empty()) return e + " in <" + el.name;
      i_ = lt;
      if (s_.substr(i_, 4) == "<!--") {
        const auto end = s_.find("-->", i_);
        if (end == s_.npos) return "unterminated comment";
        i_ = end + 3;
        continue;
      }
      if (s_.substr(i_, 2) == "</") {
        i_ += 2;
        const auto closing = parse_name();
        skip_ws();
        if (closing != el.name) return "</" + closing + "> closes <" + el.name + ">";
        if (i_ >= s_.size() || s_[i_] != '>') return "bad end tag </" + closing;
        ++i_;
        return {};
      }
      element child;
      if (auto e = parse_element(child); !e.empty()) return e;
      el.children.push_back(std::move(child));
    }
  }
};

inline std::string well_formed(std::string_view doc, element* root = nullptr) { return parser(doc).check(root); }

}  // namespace xmlcheck
