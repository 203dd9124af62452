// RandomSource: where jitter draws come from.
//
// The engine never owns randomness: callers inject a source so that a fixed seed reproduces a
// schedule exactly. Two implementations ship:
//   - SeededRandomSource: xoshiro256++ from a 64-bit seed; deterministic, one per thread or
//     guarded by the caller (it is not thread-safe).
//   - ThreadLocalRandomSource: stateless handle to a per-thread xoshiro256++ generator seeded
//     from the operating system on its first use in each thread; safe to share between threads.
#pragma once

#include <cstdint>

namespace rebound {

class RandomSource {
  public:
    virtual ~RandomSource() = default;
    // 64 uniformly distributed bits. Must not throw or allocate.
    virtual std::uint64_t next() noexcept = 0;
};

// A uniform double in [0, 1) from the top 53 bits of one draw.
inline double next_unit(RandomSource& source) noexcept {
    return static_cast<double>(source.next() >> 11) * 0x1.0p-53;
}

// A uniform integer in [0, count) from one draw (count >= 1). Lemire's multiply-shift maps 64
// random bits onto the range without division (the 128-bit product is a GCC and Clang
// extension). Inline: it runs on every jittered decision.
inline std::uint64_t uniform_below(RandomSource& source, std::uint64_t count) noexcept {
    __extension__ using Uint128 = unsigned __int128;
    return static_cast<std::uint64_t>((static_cast<Uint128>(source.next()) * count) >> 64);
}

// A uniform integer in [low, high] (inclusive); returns `low` without a draw when high <= low.
inline std::int64_t uniform_between(RandomSource& source, std::int64_t low,
                                    std::int64_t high) noexcept {
    if (high <= low) {
        return low;
    }
    const std::uint64_t widest = static_cast<std::uint64_t>(high) - static_cast<std::uint64_t>(low);
    // All 2^64 values: every draw is an offset, which is what the multiply-shift by 2^64 gives.
    const std::uint64_t offset =
        widest == UINT64_MAX ? source.next() : uniform_below(source, widest + 1);
    return static_cast<std::int64_t>(static_cast<std::uint64_t>(low) + offset);
}

// xoshiro256++ (Blackman and Vigna), state expanded from the seed with SplitMix64.
class SeededRandomSource final : public RandomSource {
  public:
    explicit SeededRandomSource(std::uint64_t seed) noexcept;
    std::uint64_t next() noexcept override;

  private:
    std::uint64_t state_[4];
};

class ThreadLocalRandomSource final : public RandomSource {
  public:
    std::uint64_t next() noexcept override;
};

// The process-wide default source (a ThreadLocalRandomSource, which holds no state itself).
RandomSource& default_random_source() noexcept;

}  // namespace rebound
