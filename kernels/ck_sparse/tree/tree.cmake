# A composable_kernel tree's sparse_transforms.hpp: found in the tree's layout, named (layout, git commit, SHA-256),
# asked which API generation it declares; and a patch applied to a copy of it. CMakeLists.txt here calls these
# functions at configure; tests/ck_tree runs the same ones in script mode:
#
#   cmake -DCXX=<clang++> -DROOT=<tree> -DOUT=<empty folder> [-DPATCH=<file>] [-DSTOP_AFTER=locate|patch] -P tree.cmake
#
# prints what configure finds in ROOT (with PATCH: in ROOT's file with the patch applied) as "key=value" lines (file,
# layout, git, sha256, signature, generation; STOP_AFTER skips the API questions) and stops with the error configure
# would stop with.

set(TP_CK_TREE_FILE include/ck_tile/core/arch/mma/sparse/sparse_transforms.hpp)
set(TP_CK_TREE_HERE ${CMAKE_CURRENT_LIST_DIR})
get_filename_component(TP_CK_TREE_PROJECT ${CMAKE_CURRENT_LIST_DIR}/../../.. ABSOLUTE)

# The generations of sparse_transforms.hpp the harness knows (kernels/ck_sparse/tree/README.md gives the commits),
# as "name|what the file declares|signature", the signature being what harness/declares.cpp prints for a file of that
# generation (harness/entries.h: the entry taken for int8/fp8/fp16 and for pk_int4, the idx type, pk_int4 fields per
# byte or per nibble, whose extract_fragment_idx slices the fragments).
set(TP_CK_TREE_GENERATIONS
  "G1|exec(VecType&&, int32_t& idx) returning VecCompressed&|entry=exec(VecType&&, int32_t&) entry_pk_int4=exec(VecType&&, int32_t&) idx=int32_t pk_int4_fields=byte fragment_idx=harness"
  "G2|exec(VecType&) returning (VecCompressed&, int32_t)|entry=exec(VecType&) entry_pk_int4=exec(VecType&) idx=int32_t pk_int4_fields=byte fragment_idx=harness"
  "G3|G2 + extract_fragment_idx(int32_t, m, k)|entry=exec(VecType&) entry_pk_int4=exec(VecType&) idx=int32_t pk_int4_fields=byte fragment_idx=tree"
  "G4|exec(VecType&) returning (VecCompressed&, SparseIdxPack) + extract_fragment_idx(SparseIdxPack)|entry=exec(VecType&) entry_pk_int4=exec(VecType&) idx=SparseIdxPack pk_int4_fields=byte fragment_idx=tree"
  "G5|execOld(VecType&) + exec(ATensor&)|entry=exec(ATensor&) entry_pk_int4=execOld(VecType&) idx=SparseIdxPack pk_int4_fields=byte fragment_idx=tree"
  "G6|execExtVec(VecType) + exec(const ATensor&), pk_int4 fields per nibble|entry=exec(ATensor&) entry_pk_int4=exec(ATensor&) idx=SparseIdxPack pk_int4_fields=nibble fragment_idx=tree")
# entries.h's entry numbers, in the order they are tried.
set(TP_CK_TREE_ENTRIES 1 2 3 4)

