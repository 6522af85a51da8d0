# tp_add_probe(): one probe's executable and its CTest share, the boilerplate every probes/<name>/CMakeLists.txt had,
# and the probe's one registration: every list of probes derives from it (the manifest below).
#
#   tp_add_probe(<name> FAMILY <family> LIBS <targets>...
#                [FAIL_PASS_ARGS <args>...]      the fail-pass test's arguments (fuzz count, a filter under ASan)
#                [MATRIX_ARGS <args>...]         the kill/pass tests' arguments (smaller fuzz count, filters)
#                [FAIL_PASS_COVERS <variants>...] variants of the probe's default run: its fail-pass test already
#                                                 proves them caught, so no separate kill test is generated
#                [COMPILE_OPTIONS <options>...]
#                [CAMPAIGN]                       the sharded fuzz campaigns (ci/slurm, the GitHub fuzz workflow) run
#                                                 it by default
#                [CONTRACT_FIXTURE <fixture>]     the probe contract's tests with fixtures (tests/probes_common: bad
#                                                 input with that fixture's file corrupted, reruns, determinism, the
#                                                 README's input files)
#                [NO_VERDICT_TESTS])              a probe whose variants are not fixes (swmmac-sweep): its folder
#                                                 adds its own tests
#
# Makes bin/probe-<name> from main.cpp and the tests
#   probe.<name>.fail-pass                 --expect fail-pass FAIL_PASS_ARGS
#   probe.<name>.killed.<variant>          --variant V --expect fail --no-shrink MATRIX_ARGS
#   probe.<name>.pass.<variant>            --variant V --expect pass --no-shrink MATRIX_ARGS
#   probe.<name>.contract.empty-case       `--case ''` exits 2 with one line (every probe)
# The kill/pass tests come from patches/<family>/targets, the one place that says which probe must catch which
# variant (tools/tileprobe-report --targets-dir reads the same file for the mutation matrix):
#   fixed-minus-NNNN <probe>...   exactly these probes catch it: a kill test here when <name> is listed, else a pass
#   mutant-<name> <probe>...      at least these probes catch it: a kill test here when <name> is listed
#   upstream <probe>...           (the mutation matrix's row; the fail-pass test covers it here)
# Every test of the probe's folder, also those the folder adds itself after this call, counts exit 77 (backend not
# available) as skipped and is labelled probe;<family>;cpu unless the folder gave it labels of its own.
#
# The registration: the global property TP_PROBES lists the names in registration order, and TP_PROBE_<name>_FAMILY,
# _VERDICT_TESTS, _CAMPAIGN, _CONTRACT_FIXTURE hold what the call said. tp_write_probe_manifest() writes them as bin/probes.json (beside
# the executables, so a copy of bin/ carries it) for the scripts: ci/lib/probe_list.py reads it.
function(tp_add_probe name)
  cmake_parse_arguments(ARG "NO_VERDICT_TESTS;CAMPAIGN" "FAMILY;CONTRACT_FIXTURE" "LIBS;FAIL_PASS_ARGS;MATRIX_ARGS;FAIL_PASS_COVERS;COMPILE_OPTIONS" ${ARGN})
  if(NOT ARG_FAMILY)
    message(FATAL_ERROR "tp_add_probe(${name}): FAMILY is required")
  endif()
  if(NOT name MATCHES "^[a-z0-9-]+$")
    message(FATAL_ERROR "tp_add_probe(${name}): a probe's name is lower case letters, digits and '-'")
  endif()
  set_property(GLOBAL APPEND PROPERTY TP_PROBES ${name})
  set_property(GLOBAL PROPERTY TP_PROBE_${name}_FAMILY ${ARG_FAMILY})
  if(ARG_NO_VERDICT_TESTS)
    set_property(GLOBAL PROPERTY TP_PROBE_${name}_VERDICT_TESTS false)
  else()
    set_property(GLOBAL PROPERTY TP_PROBE_${name}_VERDICT_TESTS true)
  endif()
  if(ARG_CAMPAIGN)
    set_property(GLOBAL PROPERTY TP_PROBE_${name}_CAMPAIGN true)
  else()
    set_property(GLOBAL PROPERTY TP_PROBE_${name}_CAMPAIGN false)
  endif()
  set_property(GLOBAL PROPERTY TP_PROBE_${name}_CONTRACT_FIXTURE "${ARG_CONTRACT_FIXTURE}")
  set(exe probe-${name})
  add_executable(${exe} main.cpp)
  set_target_properties(${exe} PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/bin)
  target_link_libraries(${exe} PRIVATE ${ARG_LIBS})
  target_compile_options(${exe} PRIVATE ${TP_WARNINGS} ${ARG_COMPILE_OPTIONS})

  # At the end of the folder, so the tests the folder adds after this call are labelled too (EVAL: a deferred call's
  # arguments are otherwise expanded when it runs, where ARG_FAMILY is gone).
  cmake_language(EVAL CODE "cmake_language(DEFER CALL tp_label_probe_tests ${ARG_FAMILY})")
  # An empty filter would be a substring of every id (a script's unset variable): it must not run everything.
  add_test(NAME probe.${name}.contract.empty-case
           COMMAND sh -c "\"$0\" --case '' >\"$1\" 2>&1; rc=$?; n=$(wc -l <\"$1\"); \
             [ $rc -eq 2 ] && [ $n -eq 1 ] || { echo \"exit $rc, $n lines (expected exit 2, one line):\"; cat \"$1\"; exit 1; }"
                   $<TARGET_FILE:${exe}> ${CMAKE_CURRENT_BINARY_DIR}/empty-case.out)
  set_tests_properties(probe.${name}.contract.empty-case PROPERTIES LABELS "probe;${ARG_FAMILY};cpu;contract")
  if(ARG_NO_VERDICT_TESTS)
    return()
  endif()

  add_test(NAME probe.${name}.fail-pass COMMAND ${exe} --backend cpu --expect fail-pass ${ARG_FAIL_PASS_ARGS})

  set(targets_file ${PROJECT_SOURCE_DIR}/patches/${ARG_FAMILY}/targets)
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${targets_file})
  tp_read_targets(${targets_file} variants)
  foreach(v ${variants})
    if(v STREQUAL "upstream" OR v IN_LIST ARG_FAIL_PASS_COVERS)
      continue()
    endif()
    set(catchers ${TP_TARGETS_${v}})
    if(name IN_LIST catchers)
      add_test(NAME probe.${name}.killed.${v}
               COMMAND ${exe} --backend cpu --variant ${v} --expect fail --no-shrink ${ARG_MATRIX_ARGS})
    elseif(v MATCHES "^fixed-minus-")
      add_test(NAME probe.${name}.pass.${v}
               COMMAND ${exe} --backend cpu --variant ${v} --expect pass --no-shrink ${ARG_MATRIX_ARGS})
    endif()
  endforeach()
