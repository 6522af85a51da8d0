// Phase 7: the cases run, batch-major, and what the record keeps of each batch.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <new>

#include <fmt/format.h>

#include "probes/common/parallel.h"
#include "probes/common/phases/phases.h"

#ifndef TP_BIN_DIR
#define TP_BIN_DIR ""
#endif
#ifndef TP_BIN_RELATIVE
#define TP_BIN_RELATIVE ""
#endif

namespace tp::probe::phase {

namespace {

using clock_type = std::chrono::steady_clock;

// A one-line progress indicator on stderr, only when stderr is a terminal and the run has taken over a second: a bar,
// case runs done of the estimate, elapsed time and the time left at the rate so far. Cleared when the run ends, before
// any report is printed.
class progress {
 public:
  explicit progress(bool enabled) : enabled_(enabled), start_(clock_type::now()), last_(start_) {}
  void update(std::string_view what, std::size_t done, std::size_t total) {
    if (!enabled_) return;
    const auto now = clock_type::now();
    if (now - start_ < std::chrono::seconds(1) || now - last_ < std::chrono::milliseconds(100)) return;
    last_ = now;
    shown_ = true;
    const int width = 30;
    const int filled = total ? int(double(done) / double(total) * width) : width;
    const double elapsed = std::chrono::duration<double>(now - start_).count();
    const double left = done ? elapsed * double(total - std::min(done, total)) / double(done) : 0.0;
    std::fprintf(stderr, "\r[%.*s%*s] %zu/%zu %s elapsed, %s left  %.*s\x1b[K", filled,
                 "##############################", width - filled, "", done, total, clock_text(elapsed).c_str(),
                 clock_text(left).c_str(), int(what.size()), what.data());
    std::fflush(stderr);
  }
  ~progress() {
    if (shown_) std::fputs("\r\x1b[K", stderr);
    std::fflush(stderr);
  }

