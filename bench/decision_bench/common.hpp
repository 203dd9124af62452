// The decision benchmark (main.cpp) is one program built from these headers, which only main.cpp
// includes. Their contents have internal linkage, as they had in a single source file: the
// compiler sees and inlines the hand-written baseline exactly as before the split.
#pragma once

#include <benchmark/benchmark.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <new>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "rebound/decision.hpp"
#include "rebound/policy.hpp"
#include "rebound/random_source.hpp"

namespace decision_bench {
namespace {

using namespace std::chrono_literals;
using rebound::AttemptContext;
using rebound::Decision;
using rebound::DecisionReason;
using rebound::Duration;
using rebound::ErrorCategory;
using rebound::ErrorDescription;
using rebound::JitterType;
using rebound::SeededRandomSource;
using rebound::Vendor;

constexpr std::uint64_t kSeed = 0x5eed'2024'0b0c'ca5eULL;
constexpr int kMaxAttempts = 5;
constexpr int kAttemptCycle = kMaxAttempts - 1;  // attempts 1..4 all retry
constexpr int kVerifyIterations = 4000;

}  // namespace
}  // namespace decision_bench
