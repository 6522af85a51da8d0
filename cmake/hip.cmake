# The HIP backend: every kernel family variant compiled as HIP host+device code and linked into the same probe
# executables as the CPU backend (`--backend hip`). Included by simt/ so that kernel families can call it.
#
#   -DTP_WITH_HIP=ON                      (the `hip` preset)
#   -DTP_HIP_ARCHS="gfx1201;gfx1100;gfx942"  code objects built into every binary (default: these three)
#   -DTP_HIP_VARIANTS="ck_sparse/*;*/upstream;*/fixed"
#                                         which kernel variants get a hip build (cmake/variants.cmake; default: all)
#   -DTP_ROCM_PATH=/opt/rocm  or  ROCM_PATH in the environment  or  -DCMAKE_HIP_COMPILER=<rocm>/llvm/bin/clang++
#                                         build against that ROCm's clang, headers and runtime; its release must
#                                         know every arch in TP_HIP_ARCHS (checked here, see tp_hip_min_rocm)
#   (none of these)                       Debian's clang-19 + libamdhip64-dev (what CI has): compiles, links and runs
#                                         to "no HIP device" (exit 77) without a card; TILEPROBE_HIP=sim runs the
#                                         code objects on the simulator where it is built
#
# Why custom commands and not CMake's HIP language: CMake 3.25 finds the HIP runtime only as
# <rocm>/lib/cmake/hip-lang, which Debian installs under /usr/lib/x86_64-linux-gnu/cmake (so `project(... HIP)` fails
# with "Failed to find ROCm root directory" on the Debian toolchain). One code path serves both toolchains.
#
# Every HIP object is built with -nogpulib: the dialect reaches thread indices, barriers and shuffles through
# __builtin_amdgcn_* (simt/simt.h), so no device library (ROCm's ockl/ocml bitcode, absent from Debian for gfx11/gfx12)
# is needed, and the code object is the same on both toolchains.
#
#   tp_hip_compile(OUT <var> SOURCE <file.cu> OBJECT <path.o> [INCLUDES dir ...] [DEFINES d ...] [DEPENDS f ...])
#       one clang invocation for every arch of TP_HIP_ARCHS (the multi-target path a user takes), with a depfile
#   tp_hip_isa_checks(FAMILY <name> OBJECT <path.o> VARIANT <v> EXPECT_<arch> "re;..." REJECT_<arch> "re;...")
#       the object's code objects, unbundled: <family>.<v>.<arch>.hsaco and their disassembly .s in
#       <binary dir>/amdgpu/, and one ctest case (label isa) per pattern that must (or must not) appear
#
# Without TP_WITH_HIP both functions do nothing, and the build has no AMDGPU part at all.

option(TP_WITH_HIP "Build every kernel variant for AMD GPUs (clang -x hip) and link the hip backend into the probes" OFF)
set(TP_HIP_ARCHS "gfx1201;gfx1100;gfx942" CACHE STRING "AMDGPU archs whose code objects every HIP binary carries")
set(TP_ROCM_PATH "$ENV{ROCM_PATH}" CACHE PATH "ROCm installation to build the hip backend against (empty: Debian's toolchain)")
set(TP_ISA_CHECK_SCRIPT ${CMAKE_CURRENT_LIST_DIR}/check_isa.cmake CACHE INTERNAL "")

# The first ROCm release AMD supports each arch family with, for the configure-time check of a user's ROCm:
#   gfx12 (RDNA4: RX 9070 XT, Radeon AI PRO R9700): ROCm 6.4.1 ("ROCm now supports the 9070 and 9070XT with the
#     latest 6.4.1 release", AMD in https://github.com/ROCm/rocm-install-on-linux/issues/447, 2025-05-26)
#   gfx11 (RDNA3: RX 7900 XTX): ROCm 5.7 ("In ROCm 5.7, the 7900XTX has official support",
#     AMD in https://github.com/ROCm/amdgpu/issues/151, 2023-10-31)
#   gfx94 (CDNA3: MI300): ROCm 6.0
function(tp_hip_min_rocm arch out)
  if(arch MATCHES "^gfx12")
    set(${out} 6.4.1 PARENT_SCOPE)
  elseif(arch MATCHES "^gfx11")
    set(${out} 5.7.0 PARENT_SCOPE)
  elseif(arch MATCHES "^gfx94")
    set(${out} 6.0.0 PARENT_SCOPE)
  else()
    set(${out} 0 PARENT_SCOPE)
  endif()
