// Charts and number formatting shared by the reports of every simulate scenario: a standalone
// SVG 1.1 document of side-by-side panels, each with one line per series, axes, ticks, labels
// and a shared legend. Private to rebound::simulation.
#pragma once

#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace rebound::simulation::chart {

// A stream that writes numbers in the classic locale whatever the global one.
std::ostringstream classic_stream();
// `value` with `decimals` decimals, in the classic locale.
std::string fixed(double value, int decimals);
// `text` as one CSV field: quoted as RFC 4180 says when it holds a comma, quote or line break.
std::string csv_field(const std::string& text);
// `text` with the five XML special characters escaped.
std::string xml_escape(std::string_view text);

struct Series {
    std::string name;
    std::vector<std::pair<double, double>> points;  // (x, y), drawn in this order
};

enum class Scale { Linear, Logarithmic };

struct PanelSpec {
    std::string title;
    std::string y_label;
    Scale y_scale = Scale::Linear;
    std::vector<Series> series;  // the same names, in the same order, in every panel
};

struct ChartSpec {
    std::string title;    // the document's <title>
    std::string heading;  // the line above the panels
    std::string x_label;
    std::vector<PanelSpec> panels;
};

// The whole SVG document. Well-formed XML; names are escaped. Series get the colour of their
// position; the legend lists the first panel's series.
std::string render_svg(const ChartSpec& chart);

}  // namespace rebound::simulation::chart
