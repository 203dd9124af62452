// Text from files is printed with what a terminal would act on written visibly
// (rebound/dsl/terminal_text.hpp), in diagnostics and in their echoed source lines.
#include <catch2/catch.hpp>

#include <string>

#include "rebound/dsl/diagnostic.hpp"
#include "rebound/dsl/terminal_text.hpp"

using rebound::dsl::printable;

TEST_CASE("printable writes escapes, C1 and bidi controls and invalid bytes visibly",
          "[terminal]") {
    CHECK(printable("plain text, tab\there") == "plain text, tab\there");
    CHECK(printable("\x1b[2J\x1b]0;owned\x07") == "\\e[2J\\e]0;owned\\x07");
    CHECK(printable("a\nb\rc\x7f") == "a\\nb\\rc\\x7f");
    CHECK(printable("C1 \xc2\x9b here") == "C1 \\u009b here");
    CHECK(printable("user\xe2\x80\xae"
                    "gnp.exe") == "user\\u202egnp.exe");
    CHECK(printable("\xe2\x81\xa6isolate\xe2\x81\xa9") == "\\u2066isolate\\u2069");
    CHECK(printable("bad \xff\xfe bytes") == "bad \\xff\\xfe bytes");
    CHECK(printable("caf\xc3\xa9 \xe2\x9c\x93") == "caf\xc3\xa9 \xe2\x9c\x93");  // kept
}

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
