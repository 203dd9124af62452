#include "rebound/simulation/report.hpp"

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

std::ostringstream classic_stream() {
    std::ostringstream out;
    out.imbue(std::locale::classic());
    return out;
}

std::string fixed(double value, int decimals) {
    std::ostringstream out = classic_stream();
    out << std::fixed << std::setprecision(decimals) << value;
    return out.str();
}

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

std::string csv_field(const std::string& text) {
    if (text.find_first_of(",\"\r\n") == std::string::npos) {
        return text;
    }
    std::string quoted = "\"";
    for (const char c : text) {
        quoted += c;
        if (c == '"') {
            quoted += '"';
        }
    }
    return quoted + '"';
}

// ---- SVG -----------------------------------------------------------------------------------

constexpr double kPanelWidth = 480.0;
constexpr double kPanelHeight = 380.0;
constexpr double kMarginLeft = 78.0;
constexpr double kMarginRight = 20.0;
constexpr double kMarginTop = 64.0;
constexpr double kMarginBottom = 56.0;
constexpr double kLegendRowHeight = 22.0;
constexpr double kLegendEntryWidth = 160.0;
constexpr std::size_t kLegendEntriesPerRow = 6;
constexpr double kTickLength = 5.0;
constexpr int kTargetTicks = 5;

// Okabe-Ito colours: distinguishable with the common forms of colour blindness.
constexpr std::string_view kPalette[] = {"#0072B2", "#D55E00", "#009E73", "#CC79A7",
                                         "#E69F00", "#56B4E9", "#000000", "#F0E442"};

std::string xml_escape(std::string_view text) {
    std::string escaped;
    for (const char c : text) {
        switch (c) {
            case '&':
                escaped += "&amp;";
                break;
            case '<':
                escaped += "&lt;";
                break;
            case '>':
                escaped += "&gt;";
                break;
            case '"':
                escaped += "&quot;";
                break;
            case '\'':
                escaped += "&apos;";
                break;
            default:
                escaped += c;
        }
    }
    return escaped;
}

std::string_view colour(std::size_t series) {
    return kPalette[series % std::size(kPalette)];
}

// A value axis: linear from 0 to a round number at or above the largest value, with round tick
// steps (1, 2 or 5 times a power of ten); or logarithmic between the powers of ten around the
// values, with a tick at each power. Times span two orders of magnitude between strategies
// (exponential without jitter against the rest), so the time panel is logarithmic.
class Axis {
  public:
    static Axis linear(double largest) {
        Axis axis;
        if (!(largest > 0.0) || !std::isfinite(largest)) {
            axis.ticks_ = {0.0, 1.0};
            return axis;
        }
        const double raw = largest / kTargetTicks;
        const double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
        const double residual = raw / magnitude;
        double step = 10.0 * magnitude;
        if (residual <= 1.0) {
            step = magnitude;
        } else if (residual <= 2.0) {
            step = 2.0 * magnitude;
        } else if (residual <= 5.0) {
            step = 5.0 * magnitude;
        }
        const double top = std::ceil(largest / step - 1e-9) * step;
        for (double value = 0.0; value <= top + step / 2.0; value += step) {
            axis.ticks_.push_back(value);
        }
        axis.decimals_ = step >= 1.0 ? 0 : static_cast<int>(std::ceil(-std::log10(step)));
        return axis;
    }

    static Axis logarithmic(double smallest, double largest) {
        if (!(smallest > 0.0) || !std::isfinite(largest) || largest < smallest) {
            return linear(largest);
        }
        Axis axis;
        axis.logarithmic_ = true;
        const int low = static_cast<int>(std::floor(std::log10(smallest)));
        const int high = std::max(low + 1, static_cast<int>(std::ceil(std::log10(largest))));
        for (int power = low; power <= high; ++power) {
            axis.ticks_.push_back(std::pow(10.0, power));
        }
        axis.decimals_ = std::max(0, -low);
        return axis;
    }

    // Where `value` lies, 0 at the axis' start and 1 at its end (clamped).
    double fraction(double value) const {
        const double first = ticks_.front();
        const double last = ticks_.back();
        double result = 0.0;
        if (logarithmic_) {
            value = std::max(value, first);
            result = std::log10(value / first) / std::log10(last / first);
        } else {
            result = (value - first) / (last - first);
        }
        return std::clamp(result, 0.0, 1.0);
    }

