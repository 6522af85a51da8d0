// The minimal reproducers of the findings against rocJITsu (README.md "Checked against AMD's emulator"), one kernel
// each, run as kernels: on this simulator each must give the answer the RDNA3 / RDNA4 ISA guides define (this file's
// test), and regenerate records their launches into the default corpus, so rocJITsu's own answer sits beside them and
// the replay names the finding that explains each difference (disagreements.txt).
//
//   fma-mix     v_fma_mix_f32 with binary32 sources S0 = S1 = 1 + 2^-12, S2 = -(1 + 2^-11): one fma rounded once
//               (the guides' V_FMA_MIX_F32 pseudocode) gives 2^-24; a rounding after the multiply (1 + 2^-11 + 2^-24
//               is a tie between 1 + 2^-11 and its successor, to even: 1 + 2^-11) gives 0.    finding fma-mix-unfused
//   workitem-y  a 32 x 2 workgroup storing (threadIdx.y << 16 | threadIdx.x) per thread: the second wave's threads
//               have y = 1, read by clang from v0[19:10] (gfx11+ deliver the IDs packed in v0).
//                                                                                      finding unpacked-workitem-id
//   s102-branch clang's long-branch sequence through s[102:103] (s_getpc_b64, add the distance, s_setpc_b64) jumping
//               over an instruction: 1 stored; 7 if the jump fell through; the buffer's initial 0xFFFFFFFF if the
//               wave stopped at the jump.                                           finding sgpr-102-103-scratch-alias
//   salu-scc    (gfx1201) s_cmp_nlt_f32 0 >= -20 sets SCC = 1; s_rndne_f32 between it and the s_cselect_b32 that
//               reads it leaves SCC (the guides; clang schedules it there): 1.                finding gfx12-salu-float-scc
//   iu4-swmmac  (gfx1201) v_swmmac_i32_16x16x32_iu4 with one nonzero product: A row 0's first stored value of group 2
//               (K 8..11) = 1 (lane 0, bits [19:16]), its index fields (lane 0 bits [11:8]) 0b0100 (positions 0 and
//               1: K 8 and 9), B[8][0] = 1 (AMD's Matrix Instruction Calculator: lane 0, v1 bits [3:0]); every other
//               bit 0. D[0][0] (lane 0, d0) = 1, every other element 0.                    finding iu4-swmmac-layout
//   bcnt        v_bcnt_u32_b32 D, 0, 37: D = S1 + popcount(S0) = 37.                          finding bcnt-drops-s1
//   perm        v_perm_b32 D, 0x80000000, 0x00008000, selector 0x0e0b0908 (BYTE_PERMUTE of {S0, S1}): byte 0 by
//               selector 8, the sign of S1's low half-word (1: 0xff); byte 1 by 9, of S1's high one (0: 0x00); byte 2
//               by 11, of S0's high one (0xff); byte 3 by 14 (13 and above: 0xff): 0xffff00ff.  finding perm-selectors
//   minmax-nan  gfx12 v_max_num_f32 (RDNA4 V_MAX_NUM_F32: two NaNs give cvtToQuietNAN(S0)), gfx11 v_max_f32 (RDNA3
//               V_MAX_F32, IEEE mode: a signalling S0 quieted) of the signalling NaNs 0x7fa00001, 0x7fa00002:
//               0x7fe00001.                                                                  finding host-fminmax
//   pk-clamp    v_pk_mul_f16 D, 2.0|2.0, 2.0|2.0 clamp: each half clamped to [0, 1]: 0x3c003c00.
//                                                                                       finding f16-host-narrowing
//   div-fixup   v_div_fixup_f32 D, 3.0, -2.0, 6.0 (quotient, denominator, numerator): the sign of S1 xor S2 on
//               |S0|: -3.0 (0xc0400000).                                                 finding div-helpers-frexp
//   ds-v0       v0 = 0x1234, then ds_add_u32 (no return value) on an LDS word holding 5, then v0 read back: 0x1234
//               (the guides return data only for the _RTN forms).                   finding ds-noreturn-v0-clobber
//
// Exit 0: each as the ISA defines; 1: one differs (printed) or a HIP call failed; 77: no RDNA3 / RDNA4 device. The
// gfx1201-only cases are named as not applicable on gfx1100, never counted. On an arch a kernel is not written for its
// body is empty (no trap: clang's gfx11 trap sequence holds instructions the simulator's coverage audit would have to
// declare for code that never runs); the host launches each only where it applies.
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include <hip/hip_runtime.h>

