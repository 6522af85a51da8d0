#include "reference/pk_int4.h"

#include <stdexcept>
#include <string>

namespace tp::ref {

std::uint8_t encode_int4(int value, int4_code code) {
  if (value < -8 || value > 7)
    throw std::invalid_argument("encode_int4: " + std::to_string(value) + " is outside -8..7");
  return static_cast<std::uint8_t>(code == int4_code::twos_complement ? (value & 0xF) : value + 8);
}

int get_int4(std::span<const std::uint8_t> bytes, std::size_t element, nibble_order order, int4_code code) {
  if (element / 2 >= bytes.size())
    throw std::invalid_argument("get_int4: element " + std::to_string(element) + " is past the " +
                                std::to_string(bytes.size()) + "-byte buffer");
  return decode_int4(static_cast<std::uint8_t>(bytes[element / 2] >> nibble_shift(element, order)), code);
}

std::vector<std::uint8_t> pack_int4(std::span<const std::int8_t> values, nibble_order order, int4_code code) {
  std::vector<std::uint8_t> bytes((values.size() + 1) / 2, 0);
  for (std::size_t e = 0; e < values.size(); ++e)
    bytes[e / 2] |= static_cast<std::uint8_t>(encode_int4(values[e], code) << nibble_shift(e, order));
  return bytes;
}

std::vector<std::int8_t> unpack_int4(std::span<const std::uint8_t> bytes, std::size_t count, nibble_order order,
                                     int4_code code) {
  if (count > 2 * bytes.size())
    throw std::invalid_argument("unpack_int4: " + std::to_string(count) + " elements do not fit in " +
                                std::to_string(bytes.size()) + " bytes");
  std::vector<std::int8_t> values(count);
  for (std::size_t e = 0; e < count; ++e) values[e] = static_cast<std::int8_t>(get_int4(bytes, e, order, code));
  return values;
}

std::vector<std::uint8_t> swap_nibbles(std::span<const std::uint8_t> bytes) {
  std::vector<std::uint8_t> out(bytes.size());
  for (std::size_t i = 0; i < bytes.size(); ++i)
    out[i] = static_cast<std::uint8_t>(((bytes[i] & 0x0F) << 4) | (bytes[i] >> 4));
  return out;
}

}  // namespace tp::ref
