# install(EXPORT) of the libraries as rebound::<component>, one export set and one file of
# dependencies per component (cmake/components/), under a relocatable reboundConfig.cmake that
# loads only the components asked for (find_package(rebound COMPONENTS ...)).
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(REBOUND_INSTALL_CMAKEDIR "${CMAKE_INSTALL_LIBDIR}/cmake/rebound")

# Every component with the components it links, in an order in which each comes after those.
# The libraries are static, so a component's consumers link what it links, privately or not.
set(_rebound_component_table
  "engine:"
  "protocols:engine"
  "observability:engine"
  "asio:engine"
  "dsl:engine"
  "lint:dsl,engine"
  "simulation:dsl,engine"
  "odbc:engine"
  "queue:odbc,engine"
  "curl:protocols,asio,engine"
  "grpc:protocols,engine")

set(REBOUND_ALL_COMPONENTS)
set(REBOUND_INSTALLED_COMPONENTS)
set(REBOUND_COMPONENT_LINKS "# The components each component links.")
foreach(_entry IN LISTS _rebound_component_table)
  string(REPLACE ":" ";" _entry "${_entry}")
  list(GET _entry 0 _component)
  list(LENGTH _entry _length)
  set(_links "")
  if(_length GREATER 1)
    list(GET _entry 1 _links)
    string(REPLACE "," " " _links "${_links}")
  endif()
  list(APPEND REBOUND_ALL_COMPONENTS ${_component})
  string(APPEND REBOUND_COMPONENT_LINKS "\nset(_rebound_links_${_component} ${_links})")
  if(_component STREQUAL "grpc" AND NOT REBOUND_WITH_GRPC)
    continue()
  endif()
  list(APPEND REBOUND_INSTALLED_COMPONENTS ${_component})
  install(TARGETS rebound_${_component}
    EXPORT rebound-${_component}-targets
    ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
    LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
    INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
  install(EXPORT rebound-${_component}-targets
    NAMESPACE rebound::
    FILE rebound-${_component}-targets.cmake
    DESTINATION ${REBOUND_INSTALL_CMAKEDIR})
  install(FILES cmake/components/rebound-${_component}.cmake
    DESTINATION ${REBOUND_INSTALL_CMAKEDIR})
endforeach()

# pkg-config files, one per component (rebound-<component>.pc, relocatable through ${pcfiledir}):
# what each requires besides the components it links (the libraries are static, so consumers
# link what they link).
set(_rebound_pc_requires_dsl yaml-cpp)
set(_rebound_pc_requires_lint yaml-cpp)
set(_rebound_pc_requires_odbc odbc)
set(_rebound_pc_requires_curl libcurl)
set(_rebound_pc_requires_grpc grpc++)
foreach(_component IN LISTS REBOUND_INSTALLED_COMPONENTS)
  set(_requires ${_rebound_pc_requires_${_component}})
  foreach(_entry IN LISTS _rebound_component_table)
    if(_entry MATCHES "^${_component}:(.*)$")
      string(REPLACE "," ";" _links "${CMAKE_MATCH_1}")
      foreach(_link IN LISTS _links)
        list(APPEND _requires rebound-${_link})
      endforeach()
    endif()
  endforeach()
  list(JOIN _requires ", " _requires)
  set(_libs "-L\${libdir} -lrebound_${_component}")
  if(_component STREQUAL "engine")
    string(APPEND _libs " -pthread")
  endif()
  file(RELATIVE_PATH _pc_to_prefix "/${CMAKE_INSTALL_LIBDIR}/pkgconfig" "/")
  file(WRITE "${CMAKE_CURRENT_BINARY_DIR}/pkgconfig/rebound-${_component}.pc"
"prefix=\${pcfiledir}/${_pc_to_prefix}
libdir=\${prefix}/${CMAKE_INSTALL_LIBDIR}
includedir=\${prefix}/${CMAKE_INSTALL_INCLUDEDIR}

Name: rebound-${_component}
Description: Rebound retry-policy engine: the ${_component} component (rebound::${_component})
Version: ${PROJECT_VERSION}
Requires: ${_requires}
Cflags: -I\${includedir} -std=c++20
Libs: ${_libs}
")
  install(FILES "${CMAKE_CURRENT_BINARY_DIR}/pkgconfig/rebound-${_component}.pc"
    DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
endforeach()

list(JOIN REBOUND_ALL_COMPONENTS " " REBOUND_ALL_COMPONENTS)
list(JOIN REBOUND_INSTALLED_COMPONENTS " " REBOUND_INSTALLED_COMPONENTS)

set(REBOUND_OPTIONAL_INCLUDE_DIRS)
if(REBOUND_WITH_GRPC)
  list(APPEND REBOUND_OPTIONAL_INCLUDE_DIRS adapters/grpc/include/rebound)
endif()
install(DIRECTORY engine/include/rebound dsl/include/rebound lint/include/rebound
  simulation/include/rebound observability/include/rebound adapters/odbc/include/rebound
  protocols/include/rebound adapters/curl/include/rebound adapters/asio/include/rebound
  adapters/queue/include/rebound ${REBOUND_OPTIONAL_INCLUDE_DIRS}
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})

configure_package_config_file(cmake/reboundConfig.cmake.in
  "${CMAKE_CURRENT_BINARY_DIR}/reboundConfig.cmake"
  INSTALL_DESTINATION ${REBOUND_INSTALL_CMAKEDIR})
write_basic_package_version_file("${CMAKE_CURRENT_BINARY_DIR}/reboundConfigVersion.cmake"
  COMPATIBILITY SameMinorVersion)
install(FILES
  "${CMAKE_CURRENT_BINARY_DIR}/reboundConfig.cmake"
  "${CMAKE_CURRENT_BINARY_DIR}/reboundConfigVersion.cmake"
  DESTINATION ${REBOUND_INSTALL_CMAKEDIR})

# The vendor error maps (read at run time: default_vendor_map_directory()), the JSON Schemas of
# both file formats (for editors: docs/policy-format.md) and the standard tiers (to extend or copy).
install(DIRECTORY policies/vendors policies/tiers DESTINATION ${CMAKE_INSTALL_DATADIR}/rebound
  FILES_MATCHING PATTERN "*.yaml")
install(FILES policies/schema/rebound-vendor-map.schema.json
  policies/schema/rebound-policy.schema.json
  DESTINATION ${CMAKE_INSTALL_DATADIR}/rebound/schema)

# A Debian package of the whole installation (cpack -G DEB in the build directory): the libraries,
# headers, package files, data and the `rebound` command line under /usr. It depends on the shared
# libraries the command line links; the -dev packages a consumer's components need are suggested
# (docs/install.md).
if(PROJECT_IS_TOP_LEVEL)
  set(CPACK_GENERATOR DEB)
  set(CPACK_PACKAGE_NAME rebound)
  set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
  set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "${PROJECT_DESCRIPTION}")
  set(CPACK_PACKAGE_CONTACT "Rebound maintainers <rebound-maintainers@users.noreply.github.com>")
  set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
  set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
  set(CPACK_DEBIAN_PACKAGE_SECTION libdevel)
  set(CPACK_DEBIAN_PACKAGE_DEPENDS "libyaml-cpp0.7, libodbc2, libstdc++6, libgcc-s1")
  set(CPACK_DEBIAN_PACKAGE_SUGGESTS
    "libyaml-cpp-dev, unixodbc-dev, libcurl4-openssl-dev, libasio-dev, libgrpc++-dev, pkg-config")
  include(CPack)
endif()
