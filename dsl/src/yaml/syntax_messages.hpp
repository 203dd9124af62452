// Syntax errors of yaml-cpp in the words of this project. Private to rebound::dsl.
#pragma once

#include <string>

#include <yaml-cpp/exceptions.h>

namespace rebound::dsl::yaml {

// The sentence for yaml-cpp's parser error: a known message reworded, else the original cut short.
std::string syntax_sentence(const YAML::ParserException& error);

}  // namespace rebound::dsl::yaml
