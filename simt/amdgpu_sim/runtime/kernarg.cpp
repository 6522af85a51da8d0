#include "simt/amdgpu_sim/runtime/kernarg.h"

#include <cstring>
#include <string>

namespace tp::amdgpu_sim {
namespace {

bool is_hidden(const kernel_arg& a) { return a.value_kind.rfind("hidden_", 0) == 0; }

void put(std::vector<uint8_t>& seg, const kernel_arg& a, uint64_t v, uint32_t expected_size, const std::string& kernel) {
  if (a.size != expected_size)
    throw sim_error("kernel " + kernel + ": hidden argument " + a.value_kind + " has size " + std::to_string(a.size) +
                    ", the code object v5 metadata defines " + std::to_string(expected_size));
  for (uint32_t i = 0; i < a.size; ++i) seg[a.offset + i] = uint8_t(v >> (8 * i));  // little-endian
}

uint32_t axis(const dim3u& d, char c) { return c == 'x' ? d.x : c == 'y' ? d.y : d.z; }

}  // namespace

uint16_t launch_dimensions(const launch_shape& shape) {
  const dim3u& g = shape.grid_blocks;
  const dim3u& b = shape.block_threads;
  return g.z > 1 || b.z > 1 ? 3 : g.y > 1 || b.y > 1 ? 2 : 1;
}

std::array<uint8_t, dispatch_packet_bytes> build_dispatch_packet(const kernel_info& k, const launch_shape& shape,
                                                                 uint64_t kernarg_address) {
  std::array<uint8_t, dispatch_packet_bytes> p{};
  const auto put_le = [&](std::size_t offset, uint64_t v, std::size_t bytes) {
    for (std::size_t i = 0; i < bytes; ++i) p[offset + i] = uint8_t(v >> (8 * i));
  };
  const dim3u& g = shape.grid_blocks;
  const dim3u& b = shape.block_threads;
  const auto items = [&](uint32_t blocks, uint32_t threads, char axis) {
    const uint64_t n = uint64_t(blocks) * threads;
    if (n > UINT32_MAX)
      throw sim_error("kernel " + k.name + ": grid size " + std::to_string(n) + " work-items in " + axis +
                      " exceeds the dispatch packet's 32 bits");
    return n;
  };
  put_le(2, launch_dimensions(shape), 2);  // setup: dimensions in bits [1:0]
  put_le(4, b.x, 2);
  put_le(6, b.y, 2);
  put_le(8, b.z, 2);
  put_le(12, items(g.x, b.x, 'x'), 4);
  put_le(16, items(g.y, b.y, 'y'), 4);
  put_le(20, items(g.z, b.z, 'z'), 4);
  put_le(24, k.private_segment_size, 4);
  put_le(28, uint64_t(k.group_segment_size) + shape.dynamic_lds_bytes, 4);
  put_le(40, kernarg_address, 8);
  return p;
}

std::size_t explicit_arg_count(const kernel_info& k) {
  std::size_t n = 0;
  for (const auto& a : k.args) n += !is_hidden(a);
  return n;
}

std::vector<uint8_t> build_kernarg(const kernel_info& k, void* const* args, const launch_shape& shape) {
  uint32_t end = k.kernarg_size;
  for (const auto& a : k.args) {
    if (a.offset > UINT32_MAX - a.size)
      throw sim_error("kernel " + k.name + ": argument " + a.value_kind + " at offset " + std::to_string(a.offset) +
                      " overflows");
    end = std::max(end, a.offset + a.size);
  }
  if (end > k.kernarg_size && k.kernarg_size != 0)
    throw sim_error("kernel " + k.name + ": an argument ends at byte " + std::to_string(end) +
                    ", beyond .kernarg_segment_size " + std::to_string(k.kernarg_size));
  std::vector<uint8_t> seg(end, 0);
  const dim3u& g = shape.grid_blocks;
  const dim3u& b = shape.block_threads;
  std::size_t explicit_index = 0;
  for (const auto& a : k.args) {
    if (!is_hidden(a)) {
      if (a.size != 0) {
        if (!args || !args[explicit_index])
          throw sim_error("kernel " + k.name + ": no value for argument " + std::to_string(explicit_index) +
                          (a.name.empty() ? "" : " (" + a.name + ")"));
        std::memcpy(seg.data() + a.offset, args[explicit_index], a.size);
      }
      ++explicit_index;
      continue;
    }
    const std::string& v = a.value_kind;
    const char c = v.back();
    if (v == "hidden_block_count_x" || v == "hidden_block_count_y" || v == "hidden_block_count_z")
      put(seg, a, axis(g, c), 4, k.name);
    else if (v == "hidden_group_size_x" || v == "hidden_group_size_y" || v == "hidden_group_size_z")
      put(seg, a, axis(b, c), 2, k.name);
    else if (v == "hidden_remainder_x" || v == "hidden_remainder_y" || v == "hidden_remainder_z")
      put(seg, a, 0, 2, k.name);
    else if (v == "hidden_global_offset_x" || v == "hidden_global_offset_y" || v == "hidden_global_offset_z")
      put(seg, a, 0, 8, k.name);
    else if (v == "hidden_grid_dims")
      put(seg, a, launch_dimensions(shape), 2, k.name);
    else if (v == "hidden_dynamic_lds_size")
      put(seg, a, shape.dynamic_lds_bytes, 4, k.name);
    // Every other hidden argument stays 0 (see kernarg.h).
  }
  return seg;
}

}  // namespace tp::amdgpu_sim
