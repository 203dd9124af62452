// Contention simulator: the optimistic-concurrency experiment of "Exponential Backoff And Jitter"
// (AWS Architecture Blog, 2015), modelled as in its simulator
// aws-samples/aws-arch-backoff-simulator.
//
// One server holds one versioned row. Every client starts at time 0, reads the row's version,
// then writes the row back conditionally on that version; a write succeeds only if no other
// write succeeded in between. A client whose write fails backs off and starts again with a new
// read; a client stops after its one successful write. Every message (read request, read
// response, write request, write response) takes |Normal(mean, deviation)| on the network. The
// backoff delay is added to the message that starts the client's next read.
//
// Counted as the simulator counts: `write_calls` is the number of write requests the server
// handled (reads are not counted); `completion_time` is the time of the last event, the arrival
// of the last successful write's response.
//
// A discrete-event simulation: a binary-heap priority queue of message arrivals ordered by time
// (ties broken by client index, so a run is a pure function of its random source).
#pragma once

#include <chrono>
#include <cstdint>
#include <vector>

#include "rebound/duration.hpp"
#include "rebound/random_source.hpp"
#include "rebound/simulation/strategy.hpp"

namespace rebound::simulation {

// The network's delay distribution: |Normal(mean, deviation)|, in the published model 10 ms and
// 2 ms.
struct NetworkModel {
    Duration mean = std::chrono::milliseconds(10);
    Duration deviation = std::chrono::milliseconds(2);
};

// What one client did in a run.
struct ClientOutcome {
    std::int64_t write_calls = 0;        // write requests it sent that reached the server
    std::int64_t successful_writes = 0;  // 1 once the run is over
    Duration finish_time{0};             // arrival of its successful write's response
};

// The result of one run.
struct RunOutcome {
    std::int64_t write_calls = 0;    // every write request the server handled
    std::int64_t final_version = 0;  // the row's version at the end: one per successful write
    Duration completion_time{0};     // time of the last event
    std::vector<ClientOutcome> clients;
};

// Runs the experiment once with `clients` clients following `strategy`; every draw (network and
// jitter) comes from `random`, so the same source state gives the same outcome.
// Throws std::invalid_argument when clients < 1 or the network model has a negative field.
// Terminates for every strategy: a write fails only after another client's write succeeded, so
// each client makes at most `clients` write calls.
RunOutcome simulate_contention(const Strategy& strategy, int clients, const NetworkModel& network,
                               RandomSource& random);

}  // namespace rebound::simulation
