#include "chart.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <iomanip>
#include <locale>
#include <string_view>

namespace rebound::simulation::chart {

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

namespace {

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

    void draw_frame(std::ostringstream& out, std::string_view title, std::string_view x_label,
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
            << "\" text-anchor=\"middle\">" << xml_escape(x_label) << "</text>\n";
        const double label_x = left_ + 16.0;
        const double label_y = (top + bottom) / 2.0;
        out << "  <text x=\"" << label_x << "\" y=\"" << label_y
            << "\" text-anchor=\"middle\" transform=\"rotate(-90 " << label_x << ' ' << label_y
            << ")\">" << xml_escape(y_label) << (y_.is_logarithmic() ? ", log scale" : "")
            << "</text>\n";
    }

    void draw_series(std::ostringstream& out, const std::vector<std::pair<double, double>>& points,
                     std::string_view name, std::string_view stroke) const {
        out << "  <g class=\"series\" data-strategy=\"" << xml_escape(name) << "\">\n";
        out << "    <polyline fill=\"none\" stroke=\"" << stroke
            << "\" stroke-width=\"2\" points=\"";
        for (std::size_t i = 0; i < points.size(); ++i) {
            out << (i == 0 ? "" : " ") << x(points[i].first) << ',' << y(points[i].second);
        }
        out << "\"/>\n";
        for (const auto& [at, value] : points) {
            out << "    <circle cx=\"" << x(at) << "\" cy=\"" << y(value) << "\" r=\"2.5\" fill=\""
                << stroke << "\"/>\n";
        }
        out << "  </g>\n";
    }

  private:
    double left_;
    Axis x_;
    Axis y_;
};

double largest_x(const ChartSpec& chart) {
    double result = 0.0;
    for (const PanelSpec& panel : chart.panels) {
        for (const Series& series : panel.series) {
            for (const auto& point : series.points) {
                result = std::max(result, point.first);
            }
        }
    }
    return result;
}

Axis y_axis(const PanelSpec& panel) {
    double largest = 0.0;
    double smallest_positive = 0.0;
    for (const Series& series : panel.series) {
        for (const auto& point : series.points) {
            largest = std::max(largest, point.second);
            if (point.second > 0.0 &&
                (smallest_positive == 0.0 || point.second < smallest_positive)) {
                smallest_positive = point.second;
            }
        }
    }
    return panel.y_scale == Scale::Logarithmic ? Axis::logarithmic(smallest_positive, largest)
                                               : Axis::linear(largest);
}

}  // namespace

std::string render_svg(const ChartSpec& chart) {
    const std::size_t names = chart.panels.empty() ? 0 : chart.panels.front().series.size();
    const std::size_t legend_rows =
        std::max<std::size_t>(1, (names + kLegendEntriesPerRow - 1) / kLegendEntriesPerRow);
    const double width =
        static_cast<double>(std::max<std::size_t>(1, chart.panels.size())) * kPanelWidth;
    const double height = kPanelHeight + static_cast<double>(legend_rows) * kLegendRowHeight + 12.0;
    const Axis x_axis = Axis::linear(largest_x(chart));

    std::ostringstream out = classic_stream();
    out << std::setprecision(6);
    out << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
    out << "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"" << width
        << "\" height=\"" << height << "\" viewBox=\"0 0 " << width << ' ' << height
        << "\" font-family=\"sans-serif\" font-size=\"12\">\n";
    out << "  <title>" << xml_escape(chart.title) << "</title>\n";
    out << "  <rect width=\"100%\" height=\"100%\" fill=\"#ffffff\"/>\n";
    out << "  <text x=\"" << width / 2.0 << "\" y=\"20\" text-anchor=\"middle\" font-size=\"15\">"
        << xml_escape(chart.heading) << "</text>\n";
    std::vector<Panel> panels;
    for (std::size_t p = 0; p < chart.panels.size(); ++p) {
        panels.emplace_back(static_cast<double>(p) * kPanelWidth, x_axis, y_axis(chart.panels[p]));
        panels.back().draw_frame(out, chart.panels[p].title, chart.x_label,
                                 chart.panels[p].y_label);
    }
    for (std::size_t s = 0; s < names; ++s) {
        for (std::size_t p = 0; p < chart.panels.size(); ++p) {
            if (s < chart.panels[p].series.size()) {
                const Series& series = chart.panels[p].series[s];
                panels[p].draw_series(out, series.points, series.name, colour(s));
            }
        }
    }
    out << "  <g class=\"legend\">\n";
    for (std::size_t s = 0; s < names; ++s) {
        const double entry_x =
            kMarginLeft + static_cast<double>(s % kLegendEntriesPerRow) * kLegendEntryWidth;
        // The legend's row number: a whole-number division, on purpose.
        const double entry_y =
            // NOLINTNEXTLINE(bugprone-integer-division)
            kPanelHeight + static_cast<double>(s / kLegendEntriesPerRow) * kLegendRowHeight + 4.0;
        out << "    <line x1=\"" << entry_x << "\" y1=\"" << entry_y << "\" x2=\"" << entry_x + 24.0
            << "\" y2=\"" << entry_y << "\" stroke=\"" << colour(s) << "\" stroke-width=\"3\"/>\n";
        out << "    <text x=\"" << entry_x + 30.0 << "\" y=\"" << entry_y + 4.0 << "\">"
            << xml_escape(chart.panels.front().series[s].name) << "</text>\n";
    }
    out << "  </g>\n";
    out << "</svg>\n";
    return out.str();
}

}  // namespace rebound::simulation::chart