# tp_ck_tree_locate(<prefix> ROOT <tree> WHAT <words naming it in messages>): sets <prefix>_FILE (the tree's
# sparse_transforms.hpp), <prefix>_RELATIVE (the same, relative to ROOT: what reports name, no folder of this machine)
# and <prefix>_LAYOUT, or stops configure in one line.
function(tp_ck_tree_locate prefix)
  cmake_parse_arguments(ARG "" "ROOT;WHAT" "" ${ARGN})
  get_filename_component(root "${ARG_ROOT}" ABSOLUTE)
  get_filename_component(root_name "${root}" NAME)
  get_filename_component(parent "${root}" DIRECTORY)
  get_filename_component(parent_name "${parent}" NAME)
  if(EXISTS "${root}/${TP_CK_TREE_FILE}")
    set(file "${root}/${TP_CK_TREE_FILE}")
    if(root_name STREQUAL "composablekernel" AND parent_name STREQUAL "projects")
      set(layout "rocm-libraries' projects/composablekernel (include/)")
    else()
      set(layout "composable_kernel (include/)")
    endif()
  elseif(EXISTS "${root}/projects/composablekernel/${TP_CK_TREE_FILE}")
    set(file "${root}/projects/composablekernel/${TP_CK_TREE_FILE}")
    set(layout "rocm-libraries (projects/composablekernel/include/)")
  else()
    message(FATAL_ERROR " ${ARG_WHAT} holds no ${TP_CK_TREE_FILE} (a composable_kernel checkout, rocm-libraries' "
                        "projects/composablekernel, a folder with CK's include/) nor projects/composablekernel/"
                        "${TP_CK_TREE_FILE} (a rocm-libraries checkout)")
  endif()
  file(RELATIVE_PATH relative "${root}" "${file}")
  set(${prefix}_FILE "${file}" PARENT_SCOPE)
  set(${prefix}_RELATIVE "${relative}" PARENT_SCOPE)
  set(${prefix}_LAYOUT "${layout}" PARENT_SCOPE)
endfunction()

# tp_ck_tree_git(<out> FILE <file>): the commit of the git checkout that tracks FILE, "+ local changes" when the file
# differs from it; "none" when no checkout tracks it.
function(tp_ck_tree_git out)
  cmake_parse_arguments(ARG "" "FILE" "" ${ARGN})
  find_program(TP_GIT git)
  get_filename_component(dir "${ARG_FILE}" DIRECTORY)
  get_filename_component(name "${ARG_FILE}" NAME)
  set(result "none (no git checkout tracks the file)")
  if(TP_GIT)
    execute_process(COMMAND ${TP_GIT} -C ${dir} ls-files --error-unmatch -- ${name}
                    RESULT_VARIABLE untracked OUTPUT_QUIET ERROR_QUIET)
    if(untracked EQUAL 0)
      execute_process(COMMAND ${TP_GIT} -C ${dir} rev-parse HEAD OUTPUT_VARIABLE commit OUTPUT_STRIP_TRAILING_WHITESPACE)
      execute_process(COMMAND ${TP_GIT} -C ${dir} diff --quiet HEAD -- ${name} RESULT_VARIABLE changed)
      set(result "${commit}")
      if(NOT changed EQUAL 0)
        string(APPEND result " + local changes")
      endif()
    endif()
  endif()
  set(${out} "${result}" PARENT_SCOPE)
endfunction()

# What SparseCompressTransform's member functions are, from the file's text: for a message, never for a decision.
function(tp_ck_tree_declared out file)
  file(READ "${file}" text)
  string(FIND "${text}" "struct SparseCompressTransform" at)
  if(at LESS 0)
    set(${out} "no SparseCompressTransform" PARENT_SCOPE)
    return()
  endif()
  string(SUBSTRING "${text}" ${at} -1 body)
  string(FIND "${body}" "\n};" end)
  string(SUBSTRING "${body}" 0 ${end} body)
  # A member function definition: name(params) then its body's brace.
  string(REGEX MATCHALL "[A-Za-z_][A-Za-z0-9_]*[ \t\n]*\\([^()]*\\)[ \t\n]*{" defs "${body}")
  set(found "")
  foreach(d IN LISTS defs)
    string(REGEX REPLACE "[ \t\n]*{$" "" d "${d}")
    string(REGEX REPLACE "[ \t\n]+" " " d "${d}")
    if(NOT d MATCHES "^(if|for|while|switch|constexpr|decltype|sizeof) ")
      list(APPEND found "${d}")
    endif()
  endforeach()
  list(JOIN found ", " found)
  set(${out} "SparseCompressTransform::{${found}}" PARENT_SCOPE)
