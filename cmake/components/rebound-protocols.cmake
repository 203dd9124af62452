# rebound::protocols: HTTP and gRPC failure classification; the engine only.
include("${CMAKE_CURRENT_LIST_DIR}/rebound-protocols-targets.cmake")
