// Line-oriented input of the CLI (`rebound replay`'s events, `rebound lint --handlers`), read a
// line at a time: a command answers each line as it arrives through a pipe, and an endless line
// (`/dev/zero`, a binary file) is refused after kMaxLineBytes instead of exhausting memory
// (docs/cli.md, Line-oriented input).
#pragma once

#include <cstddef>
#include <streambuf>
#include <string>

namespace rebound::cli {

class LineReader {
  public:
    // The longest line accepted, without its line break.
    static constexpr std::size_t kMaxLineBytes = 65536;

    enum class Result { Line, End, TooLong };

    // Reads from `input`, which must outlive the reader.
    explicit LineReader(std::streambuf& input) : input_(input) {}

    // Reads the next line into `line`, without its '\n' (a '\r' before it is kept): Line; End
    // when the input has no more bytes; TooLong when the line has more than kMaxLineBytes bytes
    // before its line break, after reading just those (the input is then left unread).
    Result next(std::string& line);

    // The number of the line `next` last read or refused, from 1.
    int line_number() const noexcept { return line_number_; }

    // "NAME:LINE: the line is longer than 65536 bytes, the most an input line may have", for the
    // line `next` refused, with the input's name as the user gave it.
    std::string too_long_message(const std::string& name) const;

  private:
    std::streambuf& input_;
    int line_number_ = 0;
};

}  // namespace rebound::cli
