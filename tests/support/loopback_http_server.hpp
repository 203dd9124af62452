// Starts tests/support/flaky_http_server.py on a free loopback port for the life of the object
// and stops it (SIGTERM, then waits for it) when destroyed.
#pragma once

#include <sys/types.h>
#include <string>

namespace rebound::testing {

class LoopbackHttpServer {
  public:
    // `script`: the server's path. Throws std::runtime_error when it cannot be started.
    explicit LoopbackHttpServer(const std::string& script);
    ~LoopbackHttpServer();
    LoopbackHttpServer(const LoopbackHttpServer&) = delete;
    LoopbackHttpServer& operator=(const LoopbackHttpServer&) = delete;

    int port() const noexcept { return port_; }
    // "http://127.0.0.1:PORT" followed by `path`.
    std::string url(const std::string& path) const;

  private:
    pid_t pid_ = -1;
    int port_ = 0;
};

}  // namespace rebound::testing
