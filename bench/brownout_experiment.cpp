// The brownout of docs/simulate.md, for real (docs/performance.md, "Brownout, measured"): client
// threads call bench/brownout_server.py on loopback through rebound::curl's HttpClient, under
// the strategies of `rebound simulate --scenario brownout`: the policies of
// simulation/policies/brownout.yaml, which both load through brownout_builtins, and the server
// loses 60% of its capacity for a while on command.
//
//   rebound_brownout_experiment [--capacity 100] [--strategies none,immediate,...]
//       [--csv FILE] [--svg FILE] [--json FILE] [durations in ms, see --help]
//
// For each strategy, in turn: a fresh server (capacity C, a queue of Q held requests, 503 with
// Retry-After when full) and a fresh copy of the strategy's policy (its own budget and breaker:
// this process is one client). Requests arrive open-loop at 0.8 C, evenly spaced, whatever the
// answers: a dispatcher hands each arrival to a pool of client threads large enough for the
// longest request (an arrival that waits for a thread is counted as late). Each request is one
// HttpClient::call of GET /work with the policy's attempt_timeout as the client timeout. At
// `brownout-start` the driver tells the server to run at 0.4 C for `brownout`; the run lasts
// `after` more.
//
// Counted per sample period: arrivals; attempts sent (attempts started, less those the breaker
// refused: a refused attempt sends nothing), and among them the retries; goodput (requests that
// succeeded). Besides the peak of the samples, the summary gives the amplification over the
// whole brownout (attempts sent / arrivals in its samples) and the retries sent in it, which
// bound the peak of any 1 s window: at most 1 + retries / (arrivals per second). As in the
// simulation, a request whose attempt the breaker refuses fails at once (the run is ended from
// on_failure) instead of waiting for the breaker to half-open, which would hold a client thread
// for seconds. Recovery and peak amplification are computed by the simulation's own
// summarize_brownout, and the CSV and SVG are the simulation's formats. The summary (--json) also
// holds the simulation's figures for the same settings.
//
// The experiment talks only to 127.0.0.1 (the server binds nothing else, and the driver builds
// every URL from the port the server reports), stops every server it starts, and each server
// also stops by itself after the run's length plus a margin. Exit status 0, 1 when the server
// cannot be started or controlled, 2 on bad options.
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <deque>
#include <fstream>
#include <iostream>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "loopback_http_server.hpp"
#include "rebound/curl/http_client.hpp"
#include "rebound/policy.hpp"
#include "rebound/retry_executor.hpp"
#include "rebound/retry_listener.hpp"
#include "rebound/simulation/brownout.hpp"

namespace {

using Clock = std::chrono::steady_clock;
using Millis = std::chrono::milliseconds;
namespace sim = rebound::simulation;

constexpr int kExitOk = 0;
constexpr int kExitServer = 1;
constexpr int kExitUsage = 2;
// An arrival that waits longer than this for a client thread breaks the open loop: counted.
constexpr Millis kLateArrival{20};
// How long a server outlives the run it was started for before it stops by itself.
constexpr int kServerMarginSeconds = 30;

struct Settings {
    double capacity = 100.0;  // requests/s
    int queue = 150;          // requests the server holds at most
    int workers = 8;
    int retry_after_s = 1;
    int timeout_ms = 1000;  // the client timeout of one attempt: every policy's attempt_timeout
    int brownout_start_ms = 4000;
    int brownout_ms = 10000;
    int after_ms = 12000;
    int sample_ms = 1000;
    int settle = 3;
    // Replace the policy file's, when given.
    std::optional<int> retries;
    std::optional<int> max_tokens;
    std::optional<double> token_ratio;
    std::vector<std::string> strategies;  // empty: all of the policy file
    std::string policy_file;              // empty: simulation/policies/brownout.yaml
    std::string server_script = REBOUND_BROWNOUT_SERVER;
    std::string csv_path;
    std::string svg_path;
    std::string json_path;
    std::string simulated_svg_path;

