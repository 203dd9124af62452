#include "rebound/simulation/failure_rate.hpp"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <stdexcept>
#include <utility>

#include "chart.hpp"
#include "rebound/decision.hpp"
#include "rebound/random_source.hpp"

namespace rebound::simulation {
namespace {

constexpr std::string_view kBreakerName = "downstream";
constexpr int kCsvDecimals = 4;

PolicySpec immediate_retries(std::string name, int retries) {
    PolicySpec spec;
    spec.name = std::move(name);
    spec.max_attempts = 1 + retries;
    spec.backoff = Backoff::none();
    spec.jitter = Jitter::none();
    spec.retry_on = {Matcher::transient()};
    return spec;
}

// One request through `policy`: attempts until a success or the policy stops. Returns whether
// it succeeded and adds the attempts that reached the downstream to `work`.
bool run_request(const Policy& policy, double failure_rate, CircuitBreaker::TimePoint now,
                 RandomSource& random, std::uint64_t& work) {
    ErrorDescription failure;
    failure.category = ErrorCategory::ServiceUnavailable;
    CircuitBreaker* breaker = policy.breaker();
    AttemptContext context;
    while (true) {
        BreakerPermit permit;
        if (breaker != nullptr) {
            permit = breaker->acquire(now);
            if (!permit) {
                return false;
            }
        }
        ++work;
        if (next_unit(random) >= failure_rate) {
            policy.record_success();
            if (breaker != nullptr) {
                breaker->record_success(permit, Duration{0}, now);
            }
            return true;
        }
        if (breaker != nullptr) {
            breaker->record_error(permit, failure, now);
        }
        const Decision decision = decide(policy, failure, context, random);
        if (!decision.retry) {
            return false;
        }
        context.elapsed += decision.delay;
        context.previous_delay = decision.delay;
        context.attempt = decision.next_attempt;
    }
}

FailureRateRow run_point(const ClientStrategy& strategy, double failure_rate,
                         const FailureRateSettings& settings, std::uint64_t seed) {
    std::vector<std::shared_ptr<const Policy>> clients;
    clients.reserve(static_cast<std::size_t>(std::max(settings.clients, 0)));
    for (int c = 0; c < settings.clients; ++c) {
        clients.push_back(strategy.make_policy());
    }
    SeededRandomSource random(seed);
    std::uint64_t work = 0;
    std::uint64_t successes = 0;
    const CircuitBreaker::TimePoint start{};
    for (int i = 0; i < settings.requests; ++i) {
        const Policy& policy = *clients[static_cast<std::size_t>(i % settings.clients)];
        const auto now = start + std::chrono::duration_cast<CircuitBreaker::TimePoint::duration>(
                                     settings.interval * i);
        successes += run_request(policy, failure_rate, now, random, work) ? 1U : 0U;
    }
    const double requests = settings.requests;
    return FailureRateRow{strategy.name, failure_rate, settings.clients,
                          static_cast<double>(successes) / requests,
                          static_cast<double>(work) / requests};
}

}  // namespace

std::vector<ClientStrategy> failure_rate_builtins(int retries, const BudgetSettings& budget,
                                                  const BreakerSettings& breaker) {
    std::vector<ClientStrategy> strategies;
    strategies.push_back(
        {"none", copies_of(compile_policy(immediate_retries("none", 0), nullptr))});
    strategies.push_back(
        {"retries", copies_of(compile_policy(immediate_retries("retries", retries), nullptr))});
    PolicySpec budgeted = immediate_retries("budget", retries);
    budgeted.budget = budget;
    strategies.push_back({"budget", copies_of(compile_policy(std::move(budgeted), nullptr))});
    PolicySpec guarded = immediate_retries("breaker", retries);
    guarded.breaker = std::string(kBreakerName);
    BreakerSettings settings = breaker;
    settings.name = std::string(kBreakerName);
    BreakerDirectory breakers;
    breakers.emplace(settings.name,
                     std::make_shared<CircuitBreaker>(settings, CircuitBreaker::TimePoint{}));
    strategies.push_back({"breaker", copies_of(compile_policy(std::move(guarded), &breakers))});
    return strategies;
}

std::vector<FailureRateRow> run_failure_rate(const std::vector<ClientStrategy>& strategies,
                                             const FailureRateSettings& settings) {
    std::vector<FailureRateRow> rows;
    for (std::size_t point = 0; point < settings.failure_rates.size(); ++point) {
        for (const ClientStrategy& strategy : strategies) {
            rows.push_back(run_point(strategy, settings.failure_rates[point], settings,
                                     settings.seed + point));
        }
    }
    return rows;
}

double closed_form_work(double x, int retries) noexcept {
    if (x >= 1.0) {
        return 1.0 + retries;
    }
    return (1.0 - std::pow(x, retries + 1)) / (1.0 - x);
}

double closed_form_success(double x, int retries) noexcept {
    return 1.0 - std::pow(x, retries + 1);
}

std::string format_failure_rate_table(const std::vector<FailureRateRow>& rows) {
    std::ostringstream out = chart::classic_stream();
    out << "failure rate  strategy      success   work\n";
    for (const FailureRateRow& row : rows) {
        out << std::left << std::setw(12) << chart::fixed(row.failure_rate, 2) << "  "
            << std::setw(12) << row.strategy << std::right << std::setw(8)
            << chart::fixed(row.success_rate * 100.0, 2) << "%  " << chart::fixed(row.work, 3)
            << "x\n";
    }
    return out.str();
}

std::string format_failure_rate_csv(const std::vector<FailureRateRow>& rows) {
    std::ostringstream out = chart::classic_stream();
    out << "strategy,failure_rate,success_rate,work\n";
    for (const FailureRateRow& row : rows) {
        out << chart::csv_field(row.strategy) << ',' << chart::fixed(row.failure_rate, kCsvDecimals)
            << ',' << chart::fixed(row.success_rate, kCsvDecimals) << ','
            << chart::fixed(row.work, kCsvDecimals) << '\n';
    }
    return out.str();
}

std::string format_failure_rate_svg(const std::vector<FailureRateRow>& rows) {
    chart::ChartSpec spec;
    spec.title = "Success rate and work against the downstream's failure rate";
    spec.heading = "Retries under failure: success rate and calls per request (" +
                   std::to_string(rows.empty() ? 1 : rows.front().clients) + " client" +
                   (rows.empty() || rows.front().clients == 1 ? "" : "s") + ")";
    spec.x_label = "failure rate, %";
    chart::PanelSpec success{"Success rate", "requests that succeed, %", chart::Scale::Linear, {}};
    chart::PanelSpec work{"Work", "calls to the downstream per request", chart::Scale::Linear, {}};
    for (const FailureRateRow& row : rows) {
        std::size_t s = 0;
        while (s < success.series.size() && success.series[s].name != row.strategy) {
            ++s;
        }
        if (s == success.series.size()) {
            success.series.push_back({row.strategy, {}});
            work.series.push_back({row.strategy, {}});
        }
        success.series[s].points.emplace_back(row.failure_rate * 100.0, row.success_rate * 100.0);
        work.series[s].points.emplace_back(row.failure_rate * 100.0, row.work);
    }
    spec.panels = {std::move(success), std::move(work)};
    return chart::render_svg(spec);
}

}  // namespace rebound::simulation
