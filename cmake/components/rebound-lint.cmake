# rebound::lint: the rules of `rebound lint`; its configuration file is read with yaml-cpp.
rebound_find_dependency(lint yaml-cpp "yaml-cpp" "libyaml-cpp-dev")
include("${CMAKE_CURRENT_LIST_DIR}/rebound-lint-targets.cmake")
