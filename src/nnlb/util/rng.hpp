#pragma once
// Counter-derived random streams: a stream is a pure function of (seed, stream id), so results
// do not depend on thread count or on the order in which nodes are visited.
// Generator: xoshiro256** (Blackman & Vigna), seeded through splitmix64.
#include <cmath>
#include <cstdint>
#include <numbers>

#include "nnlb/util/uint128.hpp"

namespace nnlb {

constexpr std::uint64_t splitmix64(std::uint64_t& state) {
  std::uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

// Mixes a list of words into one seed; used to derive independent streams.
constexpr std::uint64_t mix_seed(std::uint64_t a, std::uint64_t b, std::uint64_t c = 0) {
  std::uint64_t s = a;
  std::uint64_t h = splitmix64(s);
  s = h ^ b;
  h = splitmix64(s);
  s = h ^ c;
  return splitmix64(s);
}

class Rng {
 public:
  using result_type = std::uint64_t;
  explicit Rng(std::uint64_t seed, std::uint64_t stream = 0) {
    std::uint64_t s = mix_seed(seed, stream, 0x6e6e6c62ULL);
    for (auto& w : s_) w = splitmix64(s);
  }
  static constexpr result_type min() { return 0; }
  static constexpr result_type max() { return ~result_type{0}; }

  result_type operator()() {
    const std::uint64_t result = rotl(s_[1] * 5, 7) * 9;
    const std::uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = rotl(s_[3], 45);
    return result;
  }

  // Uniform in [0, 1), 53 random bits.
  double uniform() { return static_cast<double>((*this)() >> 11) * 0x1.0p-53; }
  double uniform(double lo, double hi) { return lo + (hi - lo) * uniform(); }
  // Uniform integer in [0, n), n > 0 (Lemire's multiply-shift with rejection).
  std::uint64_t below(std::uint64_t n) {
    uint128 m = static_cast<uint128>((*this)()) * n;
    auto low = static_cast<std::uint64_t>(m);
    if (low < n) {
      const std::uint64_t threshold = (0 - n) % n;
      while (low < threshold) {
        m = static_cast<uint128>((*this)()) * n;
        low = static_cast<std::uint64_t>(m);
      }
    }
    return static_cast<std::uint64_t>(m >> 64);
  }
  // Standard normal by Box-Muller (no cached second value: the stream stays a pure sequence).
  double normal() {
    double u1 = uniform();
    while (u1 <= 0.0) u1 = uniform();
    const double u2 = uniform();
    return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * std::numbers::pi * u2);
  }
  double normal(double mean, double stddev) { return mean + stddev * normal(); }

 private:
  static constexpr std::uint64_t rotl(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  std::uint64_t s_[4];
};

}  // namespace nnlb
