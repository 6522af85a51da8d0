// Phase 6: the run's case list. Nothing in it grows with --fuzz: fuzz cases are generated from their seeds when they
// are reached, and the fixed part (fixtures, tables, controls, an --input file) is small.
#include <algorithm>
#include <ostream>

#include "probes/common/phases/phases.h"

namespace tp::probe::phase {

case_plan::case_plan(const declaration& d, const options& opt) : d_(d), opt_(opt) {
  if (!opt.input.empty()) {
    case_list parsed;
    d.input(opt.input, parsed);
    if (parsed.empty()) throw usage_error("--input '" + opt.input + "': no case in the file");
    admit(std::move(parsed), source_kind::input, std::nullopt, fixed_);
  } else {
    for (const auto& [kind, fn] : d.sources) {
      case_list batch;
      fn(batch);
      admit(std::move(batch), kind, std::nullopt, fixed_);
    }
    if (d.fuzz) n_fuzz_ = opt.fuzz;  // without a generator there is no --fuzz option
  }
  fixed_ids_.reserve(fixed_.size());
  for (const auto& c : fixed_)
    if (!fixed_ids_.insert(c.id).second) throw std::logic_error("two cases share the id " + c.id);

  // Every --case filter must take a case; checked over the whole list before anything runs.
  const auto& filters = opt.case_filters;
  if (filters.empty()) return;
  std::vector<bool> hit(filters.size(), false);
  const auto mark = [&](const std::string& id) {
    for (std::size_t f = 0; f < filters.size(); ++f)
      if (!hit[f] && id_matches(filters[f], id)) hit[f] = true;
  };
  for (const auto& c : fixed_) mark(c.id);
  case_list gen;
  for (std::uint64_t i = 0; i < n_fuzz_ && std::find(hit.begin(), hit.end(), false) != hit.end(); ++i) {
    gen.clear();
    fuzz_case(i, gen);
    for (const auto& c : gen) mark(c.id);
  }
  for (std::size_t f = 0; f < filters.size(); ++f) {
    if (hit[f]) continue;
    auto c = rebuild(filters[f]);
    if (!c) throw usage_error("--case '" + filters[f] + "' matches no case (see --list-cases)");
    if (std::none_of(extra_.begin(), extra_.end(), [&](const case_def& e) { return e.id == c->id; }))
      extra_.push_back(std::move(*c));
  }
}

void case_plan::admit(case_list&& batch, std::optional<source_kind> kind, std::optional<std::uint64_t> fuzz_seed,
                      case_list& into) const {
  for (auto& c : batch) {
    if (c.id.empty()) throw std::logic_error("a case without an id");
    // The case's own kind wins over its source's: overriding it silently turned declared controls into adversarial
    // cases, and a buggy variant failing them went unreported.
    if (!c.source.given()) c.source = kind ? *kind : source_kind::fuzz;
    if (fuzz_seed) {
      if (!c.seed) c.seed = fuzz_seed;
      if (id_seed(c.id) != c.seed)
        throw std::logic_error("fuzz case " + c.id + " does not carry its seed in the id (use case_name::seed)");
    }
    if (c.source == source_kind::control) c.buggy = on_buggy::pass;
    into.push_back(std::move(c));
  }
}

// Fuzz case i, admitted into `out`; ids of different seeds differ (each carries its seed), so only the fixed ids and
// the seed's own other cases can collide.
void case_plan::fuzz_case(std::uint64_t i, case_list& out) const {
  const std::uint64_t s = fuzz_case_seed(opt_.seed, i);
  case_list b;
  d_.fuzz(s, b);
  const std::size_t first = out.size();
  admit(std::move(b), std::nullopt, s, out);
  for (std::size_t k = first; k < out.size(); ++k) {
    bool dup = fixed_ids_.count(out[k].id) > 0;
    for (std::size_t j = first; j < k && !dup; ++j) dup = out[j].id == out[k].id;
    if (dup) throw std::logic_error("two cases share the id " + out[k].id);
  }
}

std::optional<case_def> case_plan::rebuild(const std::string& id, int depth) const {
  for (const auto& c : fixed_)
    if (c.id == id) return c;
  if (auto s = id_seed(id); s && d_.fuzz && opt_.input.empty()) {
    case_list batch, admitted;
    d_.fuzz(*s, batch);
    for (auto& c : batch)
      if (c.id == id) {
        case_list one;
        one.push_back(std::move(c));
        admit(std::move(one), std::nullopt, *s, admitted);
        return std::move(admitted.front());
      }
  }
  if (d_.parent_of && d_.shrinker && depth < 32)
    if (const auto parent_id = d_.parent_of(id))
      if (const auto parent = rebuild(*parent_id, depth + 1))
        for (auto& cand : d_.shrinker(*parent))
          if (cand.id == id) {
            case_list one, admitted;
            one.push_back(std::move(cand));
            admit(std::move(one), parent->source.kind(), std::nullopt, admitted);
            return std::move(admitted.front());
          }
  return std::nullopt;
}

bool case_plan::matches(const std::string& id) const {
  if (opt_.case_filters.empty()) return true;
  for (const auto& f : opt_.case_filters)
    if (id_matches(f, id)) return true;
  return false;
}

std::uint64_t case_plan::for_each_selected(const std::function<void(case_def&&, std::uint64_t)>& on_case) const {
  std::uint64_t pos = 0;
  for (const auto& c : fixed_)
    if (matches(c.id)) on_case(case_def(c), pos++);
  case_list gen;
  for (std::uint64_t i = 0; i < n_fuzz_; ++i) {
    gen.clear();
    fuzz_case(i, gen);
    for (auto& c : gen)
      if (matches(c.id)) on_case(std::move(c), pos++);
  }
  for (const auto& c : extra_) on_case(case_def(c), pos++);
  return pos;
}

void case_plan::list(const shard_spec& shard, std::ostream& out) const {
  for_each_selected([&](case_def&& c, std::uint64_t pos) {
    if (shard.contains(pos)) out << c.id << '\n';
  });
  out.flush();
}

}  // namespace tp::probe::phase
