# rebound::asio: the asynchronous executor; its headers include standalone Asio's (header-only).
rebound_find_dependency(asio Threads "the threads library" "libc6-dev")
find_path(REBOUND_ASIO_INCLUDE_DIR asio.hpp)
if(NOT REBOUND_ASIO_INCLUDE_DIR)
  set(_rebound_missing "rebound component asio needs standalone Asio, asio.hpp (Debian: libasio-dev)")
  return()
endif()
include("${CMAKE_CURRENT_LIST_DIR}/rebound-asio-targets.cmake")
set_property(TARGET rebound::asio APPEND PROPERTY INTERFACE_INCLUDE_DIRECTORIES
  "${REBOUND_ASIO_INCLUDE_DIR}")
