# cmake -P helper of variants.cmake: build one variant tree (copy, then git apply each patch in order).
# Inputs: FAMILY VARIANT PROJECT_ROOT DIRS (|-separated) DEST PATCHES (|-separated) GIT STAMP
string(REPLACE "|" ";" DIRS "${DIRS}")
string(REPLACE "|" ";" PATCHES "${PATCHES}")
file(REMOVE_RECURSE ${DEST})
file(MAKE_DIRECTORY ${DEST})
foreach(d ${DIRS})
  file(RELATIVE_PATH rel ${PROJECT_ROOT} ${d})
  get_filename_component(parent ${DEST}/${rel} DIRECTORY)
  file(COPY ${d} DESTINATION ${parent} PATTERN CMakeLists.txt EXCLUDE)
endforeach()
# The build tree usually sits inside the checkout: without the ceiling, git would find the enclosing repository and
# apply relative to its root (and silently skip paths outside the current folder).
get_filename_component(ceiling ${DEST} DIRECTORY)
set(ENV{GIT_CEILING_DIRECTORIES} ${ceiling})
foreach(p ${PATCHES})
  execute_process(COMMAND ${GIT} apply --whitespace=nowarn -p1 ${p}
                  WORKING_DIRECTORY ${DEST} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    file(REMOVE_RECURSE ${DEST})
    message(FATAL_ERROR "variant ${FAMILY}/${VARIANT}: patch ${p} does not apply:\n${out}${err}")
  endif()
endforeach()
# Fresh timestamps: the copies are the custom command's outputs and must not look older than its inputs.
file(GLOB_RECURSE generated ${DEST}/*)
file(TOUCH_NOCREATE ${generated})
file(TOUCH ${STAMP})
