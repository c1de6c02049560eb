// ExactSum: the recount's sums, exact and independent of the order of their terms.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "nnlb/engine/core/ledger.hpp"
#include "nnlb/util/exact_sum.hpp"

namespace nnlb {
namespace {

double exact_sum(const std::vector<double>& xs) {
  ExactSum s;
  for (double x : xs) s.add(x);
  return s.value();
}

TEST(ExactSum, RoundsTheExactSumOnce) {
  EXPECT_EQ(exact_sum({}), 0.0);
  EXPECT_EQ(exact_sum(std::vector<double>(10, 0.1)), 1.0);  // a running sum gives 0.9999999999999999
  EXPECT_EQ(exact_sum({1e100, 1.0, -1e100}), 1.0);          // a running sum gives 0
  EXPECT_EQ(exact_sum({1.0, 1e-16, 1e-16}), std::nextafter(1.0, 2.0));
  // Ties to even: 1 + 2^-53 is half an ulp above 1 and rounds down; a term below it breaks the tie.
  EXPECT_EQ(exact_sum({1.0, 0x1p-53}), 1.0);
  EXPECT_EQ(exact_sum({1.0, 0x1p-53, 0x1p-100}), std::nextafter(1.0, 2.0));
  EXPECT_EQ(exact_sum({1.0, 0x1p-53, -0x1p-100}), 1.0);
  EXPECT_TRUE(std::isnan(exact_sum({1.0, std::numeric_limits<double>::quiet_NaN()})));
  EXPECT_EQ(exact_sum({1.0, std::numeric_limits<double>::infinity()}), std::numeric_limits<double>::infinity());
}

TEST(ExactSum, TheSameBitsInAnyOrder) {
  std::mt19937_64 rng(11);
  std::uniform_real_distribution<double> mantissa(-1, 1);
  std::uniform_int_distribution<int> exponent(-60, 60);
  for (int trial = 0; trial < 50; ++trial) {
    std::vector<double> xs(200 + trial * 10);
    for (double& x : xs) x = std::ldexp(mantissa(rng), exponent(rng));
    const double first = exact_sum(xs);
    double magnitude = 0;
    for (double x : xs) magnitude += std::abs(x);
    for (int order = 0; order < 5; ++order) {
      std::shuffle(xs.begin(), xs.end(), rng);
      ASSERT_EQ(exact_sum(xs), first) << "trial " << trial;
      double naive = 0;  // a running sum is within its error bound of the exact one
      for (double x : xs) naive += x;
      EXPECT_LE(std::abs(naive - first), static_cast<double>(xs.size()) * 0x1p-53 * magnitude);
    }
  }
}

TEST(ExactSum, AddsAndSubtractsAnotherExactly) {
  ExactSum a, b;
  a.add(1e100), a.add(3.0);
  b.add(-1e100), b.add(0.5);
  ExactSum c = a;
  a.add(b);
  EXPECT_EQ(a.value(), 3.5);
  c.subtract(b);
  EXPECT_EQ(c.value(), 2e100);
  ExactSum d;
  d.add(-0x1p-1074), d.add(-3.0);  // negative totals, and the smallest subnormal
  EXPECT_EQ(d.value(), -3.0);
  d.add(3.0);
  EXPECT_EQ(d.value(), -0x1p-1074);
}

// A recount of many small loads is checked against the ledger's exact total: no error of its own.
TEST(ExactSum, ARecountInAnotherOrderHasNoErrorOfItsOwn) {
  std::vector<double> loads(100000);
  std::mt19937_64 rng(5);
  std::uniform_real_distribution<double> draw(0, 2000);
  for (double& x : loads) x = draw(rng);
  Ledger ledger;
  for (double x : loads) ledger.add(x);
  std::reverse(loads.begin(), loads.end());
  Ledger::Count count;
  for (double x : loads) count.in_flight(x, {});
  EXPECT_EQ(ledger.check(std::move(count), false, "the test"), 0.0);
}

// The drift is measured exactly: a recount half an ulp of the total off reports that, not 0 or an ulp.
TEST(ExactSum, TheCheckMeasuresADriftBelowAnUlpOfTheTotal) {
  Ledger ledger;
  ledger.add(0x1p40), ledger.add(1.0);
  Ledger::Count count;
  count.in_flight(0x1p40, {}), count.in_flight(1.0, {}), count.in_flight(0x1p-20, {});
  EXPECT_EQ(ledger.check(std::move(count), false, "the test"), 0x1p-20 / (0x1p40 + 1.0));
}

}  // namespace
}  // namespace nnlb
