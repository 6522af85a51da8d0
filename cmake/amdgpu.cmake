# AMDGPU device builds without ROCm (Debian clang-19 + lld-19), checked by disassembly.
#
#   tp_add_amdgpu_device(NAME <family> SOURCE amdgpu_instances.cu ARCHS gfx1201 gfx1100 gfx942
#                        [VARIANTS upstream fixed ...]            # default: the source folder as it is (upstream)
#                        EXPECT_gfx1201 "regex;regex" EXPECT_gfx1100 "..." ...
#                        [REJECT_gfx942 "regex;..."])              # patterns that must NOT appear on that arch
#
# Per variant and arch: clang -x hip --offload-arch=<arch> --cuda-device-only --no-gpu-bundle-output -nogpuinc
# -nogpulib -O3 -DTP_DEVICE_ONLY -> <family>.<variant>.<arch>.hsaco, llvm-objdump -d -> .s, and one ctest case per
# expected regex ("amdgpu <family> <variant> <arch> emits <regex>") and per rejected one ("... does not emit ...").
# Variants other than upstream compile from the trees tp_add_kernel_family generated, so call that first.
# All ARCHS in a single clang invocation (one code object per arch) must compile too: it is a build step of the
# family's target and a ctest case ("amdgpu <family> <variant> compiles for <archs> in one invocation"), because that
# is where arch-specific builtins leak into another arch's pass. Everything is built by target tp_amdgpu_<family>
# (ALL).
#
# EXPECT_<arch> / REJECT_<arch> are keywords for every arch (gfx1201, gfx1100, gfx942 and any gfx* word of that form in
# the call), so their values never end up in ARCHS; an ARCHS entry that is not a gfx name is a configure error.
#
# Only when TP_WITH_AMDGPU is on and clang-19 is found; otherwise configure says so and no test pretends to pass.

set(TP_AMDGPU_CHECK_SCRIPT ${CMAKE_CURRENT_LIST_DIR}/check_isa.cmake CACHE INTERNAL "")
if(TP_WITH_AMDGPU)
  find_program(TP_CLANG_AMDGPU NAMES clang-19 clang-22)
  find_program(TP_LLVM_OBJDUMP NAMES llvm-objdump-19 llvm-objdump-22)
  find_program(TP_LLD NAMES ld.lld-19 ld.lld-22 ld.lld)
  if(TP_CLANG_AMDGPU AND TP_LLVM_OBJDUMP AND TP_LLD)
    # Called by its real path (/usr/lib/llvm-19/bin/clang) clang finds its siblings, e.g. clang-offload-bundler.
    get_filename_component(clang_real ${TP_CLANG_AMDGPU} REALPATH)
    set(TP_CLANG_AMDGPU_REAL ${clang_real} CACHE INTERNAL "")
    set(TP_AMDGPU_ENABLED ON CACHE INTERNAL "")
    message(STATUS "AMDGPU device builds: ${TP_CLANG_AMDGPU}, ${TP_LLVM_OBJDUMP}")
  else()
    set(TP_AMDGPU_ENABLED OFF CACHE INTERNAL "")
    message(WARNING "TP_WITH_AMDGPU is ON but clang-19/llvm-objdump-19/ld.lld-19 were not all found: "
                    "AMDGPU device builds and ISA checks are NOT configured (install clang-19 lld-19 llvm-19)")
  endif()
else()
  set(TP_AMDGPU_ENABLED OFF CACHE INTERNAL "")
  message(STATUS "AMDGPU device builds off (TP_WITH_AMDGPU=OFF): no ISA checks")
endif()

