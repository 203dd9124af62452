#include "rebound/simulation/brownout.hpp"

#include <algorithm>
#include <cmath>
#include <deque>
#include <iomanip>
#include <queue>
#include <stdexcept>
#include <utility>

#include "brownout_policy_file.hpp"
#include "chart.hpp"
#include "rebound/decision.hpp"
#include "rebound/dsl/load.hpp"
#include "rebound/random_source.hpp"

namespace rebound::simulation {
namespace {

using Millis = std::int64_t;
using TimePoint = CircuitBreaker::TimePoint;

constexpr double kRecoveredShare = 0.95;  // goodput within 5% of arrivals
constexpr int kCsvDecimals = 2;

Millis millis(Duration d) {
    return std::chrono::duration_cast<std::chrono::milliseconds>(d).count();
}

TimePoint at(Millis t) {
    return TimePoint{} +
           std::chrono::duration_cast<TimePoint::duration>(std::chrono::milliseconds(t));
}

Millis sample_millis(const BrownoutSettings& settings) {
    return std::max<Millis>(1, millis(settings.sample));
}

Millis brownout_end_millis(const BrownoutSettings& settings) {
    return millis(settings.brownout_start) + millis(settings.brownout_length);
}

struct Request {
    std::size_t client = 0;
    Millis start = 0;
    int attempt = 0;  // the attempt in flight or next to send
    Duration previous_delay{0};
    BreakerPermit permit;
    bool done = false;
};

// An attempt in the server's queue.
struct Queued {
    std::size_t request;
    int attempt;
    Millis sent;
};

// When an attempt times out at its client (attempts time out in the order they were sent).
struct Deadline {
    std::size_t request;
    int attempt;
    Millis at;
};

// A retry waiting for its delay, earliest first.
struct Pending {
    Millis at;
    std::size_t request;
    friend bool operator>(const Pending& a, const Pending& b) { return a.at > b.at; }
};

class Run {
  public:
    Run(const ClientStrategy& strategy, const BrownoutSettings& settings)
        : settings_(settings), random_(settings.seed) {
        for (int c = 0; c < settings.clients; ++c) {
            clients_.push_back(strategy.make_policy());
        }
        const Millis buckets = (millis(settings.run_length) + sample_ms() - 1) / sample_ms();
        counts_.arrivals.assign(static_cast<std::size_t>(buckets), 0);
        counts_.offered.assign(counts_.arrivals.size(), 0);
        counts_.goodput.assign(counts_.arrivals.size(), 0);
        failure_.category = ErrorCategory::ServiceUnavailable;
    }

    BrownoutResult run(std::string name) {
        const Millis end = millis(settings_.run_length);
        const double arrival_rate = settings_.arrival_fraction * settings_.capacity / 1000.0;
        double next_arrival = 0.0;  // in ms
        double credit = 0.0;        // attempts the server may still serve this step
        for (Millis now = 0; now < end; ++now) {
            credit += capacity_per_ms(now);
            serve(now, credit);
            expire(now);
            while (next_arrival <= static_cast<double>(now)) {
                arrive(now);
                next_arrival += 1.0 / arrival_rate;
            }
            while (!pending_.empty() && pending_.top().at <= now) {
                const std::size_t request = pending_.top().request;
                pending_.pop();
                send(request, now);
            }
        }
        return result(std::move(name));
    }

  private:
    Millis sample_ms() const { return sample_millis(settings_); }
    std::size_t bucket(Millis now) const { return static_cast<std::size_t>(now / sample_ms()); }
    Millis brownout_end() const { return brownout_end_millis(settings_); }

    double capacity_per_ms(Millis now) const {
        const bool brownout = now >= millis(settings_.brownout_start) && now < brownout_end();
        return settings_.capacity * (brownout ? settings_.brownout_fraction : 1.0) / 1000.0;
    }

    const Policy& policy_of(const Request& request) const { return *clients_[request.client]; }

    void arrive(Millis now) {
        Request request;
        request.client = requests_.size() % clients_.size();
        request.start = now;
        request.attempt = 1;
        requests_.push_back(request);
        ++counts_.arrivals[bucket(now)];
        send(requests_.size() - 1, now);
    }