endfunction()

if(TP_WITH_HIP)
  foreach(arch ${TP_HIP_ARCHS})
    if(NOT arch MATCHES "^gfx[0-9a-f]+$")
      message(FATAL_ERROR "TP_HIP_ARCHS: '${arch}' is not an AMDGPU arch name (e.g. gfx1201)")
    endif()
  endforeach()

  if(CMAKE_HIP_COMPILER AND NOT TP_ROCM_PATH)
    get_filename_component(rocm ${CMAKE_HIP_COMPILER} REALPATH)
    get_filename_component(rocm ${rocm} DIRECTORY)   # <rocm>/llvm/bin
    get_filename_component(rocm ${rocm} DIRECTORY)   # <rocm>/llvm
    get_filename_component(rocm ${rocm} DIRECTORY)   # <rocm>
    set(TP_ROCM_PATH ${rocm} CACHE PATH "" FORCE)
  endif()

  if(TP_ROCM_PATH)
    # A user's ROCm: its clang, headers and runtime.
    set(TP_HIP_TOOLCHAIN "ROCm at ${TP_ROCM_PATH}")
    if(CMAKE_HIP_COMPILER)
      set(TP_HIP_CLANG ${CMAKE_HIP_COMPILER})
    else()
      set(TP_HIP_CLANG ${TP_ROCM_PATH}/llvm/bin/clang++)
    endif()
    if(NOT EXISTS ${TP_HIP_CLANG})
      message(FATAL_ERROR "hip backend: ${TP_HIP_CLANG} not found (is ${TP_ROCM_PATH} a ROCm installation?)")
    endif()
    set(rocm_version "")
    if(EXISTS ${TP_ROCM_PATH}/.info/version)
      file(STRINGS ${TP_ROCM_PATH}/.info/version v LIMIT_COUNT 1)
      string(REGEX MATCH "^[0-9]+\\.[0-9]+\\.[0-9]+" rocm_version "${v}")
    elseif(EXISTS ${TP_ROCM_PATH}/include/rocm-core/rocm_version.h)
      file(STRINGS ${TP_ROCM_PATH}/include/rocm-core/rocm_version.h lines REGEX "#define ROCM_VERSION_(MAJOR|MINOR|PATCH) ")
      foreach(part MAJOR MINOR PATCH)
        string(REGEX MATCH "ROCM_VERSION_${part} +([0-9]+)" m "${lines}")
        list(APPEND rocm_version_parts ${CMAKE_MATCH_1})
      endforeach()
      string(REPLACE ";" "." rocm_version "${rocm_version_parts}")
    endif()
    if(rocm_version STREQUAL "")
      message(FATAL_ERROR "hip backend: cannot tell the release of the ROCm at ${TP_ROCM_PATH} (neither .info/version "
                          "nor include/rocm-core/rocm_version.h); tileprobe needs it to check arch support")
    endif()
    foreach(arch ${TP_HIP_ARCHS})
      tp_hip_min_rocm(${arch} need)
      if(rocm_version VERSION_LESS need)
        message(FATAL_ERROR "hip backend: ROCm ${rocm_version} at ${TP_ROCM_PATH} predates ${arch}: AMD supports "
                            "${arch} from ROCm ${need}. Install ROCm >= ${need}, or leave ${arch} out "
                            "(-DTP_HIP_ARCHS=...)")
      endif()
    endforeach()
    set(TP_HIP_TOOLCHAIN "ROCm ${rocm_version} at ${TP_ROCM_PATH}")
    set(TP_HIP_FLAGS --rocm-path=${TP_ROCM_PATH})
    find_library(TP_AMDHIP64_LIBRARY amdhip64 PATHS ${TP_ROCM_PATH}/lib NO_DEFAULT_PATH REQUIRED)
    get_filename_component(tool_dir ${TP_HIP_CLANG} DIRECTORY)
    set(tool_hints ${tool_dir})
  else()
    # Debian bookworm: clang-19 with libamdhip64-dev's headers (HIP 5.2.3). By its real path clang finds
    # clang-offload-bundler beside it (package clang-tools-19), which a multi-arch -c needs.
    find_program(clang19 NAMES clang++-19)
    if(NOT clang19 OR NOT EXISTS /usr/include/hip/hip_runtime.h)
      message(FATAL_ERROR "hip backend on Debian's toolchain needs clang-19, clang-tools-19 and libamdhip64-dev "
                          "(ci/setup installs them), or a ROCm: -DTP_ROCM_PATH=/opt/rocm")
    endif()
    get_filename_component(TP_HIP_CLANG ${clang19} REALPATH)
    # Debian's amd_hip_runtime.h includes <include/cuda_wrappers/algorithm>, which resolves against clang's own
    # resource directory only when that directory is on the include path.
    execute_process(COMMAND ${TP_HIP_CLANG} -print-resource-dir OUTPUT_VARIABLE resource_dir
                    OUTPUT_STRIP_TRAILING_WHITESPACE)
    set(TP_HIP_FLAGS --rocm-path=/usr -isystem ${resource_dir})
    find_library(TP_AMDHIP64_LIBRARY amdhip64 REQUIRED)
    get_filename_component(tool_dir ${TP_HIP_CLANG} DIRECTORY)
    set(tool_hints ${tool_dir})
    execute_process(COMMAND ${TP_HIP_CLANG} --version OUTPUT_VARIABLE v)
    string(REGEX MATCH "clang version [0-9.]+" v "${v}")
    set(TP_HIP_TOOLCHAIN "Debian ${v}, HIP 5.2.3 headers and runtime (libamdhip64-dev)")
  endif()
  find_program(TP_HIP_OBJCOPY NAMES llvm-objcopy llvm-objcopy-19 HINTS ${tool_hints} REQUIRED)
  find_program(TP_HIP_BUNDLER NAMES clang-offload-bundler clang-offload-bundler-19 HINTS ${tool_hints} REQUIRED)
  find_program(TP_HIP_OBJDUMP NAMES llvm-objdump llvm-objdump-19 HINTS ${tool_hints} REQUIRED)
  execute_process(COMMAND ${TP_HIP_CLANG} --version OUTPUT_VARIABLE hip_clang_version)
  string(REGEX MATCH "[^\n]*" hip_clang_version "${hip_clang_version}")
  set(TP_HIP_COMPILER_DESCRIPTION "${hip_clang_version}" CACHE INTERNAL "")
  message(STATUS "hip backend: ${TP_HIP_TOOLCHAIN}; archs ${TP_HIP_ARCHS}; variants ${TP_HIP_VARIANTS}")
  # simt/ includes this file; the families and tests that call tp_hip_compile live in sibling directories.
  foreach(var TP_HIP_CLANG TP_HIP_FLAGS TP_HIP_TOOLCHAIN)
    set(${var} "${${var}}" CACHE INTERNAL "")
  endforeach()

  # What the hip objects' HIP API calls resolve against: tp_hip_runtime (simt/amdgpu_sim/runtime), a library of ours
  # that forwards every call to the real libamdhip64 (dlopen'ed from TP_AMDHIP64_LIBRARY) or, with TILEPROBE_HIP=sim,
  # runs the code objects on tileprobe's AMDGPU simulator. The simulator's machine half needs LLVM 19's libraries
  # (llvm-19-dev: Object, MC + the AMDGPU disassembler, BinaryFormat's MsgPack, DebugInfoDWARF, Support); without
  # them the library only forwards, and TILEPROBE_HIP=sim says "built without the simulator".
  if(TP_ROCM_PATH)
    set(TP_HIP_INCLUDE_DIRS ${TP_ROCM_PATH}/include)
  else()
    set(TP_HIP_INCLUDE_DIRS "")
  endif()
  # No version in find_package: LLVM's version file accepts only the same major.minor (19 would reject 19.1.7), and
  # Debian also ships older LLVMs whose config must not be picked; the hint finds llvm-19 first, the check below the rest.
  find_package(LLVM CONFIG QUIET HINTS /usr/lib/llvm-19/lib/cmake/llvm)
  if(LLVM_FOUND AND LLVM_VERSION_MAJOR EQUAL 19 AND "AMDGPU" IN_LIST LLVM_TARGETS_TO_BUILD)
    set(TP_HIP_SIM ON)
    message(STATUS "hip backend: AMDGPU simulator with LLVM ${LLVM_PACKAGE_VERSION} (${LLVM_DIR}); TILEPROBE_HIP=sim runs "
                   "the code objects on it")
  else()
    set(TP_HIP_SIM OFF)
    message(STATUS "hip backend: no AMDGPU simulator (LLVM 19 with the AMDGPU target not found: install llvm-19-dev); "
                   "the hip binaries use the real HIP runtime only")
  endif()
  # The archs whose hip-sim tests run the two flash-attention probes (minutes each on one core; CI runs both).
  set(TP_SIM_FA_ARCHS "gfx1201;gfx1100" CACHE STRING "AMDGPU archs on which the hip-sim tests run the fa probes")
  add_subdirectory(${PROJECT_SOURCE_DIR}/simt/amdgpu_sim ${PROJECT_BINARY_DIR}/simt/amdgpu_sim)
