# Installs the build tree BUILD_DIR into a staging prefix, moves the prefix (as a package unpacked
# elsewhere would be), checks the installed data, then configures, builds and runs the consumer
# project CONSUMER_DIR against the moved prefix with find_package(rebound CONFIG REQUIRED).
file(REMOVE_RECURSE "${WORK_DIR}")

function(run_step)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE status)
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "install test step failed (${status}): ${ARGN}")
  endif()
endfunction()

run_step(${CMAKE_COMMAND} --install "${BUILD_DIR}" --prefix "${WORK_DIR}/staging")
file(RENAME "${WORK_DIR}/staging" "${WORK_DIR}/moved-prefix")
set(prefix "${WORK_DIR}/moved-prefix")

foreach(installed
    share/rebound/vendors/mysql.yaml
    share/rebound/schema/rebound-policy.schema.json
    share/rebound/schema/rebound-vendor-map.schema.json
    share/rebound/tiers/standard.yaml
    include/rebound/testing.hpp)
  if(NOT EXISTS "${prefix}/${installed}")
    message(FATAL_ERROR "install test: ${installed} is not installed")
  endif()
endforeach()

run_step(${CMAKE_COMMAND} -S "${CONSUMER_DIR}" -B "${WORK_DIR}/build" -G "${GENERATOR}"
  "-DCMAKE_PREFIX_PATH=${prefix}" "-DREBOUND_EXPECTED_PREFIX=${prefix}" -DCMAKE_BUILD_TYPE=Release)
run_step(${CMAKE_COMMAND} --build "${WORK_DIR}/build")
# The consumer must find the vendor maps by itself: no REBOUND_DATA_DIR.
run_step(${CMAKE_COMMAND} -E env --unset=REBOUND_DATA_DIR "${WORK_DIR}/build/rebound_consumer")