    int run_ms() const { return brownout_start_ms + brownout_ms + after_ms; }
    double arrival_rate() const { return 0.8 * capacity; }
    // Enough threads for the longest request of `policy`: every attempt timing out, every retry
    // waiting for the longer of its backoff (full jitter draws at most the base delay) and
    // Retry-After, plus a second of margin; the arrivals of that time each hold a thread.
    int client_threads(const rebound::Policy& policy) const {
        double longest_s = policy.max_attempts() * timeout_ms / 1000.0 + 1.0;
        for (int retry = 1; retry < policy.max_attempts(); ++retry) {
            longest_s += std::max(std::chrono::duration<double>(policy.base_delay(retry)).count(),
                                  static_cast<double>(retry_after_s));
        }
        return static_cast<int>(std::ceil(arrival_rate() * longest_s)) + 16;
    }
};

sim::BrownoutSettings simulation_settings(const Settings& s) {
    sim::BrownoutSettings out;
    out.capacity = s.capacity;
    out.arrival_fraction = 0.8;
    out.brownout_fraction = 0.4;
    out.brownout_start = Millis(s.brownout_start_ms);
    out.brownout_length = Millis(s.brownout_ms);
    out.run_length = Millis(s.run_ms());
    out.timeout = Millis(s.timeout_ms);
    out.sample = Millis(s.sample_ms);
    out.settle = s.settle;
    out.clients = 1;
    return out;
}

// Counts per sample period from the start of the run; safe from every client thread.
class Timeline : public rebound::RetryListener {
  public:
    Timeline(Millis sample, std::size_t samples)
        : sample_(sample),
          arrivals_(samples),
          started_(samples),
          refused_(samples),
          retries_started_(samples),
          retries_refused_(samples),
          goodput_(samples) {}

    // Sets the start of the first sample. Call it before the first arrival is handed to a client
    // thread (the hand-over publishes it to them).
    void start_at(Clock::time_point start) { start_ = start; }
    void arrival(Clock::time_point at) { count(arrivals_, at); }
    // `attempt`: the refused attempt's number (a retry when above 1).
    void refusal(Clock::time_point at, int attempt) {
        count(refused_, at);
        if (attempt > 1) {
            count(retries_refused_, at);
        }
    }
    void success(Clock::time_point at) { count(goodput_, at); }
    void on_attempt_started(const rebound::RetryEvent& event) noexcept override {
        const Clock::time_point now = Clock::now();
        count(started_, now);
        if (event.attempt > 1) {
            count(retries_started_, now);
        }
    }

    // Retries sent (started, less those the breaker refused) in the samples [first, last).
    std::uint64_t retries_sent(std::size_t first, std::size_t last) const {
        std::uint64_t sent = 0;
        for (std::size_t b = first; b < last && b < retries_started_.size(); ++b) {
            const std::uint64_t started = retries_started_[b].load();
            const std::uint64_t refused = retries_refused_[b].load();
            sent += started > refused ? started - refused : 0;
        }
        return sent;
    }

    sim::BrownoutCounts counts() const {
        sim::BrownoutCounts out;
        for (std::size_t b = 0; b < arrivals_.size(); ++b) {
            const std::uint64_t started = started_[b].load();
            const std::uint64_t refused = refused_[b].load();
            out.arrivals.push_back(arrivals_[b].load());
            out.offered.push_back(started > refused ? started - refused : 0);
            out.goodput.push_back(goodput_[b].load());
        }
        return out;
    }

  private:
    using Counters = std::vector<std::atomic<std::uint64_t>>;

    void count(Counters& counters, Clock::time_point at) noexcept {
        if (at < start_) {
            return;
        }
        const auto b = static_cast<std::size_t>((at - start_) / sample_);
        if (b < counters.size()) {
            counters[b].fetch_add(1, std::memory_order_relaxed);
        }
    }

