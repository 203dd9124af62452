# rebound::odbc: ODBC diagnostics and the transactional runner, on unixODBC.
rebound_find_dependency(odbc ODBC "unixODBC" "unixodbc-dev")
include("${CMAKE_CURRENT_LIST_DIR}/rebound-odbc-targets.cmake")