__global__ void fma_mix_f32(const float* in, float* out) {
  float d = 0.0f;
#if defined(__gfx1100__) || defined(__gfx1201__)
  // op_sel_hi 0 on every source: each is a binary32 value, not a half.
  asm volatile("v_fma_mix_f32 %0, %1, %2, %3 op_sel_hi:[0,0,0]" : "=v"(d) : "v"(in[0]), "v"(in[1]), "v"(in[2]));
#endif
  out[0] = d;
}

// The work-item IDs through the compiler's builtins (threadIdx goes through the device libraries, which the build's
// hip objects do without: -nogpulib); 32 x 2 threads.
__global__ void workitem_y(std::uint32_t* out) {
  const std::uint32_t x = __builtin_amdgcn_workitem_id_x(), y = __builtin_amdgcn_workitem_id_y();
  out[y * 32 + x] = y << 16 | x;
}

__global__ void s102_branch(std::uint32_t* out) {
  std::uint32_t v = 1;
#if defined(__gfx1100__) || defined(__gfx1201__)
  #if defined(__gfx1201__)
    #define TP_SALU_ADD "s_add_co_u32"
    #define TP_SALU_ADDC "s_add_co_ci_u32"
  #else
    #define TP_SALU_ADD "s_add_u32"
    #define TP_SALU_ADDC "s_addc_u32"
  #endif
  // s_getpc_b64 gives the address of the instruction after it (label 1); the jump lands on label 2, past the
  // v_mov_b32 that only a fall-through runs.
  asm volatile(
      "s_getpc_b64 s[102:103]\n"
      "1:\n\t" TP_SALU_ADD " s102, s102, 2f-1b\n\t" TP_SALU_ADDC " s103, s103, 0\n\t"
      "s_setpc_b64 s[102:103]\n\t"
      "v_mov_b32 %0, 7\n"
      "2:"
      : "+v"(v)
      :
      : "s102", "s103");
  #undef TP_SALU_ADD
  #undef TP_SALU_ADDC
#endif
  out[0] = v;
}

__global__ void salu_scc(const std::uint32_t* in, std::uint32_t* out) {
  std::uint32_t r = 0xFFFFFFFFu;
#if defined(__gfx1201__)
  const std::uint32_t zero = __builtin_amdgcn_readfirstlane(in[0]);  // +0.0f, from memory: not folded
  std::uint32_t rounded;
  asm volatile("s_cmp_nlt_f32 %2, 0xc1a00000\n\ts_rndne_f32 %1, %2\n\ts_cselect_b32 %0, 1, 0"
               : "=s"(r), "=&s"(rounded)
               : "s"(zero)
               : "scc");
#endif
  out[0] = r;
}

using v8i = int __attribute__((ext_vector_type(8)));
using v2i = int __attribute__((ext_vector_type(2)));

__global__ void iu4_swmmac(std::uint32_t* out) {
#if defined(__gfx1201__)
  const std::uint32_t lane = __builtin_amdgcn_workitem_id_x();
  const int a = lane == 0 ? 1 << 16 : 0, index = lane == 0 ? 0b0100 << 8 : 0;
  const v2i b = {0, lane == 0 ? 1 : 0};
  v8i d = {0, 0, 0, 0, 0, 0, 0, 0};
  asm volatile("v_swmmac_i32_16x16x32_iu4 %0, %1, %2, %3" : "+v"(d) : "v"(a), "v"(b), "v"(index));
  for (int r = 0; r < 8; ++r) out[r * 32 + lane] = std::uint32_t(d[r]);
#else
  (void)out;
#endif
}

