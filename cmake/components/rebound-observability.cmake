# rebound::observability: the JSON-lines log listener (nlohmann_json is compiled in).
include("${CMAKE_CURRENT_LIST_DIR}/rebound-observability-targets.cmake")
