#include "rebound/error_type_registry.hpp"

#include <stdexcept>

namespace rebound {
namespace {

// Registered parent chains are acyclic (add() refuses cycles), but a depth cap keeps the walk
// bounded whatever happens.
constexpr int kMaxAncestorWalk = 256;

// `name` without its last dotted segment; empty when there is none.
std::string_view dotted_parent(std::string_view name) noexcept {
    const auto dot = name.rfind('.');
    return dot == std::string_view::npos ? std::string_view{} : name.substr(0, dot);
}

}  // namespace

bool is_valid_name(std::string_view name) noexcept {
    if (name.empty()) {
        return false;
    }
    const auto is_start = [](char c) {
        return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_';
    };
    const auto is_rest = [&](char c) {
        return is_start(c) || (c >= '0' && c <= '9') || c == '.' || c == '-';
    };
    if (!is_start(name.front())) {
        return false;
    }
    for (const char c : name.substr(1)) {
        if (!is_rest(c)) {
            return false;
        }
    }
    return true;
}

void ErrorTypeRegistry::add(std::string_view type_name, std::string_view parent) {
    if (!is_valid_name(type_name) || !is_valid_name(parent)) {
        throw std::invalid_argument("error type names must match [A-Za-z_][A-Za-z0-9_.-]*: '" +
                                    std::string(type_name) + "' under '" + std::string(parent) +
                                    "'");
    }
    if (const auto it = parent_of_.find(type_name); it != parent_of_.end()) {
        if (it->second == parent) {
            return;
        }
        throw std::invalid_argument("error type '" + std::string(type_name) +
                                    "' is already registered under '" + it->second + "'");
    }
    if (is_subtype(parent, type_name)) {
        throw std::invalid_argument("registering '" + std::string(type_name) + "' under '" +
                                    std::string(parent) + "' would make it its own ancestor");
    }
    parent_of_.emplace(std::string(type_name), std::string(parent));
}

bool ErrorTypeRegistry::is_subtype(std::string_view type_name, std::string_view ancestor) const {
    // Depth-first over both kinds of edge: dotted prefix and registered parent.
    std::vector<std::string_view> pending{type_name};
    for (int steps = 0; !pending.empty() && steps < kMaxAncestorWalk; ++steps) {
        const std::string_view current = pending.back();
        pending.pop_back();
        if (current == ancestor) {
            return true;
        }
        if (const auto up = dotted_parent(current); !up.empty()) {
            pending.push_back(up);
        }
        if (const auto it = parent_of_.find(current); it != parent_of_.end()) {
            pending.push_back(it->second);
        }
    }
    return false;
}

std::vector<std::string> ErrorTypeRegistry::subtypes_of(std::string_view ancestor) const {
    std::vector<std::string> out;
    for (const auto& [type_name, parent] : parent_of_) {
        if (type_name != ancestor && is_subtype(type_name, ancestor)) {
            out.push_back(type_name);
        }
    }
    return out;
}

}  // namespace rebound
