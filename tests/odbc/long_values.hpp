// Long text read back through Connection::query on each database, with the SQLGetData calls it
// takes counted (the test program wraps SQLGetData: long_values.cpp).
#pragma once

#include <string>

#include "rebound/odbc/connection.hpp"

namespace rebound::testing {

// Writes values of 0, 511, 512, 513 bytes, 100 KB and 10 MB and NULL into a fresh table
// `rb_long_values` whose value column is of type `text_type` (TEXT, LONGTEXT), and checks that
// each reads back whole and that the 10 MB one takes a handful of SQLGetData calls (reading 512
// bytes at a time took 19,570, with a copy of the value so far each time: quadratic).
void long_text_is_read_whole_in_few_calls(odbc::Connection& connection,
                                          const std::string& text_type);

}  // namespace rebound::testing