endfunction()

# The compiler's first error, with the include chain that led to it.
function(tp_ck_tree_first_error out text)
  string(REPLACE "\n" ";" lines "${text}")
  set(chain "")
  foreach(l IN LISTS lines)
    if(l MATCHES "^In file included from")
      list(APPEND chain "${l}")
    elseif(l MATCHES "error:")
      list(APPEND chain "${l}")
      break()
    else()
      set(chain "")
    endif()
  endforeach()
  list(JOIN chain "\n" joined)
  set(${out} "${joined}" PARENT_SCOPE)
endfunction()

# tp_ck_tree_detect(<prefix> NAME <variant> DIR <folder holding the copy's include/> WHAT <words> CXX <clang++>
#                   FLAGS <flags>): asks the copy which entries it takes (harness/declares.cpp, one compile each) and
# sets <prefix>_ENTRY, <prefix>_ENTRY_PK_INT4, <prefix>_EXTRACT, <prefix>_SIGNATURE and <prefix>_GENERATION (the
# generation's name and what its file declares, or a note that no listed generation has this signature). Stops
# configure when the file does not compile through the shim, or in one line when no entry the harness knows compiles.
function(tp_ck_tree_detect prefix)
  cmake_parse_arguments(ARG "" "NAME;DIR;WHAT;CXX" "FLAGS" ${ARGN})
  set(flags ${ARG_FLAGS} -I${TP_CK_TREE_HERE}/shim -I${ARG_DIR}/include -I${TP_CK_TREE_PROJECT})
  set(declares ${TP_CK_TREE_HERE}/harness/declares.cpp)
  foreach(check 1 2)
    set(found_${check} "")
    foreach(e IN LISTS TP_CK_TREE_ENTRIES)
      execute_process(COMMAND ${ARG_CXX} ${flags} -DTP_CK_TREE_CHECK=${check} -DTP_CK_TREE_ENTRY=${e}
                              -DTP_CK_TREE_ENTRY_PK_INT4=${e} -fsyntax-only ${declares}
                      RESULT_VARIABLE rc OUTPUT_QUIET ERROR_QUIET)
      if(rc EQUAL 0)
        set(found_${check} ${e})
        break()
      endif()
    endforeach()
    if(NOT found_1)
      break()
    endif()
  endforeach()
  if(NOT found_1)
    # Nothing compiled: the file alone, through the shim, tells a file the shim cannot serve from an unknown API.
    file(WRITE ${ARG_DIR}/include_only.cpp "#include \"ck_tile/core/arch/mma/sparse/sparse_transforms.hpp\"\n")
    execute_process(COMMAND ${ARG_CXX} ${flags} -fsyntax-only ${ARG_DIR}/include_only.cpp
                    RESULT_VARIABLE rc ERROR_VARIABLE err OUTPUT_QUIET)
    if(NOT rc EQUAL 0)
      tp_ck_tree_first_error(first "${err}")
      message(FATAL_ERROR "${ARG_NAME}: ${ARG_WHAT}'s ${TP_CK_TREE_FILE} does not compile through tileprobe's "
                          "ck_tile shim (kernels/ck_sparse/tree/shim):\n${first}")
    endif()
  endif()
  if(NOT found_1 OR NOT found_2)
    tp_ck_tree_declared(declared "${ARG_DIR}/${TP_CK_TREE_FILE}")
    set(known "")
    foreach(g IN LISTS TP_CK_TREE_GENERATIONS)
      string(REPLACE "|" ";" g "${g}")
      list(GET g 0 name)
      list(GET g 1 api)
      list(APPEND known "${name} ${api}")
    endforeach()
    list(JOIN known "; " known)
    set(missing "int8/fp8/fp16")
    if(found_1)
      set(missing "pk_int4")
    endif()
    # The leading space keeps CMake from wrapping it: one line.
    message(FATAL_ERROR " ${ARG_NAME}: ${ARG_WHAT}'s sparse_transforms.hpp declares ${declared}: no API the harness "
                        "knows takes ${missing} (it knows ${known})")
  endif()
  execute_process(COMMAND ${ARG_CXX} ${flags} -DTP_CK_TREE_CHECK=3 -DTP_CK_TREE_ENTRY=${found_1} -fsyntax-only
                          ${declares}
                  RESULT_VARIABLE rc OUTPUT_QUIET ERROR_QUIET)
  set(extract 0)
  if(rc EQUAL 0)
    set(extract 1)
  endif()
  set(describe ${ARG_DIR}/declares)
  execute_process(COMMAND ${ARG_CXX} ${flags} -DTP_CK_TREE_ENTRY=${found_1} -DTP_CK_TREE_ENTRY_PK_INT4=${found_2}
                          -DTP_CK_TREE_EXTRACT=${extract} ${declares} -o ${describe}
                  RESULT_VARIABLE rc ERROR_VARIABLE err OUTPUT_QUIET)
  if(rc EQUAL 0)
    execute_process(COMMAND ${describe} RESULT_VARIABLE rc OUTPUT_VARIABLE signature ERROR_VARIABLE err
                    OUTPUT_STRIP_TRAILING_WHITESPACE)
  endif()
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${ARG_NAME}: harness/declares.cpp, built for the entries it approved, failed:\n${err}")
  endif()
  set(generation "none listed (a combination of shapes the harness knows that no generation it lists has)")
  foreach(g IN LISTS TP_CK_TREE_GENERATIONS)
    string(REPLACE "|" ";" g "${g}")
    list(GET g 2 sig)
    if(sig STREQUAL signature)
      list(GET g 0 name)
      list(GET g 1 api)
      set(generation "${name}: ${api}")
    endif()
  endforeach()
  set(${prefix}_ENTRY ${found_1} PARENT_SCOPE)
  set(${prefix}_ENTRY_PK_INT4 ${found_2} PARENT_SCOPE)
  set(${prefix}_EXTRACT ${extract} PARENT_SCOPE)
  set(${prefix}_SIGNATURE "${signature}" PARENT_SCOPE)
  set(${prefix}_GENERATION "${generation}" PARENT_SCOPE)
