# Does a beellama tree hold what tileprobe compiles from it? Every file tree_variant.cu includes (and kvarn.cu, whose
# store kernels are compiled beside it), and in each the kernel (or name) tileprobe launches or builds; the first
# thing missing stops configure with one line naming it.
#
#   include(check_tree.cmake) + tp_fa_check_tree(<root> <what to call it in messages>)    (configure)
# Each entry of TP_FA_TREE_NEEDS is <file relative to the root>[:<name>,<name>...].
#   cmake -DROOT=<root> -DWHAT=<name> -P check_tree.cmake                                   (tests/fa_tree)
#
# The list is the one place these names are written; tree_variant.cu uses each of them. Messages begin with a space:
# CMake then prints them as they are, on one line, instead of re-wrapping the text.
set(TP_FA_TREE_NEEDS
  "ggml/include/ggml.h"
  "ggml/src/ggml-cuda/common.cuh"
  "ggml/src/ggml-cuda/fattn.cuh"
  "ggml/src/ggml-cuda/fattn-mma-f16.cuh:flash_attn_ext_f16"
  "ggml/src/ggml-cuda/fattn-common.cuh:flash_attn_stream_k_fixup_uniform,flash_attn_stream_k_fixup_general,flash_attn_mask_to_KV_max"
  "ggml/src/ggml-cuda/fattn-mma-kvarn-case.cuh"
  "ggml/src/ggml-cuda/fattn-mma-kvarn.cuh:GGML_CUDA_FATTN_KVARN_TYPE"
  "ggml/src/ggml-cuda/fattn-tail.cuh:k_flash_attn_ext_tail_indexed_small,k_flash_attn_ext_tail_partials_merge"
  "ggml/src/ggml-cuda/kvarn.cu:kvarn_store_kernel_hishmem,kvarn_store_kernel_lowshmem")

function(tp_fa_check_tree root what)
  if(NOT IS_DIRECTORY "${root}")
    message(FATAL_ERROR " ${what}=${root} is not a directory")
  endif()
  foreach(entry ${TP_FA_TREE_NEEDS})
    set(names "")
    if(entry MATCHES "^([^:]+):(.+)$")
      set(file ${CMAKE_MATCH_1})
      set(names ${CMAKE_MATCH_2})
    else()
      set(file ${entry})
    endif()
    if(NOT EXISTS "${root}/${file}")
      message(FATAL_ERROR " ${what}=${root} has no ${file} (tileprobe compiles the tree's flash-attention kernels from it)")
    endif()
    if(names)
      string(REPLACE "," ";" names "${names}")
      file(READ "${root}/${file}" text)
      foreach(name ${names})
        # A kernel is its __global__ definition; a plain name (a type constant) is a definition of any kind.
        if(name MATCHES "^[a-z]")
          set(re "__global__[ \t\r\n]+void[ \t\r\n]+${name}[ \t\r\n]*\\(")
          set(kind kernel)
        else()
          set(re "[^A-Za-z0-9_]${name}[ \t\r\n]*=")
          set(kind definition)
        endif()
        if(NOT text MATCHES "${re}")
          message(FATAL_ERROR " ${what}=${root}: ${file} has no ${kind} ${name} (tileprobe launches the tree's own)")
        endif()
      endforeach()
    endif()
  endforeach()
endfunction()

if(CMAKE_SCRIPT_MODE_FILE AND CMAKE_SCRIPT_MODE_FILE STREQUAL CMAKE_CURRENT_LIST_FILE)
  if(NOT ROOT OR NOT WHAT)
    message(FATAL_ERROR "check_tree.cmake: -DROOT=<beellama tree> -DWHAT=<option name> are required")
  endif()
  tp_fa_check_tree("${ROOT}" "${WHAT}")
  message(STATUS "${WHAT}=${ROOT}: every file and kernel tileprobe compiles is there")
endif()
