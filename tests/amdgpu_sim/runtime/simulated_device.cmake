# require_simulated_device(<report JSON text>): the report's environment must name tileprobe's simulator as the
# device (its name says "(tileprobe simulator)", the description SIMULATED), never hardware. Included by the hip-sim
# check scripts here.
function(require_simulated_device json)
  string(JSON n LENGTH "${json}" environment)
  math(EXPR last "${n} - 1")
  set(device "")
  foreach(i RANGE ${last})
    string(JSON key GET "${json}" environment ${i} key)
    if(key STREQUAL "device")
      string(JSON device GET "${json}" environment ${i} value)
    endif()
  endforeach()
  if(NOT device MATCHES "\\(tileprobe simulator\\)" OR NOT device MATCHES "SIMULATED")
    message(FATAL_ERROR "the hip run's report does not name the simulated device: device '${device}'")
  endif()
  message(STATUS "hip device: ${device}")
endfunction()
