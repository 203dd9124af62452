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
  "grpc:protocols,asio,engine")

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
    ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT dev
    LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT dev
    INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
  install(EXPORT rebound-${_component}-targets
    NAMESPACE rebound::
    FILE rebound-${_component}-targets.cmake
    DESTINATION ${REBOUND_INSTALL_CMAKEDIR} COMPONENT dev)
  install(FILES cmake/components/rebound-${_component}.cmake
    DESTINATION ${REBOUND_INSTALL_CMAKEDIR} COMPONENT dev)
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
    DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig COMPONENT dev)
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
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} COMPONENT dev)

configure_package_config_file(cmake/reboundConfig.cmake.in
  "${CMAKE_CURRENT_BINARY_DIR}/reboundConfig.cmake"
  INSTALL_DESTINATION ${REBOUND_INSTALL_CMAKEDIR})
write_basic_package_version_file("${CMAKE_CURRENT_BINARY_DIR}/reboundConfigVersion.cmake"
  COMPATIBILITY SameMinorVersion)
install(FILES
  "${CMAKE_CURRENT_BINARY_DIR}/reboundConfig.cmake"
  "${CMAKE_CURRENT_BINARY_DIR}/reboundConfigVersion.cmake"
  DESTINATION ${REBOUND_INSTALL_CMAKEDIR} COMPONENT dev)

# The vendor error maps (read at run time: default_vendor_map_directory()), the JSON Schemas of
# both file formats (for editors: docs/policy-format.md) and the standard tiers (to extend or copy).
install(DIRECTORY policies/vendors policies/tiers DESTINATION ${CMAKE_INSTALL_DATADIR}/rebound
  COMPONENT data FILES_MATCHING PATTERN "*.yaml")
install(FILES policies/schema/rebound-vendor-map.schema.json
  policies/schema/rebound-policy.schema.json
  DESTINATION ${CMAKE_INSTALL_DATADIR}/rebound/schema COMPONENT data)

# Debian packages (cpack -G DEB in the build directory), one per install component, under /usr:
#   rebound-data    the vendor error maps, the standard tiers and the JSON Schemas (share/rebound),
#                   read at run time by the command line and by programs that link rebound::dsl;
#   librebound-dev  the static libraries, headers, CMake package and pkg-config files; the -dev
#                   packages a consumer's components need are suggested (docs/install.md);
#   rebound         the `rebound` command line, stripped, with the shared libraries it links.
if(PROJECT_IS_TOP_LEVEL)
  set(CPACK_GENERATOR DEB)
  set(CPACK_PACKAGE_NAME rebound)
  set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
  set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "${PROJECT_DESCRIPTION}")
  set(CPACK_PACKAGE_CONTACT "Rebound maintainers <rebound-maintainers@users.noreply.github.com>")
  set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
  set(CPACK_DEB_COMPONENT_INSTALL ON)
  set(CPACK_COMPONENTS_ALL cli dev data)
  set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
  set(CPACK_STRIP_FILES ON)  # the command line; install(TARGETS) strips no static library
  set(_rebound_data_depends "rebound-data (= ${PROJECT_VERSION})")
  set(CPACK_DEBIAN_DATA_PACKAGE_NAME rebound-data)
  set(CPACK_DEBIAN_DATA_PACKAGE_ARCHITECTURE all)
  set(CPACK_DEBIAN_DATA_PACKAGE_SECTION misc)
  set(CPACK_COMPONENT_DATA_DESCRIPTION
    "Rebound vendor error maps, standard policy tiers and JSON Schemas")
  set(CPACK_DEBIAN_DEV_PACKAGE_NAME librebound-dev)
  set(CPACK_DEBIAN_DEV_PACKAGE_SECTION libdevel)
  set(CPACK_DEBIAN_DEV_PACKAGE_DEPENDS "${_rebound_data_depends}")
  set(CPACK_DEBIAN_DEV_PACKAGE_SUGGESTS
    "libyaml-cpp-dev, unixodbc-dev, libcurl4-openssl-dev, libasio-dev, libgrpc++-dev, pkg-config")
  set(CPACK_COMPONENT_DEV_DESCRIPTION
    "Rebound retry-policy engine: static libraries, headers, CMake and pkg-config files")
  set(CPACK_DEBIAN_CLI_PACKAGE_NAME rebound)
  set(CPACK_DEBIAN_CLI_PACKAGE_SECTION devel)
  set(CPACK_DEBIAN_CLI_PACKAGE_DEPENDS
    "${_rebound_data_depends}, libyaml-cpp0.7, libodbc2, libstdc++6, libgcc-s1")
  set(CPACK_COMPONENT_CLI_DESCRIPTION
    "rebound: lint, explain, convert and simulate retry policy files")
  include(CPack)
endif()
