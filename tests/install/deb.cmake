# The Debian packages (CPack, cmake/ReboundInstall.cmake): cpack -G DEB on the build tree makes
# rebound-data, librebound-dev and rebound. Each holds its part of the installation under /usr and
# names its dependencies; unpacked together into a temporary root (dpkg -x, as `apt-get install`
# would lay them out), the README's engine example builds against them and the command line finds
# the packaged vendor maps.
include(${CMAKE_CURRENT_LIST_DIR}/common.cmake)
file(REMOVE_RECURSE "${WORK_DIR}")
run_step(${CMAKE_COMMAND} -E chdir "${BUILD_DIR}" cpack -G DEB -B "${WORK_DIR}")

# deb_package(<variable> <name>): the one <name>_*.deb cpack made.
function(deb_package variable name)
  file(GLOB found "${WORK_DIR}/${name}_*.deb")
  list(LENGTH found count)
  if(NOT count EQUAL 1)
    message(FATAL_ERROR "cpack made ${count} ${name}_*.deb files, not one")
  endif()
  set(${variable} "${found}" PARENT_SCOPE)
endfunction()

# expect_contents(<package> <path>...): the package holds each path.
function(expect_contents package)
  run_capture(contents status dpkg-deb --contents ${package})
  foreach(path IN LISTS ARGN)
    string(FIND "${contents}" " ${path}\n" at)
    if(at EQUAL -1)
      message(FATAL_ERROR "${package} does not hold ${path}")
    endif()
  endforeach()
endfunction()

# expect_fields(<package> <regex>): Package, Version and Depends match.
function(expect_fields package pattern)
  run_capture(fields status dpkg-deb --field ${package} Package Version Depends)
  if(NOT fields MATCHES "${pattern}")
    message(FATAL_ERROR "the control fields of ${package} are not as expected")
  endif()
endfunction()

file(GLOB all "${WORK_DIR}/*.deb")
list(LENGTH all count)
if(NOT count EQUAL 3)
  message(FATAL_ERROR "cpack made ${count} packages, not rebound, librebound-dev and rebound-data")
endif()
set(version "[0-9]+\\.[0-9]+\\.[0-9]+")
deb_package(data rebound-data)
expect_contents(${data} ./usr/share/rebound/schema/rebound-policy.schema.json
  ./usr/share/rebound/vendors/postgresql.yaml ./usr/share/rebound/tiers/standard.yaml)
expect_fields(${data} "Package: rebound-data\nVersion: ${version}\n")
deb_package(dev librebound-dev)
expect_contents(${dev} ./usr/${LIBDIR}/cmake/rebound/reboundConfig.cmake
  ./usr/${LIBDIR}/cmake/rebound/rebound-engine.cmake ./usr/${LIBDIR}/pkgconfig/rebound-engine.pc
  ./usr/${LIBDIR}/librebound_engine.a ./usr/include/rebound/retry_executor.hpp)
expect_fields(${dev}
  "Package: librebound-dev\nVersion: ${version}\nDepends: rebound-data \\(= ${version}\\)")
deb_package(cli rebound)
expect_contents(${cli} ./usr/bin/rebound)
expect_fields(${cli}
  "Package: rebound\nVersion: ${version}\nDepends: rebound-data \\(= ${version}\\), libyaml-cpp0.7")
# Each file is in one package only: the command line is not in the -dev package, nor the headers
# in the command line's.
run_capture(contents status dpkg-deb --contents ${cli})
if(contents MATCHES "/usr/include/|/usr/share/rebound/")
  message(FATAL_ERROR "the rebound package holds files of librebound-dev or rebound-data")
endif()

set(root "${WORK_DIR}/root")
foreach(package IN ITEMS ${data} ${dev} ${cli})
  run_step(dpkg-deb -x ${package} "${root}")
endforeach()
set(build "${WORK_DIR}/readme")
run_step(${no_pkg_config_path} ${CMAKE_COMMAND} -S "${CMAKE_CURRENT_LIST_DIR}/readme"
  -B "${build}" -G "${GENERATOR}" "-DCMAKE_PREFIX_PATH=${root}/usr" ${no_optional_dependencies})
run_step(${CMAKE_COMMAND} --build "${build}")
run_capture(output status "${build}/retry")
if(NOT status EQUAL 0 OR NOT output STREQUAL "succeeded after 3 attempts\n")
  message(FATAL_ERROR "retry, built against the packages, printed '${output}' (status ${status})")
endif()
run_capture(output status ${CMAKE_COMMAND} -E env --unset=REBOUND_DATA_DIR
  "${root}/usr/bin/rebound" classify --vendor postgresql --sqlstate 40001)
if(NOT status EQUAL 0 OR NOT output MATCHES "serialization_failure")
  message(FATAL_ERROR "the packaged rebound did not classify with the packaged vendor maps")
endif()
