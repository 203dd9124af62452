// Starts a loopback HTTP server script (tests/support/flaky_http_server.py,
// bench/brownout_server.py) for the life of the object and stops it (SIGTERM, then waits for it)
// when destroyed. The script must bind 127.0.0.1 and print its port on the first line of stdout.
#pragma once

#include <sys/types.h>
#include <string>
#include <vector>

namespace rebound::testing {

class LoopbackHttpServer {
  public:
    // `script`: the server's path, run by python3 with `arguments`. Throws std::runtime_error
    // when it cannot be started.
    explicit LoopbackHttpServer(const std::string& script,
                                const std::vector<std::string>& arguments = {});
    ~LoopbackHttpServer();
    LoopbackHttpServer(const LoopbackHttpServer&) = delete;
    LoopbackHttpServer& operator=(const LoopbackHttpServer&) = delete;

    int port() const noexcept { return port_; }
    pid_t pid() const noexcept { return pid_; }
    // "http://127.0.0.1:PORT" followed by `path`.
    std::string url(const std::string& path) const;

  private:
    pid_t pid_ = -1;
    int port_ = 0;
};

}  // namespace rebound::testing