endfunction()

# tp_ck_tree_patch(<out> FILE <sparse_transforms.hpp> PATCH <file> DIR <empty folder>): git apply of PATCH to a copy
# of FILE, under DIR; <out> is the patched copy. The patch may name the file as a composable_kernel checkout does
# (a/include/...) or as rocm-libraries does (a/projects/composablekernel/include/...): the copy sits where the patch
# says, whichever layout FILE came from.
function(tp_ck_tree_patch out)
  cmake_parse_arguments(ARG "" "FILE;PATCH;DIR" "" ${ARGN})
  find_program(TP_GIT git)
  if(NOT TP_GIT)
    message(FATAL_ERROR "TP_CK_PATCH needs git (git apply)")
  endif()
  file(REMOVE_RECURSE ${ARG_DIR})
  file(MAKE_DIRECTORY ${ARG_DIR})
  # Repository discovery fenced off at the folder's parent: it may lie inside a checkout (ours, in the build folder).
  get_filename_component(ceiling ${ARG_DIR} DIRECTORY)
  set(git ${CMAKE_COMMAND} -E env GIT_CEILING_DIRECTORIES=${ceiling} ${TP_GIT})
  execute_process(COMMAND ${git} apply --numstat ${ARG_PATCH} WORKING_DIRECTORY ${ARG_DIR}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE numstat ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "TP_CK_PATCH=${ARG_PATCH} is not a patch git apply reads:\n${err}")
  endif()
  set(path "")
  foreach(p ${TP_CK_TREE_FILE} projects/composablekernel/${TP_CK_TREE_FILE})
    string(FIND "${numstat}" "\t${p}\n" at)
    if(at GREATER_EQUAL 0)
      set(path ${p})
      break()
    endif()
  endforeach()
  if(NOT path)
    string(REGEX REPLACE "[0-9-]+\t[0-9-]+\t([^\n]*)\n" "\\1, " changes "${numstat}")
    message(FATAL_ERROR " TP_CK_PATCH=${ARG_PATCH} does not change ${TP_CK_TREE_FILE} (paths in the patch are a "
                        "checkout's: a/${TP_CK_TREE_FILE}, or a/projects/composablekernel/${TP_CK_TREE_FILE} in "
                        "rocm-libraries); it changes ${changes}nothing else")
  endif()
  configure_file(${ARG_FILE} ${ARG_DIR}/${path} COPYONLY)
  execute_process(COMMAND ${git} apply --include=${path} ${ARG_PATCH} WORKING_DIRECTORY ${ARG_DIR}
                  RESULT_VARIABLE rc ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "TP_CK_PATCH=${ARG_PATCH} does not apply to ${ARG_FILE}:\n${err}")
  endif()
  set(${out} ${ARG_DIR}/${path} PARENT_SCOPE)