endfunction()

function(tp_label_probe_tests family)
  get_property(tests DIRECTORY PROPERTY TESTS)
  foreach(t ${tests})
    get_test_property(${t} LABELS labels)
    if(NOT labels)
      set_tests_properties(${t} PROPERTIES LABELS "probe;${family};cpu")
    endif()
    set_tests_properties(${t} PROPERTIES SKIP_RETURN_CODE 77)
  endforeach()
endfunction()

# bin/probes.json from the registrations (called once every probe folder was added): manifest_version 1, then per
# probe its name, executable (relative to the build folder), family, source folder, verdict_tests (false: its variants
# are not fixes, NO_VERDICT_TESTS) and campaign. Rewritten only when it changes.
function(tp_write_probe_manifest)
  get_property(probes GLOBAL PROPERTY TP_PROBES)
  set(entries)
  foreach(p ${probes})
    get_property(family GLOBAL PROPERTY TP_PROBE_${p}_FAMILY)
    get_property(verdict GLOBAL PROPERTY TP_PROBE_${p}_VERDICT_TESTS)
    get_property(campaign GLOBAL PROPERTY TP_PROBE_${p}_CAMPAIGN)
    list(APPEND entries "    {\"name\": \"${p}\", \"executable\": \"bin/probe-${p}\", \"family\": \"${family}\", \
\"source_dir\": \"probes/${p}\", \"verdict_tests\": ${verdict}, \"campaign\": ${campaign}}")
  endforeach()
  list(JOIN entries ",\n" body)
  file(CONFIGURE OUTPUT ${CMAKE_BINARY_DIR}/bin/probes.json
       CONTENT "{\n  \"manifest_version\": 1,\n  \"probes\": [\n${body}\n  ]\n}\n")
