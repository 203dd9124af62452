# The README's examples (tests/install/readme, the README shows these files) as a consumer copies
# them, against the installed prefix:
#  - on a machine without the optional dependencies (no yaml-cpp, unixODBC, libcurl; no
#    pkg-config path, so no grpc++): the engine alone is found, `retry` builds and runs, and the
#    policy-file example is left out because the dsl component says what it needs;
#  - with everything: both programs build and run, the second on the README's policy file.
include(${CMAKE_CURRENT_LIST_DIR}/common.cmake)
set(source "${CMAKE_CURRENT_LIST_DIR}/readme")

set(build "${WORK_DIR}/engine-only")
file(REMOVE_RECURSE "${build}")
run_capture(output status ${no_pkg_config_path} ${CMAKE_COMMAND} -S "${source}" -B "${build}"
  -G "${GENERATOR}" "-DCMAKE_PREFIX_PATH=${prefix}" ${no_optional_dependencies})
if(NOT status EQUAL 0)
  message(FATAL_ERROR "the README's consumer does not configure with the engine alone")
endif()
if(NOT output MATCHES "rebound component dsl needs yaml-cpp \\(Debian: libyaml-cpp-dev\\)")
  message(FATAL_ERROR "the optional dsl component did not say what it needs")
endif()
run_step(${CMAKE_COMMAND} --build "${build}")
if(EXISTS "${build}/retry_from_file")
  message(FATAL_ERROR "retry_from_file was built without the dsl component")
endif()
run_capture(output status "${build}/retry")
if(NOT status EQUAL 0 OR NOT output STREQUAL "succeeded after 3 attempts\n")
  message(FATAL_ERROR "retry printed '${output}' (status ${status})")
endif()

set(build "${WORK_DIR}/everything")
file(REMOVE_RECURSE "${build}")
run_step(${CMAKE_COMMAND} -S "${source}" -B "${build}" -G "${GENERATOR}"
  "-DCMAKE_PREFIX_PATH=${prefix}")
run_step(${CMAKE_COMMAND} --build "${build}")
foreach(program retry retry_from_file)
  execute_process(COMMAND "${build}/${program}" WORKING_DIRECTORY "${source}"
    RESULT_VARIABLE status OUTPUT_VARIABLE output ERROR_VARIABLE output)
  message("${program}: ${output}")
  if(NOT status EQUAL 0 OR NOT output STREQUAL "succeeded after 3 attempts\n")
    message(FATAL_ERROR "${program} printed '${output}' (status ${status})")
  endif()
endforeach()
