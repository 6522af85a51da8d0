// The HIP entry points of tp_hip_runtime, the library every hip binary links instead of libamdhip64. One process,
// one mode, decided at the first call from TILEPROBE_HIP:
//   unset or empty   forward every call to the real libamdhip64 (dlopen'ed: the path cmake found, then the soname);
//                    when it cannot be loaded, behave as a runtime with no device (probes exit 77)
//   sim, sim:<arch>  tileprobe's AMDGPU simulator (gfx1201 by default; any arch the machine half executes)
//   anything else    a misconfiguration: one line on stderr naming the value, no device, and tpHipRuntimeProblem()
//                    says why (simt/host.h turns it into exit 2)
// The symbols are the ones clang's HIP host code and simt/host.h reference (nm -u of the hip objects): the
// registration ABI clang emits (__hipRegisterFatBinary, __hipRegisterFunction, __hipUnregisterFatBinary,
// __hipPushCallConfiguration / __hipPopCallConfiguration, hipLaunchKernel) and the runtime API of the dialect.
// Declared by the HIP headers the hip objects were compiled with, so the signatures (and ROCm 6's renamed
// hipGetDeviceProperties, a macro there) are theirs.
#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <mutex>
#include <new>
#include <string>
#include <utility>
#include <vector>

#include <hip/hip_runtime_api.h>

#include "simt/hip/runtime_ext.h"
#if TP_HIP_SIM
  #include "simt/amdgpu_sim/runtime/simulator.h"
#endif

#define TP_STR2(x) #x
#define TP_STR(x) TP_STR2(x)  // after macro expansion: hipGetDeviceProperties -> "hipGetDevicePropertiesR0600" on ROCm 6

// Not declared by the HIP headers: the registration calls clang emits into every -x hip translation unit's
// constructor (clang/lib/CodeGen/CGCUDANV.cpp), with the parameter types AMD's runtime defines them with.
extern "C" {
void** __hipRegisterFatBinary(const void* data);
void __hipUnregisterFatBinary(void** modules);
void __hipRegisterFunction(void** modules, const void* host_function, char* device_function, const char* device_name,
                           unsigned int thread_limit, void* tid, void* bid, dim3* block_dim, dim3* grid_dim,
                           int* wave_size);
void __hipRegisterVar(void** modules, void* var, char* host_var, char* device_var, int ext, size_t size, int constant,
                      int global);
}

