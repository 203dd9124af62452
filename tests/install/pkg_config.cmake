# The pkg-config files of the installed prefix (lib/pkgconfig/rebound-<component>.pc): the README's
# first example compiled and linked with `pkg-config --cflags --libs rebound-engine`, its policy-file
# example with rebound-dsl (which brings rebound-engine and yaml-cpp), both run; every installed
# component's file resolves with its requirements.
include(${CMAKE_CURRENT_LIST_DIR}/common.cmake)
find_program(pkg_config NAMES pkg-config pkgconf REQUIRED)
find_program(compiler NAMES c++ g++ REQUIRED)
set(ENV{PKG_CONFIG_PATH} "${prefix}/${LIBDIR}/pkgconfig")
file(REMOVE_RECURSE "${WORK_DIR}")
file(MAKE_DIRECTORY "${WORK_DIR}")

string(REPLACE "," ";" components "${COMPONENTS}")
foreach(component ${components})
  run_capture(flags status ${pkg_config} --cflags --libs rebound-${component})
  if(NOT status EQUAL 0 OR NOT flags MATCHES "-lrebound_${component}")
    message(FATAL_ERROR "pkg-config does not resolve rebound-${component}")
  endif()
endforeach()

foreach(example retry:engine retry_from_file:dsl)
  string(REPLACE ":" ";" example "${example}")
  list(GET example 0 program)
  list(GET example 1 component)
  run_capture(flags status ${pkg_config} --cflags --libs rebound-${component})
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "pkg-config --cflags --libs rebound-${component} failed")
  endif()
  separate_arguments(flags UNIX_COMMAND "${flags}")
  run_step(${compiler} "${CMAKE_CURRENT_LIST_DIR}/readme/${program}.cpp" ${flags}
    -o "${WORK_DIR}/${program}")
  execute_process(COMMAND "${WORK_DIR}/${program}" WORKING_DIRECTORY "${CMAKE_CURRENT_LIST_DIR}/readme"
    RESULT_VARIABLE status OUTPUT_VARIABLE output ERROR_VARIABLE output)
  if(NOT status EQUAL 0 OR NOT output STREQUAL "succeeded after 3 attempts\n")
    message(FATAL_ERROR "${program} (pkg-config) printed '${output}' (status ${status})")
  endif()
  message("${program}, built with pkg-config rebound-${component}: ${output}")
endforeach()
