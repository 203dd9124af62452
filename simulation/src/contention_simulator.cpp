#include "rebound/simulation/contention_simulator.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <optional>
#include <stdexcept>

namespace rebound::simulation {
namespace {

// |Normal(mean, deviation)| rounded to whole microseconds. Marsaglia's polar method on the
// engine's random source (not std::normal_distribution, whose algorithm differs between standard
// libraries), so a seed gives the same runs everywhere. Each accepted pair of uniform draws
// yields two normal values.
class NetworkDelays {
  public:
    NetworkDelays(const NetworkModel& model, RandomSource& random) noexcept
        : mean_(static_cast<double>(model.mean.count())),
          deviation_(static_cast<double>(model.deviation.count())),
          random_(random) {}

    Duration next() noexcept {
        const double value = std::abs(mean_ + deviation_ * standard_normal());
        // `value` is not negative, so +0.5 rounds to the nearest.
        // NOLINTNEXTLINE(bugprone-incorrect-roundings)
        return Duration{static_cast<Duration::rep>(value + 0.5)};
    }

  private:
    double standard_normal() noexcept {
        if (has_spare_) {
            has_spare_ = false;
            return spare_;
        }
        double u = 0.0;
        double v = 0.0;
        double square = 0.0;
        do {
            u = 2.0 * next_unit(random_) - 1.0;
            v = 2.0 * next_unit(random_) - 1.0;
            square = u * u + v * v;
        } while (square >= 1.0 || square == 0.0);
        const double scale = std::sqrt(-2.0 * std::log(square) / square);
        spare_ = v * scale;
        has_spare_ = true;
        return u * scale;
    }

    double mean_;
    double deviation_;
    RandomSource& random_;
    double spare_ = 0.0;
    bool has_spare_ = false;
};

// What a client's one message in flight is. Every client has exactly one message in flight
// until it finishes, so the message's content lives with the client and the queue holds only
// (arrival, client), which is also a unique, deterministic order.
enum class MessageKind : std::uint8_t { ReadRequest, ReadResponse, WriteRequest, WriteResponse };

struct Arrival {
    Duration::rep time = 0;  // microseconds
    std::uint32_t client = 0;
};

// Orders the heap so that the earliest arrival (then the lowest client) is on top.
struct ArrivesLater {
    bool operator()(const Arrival& a, const Arrival& b) const noexcept {
        if (a.time != b.time) {
            return a.time > b.time;
        }
        return a.client > b.client;
    }
};

// A binary min-heap of arrivals over std::push_heap and std::pop_heap, plus the operation that
// std::priority_queue lacks and this simulation performs on almost every event: replace the top
// (the client whose message just arrived sends its next one) with a single sift-down instead of
// a pop and a push.
class ArrivalQueue {
  public:
    explicit ArrivalQueue(std::size_t capacity) { heap_.reserve(capacity); }

    bool empty() const noexcept { return heap_.empty(); }
    const Arrival& top() const noexcept { return heap_.front(); }

    void push(const Arrival& arrival) {
        heap_.push_back(arrival);
        std::push_heap(heap_.begin(), heap_.end(), ArrivesLater{});
    }

    void pop() noexcept {
        std::pop_heap(heap_.begin(), heap_.end(), ArrivesLater{});
        heap_.pop_back();
    }

    // Precondition: not empty.
    void replace_top(const Arrival& arrival) noexcept {
        const ArrivesLater later;
        const std::size_t size = heap_.size();
        std::size_t hole = 0;
        for (std::size_t child = 1; child < size; child = 2 * hole + 1) {
            if (child + 1 < size && later(heap_[child], heap_[child + 1])) {
                ++child;
            }
            if (!later(arrival, heap_[child])) {
                break;
            }
            heap_[hole] = heap_[child];
            hole = child;
        }
        heap_[hole] = arrival;
    }

