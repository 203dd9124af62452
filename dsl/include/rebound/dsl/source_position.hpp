// Source positions: every value read from a policy file remembers where it was written.
#pragma once

#include <cstdint>

namespace rebound::dsl {

// 1-based line and column; 0 means "no position" (values that came from code, not text).
struct SourcePosition {
    std::uint32_t line = 0;
    std::uint32_t column = 0;

    bool known() const noexcept { return line != 0; }
    friend bool operator==(const SourcePosition&, const SourcePosition&) = default;
};

// A value together with the position of its text.
template <typename T>
struct Located {
    T value{};
    SourcePosition position;

    friend bool operator==(const Located&, const Located&) = default;
};

}  // namespace rebound::dsl
