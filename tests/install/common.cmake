# Helpers of the install tests (tests/install/CMakeLists.txt): the installed prefix every consumer
# uses, and running a step with its output kept for the failure message.
set(prefix "${INSTALL_ROOT}/moved-prefix")

# run_step(<command...>): fails the test when the command fails.
function(run_step)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE status)
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "install test step failed (${status}): ${ARGN}")
  endif()
endfunction()

# run_capture(<output variable> <status variable> <command...>): runs the command, printing and
# returning its output (stdout and stderr together) and exit status.
function(run_capture output_variable status_variable)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE status OUTPUT_VARIABLE output
    ERROR_VARIABLE output)
  message("${output}")
  set(${output_variable} "${output}" PARENT_SCOPE)
  set(${status_variable} "${status}" PARENT_SCOPE)
endfunction()

# now_us(<variable>): the wall-clock time in microseconds.
function(now_us variable)
  string(TIMESTAMP seconds "%s" UTC)
  string(TIMESTAMP micros "%f" UTC)
  math(EXPR value "${seconds} * 1000000 + ${micros}")
  set(${variable} ${value} PARENT_SCOPE)
endfunction()

# A machine without the optional dependencies, as a consumer sees it: CMake finds no yaml-cpp,
# unixODBC or libcurl, and pkg-config has no path (so no grpc++).
set(no_optional_dependencies -DCMAKE_DISABLE_FIND_PACKAGE_yaml-cpp=ON
  -DCMAKE_DISABLE_FIND_PACKAGE_ODBC=ON -DCMAKE_DISABLE_FIND_PACKAGE_CURL=ON)
set(no_pkg_config_path ${CMAKE_COMMAND} -E env PKG_CONFIG_PATH= PKG_CONFIG_LIBDIR=/nonexistent)