    void send(std::size_t index, Millis now) {
        Request& request = requests_[index];
        if (CircuitBreaker* breaker = policy_of(request).breaker()) {
            request.permit = breaker->acquire(at(now));
            if (!request.permit) {
                request.done = true;  // refused: fails at once, nothing sent
                return;
            }
        }
        queue_.push_back(Queued{index, request.attempt, now});
        largest_queue_ = std::max(largest_queue_, queue_.size());
        deadlines_.push_back(Deadline{index, request.attempt, now + millis(settings_.timeout)});
        ++counts_.offered[bucket(now)];
    }

    void serve(Millis now, double& credit) {
        while (credit >= 1.0 && !queue_.empty()) {
            const Queued attempt = queue_.front();
            queue_.pop_front();
            credit -= 1.0;
            Request& request = requests_[attempt.request];
            if (request.done || request.attempt != attempt.attempt ||
                now - attempt.sent > millis(settings_.timeout)) {
                continue;  // the client gave up on it: wasted work
            }
            request.done = true;
            ++counts_.goodput[bucket(now)];
            const Policy& policy = policy_of(request);
            policy.record_success();
            if (CircuitBreaker* breaker = policy.breaker()) {
                breaker->record_success(request.permit,
                                        std::chrono::milliseconds(now - attempt.sent), at(now));
            }
        }
        if (queue_.empty()) {
            credit = std::min(credit, 1.0);  // an idle server banks no capacity
        }
    }

    void expire(Millis now) {
        while (!deadlines_.empty() && deadlines_.front().at <= now) {
            const Deadline deadline = deadlines_.front();
            deadlines_.pop_front();
            Request& request = requests_[deadline.request];
            if (request.done || request.attempt != deadline.attempt) {
                continue;
            }
            const Policy& policy = policy_of(request);
            if (CircuitBreaker* breaker = policy.breaker()) {
                breaker->record_error(request.permit, failure_, at(now));
            }
            AttemptContext context;
            context.attempt = request.attempt;
            context.elapsed = std::chrono::milliseconds(now - request.start);
            context.previous_delay = request.previous_delay;
            const Decision decision = decide(policy, failure_, context, random_);
            if (!decision.retry) {
                request.done = true;
                continue;
            }
            request.attempt = decision.next_attempt;
            request.previous_delay = decision.delay;
            pending_.push(Pending{now + millis(decision.delay), deadline.request});
        }
    }

    BrownoutResult result(std::string name) const {
        BrownoutResult out = summarize_brownout(std::move(name), counts_, settings_);
        out.largest_queue = largest_queue_;
        return out;
    }

