#include "probes/common/outcome.h"

#include <algorithm>

namespace tp::probe {

outcome& outcome::metric_max(std::string_view name, double v) {
  auto [it, fresh] = metrics.try_emplace(std::string(name), metric{v, metric_merge::max});
  if (!fresh) it->second.value = std::max(it->second.value, v);
  return *this;
}

outcome& outcome::metric_sum(std::string_view name, double v) {
  auto [it, fresh] = metrics.try_emplace(std::string(name), metric{v, metric_merge::sum});
  if (!fresh) it->second.value += v;
  return *this;
}

}  // namespace tp::probe
