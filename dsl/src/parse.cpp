#include "rebound/dsl/parse.hpp"

namespace rebound::dsl {

ParseResult parse(std::string_view text, std::string_view file, Syntax syntax) {
    return syntax == Syntax::Text ? parse_text(text, file) : parse_yaml(text, file);
}

}  // namespace rebound::dsl
