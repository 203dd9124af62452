#include "line_reader.hpp"

#include "rebound/output_text.hpp"

namespace rebound::cli {

LineReader::Result LineReader::next(std::string& line) {
    using Traits = std::streambuf::traits_type;
    line.clear();
    int c = input_.sbumpc();
    if (Traits::eq_int_type(c, Traits::eof())) {
        return Result::End;
    }
    ++line_number_;
    for (; !Traits::eq_int_type(c, Traits::eof()); c = input_.sbumpc()) {
        const char byte = Traits::to_char_type(c);
        if (byte == '\n') {
            return Result::Line;
        }
        if (line.size() == kMaxLineBytes) {
            return Result::TooLong;
        }
        line += byte;
    }
    return Result::Line;  // the last line, without a line break
}

std::string LineReader::too_long_message(const std::string& name) const {
    return printable(name) + ":" + std::to_string(line_number_) + ": the line is longer than " +
           std::to_string(kMaxLineBytes) + " bytes, the most an input line may have";
}

}  // namespace rebound::cli
