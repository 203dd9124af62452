# Writes OUTPUT: a C++ source defining rebound::cli::embedded_schema() with INPUT's bytes.
file(READ "${INPUT}" content HEX)
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," bytes "${content}")
file(WRITE "${OUTPUT}" "// Generated from ${INPUT}; do not edit.\n#include <string_view>\n"
  "namespace rebound::cli {\nnamespace {\nconstexpr char kSchema[] = {${bytes} 0};\n}\n"
  "std::string_view embedded_schema() { return {kSchema, sizeof kSchema - 1}; }\n}\n")
