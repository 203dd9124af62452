# The fixture of the install tests: installs the build tree BUILD_DIR into a staging prefix, moves
# the prefix (as a package unpacked elsewhere would be) to INSTALL_ROOT/moved-prefix, and checks the
# installed data and the package's files, one per component.
include(${CMAKE_CURRENT_LIST_DIR}/common.cmake)
file(REMOVE_RECURSE "${INSTALL_ROOT}")

run_step(${CMAKE_COMMAND} --install "${BUILD_DIR}" --prefix "${INSTALL_ROOT}/staging")
file(RENAME "${INSTALL_ROOT}/staging" "${prefix}")

set(expected
    share/rebound/vendors/mysql.yaml
    share/rebound/schema/rebound-policy.schema.json
    share/rebound/schema/rebound-vendor-map.schema.json
    share/rebound/tiers/standard.yaml
    include/rebound/testing.hpp
    ${LIBDIR}/cmake/rebound/reboundConfig.cmake)
string(REPLACE "," ";" components "${COMPONENTS}")
foreach(component ${components})
  list(APPEND expected ${LIBDIR}/cmake/rebound/rebound-${component}.cmake
    ${LIBDIR}/cmake/rebound/rebound-${component}-targets.cmake)
endforeach()
foreach(installed ${expected})
  if(NOT EXISTS "${prefix}/${installed}")
    message(FATAL_ERROR "install test: ${installed} is not installed")
  endif()
endforeach()