    const std::vector<double>& ticks() const noexcept { return ticks_; }
    bool is_logarithmic() const noexcept { return logarithmic_; }
    std::string label(double value) const { return fixed(value, decimals_); }

  private:
    std::vector<double> ticks_;
    int decimals_ = 0;
    bool logarithmic_ = false;
};

// One panel: a plot area with its axes, placed at `left` in the document.
class Panel {
  public:
    Panel(double left, Axis x, Axis y) : left_(left), x_(std::move(x)), y_(std::move(y)) {}

    double x(double value) const {
        return left_ + kMarginLeft +
               x_.fraction(value) * (kPanelWidth - kMarginLeft - kMarginRight);
    }
    double y(double value) const {
        return kMarginTop +
               (1.0 - y_.fraction(value)) * (kPanelHeight - kMarginTop - kMarginBottom);
    }

    void draw_frame(std::ostringstream& out, std::string_view title,
                    std::string_view y_label) const {
        const double left = x(x_.ticks().front());
        const double right = x(x_.ticks().back());
        const double bottom = y(y_.ticks().front());
        const double top = y(y_.ticks().back());
        const double centre_x = (left + right) / 2.0;
        out << "  <text x=\"" << centre_x << "\" y=\"" << kMarginTop - 14.0
            << "\" text-anchor=\"middle\" font-size=\"14\" font-weight=\"bold\">"
            << xml_escape(title) << "</text>\n";
        out << "  <g stroke=\"#dddddd\" stroke-width=\"1\">\n";
        for (std::size_t i = 1; i < y_.ticks().size(); ++i) {
            const double at = y(y_.ticks()[i]);
            out << "    <line x1=\"" << left << "\" y1=\"" << at << "\" x2=\"" << right
                << "\" y2=\"" << at << "\"/>\n";
        }
        out << "  </g>\n";
        out << "  <g stroke=\"#333333\" stroke-width=\"1\">\n";
        out << "    <line x1=\"" << left << "\" y1=\"" << bottom << "\" x2=\"" << right
            << "\" y2=\"" << bottom << "\"/>\n";
        out << "    <line x1=\"" << left << "\" y1=\"" << bottom << "\" x2=\"" << left << "\" y2=\""
            << top << "\"/>\n";
        for (const double value : x_.ticks()) {
            out << "    <line x1=\"" << x(value) << "\" y1=\"" << bottom << "\" x2=\"" << x(value)
                << "\" y2=\"" << bottom + kTickLength << "\"/>\n";
        }
        for (const double value : y_.ticks()) {
            out << "    <line x1=\"" << left - kTickLength << "\" y1=\"" << y(value) << "\" x2=\""
                << left << "\" y2=\"" << y(value) << "\"/>\n";
        }
        out << "  </g>\n";
        out << "  <g font-size=\"11\" fill=\"#333333\">\n";
        for (const double value : x_.ticks()) {
            out << "    <text x=\"" << x(value) << "\" y=\"" << bottom + kTickLength + 13.0
                << "\" text-anchor=\"middle\">" << x_.label(value) << "</text>\n";
        }
        for (const double value : y_.ticks()) {
            out << "    <text x=\"" << left - kTickLength - 3.0 << "\" y=\"" << y(value) + 4.0
                << "\" text-anchor=\"end\">" << y_.label(value) << "</text>\n";
        }
        out << "  </g>\n";
        out << "  <text x=\"" << centre_x << "\" y=\"" << bottom + 40.0
            << "\" text-anchor=\"middle\">clients</text>\n";
        const double label_x = left_ + 16.0;
        const double label_y = (top + bottom) / 2.0;
        out << "  <text x=\"" << label_x << "\" y=\"" << label_y
            << "\" text-anchor=\"middle\" transform=\"rotate(-90 " << label_x << ' ' << label_y
            << ")\">" << xml_escape(y_label) << (y_.is_logarithmic() ? ", log scale" : "")
            << "</text>\n";
    }

    void draw_series(std::ostringstream& out, const std::vector<std::pair<int, double>>& points,
                     std::string_view name, std::string_view stroke) const {
        out << "  <g class=\"series\" data-strategy=\"" << xml_escape(name) << "\">\n";
        out << "    <polyline fill=\"none\" stroke=\"" << stroke
            << "\" stroke-width=\"2\" points=\"";
        for (std::size_t i = 0; i < points.size(); ++i) {
            out << (i == 0 ? "" : " ") << x(points[i].first) << ',' << y(points[i].second);
        }
        out << "\"/>\n";
        for (const auto& [clients, value] : points) {
            out << "    <circle cx=\"" << x(clients) << "\" cy=\"" << y(value)
                << "\" r=\"2.5\" fill=\"" << stroke << "\"/>\n";
        }
        out << "  </g>\n";
    }

