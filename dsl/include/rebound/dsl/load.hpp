// Loading: read a file, parse it with the front end its extension names, validate, compile.
//
//   rebound::dsl::LoadResult r = rebound::dsl::load_file("policies/payments.yaml");
//   for (const auto& d : r.diagnostics) std::cerr << format_diagnostic(d, r.source) << '\n';
//   if (r.policy_set) { ... }
//
// load_file_or_throw is the short form for embedders that treat any error as fatal.
#pragma once

#include <cstddef>
#include <filesystem>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>

#include "rebound/dsl/compile.hpp"
#include "rebound/dsl/diagnostic.hpp"
#include "rebound/dsl/document.hpp"
#include "rebound/dsl/syntax.hpp"

namespace rebound::dsl {

struct LoadResult {
    std::shared_ptr<const PolicySet> policy_set;  // null when any error was reported
    Document document;
    Diagnostics diagnostics;  // every problem, in file order (line, then column)
    std::string source;       // the file's text, for printing source lines
    // Diagnostics past the kMaxDiagnostics kept (input_limits.hpp); when not 0, the last of
    // `diagnostics` is the RB112 that says how many.
    std::size_t diagnostics_left_out = 0;
};

// Never throws for bad input: an unreadable file or unknown extension is a diagnostic.
LoadResult load_file(const std::filesystem::path& path, const PolicyCompileOptions& options = {});
LoadResult load_text(std::string_view text, std::string_view file, Syntax syntax,
                     const PolicyCompileOptions& options = {});

// Thrown by load_file_or_throw; what() holds every error formatted with its position.
class LoadError : public std::runtime_error {
  public:
    explicit LoadError(Diagnostics diagnostics, std::string_view source = {});
    const Diagnostics& diagnostics() const noexcept { return diagnostics_; }

  private:
    Diagnostics diagnostics_;
};

std::shared_ptr<const PolicySet> load_file_or_throw(const std::filesystem::path& path,
                                                    const PolicyCompileOptions& options = {});

}  // namespace rebound::dsl
