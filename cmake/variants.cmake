# Variant builder: one kernel family, many builds of it.
#
#   tp_add_kernel_family(NAME <family> ENTRY variant.cu
#                        [MUTANTS a b ...]            # default: every patches/mutants/<family>-*.patch
#                        [PATCH_DIR dir]              # default: ${PROJECT_SOURCE_DIR}/patches/<family> (holds `series`)
#                        [MUTANT_DIR dir]             # default: ${PROJECT_SOURCE_DIR}/patches/mutants
#                        [EXTRA_DIRS dir ...])        # more source folders the patches may touch (e.g. kernels/mma)
#
# Variants: `upstream` (nothing applied), `fixed` (the whole series), `fixed-minus-NNNN` (the series without patch
# NNNN, one per patch), `mutant-<name>` (fixed + patches/mutants/<family>-<name>.patch). For each, a build-time
# command copies the family folder (and EXTRA_DIRS) into build/<...>/variants/<variant>/ at the same repo-relative
# path and applies the patches there with `git apply` (repository discovery fenced off with GIT_CEILING_DIRECTORIES,
# so the enclosing checkout is never touched); a patch that does not apply fails the build and names the patch.
# The copy is regenerated whenever a family source, the series or a patch changes.
#
# Each variant's ENTRY is compiled as C++ for the CPU backend, with nvcc when TP_WITH_CUDA (an OBJECT library), and as
# HIP host+device code for every arch of TP_HIP_ARCHS when TP_WITH_HIP (one clang invocation, cmake/hip.cmake), with
# -DTP_VARIANT_NS=tpv_<family>_<variant_ident>_<backend> -DTP_VARIANT_NAME="<variant>". The variant tree comes first on
# the include path, so both "local.cuh" and "kernels/<family>/local.cuh" resolve to the patched copy.
# Result: INTERFACE target tp_family_<family> carrying every variant's objects; its TP_VARIANTS property lists them.
# The hip objects are linked as objects (not through an archive), so every variant's registration runs; each is
# also available as <binary dir>/variants/<variant>.hip.o for tp_hip_isa_checks.

#
# Which variants get a GPU build (the CPU backend always has every variant): <family>/<variant> patterns, `*` matching
# any run of characters; default `*/*`, every variant. A variant left out is named as not built by
# `--backend cuda|hip --variant V` (exit 2). CI compiles fewer to fit its time budget (ci/test says which and why).
#   -DTP_CUDA_VARIANTS="ck_sparse/*;*/upstream;*/fixed"      -DTP_HIP_VARIANTS="..."  (same form)
set(TP_VARIANTS_SCRIPT ${CMAKE_CURRENT_LIST_DIR}/apply_variant.cmake CACHE INTERNAL "")
set(TP_CUDA_VARIANTS "*/*" CACHE STRING "Kernel variants built for the cuda backend: <family>/<variant> patterns, * matches anything")
set(TP_HIP_VARIANTS "*/*" CACHE STRING "Kernel variants built for the hip backend: <family>/<variant> patterns, * matches anything")

# tp_variant_selected(<out> <patterns-var> <family> <variant>): TRUE when a pattern of ${<patterns-var>} matches
# <family>/<variant>.
function(tp_variant_selected out patterns_var family variant)
  set(${out} FALSE PARENT_SCOPE)
  foreach(pattern ${${patterns_var}})
    # Family and variant names are [a-z0-9_-]; a pattern adds only *, so it becomes a regex by one replacement.
    if(NOT pattern MATCHES "^[A-Za-z0-9_*-]+/[A-Za-z0-9_*-]+$")
      message(FATAL_ERROR "${patterns_var}: '${pattern}' is not <family>/<variant> (e.g. fattn/upstream, ck_sparse/*)")
    endif()
    string(REPLACE "*" ".*" re "${pattern}")
    if("${family}/${variant}" MATCHES "^${re}$")
      set(${out} TRUE PARENT_SCOPE)
      return()
    endif()
  endforeach()
endfunction()
find_program(TP_GIT_EXECUTABLE git REQUIRED)

# CMake 3.25 knows no CUDA20 dialect flag for nvcc, so CMAKE_CUDA_STANDARD 20 fails at generate time. nvcc 13 takes
# -std=c++20; teach CMake the flag (cache scope, so every directory sees it).
if(TP_WITH_CUDA AND NOT DEFINED CMAKE_CUDA20_STANDARD_COMPILE_OPTION)
  set(CMAKE_CUDA20_STANDARD_COMPILE_OPTION "-std=c++20" CACHE INTERNAL "")
  set(CMAKE_CUDA20_EXTENSION_COMPILE_OPTION "-std=c++20" CACHE INTERNAL "")
