# rebound::curl: HTTP requests under a policy through libcurl; links protocols and asio.
rebound_find_dependency(curl CURL "libcurl" "libcurl4-openssl-dev")
include("${CMAKE_CURRENT_LIST_DIR}/rebound-curl-targets.cmake")