    Clock::time_point start_{};
    Millis sample_;
    Counters arrivals_;
    Counters started_;
    Counters refused_;
    Counters retries_started_;
    Counters retries_refused_;
    Counters goodput_;
};

// The arrivals handed from the dispatcher to the client threads, oldest first.
class ArrivalQueue {
  public:
    void push(Clock::time_point at) {
        {
            const std::lock_guard lock(mutex_);
            arrivals_.push_back(at);
        }
        ready_.notify_one();
    }
    void close() {
        {
            const std::lock_guard lock(mutex_);
            closed_ = true;
        }
        ready_.notify_all();
    }
    // The next arrival; nullopt once closed and empty.
    std::optional<Clock::time_point> pop() {
        std::unique_lock lock(mutex_);
        ready_.wait(lock, [&] { return closed_ || !arrivals_.empty(); });
        if (arrivals_.empty()) {
            return std::nullopt;
        }
        const Clock::time_point at = arrivals_.front();
        arrivals_.pop_front();
        return at;
    }

  private:
    std::mutex mutex_;
    std::condition_variable ready_;
    std::deque<Clock::time_point> arrivals_;
    bool closed_ = false;
};

rebound::HandlerResolution resolution_of(std::shared_ptr<const rebound::Policy> policy) {
    rebound::HandlerResolution resolution;
    resolution.policy = std::move(policy);
    resolution.idempotent = true;  // GET
    return resolution;
}

rebound::curl::HttpRequest get_request(const std::string& url) {
    rebound::curl::HttpRequest request;
    request.url = url;
    return request;
}

// Ends a request whose attempt the breaker refused (see the top of the file).
struct Refused {};

struct ServerStats {
    std::uint64_t received = 0;
    std::uint64_t served = 0;
    std::uint64_t shed = 0;
    std::uint64_t largest_queue = 0;
    std::uint64_t connections = 0;  // accepted: HttpClient keeps its connections between calls
};

struct StrategyOutcome {
    sim::BrownoutResult result;
    // Over the samples inside the brownout: attempts sent / arrivals, and the retries sent.
    double brownout_amplification = 0.0;
    std::uint64_t brownout_retries = 0;
    nlohmann::json policy;  // what the report says of the strategy
    ServerStats server;
    std::uint64_t late_arrivals = 0;
    int client_threads = 0;
    int server_pid = 0;
};

double milliseconds(rebound::Duration d) {
    return std::chrono::duration<double, std::milli>(d).count();
}

// The settings of `policy` the report shows: attempts, first backoff, budget and breaker.
nlohmann::json describe(const rebound::Policy& policy) {
    nlohmann::json out = {{"policy", policy.name()},
                          {"max_attempts", policy.max_attempts()},
                          {"budget", nullptr},
                          {"breaker", nullptr}};
    if (policy.max_attempts() > 1) {
        out["first_backoff_ms"] = milliseconds(policy.base_delay(1));
    }
    if (const auto& budget = policy.spec().budget) {
        out["budget"] = {{"max_tokens", budget->max_tokens}, {"token_ratio", budget->token_ratio}};
    }
    if (const rebound::CircuitBreaker* breaker = policy.breaker()) {
        const rebound::BreakerSettings& b = breaker->settings();
        nlohmann::json rule;
        if (b.trip == rebound::BreakerTrip::Ratio) {
            rule = {{"failure_ratio", b.failure_ratio},
                    {"minimum_calls", b.minimum_calls},
                    {"window_ms", milliseconds(b.window)}};
        } else {
            rule = {{"consecutive_failures", b.consecutive_failures}};
        }
        rule["open_for_ms"] = milliseconds(b.open_for);
        rule["max_open_for_ms"] = milliseconds(b.effective_max_open_for());
        rule["slow_call_ms"] = b.slow_call ? nlohmann::json(milliseconds(*b.slow_call)) : nullptr;
        out["breaker"] = rule;
    }
    return out;
}

// One GET without retries, for the control paths; throws std::runtime_error unless it gets 200.
class ControlClient {
  public:
    ControlClient()
        : policy_(rebound::PolicyBuilder("control")
                      .max_attempts(1)
                      .attempt_timeout(std::chrono::seconds(5))
                      .build()),
          executor_(rebound::ExecutorOptions{
              .resolver = [this](std::string_view) { return resolution_of(policy_); }}),
          client_(executor_) {}