endif()

function(tp_hip_compile)
  cmake_parse_arguments(ARG "" "OUT;SOURCE;OBJECT" "INCLUDES;DEFINES;DEPENDS" ${ARGN})
  if(NOT TP_WITH_HIP)
    return()
  endif()
  if(NOT ARG_OUT OR NOT ARG_SOURCE OR NOT ARG_OBJECT)
    message(FATAL_ERROR "tp_hip_compile: OUT, SOURCE and OBJECT are required")
  endif()
  set(arch_flags "")
  foreach(arch ${TP_HIP_ARCHS})
    list(APPEND arch_flags --offload-arch=${arch})
  endforeach()
  set(incs "")
  foreach(i ${ARG_INCLUDES} ${PROJECT_SOURCE_DIR})
    list(APPEND incs -I${i})
  endforeach()
  set(defs "")
  foreach(d ${ARG_DEFINES})
    list(APPEND defs -D${d})
  endforeach()
  string(REPLACE ";" "," arch_list "${TP_HIP_ARCHS}")
  list(APPEND defs "-DTP_HIP_ARCHS_BUILT=\"${arch_list}\"")
  # Line tables only (no variables or types): the AMDGPU simulator's LDS race detector names the source file:line of
  # each access from them (simt/amdgpu_sim/machine/code_object.cpp); they do not change the generated code.
  set(opt -O3 -gline-tables-only)
  if(CMAKE_BUILD_TYPE STREQUAL "Debug")
    set(opt -O1 -g)
  endif()
  get_filename_component(dir ${ARG_OBJECT} DIRECTORY)
  file(RELATIVE_PATH rel_obj ${CMAKE_BINARY_DIR} ${ARG_OBJECT})
  # The depfile names the output by its absolute path: CMake (policy CMP0116) reads relative depfile paths as relative
  # to this directory, and Ninja ignores a depfile whose target is not the output, rebuilding it every time.
  add_custom_command(
    OUTPUT ${ARG_OBJECT}
    COMMAND ${CMAKE_COMMAND} -E make_directory ${dir}
    COMMAND ${TP_HIP_CLANG} -x hip -std=c++20 ${TP_HIP_FLAGS} ${arch_flags} -nogpulib -fPIC ${opt} -DTP_HIP_RUNTIME
            ${incs} ${defs} -MD -MF ${ARG_OBJECT}.d -MT ${ARG_OBJECT} -c ${ARG_SOURCE} -o ${ARG_OBJECT}
    DEPENDS ${ARG_SOURCE} ${ARG_DEPENDS}
    DEPFILE ${ARG_OBJECT}.d
    COMMENT "hip ${rel_obj} (${arch_list})"
    VERBATIM)
  set(${ARG_OUT} ${ARG_OBJECT} PARENT_SCOPE)
  # Every hip object of the build, for the simulator's coverage audit (tests/amdgpu_sim).
  set_property(GLOBAL APPEND PROPERTY TP_HIP_OBJECTS ${ARG_OBJECT})
