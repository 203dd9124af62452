# rebound::dsl: the policy-file compiler, linked with yaml-cpp (PEGTL and nlohmann_json are
# compiled in).
rebound_find_dependency(dsl yaml-cpp "yaml-cpp" "libyaml-cpp-dev")
include("${CMAKE_CURRENT_LIST_DIR}/rebound-dsl-targets.cmake")
set_property(TARGET rebound::dsl APPEND PROPERTY INTERFACE_COMPILE_DEFINITIONS
  "REBOUND_PACKAGE_DATA_DIR=\"${_rebound_data_dir}\"")
