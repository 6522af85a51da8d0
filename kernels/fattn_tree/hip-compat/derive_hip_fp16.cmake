# Gap: in HIP 5.2.3's <hip/amd_detail/amd_hip_fp16.h>, __half2's named halves .x and .y are `unsigned short` (the
# raw bits); ROCm 6 declares them `__half`. The tree's code reads them as halves (`__half2float(h2.x)`), which against
# 5.2.3 compiles without a diagnostic into an integer-to-float conversion of the bit pattern: wrong values, silently.
# This script derives a copy of the system header with the two members declared `__half` and writes it under OUT_DIR,
# which the tree's compile puts ahead of the system include path; the system file is never touched.
#
#   cmake -DIN=/usr/include/hip/amd_detail/amd_hip_fp16.h -DOUT_DIR=<build>/hip-compat-derived -P derive_hip_fp16.cmake
#
# The change is found, not assumed: inside `struct __half2 {` exactly one `unsigned short x; unsigned short y;` pair
# must exist (the union member over the two halves), or the derivation stops naming the file. tests/fa_tree checks the
# result both ways (a host-side static_assert on the member type, and a device kernel on the simulator).
if(NOT IN OR NOT OUT_DIR)
  message(FATAL_ERROR "derive_hip_fp16.cmake: IN and OUT_DIR are required")
endif()
if(NOT EXISTS ${IN})
  message(FATAL_ERROR "derive_hip_fp16.cmake: ${IN} does not exist (libamdhip64-dev's HIP headers)")
endif()
file(READ ${IN} text)
string(FIND "${text}" "struct __half2 {" at)
if(at EQUAL -1)
  message(FATAL_ERROR "derive_hip_fp16.cmake: no `struct __half2 {` in ${IN}: not the HIP 5.2.3 layout this derivation knows")
endif()
string(SUBSTRING "${text}" 0 ${at} head)
string(SUBSTRING "${text}" ${at} -1 tail)
# The pair holds semicolons (CMake's list separator), so matches are first replaced by a marker, then counted.
string(REGEX REPLACE "unsigned short x;[ \t\r\n]+unsigned short y;" "@TP_HALF2_XY@" tail "${tail}")
string(REGEX MATCHALL "@TP_HALF2_XY@" pairs "${tail}")
list(LENGTH pairs n)
if(NOT n EQUAL 1)
  message(FATAL_ERROR "derive_hip_fp16.cmake: expected one `unsigned short x; unsigned short y;` member pair after "
                      "`struct __half2 {` in ${IN}, found ${n}")
endif()
string(REPLACE "@TP_HALF2_XY@" "__half x; /* tileprobe: unsigned short in HIP 5.2.3 */\n__half y;" tail "${tail}")
# The copy lives elsewhere, so its includes relative to its own folder ("hip_fp16_math_fwd.h") name the system folder.
get_filename_component(in_dir ${IN} DIRECTORY)
string(REGEX REPLACE "#([ \t]*)include \"([^\"/]+)\"" "#\\1include \"${in_dir}/\\2\"" head "${head}")
string(REGEX REPLACE "#([ \t]*)include \"([^\"/]+)\"" "#\\1include \"${in_dir}/\\2\"" tail "${tail}")
set(out ${OUT_DIR}/hip/amd_detail/amd_hip_fp16.h)
file(WRITE ${out}.tmp "// Derived by tileprobe's kernels/fattn_tree/hip-compat/derive_hip_fp16.cmake from ${IN}: __half2's .x/.y as __half.\n${head}${tail}")
file(RENAME ${out}.tmp ${out})
