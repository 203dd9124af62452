// Single-threaded behaviour of the striped RetryBudget: every operation must give exactly what
// the plain one-counter algorithm of the spec gives, on both sides of the stripe boundaries.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <thread>
#include <vector>

#include "rebound/retry_budget.hpp"

using rebound::BudgetSettings;
using rebound::RetryBudget;

namespace {

// The spec's algorithm on one counter of milli-tokens: the reference every case compares with.
class ReferenceBudget {
  public:
    explicit ReferenceBudget(const BudgetSettings& settings)
        : max_(std::int64_t{settings.max_tokens} * 1000),
          ratio_(std::llround(settings.token_ratio * 1000.0)),
          tokens_(max_) {}
    bool fail() {
        tokens_ = std::max<std::int64_t>(tokens_ - 1000, 0);
        return tokens_ > max_ / 2;
    }
    void succeed() { tokens_ = std::min(tokens_ + ratio_, max_); }
    double tokens() const { return static_cast<double>(tokens_) / 1000.0; }

  private:
    std::int64_t max_;
    std::int64_t ratio_;
    std::int64_t tokens_;
};

// Runs `operations` random steps (failures with probability `failure_share`) on both budgets and
// reports the first step where they differ, or -1.
int first_divergence(const BudgetSettings& settings, int operations, double failure_share,
                     std::uint32_t seed) {
    RetryBudget budget(settings);
    ReferenceBudget reference(settings);
    std::mt19937 random(seed);
    std::bernoulli_distribution is_failure(failure_share);
    for (int step = 0; step < operations; ++step) {
        if (is_failure(random)) {
            if (budget.record_failure_and_check() != reference.fail()) {
                return step;
            }
        } else {
            budget.record_success();
            reference.succeed();
        }
        if (budget.tokens() != reference.tokens()) {
            return step;
        }
    }
    return -1;
}

int allowed_in_drain(RetryBudget& budget, int failures) {
    int allowed = 0;
    for (int i = 0; i < failures; ++i) {
        allowed += budget.record_failure_and_check() ? 1 : 0;
    }
    return allowed;
}

}  // namespace

TEST_CASE("a striped budget drains exactly like the plain algorithm", "[budget]") {
    // 31 tokens: too small for stripes; 32: the smallest striped budget (one token per stripe).
    for (const int max_tokens : {1, 2, 3, 4, 31, 32, 33, 100, 1001, 100000}) {
        CAPTURE(max_tokens);
        RetryBudget budget({max_tokens, 1.0});
        // Allowed while more than max / 2 remain after the take: tokens max-1 down to
        // floor(max / 2) + 1.
        const int expected = max_tokens - 1 - max_tokens / 2;
        CHECK(allowed_in_drain(budget, max_tokens + 5) == expected);
        CHECK(budget.tokens() == 0.0);
        for (int i = 0; i < max_tokens; ++i) {
            budget.record_success();
        }
        CHECK(budget.tokens() == static_cast<double>(max_tokens));
        budget.record_success();  // at the cap: no change
        CHECK(budget.tokens() == static_cast<double>(max_tokens));
        CHECK(allowed_in_drain(budget, max_tokens) == expected);
    }
}

TEST_CASE("a striped budget matches the plain algorithm step by step", "[budget]") {
    // Ratios below, at and above one token, not whole; mixes that hover near the cap, near the
    // threshold and near zero.
    const std::vector<BudgetSettings> settings{
        {32, 1.0},   {32, 0.3},   {33, 1.5},     {100, 1.0},    {100, 0.1},    {100, 7.25},
        {100, 1000}, {1000, 0.5}, {1000, 0.001}, {100000, 1.0}, {100000, 2.5}, {4, 0.5}};
    for (const BudgetSettings& setting : settings) {
        for (const double failure_share : {0.2, 0.5, 0.55, 0.7, 0.95}) {
            CAPTURE(setting.max_tokens, setting.token_ratio, failure_share);
            CHECK(first_divergence(setting, 20000, failure_share, 7) == -1);
        }
    }
}

TEST_CASE("budget stripe boundary: a full stripe falls back to the exact count", "[budget]") {
    // 100 tokens: each stripe holds 50 / 16 = 3.125 tokens of debt, so three failures stay on the
    // thread's stripe and the fourth takes the exact path; the count is exact across the switch.
    RetryBudget budget({100, 1.0});
    for (int i = 1; i <= 6; ++i) {
        CHECK(budget.record_failure_and_check());
        CHECK(budget.tokens() == 100.0 - i);
    }
    // A success smaller than the stripe's debt, then one larger than what is left of it.
    budget.record_success();
    CHECK(budget.tokens() == 95.0);
    RetryBudget fractional({100, 2.5});
    for (int i = 0; i < 3; ++i) {
        (void)fractional.record_failure_and_check();
    }
    fractional.record_success();  // 97 + 2.5: the debt of 3 covers it
    CHECK(fractional.tokens() == 99.5);
    fractional.record_success();  // debt 0.5 < 2.5: exact path, capped at 100
    CHECK(fractional.tokens() == 100.0);
    fractional.record_success();
    CHECK(fractional.tokens() == 100.0);
}

TEST_CASE("budget debt left on other threads' stripes keeps the count exact", "[budget]") {
    // Threads run one after another (each joined before the next starts): every new thread takes
    // another stripe, so debts spread over stripes, and the result must still be the plain
    // algorithm's, decision by decision.
    const BudgetSettings settings{200, 0.7};
    RetryBudget budget(settings);
    ReferenceBudget reference(settings);
    std::vector<int> mismatches;
    for (int round = 0; round < 40; ++round) {
        std::thread worker([&, round] {
            for (int i = 0; i < 30; ++i) {
                const bool fail = (i + round) % 3 != 0 || round % 5 == 0;
                if (fail) {
                    if (budget.record_failure_and_check() != reference.fail()) {
                        mismatches.push_back(round * 100 + i);
                    }
                } else {
                    budget.record_success();
                    reference.succeed();
                }
                if (budget.tokens() != reference.tokens()) {
                    mismatches.push_back(round * 100 + i);
                }
            }
        });
        worker.join();
    }
    CHECK(mismatches.empty());
}

TEST_CASE("a budget started below full behaves as the single-threaded rule from there",
          "[budget]") {
    for (const double initial : {600.0, 950.0, 0.0, 5000.0}) {
        INFO("initial " << initial);
        rebound::RetryBudget budget({1000, 1.0}, initial);
        const double start = std::min(initial, 1000.0);
        CHECK(budget.tokens() == Approx(start));
        int allowed = 0;
        for (int i = 0; i < 1200; ++i) {
            allowed += budget.record_failure_and_check() ? 1 : 0;
        }
        CHECK(allowed == static_cast<int>(std::max(start - 501.0, 0.0)));
        CHECK(budget.tokens() == Approx(0.0));
        for (int i = 0; i < 2000; ++i) {
            budget.record_success();
        }
        CHECK(budget.tokens() == Approx(1000.0));
    }
}