function(tp_add_amdgpu_device)
  set(check_keywords "")
  foreach(a gfx1201 gfx1100 gfx942 ${ARGN})
    if(a MATCHES "^gfx[0-9a-f]+$")
      list(APPEND check_keywords EXPECT_${a} REJECT_${a})
    elseif(a MATCHES "^(EXPECT|REJECT)_gfx[0-9a-f]+$")
      list(APPEND check_keywords ${a})
    endif()
  endforeach()
  list(REMOVE_DUPLICATES check_keywords)
  cmake_parse_arguments(ARG "" "NAME;SOURCE" "ARCHS;VARIANTS;${check_keywords}" ${ARGN})
  if(ARG_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "tp_add_amdgpu_device(${ARG_NAME}): unexpected arguments: ${ARG_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT ARG_NAME OR NOT ARG_SOURCE OR NOT ARG_ARCHS)
    message(FATAL_ERROR "tp_add_amdgpu_device: NAME, SOURCE and ARCHS are required")
  endif()
  foreach(arch ${ARG_ARCHS})
    if(NOT arch MATCHES "^gfx[0-9a-f]+$")
      message(FATAL_ERROR "tp_add_amdgpu_device(${ARG_NAME}): ARCHS entry '${arch}' is not a gfx arch name")
    endif()
  endforeach()
  foreach(k ${check_keywords})
    string(REGEX REPLACE "^(EXPECT|REJECT)_" "" arch ${k})
    if(DEFINED ARG_${k} AND NOT arch IN_LIST ARG_ARCHS)
      message(FATAL_ERROR "tp_add_amdgpu_device(${ARG_NAME}): ${k} names an arch not in ARCHS (${ARG_ARCHS})")
    endif()
  endforeach()
  if(NOT TP_AMDGPU_ENABLED)
    return()
  endif()
  if(NOT ARG_VARIANTS)
    set(ARG_VARIANTS upstream)
  endif()
  file(RELATIVE_PATH family_rel ${PROJECT_SOURCE_DIR} ${CMAKE_CURRENT_SOURCE_DIR})
  file(GLOB_RECURSE family_files CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/*.cuh ${CMAKE_CURRENT_SOURCE_DIR}/*.h
       ${CMAKE_CURRENT_SOURCE_DIR}/*.cu)
  set(common_flags -x hip -std=c++20 --cuda-device-only -nogpuinc -nogpulib -O3 -DTP_DEVICE_ONLY
                   --ld-path=${TP_LLD})
  set(outputs "")
  set(out_dir ${CMAKE_CURRENT_BINARY_DIR}/amdgpu)
  foreach(v ${ARG_VARIANTS})
    if(v STREQUAL "upstream" AND NOT TARGET tp_family_${ARG_NAME})
      set(src ${CMAKE_CURRENT_SOURCE_DIR}/${ARG_SOURCE})
      set(incs -I${PROJECT_SOURCE_DIR})
      set(deps ${family_files})
    else()
      set(root ${CMAKE_CURRENT_BINARY_DIR}/variants/${v})
      set(src ${root}/${family_rel}/${ARG_SOURCE})
      set(incs -I${root} -I${PROJECT_SOURCE_DIR})
      set(deps ${root}.stamp ${src})
    endif()
    tp_variant_ident(vid ${v})
    set(defs -DTP_VARIANT_NS=tpv_${ARG_NAME}_${vid}_hip "-DTP_VARIANT_NAME=\"${v}\"")
    foreach(arch ${ARG_ARCHS})
      set(base ${out_dir}/${ARG_NAME}.${v}.${arch})
      add_custom_command(
        OUTPUT ${base}.hsaco ${base}.s
        COMMAND ${CMAKE_COMMAND} -E make_directory ${out_dir}
        COMMAND ${TP_CLANG_AMDGPU_REAL} ${common_flags} --offload-arch=${arch} --no-gpu-bundle-output ${incs} ${defs}
                ${src} -o ${base}.hsaco
        COMMAND ${CMAKE_COMMAND} -DOBJDUMP=${TP_LLVM_OBJDUMP} -DIN=${base}.hsaco -DOUT=${base}.s
                -P ${TP_AMDGPU_CHECK_SCRIPT}
        DEPENDS ${deps} ${PROJECT_SOURCE_DIR}/simt/simt.h ${TP_AMDGPU_CHECK_SCRIPT}
        COMMENT "amdgpu ${ARG_NAME}/${v} ${arch}"
        VERBATIM)
      list(APPEND outputs ${base}.hsaco ${base}.s)
      foreach(re ${ARG_EXPECT_${arch}})
        add_test(NAME "amdgpu ${ARG_NAME} ${v} ${arch} emits ${re}"
                 COMMAND ${CMAKE_COMMAND} -DASM=${base}.s -DREGEX=${re} -P ${TP_AMDGPU_CHECK_SCRIPT})
        set_tests_properties("amdgpu ${ARG_NAME} ${v} ${arch} emits ${re}" PROPERTIES LABELS "isa")
      endforeach()
      # check_isa.cmake fails with "no line of <asm> matches <re>" when the pattern is absent; any other failure (no
      # disassembly yet) prints something else, so it fails this case too. (CMake wraps that message: match its head.)
      foreach(re ${ARG_REJECT_${arch}})
        set(t "amdgpu ${ARG_NAME} ${v} ${arch} does not emit ${re}")
        add_test(NAME "${t}" COMMAND ${CMAKE_COMMAND} -DASM=${base}.s -DREGEX=${re} -P ${TP_AMDGPU_CHECK_SCRIPT})
        set_tests_properties("${t}" PROPERTIES LABELS "isa" PASS_REGULAR_EXPRESSION "no line of")
      endforeach()
    endforeach()
    # All archs in one invocation: the multi-target path clang users take must compile as well. Without
    # clang-offload-bundler-19 (not in Debian's clang-19) clang writes one code object per arch instead of a bundle.
    set(multi_dir ${out_dir}/${ARG_NAME}.${v}.multi)
    get_filename_component(stem ${ARG_SOURCE} NAME_WE)
    set(arch_flags "")
    set(multi "")
    foreach(arch ${ARG_ARCHS})
      list(APPEND arch_flags --offload-arch=${arch})
      list(APPEND multi ${multi_dir}/${stem}-hip-amdgcn-amd-amdhsa-${arch}.out)
    endforeach()
    add_custom_command(
      OUTPUT ${multi}
      COMMAND ${CMAKE_COMMAND} -E make_directory ${multi_dir}
      COMMAND ${TP_CLANG_AMDGPU_REAL} ${common_flags} --no-gpu-bundle-output ${arch_flags} ${incs} ${defs} ${src}
      DEPENDS ${deps} ${PROJECT_SOURCE_DIR}/simt/simt.h
      WORKING_DIRECTORY ${multi_dir}
      COMMENT "amdgpu ${ARG_NAME}/${v} ${ARG_ARCHS} in one invocation"
      VERBATIM)
    list(APPEND outputs ${multi})
    list(LENGTH ARG_ARCHS n_archs)
    if(n_archs GREATER 1)
      set(test_dir ${out_dir}/${ARG_NAME}.${v}.multi-test)
      file(MAKE_DIRECTORY ${test_dir})
      string(REPLACE ";" "," arch_names "${ARG_ARCHS}")
      set(t "amdgpu ${ARG_NAME} ${v} compiles for ${arch_names} in one invocation")
      add_test(NAME "${t}"
               COMMAND ${TP_CLANG_AMDGPU_REAL} ${common_flags} --no-gpu-bundle-output ${arch_flags} ${incs} ${defs} ${src}
               WORKING_DIRECTORY ${test_dir})
      set_tests_properties("${t}" PROPERTIES LABELS "isa")
    endif()
  endforeach()
  add_custom_target(tp_amdgpu_${ARG_NAME} ALL DEPENDS ${outputs})
  if(TARGET tp_family_${ARG_NAME})
    add_dependencies(tp_amdgpu_${ARG_NAME} tp_family_${ARG_NAME})
  endif()
endfunction()
