// Hedging, measured (docs/hedging.md, "Measured"; docs/performance.md, "Hedging, measured"): calls
// to bench/brownout_server.py --latency on loopback through rebound::curl's AsyncHttpClient on
// one Asio thread, under three strategies in turn: no hedge, a hedge after the learned p95, and a
// hedge after a fixed delay.
//
//   rebound_hedging_experiment [--rate 1000] [--requests 10000] [--warmup 2000]
//       [--fixed-ms 10] [--quantile 0.95] [--max-extra-load 0.05] [--burst 10]
//       [--slow-seconds 4] [--json FILE]   (see --help)
//
// The server answers each request 1 ms after it read it, or 50 ms for 2% of them (drawn per
// request), and on command makes every request take 50 ms (a dependency slow for everyone). For
// each strategy: a fresh client, executor and latency recorders, and a policy of two attempts
// (the first and one hedge), transient failures retried, the hedge's max_extra_load and burst as
// given. Requests arrive open-loop at `rate`, evenly spaced, whatever the answers; each is one
// AsyncHttpClient::call_hedged of GET /work and its latency is from its start to its result.
//
// Phases, one after the other: `warmup` requests (not counted: they fill the learned delay's
// window and the connection cache); `requests` requests whose latency percentiles and hedges are
// the strategy's figures (and the server's count of requests received, so that a hedge the
// client started counts as the server saw it); then the slowdown: 2 s as before, `slow-seconds`
// with every request slow, 3 s after, counted per 250 ms sample (requests started, hedges started,
// the largest hedge delay a run read). Over the slowdown, hedges started must stay within
// max_extra_load of the requests plus burst.
//
// The experiment talks only to 127.0.0.1, and its server also stops by itself after the run's
// length plus a margin. Exit status 0, 1 when the server cannot be started or a call fails, 2 on
// bad options. bench/hedging_experiment.py runs it several times and reports the medians.
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <asio/co_spawn.hpp>
#include <asio/detached.hpp>
#include <asio/io_context.hpp>
#include <asio/steady_timer.hpp>
#include <asio/this_coro.hpp>
#include <asio/use_awaitable.hpp>
#include <chrono>
#include <cmath>
#include <fstream>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "loopback_http_server.hpp"
#include "rebound/asio/retry_executor.hpp"
#include "rebound/curl/async_http_client.hpp"
#include "rebound/handler_latencies.hpp"
#include "rebound/policy.hpp"
#include "rebound/retry_listener.hpp"

namespace {

using Clock = std::chrono::steady_clock;
using Millis = std::chrono::milliseconds;
using namespace std::chrono_literals;

constexpr int kExitOk = 0;
constexpr int kExitFailed = 1;
constexpr int kExitUsage = 2;
constexpr Millis kSample{250};
constexpr Millis kBeforeSlow{2000};
constexpr Millis kAfterSlow{3000};
constexpr const char* kHandler = "catalog.get";

struct Settings {
    double rate = 1000.0;  // requests/s
    int requests = 10000;
    int warmup = 2000;
    int fixed_ms = 10;
    double quantile = 0.95;
    double max_extra_load = 0.05;
    int burst = 10;
    int slow_seconds = 4;
    int seed = 1;
    std::string json_path;
    std::string server_script = REBOUND_BROWNOUT_SERVER;

