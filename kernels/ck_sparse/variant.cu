// Entry of one ck_sparse variant: the device code, and (host builds) the launchers and the registered ops struct.
#include "kernels/ck_sparse/sparse_mma_pipeline.cuh"

#if !defined(TP_DEVICE_ONLY)
#include <cstring>
#include <stdexcept>
#include <string>

#include "kernels/ck_sparse/api.h"
#include "simt/host.h"
#include "simt/registry.h"

namespace TP_VARIANT_NS {
namespace ck_sparse {
namespace {

namespace api = ::tp::ck_sparse;

// The device buffers of this variant's launches, reused from launch to launch (resize() re-poisons them, so each
// launch sees what fresh buffers would hold). Launches of a probe run on one thread; thread_local keeps a second
// launching thread (a test, say) from sharing them.
struct launch_buffers {
  tp::device_buffer<uint32_t> a{0}, b{0}, compressed{0}, idx{0}, oob{0};
  tp::device_buffer<float> d_float{0};
  tp::device_buffer<int32_t> d_int{0};
};
thread_local launch_buffers buffers;

template <class Acc>
tp::device_buffer<Acc>& d_buffer() {
  if constexpr (std::is_same_v<Acc, float>) return buffers.d_float;
  else return buffers.d_int;
}

template <class MmaOp, int FragsK>
void run_batch(const api::tile_batch& in, api::tile_results& out) {
  using Pipeline = SparseMmaPipeline<MmaOp, FragsK>;
  using Acc = typename MmaOp::AccType;
  const std::size_t tiles = in.tiles, operand_words = Pipeline::kOperandWords;
  const unsigned idx_words = in.shape.idx_words_per_lane();
  const std::size_t lane_compressed_words = Pipeline::kCompressedLaneWords;

  auto& bufs = buffers;
  auto& d = d_buffer<Acc>();
  bufs.a.resize(tiles * operand_words);
  bufs.b.resize(tiles * operand_words);
  bufs.a.upload_bytes(in.a.data(), in.a.size());
  bufs.b.upload_bytes(in.b.data(), in.b.size());
  d.resize(tiles * 256);
  bufs.compressed.resize(tiles * 32 * lane_compressed_words);
  bufs.idx.resize(tiles * 32 * idx_words);
  bufs.oob.resize(tiles * 64);

  tp::launch(tp::dims{unsigned(tiles), 32, 0, "ck_sparse::sparse_tile_kernel"}, &sparse_tile_kernel<MmaOp, FragsK>,
             bufs.a.view(), bufs.b.view(), d.view(), bufs.compressed.view(), bufs.idx.view(), bufs.oob.view(),
             idx_words);

  const auto download_d = [&d](auto& into, auto& unused) {
    into.resize(d.size());
    d.download(into.data(), into.size());
    unused.clear();
  };
  if constexpr (std::is_same_v<Acc, float>) download_d(out.d_float, out.d_int);
  else download_d(out.d_int, out.d_float);
  out.compressed.resize(bufs.compressed.size() * 4);
  bufs.compressed.download_bytes(out.compressed.data(), out.compressed.size());
  out.idx.resize(bufs.idx.size());
  bufs.idx.download(out.idx.data(), out.idx.size());
  thread_local std::vector<uint32_t> o;
  o.resize(bufs.oob.size());
  bufs.oob.download(o.data(), o.size());
  out.oob_survivor_writes.resize(tiles * 32);
  out.oob_field_writes.resize(tiles * 32);
  for (std::size_t l = 0; l < tiles * 32; ++l) {
    out.oob_survivor_writes[l] = o[2 * l];
    out.oob_field_writes[l] = o[2 * l + 1];
  }
  using Idx = decltype(SparseCompressTransform::exec(std::declval<typename Pipeline::ATensor&>(),
                                                     std::declval<ub_counters&>()));
  out.idx_fields_per_lane = unsigned(Idx::fields);
}

template <class MmaOp>
void run_frags(const api::tile_batch& in, api::tile_results& out) {
  switch (in.shape.frags_k()) {
    case 1: return run_batch<MmaOp, 1>(in, out);
    case 2: return run_batch<MmaOp, 2>(in, out);
    case 4: return run_batch<MmaOp, 4>(in, out);
    case 8: return run_batch<MmaOp, 8>(in, out);
  }
  throw std::invalid_argument("ck_sparse: FragsK " + std::to_string(in.shape.frags_k()) + " is not 1, 2, 4 or 8");
}

void run_tiles(const api::tile_batch& in, api::tile_results& out) {
  const api::tile_shape& s = in.shape;
  if (!s.valid())
    throw std::invalid_argument(std::string("ck_sparse: unsupported shape ") + api::to_string(s.type) + " K=" +
                                std::to_string(s.k) + " " + api::to_string(s.instr));
  if (in.a.size() != in.tiles * s.operand_bytes() || in.b.size() != in.tiles * s.operand_bytes())
    throw std::invalid_argument("ck_sparse: A and B must hold " + std::to_string(in.tiles * s.operand_bytes()) +
                                " bytes each for " + std::to_string(in.tiles) + " tiles");
  if (in.tiles == 0) {
    out = api::tile_results{};
    return;
  }
  switch (s.type) {
    case api::dtype::int8: return run_frags<mma_i32_16x16x32_iu8>(in, out);
    case api::dtype::fp8_e4m3: return run_frags<mma_f32_16x16x32_fp8_fp8>(in, out);
    case api::dtype::fp16: return run_frags<mma_f32_16x16x32_f16>(in, out);
    case api::dtype::pk_int4:
      if (s.instr == api::instruction::iu4_k64) {
        if (s.frags_k() > 4) break;
        return run_frags<mma_i32_16x16x64_iu4>(in, out);
      }
      return run_frags<mma_i32_16x16x32_iu4>(in, out);
  }
  throw std::invalid_argument("ck_sparse: unsupported shape");
}

template <class DataType, int N>
api::compress_result compress_n(std::span<const std::uint8_t> bytes) {
  thread_tensor<DataType, N> t;
  static_assert(sizeof(t.thread_buffer.data) == sizeof(t.thread_buffer));
  std::memcpy(t.thread_buffer.data, bytes.data(), sizeof(t.thread_buffer.data));
  ub_counters ub;
  const auto idx = SparseCompressTransform::exec(t, ub);
  api::compress_result r;
  r.compressed.resize(sizeof(t.thread_buffer.data) / 2);
  std::memcpy(r.compressed.data(), t.thread_buffer.data, r.compressed.size());
  r.idx.assign(idx.w, idx.w + idx.words);
  r.fields = unsigned(idx.fields);
  r.oob_survivor_writes = ub.survivor_writes;
  r.oob_field_writes = ub.field_writes;
  return r;
}

template <class DataType>
api::compress_result compress_type(std::span<const std::uint8_t> bytes, std::size_t element_bytes) {
  switch (bytes.size() / element_bytes) {
    case 8: return compress_n<DataType, 8>(bytes);
    case 16: return compress_n<DataType, 16>(bytes);
    case 32: return compress_n<DataType, 32>(bytes);
    case 64: return compress_n<DataType, 64>(bytes);
    case 128: return compress_n<DataType, 128>(bytes);
  }
  throw std::invalid_argument("ck_sparse::compress: a lane vector holds 8, 16, 32, 64 or 128 physical elements, got " +
                              std::to_string(bytes.size()) + " bytes");
}

api::compress_result compress(api::dtype type, std::span<const std::uint8_t> bytes) {
  switch (type) {
    case api::dtype::int8: return compress_type<int8_t>(bytes, 1);
    case api::dtype::fp8_e4m3: return compress_type<fp8_e4m3_t>(bytes, 1);
    case api::dtype::fp16:
      if (bytes.size() % 2) break;
      return compress_type<half_t>(bytes, 2);
    case api::dtype::pk_int4: return compress_type<pk_int4_t>(bytes, 1);
  }
  throw std::invalid_argument("ck_sparse::compress: odd byte count for fp16");
}

}  // namespace

const ::tp::ck_sparse::ops ck_sparse_ops{TP_VARIANT_NAME, &run_tiles, &compress};
TP_REGISTER_VARIANT(ck_sparse, ::tp::ck_sparse::ops, ck_sparse_ops);

}  // namespace ck_sparse
}  // namespace TP_VARIANT_NS
#endif  // !TP_DEVICE_ONLY
