// Variant registry: every variant translation unit (one per family x variant x backend) registers its ops struct at
// static-initialisation time; a probe looks variants up by family, variant name and backend.
//
//   namespace TP_VARIANT_NS {
//     const my_family_ops ops{&run_upstream_thing, ...};
//     TP_REGISTER_VARIANT(my_family, my_family_ops, ops);   // or "my_family": both register my_family
//   }
//
// Variant objects are linked as OBJECT libraries (cmake/variants.cmake), so their initialisers always run.
#pragma once

#include <algorithm>
#include <cstring>
#include <string>
#include <string_view>
#include <typeinfo>
#include <vector>

#include "simt/backend.h"

namespace tp {

struct variant_entry {
  std::string family, variant;
  backend where = backend::cpu;
  const void* ops = nullptr;
  const char* ops_type = "";  // typeid name of the ops struct: find_variant refuses a lookup with another type
};

namespace detail {
inline std::vector<variant_entry>& variant_table() {
  static std::vector<variant_entry> table;
  return table;
}
// `family` arrives stringised, so TP_REGISTER_VARIANT(ck_sparse, ...) and TP_REGISTER_VARIANT("ck_sparse", ...) agree.
inline bool register_variant(std::string_view family, const char* variant, backend b, const void* ops,
                             const char* ops_type) {
  if (family.size() >= 2 && family.front() == '"' && family.back() == '"') family = family.substr(1, family.size() - 2);
  variant_table().push_back(variant_entry{std::string(family), variant, b, ops, ops_type});
  return true;
}
}  // namespace detail

// All registered variants of a family (every backend), sorted by variant name then backend; all families when empty.
inline std::vector<variant_entry> variants(std::string_view family = {}) {
  std::vector<variant_entry> out;
  for (const auto& e : detail::variant_table())
    if (family.empty() || e.family == family) out.push_back(e);
  std::sort(out.begin(), out.end(), [](const variant_entry& a, const variant_entry& b) {
    if (a.family != b.family) return a.family < b.family;
    if (a.variant != b.variant) return a.variant < b.variant;
    return static_cast<int>(a.where) < static_cast<int>(b.where);
  });
  return out;
}

// nullptr when no such variant is linked in, or when it registered an ops struct of another type.
template <class Ops>
const Ops* find_variant(std::string_view family, std::string_view variant, backend b) {
  for (const auto& e : detail::variant_table())
    if (e.family == family && e.variant == variant && e.where == b)
      return std::strcmp(e.ops_type, typeid(Ops).name()) == 0 ? static_cast<const Ops*>(e.ops) : nullptr;
  return nullptr;
}

}  // namespace tp

#define TP_REGISTER_CAT2_(a, b) a##b
#define TP_REGISTER_CAT_(a, b) TP_REGISTER_CAT2_(a, b)
#define TP_REGISTER_VARIANT(family_name, OpsType, ops_object)                                                  \
  [[maybe_unused]] static const bool TP_REGISTER_CAT_(tp_variant_registered_, __LINE__) =                      \
      ::tp::detail::register_variant(#family_name, TP_VARIANT_NAME, ::tp::this_backend,                        \
                                     static_cast<const OpsType*>(&(ops_object)), typeid(OpsType).name())