    Clock::duration interval() const {
        return std::chrono::duration_cast<Clock::duration>(
            std::chrono::duration<double>(1.0 / rate));
    }
    Millis slowdown_length() const {
        return kBeforeSlow + Millis(slow_seconds * 1000) + kAfterSlow;
    }
};

struct Strategy {
    std::string name;
    std::optional<rebound::HedgeSettings> hedge;
};

std::vector<Strategy> strategies(const Settings& s) {
    rebound::HedgeSettings learned;
    learned.learned = rebound::LearnedHedgeDelay{s.quantile, Millis(2), Millis(250)};
    rebound::HedgeSettings fixed;
    fixed.fixed_delay = Millis(s.fixed_ms);
    for (rebound::HedgeSettings* hedge : {&learned, &fixed}) {
        hedge->max_extra_load = s.max_extra_load;
        hedge->burst = s.burst;
    }
    const int percent = static_cast<int>(std::lround(s.quantile * 100));
    return {{"none", std::nullopt},
            {"hedge:p" + std::to_string(percent), learned},
            {"hedge:" + std::to_string(s.fixed_ms) + "ms", fixed}};
}

std::shared_ptr<const rebound::Policy> policy_of(const Strategy& strategy) {
    rebound::PolicySpec spec;
    spec.name = "catalog-read";
    spec.max_attempts = 2;
    spec.retry_on = {rebound::Matcher::transient()};
    spec.hedge = strategy.hedge;
    rebound::PolicyResult result = rebound::Policy::create(spec);
    if (!result) {
        throw std::runtime_error("the policy of strategy " + strategy.name + " does not compile");
    }
    return std::move(result.policy);
}

// Attempts started per sample of the slowdown, by kind; on the io_context's one thread.
class Timeline : public rebound::RetryListener {
  public:
    void start(Clock::time_point at, std::size_t samples) {
        start_ = at;
        requests.assign(samples, 0);
        hedges.assign(samples, 0);
        delay_ms.assign(samples, 0.0);
        active_ = true;
    }
    void stop() { active_ = false; }
    void on_attempt_started(const rebound::RetryEvent& event) noexcept override {
        if (std::optional<std::size_t> b = sample(Clock::now())) {
            ++(event.attempt_kind == rebound::AttemptKind::Hedge ? hedges : requests)[*b];
        }
    }
    // The hedge delay a run started at `at` read.
    void delay(Clock::time_point at, std::optional<rebound::Duration> delay) {
        if (std::optional<std::size_t> b = sample(at); b && delay) {
            delay_ms[*b] =
                std::max(delay_ms[*b], std::chrono::duration<double, std::milli>(*delay).count());
        }
    }

    std::vector<long> requests;
    std::vector<long> hedges;
    std::vector<double> delay_ms;

  private:
    std::optional<std::size_t> sample(Clock::time_point at) const {
        if (!active_ || at < start_) {
            return std::nullopt;
        }
        const auto b = static_cast<std::size_t>((at - start_) / kSample);
        return b < requests.size() ? std::optional<std::size_t>(b) : std::nullopt;
    }

    Clock::time_point start_{};
    bool active_ = false;
};

// What one phase's calls gave.
struct Calls {
    std::vector<double> latency_ms;  // of the counted calls, in the order they ended
    long hedges = 0;
    long failed = 0;
};

struct Client {
    Client(asio::io_context& io, const Settings& settings, const Strategy& strategy,
           const rebound::testing::LoopbackHttpServer& server)
        : policy(policy_of(strategy)),
          executor({.listeners = {&timeline},
                    .resolver =
                        [this](std::string_view) {
                            rebound::HandlerResolution r;
                            r.policy = policy;
                            r.via = rebound::ResolvedVia::Code;
                            r.idempotent = true;
                            return r;
                        },
                    .hedge_latencies = &latencies}),
          http(io.get_executor()),
          settings_(settings) {
        work.url = server.url("/work");
    }

    // Sends `count` requests open-loop from now, counting them in `calls` when given.
    asio::awaitable<void> send(int count, Calls* calls) {
        asio::steady_timer timer(co_await asio::this_coro::executor);
        const Clock::time_point start = Clock::now();
        for (int i = 0; i < count; ++i) {
            timer.expires_at(start + i * settings_.interval());
            co_await timer.async_wait(asio::use_awaitable);
            asio::co_spawn(timer.get_executor(), one(calls), asio::detached);
        }
    }

    asio::awaitable<void> one(Calls* calls) {
        const Clock::time_point start = Clock::now();
        const rebound::curl::HedgedCallResult r =
            co_await http.call_hedged(executor, kHandler, work);
        const double ms = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
        timeline.delay(start, r.hedge.delay);
        if (calls != nullptr) {
            calls->latency_ms.push_back(ms);
            calls->hedges += r.hedge.hedges;
            calls->failed += r.run.succeeded() && r.response.status == 200 ? 0 : 1;
        }
    }

