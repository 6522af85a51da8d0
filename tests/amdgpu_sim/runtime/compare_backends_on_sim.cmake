cmake_policy(SET CMP0054 NEW)  # quoted "device" is a string, never a variable reference
# One probe, the same cases on the cpu backend and on --backend hip under tileprobe's AMDGPU simulator: both runs
# must exit 0 (the probe's expectation holds on both), the hip run's report must name the simulated device (never
# hardware), and tileprobe-report --compare-backends cpu,hip must find every variant's d_digest, d_digest_cases,
# passed and failed equal (it exits 1 otherwise): the gfx1201 machine code computed the same D bit for bit.
#   cmake -DPROBE=<probe exe> -DREPORT=<tileprobe-report exe> -DWORK=<scratch dir> [-DARGS="--variant|all"] -P this
# (ARGS separated by | : a ; would split the -D argument on its way through add_test)
foreach(v PROBE REPORT WORK)
  if(NOT DEFINED ${v})
    message(FATAL_ERROR "compare_backends_on_sim.cmake: -D${v}=... is required")
  endif()
endforeach()
string(REPLACE "|" ";" ARGS "${ARGS}")
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK})

function(run_probe backend)
  if(backend STREQUAL "hip")
    set(env ${CMAKE_COMMAND} -E env TILEPROBE_HIP=sim)
  else()
    set(env ${CMAKE_COMMAND} -E env --unset=TILEPROBE_HIP)
  endif()
  execute_process(COMMAND ${env} ${PROBE} --backend ${backend} ${ARGS} --no-shrink --report json --out-json ${WORK}/${backend}.json
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${PROBE} --backend ${backend} ${ARGS}: exit ${rc}\n${out}\n${err}")
  endif()
  message(STATUS "--backend ${backend}: exit 0")
endfunction()
run_probe(cpu)
run_probe(hip)

file(READ ${WORK}/hip.json hip_json)
string(JSON n LENGTH "${hip_json}" environment)
set(hip_device "")
math(EXPR last "${n} - 1")
foreach(i RANGE ${last})
  string(JSON key GET "${hip_json}" environment ${i} key)
  if(key STREQUAL "device")
    string(JSON hip_device GET "${hip_json}" environment ${i} value)
  endif()
endforeach()
if(NOT hip_device MATCHES "\\(tileprobe simulator\\)" OR NOT hip_device MATCHES "SIMULATED")
  message(FATAL_ERROR "the hip run's report does not name the simulated device: device '${hip_device}'")
endif()
message(STATUS "hip device: ${hip_device}")

execute_process(COMMAND ${REPORT} --compare-backends cpu,hip ${WORK}/cpu.json ${WORK}/hip.json --out ${WORK}/compare.md
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "tileprobe-report --compare-backends cpu,hip: exit ${rc}\n${out}\n${err}")
endif()
message(STATUS "cpu and hip (simulated) agree on every variant's d_digest, d_digest_cases, passed and failed")
