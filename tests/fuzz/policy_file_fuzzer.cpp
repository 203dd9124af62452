// libFuzzer target for one front end (chosen at build time with REBOUND_FUZZ_SYNTAX): loads
// arbitrary bytes as a policy file and checks the invariants of policy_file_invariants.hpp (every
// diagnostic inside the input; a file that loads prints in every syntax and loads back with an
// identical explain; every JSON printed parses). A violation aborts with its description; any
// crash, hang, leak or sanitizer report is a bug too.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>

#include "policy_file_invariants.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    const auto syntax = rebound::dsl::Syntax::REBOUND_FUZZ_SYNTAX;
    const rebound::fuzz::Violations violations =
        rebound::fuzz::policy_file_violations(text, syntax);
    for (const std::string& violation : violations) {
        std::fprintf(stderr, "invariant violated: %s\n", violation.c_str());
    }
    if (!violations.empty()) {
        std::abort();
    }
    return 0;
}
