// The one toolkit every output escapes outside text with (rebound/output_text.hpp): terminals,
// Prometheus label values and plain valid UTF-8.
#include <catch2/catch.hpp>
#include <string>

#include "rebound/output_text.hpp"

using rebound::printable;

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

TEST_CASE("printable_lines keeps line breaks and escapes each line, and is idempotent",
          "[terminal]") {
    const std::string once = rebound::printable_lines("one \x1b[31m\ntwo \xc2\x85\n");
    CHECK(once == "one \\e[31m\ntwo \\u0085\n");
    CHECK(rebound::printable_lines(once) == once);
}

TEST_CASE("valid_utf8 replaces each byte that is not UTF-8 with U+FFFD and keeps the rest",
          "[terminal]") {
    CHECK(rebound::valid_utf8("caf\xc3\xa9 \x1b ok") == "caf\xc3\xa9 \x1b ok");
    CHECK(rebound::valid_utf8("a\xff"
                              "b\xc3") ==
          "a\xef\xbf\xbd"
          "b\xef\xbf\xbd");
    // An overlong form and a surrogate are not UTF-8 either.
    CHECK(rebound::valid_utf8("\xc0\xaf\xed\xa0\x80") ==
          "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd");
    CHECK(rebound::is_valid_utf8(rebound::valid_utf8("\xf4\x90\x80\x80 \xe2\x82")));
}
