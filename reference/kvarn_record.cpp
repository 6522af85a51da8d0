// beellama's KVarN records and stage decoded from their bytes (layout and sources: kvarn_record.h).
#include "reference/kvarn_record.h"

#include <stdexcept>
#include <string>

#include "reference/codecs.h"

namespace tp::ref {

namespace {

constexpr int G = kvarn_group;

int payload_bytes(int bits) { return G * G * bits / 8; }

std::uint16_t fp16_at(std::span<const std::uint8_t> bytes, std::size_t offset) {
  return std::uint16_t(bytes[offset] | (unsigned(bytes[offset + 1]) << 8));
}

void check_index(int row, int col) {
  if (row < 0 || row >= G || col < 0 || col >= G)
    throw std::invalid_argument("kvarn record: index (" + std::to_string(row) + ", " + std::to_string(col) +
                                ") outside 128 x 128");
}

}  // namespace

int kvarn_record_bytes(int bits) {
  if (bits != 2 && bits != 3 && bits != 4 && bits != 5 && bits != 6 && bits != 8)
    throw std::invalid_argument("kvarn record: " + std::to_string(bits) + " bits (beellama stores 2, 3, 4, 5, 6, 8)");
  return payload_bytes(bits) + 3 * G * 2;
}

std::uint32_t kvarn_record_code(std::span<const std::uint8_t> record, int bits, int row, int col) {
  if (record.size() < std::size_t(kvarn_record_bytes(bits)))
    throw std::invalid_argument("kvarn record: " + std::to_string(record.size()) + " bytes, a " +
                                std::to_string(bits) + "-bit record has " + std::to_string(kvarn_record_bytes(bits)));
  check_index(row, col);
  const std::size_t first = (std::size_t(row) * G + col) * bits;
  std::uint32_t code = 0;
  for (int b = 0; b < bits; ++b) {
    const std::size_t k = first + b;
    code |= std::uint32_t((record[k / 8] >> (k % 8)) & 1u) << b;
  }
  return code;
}

kvarn_record_axes kvarn_record_axis(std::span<const std::uint8_t> record, int bits, int i) {
  if (record.size() < std::size_t(kvarn_record_bytes(bits)))
    throw std::invalid_argument("kvarn record: too few bytes for its axes");
  check_index(i, 0);
  const std::size_t base = payload_bytes(bits);
  return {fp16_at(record, base + 2 * std::size_t(i)), fp16_at(record, base + 2 * std::size_t(G + i)),
          fp16_at(record, base + 2 * std::size_t(2 * G + i))};
}

double kvarn_record_value(std::span<const std::uint8_t> record, int bits, int row, int col) {
  const double q = kvarn_record_code(record, bits, row, col);
  const kvarn_record_axes r = kvarn_record_axis(record, bits, row), c = kvarn_record_axis(record, bits, col);
  return (q * fp16_to_double(r.scale) + fp16_to_double(r.zero)) * fp16_to_double(c.other);
}

double kvarn_record_at(std::span<const std::uint8_t> record, int bits, bool value, int pos, int dim) {
  return value ? kvarn_record_value(record, bits, pos, dim) : kvarn_record_value(record, bits, dim, pos);
}

float kvarn_record_loaded(std::span<const std::uint8_t> record, int bits, bool value, int pos, int dim) {
  const int row = value ? pos : dim, col = value ? dim : pos;
  const double q = kvarn_record_code(record, bits, row, col);
  const kvarn_record_axes r = kvarn_record_axis(record, bits, row), c = kvarn_record_axis(record, bits, col);
  // q·scale + zero is exact in double (see kvarn_record.h) before its one rounding to binary32.
  const float sum = float(q * fp16_to_double(r.scale) + fp16_to_double(r.zero));
  const float product = sum * float(fp16_to_double(c.other));
  return float(fp16_to_double(float_to_fp16(product)));
}

bool kvarn_group_from_record(const kvarn_cache_layout& l, int group) {
  const int live = (l.n_kv - 1) / G;
  return group >= 1 && group <= live - l.tail_groups && group < l.groups_per_stream;
}

std::vector<double> kvarn_decode_cache(const kvarn_cache_layout& l, std::span<const std::uint16_t> stage,
                                       std::span<const std::uint8_t> records, bool as_loaded) {
  const int rb = kvarn_record_bytes(l.bits);
  if (l.n_kv < 1 || l.n_record_heads < 1 || l.tail_groups < 1 || l.stage_groups < l.tail_groups + 1 ||
      l.groups_per_stream < (l.n_kv - 1) / G + 1)
    throw std::invalid_argument("kvarn cache: need n_kv >= 1, heads >= 1, tail_groups >= 1, stage_groups > "
                                "tail_groups and a record slot for every group");
  const std::size_t want_stage = std::size_t(l.stage_groups) * G * l.n_record_heads * G;
  const std::size_t want_records = std::size_t(l.groups_per_stream) * l.n_record_heads * rb;
  if (stage.size() != want_stage || records.size() != want_records)
    throw std::invalid_argument("kvarn cache: stage has " + std::to_string(stage.size()) + " values (want " +
                                std::to_string(want_stage) + "), records " + std::to_string(records.size()) +
                                " bytes (want " + std::to_string(want_records) + ")");
  std::vector<double> out(std::size_t(l.n_record_heads) * l.n_kv * G);
  for (int h = 0; h < l.n_record_heads; ++h)
    for (int t = 0; t < l.n_kv; ++t) {
      const int group = t / G, pos = t % G;
      double* row = out.data() + (std::size_t(h) * l.n_kv + t) * G;
      if (kvarn_group_from_record(l, group)) {
        const auto rec = records.subspan((std::size_t(group) * l.n_record_heads + h) * rb, rb);
        for (int d = 0; d < G; ++d)
          row[d] = as_loaded ? kvarn_record_loaded(rec, l.bits, l.value, pos, d)
                             : kvarn_record_at(rec, l.bits, l.value, pos, d);
      } else {
        const int slot = group == 0 ? 0 : 1 + (group - 1) % l.tail_groups;
        const std::size_t base = ((std::size_t(slot) * G + pos) * l.n_record_heads + h) * G;
        for (int d = 0; d < G; ++d) row[d] = fp16_to_double(stage[base + d]);
      }
    }
  return out;
}

}  // namespace tp::ref