  private:
    std::vector<Arrival> heap_;
};

struct ClientState {
    MessageKind in_flight = MessageKind::ReadRequest;
    // Read response and write request: the version read. Write response: whether it succeeded.
    std::int64_t payload = 0;
    int retries = 0;
    Duration previous_delay{0};
};

class Simulation {
  public:
    Simulation(const Strategy& strategy, int clients, const NetworkModel& network,
               RandomSource& random)
        : strategy_(strategy),
          network_(network, random),
          random_(random),
          states_(static_cast<std::size_t>(clients)),
          queue_(static_cast<std::size_t>(clients)) {
        outcome_.clients.resize(static_cast<std::size_t>(clients));
    }

    RunOutcome run() {
        for (std::uint32_t client = 0; client < states_.size(); ++client) {
            queue_.push(
                Arrival{send(Duration{0}, client, MessageKind::ReadRequest, 0).count(), client});
        }
        while (!queue_.empty()) {
            const Arrival arrival = queue_.top();
            const Duration now{arrival.time};
            outcome_.completion_time = now;
            if (const auto next = deliver(now, arrival.client)) {
                queue_.replace_top(Arrival{next->count(), arrival.client});
            } else {
                queue_.pop();
            }
        }
        return std::move(outcome_);
    }

  private:
    // Makes `kind` the client's message in flight, sent at `now`; returns its arrival time.
    Duration send(Duration now, std::uint32_t client, MessageKind kind, std::int64_t payload) {
        ClientState& state = states_[client];
        state.in_flight = kind;
        state.payload = payload;
        return now + network_.next();
    }

    // Handles the client's message arriving at `now`; returns the arrival time of the client's
    // next message, or nullopt when the client has finished.
    std::optional<Duration> deliver(Duration now, std::uint32_t client) {
        const ClientState& state = states_[client];
        switch (state.in_flight) {
            case MessageKind::ReadRequest:
                return send(now, client, MessageKind::ReadResponse, version_);
            case MessageKind::ReadResponse:
                return send(now, client, MessageKind::WriteRequest, state.payload);
            case MessageKind::WriteRequest:
                return handle_write(now, client);
            case MessageKind::WriteResponse:
                break;
        }
        return handle_write_response(now, client);
    }

    Duration handle_write(Duration now, std::uint32_t client) {
        ++outcome_.write_calls;
        ++outcome_.clients[client].write_calls;
        const bool success = states_[client].payload == version_;
        if (success) {
            ++version_;
            outcome_.final_version = version_;
        }
        return send(now, client, MessageKind::WriteResponse, success ? 1 : 0);
    }

    std::optional<Duration> handle_write_response(Duration now, std::uint32_t client) {
        ClientState& state = states_[client];
        if (state.payload == 1) {
            ++outcome_.clients[client].successful_writes;
            outcome_.clients[client].finish_time = now;
            return std::nullopt;
        }
        // As the simulator: the backoff delays the message that starts the next read, and the
        // network delay is drawn before the backoff delay.
        ++state.retries;
        const Duration travel = network_.next();
        const Duration delay =
            strategy_.delay_before_retry(state.retries, state.previous_delay, random_);
        state.previous_delay = delay;
        state.in_flight = MessageKind::ReadRequest;
        return saturating_add(now + travel, delay);
    }

    const Strategy& strategy_;
    NetworkDelays network_;
    RandomSource& random_;
    std::vector<ClientState> states_;
    ArrivalQueue queue_;
    RunOutcome outcome_;
    std::int64_t version_ = 0;
};

}  // namespace

RunOutcome simulate_contention(const Strategy& strategy, int clients, const NetworkModel& network,
                               RandomSource& random) {
    if (clients < 1) {
        throw std::invalid_argument("the number of clients must be at least 1");
    }
    if (network.mean < Duration::zero() || network.deviation < Duration::zero()) {
        throw std::invalid_argument("the network delay's mean and deviation must not be negative");
    }
    return Simulation(strategy, clients, network, random).run();
}

}  // namespace rebound::simulation