 private:
  static std::string clock_text(double seconds) {
    const auto s = static_cast<long long>(seconds + 0.5);
    return s >= 3600 ? fmt::format("{}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60)
                     : fmt::format("{}:{:02}", s / 60, s % 60);
  }
  bool enabled_, shown_ = false;
  clock_type::time_point start_, last_;
};

// An exception from a runner either ends the whole run (exits 2, 77, 3) or is the case's own error. Called inside a
// catch block: rethrows the first kind, returns the message of the second.
std::string case_error_or_rethrow(const std::exception& e, const backend_hooks& hooks) {
  if (dynamic_cast<const usage_error*>(&e) || dynamic_cast<const backend_unavailable*>(&e) ||
      dynamic_cast<const internal_error*>(&e) || dynamic_cast<const std::bad_alloc*>(&e))
    throw;
  if (hooks.internal && hooks.internal(e)) throw internal_error(e.what());
  return e.what();
}

}  // namespace

std::string reported_executable(const std::string& argv0) {
  const std::string bin_dir = TP_BIN_DIR, relative = TP_BIN_RELATIVE;
  char self[4096];
  const ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  if (bin_dir.empty() || n <= 0) return argv0;
  const std::filesystem::path exe(std::string(self, std::size_t(n)));
  std::error_code ec;
  if (!std::filesystem::equivalent(exe.parent_path(), bin_dir, ec)) return argv0;
  return relative + "/" + exe.filename().string();
}

void case_runner::operator()(std::span<const case_def* const> cases, const variant& v, std::span<outcome> out) const {
  try {
    if (d.batch_runner) {
      d.batch_runner(cases, v, out);
    } else {
      for (std::size_t i = 0; i < cases.size(); ++i) {
        try {
          out[i] = d.runner(*cases[i], v);
        } catch (const std::exception& e) {
          const auto error = case_error_or_rethrow(e, hooks);
          out[i] = outcome{};
          out[i].error = error;
        }
      }
    }
  } catch (const std::exception& e) {
    const auto error = case_error_or_rethrow(e, hooks);
    // A batch shares one launch, so one error fails every case of the batch.
    for (auto& o : out) {
      o = outcome{};
      o.error = error;
    }
  }
  for (auto& o : out)
    if (!o.error.empty()) o.pass = false;
}

outcome case_runner::one(const case_def& c, const variant& v) const {
  const case_def* p = &c;
  outcome o;
  (*this)(std::span<const case_def* const>(&p, 1), v, std::span<outcome>(&o, 1));
  return o;
}

run_record new_record(const declaration& d, const options& opt, const raw_options& raw, const variant_selection& sel) {
  run_record rec;
  rec.probe = d.name;
  rec.summary = d.summary;
  rec.family = d.family;
  rec.backend = opt.backend;
  rec.expect = opt.expect;
  rec.must_catch = d.must_catch;
  rec.shard = opt.shard;
  rec.seed = opt.seed;
  rec.fuzz = d.fuzz && opt.input.empty() ? opt.fuzz : 0;
  // What the run's own filters removed is not demanded by the must_catch rule (README "Verdicts").
  rec.filtered = !opt.case_filters.empty() || !opt.input.empty() || !opt.fixtures.empty() ||
                 (raw.was_given("--fuzz") && opt.fuzz == 0);
  for (std::size_t i = 0; i < opt.command_line.size(); ++i) {
    if (i) rec.command += ' ';
    rec.command += shell_quote(i == 0 ? reported_executable(opt.command_line[0]) : opt.command_line[i]);
  }
  for (const auto& v : sel.selected) {
    variant_summary s;
    s.name = v.name;
    s.role = v.role;
    rec.variants.push_back(std::move(s));
  }
  return rec;
}

bool record_keeper::keep_failure(std::size_t v, std::string_view row) {
  auto& k = kept_[{v, std::string(row)}];
  if (k == kept_per_row) return false;
  ++k;
  return true;
}

std::size_t record_keeper::add(const case_def& c, std::uint64_t position, std::span<const std::uint8_t> passed) {
  const std::size_t nv = rec_.variants.size();
  const std::string row(c.table_row());
  auto [it, fresh] = tally_of_.try_emplace({row, c.source.kind(), c.buggy}, rec_.tallies.size());
  if (fresh) {
    rec_.tallies.push_back({row, c.source.kind(), c.buggy, 0, position, {}});
    rec_.tallies.back().variants.resize(nv);
  }
  auto& t = rec_.tallies[it->second];
  ++t.cases;
  bool notable = false;
  for (std::size_t v = 0; v < nv; ++v) {
    const bool pass = passed[v] != 0;
    auto& pv = t.variants[v];
    if (!pass) {
      if (pv.failed++ == 0) pv.first_failed = c.id, pv.first_failed_at = position;
      if (listed_failures_[{row, v}]++ < listed_failures_per_row) notable = true;
    } else if (pv.first_passed.empty()) {
      pv.first_passed = c.id;
      pv.first_passed_at = position;
    }
    if (!expectation_broken(rec_.expect, rec_.variants[v].role, c.source, c.buggy, pass).empty() &&
        listed_broken_[v]++ < listed_broken_per_variant)
      notable = true;
  }
  if (!rec_.all_cases_listed && !notable) return npos;
  rec_.cases.push_back({c.id, c.source, row, c.tags, c.seed, c.buggy,
                        std::vector<std::uint8_t>(passed.begin(), passed.end()), position});
  row_notable_.push_back(notable);
  return rec_.cases.size() - 1;
}

void record_keeper::end_batch() {
  if (!rec_.all_cases_listed || rec_.cases.size() <= listed_cases_max) return;
  std::vector<std::size_t> new_index(rec_.cases.size(), npos);
  std::size_t n = 0;
  for (std::size_t i = 0; i < rec_.cases.size(); ++i)
    if (row_notable_[i]) {
      new_index[i] = n;
      if (n != i) rec_.cases[n] = std::move(rec_.cases[i]);
      row_notable_[n++] = true;
    }
  rec_.cases.resize(n);
  row_notable_.resize(n);
  for (auto& f : rec_.failures) f.case_index = new_index[f.case_index];  // kept failures are always notable
  rec_.all_cases_listed = false;
}

execution execute(const case_plan& plan, const case_runner& run, const variant_selection& sel, const options& opt,
                  clock_type::time_point started, run_record& rec) {
  const std::size_t batch = opt.batch ? opt.batch : run.d.batch;
  const auto& selected = sel.selected;
  const std::size_t nv = selected.size();
  execution ran;
  ran.first_failing.resize(nv);
  record_keeper keeper(rec);
  progress bar(isatty(STDERR_FILENO) != 0);
  const std::uint64_t estimated = plan.unfiltered_size() / opt.shard.count * nv;
  std::uint64_t runs_done = 0;
  case_list pending;
  std::vector<std::uint64_t> positions;
  std::vector<const case_def*> ptrs;
  std::vector<outcome> results;
  std::vector<variant_summary> partials;
  std::vector<std::uint8_t> passed;                        // [case * nv + variant]
  std::vector<std::pair<std::size_t, kept_failure>> kept;  // (batch index, failure) until the rows exist
  const auto run_batch = [&] {
    const std::size_t n = pending.size();
    ptrs.clear();
    for (const auto& c : pending) ptrs.push_back(&c);
    passed.assign(n * nv, 0);
    kept.clear();
    for (std::size_t v = 0; v < nv; ++v) {
      auto& summary_v = rec.variants[v];
      results.assign(n, outcome{});
      if (run.hooks.setup_seconds) (void)run.hooks.setup_seconds(opt.backend);  // only this batch's below
      const auto t0 = clock_type::now();
      run(ptrs, selected[v], results);
      // A variant's seconds are its batches' launches and judging; one-time runtime work inside them (the
      // simulator decoding a code object at its first launch) is the run's setup_seconds instead.
      const double setup = run.hooks.setup_seconds ? run.hooks.setup_seconds(opt.backend) : 0.0;
      summary_v.seconds += std::max(0.0, std::chrono::duration<double>(clock_type::now() - t0).count() - setup);
      rec.setup_seconds += setup;
      // Bookkeeping, on --jobs threads: with big batches (a GPU run) summing and freeing the outcomes one by one was
      // the largest serial part of a run. Parts of a fixed size are summed apart and merged in order, so the
      // summaries do not depend on --jobs (sums are exact anyway: every probe's sum metrics are integer counts).
      constexpr std::size_t part = 1024;
      partials.assign((n + part - 1) / part, variant_summary{});
      parallel_for(
          partials.size(), opt.jobs,
          [&](std::size_t begin, std::size_t end) {
            for (std::size_t p = begin; p < end; ++p)
              for (std::size_t i = p * part; i < std::min(n, (p + 1) * part); ++i) {
                accumulate(partials[p], results[i]);
                passed[i * nv + v] = results[i].pass ? 1 : 0;
              }
          },
          1);
      for (const auto& ps : partials) merge_summary(summary_v, ps);
      for (std::size_t i = 0; i < n; ++i) {
        if (results[i].pass) continue;
        if (!ran.first_failing[v]) ran.first_failing[v] = pending[i];
        if (keeper.keep_failure(v, pending[i].table_row())) kept.push_back({i, {0, v, std::move(results[i])}});
      }
      parallel_for(
          n, opt.jobs,
          [&](std::size_t begin, std::size_t end) {
            for (std::size_t i = begin; i < end; ++i) results[i] = outcome{};
          },
          part);
      runs_done += n;
      bar.update(selected[v].name, std::size_t(runs_done), std::size_t(std::max(estimated, runs_done)));
    }
    std::vector<std::size_t> row_index(n);
    for (std::size_t i = 0; i < n; ++i)
      row_index[i] = keeper.add(pending[i], positions[i],
                                std::span<const std::uint8_t>(passed.data() + i * nv, nv));
    for (auto& [i, f] : kept) {
      f.case_index = row_index[i];
      rec.failures.push_back(std::move(f));
    }
    keeper.end_batch();
    pending.clear();
    positions.clear();
  };
  rec.unsharded_cases = plan.for_each_selected([&](case_def&& c, std::uint64_t pos) {
    if (!opt.shard.contains(pos)) return;
    pending.push_back(std::move(c));
    positions.push_back(pos);
    if (pending.size() >= batch) run_batch();
  });
  if (!pending.empty()) run_batch();
  rec.run_seconds = std::chrono::duration<double>(clock_type::now() - started).count();
  // Reports list kept failures variant by variant, in case order.
  std::stable_sort(rec.failures.begin(), rec.failures.end(), [](const kept_failure& a, const kept_failure& b) {
    return a.variant_index != b.variant_index ? a.variant_index < b.variant_index : a.case_index < b.case_index;
  });
  if (run.d.notes) rec.notes = run.d.notes();
  if (run.d.bench_figures && opt.bench) rec.bench = run.d.bench_figures();
  return ran;
}

}  // namespace tp::probe::phase
