#include "rebound/budget_metrics.hpp"

#include <charconv>

#include "rebound/retry_metrics.hpp"

namespace rebound {
namespace {

// The HELP and TYPE lines of gauge `name`, then one series per budget, of value(budget).
template <typename Value>
void append_gauge(std::string& out, std::string_view name, std::string_view help,
                  const std::vector<ResilienceRegistry::RegisteredBudget>& budgets, Value value) {
    append_metric_header(out, name, "gauge", help);
    for (const auto& entry : budgets) {
        out.append(name).append("{service=\"").append(escape_label_value(entry.service));
        out.append("\",policy=\"").append(escape_label_value(entry.policy)).append("\"} ");
        // The shortest text that reads back as the value: "10", "7.5", "4.999".
        char buffer[32];
        const auto [end, error] = std::to_chars(buffer, buffer + sizeof buffer, value(entry));
        out.append(buffer, end).append("\n");
    }
}

}  // namespace

std::string render_budget_metrics(const ResilienceRegistry& registry) {
    const std::vector<ResilienceRegistry::RegisteredBudget> budgets = registry.budgets();
    std::string out;
    append_gauge(out, "rebound_budget_tokens",
                 "Tokens a retry budget holds: a failure takes one, a success gives back "
                 "token_ratio.",
                 budgets, [](const auto& entry) { return entry.budget->tokens(); });
    append_gauge(out, "rebound_budget_max_tokens",
                 "A retry budget's max_tokens: retries are allowed while more than half remain.",
                 budgets,
                 [](const auto& entry) { return static_cast<double>(entry.settings.max_tokens); });
    return out;
}

}  // namespace rebound
