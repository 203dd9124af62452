# What find_package(rebound) costs a consumer's configure step: the wall-clock time of
# configuring, in a new build directory each time, an empty project (tests/install/components
# with REBOUND_COMPONENTS=none: project() only), a consumer of the engine alone, and a consumer of
# every component but grpc; the fastest of ROUNDS rounds of each, interleaved. The engine must
# cost at most a second more than the empty project, and the consumer of every component but
# grpc must not look for gRPC at all (nothing asks pkg-config about it, its cache names none). The figures are
# printed (docs/install.md states them).
include(${CMAKE_CURRENT_LIST_DIR}/common.cmake)
set(source "${CMAKE_CURRENT_LIST_DIR}/components")
if(NOT ROUNDS)
  set(ROUNDS 3)
endif()

set(kinds empty engine most)
set(components_empty none)
set(components_engine engine)
set(components_most engine,protocols,observability,asio,dsl,lint,simulation,odbc,queue,curl)
foreach(kind ${kinds})
  set(best_${kind} 999999999999)
endforeach()
find_program(real_pkg_config NAMES pkg-config pkgconf)
set(pkg_config_log "${WORK_DIR}/pkg-config-arguments.log")
set(pkg_config_wrapper "${WORK_DIR}/pkg-config-wrapper.sh")
file(REMOVE "${pkg_config_log}")
file(WRITE "${pkg_config_wrapper}"
  "#!/bin/sh\necho \"$*\" >> '${pkg_config_log}'\nexec '${real_pkg_config}' \"$@\"\n")
file(CHMOD "${pkg_config_wrapper}" PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE)
foreach(round RANGE 1 ${ROUNDS})
  foreach(kind ${kinds})
    set(build "${WORK_DIR}/${kind}")
    file(REMOVE_RECURSE "${build}")
    now_us(start)
    execute_process(COMMAND ${CMAKE_COMMAND} -S "${source}" -B "${build}" -G "${GENERATOR}"
      --no-warn-unused-cli
      "-DCMAKE_PREFIX_PATH=${prefix}" "-DREBOUND_COMPONENTS=${components_${kind}}"
      "-DPKG_CONFIG_EXECUTABLE=${pkg_config_wrapper}"
      RESULT_VARIABLE status OUTPUT_QUIET)
    now_us(end)
    if(NOT status EQUAL 0)
      message(FATAL_ERROR "configuring the ${kind} consumer failed")
    endif()
    math(EXPR took "${end} - ${start}")
    if(took LESS best_${kind})
      set(best_${kind} ${took})
    endif()
  endforeach()
endforeach()

# microseconds -> "S.mmm s"
function(seconds variable us)
  math(EXPR whole "${us} / 1000000")
  math(EXPR millis "(${us} % 1000000) / 1000")
  string(LENGTH "${millis}" digits)
  if(digits EQUAL 1)
    set(millis "00${millis}")
  elseif(digits EQUAL 2)
    set(millis "0${millis}")
  endif()
  set(${variable} "${whole}.${millis} s" PARENT_SCOPE)
endfunction()
math(EXPR engine_extra "${best_engine} - ${best_empty}")
math(EXPR all_extra "${best_most} - ${best_empty}")
seconds(empty_text ${best_empty})
seconds(engine_text ${best_engine})
seconds(all_text ${best_most})
message("configure time, fastest of ${ROUNDS}: empty project ${empty_text}, engine ${engine_text}, "
  "every component but grpc ${all_text}")
if(engine_extra LESS 0)
  set(engine_extra 0)
endif()
seconds(engine_extra_text ${engine_extra})
message("find_package(rebound COMPONENTS engine) costs ${engine_extra_text} more than the empty project")
if(engine_extra GREATER 1000000)
  message(FATAL_ERROR "the engine consumer took more than a second longer than an empty project")
endif()

# FindCURL asks pkg-config about libcurl; nothing may ask about gRPC. The consumer's pkg-config
# is a wrapper that logs its arguments, and its cache must name no gRPC package either.
file(READ "${WORK_DIR}/most/CMakeCache.txt" cache)
string(TOLOWER "${cache}" cache)
if(cache MATCHES "grpc")
  string(REGEX MATCH "[^\n]*grpc[^\n]*" line "${cache}")
  message(FATAL_ERROR "the consumer of every component but grpc looked for gRPC: ${line}")
endif()
if(EXISTS "${pkg_config_log}")
  file(READ "${pkg_config_log}" asked)
  message("pkg-config was asked: ${asked}")
  if(asked MATCHES "grpc")
    message(FATAL_ERROR "the consumer of every component but grpc asked pkg-config about gRPC")
  endif()
endif()
