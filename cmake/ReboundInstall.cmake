# install(EXPORT) of the libraries as rebound::<part>, with a relocatable reboundConfig.cmake.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(REBOUND_INSTALL_CMAKEDIR "${CMAKE_INSTALL_LIBDIR}/cmake/rebound")

set(REBOUND_OPTIONAL_TARGETS)
set(REBOUND_OPTIONAL_INCLUDE_DIRS)
if(REBOUND_WITH_GRPC)
  list(APPEND REBOUND_OPTIONAL_TARGETS rebound_grpc)
  list(APPEND REBOUND_OPTIONAL_INCLUDE_DIRS adapters/grpc/include/rebound)
endif()

install(TARGETS rebound_engine rebound_dsl rebound_lint rebound_simulation rebound_observability
  rebound_odbc rebound_protocols rebound_curl rebound_asio
  rebound_queue ${REBOUND_OPTIONAL_TARGETS}
  EXPORT reboundTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(DIRECTORY engine/include/rebound dsl/include/rebound lint/include/rebound
  simulation/include/rebound observability/include/rebound adapters/odbc/include/rebound
  protocols/include/rebound adapters/curl/include/rebound adapters/asio/include/rebound
  adapters/queue/include/rebound ${REBOUND_OPTIONAL_INCLUDE_DIRS}
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})

install(EXPORT reboundTargets
  NAMESPACE rebound::
  DESTINATION ${REBOUND_INSTALL_CMAKEDIR})

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
