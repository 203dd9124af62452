# The Debian package (CPack, cmake/ReboundInstall.cmake): cpack -G DEB on the build tree makes one
# .deb whose files are the installation under /usr (the command line, each component's package
# and pkg-config files, the data) and whose control fields name its dependencies.
include(${CMAKE_CURRENT_LIST_DIR}/common.cmake)
file(REMOVE_RECURSE "${WORK_DIR}")
run_step(${CMAKE_COMMAND} -E chdir "${BUILD_DIR}" cpack -G DEB -B "${WORK_DIR}")
file(GLOB packages "${WORK_DIR}/rebound_*.deb")
list(LENGTH packages count)
if(NOT count EQUAL 1)
  message(FATAL_ERROR "cpack made ${count} rebound_*.deb files, not one")
endif()
run_capture(contents status dpkg-deb --contents ${packages})
foreach(path ./usr/bin/rebound ./usr/${LIBDIR}/cmake/rebound/reboundConfig.cmake
    ./usr/${LIBDIR}/cmake/rebound/rebound-engine.cmake ./usr/${LIBDIR}/pkgconfig/rebound-engine.pc
    ./usr/${LIBDIR}/librebound_engine.a ./usr/include/rebound/retry_executor.hpp
    ./usr/share/rebound/schema/rebound-policy.schema.json)
  string(FIND "${contents}" " ${path}\n" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "the package does not hold ${path}")
  endif()
endforeach()
run_capture(depends status dpkg-deb --field ${packages} Package Version Depends)
if(NOT depends MATCHES "Package: rebound\nVersion: [0-9]+\\.[0-9]+\\.[0-9]+\nDepends: libyaml-cpp0.7")
  message(FATAL_ERROR "the package's control fields are not as expected")
endif()
