# Build step of one patched tree variant: copy what tileprobe compiles from the user's tree into the build folder and
# apply the variant's sub-patch (split_fix.py wrote it at configure time) there. The user's tree is never touched.
#
#   cmake -DROOT=<tree> -DDEST=<dir> -DPATCH=<file> -DNAME=<variant> -DGIT=<git> -DSTAMP=<file> -P apply_tree.cmake
#
# Copied: ggml/include, the top-level ggml/src headers and ggml/src/ggml-cuda (what tree_variant.cu's includes reach,
# and what a fix may touch beside them). A sub-patch that does not apply stops the build naming the variant and patch.
foreach(v ROOT DEST PATCH NAME GIT STAMP)
  if(NOT ${v})
    message(FATAL_ERROR "apply_tree.cmake: -D${v}= is required")
  endif()
endforeach()
file(REMOVE_RECURSE ${DEST})
file(MAKE_DIRECTORY ${DEST}/ggml/src)
file(COPY ${ROOT}/ggml/include DESTINATION ${DEST}/ggml)
file(COPY ${ROOT}/ggml/src/ggml-cuda DESTINATION ${DEST}/ggml/src)
file(GLOB headers ${ROOT}/ggml/src/*.h)
file(COPY ${headers} DESTINATION ${DEST}/ggml/src)
# Repository discovery stops at DEST: git apply works on the copy as plain files, even inside a checkout.
execute_process(COMMAND ${CMAKE_COMMAND} -E env GIT_CEILING_DIRECTORIES=${DEST}/.. ${GIT} apply --verbose ${PATCH}
                WORKING_DIRECTORY ${DEST} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "tree variant ${NAME}: ${PATCH} does not apply to the tree copied from ${ROOT}:\n${err}")
endif()
file(TOUCH ${STAMP})
