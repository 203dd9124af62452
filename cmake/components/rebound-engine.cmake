# rebound::engine: the C++ standard library and the threads library only.
rebound_find_dependency(engine Threads "the threads library" "libc6-dev")
include("${CMAKE_CURRENT_LIST_DIR}/rebound-engine-targets.cmake")
