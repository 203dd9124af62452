// rebound::asio: Rebound for services built on standalone Asio (docs/async.md): the asynchronous
// executor and the classification of error codes.
#pragma once

#include "rebound/asio/error_code.hpp"
#include "rebound/asio/retry_executor.hpp"
#include "rebound/asio/virtual_time.hpp"