// One VALU instruction per kernel on operands from memory (not folded by the compiler); lane 0 stores D.
__global__ void bcnt(const std::uint32_t* in, std::uint32_t* out) {
  std::uint32_t d = 0;
#if defined(__gfx1100__) || defined(__gfx1201__)
  asm volatile("v_bcnt_u32_b32 %0, %1, %2" : "=v"(d) : "v"(in[0]), "v"(in[1]));
#endif
  out[0] = d;
}

__global__ void perm(const std::uint32_t* in, std::uint32_t* out) {
  std::uint32_t d = 0;
#if defined(__gfx1100__) || defined(__gfx1201__)
  asm volatile("v_perm_b32 %0, %1, %2, %3" : "=v"(d) : "v"(in[0]), "v"(in[1]), "v"(in[2]));
#endif
  out[0] = d;
}

__global__ void minmax_nan(const std::uint32_t* in, std::uint32_t* out) {
  std::uint32_t d = 0;
#if defined(__gfx1201__)
  asm volatile("v_max_num_f32 %0, %1, %2" : "=v"(d) : "v"(in[0]), "v"(in[1]));
#elif defined(__gfx1100__)
  asm volatile("v_max_f32 %0, %1, %2" : "=v"(d) : "v"(in[0]), "v"(in[1]));
#endif
  out[0] = d;
}

__global__ void pk_clamp(const std::uint32_t* in, std::uint32_t* out) {
  std::uint32_t d = 0;
#if defined(__gfx1100__) || defined(__gfx1201__)
  asm volatile("v_pk_mul_f16 %0, %1, %2 clamp" : "=v"(d) : "v"(in[0]), "v"(in[1]));
#endif
  out[0] = d;
}

__global__ void div_fixup(const std::uint32_t* in, std::uint32_t* out) {
  std::uint32_t d = 0;
#if defined(__gfx1100__) || defined(__gfx1201__)
  asm volatile("v_div_fixup_f32 %0, %1, %2, %3" : "=v"(d) : "v"(in[0]), "v"(in[1]), "v"(in[2]));
#endif
  out[0] = d;
}

// Each lane adds 1 to its own LDS word (5 before) with ds_add_u32, whose encoding has an unused vdst field (0: v0).
__global__ void ds_noreturn_v0(std::uint32_t* out) {
  __shared__ std::uint32_t words[32];
  const std::uint32_t lane = __builtin_amdgcn_workitem_id_x();
  words[lane] = 5;  // each lane touches its own word only: no barrier (the asm's "memory" clobber keeps the order)
  std::uint32_t v0 = 0;
#if defined(__gfx1100__) || defined(__gfx1201__)
  const std::uint32_t at = std::uint32_t(reinterpret_cast<std::uintptr_t>(&words[lane]));
  #if defined(__gfx1201__)
    #define TP_WAIT_LDS "s_wait_dscnt 0x0"
  #else
    #define TP_WAIT_LDS "s_waitcnt lgkmcnt(0)"
  #endif
  asm volatile("v_mov_b32 v0, 0x1234\n\tds_add_u32 %1, %2\n\t" TP_WAIT_LDS "\n\tv_mov_b32 %0, v0"
               : "=v"(v0)
               : "v"(at), "v"(1u)
               : "v0", "memory");
  #undef TP_WAIT_LDS
#endif
  out[lane] = v0;
}

namespace {

bool ok(hipError_t e, const char* what) {
  if (e == hipSuccess) return true;
  std::printf("%s failed: %s\n", what, hipGetErrorString(e));
  return false;
}

template <class T>
T* device_copy(const T* host, std::size_t n) {
  void* p = nullptr;
  if (!ok(hipMalloc(&p, n * sizeof(T)), "hipMalloc") || !ok(hipMemcpy(p, host, n * sizeof(T), hipMemcpyHostToDevice), "hipMemcpy"))
    return nullptr;
  return static_cast<T*>(p);
}

template <class T>
bool fetch(T* host, const T* dev, std::size_t n) {
  return ok(hipGetLastError(), "launch") && ok(hipDeviceSynchronize(), "hipDeviceSynchronize") &&
         ok(hipMemcpy(host, dev, n * sizeof(T), hipMemcpyDeviceToHost), "hipMemcpy");
}

std::uint32_t bits(float f) {
  std::uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}

}  // namespace

