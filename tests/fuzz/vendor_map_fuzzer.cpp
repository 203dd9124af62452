// libFuzzer target for the vendor-map loader (docs/vendor-maps.md): loads arbitrary bytes as one
// vendor map and checks that every diagnostic names the file and lies inside the input, and that
// a map that loads classifies a few records. Any crash, hang, leak, sanitizer report or use of
// more than the fuzzer's memory limit (scripts/fuzz.sh: 512 MB) is a bug too.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "rebound/dsl/vendor_map_loader.hpp"

namespace {

[[noreturn]] void violated(const std::string& what) {
    std::fprintf(stderr, "invariant violated: %s\n", what.c_str());
    std::abort();
}

std::uint32_t line_count(std::string_view text) {
    std::uint32_t lines = 1;
    for (const char c : text) {
        lines += c == '\n' ? 1 : 0;
    }
    return lines;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string text(reinterpret_cast<const char*>(data), size);
    const rebound::dsl::VendorMapLoadResult result =
        rebound::dsl::load_vendor_map_sources({rebound::dsl::VendorMapSource{"fuzz.yaml", text}});
    for (const rebound::dsl::Diagnostic& d : result.diagnostics) {
        if (d.file != "fuzz.yaml") {
            violated("a diagnostic names file '" + d.file + "'");
        }
        if (d.position.line > line_count(text)) {
            violated("a diagnostic at line " + std::to_string(d.position.line) + " of " +
                     std::to_string(line_count(text)));
        }
    }
    if (result.classifier) {
        for (const rebound::Vendor vendor :
             {rebound::Vendor::MySql, rebound::Vendor::PostgreSql, rebound::Vendor::Generic}) {
            rebound::SqlErrorRecord record;
            record.vendor = vendor;
            record.sqlstate = "40001";
            record.native_code = 1213;
            (void)result.classifier->classify(record);
        }
    }
    return 0;
}