endif()
function(tp_cuda_cxx20 target)
  set_property(TARGET ${target} PROPERTY CUDA_STANDARD 20)
  set_property(TARGET ${target} PROPERTY CUDA_ARCHITECTURES 90)
  target_compile_options(${target} PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:--expt-relaxed-constexpr>)
endfunction()

function(tp_variant_ident out name)
  string(MAKE_C_IDENTIFIER "${name}" id)
  set(${out} ${id} PARENT_SCOPE)
endfunction()

function(tp_add_kernel_family)
  cmake_parse_arguments(ARG "" "NAME;ENTRY;PATCH_DIR;MUTANT_DIR" "MUTANTS;EXTRA_DIRS" ${ARGN})
  if(NOT ARG_NAME OR NOT ARG_ENTRY)
    message(FATAL_ERROR "tp_add_kernel_family: NAME and ENTRY are required")
  endif()
  set(family ${ARG_NAME})
  if(NOT ARG_PATCH_DIR)
    set(ARG_PATCH_DIR ${PROJECT_SOURCE_DIR}/patches/${family})
  endif()
  if(NOT ARG_MUTANT_DIR)
    set(ARG_MUTANT_DIR ${PROJECT_SOURCE_DIR}/patches/mutants)
  endif()
  set(src_dirs ${CMAKE_CURRENT_SOURCE_DIR})
  foreach(d ${ARG_EXTRA_DIRS})
    get_filename_component(d ${d} ABSOLUTE BASE_DIR ${CMAKE_CURRENT_SOURCE_DIR})
    list(APPEND src_dirs ${d})
  endforeach()
  if(NOT EXISTS ${CMAKE_CURRENT_SOURCE_DIR}/${ARG_ENTRY})
    message(FATAL_ERROR "tp_add_kernel_family(${family}): entry ${ARG_ENTRY} not found in ${CMAKE_CURRENT_SOURCE_DIR}")
  endif()

  # The ordered series.
  set(series_file ${ARG_PATCH_DIR}/series)
  set(series "")
  if(EXISTS ${series_file})
    set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${series_file})
    file(STRINGS ${series_file} lines)
    foreach(line ${lines})
      string(STRIP "${line}" line)
      if(line STREQUAL "" OR line MATCHES "^#")
        continue()
      endif()
      if(NOT EXISTS ${ARG_PATCH_DIR}/${line})
        message(FATAL_ERROR "tp_add_kernel_family(${family}): ${series_file} lists ${line}, which does not exist")
      endif()
      list(APPEND series ${ARG_PATCH_DIR}/${line})
    endforeach()
  endif()

  # Mutants.
  if(NOT DEFINED ARG_MUTANTS)
    file(GLOB mutant_files CONFIGURE_DEPENDS ${ARG_MUTANT_DIR}/${family}-*.patch)
    list(SORT mutant_files)
    foreach(m ${mutant_files})
      get_filename_component(mname ${m} NAME_WE)
      string(REGEX REPLACE "^${family}-" "" mname "${mname}")
      list(APPEND ARG_MUTANTS ${mname})
    endforeach()
  endif()

  # variant name -> patch list
  set(variant_names upstream fixed)
  set(patches_upstream "")
  set(patches_fixed ${series})
  foreach(p ${series})
    get_filename_component(pname ${p} NAME)
    if(pname MATCHES "^([0-9]+)-")
      set(num ${CMAKE_MATCH_1})
    else()
      string(REGEX REPLACE "\\.patch$" "" num "${pname}")
    endif()
    set(v fixed-minus-${num})
    set(rest ${series})
    list(REMOVE_ITEM rest ${p})
    list(APPEND variant_names ${v})
    set(patches_${v} ${rest})
  endforeach()
  foreach(m ${ARG_MUTANTS})
    set(mf ${ARG_MUTANT_DIR}/${family}-${m}.patch)
    if(NOT EXISTS ${mf})
      message(FATAL_ERROR "tp_add_kernel_family(${family}): mutant ${m}: ${mf} does not exist")
    endif()
    set(v mutant-${m})
    list(APPEND variant_names ${v})
    set(patches_${v} ${series} ${mf})
  endforeach()

  # Inputs of every variant tree.
  set(inputs "")
  set(rel_files "")
  foreach(d ${src_dirs})
    file(GLOB_RECURSE files CONFIGURE_DEPENDS RELATIVE ${PROJECT_SOURCE_DIR} ${d}/*)
    foreach(f ${files})
      if(NOT f MATCHES "CMakeLists\\.txt$")
        list(APPEND rel_files ${f})
        list(APPEND inputs ${PROJECT_SOURCE_DIR}/${f})
      endif()
    endforeach()
  endforeach()
  file(RELATIVE_PATH family_rel ${PROJECT_SOURCE_DIR} ${CMAKE_CURRENT_SOURCE_DIR})

  set(family_target tp_family_${family})
  add_library(${family_target} INTERFACE)
  target_link_libraries(${family_target} INTERFACE tp_simt_cpu)
  set_property(TARGET ${family_target} PROPERTY TP_VARIANTS ${variant_names})

  set(backends cpu)
  if(TP_WITH_CUDA)
    list(APPEND backends cuda)
  endif()
  if(TP_WITH_HIP)
    list(APPEND backends hip)
  endif()

  foreach(v ${variant_names})
    tp_variant_ident(vid ${v})
    set(root ${CMAKE_CURRENT_BINARY_DIR}/variants/${v})
    set(stamp ${root}.stamp)
    set(outputs ${stamp})
    foreach(f ${rel_files})
      list(APPEND outputs ${root}/${f})
    endforeach()
    string(REPLACE ";" "|" patch_arg "${patches_${v}}")
    string(REPLACE ";" "|" dirs_arg "${src_dirs}")
    add_custom_command(
      OUTPUT ${outputs}
      COMMAND ${CMAKE_COMMAND} -DFAMILY=${family} -DVARIANT=${v} -DPROJECT_ROOT=${PROJECT_SOURCE_DIR}
              -DDIRS=${dirs_arg} -DDEST=${root} -DPATCHES=${patch_arg} -DGIT=${TP_GIT_EXECUTABLE} -DSTAMP=${stamp}
              -P ${TP_VARIANTS_SCRIPT}
      DEPENDS ${inputs} ${patches_${v}} ${series_file} ${TP_VARIANTS_SCRIPT}
      COMMENT "variant ${family}/${v}: applying ${CMAKE_CURRENT_SOURCE_DIR}"
      VERBATIM)
    set(entry ${root}/${family_rel}/${ARG_ENTRY})

    foreach(b ${backends})
      set(obj ${family_target}_${vid}_${b})
      if(b STREQUAL "cpu")
        # The entry is .cu; a one-line C++ wrapper makes every generator compile it as C++.
        set(wrapper ${CMAKE_CURRENT_BINARY_DIR}/variants/${v}.cpu.cpp)
        file(CONFIGURE OUTPUT ${wrapper} CONTENT "#include \"${entry}\"\n")
        set_source_files_properties(${wrapper} PROPERTIES OBJECT_DEPENDS "${stamp}")
        add_library(${obj} OBJECT ${wrapper})
        target_link_libraries(${obj} PUBLIC tp_simt_cpu)
        target_compile_options(${obj} PRIVATE ${TP_WARNINGS})
      elseif(b STREQUAL "hip")
        tp_variant_selected(on_hip TP_HIP_VARIANTS ${family} ${v})
        if(NOT on_hip)
          continue()
        endif()
        tp_hip_compile(OUT hip_object SOURCE ${entry} OBJECT ${CMAKE_CURRENT_BINARY_DIR}/variants/${v}.hip.o
                       INCLUDES ${root} DEFINES TP_VARIANT_NS=tpv_${family}_${vid}_hip "TP_VARIANT_NAME=\"${v}\""
                       DEPENDS ${stamp})
        add_custom_target(${obj} DEPENDS ${hip_object})
        target_link_libraries(${family_target} INTERFACE ${hip_object})
        add_dependencies(${family_target} ${obj})
        continue()
      else()
        tp_variant_selected(on_cuda TP_CUDA_VARIANTS ${family} ${v})
        if(NOT on_cuda)
          continue()
        endif()
        add_library(${obj} OBJECT ${entry})
        set_source_files_properties(${entry} PROPERTIES LANGUAGE CUDA)
        target_link_libraries(${obj} PUBLIC tp_simt)
        tp_cuda_cxx20(${obj})
      endif()
      target_include_directories(${obj} BEFORE PRIVATE ${root})
      target_compile_definitions(${obj} PRIVATE TP_VARIANT_NS=tpv_${family}_${vid}_${b} TP_VARIANT_NAME="${v}")
      target_sources(${family_target} INTERFACE $<TARGET_OBJECTS:${obj}>)
      add_dependencies(${family_target} ${obj})
    endforeach()
  endforeach()
  if(TP_WITH_CUDA)
    target_link_libraries(${family_target} INTERFACE tp_simt_cuda)
  endif()
  if(TP_WITH_HIP)
    target_link_libraries(${family_target} INTERFACE tp_hip_runtime)
  endif()
endfunction()
