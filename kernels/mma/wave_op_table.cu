// The software matrix ops as a host table (wave_op_table.h) for the backend compiling this file: the CPU emulator
// (C++ through a one-line wrapper) or CUDA (nvcc). Every entry launches wave_op_batch_kernel<Op>, one wave per case.
// The op list is the one tests/isa has always covered; it is written once, here, for every backend.
#include "kernels/mma/wave_ops.cuh"

#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>
#include <stdexcept>
#include <string>

#include "kernels/mma/wave_op_table.h"
#include "simt/host.h"
#include "simt/registry.h"

namespace TP_VARIANT_NS {
namespace mma_table {
namespace {

namespace mma = ::tp::mma;
using words = std::span<const std::uint32_t>;

// Every backend built here can launch every op: the emulator sets its warp to the op's wave for the launch, and on
// CUDA (32-lane warps) a wave64 gfx9 op gathers its 64-thread block through shared memory (soft.cuh, gather_wave). On
// HIP an op runs in the device's own waves, so whether it applies depends on the device (wave_op_table::device_wave).
// An op a future backend cannot run stays in the table with its reason (wave_op::not_runnable) and is never launched
// there.
template <unsigned Wave>
inline constexpr bool runnable_here = Wave == 32 || Wave == 64;
constexpr const char* wave64_refusal = "this backend cannot gather a 64-lane wave";

#if TP_BACKEND_CPU
// The emulator's warp is the op's wave for this launch; the caller's policy, seed and hazard settings stay.
class emulator_wave {
 public:
  explicit emulator_wave(unsigned wave) {
    ::tp::cpu::run_options o = saved_;
    o.warp_size = wave;
    ::tp::cpu::set_run_options(o);
  }
  ~emulator_wave() { ::tp::cpu::set_run_options(saved_); }
  emulator_wave(const emulator_wave&) = delete;
  emulator_wave& operator=(const emulator_wave&) = delete;

