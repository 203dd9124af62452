// Report: the rows of an experiment as a text table, CSV, or an SVG chart.
//
// Every function takes rows as run_experiment returns them (any order works: strategies and
// client counts are listed in the order they first appear) and returns the whole document.
// Numbers are written in the classic locale whatever the global one.
#pragma once

#include <string>
#include <vector>

#include "rebound/simulation/experiment.hpp"

namespace rebound::simulation {

// Two tables, mean write calls and mean completion time, with one line per client count and
// one column per strategy.
std::string format_table(const std::vector<ExperimentRow>& rows);

// The header `strategy,clients,calls,time_ms`, then one line per row (means, two decimals).
// A strategy name holding a comma, quote or line break is quoted as RFC 4180 says.
std::string format_csv(const std::vector<ExperimentRow>& rows);

// A standalone SVG 1.1 document: two panels, mean write calls and mean completion time against
// clients, one line per strategy, with axes, ticks, labels and a legend. Well-formed XML; names
// are escaped.
std::string format_svg(const std::vector<ExperimentRow>& rows);

}  // namespace rebound::simulation
