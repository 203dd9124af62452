# Compiler settings shared by every target of the project (not by consumers of the installed
# package): warnings, sanitizers and ccache.

find_program(REBOUND_CCACHE ccache)
if(REBOUND_CCACHE AND NOT CMAKE_CXX_COMPILER_LAUNCHER)
  set(CMAKE_CXX_COMPILER_LAUNCHER "${REBOUND_CCACHE}")
endif()

add_library(rebound_project_options INTERFACE)
target_compile_options(rebound_project_options INTERFACE
  -Wall -Wextra -Wpedantic -Wshadow -Wconversion -Wsign-conversion -Wnon-virtual-dtor
  -Wold-style-cast -Woverloaded-virtual -Wdouble-promotion -Wformat=2
  -Wimplicit-fallthrough)
# GCC 12 reports false -Wrestrict positives inside std::string concatenation at -O3 (GCC bug
# 105329); the warning stays on for other compilers.
if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND CMAKE_CXX_COMPILER_VERSION VERSION_LESS 13)
  target_compile_options(rebound_project_options INTERFACE -Wno-restrict)
endif()
# The libraries are position-independent (a consumer may link them into a shared object) but
# nothing interposes their functions: let GCC inline calls between them, as Clang does by default.
# Without this, -fPIC kept even tiny same-file helpers of decide() out of line.
if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
  target_compile_options(rebound_project_options INTERFACE -fno-semantic-interposition)
endif()
if(REBOUND_WARNINGS_AS_ERRORS)
  target_compile_options(rebound_project_options INTERFACE -Werror)
endif()

if(REBOUND_SANITIZE)
  set(_rebound_sanitize_flags -fsanitize=${REBOUND_SANITIZE} -fno-omit-frame-pointer -g)
  if(REBOUND_SANITIZE MATCHES "undefined")
    list(APPEND _rebound_sanitize_flags -fno-sanitize-recover=undefined)
  endif()
  if(REBOUND_SANITIZE MATCHES "thread" AND CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
    # GCC warns that ThreadSanitizer does not model std::atomic_thread_fence, which standalone
    # Asio's headers use; the warning names the library's code, not ours, and -Werror made it
    # fatal for the Asio executor's concurrency tests.
    list(APPEND _rebound_sanitize_flags -Wno-tsan)
  endif()
  target_compile_options(rebound_project_options INTERFACE ${_rebound_sanitize_flags})
  target_link_options(rebound_project_options INTERFACE -fsanitize=${REBOUND_SANITIZE})
endif()

if(REBOUND_BUILD_FUZZERS)
  if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
    message(FATAL_ERROR "REBOUND_BUILD_FUZZERS needs clang (CXX=clang++)")
  endif()
  target_compile_options(rebound_project_options INTERFACE -fsanitize=fuzzer-no-link)
endif()
