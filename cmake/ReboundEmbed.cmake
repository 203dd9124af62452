# rebound_embed_text(TARGET HEADER NAMESPACE NAME SOURCE): compiles the text of SOURCE (relative to
# the calling directory) into TARGET as the constant NAMESPACE::NAME of the generated header
# HEADER, so a built-in copy is always the shipped file. The header is private to TARGET.
set(REBOUND_EMBED_TEMPLATE ${CMAKE_CURRENT_LIST_DIR}/embedded_text.hpp.in)

function(rebound_embed_text target header namespace name source)
  file(READ ${CMAKE_CURRENT_SOURCE_DIR}/${source} EMBED_TEXT)
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/${source})
  file(RELATIVE_PATH EMBED_SOURCE ${PROJECT_SOURCE_DIR} ${CMAKE_CURRENT_SOURCE_DIR}/${source})
  set(EMBED_NAMESPACE ${namespace})
  set(EMBED_NAME ${name})
  configure_file(${REBOUND_EMBED_TEMPLATE} ${CMAKE_CURRENT_BINARY_DIR}/generated/${header} @ONLY)
  target_include_directories(${target} PRIVATE $<BUILD_INTERFACE:${CMAKE_CURRENT_BINARY_DIR}/generated>)
endfunction()
