# rebound::queue: the durable retry queue; links the odbc component and the threads library.
rebound_find_dependency(queue Threads "the threads library" "libc6-dev")
include("${CMAKE_CURRENT_LIST_DIR}/rebound-queue-targets.cmake")
