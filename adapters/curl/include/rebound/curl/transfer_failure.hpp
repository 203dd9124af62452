// How far a libcurl transfer got, and which transport row of docs/protocols.md its CURLcode is.
#pragma once

#include <curl/curl.h>

#include <optional>

#include "rebound/http/classification.hpp"

namespace rebound::curl {

// Read from the easy handle after curl_easy_perform (transfer_progress()).
struct TransferProgress {
    bool connected = false;        // a connection was established
    bool request_sent = false;     // the request line, headers and whole body were sent
    bool status_received = false;  // a status line arrived
};

TransferProgress transfer_progress(CURL* easy, curl_off_t body_size) noexcept;

// The transport failure a CURLcode stands for, given the progress; nullopt for CURLE_OK and for
// codes that are not transport failures (a malformed URL, an option curl does not support, an
// abort by a callback): those classify as `client_error`.
std::optional<http::TransportFailure> transport_failure_of(
    CURLcode code, const TransferProgress& progress) noexcept;

}  // namespace rebound::curl
