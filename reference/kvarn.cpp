#include "reference/kvarn.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include "reference/codecs.h"

namespace tp::ref {
namespace {

bool is_power_of_two(std::size_t n) { return n != 0 && (n & (n - 1)) == 0; }

double population_std(const std::vector<double>& x) {
  double mean = 0.0;
  for (double v : x) mean += v;
  mean /= static_cast<double>(x.size());
  double ss = 0.0;
  for (double v : x) ss += (v - mean) * (v - mean);
  return std::sqrt(ss / static_cast<double>(x.size()));
}

// T / (s_c ⊗ s_r) with the scales held as plain factors, refreshed from the logs after every update.
struct scaled_tile {
  const matrix<double>& t;
  std::vector<double> col, row;
  double at(std::size_t r, std::size_t c) const { return t(r, c) / (col[c] * row[r]); }
  double col_std(std::size_t c) const {
    std::vector<double> x(t.rows);
    for (std::size_t r = 0; r < t.rows; ++r) x[r] = at(r, c);
    return population_std(x);
  }
  double row_std(std::size_t r) const {
    std::vector<double> x(t.cols);
    for (std::size_t c = 0; c < t.cols; ++c) x[c] = at(r, c);
    return population_std(x);
  }
};

double imbalance(const scaled_tile& s, const sinkhorn_options& o) {
  auto ratio = [&](std::size_t n, auto std_of) {
    double lo = std::numeric_limits<double>::infinity(), hi = 0.0;
    for (std::size_t i = 0; i < n; ++i) {
      const double v = std::clamp(std_of(i), o.std_min, o.std_max);
      lo = std::min(lo, v);
      hi = std::max(hi, v);
    }
    return hi / lo;
  };
  return ratio(s.t.cols, [&](std::size_t c) { return s.col_std(c); }) +
         ratio(s.t.rows, [&](std::size_t r) { return s.row_std(r); });
}

matrix<double> copy_of(matrix_view<double> v) {
  matrix<double> m(v.rows, v.cols);
  for (std::size_t r = 0; r < v.rows; ++r)
    for (std::size_t c = 0; c < v.cols; ++c) m(r, c) = v(r, c);
  return m;
}

double fp16_round(double x, const char* what) {
  const double y = fp16_to_double(double_to_fp16(x));
  if (!std::isfinite(y))
    throw std::invalid_argument(std::string("quantize_dequantize: ") + what + " " + std::to_string(x) +
                                " does not fit in fp16");
  return y;
}

}  // namespace

void walsh_hadamard(std::span<double> x) {
  const std::size_t n = x.size();
  if (!is_power_of_two(n))
    throw std::invalid_argument("walsh_hadamard: length " + std::to_string(n) + " is not a power of two");
  for (std::size_t h = 1; h < n; h *= 2)
    for (std::size_t i = 0; i < n; i += 2 * h)
      for (std::size_t j = i; j < i + h; ++j) {
        const double a = x[j], b = x[j + h];
        x[j] = a + b;
        x[j + h] = a - b;
      }
  const double norm = 1.0 / std::sqrt(static_cast<double>(n));
  for (auto& v : x) v *= norm;
}

sinkhorn_result sinkhorn(matrix_view<double> tile, const sinkhorn_options& opt) {
  if (tile.rows == 0 || tile.cols == 0) throw std::invalid_argument("sinkhorn: empty tile");
  if (opt.iterations < 0) throw std::invalid_argument("sinkhorn: negative iteration count");
  const matrix<double> t = copy_of(tile);
  std::vector<double> log_c(t.cols, 0.0), log_r(t.rows, 0.0);
  scaled_tile s{t, std::vector<double>(t.cols, 1.0), std::vector<double>(t.rows, 1.0)};

  sinkhorn_result res;
  res.imbalance_initial = res.imbalance_best = imbalance(s, opt);
  std::vector<double> best_c = log_c, best_r = log_r;
  for (int it = 1; it <= opt.iterations; ++it) {
    // Every column is measured with the scales of the previous step, then all column scales change at once.
    std::vector<double> sd(t.cols);
    for (std::size_t c = 0; c < t.cols; ++c) sd[c] = std::clamp(s.col_std(c), opt.std_min, opt.std_max);
    for (std::size_t c = 0; c < t.cols; ++c) {
      log_c[c] = std::clamp(log_c[c] + std::log(sd[c]), opt.log_scale_min, opt.log_scale_max);
      s.col[c] = std::exp(log_c[c]);
    }
    sd.assign(t.rows, 0.0);
    for (std::size_t r = 0; r < t.rows; ++r) sd[r] = std::clamp(s.row_std(r), opt.std_min, opt.std_max);
    for (std::size_t r = 0; r < t.rows; ++r) {
      log_r[r] = std::clamp(log_r[r] + std::log(sd[r]), opt.log_scale_min, opt.log_scale_max);
      s.row[r] = std::exp(log_r[r]);
    }
    const double imb = imbalance(s, opt);
    if (imb < res.imbalance_best) {
      res.imbalance_best = imb;
      res.best_iteration = it;
      best_c = log_c;
      best_r = log_r;
    }
  }
  res.col_scale.resize(t.cols);
  res.row_scale.resize(t.rows);
  for (std::size_t c = 0; c < t.cols; ++c) res.col_scale[c] = std::exp(best_c[c]);
  for (std::size_t r = 0; r < t.rows; ++r) res.row_scale[r] = std::exp(best_r[r]);
  return res;
}

kvarn_result quantize_dequantize(matrix_view<double> tile, const kvarn_options& opt) {
  if (opt.bits < 2 || opt.bits > 8)
    throw std::invalid_argument("quantize_dequantize: bits = " + std::to_string(opt.bits) + " is outside 2..8");
  if (tile.rows == 0 || tile.cols == 0) throw std::invalid_argument("quantize_dequantize: empty tile");
  if (opt.rotate && !is_power_of_two(tile.cols))
    throw std::invalid_argument("quantize_dequantize: rotation needs a power-of-two width, got " +
                                std::to_string(tile.cols));
  matrix<double> t = copy_of(tile);
  for (double v : t.data)
    if (!std::isfinite(v)) throw std::invalid_argument("quantize_dequantize: non-finite input");
  if (opt.rotate)
    for (std::size_t r = 0; r < t.rows; ++r) walsh_hadamard(std::span<double>(&t(r, 0), t.cols));

  kvarn_result out;
  auto& st = out.stats;
  st.sinkhorn = sinkhorn(t.view(), opt.sinkhorn);
  const auto& sc = st.sinkhorn.col_scale;
  const auto& sr = st.sinkhorn.row_scale;
  const int qmax = (1 << opt.bits) - 1;

  st.col_s.resize(t.cols);
  for (std::size_t c = 0; c < t.cols; ++c) st.col_s[c] = opt.round_params_fp16 ? fp16_round(sc[c], "s_c") : sc[c];
  st.row_step.resize(t.rows);
  st.row_a.resize(t.rows);
  st.row_b.resize(t.rows);
  st.q = matrix<int>(t.rows, t.cols, 0);
  out.tile = matrix<double>(t.rows, t.cols, 0.0);
  std::vector<double> b(t.cols);
  for (std::size_t r = 0; r < t.rows; ++r) {
    for (std::size_t c = 0; c < t.cols; ++c) b[c] = t(r, c) / (sc[c] * sr[r]);
    const double lo = *std::min_element(b.begin(), b.end());
    const double hi = *std::max_element(b.begin(), b.end());
    const double step = std::max((hi - lo) / qmax, 1e-10);
    st.row_step[r] = step;
    st.row_a[r] = opt.round_params_fp16 ? fp16_round(sr[r] * step, "a_r") : sr[r] * step;
    st.row_b[r] = opt.round_params_fp16 ? fp16_round(sr[r] * lo, "b_r") : sr[r] * lo;
    for (std::size_t c = 0; c < t.cols; ++c) {
      // (b - lo)/step >= 0, so std::round's half-away-from-zero is round-half-up here.
      const int q = static_cast<int>(std::clamp(std::round((b[c] - lo) / step), 0.0, static_cast<double>(qmax)));
      st.q(r, c) = q;
      out.tile(r, c) = (q * st.row_a[r] + st.row_b[r]) * st.col_s[c];
    }
  }
  if (opt.rotate)
    for (std::size_t r = 0; r < t.rows; ++r) walsh_hadamard(std::span<double>(&out.tile(r, 0), t.cols));

  double ss = 0.0;
  for (std::size_t r = 0; r < t.rows; ++r)
    for (std::size_t c = 0; c < t.cols; ++c) {
      const double e = std::fabs(out.tile(r, c) - tile(r, c));
      st.max_abs_err = std::max(st.max_abs_err, e);
      ss += e * e;
    }
  st.rmse = std::sqrt(ss / static_cast<double>(t.rows * t.cols));
  return out;
}

}  // namespace tp::ref
