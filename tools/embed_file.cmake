# Writes OUTPUT: a C++ source defining rebound::cli::FUNCTION(), returning INPUT's bytes as a
# std::string_view.
file(READ "${INPUT}" content HEX)
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," bytes "${content}")
file(WRITE "${OUTPUT}" "// Generated from ${INPUT}; do not edit.\n#include <string_view>\n"
  "namespace rebound::cli {\nnamespace {\nconstexpr char kBytes[] = {${bytes} 0};\n}\n"
  "std::string_view ${FUNCTION}() { return {kBytes, sizeof kBytes - 1}; }\n}\n")