  private:
    double left_;
    Axis x_;
    Axis y_;
};

// The points of one strategy, sorted by client count.
std::vector<std::pair<int, double>> series(const RowIndex& index, const std::string& strategy,
                                           RowValue value) {
    std::vector<std::pair<int, double>> points;
    for (const int clients : index.clients()) {
        if (const ExperimentRow* row = index.find(strategy, clients)) {
            points.emplace_back(clients, value(*row));
        }
    }
    std::sort(points.begin(), points.end());
    return points;
}

double largest(const std::vector<ExperimentRow>& rows, RowValue value) {
    double result = 0.0;
    for (const ExperimentRow& row : rows) {
        result = std::max(result, value(row));
    }
    return result;
}

// The smallest positive value, or 0 when there is none.
double smallest_positive(const std::vector<ExperimentRow>& rows, RowValue value) {
    double result = 0.0;
    for (const ExperimentRow& row : rows) {
        const double v = value(row);
        if (v > 0.0 && (result == 0.0 || v < result)) {
            result = v;
        }
    }
    return result;
}

double mean_calls(const ExperimentRow& row) {
    return row.mean_calls;
}
double mean_time_ms(const ExperimentRow& row) {
    return row.mean_time_ms;
}
double clients_of(const ExperimentRow& row) {
    return static_cast<double>(row.clients);
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
    const std::size_t legend_rows = std::max<std::size_t>(
        1, (index.strategies().size() + kLegendEntriesPerRow - 1) / kLegendEntriesPerRow);
    const double width = 2.0 * kPanelWidth;
    const double height = kPanelHeight + static_cast<double>(legend_rows) * kLegendRowHeight + 12.0;
    const Axis clients_axis = Axis::linear(largest(rows, clients_of));
    const Panel calls(0.0, clients_axis, Axis::linear(largest(rows, mean_calls)));
    const Panel time(
        kPanelWidth, clients_axis,
        Axis::logarithmic(smallest_positive(rows, mean_time_ms), largest(rows, mean_time_ms)));

    std::ostringstream out = classic_stream();
    out << std::setprecision(6);
    out << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
    out << "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"" << width
        << "\" height=\"" << height << "\" viewBox=\"0 0 " << width << ' ' << height
        << "\" font-family=\"sans-serif\" font-size=\"12\">\n";
    out << "  <title>Optimistic-concurrency contention: write calls and completion time against "
           "clients</title>\n";
    out << "  <rect width=\"100%\" height=\"100%\" fill=\"#ffffff\"/>\n";
    out << "  <text x=\"" << width / 2.0
        << "\" y=\"20\" text-anchor=\"middle\" font-size=\"15\">Optimistic-concurrency contention, "
           "mean of "
        << index.runs() << " runs per point</text>\n";
    calls.draw_frame(out, "Write calls", "write calls (mean)");
    time.draw_frame(out, "Completion time", "completion time, ms (mean)");
    for (std::size_t s = 0; s < index.strategies().size(); ++s) {
        const std::string& strategy = index.strategies()[s];
        calls.draw_series(out, series(index, strategy, mean_calls), strategy, colour(s));
        time.draw_series(out, series(index, strategy, mean_time_ms), strategy, colour(s));
    }
    out << "  <g class=\"legend\">\n";
    for (std::size_t s = 0; s < index.strategies().size(); ++s) {
        const double entry_x =
            kMarginLeft + static_cast<double>(s % kLegendEntriesPerRow) * kLegendEntryWidth;
        const double entry_y =
            kPanelHeight + static_cast<double>(s / kLegendEntriesPerRow) * kLegendRowHeight + 4.0;
        out << "    <line x1=\"" << entry_x << "\" y1=\"" << entry_y << "\" x2=\"" << entry_x + 24.0
            << "\" y2=\"" << entry_y << "\" stroke=\"" << colour(s) << "\" stroke-width=\"3\"/>\n";
        out << "    <text x=\"" << entry_x + 30.0 << "\" y=\"" << entry_y + 4.0 << "\">"
            << xml_escape(index.strategies()[s]) << "</text>\n";
    }
    out << "  </g>\n";
    out << "</svg>\n";
    return out.str();
}

}  // namespace rebound::simulation
