// Host side of the dialect: launches and device buffers on the backend that compiles this translation unit.
//   g++/clang++     -> the CPU fiber emulator (simt/cpu), every access tracked
//   nvcc            -> CUDA runtime (cudaMalloc, <<<>>>), errors as tp::device_error
//   clang -x hip    -> HIP runtime when TP_HIP_RUNTIME is defined
// The backend's classes live in an inline namespace per backend (cpu_backend, cuda_backend, hip_backend), so a
// probe can link CPU and CUDA variants of one kernel family without the two device_buffer<T> colliding.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <limits>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "simt/backend.h"
#include "simt/simt.h"
#if TP_BACKEND_CPU
  #include "simt/cpu/emulator.h"
#endif
#if TP_BACKEND_HIP
  #include "simt/hip/device_check.h"
  #if defined(TP_HIP_RUNTIME)
    #include "simt/hip/runtime_ext.h"
  #endif
#endif

namespace tp {

// `name` only labels error messages (TP_LAUNCH fills it with the kernel's spelling).
struct dims {
  unsigned grid = 1, block = 32;
  std::size_t dyn_smem = 0;
  const char* name = nullptr;
};

namespace detail {
// What a backend's translation units register when they are linked in (see the inline variables below): whether it
// can run here (GPU: the runtime's device query; the CPU emulator always can), and a one-line description of its
// device. A probe built without CUDA thus answers "not available" without linking cudart.
struct backend_entry {
  bool (*available)() = nullptr;
  std::string (*describe)() = nullptr;
  // Why a present device cannot honestly run this binary's code (HIP: no code object for its arch, a runtime too old
  // for it); empty when it can, or when there is no device at all (that is `available`'s answer).
  std::string (*unusable)() = nullptr;
  // Where the backend chooses the warp schedule and runs a shared-memory race detector (the CPU emulator; HIP on
  // tileprobe's simulator): applies to later launches from this thread; false when it cannot (a real GPU).
  bool (*set_schedule)(schedule_policy, std::uint64_t seed, bool detect_races) = nullptr;
  // The detector's findings since the last take; nullopt when the backend has no detector.
  std::optional<race_report> (*take_races)() = nullptr;
  // The most dynamic shared memory one block may use on the device, in bytes (CUDA: the opt-in maximum; HIP:
  // sharedMemPerBlock); null, or 0 returned: no limit known (the CPU emulator has none).
  std::size_t (*shared_bytes_per_block)() = nullptr;
  // Wall-clock seconds of one-time runtime work inside launches since the last take (tileprobe's simulator: decoding
  // a code object at the first launch of one of its kernels); null: none is known. A benchmark keeps it out of its
  // per-launch figures and reports it on its own.
  double (*take_setup_seconds)() = nullptr;
};
inline backend_entry& registered_backend(backend b) {
  static backend_entry entries[3];
  return entries[static_cast<int>(b)];
}
inline bool register_backend(backend b, backend_entry e) {
  registered_backend(b) = e;
  return true;
}

// Byte pattern written by poison(): a quiet NaN with a recognisable payload for floating types, 0xA5 bytes otherwise.
template <class T>
void poison_pattern(T* dst, std::size_t n) {
  if constexpr (std::is_same_v<T, float>) {
    const std::uint32_t bits = 0x7FC0A5A5u;
    for (std::size_t i = 0; i < n; ++i) std::memcpy(dst + i, &bits, 4);
  } else if constexpr (std::is_same_v<T, double>) {
    const std::uint64_t bits = 0x7FF8A5A5A5A5A5A5ull;
    for (std::size_t i = 0; i < n; ++i) std::memcpy(dst + i, &bits, 8);
  } else {
    std::memset(static_cast<void*>(dst), 0xA5, n * sizeof(T));
  }
}

// The element count of a transfer of n elements (of a buffer holding `size`), checked.
inline std::size_t checked_elements(const char* what, std::size_t n, std::size_t size) {
  if (n > size)
    throw std::invalid_argument(std::string("tp::device_buffer::") + what + ": " + std::to_string(n) +
                                " elements requested, buffer holds " + std::to_string(size));
  return n;
}
// The element count of a transfer of `bytes` raw bytes, checked: a whole number of elements that the buffer holds.
inline std::size_t checked_bytes(const char* what, std::size_t bytes, std::size_t elem, std::size_t size) {
  if (bytes % elem)
    throw std::invalid_argument(std::string("tp::device_buffer::") + what + ": " + std::to_string(bytes) +
                                " bytes is not a whole number of " + std::to_string(elem) + "-byte elements");
  return checked_elements(what, bytes / elem, size);
}
}  // namespace detail

// Empty when the backend's device (if any) can run this binary; otherwise one line saying why not and what to do.
inline std::string backend_unusable(backend b) {
  auto p = detail::registered_backend(b).unusable;
  return p ? p() : std::string();
}

inline bool backend_available(backend b) {
  if (b == backend::cpu) return true;
  auto p = detail::registered_backend(b).available;
  return p && p();
}

// Schedule and race detection for later launches (see backend_entry); false: the backend cannot choose.
inline bool set_schedule(backend b, schedule_policy p, std::uint64_t seed, bool detect_races) {
  auto f = detail::registered_backend(b).set_schedule;
  return f && f(p, seed, detect_races);
}
inline std::optional<race_report> take_races(backend b) {
  auto f = detail::registered_backend(b).take_races;
  return f ? f() : std::nullopt;
}

// See backend_entry::take_setup_seconds; 0 when the backend knows of none.
inline double take_setup_seconds(backend b) {
  auto f = detail::registered_backend(b).take_setup_seconds;
  return f ? f() : 0.0;
}
// See backend_entry::shared_bytes_per_block; nullopt: no limit (or no device to ask).
inline std::optional<std::size_t> shared_bytes_per_block(backend b) {
  auto f = detail::registered_backend(b).shared_bytes_per_block;
  const std::size_t n = f ? f() : 0;
  return n ? std::optional<std::size_t>(n) : std::nullopt;
}

// What runs the backend's kernels in this program: device name, compute capability or architecture, driver and
// runtime versions for a GPU; the host CPU for the emulator. Says so when the backend is not built in or has no device.
inline std::string device_description(backend b) {
  if (auto d = detail::registered_backend(b).describe) return d();
  return std::string(to_string(b)) + " backend not built into this program";
}

// device_buffer<T>(n, tp::uninitialised): on a GPU, allocation only, no host write (compute-sanitizer initcheck then
// sees every element uninitialised until a kernel stores it); on the CPU backend the same as device_buffer<T>(n),
// whose elements are poisoned and never-written anyway.
struct uninitialised_t {
  explicit uninitialised_t() = default;
};
inline constexpr uninitialised_t uninitialised{};

#if TP_BACKEND_CPU
inline namespace cpu_backend {
namespace cpu_detail {
inline bool set_schedule(schedule_policy p, std::uint64_t seed, bool detect_races) {
  cpu::run_options o = cpu::get_run_options();
  o.sched = p;
  o.seed = seed;
  o.hazards = detect_races;
  cpu::set_run_options(o);
  return true;
}
inline std::optional<race_report> take_races() {
  const cpu::hazard_report h = cpu::take_hazard_report();
  race_report r{h.raw, h.war, h.waw, {}};
  for (const auto& p : h.first) r.first.push_back(cpu::describe(p));
  return r;
}
inline const bool registered = ::tp::detail::register_backend(
    backend::cpu, {nullptr, &cpu::host_description, nullptr, &cpu_detail::set_schedule, &cpu_detail::take_races});
}

template <class... P, class... A>
void launch(dims d, void (*kernel)(P...), A&&... args) {
  static_assert(sizeof...(P) == sizeof...(A), "tp::launch: argument count differs from the kernel's parameters");
  struct packed_call {
    void (*fn)(P...);
    std::tuple<std::decay_t<P>...> args;
  };
  packed_call call{kernel, std::tuple<std::decay_t<P>...>(std::forward<A>(args)...)};
  // Each GPU thread gets its own copy of the by-value parameters, as on a GPU.
  auto body = [](void* p) {
    auto* c = static_cast<packed_call*>(p);
    std::apply([c](const auto&... a) { c->fn(a...); }, c->args);
  };
  cpu::run_kernel(d.grid, d.block, d.dyn_smem, +body, &call, d.name);
}

template <class T>
class device_buffer {
  static_assert(std::is_trivially_copyable_v<T>, "device_buffer holds trivially copyable elements");

 public:
  explicit device_buffer(std::size_t n) : data_(new T[n == 0 ? 1 : n]), n_(n), capacity_(n), sh_(new cpu::shadow) {
    sh_->reset(data_.get(), sizeof(T), n_, elem_state::never_written);
    detail::poison_pattern(data_.get(), n_);
  }
  device_buffer(std::size_t n, uninitialised_t) : device_buffer(n) {}
  std::size_t size() const { return n_; }
  // Afterwards the buffer is what device_buffer<T>(n) would be (n never-written, poisoned elements), but it keeps its
  // allocation when that is large enough: a launcher called batch after batch does not allocate each time.
  void resize(std::size_t n) {
    if (n > capacity_) {
      data_.reset(new T[n]);
      capacity_ = n;
    }
    n_ = n;
    sh_->reset(data_.get(), sizeof(T), n_, elem_state::never_written);
    detail::poison_pattern(data_.get(), n_);
  }

  void upload(const T* src, std::size_t n) { host_write(src, detail::checked_elements("upload", n, n_)); }
  void upload(const std::vector<T>& src) { upload(src.data(), src.size()); }
  // Raw bytes (a whole number of elements) into the first elements, e.g. a byte-packed operand into 32-bit words.
  void upload_bytes(const void* src, std::size_t bytes) {
    host_write(src, detail::checked_bytes("upload_bytes", bytes, sizeof(T), n_));
  }
  void download(T* dst, std::size_t n) const { host_read(dst, detail::checked_elements("download", n, n_)); }
  void download_bytes(void* dst, std::size_t bytes) const {
    host_read(dst, detail::checked_bytes("download_bytes", bytes, sizeof(T), n_));
  }
  std::vector<T> to_host() const {
    std::vector<T> v(n_);
    download(v.data(), n_);
    return v;
  }
  void fill(const T& v) {
    std::fill_n(data_.get(), n_, v);
    sh_->set_all(elem_state::host_initialised);
  }
  void poison() {
    detail::poison_pattern(data_.get(), n_);
    sh_->set_all(elem_state::never_written);
  }
  gmem<T> view() { return gmem<T>{data_.get(), sh_.get()}; }

  std::optional<std::vector<bool>> kernel_written() const {
    std::vector<bool> w(n_);
    for (std::size_t i = 0; i < n_; ++i) w[i] = sh_->state[i] == elem_state::kernel_written;
    return w;
  }
  std::optional<access_report> unwritten_reads() const { return sh_->unwritten; }
  // Which members of T hold device addresses (byte offsets in an element): only tileprobe's AMDGPU simulator uses it
  // (the GPU backend's holds_device_addresses); the CPU backend records no launch.
  void holds_device_addresses(std::initializer_list<std::size_t> member_offsets) const { (void)member_offsets; }

 private:
  // The first n elements from the host: host-initialised, and the read evidence starts afresh.
  void host_write(const void* src, std::size_t n) {
    std::memcpy(static_cast<void*>(data_.get()), src, n * sizeof(T));
    std::fill_n(sh_->state.begin(), n, elem_state::host_initialised);
    sh_->unwritten = {};
  }
  void host_read(void* dst, std::size_t n) const { std::memcpy(dst, data_.get(), n * sizeof(T)); }

  std::unique_ptr<T[]> data_;
  std::size_t n_, capacity_;
  std::unique_ptr<cpu::shadow> sh_;
};

}  // namespace cpu_backend

#elif TP_BACKEND_CUDA || (TP_BACKEND_HIP && defined(TP_HIP_RUNTIME))

