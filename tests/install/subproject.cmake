# Rebound inside another project (tests/install/subproject), by add_subdirectory or FetchContent
# (HOW): configures, builds the README's first example against rebound::engine, and runs it.
include(${CMAKE_CURRENT_LIST_DIR}/common.cmake)
# The same depth for both ways, so that ccache (base_dir) serves the second from the first.
set(build "${WORK_DIR}/build")
file(REMOVE_RECURSE "${build}")
run_capture(output status ${CMAKE_COMMAND} -S "${CMAKE_CURRENT_LIST_DIR}/subproject" -B "${build}"
  -G "${GENERATOR}" "-DREBOUND_SOURCE_DIR=${SOURCE_DIR}" "-DREBOUND_HOW=${HOW}")
if(NOT status EQUAL 0)
  message(FATAL_ERROR "the project with Rebound by ${HOW} does not configure")
endif()
run_step(${CMAKE_COMMAND} --build "${build}" --target retry)
run_capture(output status "${build}/retry")
if(NOT status EQUAL 0 OR NOT output STREQUAL "succeeded after 3 attempts\n")
  message(FATAL_ERROR "retry printed '${output}' (status ${status})")
endif()
