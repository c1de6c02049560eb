#pragma once
// The exact sum of doubles, rounded once: its value depends on the numbers added, not on their
// order. A conservation recount uses it, so that its total is the same whatever order an engine
// visits the nodes and the messages in flight in, and the error it reports is the model's, not
// the recount's own rounding (a running sum of 10^5 loads is off by about 10^-13 relative).
//
// A long fixed-point accumulator (Kulisch): every finite double is an integer times 2^-1074, and
// the sum of those integers is kept in 32-bit digits held in 64-bit words, so an addition is
// three integer additions, exact, in any order; carries are propagated once per 2^30 additions
// and when the value is read.
#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <utility>

#include "nnlb/util/uint128.hpp"

namespace nnlb {

class ExactSum {
 public:
  void add(double x) {
    if (x == 0) return;  // a balancer's reports carry none (a quarter of the messages a large run holds)
    const auto bits = std::bit_cast<std::uint64_t>(x);
    const auto biased = static_cast<int>(bits >> 52 & 0x7ff);
    if (biased == 0x7ff) {  // infinities and NaN: summed as they come (the total is not finite)
      special_ += x;
      return;
    }
    // x = +-mantissa * 2^(position - 1074); the mantissa lands on three digits.
    const std::uint64_t mantissa = (bits & ((std::uint64_t{1} << 52) - 1)) | (biased != 0 ? std::uint64_t{1} << 52 : 0);
    const int position = biased != 0 ? biased - 1 : 0;
    const uint128 shifted = static_cast<uint128>(mantissa) << (position % 32);
    std::int64_t* d = &digits_[static_cast<std::size_t>(position / 32)];
    const auto low = static_cast<std::int64_t>(shifted & 0xffffffff), mid = static_cast<std::int64_t>(shifted >> 32 & 0xffffffff),
               high = static_cast<std::int64_t>(shifted >> 64);
    if (bits >> 63) d[0] -= low, d[1] -= mid, d[2] -= high;
    else d[0] += low, d[1] += mid, d[2] += high;
    if (++pending_ == carry_every) carry();
  }

  // Adds (or subtracts) another exact sum, exactly.
  void add(ExactSum other) { merge(std::move(other), 1); }
  void subtract(ExactSum other) { merge(std::move(other), -1); }

  // The exact sum rounded to the nearest double, ties to even (a total too small to be a normal
  // double, below 2^-1022, may be rounded twice).
  double value() const {
    if (special_ != 0 || std::isnan(special_)) return special_;
    ExactSum s = *this;
    s.carry();
    const bool negative = s.digits_[count - 1] < 0;
    if (negative) {
      for (std::int64_t& d : s.digits_) d = -d;
      s.carry();
    }
    std::size_t top = count;
    while (top > 0 && s.digits_[top - 1] == 0) --top;
    if (top == 0) return 0;
    // The three highest digits, with a bit set below them if anything lower is not zero (enough
    // for the conversion's rounding to nearest, ties to even, to round as the whole would).
    const std::size_t h = std::max<std::size_t>(top, 3) - 1;
    uint128 lead = 0;
    for (std::size_t k = h + 1; k-- > h - 2;) lead = lead << 32 | static_cast<std::uint64_t>(s.digits_[k]);
    bool sticky = false;
    for (std::size_t k = 0; k + 2 < h; ++k) sticky |= s.digits_[k] != 0;
    const double rounded = std::ldexp(static_cast<double>(lead | (sticky ? 1u : 0u)), static_cast<int>(32 * (h - 2)) - 1074);
    return negative ? -rounded : rounded;
  }

 private:
  // Positions 0 to 2045 with a mantissa of 53 bits shifted by up to 31 reach digit 65; two more
  // hold the carries of sums beyond the largest double.
  static constexpr std::size_t count = 68;
  static constexpr std::uint32_t carry_every = std::uint32_t{1} << 30;  // a digit grows by < 2^32 an addition

  void merge(ExactSum other, std::int64_t sign) {
    carry(), other.carry();
    for (std::size_t k = 0; k < count; ++k) digits_[k] += sign * other.digits_[k];
    special_ += static_cast<double>(sign) * other.special_;
  }

  // Leaves every digit but the last in [0, 2^32); the last keeps the sign.
  void carry() {
    for (std::size_t k = 0; k + 1 < count; ++k) {
      const std::int64_t c = digits_[k] >> 32;  // floor division by 2^32
      digits_[k] -= c * (std::int64_t{1} << 32);
      digits_[k + 1] += c;
    }
    pending_ = 0;
  }

  std::array<std::int64_t, count> digits_{};
  std::uint32_t pending_ = 0;
  double special_ = 0;
};

}  // namespace nnlb
