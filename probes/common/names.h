// The names of the report model's enums (source kinds, on-buggy demands, expectations, roles, report formats). Beside
// each enum, `names_of(E)` (found by argument-dependent lookup) gives its values' names in declaration order,
// separated by spaces; every value prints through it and every name parses through it, so printing and reading a
// report or a command line cannot drift apart, and a name it does not hold is the caller's error to report, never a
// default value. The enums are plain `enum class E { a, b, ... }`: value i is the i-th name.
#pragma once

#include <concepts>
#include <cstddef>
#include <optional>
#include <string_view>
#include <type_traits>

namespace tp::probe {

// The i-th space-separated word of `words`, "?" past the end.
constexpr std::string_view word_at(std::string_view words, std::size_t i) {
  for (;; --i) {
    const auto space = words.find(' ');
    if (i == 0) return words.substr(0, space);
    if (space == std::string_view::npos) return "?";
    words.remove_prefix(space + 1);
  }
}

template <class E>
concept named_enum = std::is_enum_v<E> && requires(E e) {
  { names_of(e) } -> std::convertible_to<std::string_view>;
};

template <named_enum E>
constexpr std::string_view to_string(E e) {
  return word_at(names_of(e), std::size_t(e));
}

template <named_enum E>
constexpr std::optional<E> parse_name(std::string_view name) {
  for (std::size_t i = 0;; ++i) {
    const auto w = word_at(names_of(E{}), i);
    if (w == "?") return std::nullopt;
    if (w == name) return E(i);
  }
}

}  // namespace tp::probe