namespace {

enum class mode_kind { real, sim, problem };
struct mode_t {
  mode_kind kind = mode_kind::real;
  std::string arch;     // sim
  std::string problem;  // problem: one line
};

mode_t decide_mode() {
  const char* env = std::getenv("TILEPROBE_HIP");
  mode_t m;
  if (!env || !*env) return m;
  const std::string v = env;
  if (v == "sim" || v.rfind("sim:", 0) == 0) {
    const std::string arch = v == "sim" ? "gfx1201" : v.substr(4);
#if TP_HIP_SIM
    if (tp::amdgpu_sim::arch_supported(arch)) {
      m.kind = mode_kind::sim;
      m.arch = arch;
      return m;
    }
    m.problem = "TILEPROBE_HIP=" + v + ": the simulator does not execute " + (arch.empty() ? "an empty arch" : arch) +
                " (it executes gfx1200, gfx1201, gfx1100, gfx1101 and gfx1102; TILEPROBE_HIP=sim is gfx1201)";
#else
    m.problem = "TILEPROBE_HIP=" + v + ": this hip build was built without the simulator (configure found no "
                "LLVM 19 with the AMDGPU target: install llvm-19-dev and reconfigure); unset TILEPROBE_HIP for the "
                "real HIP runtime";
#endif
  } else {
    m.problem = "TILEPROBE_HIP='" + v + "' is not understood: leave it unset (the real HIP runtime) or set sim or "
                "sim:<arch>";
  }
  m.kind = mode_kind::problem;
  std::fprintf(stderr, "tileprobe HIP runtime: %s\n", m.problem.c_str());
  return m;
}

const mode_t& mode() {
  static const mode_t m = decide_mode();
  return m;
}
bool real_mode() { return mode().kind == mode_kind::real; }

// ---- the real runtime ----
// RTLD_DEEPBIND: libamdhip64's own calls of its exported hip* functions must bind to its definitions, not to these
// forwarders (which are first in the global scope).
void* real_library() {
  static void* const handle = [] {
#ifdef TP_AMDHIP64_LIBRARY
    if (void* h = dlopen(TP_AMDHIP64_LIBRARY, RTLD_NOW | RTLD_LOCAL | RTLD_DEEPBIND)) return h;
#endif
    return dlopen("libamdhip64.so", RTLD_NOW | RTLD_LOCAL | RTLD_DEEPBIND);
  }();
  return handle;
}
template <class F>
F real_symbol(const char* name) {
  void* h = real_library();
  return h ? reinterpret_cast<F>(dlsym(h, name)) : nullptr;
}
// Forward to the real function of the same (macro-expanded) name, or answer "no device" when there is none.
// TP_FORWARD_AS names the C signature where the headers add C++ overloads (hipMalloc's template for typed pointers).
#define TP_FORWARD_AS(type, fn, ...)                                   \
  do {                                                                 \
    static const auto real_fn = real_symbol<type>(TP_STR(fn));         \
    if (!real_fn) return hipErrorNoDevice;                             \
    return real_fn(__VA_ARGS__);                                       \
  } while (0)
#define TP_FORWARD(fn, ...) TP_FORWARD_AS(decltype(&fn), fn, __VA_ARGS__)

// ---- errors (simulator and no-runtime modes) ----
thread_local hipError_t last_error = hipSuccess;
thread_local hipError_t detailed_error = hipSuccess;  // the code whose message detail holds
thread_local std::string detail;

hipError_t fail(hipError_t e, std::string message = {}) {
  last_error = e;
  if (!message.empty()) {
    detailed_error = e;
    detail = std::move(message);
  }
  return e;
}

const char* error_name(hipError_t e) {
  switch (e) {
    case hipSuccess: return "hipSuccess";
    case hipErrorInvalidValue: return "hipErrorInvalidValue";
    case hipErrorOutOfMemory: return "hipErrorOutOfMemory";
    case hipErrorInvalidConfiguration: return "hipErrorInvalidConfiguration";
    case hipErrorInvalidDeviceFunction: return "hipErrorInvalidDeviceFunction";
    case hipErrorNoDevice: return "hipErrorNoDevice";
    case hipErrorInvalidDevice: return "hipErrorInvalidDevice";
    case hipErrorNoBinaryForGpu: return "hipErrorNoBinaryForGpu";
    case hipErrorLaunchFailure: return "hipErrorLaunchFailure";
    case hipErrorNotSupported: return "hipErrorNotSupported";
    case hipErrorUnknown: return "hipErrorUnknown";
    default: return "hipErrorUnrecognized";
  }
}
const char* error_string(hipError_t e) {
  if (e != hipSuccess && e == detailed_error && !detail.empty()) return detail.c_str();
  switch (e) {
    case hipSuccess: return "no error";
    case hipErrorInvalidValue: return "invalid argument";
    case hipErrorOutOfMemory: return "out of memory";
    case hipErrorInvalidConfiguration: return "invalid configuration argument";
    case hipErrorInvalidDeviceFunction: return "invalid device function";
    case hipErrorNoDevice: return "no ROCm-capable device is detected";
    case hipErrorInvalidDevice: return "invalid device ordinal";
    case hipErrorNoBinaryForGpu: return "no kernel image is available for execution on the device";
    case hipErrorLaunchFailure: return "unspecified launch failure";
    case hipErrorNotSupported: return "operation not supported";
    default: return "unknown error";
  }
}

#if TP_HIP_SIM
namespace sim = tp::amdgpu_sim;

sim::simulator& simulated() {
  static sim::simulator* const s = new sim::simulator(mode().arch);  // never destroyed: atexit unregisters run late
  return *s;
}

hipError_t to_hip(sim::sim_status s) {
  switch (s) {
    case sim::sim_status::invalid_value: return hipErrorInvalidValue;
    case sim::sim_status::out_of_memory: return hipErrorOutOfMemory;
    case sim::sim_status::invalid_device_function: return hipErrorInvalidDeviceFunction;
    case sim::sim_status::no_binary_for_gpu: return hipErrorNoBinaryForGpu;
    case sim::sim_status::invalid_configuration: return hipErrorInvalidConfiguration;
    case sim::sim_status::launch_failure: return hipErrorLaunchFailure;
  }
  return hipErrorUnknown;
}

// Runs one simulated call: exceptions never cross the C boundary; each becomes the call's hipError_t and message.
template <class F>
hipError_t guarded(F&& f) {
  try {
    std::lock_guard<std::mutex> g(simulated().lock());
    f(simulated());
    return hipSuccess;
  } catch (const sim::sim_api_error& e) {
    return fail(to_hip(e.status), e.what());
  } catch (const sim::sim_error& e) {
    return fail(hipErrorInvalidValue, std::string("tileprobe simulator: ") + e.what());
  } catch (const std::bad_alloc&) {
    return fail(hipErrorOutOfMemory, "tileprobe simulator: host out of memory");
  } catch (const std::exception& e) {
    return fail(hipErrorUnknown, std::string("tileprobe simulator: ") + e.what());
  }
}

struct call_configuration {
  dim3 grid, block;
  size_t shared;
  hipStream_t stream;
};
thread_local std::vector<call_configuration> configurations;

uint64_t addr(const void* p) { return reinterpret_cast<uint64_t>(p); }
#endif

bool simulating() { return mode().kind == mode_kind::sim; }
bool no_device() { return mode().kind == mode_kind::problem || (real_mode() && !real_library()); }

}  // namespace

