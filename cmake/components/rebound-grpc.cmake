# rebound::grpc: gRPC calls under a policy; links protocols and asio, and grpc++ as pkg-config
# describes it (Debian's gRPCConfig.cmake needs the protobuf compiler packages:
# adapters/grpc/CMakeLists.txt says why).
rebound_find_dependency(grpc PkgConfig "pkg-config" "pkgconf")
pkg_check_modules(REBOUND_GRPCPP QUIET IMPORTED_TARGET GLOBAL grpc++)
if(NOT REBOUND_GRPCPP_FOUND)
  set(_rebound_missing "rebound component grpc needs grpc++ through pkg-config (Debian: libgrpc++-dev)")
  return()
endif()
include("${CMAKE_CURRENT_LIST_DIR}/rebound-grpc-targets.cmake")
