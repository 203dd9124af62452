#include "connection_string.hpp"

#include <cctype>
#include <vector>

namespace rebound::cli {

namespace {

std::string lowercase(std::string_view text) {
    std::string lower(text);
    for (char& c : lower) {
        c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    }
    return lower;
}

struct Attribute {
    std::string key;        // lowercase, spaces around it removed
    std::string value;      // braces removed
    std::string_view text;  // as written, without the separating `;`
};

// The attributes of `text`, in order; a part without `=` is kept with an empty key.
std::vector<Attribute> attributes(std::string_view text) {
    std::vector<Attribute> result;
    std::size_t at = 0;
    while (at < text.size()) {
        const std::size_t start = at;
        Attribute attribute;
        const std::size_t equals = text.find_first_of("=;", at);
        if (equals == std::string_view::npos || text[equals] == ';') {
            at = equals == std::string_view::npos ? text.size() : equals;
        } else {
            std::string key(text.substr(at, equals - at));
            key.erase(0, key.find_first_not_of(' '));
            key.erase(key.find_last_not_of(' ') + 1);
            attribute.key = lowercase(key);
            at = equals + 1;
            if (at < text.size() && text[at] == '{') {
                for (++at; at < text.size(); ++at) {
                    if (text[at] == '}') {
                        if (at + 1 < text.size() && text[at + 1] == '}') {
                            ++at;
                        } else {
                            ++at;
                            break;
                        }
                    }
                    attribute.value += text[at];
                }
                at = std::min(text.find(';', at), text.size());
            } else {
                const std::size_t end = std::min(text.find(';', at), text.size());
                attribute.value = std::string(text.substr(at, end - at));
                at = end;
            }
        }
        attribute.text = text.substr(start, at - start);
        result.push_back(std::move(attribute));
        ++at;  // past the `;`
    }
    return result;
}

}  // namespace

std::optional<std::string> connection_attribute(std::string_view text, std::string_view key) {
    const std::string wanted = lowercase(key);
    for (Attribute& attribute : attributes(text)) {
        if (attribute.key == wanted) {
            return std::move(attribute.value);
        }
    }
    return std::nullopt;
}

std::optional<std::filesystem::path> sqlite_file(std::string_view text) {
    const std::optional<std::string> driver = connection_attribute(text, "Driver");
    if (!driver || lowercase(*driver).find("sqlite") == std::string::npos) {
        return std::nullopt;
    }
    const std::optional<std::string> database = connection_attribute(text, "Database");
    if (!database || database->empty() || *database == ":memory:") {
        return std::nullopt;
    }
    return std::filesystem::path(*database);
}

std::string with_attribute(std::string_view text, std::string_view key, std::string_view value) {
    const std::string wanted = lowercase(key);
    std::string result;
    for (const Attribute& attribute : attributes(text)) {
        if (attribute.key != wanted && !attribute.text.empty()) {
            result.append(attribute.text);
            result += ';';
        }
    }
    result.append(key);
    result += '=';
    result.append(value);
    return result;
}

}  // namespace rebound::cli
