// Text from files is printed with what a terminal would act on written visibly
// (rebound::printable, tests/engine/output_text_test.cpp), in diagnostics and in their echoed
// source lines.
#include <catch2/catch.hpp>

#include <string>

#include "rebound/dsl/diagnostic.hpp"
#include "rebound/dsl/text_toolkit/source_echo.hpp"

TEST_CASE("a diagnostic escapes its file name, message and echoed line, caret aligned",
          "[terminal]") {
    rebound::dsl::Diagnostic d;
    d.file = "evil\x1b[8m.yaml";
    d.message = "bad value \xe2\x80\xae";
    d.position = {2, 10};
    d.suggestion = "try \x1b[0m";
    const std::string source = "rebound: 1\nk: \x1b[31m \"x\"\n";
    const std::string text = rebound::dsl::format_diagnostic(d, source);
    CHECK(text.find('\x1b') == std::string::npos);
    CHECK(text ==
          "evil\\e[8m.yaml:2:10: error: bad value \\u202e [RB001 syntax-error]\n"
          "    k: \\e[31m \"x\"\n"
          "              ^\n"
          "    try \\e[0m");
}
