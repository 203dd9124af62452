#include "rebound/simulation/hedging.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <iomanip>
#include <utility>

#include "chart.hpp"
#include "rebound/dsl/syntax.hpp"
#include "rebound/hedge.hpp"
#include "rebound/latency_recorder.hpp"
#include "rebound/random_source.hpp"

namespace rebound::simulation {
namespace {

constexpr int kWarmup = 100;
constexpr std::string_view kHedgePrefix = "hedge:";
constexpr std::string_view kExpected =
    "expected none, hedge:DURATION (such as hedge:10ms) or hedge:pQ (such as hedge:p95)";

double to_ms(Duration d) noexcept {
    return static_cast<double>(d.count()) / 1000.0;
}

// One attempt's latency in milliseconds. Always two draws, so that every strategy sees the same
// latencies for the same request and attempt.
double draw_latency(const HedgingSettings& settings, RandomSource& random) noexcept {
    const double choice = next_unit(random);
    const double exponential = -to_ms(settings.mean) * std::log1p(-next_unit(random));
    return choice < settings.slow_fraction ? to_ms(settings.slow)
                                           : to_ms(settings.base) + exponential;
}

// `text` after "p": a percentage strictly between 0 and 100, as digits with an optional
// fraction (p95, p99.9).
std::optional<double> parse_percentile(std::string_view text) {
    const bool digits_only = !text.empty() && std::all_of(text.begin(), text.end(), [](char c) {
        return (c >= '0' && c <= '9') || c == '.';
    });
    if (!digits_only || text.front() == '.' || text.back() == '.' ||
        std::count(text.begin(), text.end(), '.') > 1) {
        return std::nullopt;
    }
    double percent = 0.0;
    const auto [end, failure] = std::from_chars(text.data(), text.data() + text.size(), percent);
    if (failure != std::errc() || end != text.data() + text.size() || percent <= 0.0 ||
        percent >= 100.0) {
        return std::nullopt;
    }
    return percent / 100.0;
}

// The hedge delay of this request: the strategy's fixed delay, the learned one, or none.
std::optional<double> delay_ms(const HedgingStrategy& strategy, const LatencyRecorder& recorder,
                               LatencyRecorder::TimePoint now) {
    if (strategy.delay) {
        return to_ms(*strategy.delay);
    }
    if (!strategy.quantile) {
        return std::nullopt;
    }
    const LearnedHedgeDelay learned{*strategy.quantile, Duration{0}, LatencyRecorder::kMaxLatency};
    const std::optional<Duration> delay = learned_hedge_delay(recorder, learned, kWarmup, now);
    if (!delay) {
        return std::nullopt;
    }
    return to_ms(*delay);
}

double quantile_of_sorted(const std::vector<double>& sorted, double q) {
    if (sorted.empty()) {
        return 0.0;
    }
    const double wanted = std::ceil(q * static_cast<double>(sorted.size()));
    const auto rank =
        std::clamp<std::size_t>(static_cast<std::size_t>(std::max(wanted, 1.0)), 1, sorted.size());
    return sorted[rank - 1];
}

}  // namespace

std::optional<HedgingStrategy> parse_hedging_strategy(std::string_view text, std::string& error) {
    if (text == "none") {
        return HedgingStrategy{"none", std::nullopt, std::nullopt};
    }
    if (!text.starts_with(kHedgePrefix)) {
        error = std::string(kExpected) + ", got '" + std::string(text) + "'";
        return std::nullopt;
    }
    const std::string_view value = text.substr(kHedgePrefix.size());
    if (value.starts_with('p')) {
        const std::optional<double> quantile = parse_percentile(value.substr(1));
        if (!quantile) {
            error =
                "expected a percentile between p0 and p100 (exclusive) such as hedge:p95, "
                "got '" +
                std::string(text) + "'";
            return std::nullopt;
        }
        return HedgingStrategy{std::string(text), std::nullopt, quantile};
    }
    std::string duration_error;
    const std::optional<Duration> delay = dsl::parse_duration(value, duration_error);
    if (!delay) {
        error = std::string(kExpected) + ", got '" + std::string(text) + "'";
        return std::nullopt;
    }
    if (*delay <= Duration{0} || *delay > LatencyRecorder::kMaxLatency) {
        error = "a hedge delay must be above 0 and at most 1h, got '" + std::string(text) + "'";
        return std::nullopt;
    }
    return HedgingStrategy{std::string(text), delay, std::nullopt};
}

std::vector<HedgingStrategy> default_hedging_strategies() {
    std::vector<HedgingStrategy> strategies;
    for (const std::string_view name :
         {"none", "hedge:10ms", "hedge:p90", "hedge:p95", "hedge:p99"}) {
        std::string error;
        strategies.push_back(*parse_hedging_strategy(name, error));
    }
    return strategies;
}

HedgingOutcome simulate_hedging(const HedgingStrategy& strategy, const HedgingSettings& settings) {
    SeededRandomSource random(settings.seed);
    // The window is the whole run: every latency is recorded and read at one instant.
    const LatencyRecorder::TimePoint now{};
    LatencyRecorder recorder(LatencyRecorder::kMaxLatency, now);
    const double burst = HedgeSettings::kDefaultBurst;
    double tokens = burst;
    HedgingOutcome outcome;
    outcome.latencies_ms.reserve(static_cast<std::size_t>(settings.requests));
    std::vector<double> attempt(static_cast<std::size_t>(settings.attempts));
    for (int request = 0; request < settings.requests; ++request) {
        for (double& latency : attempt) {
            latency = draw_latency(settings, random);
        }
        if (settings.max_extra_load) {
            tokens = std::min(tokens + *settings.max_extra_load, burst);
        }
        const std::optional<double> delay = delay_ms(strategy, recorder, now);
        double finish = attempt[0];
        std::size_t winner = 0;
        for (std::size_t k = 1; delay && k < attempt.size(); ++k) {
            const double due = static_cast<double>(k) * *delay;
            if (finish <= due || (settings.max_extra_load && tokens < 1.0)) {
                break;  // the request has ended, or the hedge is suppressed (and so are later ones)
            }
            ++outcome.hedges;
            if (settings.max_extra_load) {
                tokens -= 1.0;
            }
            if (due + attempt[k] < finish) {
                finish = due + attempt[k];
                winner = k;
            }
        }
        outcome.latencies_ms.push_back(finish);
        if (strategy.quantile) {
            recorder.record(Duration{std::llround(attempt[winner] * 1000.0)}, now);
        }
    }
    return outcome;
}

double attempt_survival(const HedgingSettings& settings, double t_ms) noexcept {
    const double slow = to_ms(settings.slow) > t_ms ? 1.0 : 0.0;
    const double base = to_ms(settings.base);
    const double mean = to_ms(settings.mean);
    double fast = 1.0;
    if (t_ms >= base) {
        fast = mean > 0.0 ? std::exp(-(t_ms - base) / mean) : 0.0;
    }
    return settings.slow_fraction * slow + (1.0 - settings.slow_fraction) * fast;
}

double latency_quantile(std::vector<double> latencies_ms, double q) {
    std::sort(latencies_ms.begin(), latencies_ms.end());
    return quantile_of_sorted(latencies_ms, q);
}

std::vector<HedgingRow> run_hedging(const std::vector<HedgingStrategy>& strategies,
                                    const HedgingSettings& settings) {
    std::vector<HedgingRow> rows;
    for (const HedgingStrategy& strategy : strategies) {
        HedgingOutcome outcome = simulate_hedging(strategy, settings);
        std::sort(outcome.latencies_ms.begin(), outcome.latencies_ms.end());
        const std::vector<double>& sorted = outcome.latencies_ms;
        rows.push_back({strategy.name, quantile_of_sorted(sorted, 0.5),
                        quantile_of_sorted(sorted, 0.9), quantile_of_sorted(sorted, 0.99),
                        quantile_of_sorted(sorted, 0.999),
                        static_cast<double>(outcome.hedges) /
                            static_cast<double>(std::max(settings.requests, 1))});
    }
    return rows;
}

std::string format_hedging_table(const std::vector<HedgingRow>& rows,
                                 const HedgingSettings& settings) {
    std::ostringstream out = chart::classic_stream();
    out << settings.requests << " requests, attempt latency " << to_ms(settings.base)
        << "ms + Exponential(" << to_ms(settings.mean) << "ms), "
        << chart::fixed(settings.slow_fraction * 100.0, 2) << "% at " << to_ms(settings.slow)
        << "ms; up to " << settings.attempts << " attempts\n";
    out << "strategy            p50 ms    p90 ms    p99 ms  p99.9 ms  extra load\n";
    for (const HedgingRow& row : rows) {
        out << std::left << std::setw(16) << row.strategy << std::right;
        for (const double value : {row.p50_ms, row.p90_ms, row.p99_ms, row.p999_ms}) {
            out << std::setw(10) << chart::fixed(value, 3);
        }
        out << std::setw(11) << chart::fixed(row.extra_load * 100.0, 2) << "%\n";
    }
    return out.str();
}

std::string format_hedging_csv(const std::vector<HedgingRow>& rows) {
    std::ostringstream out = chart::classic_stream();
    out << "strategy,p50_ms,p90_ms,p99_ms,p999_ms,extra_load\n";
    for (const HedgingRow& row : rows) {
        out << chart::csv_field(row.strategy);
        for (const double value : {row.p50_ms, row.p90_ms, row.p99_ms, row.p999_ms}) {
            out << ',' << chart::fixed(value, 3);
        }
        out << ',' << chart::fixed(row.extra_load, 4) << '\n';
    }
    return out.str();
}

std::string format_hedging_svg(const std::vector<HedgingRow>& rows,
                               const HedgingSettings& settings) {
    chart::ChartSpec spec;
    spec.title = "Request latency percentiles and extra load with hedged attempts";
    spec.heading = "Hedging: " + std::to_string(settings.requests) + " requests, up to " +
                   std::to_string(settings.attempts) + " attempts each";
    spec.x_label = "percentile, in nines (1 = p90, 2 = p99, 3 = p99.9)";
    chart::PanelSpec latency{"Latency", "request latency, ms", chart::Scale::Logarithmic, {}};
    chart::PanelSpec load{"Extra load", "hedges per request, %", chart::Scale::Linear, {}};
    // x: the percentile's nines, -log10(1 - q).
    const std::array<double, 4> nines{std::log10(2.0), 1.0, 2.0, 3.0};
    for (const HedgingRow& row : rows) {
        const std::array<double, 4> latencies{row.p50_ms, row.p90_ms, row.p99_ms, row.p999_ms};
        chart::Series latency_series{row.strategy, {}};
        // The extra load does not depend on the percentile: a level line across the same axis.
        chart::Series load_series{row.strategy, {}};
        for (std::size_t i = 0; i < nines.size(); ++i) {
            latency_series.points.emplace_back(nines[i], latencies[i]);
            load_series.points.emplace_back(nines[i], row.extra_load * 100.0);
        }
        latency.series.push_back(std::move(latency_series));
        load.series.push_back(std::move(load_series));
    }
    spec.panels = {std::move(latency), std::move(load)};
    return chart::render_svg(spec);
}

}  // namespace rebound::simulation
