// libFuzzer target for one front end (chosen at build time with REBOUND_FUZZ_SYNTAX): parses,
// validates and compiles arbitrary bytes, and on success prints the document back in every
// syntax. Any crash, hang, leak or sanitizer report is a bug.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "rebound/dsl/emit.hpp"
#include "rebound/dsl/load.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    const auto syntax = rebound::dsl::Syntax::REBOUND_FUZZ_SYNTAX;
    const rebound::dsl::LoadResult result = rebound::dsl::load_text(text, "fuzz", syntax);
    for (const auto& diagnostic : result.diagnostics) {
        (void)rebound::dsl::format_diagnostic(diagnostic, result.source);
    }
    if (result.policy_set) {
        for (const auto target :
             {rebound::dsl::Syntax::Yaml, rebound::dsl::Syntax::Json, rebound::dsl::Syntax::Text}) {
            (void)rebound::dsl::emit(result.document, target);
        }
    }
    return 0;
}
