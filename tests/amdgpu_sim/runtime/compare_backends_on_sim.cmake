cmake_policy(SET CMP0054 NEW)  # quoted "device" is a string, never a variable reference
# One probe, the same cases on the cpu backend and on --backend hip under tileprobe's AMDGPU simulator: both runs
# must exit 0 (the probe's expectation holds on both), the hip run's report must name the simulated device (never
# hardware), and tileprobe-report --compare-backends cpu,hip must find every variant's d_digest, d_digest_cases,
# passed and failed equal (it exits 1 otherwise): the gfx1201 machine code computed the same D bit for bit.
#   cmake -DPROBE=<probe exe> -DREPORT=<tileprobe-report exe> -DWORK=<scratch dir> [-DARGS="--variant|all"]
#         [-DVERDICT=required|compared] [-DSIM=sim:<arch>] -P this
# (ARGS separated by | : a ; would split the -D argument on its way through add_test)
# VERDICT=compared is for a variant set whose verdict is not meant to hold (ck-idx-swap-xor's mutants fail its
# control cases by construction, so `--variant all` exits 1 on every backend): then each run must exit 0 or 1 (a
# verdict, never 2, 3 or 77), the two exits must be equal, and the digests are compared as above.
foreach(v PROBE REPORT WORK)
  if(NOT DEFINED ${v})
    message(FATAL_ERROR "compare_backends_on_sim.cmake: -D${v}=... is required")
  endif()
endforeach()
string(REPLACE "|" ";" ARGS "${ARGS}")
if(NOT DEFINED VERDICT)
  set(VERDICT required)
endif()
if(NOT VERDICT MATCHES "^(required|compared)$")
  message(FATAL_ERROR "compare_backends_on_sim.cmake: VERDICT is required or compared, not '${VERDICT}'")
endif()
if(NOT DEFINED SIM)
  set(SIM sim)
endif()
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK})

function(run_probe backend)
  if(backend STREQUAL "hip")
    set(env ${CMAKE_COMMAND} -E env TILEPROBE_HIP=${SIM})
  else()
    set(env ${CMAKE_COMMAND} -E env --unset=TILEPROBE_HIP)
  endif()
  execute_process(COMMAND ${env} ${PROBE} --backend ${backend} ${ARGS} --no-shrink --report json --out-json ${WORK}/${backend}.json
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0 AND NOT (VERDICT STREQUAL "compared" AND rc EQUAL 1))
    message(FATAL_ERROR "${PROBE} --backend ${backend} ${ARGS}: exit ${rc}\n${out}\n${err}")
  endif()
  message(STATUS "--backend ${backend}: exit ${rc}")
  set(exit_${backend} ${rc} PARENT_SCOPE)
endfunction()
run_probe(cpu)
run_probe(hip)
if(NOT exit_cpu EQUAL exit_hip)
  message(FATAL_ERROR "the verdicts differ: --backend cpu exits ${exit_cpu}, --backend hip (${SIM}) ${exit_hip}")
endif()

file(READ ${WORK}/hip.json hip_json)
include(${CMAKE_CURRENT_LIST_DIR}/simulated_device.cmake)
require_simulated_device("${hip_json}")

execute_process(COMMAND ${REPORT} --compare-backends cpu,hip ${WORK}/cpu.json ${WORK}/hip.json --out ${WORK}/compare.md
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(VERDICT STREQUAL "compared" AND rc EQUAL 1)
  # tileprobe-report also exits 1 for the runs' own broken verdicts, one stderr line each: "tileprobe-report: <probe>
  # (<backend>): <what>". Those are expected here, and must be the same on both backends; any other line (a
  # "compare:" difference, a merge problem) is a failure.
  string(REPLACE ";" "<semicolon>" lines "${err}")  # the messages contain ';', a list separator in cmake
  string(REPLACE "\n" ";" lines "${lines}")
  set(broken_cpu "")
  set(broken_hip "")
  foreach(line IN LISTS lines)
    if(line STREQUAL "" OR line MATCHES "^tileprobe-report: warning: the document has [0-9]+ characters")
      # A long comparison is also written in parts (--comment-limit): a note about the document, not the runs.
      continue()
    elseif(line MATCHES "^tileprobe-report: [^ ]+ \\((cpu|hip)\\): (.*)$")
      list(APPEND broken_${CMAKE_MATCH_1} "${CMAKE_MATCH_2}")
    else()
      message(FATAL_ERROR "tileprobe-report --compare-backends cpu,hip: exit ${rc}: ${line}\n${err}")
    endif()
  endforeach()
  if(NOT broken_cpu STREQUAL broken_hip)
    message(FATAL_ERROR "the broken verdicts differ between cpu and hip:\n${err}")
  endif()
  list(LENGTH broken_cpu n_broken)
  message(STATUS "the same ${n_broken} broken verdicts on cpu and hip (VERDICT=compared)")
elseif(NOT rc EQUAL 0)
  message(FATAL_ERROR "tileprobe-report --compare-backends cpu,hip: exit ${rc}\n${out}\n${err}")
endif()
message(STATUS "cpu and hip (simulated) agree on every variant's d_digest, d_digest_cases, passed and failed")
