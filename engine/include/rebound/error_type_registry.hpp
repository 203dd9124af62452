// ErrorTypeRegistry: error type names registered in code under a parent type.
//
// An `error: io.timeout` matcher matches `io.timeout`, any dotted extension (`io.timeout.read`)
// and every type registered under it here (say `db.query_timeout` with parent `io.timeout`).
// This is an explicit registration point: fill it at start-up, then hand it (const) to policy
// compilation, which expands matchers against it once; decisions never consult it.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace rebound {

class ErrorTypeRegistry {
  public:
    // Registers `type_name` as a subtype of `parent`. Throws std::invalid_argument when either
    // name is not a valid name, when `type_name` is already registered with another parent, or
    // when the registration would make a type its own ancestor.
    void add(std::string_view type_name, std::string_view parent);

    // Whether `type_name` is `ancestor`, a dotted extension of it, or reaches it through
    // registered parents (of itself or of any dotted prefix of itself).
    bool is_subtype(std::string_view type_name, std::string_view ancestor) const;

    // Every registered type that is a subtype of `ancestor` (not including `ancestor`).
    std::vector<std::string> subtypes_of(std::string_view ancestor) const;

  private:
    std::map<std::string, std::string, std::less<>> parent_of_;
};

// Whether `name` matches the policy language's name syntax `[A-Za-z_][A-Za-z0-9_.-]*`.
bool is_valid_name(std::string_view name) noexcept;

}  // namespace rebound
