#include "rebound/curl/transfer_failure.hpp"

namespace rebound::curl {

TransferProgress transfer_progress(CURL* easy, curl_off_t body_size) noexcept {
    TransferProgress progress;
    curl_off_t connect_time = 0;
    long request_size = 0;
    curl_off_t uploaded = 0;
    long status = 0;
    curl_easy_getinfo(easy, CURLINFO_CONNECT_TIME_T, &connect_time);
    curl_easy_getinfo(easy, CURLINFO_REQUEST_SIZE, &request_size);
    curl_easy_getinfo(easy, CURLINFO_SIZE_UPLOAD_T, &uploaded);
    curl_easy_getinfo(easy, CURLINFO_RESPONSE_CODE, &status);
    progress.request_sent = request_size > 0 && uploaded >= body_size;
    progress.connected = connect_time > 0 || request_size > 0;
    progress.status_received = status != 0;
    return progress;
}

std::optional<http::TransportFailure> transport_failure_of(
    CURLcode code, const TransferProgress& progress) noexcept {
    using F = http::TransportFailure;
    // Where a broken or timed-out transfer stopped.
    const auto by_progress = [&progress] {
        if (!progress.connected) {
            return F::Connect;
        }
        if (!progress.request_sent) {
            return F::Send;
        }
        return progress.status_received ? F::Body : F::Wait;
    };
    switch (code) {
        case CURLE_COULDNT_RESOLVE_HOST:
        case CURLE_COULDNT_RESOLVE_PROXY:
        case CURLE_COULDNT_CONNECT:
        case CURLE_SSL_CONNECT_ERROR:  // the handshake failed for a network reason
            return F::Connect;
        case CURLE_PEER_FAILED_VERIFICATION:
        case CURLE_SSL_CERTPROBLEM:
        case CURLE_SSL_CIPHER:
        case CURLE_SSL_CACERT_BADFILE:
        case CURLE_SSL_ISSUER_ERROR:
        case CURLE_SSL_PINNEDPUBKEYNOTMATCH:
        case CURLE_SSL_INVALIDCERTSTATUS:
        case CURLE_SSL_ENGINE_NOTFOUND:
        case CURLE_USE_SSL_FAILED:
            return F::Tls;
        case CURLE_OPERATION_TIMEDOUT:
        case CURLE_SEND_ERROR:
        case CURLE_RECV_ERROR:
        case CURLE_GOT_NOTHING:
        case CURLE_PARTIAL_FILE:
        case CURLE_HTTP2:
        case CURLE_HTTP2_STREAM:
        case CURLE_HTTP3:
        case CURLE_WEIRD_SERVER_REPLY:
        case CURLE_READ_ERROR:
            return by_progress();
        default:
            return std::nullopt;
    }
}

}  // namespace rebound::curl
