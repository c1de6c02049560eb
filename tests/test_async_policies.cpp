// Best effort and Bertsekas–Tsitsiklis (Couturier, Giersch & Hakem, sec. 4-5) as pure decision
// rules on hand-built local views.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <tuple>

#include "nnlb/policy/bertsekas_tsitsiklis.hpp"
#include "nnlb/policy/best_effort.hpp"

namespace nnlb {
namespace {

struct View {
  std::vector<NeighborState> nbs;
  LocalView view;
  View(double own, std::vector<double> loads) {
    for (std::size_t k = 0; k < loads.size(); ++k) {
      NeighborState nb;
      nb.id = static_cast<NodeId>(k + 1);
      nb.load = loads[k];
      nbs.push_back(nb);
    }
    view.load = own;
    view.degree = static_cast<std::uint32_t>(loads.size());
    view.neighbors = nbs;
  }
  std::vector<double> sent(const Policy& p) {
    std::vector<Transfer> out;
    p.decide(view, out);
    std::vector<double> s(nbs.size(), 0.0);
    for (const auto& t : out) s[t.neighbor] += t.amount;
    return s;
  }
};

// The order both rules visit the less loaded neighbours in: by load, then id, then port (a graph
// with two links between the same nodes), with ties of load and repeated ids; loads of both signs,
// -0.0 beside +0.0 (equal loads), infinities and NaN (never less loaded) among them.
TEST(LessLoadedByLoad, OrdersByLoadThenIdThenPort) {
  const double inf = std::numeric_limits<double>::infinity();
  const std::vector<double> odd = {-inf, -2.5, -0.0, 0.0, 1e-310, 3.0, 1e300, inf, std::nan("")};
  std::uint64_t state = 7;
  auto draw = [&](std::uint64_t n) {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return (state >> 33) % n;
  };
  for (const std::size_t degree : {1u, 5u, 16u, 32u, 33u, 70u}) {
    for (int trial = 0; trial < 100; ++trial) {
      const bool signs = trial % 2 == 1;
      std::vector<double> loads;
      for (std::size_t k = 0; k < degree; ++k)  // ties everywhere
        loads.push_back(signs ? odd[draw(odd.size())] : static_cast<double>(draw(6)));
      const double own = signs ? 1e300 : 4.0;
      View v(own, loads);
      for (NeighborState& nb : v.nbs) nb.id = static_cast<NodeId>(draw(degree));            // and repeated ids
      std::vector<std::uint32_t> expected;
      for (std::uint32_t j = 0; j < degree; ++j)
        if (v.nbs[j].load < own) expected.push_back(j);
      std::sort(expected.begin(), expected.end(), [&](std::uint32_t a, std::uint32_t b) {
        return std::tuple(v.nbs[a].load, v.nbs[a].id, a) < std::tuple(v.nbs[b].load, v.nbs[b].id, b);
      });
      ASSERT_EQ(less_loaded_by_load(v.view), expected) << "degree " << degree << ", trial " << trial;
    }
  }
}

TEST(BestEffort, SenderAndSelectedNeighboursEndAtTheMean) {
  // x_i = 100; neighbours 10, 20, 90, 200: S = {10, 20} (90 is above the mean 43.3 of {100, 10, 20}).
  View v(100, {90, 10, 200, 20});
  const auto s = v.sent(BestEffort(1));
  const double mean = (100 + 10 + 20) / 3.0;
  EXPECT_DOUBLE_EQ(s[1], mean - 10);
  EXPECT_DOUBLE_EQ(s[3], mean - 20);
  EXPECT_EQ(s[0], 0);
  EXPECT_EQ(s[2], 0);
  EXPECT_NEAR(100 - s[1] - s[3], mean, 1e-12);
  EXPECT_NEAR(10 + s[1], mean, 1e-12);
  EXPECT_NEAR(20 + s[3], mean, 1e-12);
}

TEST(BestEffort, LevelingDividesTheAmounts) {
  View v(100, {90, 10, 200, 20});
  const auto one = v.sent(BestEffort(1)), four = v.sent(BestEffort(4));
  for (std::size_t k = 0; k < one.size(); ++k) EXPECT_DOUBLE_EQ(four[k], one[k] / 4);
}

TEST(BestEffort, SendsNothingToMoreLoadedNeighbours) {
  View v(10, {10, 50, 11});
  for (double x : v.sent(BestEffort(1))) EXPECT_EQ(x, 0);
}

TEST(BertsekasTsitsiklis, SendsAShareOfEachDifferenceWhileMoreLoaded) {
  // x_i = 100 with 3 neighbours: share 1/4 of each difference, least loaded first.
  View v(100, {40, 0, 100});
  const auto s = v.sent(BertsekasTsitsiklis(false));
  EXPECT_DOUBLE_EQ(s[1], 25);  // (100 - 0) / 4; remaining 75 > 40
  EXPECT_DOUBLE_EQ(s[0], 15);  // (100 - 40) / 4; remaining 60, not above 100: stop
  EXPECT_EQ(s[2], 0);
}

TEST(BertsekasTsitsiklis, PingPongConditionStallsTheThreeNodeChain) {
  // Sec. 4: x1 = 10, x2 = 100, x3 = 99.99, seen from node 2.
  View v(100, {10, 99.99});
  const auto free = v.sent(BertsekasTsitsiklis(false));
  EXPECT_DOUBLE_EQ(free[0], 30);  // (100 - 10) / 3
  const auto strict = v.sent(BertsekasTsitsiklis(true));
  EXPECT_NEAR(strict[0], 0.01, 1e-9) << "Eq. 2 w.r.t. node 3 leaves node 2 only 0.01 to give";
  EXPECT_NEAR(strict[1], 0.0, 1e-12);
  // The condition holds after the sends.
  const double remaining = 100 - strict[0] - strict[1];
  EXPECT_GE(remaining + 1e-12, 10 + strict[0]);
  EXPECT_GE(remaining + 1e-12, 99.99 + strict[1]);
}

}  // namespace
}  // namespace nnlb