int main() {
  int devices = 0;
  hipDeviceProp_t prop{};
  if (hipGetDeviceCount(&devices) != hipSuccess || devices == 0 || hipGetDeviceProperties(&prop, 0) != hipSuccess) {
    std::puts("no HIP device (TILEPROBE_HIP=sim:gfx1201 or sim:gfx1100 runs this on tileprobe's simulator)");
    return 77;
  }
  const std::string arch = std::string(prop.gcnArchName).substr(0, std::string(prop.gcnArchName).find(':'));
  if (arch != "gfx1100" && arch != "gfx1201") {
    std::printf("the reproducers are for gfx1100 and gfx1201; the device is %s\n", arch.c_str());
    return 77;
  }
  int bad = 0;
  const auto report = [&](const char* name, bool as_defined, const std::string& what) {
    std::printf("%s %s: %s\n", as_defined ? "ok  " : "FAIL", name, what.c_str());
    bad += !as_defined;
  };
  char line[256];

  const float fma_in[3] = {1.0f + 0x1p-12f, 1.0f + 0x1p-12f, -(1.0f + 0x1p-11f)};
  float fma_out = -1.0f;
  float *fi = device_copy(fma_in, 3), *fo = device_copy(&fma_out, 1);
  if (!fi || !fo) return 1;
  fma_mix_f32<<<1, 32>>>(fi, fo);
  if (!fetch(&fma_out, fo, 1)) return 1;
  std::snprintf(line, sizeof line, "v_fma_mix_f32(1 + 2^-12, 1 + 2^-12, -(1 + 2^-11)) = %a (0x%08x); the ISA: 0x1p-24",
                double(fma_out), bits(fma_out));
  report("fma-mix", bits(fma_out) == bits(0x1p-24f), line);

  std::uint32_t ids[64];
  std::memset(ids, 0xFF, sizeof ids);
  std::uint32_t* io = device_copy(ids, 64);
  if (!io) return 1;
  workitem_y<<<1, dim3(32, 2)>>>(io);
  if (!fetch(ids, io, 64)) return 1;
  int wrong = 0, first = -1;
  for (std::uint32_t t = 0; t < 64; ++t)
    if (ids[t] != ((t / 32) << 16 | (t % 32)) && wrong++ == 0) first = int(t);
  std::snprintf(line, sizeof line, "32 x 2 workgroup: %d of 64 threads stored their (y << 16 | x)", 64 - wrong);
  std::string what = line;
  if (wrong) {
    std::snprintf(line, sizeof line, "; thread %d (x %d, y %d) stored 0x%08x", first, first % 32, first / 32, ids[first]);
    what += line;
  }
  report("workitem-y", wrong == 0, what);

  std::uint32_t branch = 0xFFFFFFFFu;
  std::uint32_t* bo = device_copy(&branch, 1);
  if (!bo) return 1;
  s102_branch<<<1, 32>>>(bo);
  if (!fetch(&branch, bo, 1)) return 1;
  std::snprintf(line, sizeof line, "long branch through s[102:103] stored 0x%08x; the ISA: 1 (7: fell through)", branch);
  report("s102-branch", branch == 1, line);

  std::vector<void*> allocated{fi, fo, io, bo};
  // The one-instruction kernels: (name, kernel, operands, the ISA's D, what it computes).
  struct one_instruction {
    const char* name;
    void (*kernel)(const std::uint32_t*, std::uint32_t*);
    std::uint32_t in[3];
    std::uint32_t want;
    const char* what;
  };
  const one_instruction singles[] = {
      {"bcnt", bcnt, {0, 37, 0}, 37, "v_bcnt_u32_b32(0, 37)"},
      {"perm", perm, {0x80000000u, 0x00008000u, 0x0e0b0908u}, 0xffff00ffu,
       "v_perm_b32(0x80000000, 0x00008000, 0x0e0b0908)"},
      {"minmax-nan", minmax_nan, {0x7fa00001u, 0x7fa00002u, 0}, 0x7fe00001u,
       arch == "gfx1201" ? "v_max_num_f32(sNaN 0x7fa00001, sNaN 0x7fa00002)" : "v_max_f32(sNaN 0x7fa00001, sNaN 0x7fa00002)"},
      {"pk-clamp", pk_clamp, {0x40004000u, 0x40004000u, 0}, 0x3c003c00u, "v_pk_mul_f16(2|2, 2|2) clamp"},
      {"div-fixup", div_fixup, {bits(3.0f), bits(-2.0f), bits(6.0f)}, bits(-3.0f), "v_div_fixup_f32(3, -2, 6)"},
  };
  for (const one_instruction& c : singles) {
    std::uint32_t d = 0xFFFFFFFFu;
    std::uint32_t *ci = device_copy(c.in, 3), *co = device_copy(&d, 1);
    if (!ci || !co) return 1;
    c.kernel<<<1, 32>>>(ci, co);
    if (!fetch(&d, co, 1)) return 1;
    std::snprintf(line, sizeof line, "%s = 0x%08x; the ISA: 0x%08x", c.what, d, c.want);
    report(c.name, d == c.want, line);
    allocated.insert(allocated.end(), {ci, co});
  }
  std::vector<std::uint32_t> v0(32, 0xFFFFFFFFu);
  std::uint32_t* vo = device_copy(v0.data(), v0.size());
  if (!vo) return 1;
  ds_noreturn_v0<<<1, 32>>>(vo);
  if (!fetch(v0.data(), vo, v0.size())) return 1;
  int changed = 0;
  for (std::uint32_t x : v0) changed += x != 0x1234u;
  std::snprintf(line, sizeof line, "v0 after ds_add_u32 (no return value): lane 0 0x%08x, %d of 32 lanes changed; the ISA: 0x1234, 0",
                v0[0], changed);
  report("ds-v0", changed == 0, line);
  allocated.push_back(vo);
  if (arch != "gfx1201") {
    std::printf("n/a  salu-scc, iu4-swmmac: gfx1201 only (this device is %s)\n", arch.c_str());
  } else {
    const std::uint32_t zero = 0;
    std::uint32_t scc_out = 0xFFFFFFFFu;
    std::uint32_t *si = device_copy(&zero, 1), *so = device_copy(&scc_out, 1);
    if (!si || !so) return 1;
    salu_scc<<<1, 32>>>(si, so);
    if (!fetch(&scc_out, so, 1)) return 1;
    std::snprintf(line, sizeof line, "s_cmp_nlt_f32 / s_rndne_f32 / s_cselect_b32 gave %u; the ISA: 1 (SCC kept)", scc_out);
    report("salu-scc", scc_out == 1, line);

    std::vector<std::uint32_t> d(256, 0xFFFFFFFFu);
    std::uint32_t* dd = device_copy(d.data(), d.size());
    if (!dd) return 1;
    iu4_swmmac<<<1, 32>>>(dd);
    if (!fetch(d.data(), dd, d.size())) return 1;
    int off = 0;
    for (std::size_t i = 1; i < d.size(); ++i) off += d[i] != 0;
    std::snprintf(line, sizeof line, "v_swmmac_i32_16x16x32_iu4: D[0][0] = %d, %d other elements nonzero; the ISA: 1, 0",
                  int(d[0]), off);
    report("iu4-swmmac", d[0] == 1 && off == 0, line);
    allocated.insert(allocated.end(), {si, so, dd});
  }
  for (void* p : allocated) (void)hipFree(p);
  return bad ? 1 : 0;
}
