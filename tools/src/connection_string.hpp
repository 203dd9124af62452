// ODBC connection strings as `rebound queue` reads them (docs/cli.md): `KEY=value` attributes
// separated by `;`, a value in braces (`{...}`, `}}` for one `}`) may hold `;`. Keys compare
// without regard to case, as drivers compare them.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace rebound::cli {

// The value of the first attribute `key` of `text` (braces removed), or nullopt.
std::optional<std::string> connection_attribute(std::string_view text, std::string_view key);

// The database file `text` names for an SQLite driver (a `Driver` whose name contains `sqlite`,
// and `Database`), or nullopt for other drivers, a DSN, or an in-memory database.
std::optional<std::filesystem::path> sqlite_file(std::string_view text);

// `text` with every attribute `key` removed and `key=value` appended (a driver reads the first
// one it finds, so the value given here is the one it uses).
std::string with_attribute(std::string_view text, std::string_view key, std::string_view value);

}  // namespace rebound::cli
