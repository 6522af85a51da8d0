// __half2's .x and .y read as halves, built exactly as a tree variant is (kernels/fattn_tree: the HIP 5.2.3
// compatibility layer force-included, the derived amd_hip_fp16.h first on the include path).
//
// Against HIP 5.2.3's own header .x/.y are unsigned short and `__half2float(h2.x)` converts the bit pattern as an
// integer: 0x3E00 (1.5) would read 15872. The static_assert catches that at compile time (tests/fa_tree also compiles
// this file without the derived header and requires the assertion to fire); the kernel, run on the simulator (or a
// card), checks the values a kernel computes, on hand-derived bit patterns.
//   exit 0: every half read as its value; 1: a value differs (printed); 77: no HIP device.
#include <cstdio>
#include <cstring>
#include <type_traits>
#include <utility>

#include <hip/hip_fp16.h>
#include <hip/hip_runtime.h>

static_assert(std::is_same_v<decltype(std::declval<__half2&>().x), __half> &&
                  std::is_same_v<decltype(std::declval<__half2&>().y), __half>,
              "__half2's .x/.y are not __half: the tree's __half2float(h2.x) would convert raw bits as an integer");

__global__ void half2_halves(const __half2* in, float* out, int n) {
  const int i = int(blockIdx.x * blockDim.x + threadIdx.x);
  if (i < n) {
    out[2 * i] = __half2float(in[i].x);
    out[2 * i + 1] = __half2float(in[i].y);
  }
}

int main() {
  // (x bits, y bits) -> (x, y): IEEE binary16, sign | 5-bit exponent (bias 15) | 10-bit fraction.
  struct pair {
    unsigned short x, y;
    float fx, fy;
  };
  const pair cases[] = {
      {0x3E00, 0xC080, 1.5f, -2.25f},           // 0 01111 1000000000 = 1.5;  1 10000 0010000000 = -2.25
      {0x7BFF, 0x0001, 65504.0f, 0x1p-24f},     // the largest finite half; the smallest subnormal 2^-24
      {0x8000, 0x3C00, -0.0f, 1.0f},            // negative zero; one
      {0x0400, 0xFBFF, 0x1p-14f, -65504.0f},    // the smallest normal 2^-14; the most negative finite
  };
  const int n = int(sizeof cases / sizeof cases[0]);
  int devices = 0;
  if (hipGetDeviceCount(&devices) != hipSuccess || devices == 0) {
    std::puts("no HIP device (TILEPROBE_HIP=sim:gfx1100 runs this on tileprobe's simulator)");
    return 77;
  }
  __half2 host[n];
  for (int i = 0; i < n; ++i) {
    const unsigned bits = cases[i].x | unsigned(cases[i].y) << 16;  // .x is the low half in memory
    std::memcpy(&host[i], &bits, sizeof bits);
  }
  __half2* in = nullptr;
  float* out = nullptr;
  float got[2 * n] = {};
  if (hipMalloc(reinterpret_cast<void**>(&in), sizeof host) != hipSuccess ||
      hipMalloc(reinterpret_cast<void**>(&out), sizeof got) != hipSuccess ||
      hipMemcpy(in, host, sizeof host, hipMemcpyHostToDevice) != hipSuccess) {
    std::puts("HIP allocation or copy failed");
    return 1;
  }
  half2_halves<<<1, 32>>>(in, out, n);
  if (hipGetLastError() != hipSuccess || hipDeviceSynchronize() != hipSuccess ||
      hipMemcpy(got, out, sizeof got, hipMemcpyDeviceToHost) != hipSuccess) {
    std::printf("launch failed: %s\n", hipGetErrorString(hipGetLastError()));
    return 1;
  }
  int bad = 0;
  for (int i = 0; i < n; ++i)
    for (int half = 0; half < 2; ++half) {
      const float want = half ? cases[i].fy : cases[i].fx, have = got[2 * i + half];
      if (std::memcmp(&want, &have, sizeof want) != 0) {
        std::printf("pair %d .%c: bits 0x%04X read as %a, expected %a\n", i, half ? 'y' : 'x',
                    half ? cases[i].y : cases[i].x, have, want);
        ++bad;
      }
    }
  std::printf("%d of %d halves read as their values through __half2float(h2.x / h2.y)\n", 2 * n - bad, 2 * n);
  return bad ? 1 : 0;
}
