// The host code the semantics run as. Every handler loops over a wave's 32 lanes, a row of 32 words (1024 bits): with
// the x86-64 baseline (SSE2) that is eight 128-bit steps, with AVX2 four 256-bit ones, and the ck fuzz loop spends most
// of its simulator time in those loops. So the semantics units (semantics_salu.cpp, semantics_valu.cpp,
// semantics_memory.cpp) are compiled twice where the compiler allows (machine/CMakeLists.txt: GCC on x86-64): once
// for the baseline and once for x86-64-v3 (AVX2, FMA, BMI1/2, F16C, LZCNT, MOVBE), each copy's tables in a namespace
// of its own, and all_instructions() hands the decoder the copy the CPU can run. Both copies compute the same results:
// the float operations are IEEE binary16/32/64 with one rounding either way (FMA only where the ISA fuses, the library
// keeps -ffp-contract=off); only the payload of a NaN from two NaN operands may differ (which operand's NaN the host
// instruction passes on depends on the operand order the compiler picked; the model does not pin NaN payloads,
// semantics_valu.cpp). The tests run every instruction with each copy (tests/amdgpu_sim/machine).
//
// Only a unit's own code is compiled for x86-64-v3 (TP_SIM_HOST_CODE_BEGIN/END around it, after its #includes): an
// inline function or template of a header that both copies instantiate stays baseline, so the linker's one kept copy
// of it runs on every CPU.
#pragma once

#if defined(TP_SIM_HOST_X86_64_V3)
  #define TP_SIM_HOST_LEVEL x86_64_v3
  #define TP_SIM_HOST_CODE_BEGIN _Pragma("GCC push_options") _Pragma("GCC target(\"arch=x86-64-v3\")")
  #define TP_SIM_HOST_CODE_END _Pragma("GCC pop_options")
#else
  #define TP_SIM_HOST_LEVEL baseline
  #define TP_SIM_HOST_CODE_BEGIN
  #define TP_SIM_HOST_CODE_END
#endif
