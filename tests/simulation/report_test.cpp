// Text, CSV and SVG reports of an experiment.
#include <catch2/catch.hpp>
#include <sstream>
#include <string>

#include "rebound/simulation/report.hpp"

using rebound::simulation::ExperimentRow;
using rebound::simulation::format_csv;
using rebound::simulation::format_svg;
using rebound::simulation::format_table;

namespace {

std::vector<ExperimentRow> sample_rows() {
    return {{"full", 10, 3, 25.0, 410.5},
            {"full", 20, 3, 60.25, 900.0},
            {"a&b <\"c\">, d", 10, 3, 40.0, 300.0},
            {"a&b <\"c\">, d", 20, 3, 90.0, 700.125}};
}

std::vector<std::string> lines(const std::string& text) {
    std::vector<std::string> result;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) {
        result.push_back(line);
    }
    return result;
}

std::size_t count(const std::string& text, const std::string& word) {
    std::size_t found = 0;
    for (auto at = text.find(word); at != std::string::npos; at = text.find(word, at + 1)) {
        ++found;
    }
    return found;
}

}  // namespace

TEST_CASE("CSV has the header and one line per row, with quoted names") {
    const auto csv = lines(format_csv(sample_rows()));
    REQUIRE(csv.size() == 5);
    CHECK(csv[0] == "strategy,clients,calls,time_ms");
    CHECK(csv[1] == "full,10,25.00,410.50");
    CHECK(csv[2] == "full,20,60.25,900.00");
    CHECK(csv[3] == "\"a&b <\"\"c\"\">, d\",10,40.00,300.00");
}

TEST_CASE("the text table has one column per strategy and one line per client count") {
    const auto table = lines(format_table(sample_rows()));
    REQUIRE(table.size() == 9);
    CHECK(table[0] == "Write calls (mean of 3 runs)");
    CHECK(table[1].find("clients") != std::string::npos);
    CHECK(table[1].find("full") != std::string::npos);
    CHECK(table[2].find("25.0") != std::string::npos);
    CHECK(table[3].find("60.2") != std::string::npos);
    CHECK(table[5] == "Completion time, ms (mean of 3 runs)");
    CHECK(table[8].find("700.1") != std::string::npos);
}

TEST_CASE("the SVG is one document with two panels, a line per strategy and a legend") {
    const std::string svg = format_svg(sample_rows());
    CHECK(svg.rfind("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg ", 0) == 0);
    CHECK(svg.find("xmlns=\"http://www.w3.org/2000/svg\"") != std::string::npos);
    CHECK(svg.substr(svg.size() - 7) == "</svg>\n");
    CHECK(count(svg, "<polyline") == 4);
    CHECK(count(svg, "<circle") == 8);
    CHECK(count(svg, "<svg") == 1);
    CHECK(svg.find("Write calls") != std::string::npos);
    CHECK(svg.find("Completion time") != std::string::npos);
    CHECK(svg.find(">clients</text>") != std::string::npos);
    // Names are escaped everywhere they appear; no raw markup characters leak.
    CHECK(svg.find("a&amp;b &lt;&quot;c&quot;&gt;, d") != std::string::npos);
    CHECK(svg.find("a&b") == std::string::npos);
    CHECK(count(svg, "<g class=\"legend\">") == 1);
}