endfunction()

# Reads a patches/<family>/targets file: sets `out` (in the caller) to its variants in file order and, per variant V,
# TP_TARGETS_<V> to the probes listed for it. '#' starts a comment; a variant listed twice is an error.
function(tp_read_targets file out)
  if(NOT EXISTS ${file})
    message(FATAL_ERROR "${file} is missing: it declares which probe must catch which variant")
  endif()
  file(STRINGS ${file} lines)
  set(variants)
  foreach(line ${lines})
    string(REGEX REPLACE "#.*" "" line "${line}")
    string(STRIP "${line}" line)
    if(line STREQUAL "")
      continue()
    endif()
    string(REGEX REPLACE "[ \t]+" ";" words "${line}")
    list(POP_FRONT words v)
    if(NOT v MATCHES "^(upstream|fixed-minus-[0-9][0-9][0-9][0-9]|mutant-[a-z0-9-]+)$")
      message(FATAL_ERROR "${file}: '${v}' is not upstream, fixed-minus-NNNN or mutant-NAME")
    endif()
    if(v IN_LIST variants)
      message(FATAL_ERROR "${file}: ${v} is listed twice")
    endif()
    list(APPEND variants ${v})
    set(TP_TARGETS_${v} ${words} PARENT_SCOPE)
  endforeach()
  set(${out} ${variants} PARENT_SCOPE)
endfunction()

# The probe contract's tests (probes/common/README.md) on a flash-attention probe, probe.<name>.contract.*: the
# bad-input battery (the framework's classes plus probes/fa_support/bad_input_fa.sh), every printed id reruns alone
# (python3 tests/probes_common/rerun_ids.py over a run with RERUN_ARGS), that run's Markdown names no absolute path
# and reruns each counterexample from the text it holds (check_markdown_rerun.py), two runs with RUN_ARGS give
# identical JSON apart from timings, and the README's input examples run with the buggy variants failing them.
function(tp_add_fa_contract_tests name)
  cmake_parse_arguments(ARG "" "" "RERUN_ARGS;RUN_ARGS" ${ARGN})
  set(pc ${PROJECT_SOURCE_DIR}/tests/probes_common)
  set(exe $<TARGET_FILE:probe-${name}>)
  add_test(NAME probe.${name}.contract.bad-input
           COMMAND bash ${pc}/check_bad_input.sh ${exe} ${PROJECT_SOURCE_DIR}/fixtures ""
                   ${PROJECT_SOURCE_DIR}/probes/fa_support/bad_input_fa.sh)
  add_test(NAME probe.${name}.contract.rerun-ids
           COMMAND python3 ${pc}/rerun_ids.py ${exe} ${CMAKE_CURRENT_BINARY_DIR}/rerun ${ARG_RERUN_ARGS})
  add_test(NAME probe.${name}.contract.markdown-rerun
           COMMAND python3 ${pc}/check_markdown_rerun.py ${exe} ${CMAKE_CURRENT_BINARY_DIR}/markdown ${PROJECT_SOURCE_DIR}
                   ${ARG_RERUN_ARGS})
  add_test(NAME probe.${name}.contract.determinism COMMAND bash ${pc}/check_determinism.sh ${exe} ${ARG_RUN_ARGS})
  add_test(NAME probe.${name}.contract.readme-inputs
           COMMAND bash ${pc}/check_readme_inputs.sh ${exe} ${CMAKE_CURRENT_SOURCE_DIR}/README.md)
endfunction()
