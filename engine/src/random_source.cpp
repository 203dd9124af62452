#include "rebound/random_source.hpp"

#include <chrono>
#include <random>
#include <thread>

#if defined(__linux__)
#include <sys/random.h>
#endif

namespace rebound {
namespace {

std::uint64_t split_mix64(std::uint64_t& state) noexcept {
    std::uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

constexpr std::uint64_t rotate_left(std::uint64_t x, int k) noexcept {
    return (x << k) | (x >> (64 - k));
}

// One seed from the operating system; falls back to time and thread identity if getrandom fails
// (it cannot block or fail for 8 bytes on Linux >= 3.17 once the pool is initialised).
std::uint64_t seed_from_os() noexcept {
    std::uint64_t seed = 0;
#if defined(__linux__)
    if (getrandom(&seed, sizeof seed, 0) == static_cast<ssize_t>(sizeof seed)) {
        return seed;
    }
#endif
    seed = static_cast<std::uint64_t>(
        std::chrono::high_resolution_clock::now().time_since_epoch().count());
    seed ^= std::hash<std::thread::id>{}(std::this_thread::get_id()) * 0x9e3779b97f4a7c15ULL;
    return seed;
}

}  // namespace

SeededRandomSource::SeededRandomSource(std::uint64_t seed) noexcept : state_{} {
    for (std::uint64_t& word : state_) {
        word = split_mix64(seed);
    }
}

std::uint64_t SeededRandomSource::next() noexcept {
    const std::uint64_t result = rotate_left(state_[0] + state_[3], 23) + state_[0];
    const std::uint64_t t = state_[1] << 17;
    state_[2] ^= state_[0];
    state_[3] ^= state_[1];
    state_[1] ^= state_[2];
    state_[0] ^= state_[3];
    state_[2] ^= t;
    state_[3] = rotate_left(state_[3], 45);
    return result;
}

std::uint64_t ThreadLocalRandomSource::next() noexcept {
    thread_local SeededRandomSource generator{seed_from_os()};
    return generator.next();
}

RandomSource& default_random_source() noexcept {
    static ThreadLocalRandomSource source;
    return source;
}

}  // namespace rebound
