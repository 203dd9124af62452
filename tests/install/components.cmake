# find_package(rebound COMPONENTS ...) against the installed prefix (tests/install/components):
#  - every component named in the README's line, which is all of them (grpc when installed),
#    configures, builds and runs;
#  - without COMPONENTS every component whose dependencies are found: all of them here, only
#    the engine and the parts that need nothing else without the optional dependencies;
#  - a required component whose dependency is missing fails, naming it and its Debian package,
#    for each of yaml-cpp, unixODBC and libcurl, and for grpc++ through pkg-config.
include(${CMAKE_CURRENT_LIST_DIR}/common.cmake)
set(source "${CMAKE_CURRENT_LIST_DIR}/components")

# configure(<name> <components> ok|fails <expected output regex> [WRAP command...] [ARGS args...])
# Configures the consumer of <components> in WORK_DIR/<name>, the cmake command run under WRAP
# (an environment) with ARGS added.
function(configure name components expected_status expected_output)
  cmake_parse_arguments(PARSE_ARGV 4 arg "" "" "WRAP;ARGS")
  set(build "${WORK_DIR}/${name}")
  file(REMOVE_RECURSE "${build}")
  run_capture(output status ${arg_WRAP} ${CMAKE_COMMAND} -S "${source}" -B "${build}"
    -G "${GENERATOR}" "-DCMAKE_PREFIX_PATH=${prefix}" "-DREBOUND_COMPONENTS=${components}"
    ${arg_ARGS})
  if(expected_status STREQUAL "ok" AND NOT status EQUAL 0)
    message(FATAL_ERROR "${name}: find_package(rebound COMPONENTS ${components}) failed")
  elseif(expected_status STREQUAL "fails" AND status EQUAL 0)
    message(FATAL_ERROR "${name}: find_package(rebound COMPONENTS ${components}) succeeded")
  endif()
  # CMake wraps the messages of errors: compare with runs of spaces and newlines as one space.
  string(REGEX REPLACE "[ \n]+" " " output "${output}")
  if(NOT output MATCHES "${expected_output}")
    message(FATAL_ERROR "${name}: the output does not match '${expected_output}'")
  endif()
endfunction()

set(readme_line engine,dsl,odbc,curl,asio,queue,lint)
set(readme_targets "rebound::engine;rebound::protocols;rebound::asio;rebound::dsl;rebound::lint;\
rebound::odbc;rebound::queue;rebound::curl")
set(everything "rebound::engine;rebound::protocols;rebound::observability;rebound::asio;\
rebound::dsl;rebound::lint;rebound::simulation;rebound::odbc;rebound::queue;rebound::curl")
if(WITH_GRPC)
  set(readme_line engine,dsl,odbc,curl,asio,grpc,queue,lint)
  string(APPEND readme_targets ";rebound::grpc")
  string(APPEND everything ";rebound::grpc")
endif()
configure(readme_line ${readme_line} ok "rebound targets: ${readme_targets} ")
run_step(${CMAKE_COMMAND} --build "${WORK_DIR}/readme_line")
run_capture(output status "${WORK_DIR}/readme_line/rebound_components")
if(NOT status EQUAL 0 OR NOT output MATCHES "^rebound [0-9]+\\.[0-9]+\\.[0-9]+")
  message(FATAL_ERROR "the consumer of every component did not run")
endif()

# Without COMPONENTS: what can be found, quietly about the rest unless it is missing.
configure(all all ok "rebound targets: ${everything} ")
configure(all_without_dependencies all ok
  "rebound component dsl needs yaml-cpp \\(Debian: libyaml-cpp-dev\\).*\
rebound targets: rebound::engine;rebound::protocols;rebound::observability;rebound::asio "
  WRAP ${no_pkg_config_path} ARGS ${no_optional_dependencies})

# A required component whose dependency is missing.
configure(dsl_without_yaml_cpp engine,dsl fails
  "rebound component dsl needs yaml-cpp \\(Debian: libyaml-cpp-dev\\)"
  ARGS -DCMAKE_DISABLE_FIND_PACKAGE_yaml-cpp=ON)
configure(lint_without_yaml_cpp lint fails
  "rebound component lint needs component dsl: rebound component dsl needs yaml-cpp"
  ARGS -DCMAKE_DISABLE_FIND_PACKAGE_yaml-cpp=ON)
configure(odbc_without_unixodbc queue fails
  "rebound component queue needs component odbc: rebound component odbc needs unixODBC \\(Debian: unixodbc-dev\\)"
  ARGS -DCMAKE_DISABLE_FIND_PACKAGE_ODBC=ON)
configure(curl_without_libcurl engine,curl fails
  "rebound component curl needs libcurl \\(Debian: libcurl4-openssl-dev\\)"
  ARGS -DCMAKE_DISABLE_FIND_PACKAGE_CURL=ON)
configure(no_such_component engine,yaml fails "rebound has no component yaml")
if(WITH_GRPC)
  configure(grpc_without_grpcpp grpc fails
    "rebound component grpc needs grpc\\+\\+ through pkg-config \\(Debian: libgrpc\\+\\+-dev\\)"
    WRAP ${no_pkg_config_path})
else()
  configure(grpc_not_built grpc fails "rebound component grpc is not in this installation")
endif()
