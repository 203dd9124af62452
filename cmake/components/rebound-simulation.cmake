# rebound::simulation: the experiments of `rebound simulate`; links the dsl component.
include("${CMAKE_CURRENT_LIST_DIR}/rebound-simulation-targets.cmake")
