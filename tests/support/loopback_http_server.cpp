#include "loopback_http_server.hpp"

#include <sys/wait.h>
#include <unistd.h>
#include <csignal>
#include <cstdio>
#include <stdexcept>
#include <vector>

namespace rebound::testing {

LoopbackHttpServer::LoopbackHttpServer(const std::string& script,
                                       const std::vector<std::string>& arguments) {
    // Built before fork: the child only calls async-signal-safe functions.
    std::vector<char*> argv{const_cast<char*>("python3"), const_cast<char*>(script.c_str())};
    for (const std::string& argument : arguments) {
        argv.push_back(const_cast<char*>(argument.c_str()));
    }
    argv.push_back(nullptr);
    int out[2];
    if (pipe(out) != 0) {
        throw std::runtime_error("pipe failed");
    }
    pid_ = fork();
    if (pid_ < 0) {
        throw std::runtime_error("fork failed");
    }
    if (pid_ == 0) {
        dup2(out[1], STDOUT_FILENO);
        close(out[0]);
        close(out[1]);
        execvp("python3", argv.data());
        _exit(127);
    }
    close(out[1]);
    // The first line is the port; reading it also waits until the server listens.
    std::string line;
    char c = 0;
    while (read(out[0], &c, 1) == 1 && c != '\n') {
        line.push_back(c);
    }
    close(out[0]);
    try {
        port_ = std::stoi(line);
    } catch (const std::exception&) {
        kill(pid_, SIGTERM);
        waitpid(pid_, nullptr, 0);
        throw std::runtime_error("the loopback HTTP server did not start: " + script);
    }
}

LoopbackHttpServer::~LoopbackHttpServer() {
    if (pid_ > 0) {
        kill(pid_, SIGTERM);
        waitpid(pid_, nullptr, 0);
    }
}

std::string LoopbackHttpServer::url(const std::string& path) const {
    return "http://127.0.0.1:" + std::to_string(port_) + path;
}

}  // namespace rebound::testing
