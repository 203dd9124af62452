#include "column_text.hpp"

#include <sqlext.h>

#include <algorithm>
#include <array>
#include <cstddef>

namespace rebound::odbc::detail {

namespace {

// The first piece: enough for ids, times, names and short messages, on the stack.
constexpr std::size_t kFirstPiece = 512;

// One SQLGetData call as SQL_C_CHAR into `room` bytes at `buffer` (`room` >= 2: the driver
// writes at most room - 1 bytes and a terminator).
struct Piece {
    SQLRETURN rc = SQL_SUCCESS;
    SQLLEN indicator = 0;
    // The bytes written (without the terminator), and whether more of the value is left.
    std::size_t length = 0;
    bool more = false;
};

Piece get_piece(SQLHSTMT statement, SQLUSMALLINT column, char* buffer, std::size_t room) {
    Piece piece;
    piece.rc = SQLGetData(statement, column, SQL_C_CHAR, buffer, static_cast<SQLLEN>(room),
                          &piece.indicator);
    if (!SQL_SUCCEEDED(piece.rc) || piece.indicator == SQL_NULL_DATA) {
        return piece;
    }
    // Truncated: the driver does not know the rest's length, or it does not fit.
    piece.more = piece.indicator == SQL_NO_TOTAL ||
                 (piece.indicator >= 0 && static_cast<std::size_t>(piece.indicator) >= room);
    piece.length =
        piece.more ? room - 1 : static_cast<std::size_t>(std::max<SQLLEN>(0, piece.indicator));
    return piece;
}

// The string's next size when `filled` bytes of it are read and the driver reported
// `indicator` for the piece that ended at `piece_end` (the bytes left from the start of that
// piece, or SQL_NO_TOTAL): room for the rest and its terminator, and at least twice the current
// size, so that a driver that reports no length (or too short a one) still costs O(log n) calls.
std::size_t next_size(std::size_t current, std::size_t filled, std::size_t piece_length,
                      SQLLEN indicator) {
    std::size_t wanted = 2 * current;
    if (indicator != SQL_NO_TOTAL && indicator >= 0) {
        const auto left = static_cast<std::size_t>(indicator) - piece_length;  // after this piece
        if (filled + left + 1 > wanted) {
            wanted = filled + left + 1;
        }
    }
    return wanted;
}

}  // namespace

std::optional<std::string> read_column_text(SQLHSTMT statement, SQLUSMALLINT column, bool& ok) {
    ok = true;
    std::array<char, kFirstPiece> first{};
    Piece piece = get_piece(statement, column, first.data(), first.size());
    if (piece.rc == SQL_NO_DATA) {
        return std::string();
    }
    if (!SQL_SUCCEEDED(piece.rc)) {
        ok = false;
        return std::nullopt;
    }
    if (piece.indicator == SQL_NULL_DATA) {
        return std::nullopt;
    }
    std::string value(first.data(), piece.length);
    std::size_t filled = piece.length;
    while (piece.more) {
        value.resize(
            next_size(std::max(value.size(), first.size()), filled, piece.length, piece.indicator));
        piece = get_piece(statement, column, value.data() + filled, value.size() - filled);
        if (piece.rc == SQL_NO_DATA) {
            break;
        }
        if (!SQL_SUCCEEDED(piece.rc)) {
            ok = false;
            return std::nullopt;
        }
        filled += piece.length;
    }
    value.resize(filled);
    return value;
}

}  // namespace rebound::odbc::detail
