// ScriptedRandomSource: a RandomSource that returns a scripted sequence of fractions in [0, 1),
// so tests can state exact jittered delays. uniform_between(low, high) maps fraction u to
// low + floor(u * (high - low + 1)).
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <vector>

#include "rebound/random_source.hpp"

namespace rebound::testing {

class ScriptedRandomSource final : public RandomSource {
  public:
    ScriptedRandomSource(std::initializer_list<double> fractions) : fractions_(fractions) {}

    std::uint64_t next() noexcept override {
        const double u = fractions_.empty() ? 0.0 : fractions_[draws_ % fractions_.size()];
        ++draws_;
        // u * 2^64, kept below 2^64.
        const double scaled = std::ldexp(u, 64);
        return scaled >= 18446744073709549568.0 ? UINT64_MAX : static_cast<std::uint64_t>(scaled);
    }

    std::size_t draws() const noexcept { return draws_; }

  private:
    std::vector<double> fractions_;
    std::size_t draws_ = 0;
};

}  // namespace rebound::testing
