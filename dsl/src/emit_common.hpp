// Private helpers of the emitters (emit_yaml.cpp, emit_json.cpp, emit_text.cpp).
//
// The YAML and JSON forms have one structure, so a Document is turned once into a FormNode tree
// (document_form) that each of those two emitters only prints. The DSL has its own statements and
// walks the Document itself, sharing the value spellings below.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "rebound/dsl/document.hpp"
#include "rebound/duration.hpp"
#include "rebound/error_category.hpp"
#include "rebound/vendor.hpp"

namespace rebound::dsl::emit_detail {

// "50ms", "1500ms", "2m", "250us": the largest unit that keeps the value exact, always with a
// unit. Defined for every value, negative ones included (those are invalid, but must not crash).
std::string duration_text(Duration d);

// The shortest decimal (fixed notation, no exponent) that reads back as exactly `value`:
// 2 -> "2", 0.1 -> "0.1". Non-finite values print as "nan", "inf", "-inf".
std::string number_text(double value);

// `value` * 100 as a decimal, by moving the point of number_text(value) (so 0.2 -> "20" and
// 0.025 -> "2.5" exactly, with no binary rounding of the product).
std::string percent_text(double value);

// Wire names, safe for values outside the enumerations (a hand-built Document may hold any bits).
std::string_view category_word(ErrorCategory category) noexcept;
std::string_view vendor_word(Vendor vendor) noexcept;

// The hundreds digit 5 -> "5xx".
std::string http_class_text(int hundreds_digit);

// `text` in double quotes with `"`, `\` and control characters escaped (\n \t \r, others as
// \xNN). Bytes >= 0x80 pass through, so UTF-8 text stays readable. The YAML and DSL readers both
// accept these escapes.
std::string double_quoted(std::string_view text);

struct FormEntry;

// The YAML/JSON form of a Document: maps (in canonical key order), lists and scalars.
struct FormNode {
    enum class Kind : std::uint8_t {
        Map,
        List,
        Word,     // a name, word or duration: YAML prints it bare when that reads back the same
        Text,     // free text or a code (message, route target, SQLSTATE): always quoted in YAML
        Integer,  // integer
        Number,   // floating-point number
        Boolean,  // boolean
    };

    Kind kind = Kind::Map;
    bool flow = false;  // Map or List: YAML prints it on one line, `{ k: v }` or `[a, b]`
    std::string text;   // Word, Text
    std::int64_t integer = 0;
    double number = 0.0;
    bool boolean = false;
    std::vector<FormEntry> entries;  // Map, in order (a vector of an incomplete type is allowed;
                                     // a std::pair of one is not)
    std::vector<FormNode> items;     // List

    static FormNode map(bool flow);
    static FormNode list(bool flow);
    static FormNode word(std::string text);
    static FormNode quoted_text(std::string text);
    static FormNode integer_value(std::int64_t value);
    static FormNode number_value(double value);
    static FormNode boolean_value(bool value);

    // Map: appends an entry.
    FormNode& add(std::string key, FormNode value);
};

// One key of a Map FormNode.
struct FormEntry {
    std::string key;
    FormNode value;
};

// The whole Document in canonical order (emit.hpp). Absent fields are left out; the Document's
// root is always a block Map (possibly empty).
FormNode document_form(const Document& document);

}  // namespace rebound::dsl::emit_detail