 private:
  ::tp::cpu::run_options saved_ = ::tp::cpu::get_run_options();
};
#endif

void check_size(const char* operand, std::size_t got, std::size_t n_cases, unsigned wave, unsigned per_lane) {
  const std::size_t want = n_cases * wave * per_lane;
  if (got != want)
    throw std::invalid_argument(std::string("tp::mma wave op table: ") + operand + " holds " + std::to_string(got) +
                                " words, " + std::to_string(n_cases) + " cases of a wave" + std::to_string(wave) +
                                " op need " + std::to_string(want) + " (" + std::to_string(per_lane) + " per lane)");
}

::tp::device_buffer<std::uint32_t> upload(words w) {
  ::tp::device_buffer<std::uint32_t> buf(w.size());
  buf.upload(w.data(), w.size());
  return buf;
}

template <class Op, unsigned Wave>
void run_batch(std::size_t n_cases, words a, words b, words c, words index, std::span<std::uint32_t> d) {
  constexpr unsigned a_words = sizeof(typename Op::a_t) / 4, b_words = sizeof(typename Op::b_t) / 4,
                     c_words = sizeof(typename Op::c_t) / 4;
  check_size("A", a.size(), n_cases, Wave, a_words);
  check_size("B", b.size(), n_cases, Wave, b_words);
  check_size("C", c.size(), n_cases, Wave, c_words);
  check_size("index", index.size(), n_cases, Wave, 1);
  check_size("D", d.size(), n_cases, Wave, c_words);
  if constexpr (!runnable_here<Wave>) {
    throw std::logic_error(std::string("tp::mma wave op table (") + ::tp::to_string(::tp::this_backend) +
                           "): " + wave64_refusal);
  } else {
    if (n_cases == 0) return;
    // One block per case: CUDA's grid x limit is 2^31 - 1 blocks.
    if (n_cases > std::size_t(std::numeric_limits<int>::max()))
      throw std::invalid_argument("tp::mma wave op table: " + std::to_string(n_cases) +
                                  " cases exceed one launch's grid; split the batch");
    auto ab = upload(a), bb = upload(b), cb = upload(c), ib = upload(index);
    ::tp::device_buffer<std::uint32_t> db(d.size());
#if TP_BACKEND_CPU
    const emulator_wave wave_for_launch(Wave);
#endif
    ::tp::launch(::tp::dims{unsigned(n_cases), Wave, 0, "tp::mma::wave_op_batch_kernel"},
                 &mma::wave_op_batch_kernel<Op>, ab.view(), bb.view(), cb.view(), ib.view(), db.view());
    db.download(d.data(), d.size());
  }
}

template <class Op, unsigned Wave = 32>
constexpr mma::wave_op entry(const char* instr, mma::wave_op_modifiers mods) {
  return {instr,
          mods,
          Wave,
          unsigned(sizeof(typename Op::a_t) / 4),
          unsigned(sizeof(typename Op::b_t) / 4),
          unsigned(sizeof(typename Op::c_t) / 4),
          runnable_here<Wave> ? nullptr : wave64_refusal,
          &run_batch<Op, Wave>};
}
// The modifiers come from the same template arguments that pick the op, so an entry cannot describe another variant.
template <template <bool, bool, bool, int> class Op, bool SA, bool SB, bool Clamp, int Key>
constexpr mma::wave_op flags_key(const char* instr) {
  return entry<Op<SA, SB, Clamp, Key>>(instr, {SA, SB, Clamp, unsigned(Key)});
}
template <template <bool, bool, bool> class Op, bool SA, bool SB, bool Clamp>
constexpr mma::wave_op flags(const char* instr) {
  return entry<Op<SA, SB, Clamp>>(instr, {SA, SB, Clamp, 0});
}
template <template <int> class Op, int Key, unsigned Wave = 32>
constexpr mma::wave_op key(const char* instr) {
  return entry<Op<Key>, Wave>(instr, {.index_key = unsigned(Key)});
}

const mma::wave_op soft_ops[] = {
    flags_key<mma::op_swmmac_i32_16x16x32_iu4, true, true, false, 0>("swmmac_i32_16x16x32_iu4"),
    flags_key<mma::op_swmmac_i32_16x16x32_iu4, true, true, false, 1>("swmmac_i32_16x16x32_iu4"),
    flags_key<mma::op_swmmac_i32_16x16x32_iu4, false, true, false, 0>("swmmac_i32_16x16x32_iu4"),
    flags_key<mma::op_swmmac_i32_16x16x32_iu4, true, false, true, 1>("swmmac_i32_16x16x32_iu4"),
    flags_key<mma::op_swmmac_i32_16x16x32_iu4, false, false, true, 0>("swmmac_i32_16x16x32_iu4"),
    flags<mma::op_swmmac_i32_16x16x64_iu4, true, true, false>("swmmac_i32_16x16x64_iu4"),
    flags<mma::op_swmmac_i32_16x16x64_iu4, false, false, false>("swmmac_i32_16x16x64_iu4"),
    flags<mma::op_swmmac_i32_16x16x64_iu4, true, false, true>("swmmac_i32_16x16x64_iu4"),
    flags_key<mma::op_swmmac_i32_16x16x32_iu8, true, true, false, 0>("swmmac_i32_16x16x32_iu8"),
    flags_key<mma::op_swmmac_i32_16x16x32_iu8, true, true, false, 1>("swmmac_i32_16x16x32_iu8"),
    flags_key<mma::op_swmmac_i32_16x16x32_iu8, false, true, true, 0>("swmmac_i32_16x16x32_iu8"),
    flags_key<mma::op_swmmac_i32_16x16x32_iu8, false, false, false, 1>("swmmac_i32_16x16x32_iu8"),
    key<mma::op_swmmac_f32_16x16x32_fp8_fp8, 0>("swmmac_f32_16x16x32_fp8_fp8"),
    key<mma::op_swmmac_f32_16x16x32_fp8_fp8, 1>("swmmac_f32_16x16x32_fp8_fp8"),
    key<mma::op_swmmac_f32_16x16x32_fp8_bf8, 0>("swmmac_f32_16x16x32_fp8_bf8"),
    key<mma::op_swmmac_f32_16x16x32_fp8_bf8, 1>("swmmac_f32_16x16x32_fp8_bf8"),
    key<mma::op_swmmac_f32_16x16x32_bf8_fp8, 0>("swmmac_f32_16x16x32_bf8_fp8"),
    key<mma::op_swmmac_f32_16x16x32_bf8_fp8, 1>("swmmac_f32_16x16x32_bf8_fp8"),
    key<mma::op_swmmac_f32_16x16x32_bf8_bf8, 0>("swmmac_f32_16x16x32_bf8_bf8"),
    key<mma::op_swmmac_f32_16x16x32_bf8_bf8, 1>("swmmac_f32_16x16x32_bf8_bf8"),
    key<mma::op_swmmac_f32_16x16x32_f16, 0>("swmmac_f32_16x16x32_f16"),
    key<mma::op_swmmac_f32_16x16x32_f16, 1>("swmmac_f32_16x16x32_f16"),
    key<mma::op_swmmac_f32_16x16x32_bf16, 0>("swmmac_f32_16x16x32_bf16"),
    key<mma::op_swmmac_f32_16x16x32_bf16, 1>("swmmac_f32_16x16x32_bf16"),
    flags<mma::op_wmma_i32_16x16x32_iu4, true, true, false>("wmma_i32_16x16x32_iu4"),
    flags<mma::op_wmma_i32_16x16x32_iu4, false, true, true>("wmma_i32_16x16x32_iu4"),
    flags<mma::op_wmma_i32_16x16x16_iu8, true, true, false>("wmma_i32_16x16x16_iu8"),
    flags<mma::op_wmma_i32_16x16x16_iu8, true, false, true>("wmma_i32_16x16x16_iu8"),
    flags<mma::op_wmma_i32_16x16x16_iu8, false, false, false>("wmma_i32_16x16x16_iu8"),
    entry<mma::op_wmma_f32_16x16x16_f16>("wmma_f32_16x16x16_f16", {}),
    entry<mma::op_gfx11_wmma_f32_16x16x16_f16>("gfx11_wmma_f32_16x16x16_f16", {}),
    flags<mma::op_gfx11_wmma_i32_16x16x16_iu8, true, true, false>("gfx11_wmma_i32_16x16x16_iu8"),
    flags<mma::op_gfx11_wmma_i32_16x16x16_iu8, false, true, true>("gfx11_wmma_i32_16x16x16_iu8"),
    key<mma::op_gfx9_smfmac_f32_16x16x32_f16, 0, 64>("gfx9_smfmac_f32_16x16x32_f16"),
    key<mma::op_gfx9_smfmac_f32_16x16x32_f16, 1, 64>("gfx9_smfmac_f32_16x16x32_f16"),
    key<mma::op_gfx9_smfmac_f32_16x16x32_f16, 2, 64>("gfx9_smfmac_f32_16x16x32_f16"),
    key<mma::op_gfx9_smfmac_f32_16x16x32_f16, 3, 64>("gfx9_smfmac_f32_16x16x32_f16"),
    key<mma::op_gfx9_smfmac_i32_16x16x64_i8, 0, 64>("gfx9_smfmac_i32_16x16x64_i8"),
    key<mma::op_gfx9_smfmac_i32_16x16x64_i8, 1, 64>("gfx9_smfmac_i32_16x16x64_i8"),
};

#if TP_BACKEND_HIP
unsigned hip_device_wave() {
  int dev = 0;
  hipDeviceProp_t p{};
  if (hipGetDevice(&dev) != hipSuccess || hipGetDeviceProperties(&p, dev) != hipSuccess) {
    (void)hipGetLastError();
    return 0;
  }
  return unsigned(p.warpSize);
}
constexpr unsigned (*device_wave)() = &hip_device_wave;
#else
constexpr unsigned (*device_wave)() = nullptr;
#endif

}  // namespace

const ::tp::mma::wave_op_table soft_table{TP_VARIANT_NAME, soft_ops, device_wave};
TP_REGISTER_VARIANT(mma, ::tp::mma::wave_op_table, soft_table);

}  // namespace mma_table
}  // namespace TP_VARIANT_NS