    std::string get(const std::string& url) const {
        const rebound::curl::CallResult result = client_.call("control", get_request(url));
        if (!result.run.succeeded() || result.response.status != 200) {
            throw std::runtime_error("GET " + url + " failed (HTTP status " +
                                     std::to_string(result.response.status) + ")");
        }
        return result.response.body;
    }

  private:
    std::shared_ptr<const rebound::Policy> policy_;
    rebound::RetryExecutor executor_;
    rebound::curl::HttpClient client_;
};

ServerStats server_stats(const ControlClient& control, const std::string& url) {
    const nlohmann::json stats = nlohmann::json::parse(control.get(url));
    return {stats.at("received").get<std::uint64_t>(), stats.at("served").get<std::uint64_t>(),
            stats.at("shed").get<std::uint64_t>(), stats.at("largest_queue").get<std::uint64_t>(),
            stats.at("connections").get<std::uint64_t>()};
}

StrategyOutcome run_strategy(const sim::ClientStrategy& strategy, const Settings& settings,
                             const ControlClient& control) {
    const sim::BrownoutSettings summary = simulation_settings(settings);
    const rebound::testing::LoopbackHttpServer server(
        settings.server_script,
        {"--capacity", std::to_string(settings.capacity), "--queue", std::to_string(settings.queue),
         "--workers", std::to_string(settings.workers), "--retry-after",
         std::to_string(settings.retry_after_s), "--max-seconds",
         std::to_string(settings.run_ms() / 1000 + kServerMarginSeconds)});
    const std::string work_url = server.url("/work");

    const std::shared_ptr<const rebound::Policy> policy = strategy.make_policy();
    const rebound::Policy& described = *policy;
    const auto samples =
        static_cast<std::size_t>((settings.run_ms() + settings.sample_ms - 1) / settings.sample_ms);
    Timeline timeline(Millis(settings.sample_ms), samples);
    const rebound::RetryExecutor executor(rebound::ExecutorOptions{
        .listeners = {&timeline},
        .resolver = [policy](std::string_view) { return resolution_of(policy); },
    });
    const rebound::curl::HttpClient client(executor);

    StrategyOutcome outcome;
    outcome.client_threads = settings.client_threads(described);
    outcome.policy = describe(described);
    outcome.server_pid = static_cast<int>(server.pid());
    std::atomic<std::uint64_t> late{0};
    ArrivalQueue arrivals;
    std::stop_source stop;
    const auto call = [&] {
        while (const std::optional<Clock::time_point> arrival = arrivals.pop()) {
            if (Clock::now() - *arrival > kLateArrival) {
                late.fetch_add(1, std::memory_order_relaxed);
            }
            const auto refuse = [&](const rebound::FailureEvent& event) {
                if (event.failure.description().category == rebound::ErrorCategory::CircuitOpen) {
                    timeline.refusal(Clock::now(), event.attempt);
                    throw Refused{};
                }
            };
            try {
                const rebound::curl::CallResult result =
                    client.call("brownout", get_request(work_url),
                                {.stop = stop.get_token(), .on_failure = refuse});
                if (result.run.succeeded()) {
                    timeline.success(Clock::now());
                }
            } catch (const Refused&) {
                // failed at once, nothing sent
            }
        }
    };
    std::vector<std::jthread> threads;
    threads.reserve(static_cast<std::size_t>(outcome.client_threads));
    // Declared after the threads, so destroyed (and the threads told to finish) before they are
    // joined, however this function is left.
    const struct Finish {
        std::stop_source& stop;
        ArrivalQueue& arrivals;
        ~Finish() {
            stop.request_stop();  // cancels retry waits; transfers end within the client timeout
            arrivals.close();
        }
    } finish{stop, arrivals};
    for (int t = 0; t < outcome.client_threads; ++t) {
        threads.emplace_back(call);
    }
    const Clock::time_point start = Clock::now() + Millis(100);
    timeline.start_at(start);

    std::optional<std::string> control_failure;
    std::jthread brownout([&] {
        std::this_thread::sleep_until(start + Millis(settings.brownout_start_ms));
        try {
            control.get(server.url("/control/brownout?fraction=0.4&seconds=" +
                                   std::to_string(settings.brownout_ms / 1000.0)));
        } catch (const std::exception& e) {
            control_failure = e.what();
        }
    });
    const Clock::time_point end = start + Millis(settings.run_ms());
    const auto period = std::chrono::duration_cast<Clock::duration>(
        std::chrono::duration<double>(1.0 / settings.arrival_rate()));
    for (Clock::time_point at = start; at < end; at += period) {
        std::this_thread::sleep_until(at);
        timeline.arrival(at);
        arrivals.push(at);
    }
    std::this_thread::sleep_until(end);
    brownout.join();
    stop.request_stop();
    arrivals.close();
    threads.clear();  // joins
    if (control_failure) {
        throw std::runtime_error("could not brown the server out: " + *control_failure);
    }
    outcome.server = server_stats(control, server.url("/stats"));
    outcome.late_arrivals = late.load();
    outcome.result = sim::summarize_brownout(strategy.name, timeline.counts(), summary);
    outcome.result.largest_queue = outcome.server.largest_queue;
    const auto first = static_cast<std::size_t>(settings.brownout_start_ms / settings.sample_ms);
    const auto last = static_cast<std::size_t>(
        (settings.brownout_start_ms + settings.brownout_ms + settings.sample_ms - 1) /
        settings.sample_ms);
    const sim::BrownoutCounts counts = timeline.counts();
    std::uint64_t offered = 0;
    std::uint64_t arrived = 0;
    for (std::size_t b = first; b < last && b < counts.arrivals.size(); ++b) {
        offered += counts.offered[b];
        arrived += counts.arrivals[b];
    }
    outcome.brownout_amplification =
        arrived == 0 ? 0.0 : static_cast<double>(offered) / static_cast<double>(arrived);
    outcome.brownout_retries = timeline.retries_sent(first, last);
    return outcome;
}

void write_file(const std::string& path, const std::string& text) {
    std::ofstream out(path, std::ios::binary);
    out << text;
    if (!out) {
        throw std::runtime_error("cannot write " + path);
    }
}

nlohmann::json recovery_json(const sim::BrownoutResult& result) {
    return result.recovery_s ? nlohmann::json(*result.recovery_s) : nlohmann::json(nullptr);
}

nlohmann::json summary_json(const Settings& s, const std::vector<StrategyOutcome>& outcomes,
                            const std::vector<sim::BrownoutResult>& simulated) {
    nlohmann::json strategies = nlohmann::json::array();
    for (const StrategyOutcome& o : outcomes) {
        strategies.push_back({
            {"strategy", o.result.strategy},
            {"policy", o.policy},
            {"recovery_s", recovery_json(o.result)},
            {"peak_amplification", o.result.peak_amplification},
            {"brownout_amplification", o.brownout_amplification},
            {"brownout_retries", o.brownout_retries},
            {"largest_queue", o.server.largest_queue},
            {"server_received", o.server.received},
            {"server_served", o.server.served},
            {"server_shed", o.server.shed},
            {"server_connections", o.server.connections},
            {"late_arrivals", o.late_arrivals},
            {"client_threads", o.client_threads},
            {"server_pid", o.server_pid},
        });
    }
    nlohmann::json simulated_json = nlohmann::json::array();
    for (const sim::BrownoutResult& r : simulated) {
        simulated_json.push_back({{"strategy", r.strategy},
                                  {"recovery_s", recovery_json(r)},
                                  {"peak_amplification", r.peak_amplification},
                                  {"largest_queue", r.largest_queue}});
    }
    return {
        {"host", "127.0.0.1"},
        {"capacity", s.capacity},
        {"arrival_rate", s.arrival_rate()},
        {"brownout_capacity", 0.4 * s.capacity},
        {"queue", s.queue},
        {"workers", s.workers},
        {"retry_after_s", s.retry_after_s},
        {"timeout_ms", s.timeout_ms},
        {"brownout_start_ms", s.brownout_start_ms},
        {"brownout_ms", s.brownout_ms},
        {"run_ms", s.run_ms()},
        {"sample_ms", s.sample_ms},
        {"settle", s.settle},
        {"policy_file",
         s.policy_file.empty() ? "simulation/policies/brownout.yaml" : s.policy_file},
        {"strategies", strategies},
        {"simulated", simulated_json},
    };
}

}  // namespace