    const BrownoutSettings& settings_;
    SeededRandomSource random_;
    ErrorDescription failure_;
    std::vector<std::shared_ptr<const Policy>> clients_;
    std::vector<Request> requests_;
    std::deque<Queued> queue_;
    std::deque<Deadline> deadlines_;
    std::priority_queue<Pending, std::vector<Pending>, std::greater<>> pending_;
    BrownoutCounts counts_;
    std::size_t largest_queue_ = 0;
};

// The policy's spec with `overrides` applied.
PolicySpec overridden(PolicySpec spec, const BrownoutOverrides& overrides) {
    if (overrides.retries && spec.max_attempts > 1) {
        spec.max_attempts = 1 + *overrides.retries;
    }
    if (spec.budget && overrides.max_tokens) {
        spec.budget->max_tokens = *overrides.max_tokens;
    }
    if (spec.budget && overrides.token_ratio) {
        spec.budget->token_ratio = *overrides.token_ratio;
    }
    if (overrides.attempt_timeout) {
        spec.attempt_timeout = *overrides.attempt_timeout;
    }
    return spec;
}

// One strategy per handler binding of `policies`, in file order, with `overrides` applied.
std::vector<ClientStrategy> strategies_of(const PolicySet& policies,
                                          const BrownoutOverrides& overrides) {
    std::vector<ClientStrategy> strategies;
    for (const HandlerBinding& binding : policies.bindings()) {
        const Policy& policy = *policies.policy_of(binding);
        BreakerDirectory breakers;
        if (const CircuitBreaker* breaker = policy.breaker()) {
            breakers.emplace(policy.spec().breaker,
                             std::make_shared<CircuitBreaker>(breaker->settings(), TimePoint{}));
        }
        strategies.push_back({binding.key, copies_of(compile_policy(
                                               overridden(policy.spec(), overrides), &breakers))});
    }
    return strategies;
}

}  // namespace

BrownoutResult summarize_brownout(std::string strategy, const BrownoutCounts& counts,
                                  const BrownoutSettings& settings) {
    BrownoutResult out;
    out.strategy = std::move(strategy);
    const Millis sample_ms = sample_millis(settings);
    const Millis brownout_end = brownout_end_millis(settings);
    const double per_second = 1000.0 / static_cast<double>(sample_ms);
    const std::size_t samples = counts.arrivals.size();
    for (std::size_t b = 0; b < samples; ++b) {
        BrownoutSample sample;
        sample.time_s = static_cast<double>(static_cast<Millis>(b) * sample_ms) / 1000.0;
        sample.arrivals = static_cast<double>(counts.arrivals[b]) * per_second;
        sample.offered = static_cast<double>(counts.offered[b]) * per_second;
        sample.goodput = static_cast<double>(counts.goodput[b]) * per_second;
        sample.amplification =
            counts.arrivals[b] == 0
                ? 0.0
                : static_cast<double>(counts.offered[b]) / static_cast<double>(counts.arrivals[b]);
        out.samples.push_back(sample);
        const Millis start = static_cast<Millis>(b) * sample_ms;
        if (start >= millis(settings.brownout_start) && start < brownout_end) {
            out.peak_amplification = std::max(out.peak_amplification, sample.amplification);
        }
    }
    const auto recovered = [&](std::size_t b) {
        return static_cast<double>(counts.goodput[b]) >=
               kRecoveredShare * static_cast<double>(counts.arrivals[b]);
    };
    const std::size_t settle = static_cast<std::size_t>(std::max(1, settings.settle));
    for (std::size_t b = static_cast<std::size_t>(brownout_end / sample_ms); b + settle <= samples;
         ++b) {
        bool stays = true;
        for (std::size_t k = b; k < b + settle; ++k) {
            stays = stays && recovered(k);
        }
        if (stays) {
            const Millis start = std::max(static_cast<Millis>(b) * sample_ms, brownout_end);
            out.recovery_s = static_cast<double>(start - brownout_end) / 1000.0;
            break;
        }
    }
    return out;
}

std::string_view brownout_policy_file() {
    return kBrownoutPolicyFile;
}

std::vector<ClientStrategy> brownout_builtins(const BrownoutOverrides& overrides) {
    const dsl::LoadResult loaded = dsl::load_text(
        brownout_policy_file(), "simulation/policies/brownout.yaml", dsl::Syntax::Yaml);
    if (!loaded.policy_set) {
        // The file is compiled in and checked by tests/simulation/brownout_test.cpp.
        throw std::logic_error("simulation/policies/brownout.yaml does not load: " +
                               dsl::format_diagnostic(loaded.diagnostics.front(), loaded.source));
    }
    return strategies_of(*loaded.policy_set, overrides);
}

std::vector<ClientStrategy> brownout_strategies(const std::string& policy_file,
                                                const BrownoutOverrides& overrides) {
    const dsl::LoadResult loaded = dsl::load_file(policy_file);
    if (!loaded.policy_set) {
        const auto error = std::find_if(
            loaded.diagnostics.begin(), loaded.diagnostics.end(),
            [](const dsl::Diagnostic& d) { return d.severity == dsl::Severity::Error; });
        throw std::invalid_argument(error == loaded.diagnostics.end()
                                        ? policy_file + " does not load"
                                        : dsl::format_diagnostic(*error, loaded.source));
    }
    return strategies_of(*loaded.policy_set, overrides);
}

std::vector<BrownoutResult> run_brownout(const std::vector<ClientStrategy>& strategies,
                                         const BrownoutSettings& settings) {
    std::vector<BrownoutResult> results;
    for (const ClientStrategy& strategy : strategies) {
        results.push_back(Run(strategy, settings).run(strategy.name));
    }
    return results;
}

std::string format_brownout_table(const std::vector<BrownoutResult>& results,
                                  const BrownoutSettings& settings) {
    std::ostringstream out = chart::classic_stream();
    out << "brownout: capacity " << chart::fixed(settings.capacity, 0) << "/s, arrivals "
        << chart::fixed(settings.arrival_fraction * settings.capacity, 0) << "/s, capacity "
        << chart::fixed(settings.brownout_fraction * settings.capacity, 0) << "/s from "
        << chart::fixed(static_cast<double>(millis(settings.brownout_start)) / 1000.0, 1)
        << " s for "
        << chart::fixed(static_cast<double>(millis(settings.brownout_length)) / 1000.0, 1)
        << " s, timeout " << chart::fixed(static_cast<double>(millis(settings.timeout)) / 1000.0, 3)
        << " s, " << settings.clients << " client" << (settings.clients == 1 ? "" : "s") << '\n';
    out << "strategy                recovery            peak amplification  largest queue\n";
    for (const BrownoutResult& result : results) {
        const std::string recovery =
            result.recovery_s ? chart::fixed(*result.recovery_s, 1) + " s" : "never (metastable)";
        out << std::left << std::setw(23) << result.strategy << ' ' << std::setw(20) << recovery
            << std::setw(20) << (chart::fixed(result.peak_amplification, 2) + "x")
            << result.largest_queue << '\n';
    }
    return out.str();
}

std::string format_brownout_csv(const std::vector<BrownoutResult>& results) {
    std::ostringstream out = chart::classic_stream();
    out << "strategy,time_s,arrivals,offered,goodput,amplification\n";
    for (const BrownoutResult& result : results) {
        for (const BrownoutSample& sample : result.samples) {
            out << chart::csv_field(result.strategy) << ',' << chart::fixed(sample.time_s, 3) << ','
                << chart::fixed(sample.arrivals, kCsvDecimals) << ','
                << chart::fixed(sample.offered, kCsvDecimals) << ','
                << chart::fixed(sample.goodput, kCsvDecimals) << ','
                << chart::fixed(sample.amplification, kCsvDecimals) << '\n';
        }
    }
    return out.str();
}

std::string format_brownout_svg(const std::vector<BrownoutResult>& results,
                                const BrownoutSettings& settings) {
    chart::ChartSpec spec;
    spec.title = "A brownout: goodput and offered load against time, per retry strategy";
    spec.heading =
        "Capacity drops to " + chart::fixed(settings.brownout_fraction * 100.0, 0) + "% from " +
        chart::fixed(static_cast<double>(millis(settings.brownout_start)) / 1000.0, 0) + " s for " +
        chart::fixed(static_cast<double>(millis(settings.brownout_length)) / 1000.0, 0) +
        " s; arrivals at " + chart::fixed(settings.arrival_fraction * 100.0, 0) + "% of capacity";
    spec.x_label = "time, s";
    chart::PanelSpec goodput{"Goodput", "requests answered in time /s", chart::Scale::Linear, {}};
    chart::PanelSpec offered{"Offered load", "attempts sent /s", chart::Scale::Linear, {}};
    for (const BrownoutResult& result : results) {
        chart::Series good{result.strategy, {}};
        chart::Series sent{result.strategy, {}};
        for (const BrownoutSample& sample : result.samples) {
            good.points.emplace_back(sample.time_s, sample.goodput);
            sent.points.emplace_back(sample.time_s, sample.offered);
        }
        goodput.series.push_back(std::move(good));
        offered.series.push_back(std::move(sent));
    }
    spec.panels = {std::move(goodput), std::move(offered)};
    return chart::render_svg(spec);
}

}  // namespace rebound::simulation