    // A control request (or /stats) outside any run; its body.
    asio::awaitable<std::string> get(const rebound::testing::LoopbackHttpServer& server,
                                     const std::string& path) {
        rebound::curl::HttpRequest request;
        request.url = server.url(path);
        rebound::curl::AttemptOutcome outcome = co_await http.perform(request, Millis(2000));
        if (outcome.response.status != 200) {
            throw std::runtime_error("GET " + path + " failed");
        }
        co_return outcome.response.body;
    }

    std::shared_ptr<const rebound::Policy> policy;
    rebound::HandlerLatencies latencies;
    Timeline timeline;
    rebound::asio::RetryExecutor executor;
    rebound::curl::AsyncHttpClient http;
    rebound::curl::HttpRequest work;

  private:
    const Settings& settings_;
};

double percentile(std::vector<double> sorted_copy, double q) {
    std::sort(sorted_copy.begin(), sorted_copy.end());
    if (sorted_copy.empty()) {
        return 0.0;
    }
    const auto rank =
        static_cast<std::size_t>(std::ceil(q * static_cast<double>(sorted_copy.size())));
    return sorted_copy[std::min(sorted_copy.size(), std::max<std::size_t>(rank, 1)) - 1];
}

long received(const std::string& stats) {
    return nlohmann::json::parse(stats).at("received").get<long>();
}

// Runs one strategy's three phases; its figures.
nlohmann::json run_strategy(const Settings& s, const Strategy& strategy,
                            const rebound::testing::LoopbackHttpServer& server) {
    asio::io_context io;
    Client client(io, s, strategy, server);
    Calls counted;
    long server_received = 0;
    const std::size_t samples = static_cast<std::size_t>(s.slowdown_length() / kSample);
    const int slowdown_requests = static_cast<int>(
        std::lround(s.rate * std::chrono::duration<double>(s.slowdown_length()).count()));
    asio::co_spawn(
        io,
        [&]() -> asio::awaitable<void> {
            co_await client.send(s.warmup, nullptr);
            const long before = received(co_await client.get(server, "/stats"));
            co_await client.send(s.requests, &counted);
            // The last calls end within the slow answer's time; then the server's count.
            asio::steady_timer drain(io, 200ms);
            co_await drain.async_wait(asio::use_awaitable);
            server_received = received(co_await client.get(server, "/stats")) - before;
            client.timeline.start(Clock::now(), samples);
            asio::steady_timer slow(io, kBeforeSlow);
            slow.async_wait([&](std::error_code) {
                asio::co_spawn(
                    io,
                    client.get(server, "/control/slow?seconds=" + std::to_string(s.slow_seconds)),
                    asio::detached);
            });
            co_await client.send(slowdown_requests, nullptr);
        },
        [](std::exception_ptr error) {
            if (error) {
                std::rethrow_exception(error);
            }
        });
    io.run();
    client.timeline.stop();
    const Timeline& t = client.timeline;
    // The samples of the slowdown proper.
    const std::size_t first = static_cast<std::size_t>(kBeforeSlow / kSample);
    const std::size_t last =
        first + static_cast<std::size_t>(Millis(s.slow_seconds * 1000) / kSample);
    long slow_requests = 0;
    long slow_hedges = 0;
    for (std::size_t b = first; b < last && b < samples; ++b) {
        slow_requests += t.requests[b];
        slow_hedges += t.hedges[b];
    }
    const auto n = static_cast<double>(counted.latency_ms.size());
    return {
        {"strategy", strategy.name},
        {"requests", counted.latency_ms.size()},
        {"failed", counted.failed},
        {"p50_ms", percentile(counted.latency_ms, 0.50)},
        {"p90_ms", percentile(counted.latency_ms, 0.90)},
        {"p99_ms", percentile(counted.latency_ms, 0.99)},
        {"p999_ms", percentile(counted.latency_ms, 0.999)},
        {"max_ms", percentile(counted.latency_ms, 1.0)},
        {"hedges", counted.hedges},
        {"extra", static_cast<double>(counted.hedges) / n},
        {"server_extra", static_cast<double>(server_received) / n - 1.0},
        {"slowdown",
         {{"requests", slow_requests},
          {"hedges", slow_hedges},
          {"bound", s.max_extra_load * static_cast<double>(slow_requests) + s.burst},
          {"sample_ms", kSample.count()},
          {"slow_from_ms", kBeforeSlow.count()},
          {"slow_until_ms", kBeforeSlow.count() + s.slow_seconds * 1000},
          {"requests_per_sample", t.requests},
          {"hedges_per_sample", t.hedges},
          {"delay_ms_per_sample", t.delay_ms}}},
    };
}

}  // namespace

