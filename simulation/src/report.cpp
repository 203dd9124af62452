#include "rebound/simulation/report.hpp"

#include "chart.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <iomanip>
#include <locale>
#include <map>
#include <sstream>
#include <string_view>
#include <utility>

namespace rebound::simulation {
namespace {

using chart::classic_stream;
using chart::csv_field;
using chart::fixed;

// The strategies and client counts of `rows` in order of first appearance, and each row by both.
class RowIndex {
  public:
    explicit RowIndex(const std::vector<ExperimentRow>& rows) {
        for (const ExperimentRow& row : rows) {
            if (std::find(strategies_.begin(), strategies_.end(), row.strategy) ==
                strategies_.end()) {
                strategies_.push_back(row.strategy);
            }
            if (std::find(clients_.begin(), clients_.end(), row.clients) == clients_.end()) {
                clients_.push_back(row.clients);
            }
            by_key_.emplace(std::make_pair(row.strategy, row.clients), &row);
            runs_ = std::max(runs_, row.runs);
        }
    }

    const std::vector<std::string>& strategies() const noexcept { return strategies_; }
    const std::vector<int>& clients() const noexcept { return clients_; }
    int runs() const noexcept { return runs_; }

    const ExperimentRow* find(const std::string& strategy, int clients) const {
        const auto found = by_key_.find(std::make_pair(strategy, clients));
        return found == by_key_.end() ? nullptr : found->second;
    }

  private:
    std::vector<std::string> strategies_;
    std::vector<int> clients_;
    std::map<std::pair<std::string, int>, const ExperimentRow*> by_key_;
    int runs_ = 0;
};

// ---- Text table ----------------------------------------------------------------------------

constexpr int kTableDecimals = 1;
constexpr std::size_t kMinimumColumnWidth = 10;
constexpr std::size_t kClientsColumnWidth = 7;

using RowValue = double (*)(const ExperimentRow&);

void append_table(std::ostringstream& out, const RowIndex& index, std::string_view title,
                  RowValue value) {
    out << title << " (mean of " << index.runs() << " runs)\n";
    out << std::setw(static_cast<int>(kClientsColumnWidth)) << "clients";
    std::vector<int> widths;
    for (const std::string& strategy : index.strategies()) {
        const std::size_t width = std::max(kMinimumColumnWidth, strategy.size()) + 2;
        widths.push_back(static_cast<int>(width));
        out << std::setw(widths.back()) << strategy;
    }
    out << '\n';
    for (const int clients : index.clients()) {
        out << std::setw(static_cast<int>(kClientsColumnWidth)) << clients;
        for (std::size_t column = 0; column < index.strategies().size(); ++column) {
            const ExperimentRow* row = index.find(index.strategies()[column], clients);
            out << std::setw(widths[column])
                << (row != nullptr ? fixed(value(*row), kTableDecimals) : std::string("-"));
        }
        out << '\n';
    }
}

// ---- CSV -----------------------------------------------------------------------------------

constexpr int kCsvDecimals = 2;

// The points of one strategy, sorted by client count.
std::vector<std::pair<double, double>> series(const RowIndex& index, const std::string& strategy,
                                              RowValue value) {
    std::vector<std::pair<double, double>> points;
    for (const int clients : index.clients()) {
        if (const ExperimentRow* row = index.find(strategy, clients)) {
            points.emplace_back(clients, value(*row));
        }
    }
    std::sort(points.begin(), points.end());
    return points;
}

double mean_calls(const ExperimentRow& row) {
    return row.mean_calls;
}
double mean_time_ms(const ExperimentRow& row) {
    return row.mean_time_ms;
}

}  // namespace

std::string format_table(const std::vector<ExperimentRow>& rows) {
    const RowIndex index(rows);
    std::ostringstream out = classic_stream();
    append_table(out, index, "Write calls", mean_calls);
    out << '\n';
    append_table(out, index, "Completion time, ms", mean_time_ms);
    return out.str();
}

std::string format_csv(const std::vector<ExperimentRow>& rows) {
    std::ostringstream out = classic_stream();
    out << "strategy,clients,calls,time_ms\n";
    for (const ExperimentRow& row : rows) {
        out << csv_field(row.strategy) << ',' << row.clients << ','
            << fixed(row.mean_calls, kCsvDecimals) << ',' << fixed(row.mean_time_ms, kCsvDecimals)
            << '\n';
    }
    return out.str();
}

std::string format_svg(const std::vector<ExperimentRow>& rows) {
    const RowIndex index(rows);
    chart::ChartSpec spec;
    spec.title =
        "Optimistic-concurrency contention: write calls and completion time against clients";
    spec.heading = "Optimistic-concurrency contention, mean of " + std::to_string(index.runs()) +
                   " runs per point";
    spec.x_label = "clients";
    chart::PanelSpec calls{"Write calls", "write calls (mean)", chart::Scale::Linear, {}};
    chart::PanelSpec time{
        "Completion time", "completion time, ms (mean)", chart::Scale::Logarithmic, {}};
    for (const std::string& strategy : index.strategies()) {
        calls.series.push_back({strategy, series(index, strategy, mean_calls)});
        time.series.push_back({strategy, series(index, strategy, mean_time_ms)});
    }
    spec.panels = {std::move(calls), std::move(time)};
    return chart::render_svg(spec);
}

}  // namespace rebound::simulation
