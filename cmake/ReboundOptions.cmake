# Compiler settings shared by every target of the project (not by consumers of the installed
# package): warnings, sanitizers and ccache.

find_program(REBOUND_CCACHE ccache)
if(REBOUND_CCACHE AND NOT CMAKE_CXX_COMPILER_LAUNCHER)
  set(CMAKE_CXX_COMPILER_LAUNCHER "${REBOUND_CCACHE}")
endif()

add_library(rebound_project_options INTERFACE)
target_compile_options(rebound_project_options INTERFACE
  -Wall -Wextra -Wpedantic -Wshadow -Wconversion -Wsign-conversion -Wnon-virtual-dtor
  -Wold-style-cast -Woverloaded-virtual -Wnull-dereference -Wdouble-promotion -Wformat=2
  -Wimplicit-fallthrough)
if(REBOUND_WARNINGS_AS_ERRORS)
  target_compile_options(rebound_project_options INTERFACE -Werror)
endif()

if(REBOUND_SANITIZE)
  set(_rebound_sanitize_flags -fsanitize=${REBOUND_SANITIZE} -fno-omit-frame-pointer -g)
  if(REBOUND_SANITIZE MATCHES "undefined")
    list(APPEND _rebound_sanitize_flags -fno-sanitize-recover=undefined)
  endif()
  target_compile_options(rebound_project_options INTERFACE ${_rebound_sanitize_flags})
  target_link_options(rebound_project_options INTERFACE -fsanitize=${REBOUND_SANITIZE})
endif()