endfunction()

# tp_ck_tree_copy(<prefix> NAME <variant> FILE <sparse_transforms.hpp> DIR <folder> WHAT <words> CXX <clang++>
#                 FLAGS <flags>): the file copied alone to DIR/include/..., its SHA-256 and generation.
function(tp_ck_tree_copy prefix)
  cmake_parse_arguments(ARG "" "NAME;FILE;DIR;WHAT;CXX" "FLAGS" ${ARGN})
  configure_file(${ARG_FILE} ${ARG_DIR}/${TP_CK_TREE_FILE} COPYONLY)
  file(SHA256 ${ARG_FILE} sha256)
  tp_ck_tree_detect(api NAME ${ARG_NAME} DIR ${ARG_DIR} WHAT "${ARG_WHAT}" CXX ${ARG_CXX} FLAGS ${ARG_FLAGS})
  foreach(v ENTRY ENTRY_PK_INT4 EXTRACT SIGNATURE GENERATION)
    set(${prefix}_${v} "${api_${v}}" PARENT_SCOPE)
  endforeach()
  set(${prefix}_COPY ${ARG_DIR}/${TP_CK_TREE_FILE} PARENT_SCOPE)
  set(${prefix}_SHA256 ${sha256} PARENT_SCOPE)
endfunction()

if(CMAKE_SCRIPT_MODE_FILE STREQUAL CMAKE_CURRENT_LIST_FILE)
  if(NOT CXX OR NOT ROOT OR NOT OUT)
    message(FATAL_ERROR "usage: cmake -DCXX=<clang++> -DROOT=<tree> -DOUT=<folder> [-DPATCH=<file>] "
                        "[-DSTOP_AFTER=locate|patch] -P tree.cmake")
  endif()
  tp_ck_tree_locate(tree ROOT "${ROOT}" WHAT "ROOT=${ROOT}")
  tp_ck_tree_git(git FILE "${tree_FILE}")
  set(file "${tree_FILE}")
  set(facts "file=${file}" "layout=${tree_LAYOUT}" "git=${git}")
  if(PATCH)
    tp_ck_tree_patch(file FILE "${tree_FILE}" PATCH "${PATCH}" DIR "${OUT}/patched")
    file(SHA256 "${file}" sha256)
    list(APPEND facts "patched=${file}" "sha256=${sha256}")
  endif()
  if(NOT STOP_AFTER)
    tp_ck_tree_copy(copy NAME tree FILE "${file}" DIR "${OUT}/copy" WHAT "ROOT=${ROOT}" CXX "${CXX}"
                    FLAGS -std=c++20)
    list(APPEND facts "sha256=${copy_SHA256}" "signature=${copy_SIGNATURE}" "generation=${copy_GENERATION}")
  endif()
  foreach(line IN LISTS facts)
    message("${line}")
  endforeach()
endif()