  #if TP_BACKEND_CUDA
    #define TP_GPU_API(name) cuda##name
    #define TP_GPU_NS cuda_backend
    #define TP_GPU_BACKEND ::tp::backend::cuda
    #define TP_GPU_SUCCESS cudaSuccess
    #define TP_GPU_H2D cudaMemcpyHostToDevice
    #define TP_GPU_D2H cudaMemcpyDeviceToHost
    using tp_gpu_error_t = cudaError_t;
    using tp_gpu_device_prop = cudaDeviceProp;
  #else
    #define TP_GPU_API(name) hip##name
    #define TP_GPU_NS hip_backend
    #define TP_GPU_BACKEND ::tp::backend::hip
    #define TP_GPU_SUCCESS hipSuccess
    #define TP_GPU_H2D hipMemcpyHostToDevice
    #define TP_GPU_D2H hipMemcpyDeviceToHost
    using tp_gpu_error_t = hipError_t;
    using tp_gpu_device_prop = hipDeviceProp_t;
  #endif

inline namespace TP_GPU_NS {

namespace gpu_detail {
inline void check(tp_gpu_error_t e, const char* call, const char* kernel = nullptr) {
  if (e == TP_GPU_SUCCESS) return;
  std::string msg = std::string(to_string(TP_GPU_BACKEND)) + ": " + call;
  if (kernel) msg += std::string(" (kernel ") + kernel + ")";
  msg += ": ";
  msg += TP_GPU_API(GetErrorName)(e);
  msg += " - ";
  msg += TP_GPU_API(GetErrorString)(e);
  throw device_error(msg);
}

// No device, no driver, or a driver too old for this runtime all mean "not available" (probes exit 77).
inline bool gpu_available() {
  int n = 0;
  if (TP_GPU_API(GetDeviceCount)(&n) != TP_GPU_SUCCESS) {
    (void)TP_GPU_API(GetLastError)();
    return false;
  }
  return n > 0;
}

inline std::string version_string(int v) {
  #if TP_BACKEND_CUDA
  return std::to_string(v / 1000) + "." + std::to_string((v % 1000) / 10);  // major*1000 + minor*10
  #else
  return std::to_string(v / 10000000) + "." + std::to_string((v / 100000) % 100) + "." +
         std::to_string(v % 100000);  // major*10^7 + minor*10^5 + patch
  #endif
}
inline int device_count() {
  int n = 0;
  if (TP_GPU_API(GetDeviceCount)(&n) != TP_GPU_SUCCESS) {
    (void)TP_GPU_API(GetLastError)();
    return 0;
  }
  return n;
}
inline std::string runtime_version() {
  int runtime = 0;
  (void)TP_GPU_API(RuntimeGetVersion)(&runtime);
  return version_string(runtime);
}
  #if TP_BACKEND_HIP
// The compiler of this translation unit's host and device code, and the archs its code objects were built for.
  #ifndef TP_HIP_ARCHS_BUILT
    #error "TP_HIP_ARCHS_BUILT (the --offload-arch list) is defined by cmake/hip.cmake"
  #endif
inline constexpr const char* hip_compiler = "clang " __clang_version__;
inline std::string hip_unusable() {
  // TILEPROBE_HIP set to something tp_hip_runtime cannot honour: bad input (exit 2), not "no device".
  if (const char* problem = tpHipRuntimeProblem()) return problem;
  const int n = device_count();
  std::string arch;
  if (n > 0) {
    int dev = 0;
    hipDeviceProp_t p{};
    (void)hipGetDevice(&dev);
    if (hipGetDeviceProperties(&p, dev) != hipSuccess) {
      (void)hipGetLastError();
      return "HIP device " + std::to_string(dev) + ": the runtime gives no properties (runtime " + runtime_version() +
             ")";
    }
    arch = p.gcnArchName;
  }
  int v = 0;
  (void)hipRuntimeGetVersion(&v);
  ::tp::hip::release r{v / 10000000, (v / 100000) % 100, v % 100000};
  // The simulator is no ROCm release: the first release that supports an arch does not bound it (the code object
  // check still applies).
  if (tpHipRuntimeIsSimulator() && !arch.empty()) r = ::tp::hip::min_rocm_for(::tp::hip::base_arch(arch));
  return ::tp::hip::unusable_reason(n, arch, runtime_version(), r, TP_HIP_ARCHS_BUILT, ::tp::hip::kfd_gpus())
      .value_or(std::string());
}
  #endif
inline std::string gpu_description() {
  int n = 0, dev = 0;
  const tp_gpu_error_t e = TP_GPU_API(GetDeviceCount)(&n);
  if (e != TP_GPU_SUCCESS || n == 0) {
    (void)TP_GPU_API(GetLastError)();
    return std::string("no ") + (TP_GPU_BACKEND == ::tp::backend::cuda ? "CUDA" : "HIP") + " device (" +
           (e != TP_GPU_SUCCESS ? std::string(TP_GPU_API(GetErrorName)(e)) : std::string("0 devices")) +
           "; runtime " + runtime_version() + ")";
  }
  (void)TP_GPU_API(GetDevice)(&dev);
  tp_gpu_device_prop p{};
  if (TP_GPU_API(GetDeviceProperties)(&p, dev) != TP_GPU_SUCCESS) {
    (void)TP_GPU_API(GetLastError)();
    return std::string(to_string(TP_GPU_BACKEND)) + " device " + std::to_string(dev) + ": properties unavailable";
  }
  int driver = 0, runtime = 0;
  (void)TP_GPU_API(DriverGetVersion)(&driver);
  (void)TP_GPU_API(RuntimeGetVersion)(&runtime);
  std::string s = p.name;
  #if TP_BACKEND_CUDA
  s += " (compute capability " + std::to_string(p.major) + "." + std::to_string(p.minor) + ", sm_" +
       std::to_string(p.major * 10 + p.minor);
  s += ", " + std::to_string(p.multiProcessorCount) + " SMs, ";
  #else
  s += std::string(" (") + p.gcnArchName + ", " + std::to_string(p.multiProcessorCount) + " CUs, wave" +
       std::to_string(p.warpSize) + ", ";
  #endif
  s += std::to_string(p.totalGlobalMem >> 20) + " MiB; device " + std::to_string(dev) + " of " + std::to_string(n) +
       "), driver API " + version_string(driver) + ", runtime " + version_string(runtime);
  #if TP_BACKEND_HIP
  s += std::string("; code objects ") + TP_HIP_ARCHS_BUILT + " by " + hip_compiler;
  if (tpHipRuntimeIsSimulator())
    s += "; SIMULATED: tileprobe's AMDGPU simulator executes the code objects on the host (TILEPROBE_HIP), no GPU";
  #endif
  return s;
}
// The per-block shared memory limit a launch may use: CUDA's opt-in maximum (the launch opts in above 48 KiB),
// HIP's sharedMemPerBlock (no opt-in beyond it on AMD).
inline std::size_t gpu_shared_bytes_per_block() {
  int dev = 0;
  tp_gpu_device_prop p{};
  if (TP_GPU_API(GetDevice)(&dev) != TP_GPU_SUCCESS || TP_GPU_API(GetDeviceProperties)(&p, dev) != TP_GPU_SUCCESS) {
    (void)TP_GPU_API(GetLastError)();
    return 0;
  }
  #if TP_BACKEND_HIP
  return p.sharedMemPerBlock;
  #else
  return p.sharedMemPerBlockOptin;
  #endif
}
  #if TP_BACKEND_HIP
// On tileprobe's simulator the schedule and the LDS race detector are the machine's (runtime_ext.h); a real GPU has
// neither.
inline bool hip_set_schedule(schedule_policy p, std::uint64_t seed, bool detect_races) {
  return tpHipSimSetSchedule(int(p), seed, detect_races ? 1 : 0) == 0;
}
inline std::optional<race_report> hip_take_races() {
  unsigned long long counts[3] = {0, 0, 0};
  const char* text = tpHipSimTakeLdsHazards(counts);
  if (!text) return std::nullopt;
  race_report r{counts[0], counts[1], counts[2], {}};
  for (const char* p = text; *p;) {
    const char* e = std::strchr(p, '\n');
    if (!e) e = p + std::strlen(p);
    r.first.emplace_back(p, e);
    p = *e ? e + 1 : e;
  }
  return r;
}
inline const bool gpu_registered = ::tp::detail::register_backend(
    TP_GPU_BACKEND, {&gpu_available, &gpu_description, &hip_unusable, &hip_set_schedule, &hip_take_races,
                     &gpu_shared_bytes_per_block, &tpHipSimTakeLoadSeconds});
  #else
inline const bool gpu_registered = ::tp::detail::register_backend(
    TP_GPU_BACKEND, {&gpu_available, &gpu_description, nullptr, nullptr, nullptr, &gpu_shared_bytes_per_block});
  #endif

// The skew constants are per translation unit (no relocatable device code), so every TU registers its setter and
// set_skew() reaches all of them.
  #if TP_BACKEND_CUDA
using skew_setter = void (*)(unsigned warp_mask, unsigned cycles);
inline std::vector<skew_setter>& skew_setters() {
  static std::vector<skew_setter> s;
  return s;
}
static void set_skew_this_tu(unsigned warp_mask, unsigned cycles) {
  check(cudaMemcpyToSymbol(tp_skew_warp_mask, &warp_mask, sizeof warp_mask), "cudaMemcpyToSymbol(tp_skew_warp_mask)");
  check(cudaMemcpyToSymbol(tp_skew_cycles, &cycles, sizeof cycles), "cudaMemcpyToSymbol(tp_skew_cycles)");
}
[[maybe_unused]] static const bool skew_setter_registered = (skew_setters().push_back(&set_skew_this_tu), true);
  #endif
}  // namespace gpu_detail

  #if TP_BACKEND_CUDA
// Delay the warps whose bit is set in warp_mask (bit w%32 for warp w) by `cycles` at every tp::skew_point().
inline void set_skew(unsigned warp_mask, unsigned cycles) {
  for (auto f : gpu_detail::skew_setters()) f(warp_mask, cycles);
}
  #endif

template <class... P, class... A>
void launch(dims d, void (*kernel)(P...), A&&... args) {
  // Above 48 KiB of dynamic shared memory a kernel must opt in, or the launch fails with an invalid argument
  // (the fattn D256/D512 tile_Q scratch needs up to ~130 KiB on sm_90).
  if (d.dyn_smem > 48 * 1024)
    gpu_detail::check(TP_GPU_API(FuncSetAttribute)(reinterpret_cast<const void*>(kernel),
                                                   TP_GPU_API(FuncAttributeMaxDynamicSharedMemorySize),
                                                   static_cast<int>(d.dyn_smem)),
                      "allow dynamic shared memory above 48 KiB", d.name);
  kernel<<<d.grid, d.block, d.dyn_smem>>>(std::forward<A>(args)...);
  gpu_detail::check(TP_GPU_API(GetLastError)(), "launch", d.name);
  gpu_detail::check(TP_GPU_API(DeviceSynchronize)(), "synchronize after launch", d.name);
}

namespace gpu_detail {
// poison() on the device: one kernel, no host vector and no host-to-device copy of the pattern.
// Indices through the dialect, not threadIdx/blockIdx: on HIP those call the ROCm device library (__ockl_*), which
// the hip build does not link (-nogpulib), so every kernel of the suite stays free of device-library code.
template <class T>
__global__ void fill_pattern(T* p, std::size_t n, T v) {
  const std::size_t stride = std::size_t(::tp::grid_dim()) * ::tp::block_dim();
  for (std::size_t i = std::size_t(::tp::block_idx()) * ::tp::block_dim() + ::tp::thread_idx(); i < n; i += stride)
    p[i] = v;
}
}  // namespace gpu_detail

template <class T>
class device_buffer {
  static_assert(std::is_trivially_copyable_v<T>, "device_buffer holds trivially copyable elements");

 public:
  explicit device_buffer(std::size_t n) : n_(n) {
    allocate(n);
    poison();
  }
  device_buffer(std::size_t n, uninitialised_t) : n_(n) { allocate(n); }
  ~device_buffer() {
    if (d_) (void)TP_GPU_API(Free)(d_);
  }
  device_buffer(device_buffer&& o) noexcept
      : d_(std::exchange(o.d_, nullptr)), n_(std::exchange(o.n_, 0)), capacity_(std::exchange(o.capacity_, 0)) {}
  device_buffer& operator=(device_buffer&& o) noexcept {
    std::swap(d_, o.d_);
    std::swap(n_, o.n_);
    std::swap(capacity_, o.capacity_);
    return *this;
  }
  device_buffer(const device_buffer&) = delete;
  device_buffer& operator=(const device_buffer&) = delete;

  std::size_t size() const { return n_; }
  // As on the CPU backend: afterwards the buffer holds n poisoned elements, as device_buffer<T>(n) would, and keeps
  // its allocation when that is large enough (a malloc/free pair per launch costs more than the launch itself).
  void resize(std::size_t n) {
    if (n > capacity_) {
      if (d_) (void)TP_GPU_API(Free)(std::exchange(d_, nullptr));
      allocate(n);
    }
    n_ = n;
    poison();
  }
  void upload(const T* src, std::size_t n) { host_write(src, ::tp::detail::checked_elements("upload", n, n_)); }
  void upload(const std::vector<T>& src) { upload(src.data(), src.size()); }
  void upload_bytes(const void* src, std::size_t bytes) {
    host_write(src, ::tp::detail::checked_bytes("upload_bytes", bytes, sizeof(T), n_));
  }
  void download(T* dst, std::size_t n) const { host_read(dst, ::tp::detail::checked_elements("download", n, n_)); }
  void download_bytes(void* dst, std::size_t bytes) const {
    host_read(dst, ::tp::detail::checked_bytes("download_bytes", bytes, sizeof(T), n_));
  }
  std::vector<T> to_host() const {
    std::vector<T> v(n_);
    download(v.data(), n_);
    return v;
  }
  void fill(const T& v) { upload(std::vector<T>(n_, v)); }
  void poison() {
    if (n_ == 0) return;
    T pattern;
    ::tp::detail::poison_pattern(&pattern, 1);
  #if TP_BACKEND_HIP
    // A pattern that repeats every 4 bytes (0xA5 bytes, the float NaN) is a runtime memset, no kernel: on the AMDGPU
    // simulator a fill kernel costs more than the probes' tile kernels it precedes (a wave per 32 elements, each
    // running the grid-stride prologue). The double pattern (8-byte period) keeps the kernel.
    if constexpr (sizeof(T) % 4 == 0) {
      unsigned char bytes[sizeof(T)];
      std::memcpy(bytes, &pattern, sizeof(T));
      bool period4 = true;
      for (std::size_t i = 4; i < sizeof(T); ++i) period4 &= bytes[i] == bytes[i - 4];
      if (period4) {
        std::uint32_t word;
        std::memcpy(&word, bytes, 4);
        gpu_detail::check(hipMemsetD32(d_, int(word), n_ * (sizeof(T) / 4)), "poison");
        return;
      }
    } else if constexpr (sizeof(T) < 4) {
      gpu_detail::check(hipMemset(d_, 0xA5, n_ * sizeof(T)), "poison");  // poison_pattern: 0xA5 bytes
      return;
    }
  #endif
    const unsigned blocks = unsigned(std::min<std::size_t>((n_ + 255) / 256, 4096));
    gpu_detail::fill_pattern<T><<<blocks, 256>>>(d_, n_, pattern);
    gpu_detail::check(TP_GPU_API(GetLastError)(), "poison");
  }
  gmem<T> view() { return gmem<T>{d_}; }
  // The members at these byte offsets of every element hold device addresses the host wrote there (a kernel's
  // descriptors). A GPU needs no word of it; tileprobe's AMDGPU simulator then records a launch that reads this buffer
  // (TILEPROBE_SIM_RECORD_DIR) with the buffers those addresses point into, relocated for another executor
  // (tpHipSimDeclareAddressWords). Declare after the last resize: a resize may move the buffer.
  void holds_device_addresses(std::initializer_list<std::size_t> member_offsets) const {
  #if TP_BACKEND_HIP
    if (!tpHipRuntimeIsSimulator() || n_ == 0) return;
    std::vector<unsigned long long> words;
    for (std::size_t i = 0; i < n_; ++i)
      for (const std::size_t m : member_offsets) words.push_back(i * sizeof(T) + m);
    if (tpHipSimDeclareAddressWords(d_, words.data(), words.size()) != 0)
      throw std::invalid_argument("device_buffer::holds_device_addresses: a member is not an aligned 8-byte word of the "
                                  "element");
  #else
    (void)member_offsets;
  #endif
  }
  // A GPU cannot tell; tileprobe's AMDGPU simulator can for a buffer the host never wrote (an uninitialised one:
  // every written byte there is a kernel's): an element counts as kernel-written when all its bytes are.
  std::optional<std::vector<bool>> kernel_written() const {
  #if TP_BACKEND_HIP
    if (tpHipRuntimeIsSimulator() && n_ > 0) {
      std::vector<unsigned char> flags(n_ * sizeof(T));
      if (tpHipSimKernelWritten(d_, flags.data(), flags.size()) == 0) {
        std::vector<bool> w(n_);
        for (std::size_t i = 0; i < n_; ++i)
          w[i] = std::all_of(flags.begin() + i * sizeof(T), flags.begin() + (i + 1) * sizeof(T),
                             [](unsigned char f) { return f != 0; });
        return w;
      }
    }
  #endif
    return std::nullopt;
  }
  // A GPU cannot tell; tileprobe's AMDGPU simulator can: its kernel loads (one per lane) of bytes of this buffer no one
  // wrote since the last upload, as never-written reads (elements and sites are not kept there).
  std::optional<access_report> unwritten_reads() const {
  #if TP_BACKEND_HIP
    if (tpHipRuntimeIsSimulator())
      if (const long long n = tpHipSimUnwrittenLoads(d_); n >= 0) {
        access_report r;
        r.never_written_reads = static_cast<std::uint64_t>(n);
        return r;
      }
  #endif
    return std::nullopt;
  }

 private:
  void host_write(const void* src, std::size_t n) {
    gpu_detail::check(TP_GPU_API(Memcpy)(d_, src, n * sizeof(T), TP_GPU_H2D), "memcpy host to device");
  }
  void host_read(void* dst, std::size_t n) const {
    gpu_detail::check(TP_GPU_API(Memcpy)(dst, d_, n * sizeof(T), TP_GPU_D2H), "memcpy device to host");
  }
  void allocate(std::size_t n) {
    void* p = nullptr;
    gpu_detail::check(TP_GPU_API(Malloc)(&p, (n == 0 ? 1 : n) * sizeof(T)), "malloc");
    d_ = static_cast<T*>(p);
    capacity_ = n;
  }
  T* d_ = nullptr;
  std::size_t n_ = 0, capacity_ = 0;
};

}  // namespace TP_GPU_NS

#endif

}  // namespace tp

// Launch with the kernel's name in error messages: TP_LAUNCH(my_kernel, tp::dims{g, b}, args...).
namespace tp {
template <class K, class... A>
void launch_named(const char* name, K kernel, dims d, A&&... args) {
  d.name = name;
  launch(d, kernel, std::forward<A>(args)...);
}
}  // namespace tp
#define TP_LAUNCH(kernel_, ...) ::tp::launch_named(#kernel_, kernel_, __VA_ARGS__)