int main(int argc, char** argv) {
    Settings settings;
    CLI::App app(
        "The real brownout experiment: a loopback server browned out under each retry "
        "strategy (docs/performance.md)");
    app.add_option("--capacity", settings.capacity, "server capacity, requests/s")
        ->check(CLI::Range(1.0, 10000.0))
        ->capture_default_str();
    app.add_option("--queue", settings.queue, "requests the server holds before shedding")
        ->check(CLI::Range(1, 100000))
        ->capture_default_str();
    app.add_option("--workers", settings.workers, "server worker threads")
        ->check(CLI::Range(1, 256))
        ->capture_default_str();
    app.add_option("--retry-after", settings.retry_after_s, "the server's Retry-After, s")
        ->check(CLI::Range(1, 60))
        ->capture_default_str();
    app.add_option("--retries", settings.retries,
                   "retries of the retrying strategies (default: the policy file's)")
        ->check(CLI::Range(0, 10));
    app.add_option("--timeout-ms", settings.timeout_ms, "client timeout of one attempt")
        ->check(CLI::Range(10, 60000))
        ->capture_default_str();
    app.add_option("--brownout-start-ms", settings.brownout_start_ms, "when the brownout starts")
        ->check(CLI::Range(0, 600000))
        ->capture_default_str();
    app.add_option("--brownout-ms", settings.brownout_ms, "how long capacity stays at 0.4 C")
        ->check(CLI::Range(1, 600000))
        ->capture_default_str();
    app.add_option("--after-ms", settings.after_ms, "how long the run goes on after it")
        ->check(CLI::Range(1, 600000))
        ->capture_default_str();
    app.add_option("--sample-ms", settings.sample_ms, "sample period")
        ->check(CLI::Range(10, 60000))
        ->capture_default_str();
    app.add_option("--settle", settings.settle, "samples in a row within 5% for recovery")
        ->check(CLI::Range(1, 100))
        ->capture_default_str();
    app.add_option("--max-tokens", settings.max_tokens,
                   "max_tokens of every budget (default: the policy file's)")
        ->check(CLI::Range(1, 100000));
    app.add_option("--token-ratio", settings.token_ratio,
                   "token_ratio of every budget (default: the policy file's)")
        ->check(CLI::Range(0.001, 1000.0));
    app.add_option("--strategies", settings.strategies,
                   "handlers of the policy file (default: all)")
        ->delimiter(',');
    app.add_option("--policy-file", settings.policy_file,
                   "the strategies' policy file, one strategy per handler binding (default: "
                   "simulation/policies/brownout.yaml, as compiled in)")
        ->check(CLI::ExistingFile);
    app.add_option("--server", settings.server_script, "the server script")
        ->check(CLI::ExistingFile)
        ->capture_default_str();
    app.add_option("--csv", settings.csv_path, "write the samples as CSV");
    app.add_option("--svg", settings.svg_path, "write goodput and offered load as SVG");
    app.add_option("--json", settings.json_path, "write the summary as JSON");
    app.add_option("--simulated-svg", settings.simulated_svg_path,
                   "write the simulation's chart for the same settings as SVG");
    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        return app.exit(e) == 0 ? kExitOk : kExitUsage;
    }

    std::vector<sim::ClientStrategy> strategies;
    try {
        const sim::BrownoutOverrides overrides{.retries = settings.retries,
                                               .max_tokens = settings.max_tokens,
                                               .token_ratio = settings.token_ratio,
                                               .attempt_timeout = Millis(settings.timeout_ms)};
        strategies = settings.policy_file.empty()
                         ? sim::brownout_builtins(overrides)
                         : sim::brownout_strategies(settings.policy_file, overrides);
    } catch (const std::invalid_argument& e) {
        std::cerr << "rebound_brownout_experiment: " << e.what() << '\n';
        return kExitUsage;
    }
    if (!settings.strategies.empty()) {
        std::vector<sim::ClientStrategy> chosen;
        for (const std::string& name : settings.strategies) {
            const auto found = std::find_if(strategies.begin(), strategies.end(),
                                            [&](const auto& s) { return s.name == name; });
            if (found == strategies.end()) {
                std::cerr << "rebound_brownout_experiment: --strategies: no strategy '" << name
                          << "' in the policy file\n";
                return kExitUsage;
            }
            chosen.push_back(*found);
        }
        strategies = std::move(chosen);
    }

    std::vector<StrategyOutcome> outcomes;
    try {
        const ControlClient control;
        for (const sim::ClientStrategy& strategy : strategies) {
            std::cerr << "brownout experiment: " << strategy.name << " ("
                      << settings.run_ms() / 1000.0 << " s)\n";
            outcomes.push_back(run_strategy(strategy, settings, control));
        }
    } catch (const std::exception& e) {
        std::cerr << "rebound_brownout_experiment: " << e.what() << '\n';
        return kExitServer;
    }

    std::vector<sim::BrownoutResult> results;
    for (const StrategyOutcome& o : outcomes) {
        results.push_back(o.result);
    }
    const sim::BrownoutSettings summary = simulation_settings(settings);
    // The simulation of docs/simulate.md with the same settings, for comparison (milliseconds of
    // CPU). Its queue has no bound and never sheds, so its backlog drains more slowly than the
    // real server's: it runs at least the simulation's own length, so that a strategy it reports
    // as never recovering is metastable, not cut off by the end of a short run.
    sim::BrownoutSettings modelled = summary;
    modelled.run_length = std::max(summary.run_length, sim::BrownoutSettings{}.run_length);
    const std::vector<sim::BrownoutResult> simulated = sim::run_brownout(strategies, modelled);
    std::cout << sim::format_brownout_table(results, summary);
    for (const StrategyOutcome& o : outcomes) {
        std::cout << o.result.strategy << ": server received " << o.server.received << ", served "
                  << o.server.served << ", shed " << o.server.shed << " on " << o.server.connections
                  << " connections; in the brownout " << o.brownout_retries << " retries sent, "
                  << o.brownout_amplification << "x the arrivals; " << o.late_arrivals
                  << " late arrivals, " << o.client_threads << " client threads\n";
    }
    try {
        if (!settings.csv_path.empty()) {
            write_file(settings.csv_path, sim::format_brownout_csv(results));
        }
        if (!settings.svg_path.empty()) {
            write_file(settings.svg_path, sim::format_brownout_svg(results, summary));
        }
        if (!settings.json_path.empty()) {
            write_file(settings.json_path,
                       summary_json(settings, outcomes, simulated).dump(1) + '\n');
        }
        if (!settings.simulated_svg_path.empty()) {
            write_file(settings.simulated_svg_path, sim::format_brownout_svg(simulated, modelled));
        }
    } catch (const std::exception& e) {
        std::cerr << "rebound_brownout_experiment: " << e.what() << '\n';
        return kExitServer;
    }
    return kExitOk;
}
