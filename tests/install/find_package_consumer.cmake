# The consumer project tests/install/consumer against the installed prefix: the engine, dsl and
# odbc components (gRPC when installed) and the installed vendor maps, found without
# REBOUND_DATA_DIR.
include(${CMAKE_CURRENT_LIST_DIR}/common.cmake)
set(build "${WORK_DIR}/build")
file(REMOVE_RECURSE "${build}")
run_step(${CMAKE_COMMAND} -S "${CMAKE_CURRENT_LIST_DIR}/consumer" -B "${build}" -G "${GENERATOR}"
  "-DCMAKE_PREFIX_PATH=${prefix}" "-DREBOUND_EXPECTED_PREFIX=${prefix}" -DCMAKE_BUILD_TYPE=Release)
run_step(${CMAKE_COMMAND} --build "${build}")
run_step(${CMAKE_COMMAND} -E env --unset=REBOUND_DATA_DIR "${build}/rebound_consumer")
