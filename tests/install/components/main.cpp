// Links every rebound:: target the consumer found; the engine's version proves the link.
#include <cstdio>
#include <rebound/version.hpp>

int main() {
    const std::string_view version = rebound::version();
    std::printf("rebound %.*s\n", static_cast<int>(version.size()), version.data());
}