endfunction()

function(tp_hip_isa_checks)
  set(check_keywords "")
  foreach(a ${TP_HIP_ARCHS} gfx1201 gfx1100 gfx942 ${ARGN})
    if(a MATCHES "^(EXPECT|REJECT)_(gfx[0-9a-f]+)$")
      list(APPEND check_keywords ${a})
    elseif(a MATCHES "^gfx[0-9a-f]+$")
      list(APPEND check_keywords EXPECT_${a} REJECT_${a})
    endif()
  endforeach()
  list(REMOVE_DUPLICATES check_keywords)
  cmake_parse_arguments(ARG "" "FAMILY;OBJECT;VARIANT;TARGET" "${check_keywords}" ${ARGN})
  if(ARG_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "tp_hip_isa_checks(${ARG_FAMILY}): unexpected arguments: ${ARG_UNPARSED_ARGUMENTS}")
  endif()
  # A variant TP_HIP_VARIANTS leaves out has no hip target and no object to disassemble: no checks for it.
  if(NOT TP_WITH_HIP OR (ARG_TARGET AND NOT TARGET ${ARG_TARGET}))
    return()
  endif()
  set(out_dir ${CMAKE_CURRENT_BINARY_DIR}/amdgpu)
  set(outputs "")
  foreach(arch ${TP_HIP_ARCHS})
    set(base ${out_dir}/${ARG_FAMILY}.${ARG_VARIANT}.${arch})
    add_custom_command(
      OUTPUT ${base}.hsaco ${base}.s
      COMMAND ${CMAKE_COMMAND} -E make_directory ${out_dir}
      COMMAND ${TP_HIP_OBJCOPY} --dump-section .hip_fatbin=${base}.bundle ${ARG_OBJECT} ${base}.objcopy-scratch
      COMMAND ${TP_HIP_BUNDLER} --unbundle --type=o --input=${base}.bundle
              --targets=hipv4-amdgcn-amd-amdhsa--${arch} --output=${base}.hsaco
      COMMAND ${CMAKE_COMMAND} -E remove ${base}.bundle ${base}.objcopy-scratch
      COMMAND ${CMAKE_COMMAND} -DOBJDUMP=${TP_HIP_OBJDUMP} -DIN=${base}.hsaco -DOUT=${base}.s -P ${TP_ISA_CHECK_SCRIPT}
      DEPENDS ${ARG_OBJECT} ${TP_ISA_CHECK_SCRIPT}
      COMMENT "amdgpu ${ARG_FAMILY}/${ARG_VARIANT} ${arch}: code object and disassembly"
      VERBATIM)
    list(APPEND outputs ${base}.hsaco ${base}.s)
    foreach(re ${ARG_EXPECT_${arch}})
      set(t "amdgpu ${ARG_FAMILY} ${ARG_VARIANT} ${arch} emits ${re}")
      add_test(NAME "${t}" COMMAND ${CMAKE_COMMAND} -DASM=${base}.s -DREGEX=${re} -P ${TP_ISA_CHECK_SCRIPT})
      set_tests_properties("${t}" PROPERTIES LABELS "isa;hip")
    endforeach()
    # check_isa.cmake fails with "no line of <asm> matches <re>" when the pattern is absent; any other failure (no
    # disassembly yet) prints something else, so it fails this case too.
    foreach(re ${ARG_REJECT_${arch}})
      set(t "amdgpu ${ARG_FAMILY} ${ARG_VARIANT} ${arch} does not emit ${re}")
      add_test(NAME "${t}" COMMAND ${CMAKE_COMMAND} -DASM=${base}.s -DREGEX=${re} -P ${TP_ISA_CHECK_SCRIPT})
      set_tests_properties("${t}" PROPERTIES LABELS "isa;hip" PASS_REGULAR_EXPRESSION "no line of")
    endforeach()
  endforeach()
  string(MAKE_C_IDENTIFIER "tp_isa_${ARG_FAMILY}_${ARG_VARIANT}" target)
  add_custom_target(${target} ALL DEPENDS ${outputs})
  if(ARG_TARGET)
    add_dependencies(${target} ${ARG_TARGET})
  endif()
endfunction()