// The simulator's calls, or "no device" where it is not built (mode() is never sim then).
#if TP_HIP_SIM
  #define TP_SIM(...) return guarded([&](sim::simulator & s) { __VA_ARGS__; })
#else
  #define TP_SIM(...) return hipErrorNoDevice
#endif

extern "C" {

const char* tpHipRuntimeProblem(void) { return mode().kind == mode_kind::problem ? mode().problem.c_str() : nullptr; }
int tpHipRuntimeIsSimulator(void) { return simulating() ? 1 : 0; }
long long tpHipSimUnwrittenLoads(const void* device_ptr) {
#if TP_HIP_SIM
  if (!simulating()) return -1;
  std::lock_guard<std::mutex> g(simulated().lock());
  if (!simulated().memory().contains(addr(device_ptr), 0)) return -1;
  return static_cast<long long>(simulated().memory().unwritten_loads_of(addr(device_ptr)).loads);
#else
  (void)device_ptr;
  return -1;
#endif
}

int tpHipSimKernelWritten(const void* device_ptr, unsigned char* flags, unsigned long long bytes) {
#if TP_HIP_SIM
  if (!simulating()) return -1;
  std::lock_guard<std::mutex> g(simulated().lock());
  return simulated().memory().kernel_written(addr(device_ptr), std::size_t(bytes), flags) ? 0 : -1;
#else
  (void)device_ptr, (void)flags, (void)bytes;
  return -1;
#endif
}

int tpHipSimDeclareAddressWords(const void* device_ptr, const unsigned long long* byte_offsets, unsigned long long n) {
#if TP_HIP_SIM
  if (!simulating()) return -1;
  std::lock_guard<std::mutex> g(simulated().lock());
  const std::vector<uint64_t> offsets(byte_offsets, byte_offsets + n);
  return simulated().memory().declare_address_words(addr(device_ptr), offsets) ? 0 : -1;
#else
  (void)device_ptr, (void)byte_offsets, (void)n;
  return -1;
#endif
}

int tpHipSimSetSchedule(int policy, unsigned long long seed, int detect_lds_races) {
#if TP_HIP_SIM
  if (!simulating() || policy < 0 || policy > int(sim::wave_schedule::adversarial)) return -1;
  std::lock_guard<std::mutex> g(simulated().lock());
  simulated().set_schedule(sim::wave_schedule(policy), seed, detect_lds_races != 0);
  return 0;
#else
  (void)policy, (void)seed, (void)detect_lds_races;
  return -1;
#endif
}

const char* tpHipSimTakeLdsHazards(unsigned long long counts[3]) {
#if TP_HIP_SIM
  if (!simulating()) return nullptr;
  std::lock_guard<std::mutex> g(simulated().lock());
  const sim::lds_hazard_report r = simulated().take_lds_hazards();
  counts[0] = r.raw;
  counts[1] = r.war;
  counts[2] = r.waw;
  static std::string text;
  text.clear();
  for (const sim::lds_hazard& h : r.first) text += sim::describe(h) + '\n';
  return text.c_str();
#else
  (void)counts;
  return nullptr;
#endif
}

double tpHipSimTakeLoadSeconds(void) {
#if TP_HIP_SIM
  if (!simulating()) return 0;
  std::lock_guard<std::mutex> g(simulated().lock());
  return simulated().take_load_seconds();
#else
  return 0;
#endif
}

unsigned long long tpHipSimExecutedInstructions(void) {
#if TP_HIP_SIM
  if (!simulating()) return 0;
  std::lock_guard<std::mutex> g(simulated().lock());
  return simulated().executed_instructions();
#else
  return 0;
#endif
}

// ---- registration ----
void** __hipRegisterFatBinary(const void* data) {
#if TP_HIP_SIM
  if (simulating()) {
    std::lock_guard<std::mutex> g(simulated().lock());
    return static_cast<void**>(simulated().register_fatbin(data));
  }
#endif
  static const auto real_fn = real_mode() ? real_symbol<decltype(&__hipRegisterFatBinary)>("__hipRegisterFatBinary") : nullptr;
  if (real_fn) return real_fn(data);
  // No runtime: a handle that the other registration calls recognise and ignore.
  static void* no_runtime_handle = nullptr;
  return &no_runtime_handle;
}

void __hipUnregisterFatBinary(void** modules) {
#if TP_HIP_SIM
  if (simulating()) {
    std::lock_guard<std::mutex> g(simulated().lock());
    simulated().unregister_fatbin(modules);
    return;
  }
#endif
  static const auto real_fn = real_mode() ? real_symbol<decltype(&__hipUnregisterFatBinary)>("__hipUnregisterFatBinary") : nullptr;
  if (real_fn) real_fn(modules);
}

void __hipRegisterFunction(void** modules, const void* host_function, char* device_function, const char* device_name,
                           unsigned int thread_limit, void* tid, void* bid, dim3* block_dim, dim3* grid_dim,
                           int* wave_size) {
#if TP_HIP_SIM
  if (simulating()) {
    std::lock_guard<std::mutex> g(simulated().lock());
    simulated().register_function(modules, host_function, device_name ? device_name : device_function);
    return;
  }
#endif
  static const auto real_fn = real_mode() ? real_symbol<decltype(&__hipRegisterFunction)>("__hipRegisterFunction") : nullptr;
  if (real_fn)
    real_fn(modules, host_function, device_function, device_name, thread_limit, tid, bid, block_dim, grid_dim,
            wave_size);
}

// __device__ variables: forwarded; the simulator does not relocate them (no kernel of the suite has one on HIP), so a
// kernel that reads one faults on an address outside every allocation, with a message.
void __hipRegisterVar(void** modules, void* var, char* host_var, char* device_var, int ext, size_t size, int constant,
                      int global) {
  static const auto real_fn = real_mode() ? real_symbol<decltype(&__hipRegisterVar)>("__hipRegisterVar") : nullptr;
  if (real_fn) real_fn(modules, var, host_var, device_var, ext, size, constant, global);
}

hipError_t __hipPushCallConfiguration(dim3 grid, dim3 block, size_t shared, hipStream_t stream) {
  if (simulating()) {
#if TP_HIP_SIM
    configurations.push_back({grid, block, shared, stream});
#endif
    return hipSuccess;
  }
  if (no_device()) return fail(hipErrorNoDevice);
  TP_FORWARD(__hipPushCallConfiguration, grid, block, shared, stream);
}

hipError_t __hipPopCallConfiguration(dim3* grid, dim3* block, size_t* shared, hipStream_t* stream) {
  if (simulating()) {
#if TP_HIP_SIM
    if (configurations.empty()) return fail(hipErrorInvalidConfiguration, "launch without a call configuration");
    const call_configuration c = configurations.back();
    configurations.pop_back();
    *grid = c.grid;
    *block = c.block;
    *shared = c.shared;
    *stream = c.stream;
#endif
    return hipSuccess;
  }
  if (no_device()) return fail(hipErrorNoDevice);
  TP_FORWARD(__hipPopCallConfiguration, grid, block, shared, stream);
}

// Launches on the simulator run to completion before returning, so every stream is trivially in order.
hipError_t hipLaunchKernel(const void* function_address, dim3 grid, dim3 block, void** args, size_t shared,
                           hipStream_t stream) {
  if (simulating())
    TP_SIM(s.launch(function_address, {grid.x, grid.y, grid.z}, {block.x, block.y, block.z}, args, shared));
  if (no_device()) return fail(hipErrorNoDevice);
  TP_FORWARD(hipLaunchKernel, function_address, grid, block, args, shared, stream);
}

hipError_t hipFuncSetAttribute(const void* func, hipFuncAttribute attr, int value) {
  if (simulating())
    TP_SIM(
        if (!s.knows(func)) throw tp::amdgpu_sim::sim_api_error(tp::amdgpu_sim::sim_status::invalid_device_function,
                                                                "hipFuncSetAttribute: not a registered kernel");
        if (attr == hipFuncAttributeMaxDynamicSharedMemorySize &&
            (value < 0 || std::size_t(value) > s.limits().lds_bytes_per_workgroup))
            throw tp::amdgpu_sim::sim_api_error(tp::amdgpu_sim::sim_status::invalid_value,
                                                "hipFuncSetAttribute: " + std::to_string(value) +
                                                    " bytes of dynamic LDS; the device has " +
                                                    std::to_string(s.limits().lds_bytes_per_workgroup)));
  if (no_device()) return fail(hipErrorNoDevice);
  TP_FORWARD(hipFuncSetAttribute, func, attr, value);
}

// ---- device ----
hipError_t hipGetDeviceCount(int* count) {
  if (!count) return fail(hipErrorInvalidValue);
  if (simulating()) {
    *count = 1;
    return hipSuccess;
  }
  if (no_device()) {
    *count = 0;
    return fail(hipErrorNoDevice);
  }
  TP_FORWARD(hipGetDeviceCount, count);
}

hipError_t hipGetDevice(int* device) {
  if (simulating()) {
    if (!device) return fail(hipErrorInvalidValue);
    *device = 0;
    return hipSuccess;
  }
  if (no_device()) return fail(hipErrorNoDevice);
  TP_FORWARD(hipGetDevice, device);
}

hipError_t hipSetDevice(int device) {
  if (simulating()) return device == 0 ? hipSuccess : fail(hipErrorInvalidDevice);
  if (no_device()) return fail(hipErrorNoDevice);
  TP_FORWARD(hipSetDevice, device);
}

hipError_t hipGetDeviceProperties(hipDeviceProp_t* p, int device) {
  if (simulating()) {
#if TP_HIP_SIM
    if (!p) return fail(hipErrorInvalidValue);
    if (device != 0) return fail(hipErrorInvalidDevice);
    const auto& l = simulated().limits();
    std::memset(p, 0, sizeof *p);
    std::snprintf(p->name, sizeof p->name, "%s (tileprobe simulator)", l.arch.c_str());
    std::snprintf(p->gcnArchName, sizeof p->gcnArchName, "%s", l.arch.c_str());
    p->totalGlobalMem = l.global_bytes;
    p->sharedMemPerBlock = l.lds_bytes_per_workgroup;
    p->maxSharedMemoryPerMultiProcessor = l.lds_bytes_per_workgroup;
    p->regsPerBlock = 65536;
    p->warpSize = 32;
    p->maxThreadsPerBlock = int(l.max_threads_per_block);
    p->maxThreadsDim[0] = p->maxThreadsDim[1] = p->maxThreadsDim[2] = 1024;
    p->maxGridSize[0] = 0x7fffffff;
    p->maxGridSize[1] = p->maxGridSize[2] = 65535;
    p->multiProcessorCount = int(l.compute_units);
    p->maxThreadsPerMultiProcessor = 2048;
    p->totalConstMem = l.global_bytes;
    // HIP's "compute capability" of an AMD device is the gfx major version and minor digit (gfx1201: 12.0).
    p->major = l.arch.size() >= 5 ? std::atoi(l.arch.substr(3, l.arch.size() - 5).c_str()) : 0;
    p->minor = l.arch.size() >= 5 ? l.arch[l.arch.size() - 2] - '0' : 0;
  #if HIP_VERSION_MAJOR < 6
    p->gcnArch = p->major * 100 + p->minor * 10 + (l.arch.back() - '0');
  #endif
    p->concurrentKernels = 0;  // launches run one at a time, to completion
    return hipSuccess;
#endif
  }
  if (no_device()) return fail(hipErrorNoDevice);
  TP_FORWARD(hipGetDeviceProperties, p, device);
}

hipError_t hipDeviceSynchronize(void) {
  if (simulating()) return hipSuccess;
  if (no_device()) return fail(hipErrorNoDevice);
  TP_FORWARD(hipDeviceSynchronize);
}

hipError_t hipStreamSynchronize(hipStream_t stream) {
  if (simulating()) return hipSuccess;
  if (no_device()) return fail(hipErrorNoDevice);
  TP_FORWARD(hipStreamSynchronize, stream);
}

// The simulator implements the runtime API of the HIP headers it is built with, so it reports their version for both
// the runtime and the driver API; simt/host.h says "simulator" beside it (tpHipRuntimeIsSimulator).
hipError_t hipRuntimeGetVersion(int* v) {
  if (simulating() || no_device()) {
    if (!v) return fail(hipErrorInvalidValue);
    *v = simulating() ? HIP_VERSION : 0;
    return simulating() ? hipSuccess : fail(hipErrorNoDevice);
  }
  TP_FORWARD(hipRuntimeGetVersion, v);
}

hipError_t hipDriverGetVersion(int* v) {
  if (simulating() || no_device()) {
    if (!v) return fail(hipErrorInvalidValue);
    *v = simulating() ? HIP_VERSION : 0;
    return simulating() ? hipSuccess : fail(hipErrorNoDevice);
  }
  TP_FORWARD(hipDriverGetVersion, v);
}

// ---- memory ----
hipError_t hipMalloc(void** p, size_t bytes) {
  if (simulating()) {
    if (!p) return fail(hipErrorInvalidValue);
    TP_SIM(*p = reinterpret_cast<void*>(s.malloc(bytes)));
  }
  if (no_device()) return fail(hipErrorNoDevice);
  TP_FORWARD_AS(hipError_t (*)(void**, size_t), hipMalloc, p, bytes);
}

hipError_t hipFree(void* p) {
  if (simulating()) TP_SIM(s.free(addr(p)));
  if (no_device()) return fail(hipErrorNoDevice);
  TP_FORWARD(hipFree, p);
}

hipError_t hipMemcpy(void* dst, const void* src, size_t bytes, hipMemcpyKind kind) {
  if (simulating())
    TP_SIM({
      auto& m = s.memory();
      hipMemcpyKind k = kind;
      if (k == hipMemcpyDefault) {
        const bool d = m.contains(addr(dst), bytes), sr = m.contains(addr(src), bytes);
        k = d ? (sr ? hipMemcpyDeviceToDevice : hipMemcpyHostToDevice)
              : (sr ? hipMemcpyDeviceToHost : hipMemcpyHostToHost);
      }
      switch (k) {
        case hipMemcpyHostToDevice: m.host_write(addr(dst), src, bytes); break;
        case hipMemcpyDeviceToHost: m.host_read(addr(src), dst, bytes); break;
        case hipMemcpyDeviceToDevice: m.copy(addr(dst), addr(src), bytes); break;
        case hipMemcpyHostToHost: std::memmove(dst, src, bytes); break;
        default:
          throw tp::amdgpu_sim::sim_api_error(tp::amdgpu_sim::sim_status::invalid_value,
                                              "hipMemcpy: unknown kind " + std::to_string(int(kind)));
      }
    });
  if (no_device()) return fail(hipErrorNoDevice);
  TP_FORWARD(hipMemcpy, dst, src, bytes, kind);
}

hipError_t hipMemcpyAsync(void* dst, const void* src, size_t bytes, hipMemcpyKind kind, hipStream_t stream) {
  if (simulating()) return hipMemcpy(dst, src, bytes, kind);
  if (no_device()) return fail(hipErrorNoDevice);
  TP_FORWARD(hipMemcpyAsync, dst, src, bytes, kind, stream);
}

hipError_t hipMemset(void* dst, int value, size_t bytes) {
  if (simulating()) TP_SIM(s.memory().fill(addr(dst), uint8_t(value), bytes));
  if (no_device()) return fail(hipErrorNoDevice);
  TP_FORWARD(hipMemset, dst, value, bytes);
}

hipError_t hipMemsetAsync(void* dst, int value, size_t bytes, hipStream_t stream) {
  if (simulating()) return hipMemset(dst, value, bytes);
  if (no_device()) return fail(hipErrorNoDevice);
  TP_FORWARD(hipMemsetAsync, dst, value, bytes, stream);
}

hipError_t hipMemsetD32(hipDeviceptr_t dst, int value, size_t count) {
  if (simulating()) TP_SIM(s.memory().fill32(addr(dst), uint32_t(value), count));
  if (no_device()) return fail(hipErrorNoDevice);
  TP_FORWARD(hipMemsetD32, dst, value, count);
}

// ---- errors ----
hipError_t hipGetLastError(void) {
  if (simulating() || no_device()) return std::exchange(last_error, hipSuccess);
  TP_FORWARD(hipGetLastError);
}

hipError_t hipPeekAtLastError(void) {
  if (simulating() || no_device()) return last_error;
  TP_FORWARD(hipPeekAtLastError);
}

const char* hipGetErrorName(hipError_t e) {
  if (!simulating() && !no_device()) {
    static const auto real_fn = real_symbol<decltype(&hipGetErrorName)>("hipGetErrorName");
    if (real_fn) return real_fn(e);
  }
  return error_name(e);
}

const char* hipGetErrorString(hipError_t e) {
  if (!simulating() && !no_device()) {
    static const auto real_fn = real_symbol<decltype(&hipGetErrorString)>("hipGetErrorString");
    if (real_fn) return real_fn(e);
  }
  return error_string(e);
}

}  // extern "C"