int main(int argc, char** argv) {
    Settings s;
    CLI::App app{"Hedging against bench/brownout_server.py --latency (docs/hedging.md)"};
    app.add_option("--rate", s.rate, "requests per second, open loop")->check(CLI::PositiveNumber);
    app.add_option("--requests", s.requests, "counted requests per strategy")
        ->check(CLI::PositiveNumber);
    app.add_option("--warmup", s.warmup, "requests before the counted ones")
        ->check(CLI::NonNegativeNumber);
    app.add_option("--fixed-ms", s.fixed_ms, "the fixed strategy's delay")
        ->check(CLI::PositiveNumber);
    app.add_option("--quantile", s.quantile, "the learned strategy's quantile")
        ->check(CLI::Range(0.01, 0.99));
    app.add_option("--max-extra-load", s.max_extra_load)->check(CLI::Range(0.001, 1.0));
    app.add_option("--burst", s.burst)->check(CLI::Range(1, 1000));
    app.add_option("--slow-seconds", s.slow_seconds, "length of the slowdown")
        ->check(CLI::Range(1, 60));
    app.add_option("--seed", s.seed, "the server's draws");
    app.add_option("--json", s.json_path, "write the figures as JSON");
    app.add_option("--server", s.server_script, "the server script");
    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        return app.exit(e) == 0 ? kExitOk : kExitUsage;
    }
    const std::vector<Strategy> all = strategies(s);
    const double run_s = static_cast<double>(all.size()) *
                         ((s.warmup + s.requests) / s.rate +
                          std::chrono::duration<double>(s.slowdown_length()).count() + 1.0);
    nlohmann::json out = {{"settings",
                           {{"rate", s.rate},
                            {"requests", s.requests},
                            {"warmup", s.warmup},
                            {"fast_ms", 1},
                            {"slow_ms", 50},
                            {"slow_fraction", 0.02},
                            {"max_extra_load", s.max_extra_load},
                            {"burst", s.burst},
                            {"seed", s.seed}}},
                          {"strategies", nlohmann::json::array()}};
    try {
        const rebound::testing::LoopbackHttpServer server(
            s.server_script, {"--latency", "--fast-ms", "1", "--slow-ms", "50", "--slow-fraction",
                              "0.02", "--seed", std::to_string(s.seed), "--max-seconds",
                              std::to_string(static_cast<int>(run_s) + 60)});
        std::cout << "strategy      p50_ms  p90_ms  p99_ms p99.9_ms  extra  server_extra  "
                     "slowdown_hedges/bound\n";
        for (const Strategy& strategy : all) {
            nlohmann::json figures = run_strategy(s, strategy, server);
            std::cout << strategy.name << '\t' << figures["p50_ms"] << '\t' << figures["p90_ms"]
                      << '\t' << figures["p99_ms"] << '\t' << figures["p999_ms"] << '\t'
                      << figures["extra"] << '\t' << figures["server_extra"] << '\t'
                      << figures["slowdown"]["hedges"] << '/' << figures["slowdown"]["bound"]
                      << std::endl;
            if (figures["failed"].get<long>() != 0) {
                std::cerr << strategy.name << ": " << figures["failed"] << " calls failed\n";
                return kExitFailed;
            }
            out["strategies"].push_back(std::move(figures));
        }
    } catch (const std::exception& e) {
        std::cerr << "rebound_hedging_experiment: " << e.what() << '\n';
        return kExitFailed;
    }
    if (!s.json_path.empty()) {
        std::ofstream(s.json_path) << out.dump(1) << '\n';
    }
    return kExitOk;
}
