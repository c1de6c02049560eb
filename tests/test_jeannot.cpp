// Jeannot & Vernier 2006: the relative-speed matrix M_r (closed form, negotiation by messages,
// Theorem 1), the cost/benefit filter, the shaker, the spanning-tree convergence detection and
// the iterative application that uses them.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <memory>
#include <queue>

#include "nnlb/programs/async_balancer.hpp"
#include "nnlb/programs/iterative_application.hpp"
#include "nnlb/catalog/registry.hpp"
#include "nnlb/engine/des/des_engine.hpp"
#include "nnlb/engine/sync/grid_stencil.hpp"
#include "nnlb/engine/sync/rounds_engine.hpp"
#include "nnlb/engine/sync/sync_engine.hpp"
#include "nnlb/experiment/run.hpp"
#include "nnlb/experiment/scenario.hpp"
#include "nnlb/policy/relative_speed.hpp"
#include "nnlb/policy/shaker.hpp"
#include "nnlb/protocol/relative_speed_negotiation.hpp"
#include "nnlb/protocol/tree_detection.hpp"
#include "nnlb/util/error.hpp"
#include "nnlb/util/parallel.hpp"
#include "support.hpp"

namespace nnlb {
namespace {

std::vector<double> random_speeds(NodeId n, std::uint64_t seed) {
  Rng rng(seed, 7);
  std::vector<double> c(n);
  for (double& x : c) x = rng.uniform(1e8, 4e9);
  return c;
}

Platform platform_with(std::vector<double> speed) { return Platform{std::move(speed), {1e-4}, {1.25e7}}; }

// Both engines behind one call.
RunResult run_on(const std::string& engine, const Topology& t, const Program& p, const Platform& pf, std::vector<double> w,
                 LoadMode mode = LoadMode::integer) {
  if (engine == "des") {
    DesOptions o;
    o.time_limit = 1e4;
    o.stop_when_balanced = false;
    o.record_final_load = true;
    return run_des(t, p, mode, {std::move(w), {}}, pf, o);
  }
  RoundsOptions o;
  o.max_rounds = 20000;
  o.record_final_load = true;
  return run_rounds(t, p, mode, {std::move(w), {}}, pf, o);
}

// --- M_r ------------------------------------------------------------------------------------

TEST(RelativeSpeed, MatrixIsStochasticAndReversibleWithRespectToSpeed) {
  for (const char* spec : {"mesh:5x4", "ring:9", "hypercube:4", "random-regular:30,3", "star:7"})
    for (bool self : {false, true}) {
      const Topology t = make_topology(spec, 3);
      const auto c = random_speeds(t.graph.num_nodes(), 11);
      const RelativeSpeedMatrix m = relative_speed_matrix(t.graph, c, self);
      for (NodeId i = 0; i < t.graph.num_nodes(); ++i) {
        double row = 0;
        for (Slot s = t.graph.first_slot(i); s < t.graph.end_slot(i); ++s) {
          EXPECT_GE(m.out[s], 0);
          EXPECT_DOUBLE_EQ(m.in[s], m.out[t.graph.reverse(s)]);
          EXPECT_NEAR(c[i] * m.out[s], c[t.graph.target(s)] * m.in[s], 1e-6 * c[i]);  // C_i M_ij = C_j M_ji
          row += m.out[s];
        }
        EXPECT_LE(row, 1 + 1e-12) << spec;  // the diagonal 1 - row is >= 0
        if (self) {
          EXPECT_LT(row, 1) << spec;  // ... and > 0 with the self term
        }
      }
    }
}

// Records what the negotiation agreed on, by slot.
struct NegotiationProbe final : Program {
  const Graph* g;
  bool self;
  std::shared_ptr<std::vector<double>> out, in;
  std::string name() const override { return "negotiation-probe"; }
  std::unique_ptr<Agent> make_agent(NodeId) const override {
    struct A final : Agent {
      const NegotiationProbe& p;
      RelativeSpeedNegotiation n;
      explicit A(const NegotiationProbe& probe) : p(probe), n(probe.self) {}
      void start(Context& ctx) override { n.start(ctx); }
      void arrived(Context& ctx, Channel ch) override {
        for (const Message& m : ctx.take(ch))
          if (n.handles(m)) n.receive(ctx, m);
        if (!n.done()) return;
        for (Port q = 0; q < ctx.degree(); ++q) {
          const Slot s = p.g->first_slot(ctx.self()) + q;
          (*p.out)[s] = n.out()[q];
          (*p.in)[s] = n.in()[q];
        }
      }
    };
    return std::make_unique<A>(*this);
  }
};

TEST(RelativeSpeed, NegotiationByMessagesGivesTheClosedForm) {
  for (const std::string engine : {"des", "rounds"})
    for (const char* spec : {"mesh:4x4", "ring:7", "random-regular:24,3", "hypercube:3"})
      for (bool self : {false, true}) {
        const Topology t = make_topology(spec, 5);
        const NodeId n = t.graph.num_nodes();
        const auto c = random_speeds(n, 23);
        NegotiationProbe probe;
        probe.g = &t.graph;
        probe.self = self;
        probe.out = std::make_shared<std::vector<double>>(t.graph.num_slots(), -1.0);
        probe.in = std::make_shared<std::vector<double>>(t.graph.num_slots(), -1.0);
        run_on(engine, t, probe, platform_with(c), std::vector<double>(n, 0.0));
        const RelativeSpeedMatrix m = relative_speed_matrix(t.graph, c, self);
        for (Slot s = 0; s < t.graph.num_slots(); ++s) {
          EXPECT_NEAR((*probe.out)[s], m.out[s], 1e-15) << engine << " " << spec << " slot " << s;
          EXPECT_NEAR((*probe.in)[s], m.in[s], 1e-15) << engine << " " << spec << " slot " << s;
        }
      }
}

// Theorem 1 on the synchronous engine: W(t+1) = M_r^T W(t).
std::vector<double> mr_run(const std::string& topo, const std::string& speed, bool self, std::uint64_t steps, bool fused = true,
                           std::vector<double>* speeds = nullptr) {
  Scenario s;
  s.set_from_text("topology=" + topo, "test");
  s.set_from_text("algorithm=mr", "test");
  s.set_from_text(std::string("mr.self=") + (self ? "true" : "false"), "test");
  s.set_from_text("platform.speed=" + speed, "test");
  s.set_from_text("load.init=single:0,1000", "test");
  s.set_from_text("stop.steps=" + std::to_string(steps), "test");
  const PreparedRun p = prepare_run(s, 1);
  if (speeds) {
    speeds->resize(p.topology.graph.num_nodes());
    for (NodeId i = 0; i < speeds->size(); ++i) (*speeds)[i] = p.platform.node_speed(i);
  }
  SyncOptions o;
  o.stop.max_steps = steps;
  o.record_final_load = true;
  o.allow_fused = fused;
  return run_sync(p.topology, *p.policy.policy, nullptr, p.mode, p.initial, p.platform, o).final_load;
}

void expect_speed_proportional(const std::vector<double>& w, const std::vector<double>& c, double tol) {
  double total = 0, sum_c = 0;
  for (std::size_t i = 0; i < w.size(); ++i) total += w[i], sum_c += c[i];
  for (std::size_t i = 0; i < w.size(); ++i) EXPECT_NEAR(w[i], c[i] * total / sum_c, tol) << "node " << i;
}

TEST(RelativeSpeed, Theorem1ConvergesToSpeedProportionalShares) {
  std::vector<double> c;
  // Non-bipartite (odd torus), first definition.
  auto w = mr_run("torus:5x5", "uniform:1e8,4e9", false, 3000, true, &c);
  expect_speed_proportional(w, c, 1e-6);
  // Bipartite (mesh), the self term makes M_r aperiodic.
  w = mr_run("mesh:4x4", "uniform:1e8,4e9", true, 3000, true, &c);
  expect_speed_proportional(w, c, 1e-6);
}

TEST(RelativeSpeed, Theorem1PeriodicOnABipartiteGraphWithoutTheSelfTerm) {
  // Equal speeds on an even ring: M_r,ij = 1/2, a zero diagonal; the load swings between the
  // two colour classes for ever.
  const auto even = mr_run("ring:8", "1e9", false, 2000);
  const auto odd = mr_run("ring:8", "1e9", false, 2001);
  EXPECT_GT(std::abs(even[0] - odd[0]), 100);
  EXPECT_NEAR(even[0] + even[2] + even[4] + even[6], 1000, 1e-9);  // all of it on the even class
  const auto fixed = mr_run("ring:8", "1e9", true, 2000);
  for (double x : fixed) EXPECT_NEAR(x, 125, 1e-6);
}

TEST(RelativeSpeed, FusedSweepEqualsThePerNodePath) {
  EXPECT_EQ(mr_run("torus:6x5", "uniform:1e8,4e9", false, 50, true), mr_run("torus:6x5", "uniform:1e8,4e9", false, 50, false));
  EXPECT_EQ(mr_run("mesh:7x3", "uniform:1e8,4e9", true, 50, true), mr_run("mesh:7x3", "uniform:1e8,4e9", true, 50, false));
}

TEST(RelativeSpeed, GridStencilWithEqualSpeedsEqualsThePerNodePath) {
  for (const char* spec : {"torus:7x6", "mesh:8x5"})
    for (bool self : {false, true}) EXPECT_EQ(mr_run(spec, "1e9", self, 60, true), mr_run(spec, "1e9", self, 60, false)) << spec;
  // The stencil applies with equal speeds (a = 1/4 on a torus) and not with different ones.
  auto stencil = [](const std::string& speed) {
    Scenario s;
    for (const std::string& kv : {std::string("topology=torus:6x6"), std::string("algorithm=mr"), "platform.speed=" + speed})
      s.set_from_text(kv, "test");
    const PreparedRun p = prepare_run(s, 1);
    return fos_grid_stencil(p.topology, *p.policy.policy->linear_form());
  };
  const auto equal = stencil("1e9");
  ASSERT_TRUE(equal);
  EXPECT_EQ(equal->alpha, 0.25);
  EXPECT_FALSE(stencil("uniform:1e9,2e9"));
}

// --- cost/benefit and shaker ----------------------------------------------------------------

// M_r from reported speeds (the MPI library's): with every neighbour's speed and delta heard,
// node i's transfers are those of the closed form over the whole graph, and its reported delta
// is the closed form's delta_i; before any delta is heard, it never sends more than it holds.
TEST(RelativeSpeed, ReportedSpeedsGiveTheClosedFormsTransfers) {
  for (const char* spec : {"ring:7", "mesh:3x4", "random-regular:12,3"})
    for (bool self : {false, true}) {
      const Topology t = make_topology(spec, 5);
      const NodeId n = t.graph.num_nodes();
      const auto c = random_speeds(n, 11);
      auto m = std::make_shared<RelativeSpeedMatrix>(relative_speed_matrix(t.graph, c, self));
      const RelativeSpeedDiffusion closed(t.graph, m, Shaker{}), reported(self, Shaker{});
      Rng rng(1, 0);
      std::vector<double> delta(n);
      for (NodeId i = 0; i < n; ++i) {
        std::vector<double> cj;
        for (NodeId j : t.graph.neighbors(i)) cj.push_back(c[j]);
        delta[i] = *reported.reported_delta(c[i], cj);
        EXPECT_FALSE(closed.reported_delta(c[i], cj).has_value());
      }
      for (NodeId i = 0; i < n; ++i) {
        std::vector<NeighborState> nbs;
        for (NodeId j : t.graph.neighbors(i)) nbs.push_back({j, t.graph.degree(j), 100.0 * j, c[j], 0, nullptr, delta[j]});
        const LocalView view{i, t.graph.degree(i), 1000.0, c[i], 0, nbs, &rng};
        std::vector<Transfer> a, b;
        closed.decide(view, a);
        reported.decide(view, b);
        ASSERT_EQ(a.size(), b.size()) << spec << " node " << i;
        for (std::size_t k = 0; k < a.size(); ++k) {
          EXPECT_EQ(a[k].neighbor, b[k].neighbor);
          EXPECT_NEAR(a[k].amount, b[k].amount, 1e-9) << spec << " node " << i;
        }
        for (NeighborState& nb : nbs) nb.delta = 0, nb.load = 0;  // nothing heard: delta_i alone
        b.clear();
        reported.decide(view, b);
        double sent = 0;
        for (const Transfer& x : b) sent += x.amount;
        EXPECT_GT(sent, 0);
        EXPECT_LE(sent, 1000.0 * (1 + 1e-12)) << spec << " node " << i;
      }
    }
}

// The asynchronous balancer on des with M_r from reported speeds (speed_reports.hpp): the loads
// end proportional to the speeds, as under the closed form; with the speeds known at set-up,
// each node tells C_i and delta_i once (one control message per edge and direction).
TEST(RelativeSpeed, AsyncBalancerOnReportedSpeedsEndsProportionalToSpeed) {
  const Topology t = make_topology("ring:7", 1);
  const std::vector<double> c{1e9, 2e9, 3e9, 1e9, 2e9, 3e9, 4e9};
  std::vector<double> w0(7, 0.0);
  w0[0] = 2600;
  auto m = std::make_shared<RelativeSpeedMatrix>(relative_speed_matrix(t.graph, c, false));
  const RelativeSpeedDiffusion closed(t.graph, m, Shaker{}), reported(false, Shaker{});
  AsyncBalancerOptions o;
  o.lb_period = 1e-3;
  DesOptions d;
  d.time_limit = 2;
  d.stop_when_balanced = false;
  d.record_final_load = true;
  const RunResult a = run_des(t, AsyncBalancer(closed, o), LoadMode::real, {w0, {}}, platform_with(c), d);
  const RunResult b = run_des(t, AsyncBalancer(reported, o), LoadMode::real, {w0, {}}, platform_with(c), d);
  expect_speed_proportional(a.final_load, c, 1e-6);
  expect_speed_proportional(b.final_load, c, 1e-6);
  const auto controls = [](const RunResult& r) { return r.summary.timing->control_messages; };
  const std::uint64_t speed_messages = controls(b) - controls(a);
  EXPECT_EQ(speed_messages, t.graph.num_slots());
}

// The spanning-tree detection in the asynchronous balancer (integer loads, best effort, which
// comes to rest): `stop` ends every node's balancing process after a quiet step, so that a run
// twice as long sends no more control messages and ends on the same loads as without detection;
// `continuous` keeps watching and balances ever less often while nothing moves.
TEST(TreeDetection, StopsAndSlowsTheAsynchronousBalancer) {
  const Topology t = make_topology("torus:4x4", 1);
  BuiltPolicy built = make_policy(PolicySpec{.algorithm = "best-effort"}, t);
  std::vector<double> w0(16, 0.0);
  w0[0] = 1600;
  auto run = [&](Detection detection, double seconds) {
    AsyncBalancerOptions o;
    o.lb_period = 1e-3;
    o.detection = detection;
    DesOptions d;
    d.time_limit = seconds;
    d.stop_when_balanced = false;
    d.record_final_load = true;
    return run_des(t, AsyncBalancer(*built.policy, o), LoadMode::integer, {w0, {}}, platform_with({1e9}), d);
  };
  const RunResult off = run(Detection::off, 1), stop = run(Detection::stop, 1), longer = run(Detection::stop, 2);
  ASSERT_TRUE(stop.summary.detected_at.has_value());
  EXPECT_LT(*stop.summary.detected_at, 0.5);
  EXPECT_EQ(stop.final_load, off.final_load);
  EXPECT_EQ(longer.summary.timing->control_messages, stop.summary.timing->control_messages);
  const RunResult watching = run(Detection::continuous, 2), plain = run(Detection::off, 2);
  ASSERT_TRUE(watching.summary.detected_at.has_value());
  EXPECT_EQ(watching.final_load, plain.final_load);
  EXPECT_LT(watching.summary.timing->control_messages, plain.summary.timing->control_messages / 4);  // 1/5 here
}

// The same detection from a scenario (async.detection, on des, mpi and simgrid): the run reports
// when a root detected; keys that cannot apply are refused with their name.
TEST(TreeDetection, AsyncDetectionIsAScenarioKey) {
  const std::vector<std::string> base{"engine=des",         "topology=torus:4x4", "algorithm=best-effort", "load.mode=integer",
                                      "load.init=single:0,1600", "stop.time=1"};
  auto with = [&](std::vector<std::string> more) {
    more.insert(more.begin(), base.begin(), base.end());
    return more;
  };
  const RunRecord r = test::run_sets(with({"async.detection=stop"}));
  EXPECT_TRUE(r.result.summary.detected_at.has_value());
  EXPECT_TRUE(test::refused(with({"async.detection=sometimes"}), "async.detection"));
  EXPECT_TRUE(test::refused(with({"async.detection=stop", "agent=rounds"}), "key 'async.detection': is not read by the program that runs (rounds"));
  EXPECT_TRUE(test::refused({"engine=des", "topology=torus:4x4", "algorithm=dasud", "guest.graph=ring:32", "async.detection=stop"},
                            "key 'async.detection': is not read by the program that runs (jobs"));
  EXPECT_TRUE(test::refused(with({"async.detection=stop", "churn.events=leave@0.5"}), "key 'async.detection': needs a graph that does not change"));
  EXPECT_TRUE(test::refused({"engine=des", "load.trace=" + std::string(NNLB_SOURCE_DIR) + "/scenarios/examples/stencil-4ranks.trace", "async.detection=stop"},
                            "key 'async.detection': does not run on a replayed trace"));
  EXPECT_TRUE(test::refused(with({"async.quiet_every_max=8"}), "key 'async.quiet_every_max': applies only with async.detection = \"continuous\""));
  EXPECT_TRUE(test::refused(with({"async.detection=continuous", "async.quiet_every_max=0"}), "key 'async.quiet_every_max': must be >= 1"));
}

TEST(CostBenefit, RefusesAnExchangeCostingMoreThanKTimesItsBenefitAndAcceptsTheReverse) {
  // 100 units against 0, sending 50, 1e6 flop per unit at 1 Gflop/s: one iteration saves 0.05 s.
  const double benefit = exchange_benefit(100, 1e9, 0, 1e9, 50, 1e6);
  EXPECT_NEAR(benefit, 0.05, 1e-12);
  const double lan = exchange_cost(50, 1.5e-4, 1.25e7, 1250, 0, 0);  // 5.15 ms
  const double dsl = exchange_cost(50, 0.04, 1.25e5, 1250, 0, 0);     // 0.54 s
  EXPECT_NEAR(lan, 1.5e-4 + 0.005, 1e-12);
  EXPECT_LT(lan, 1 * benefit);
  EXPECT_GT(dsl, 1 * benefit);
  EXPECT_LT(dsl, 20 * benefit);
  EXPECT_NEAR(exchange_cost(10, 0, 1e9, 0, 0.5, 0.25), 7.5, 1e-12);  // pre + post per unit
  // A swap that only moves the step ({11, 10} -> {10, 11}) has no benefit (sec. 3.1).
  EXPECT_LE(exchange_benefit(11, 1e9, 10, 1e9, 1, 1e6), 0);
}

TEST(Shaker, MovesWithProbabilityExpMinusKappaUAfterUSuccessiveStuckSteps) {
  // The step that finds the edge stuck for the u-th time in a row draws with U_ij = u.
  Rng rng(42, 1);
  const Shaker s{0.5};
  for (double before : {0.0, 1.0, 3.0}) {
    const int trials = 40000;
    int moved = 0;
    for (int k = 0; k < trials; ++k) {
      double stuck = before;
      const double l = shaker_step(s, stuck, false, 5, 1, 2, 1, rng);
      if (l > 0) {
        ++moved;
        EXPECT_EQ(l, 1);
        EXPECT_EQ(stuck, 0);  // the shaker's move is an exchange
      } else {
        EXPECT_EQ(stuck, before + 1);
      }
    }
    const double p = std::exp(-0.5 * (before + 1));
    EXPECT_NEAR(static_cast<double>(moved) / trials, p, 5 * std::sqrt(p * (1 - p) / trials) + 1e-12) << "U = " << before + 1;
  }
  EXPECT_NEAR(shaker_kappa(0.5, 2), std::log(2.0) / 2, 1e-15);
}

TEST(Shaker, TheCoolingCounterKeepsCountingAfterTheShakersMoveAndUnitNeedsAGapOfTwo) {
  Rng rng(7, 1);
  // kappa tiny: the shaker always fires. Reset: U_ij back to 0; cool: U_ij keeps its count.
  Shaker reset{1e-12}, cool{1e-12};
  cool.cool = true;
  double a = 3, b = 3;
  EXPECT_EQ(shaker_step(reset, a, false, 5, 1, 2, 1, rng), 1);
  EXPECT_EQ(shaker_step(cool, b, false, 5, 1, 2, 1, rng), 1);
  EXPECT_EQ(a, 0);
  EXPECT_EQ(b, 4);
  // A diffusion exchange resets both.
  EXPECT_EQ(shaker_step(cool, b, true, 5, 1, 2, 1, rng), 0);
  EXPECT_EQ(b, 0);
  // Equal speeds, a gap of one unit: unbalanced under "any", balanced under "unit".
  Shaker unit{1e-12};
  unit.unit = true;
  double u = 2, r = 2;
  EXPECT_EQ(shaker_step(unit, u, false, 3, 1, 2, 1, rng), 0);
  EXPECT_EQ(u, 0);
  EXPECT_EQ(shaker_step(reset, r, false, 3, 1, 2, 1, rng), 1);
  EXPECT_EQ(shaker_step(unit, u, false, 4, 1, 2, 1, rng), 1);
  // Speeds 1 and 3: 2 (w_i C_j - w_j C_i) > C_i + C_j. w_i = 2, w_j = 5: 2 (6 - 5) = 2 < 4, balanced
  // for "unit"; w_i = 3, w_j = 5: 2 (9 - 5) = 8 > 4, unbalanced.
  EXPECT_EQ(shaker_step(unit, u, false, 2, 1, 5, 3, rng), 0);
  EXPECT_EQ(shaker_step(unit, u, false, 3, 1, 5, 3, rng), 1);
}

TEST(Shaker, UijCountsSuccessiveStuckStepsOfTwoNodesAndAnExchangeOrBalanceResetsIt) {
  // Two homogeneous nodes under M_r with the self term (M_r,01 = M_r,10 = 1/2): L_01 =
  // (w_0 - w_1) / 2 rounds down to nothing when they differ by one unit. A hand count of U_01
  // over a scripted sequence of steps; kappa so large that the shaker never fires (exp(-1e3 U)).
  Topology t = make_topology("line:2", 1);
  auto mr = std::make_shared<RelativeSpeedMatrix>(relative_speed_matrix(t.graph, std::vector<double>{1.0}, true));
  const RelativeSpeedDiffusion never(t.graph, mr, Shaker{1e3});
  Rng rng(7, 0);
  double memory = 0;
  auto step = [&](const RelativeSpeedDiffusion& policy, double w0, double w1) {
    NeighborState nb{1, 1, w1, 1, 0, &memory};
    std::vector<Transfer> out;
    policy.decide(LocalView{0, 1, w0, 1, 0, std::span<NeighborState>(&nb, 1), &rng}, out);
    return out.empty() ? 0.0 : out[0].amount;
  };
  EXPECT_EQ(step(never, 4, 3), 0);  // unbalanced, nothing moves: U = 1
  EXPECT_EQ(memory, 1);
  EXPECT_EQ(step(never, 4, 3), 0);  // U = 2
  EXPECT_EQ(step(never, 4, 3), 0);  // U = 3
  EXPECT_EQ(memory, 3);
  EXPECT_EQ(step(never, 9, 3), 3);  // diffusion exchanges 3 units: the run ends
  EXPECT_EQ(memory, 0);
  EXPECT_EQ(step(never, 4, 3), 0);  // U = 1 again
  EXPECT_EQ(step(never, 3, 3), 0);  // balanced: reset
  EXPECT_EQ(memory, 0);
  EXPECT_EQ(step(never, 3, 4), 0);  // node 0 the lighter end: it never counts
  EXPECT_EQ(memory, 0);
  // kappa so small that the first stuck step fires: it moves one unit and resets U, every time
  // (the paper's counter does not cool down while the shaker keeps moving).
  const RelativeSpeedDiffusion always(t.graph, mr, Shaker{1e-12});
  for (int k = 0; k < 3; ++k) {
    EXPECT_EQ(step(always, 4, 3), 1);
    EXPECT_EQ(memory, 0);
  }
  // The part moved: a fraction of the levelling amount (w_0 C_1 - w_1 C_0) / (C_0 + C_1).
  EXPECT_EQ(step(RelativeSpeedDiffusion(t.graph, mr, Shaker{1e-12, 1.0}), 4, 3), 1);  // floor(0.5), at least one unit
  double u = 0;
  EXPECT_EQ(shaker_step(Shaker{1e-12, 0.5}, u, false, 100, 1, 0, 1, rng), 25);        // half of 50
  EXPECT_EQ(shaker_step(Shaker{1e-12, 1.0}, u, false, 100, 3e9, 0, 1e9, rng), 25);    // 100 x 1e9 / 4e9
}

// --- spanning-tree detection ----------------------------------------------------------------

// Numbered lock-step steps by messages; node v "exchanges" in the steps of its script, and the
// detection runs after every step. Records per node what the protocol found. Continuous mode runs
// `steps` steps and records the quiet level in force at each.
struct DetectionProbe final : Program {
  struct Node {
    std::int64_t stop = -1, detected = -1;
    bool root = false;
    std::vector<NodeId> tree;
    std::vector<std::uint32_t> levels;  // continuous: level_at(t) for t = 0, 1, ...
  };
  std::shared_ptr<std::vector<Node>> nodes;
  std::vector<std::int64_t> last_step;  // node v exchanges in every step up to this one (-1: never)
  std::vector<std::int64_t> late_step;  // ... and in this one (continuous; empty or -1: none)
  bool continuous = false;
  std::int64_t steps = 0;  // continuous: how many
  std::int64_t last_exchange(NodeId v, std::int64_t t) const {
    const std::int64_t early = std::min(last_step[v], t);
    const std::int64_t late = late_step.empty() || late_step[v] > t ? -1 : late_step[v];
    return std::max(early, late);
  }
  std::string name() const override { return "detection-probe"; }
  std::unique_ptr<Agent> make_agent(NodeId) const override {
    struct A final : Agent {
      const DetectionProbe& p;
      SpanningTreeDetection d;
      std::vector<std::uint64_t> ticks;
      std::int64_t step = 0;
      explicit A(const DetectionProbe& probe) : p(probe) {}
      bool ready = false;
      void start(Context& ctx) override {
        ticks.assign(ctx.degree(), 0);
        d.start(ctx, p.continuous);
        begin(ctx);
      }
      // As initLBDetecConv in Algorithm 1: steps start once the tree is known here.
      void begin(Context& ctx) {
        if (ready || !d.tree_ready()) return;
        ready = true;
        tick(ctx);
      }
      void tick(Context& ctx) {
        for (Port q = 0; q < ctx.degree(); ++q) ctx.send(q, Channel::data, 0, {}, 8);
      }
      void arrived(Context& ctx, Channel ch) override {
        for (const Message& m : ctx.take(ch)) {
          if (d.handles(m)) d.receive(ctx, m);
          else ++ticks[m.port];
        }
        begin(ctx);
        while (ready && std::all_of(ticks.begin(), ticks.end(), [&](auto k) { return k >= static_cast<std::uint64_t>(step) + 1; })) {
          if (d.stop_step() && step >= *d.stop_step()) break;
          if (p.continuous && step >= p.steps) break;
          d.after_step(ctx, step, p.last_exchange(ctx.self(), step));
          Node& rec = (*p.nodes)[ctx.self()];
          if (p.continuous) rec.levels.push_back(d.level_at(step));
          if (d.detected_step()) rec.detected = *d.detected_step(), rec.root = true;
          if (d.stop_step()) rec.stop = *d.stop_step();
          rec.tree.clear();
          for (Port q : d.tree_ports()) rec.tree.push_back(ctx.neighbors()[q].id);
          ++step;
          if (d.stop_step() && step >= *d.stop_step()) break;
          tick(ctx);
        }
      }
    };
    return std::make_unique<A>(*this);
  }
};

// Height of the tree from `root`, over the recorded tree edges.
std::int64_t tree_height(const std::vector<DetectionProbe::Node>& nodes, NodeId root) {
  std::vector<std::int64_t> depth(nodes.size(), -1);
  std::queue<NodeId> q;
  depth[root] = 0;
  q.push(root);
  std::int64_t h = 0;
  while (!q.empty()) {
    const NodeId v = q.front();
    q.pop();
    h = std::max(h, depth[v]);
    for (NodeId u : nodes[v].tree)
      if (depth[u] < 0) depth[u] = depth[v] + 1, q.push(u);
  }
  for (auto d : depth) EXPECT_GE(d, 0) << "the tree spans the graph";
  return h;
}

TEST(TreeDetection, NeverEarlyAlwaysWithinTreeHeightPlusOneStepsTwoRootsIncluded) {
  int two_roots = 0, runs = 0;
  std::vector<std::string> specs = {"line:2", "line:9", "line:64", "ring:10", "mesh:4x5", "hypercube:4", "star:6"};
  for (int n = 10; n <= 40; n += 2) specs.push_back("random-regular:" + std::to_string(n) + ",3");
  for (const std::string engine : {"des", "rounds"})
    for (const std::string& spec : specs)
      for (std::uint64_t seed : {1u, 2u}) {
        const Topology t = make_topology(spec, seed);
        const NodeId n = t.graph.num_nodes();
        DetectionProbe probe;
        probe.nodes = std::make_shared<std::vector<DetectionProbe::Node>>(n);
        Rng rng(seed, 99);
        std::int64_t last = -1;
        for (NodeId v = 0; v < n; ++v) {
          probe.last_step.push_back(static_cast<std::int64_t>(rng.uniform(0, 40)) - 5);
          last = std::max(last, probe.last_step.back());
        }
        run_on(engine, t, probe, platform_with({1e9}), std::vector<double>(n, 0.0));
        const auto& nodes = *probe.nodes;
        int roots = 0;
        for (NodeId v = 0; v < n; ++v) {
          ASSERT_GE(nodes[v].stop, 0) << engine << " " << spec << ": node " << v << " never learned the stop step";
          EXPECT_EQ(nodes[v].stop, nodes[0].stop) << "one stop step for all";
          if (!nodes[v].root) continue;
          ++roots;
          const std::int64_t h = tree_height(nodes, v);
          EXPECT_GT(nodes[v].detected, last) << engine << " " << spec << ": detected while load still moved";
          EXPECT_LE(nodes[v].detected, std::max<std::int64_t>(last, 0) + h + 1) << engine << " " << spec;
        }
        EXPECT_GE(roots, 1);
        EXPECT_LE(roots, 2);
        two_roots += roots == 2;
        ++runs;
      }
  EXPECT_GT(two_roots, 0) << "some graph must make two roots (of " << runs << " runs)";
}

TEST(TreeDetection, ContinuousModeSlowsDownWhenQuietAndSpeedsUpWhenLoadMovesAgain) {
  for (const std::string engine : {"des", "rounds"})
    for (const char* spec : {"line:2", "line:9", "line:40", "ring:10", "mesh:4x5", "hypercube:4", "random-regular:24,3", "random-regular:40,3", "star:6"}) {
      const Topology t = make_topology(spec, 1);
      const NodeId n = t.graph.num_nodes();
      DetectionProbe probe;
      probe.nodes = std::make_shared<std::vector<DetectionProbe::Node>>(n);
      probe.continuous = true;
      const std::int64_t late = 4 * n + 40;  // enough steps for two changes on the tallest tree
      probe.steps = late + 6 * n + 40;
      probe.last_step.assign(n, 3);  // every node exchanges in steps 0-3
      probe.late_step.assign(n, -1);
      probe.late_step[n - 1] = late;  // one node moves load again
      run_on(engine, t, probe, platform_with({1e9}), std::vector<double>(n, 0.0));
      const auto& nodes = *probe.nodes;
      const auto& levels = nodes[0].levels;
      ASSERT_EQ(levels.size(), static_cast<std::size_t>(probe.steps)) << engine << " " << spec;
      for (NodeId v = 1; v < n; ++v) EXPECT_EQ(nodes[v].levels, levels) << engine << " " << spec << ": node " << v << " disagrees";
      std::int64_t h = 0;
      for (NodeId v = 0; v < n; ++v)
        if (nodes[v].root) h = std::max(h, tree_height(nodes, v));
      // Quiet from step 4: the level rises, one change at a time.
      for (std::int64_t k = 0; k <= 4; ++k) EXPECT_EQ(levels[k], 0u) << engine << " " << spec << " step " << k;
      EXPECT_GE(levels[late - 1], 2u) << engine << " " << spec;
      for (std::size_t k = 1; k < levels.size(); ++k) EXPECT_LE(levels[k], levels[k - 1] + 1) << "step " << k;
      // The late exchange brings it back to 0: the report climbs the tree (h steps), a change on its
      // way is waited for (h + 1), the new one goes down (h + 1). Then it rises again.
      const auto back = std::find(levels.begin() + late, levels.end(), 0u);
      ASSERT_NE(back, levels.end()) << engine << " " << spec << ": never sped up";
      EXPECT_LE(back - levels.begin(), late + 3 * (h + 1)) << engine << " " << spec;
      EXPECT_GE(levels.back(), 1u) << engine << " " << spec;
    }
}

TEST(TreeDetection, ContinuousModeStaysAtTheBaseRateWhileLoadKeepsMoving) {
  const Topology t = make_topology("mesh:4x4", 1);
  DetectionProbe probe;
  probe.nodes = std::make_shared<std::vector<DetectionProbe::Node>>(16);
  probe.continuous = true;
  probe.steps = 100;
  probe.last_step.assign(16, -1);
  probe.last_step[5] = 1000;  // node 5 exchanges in every step
  run_on("des", t, probe, platform_with({1e9}), std::vector<double>(16, 0.0));
  for (const auto& node : *probe.nodes) EXPECT_EQ(node.levels, std::vector<std::uint32_t>(100, 0u));
}

// --- the application --------------------------------------------------------------------------

RunRecord app_run(const std::vector<std::string>& sets) {
  Scenario s;
  for (const std::string& kv : {std::string("engine=des"), std::string("agent=iterative"), std::string("algorithm=mr"),
                                std::string("mr.self=true"), std::string("topology=line:16"), std::string("load.mode=integer"),
                                std::string("load.init=single:0,320"), std::string("app.iterations=200")})
    s.set_from_text(kv, "test");
  for (const std::string& kv : sets) s.set_from_text(kv, "test");
  return run_scenario(s, 1);
}

TEST(IterativeApplication, DetectionStopsBalancingAndEveryNodeFinishes) {
  const RunRecord plain = app_run({"app.iterations=1000"});
  const RunRecord detect = app_run({"app.iterations=1000", "app.detection=true"});
  ASSERT_TRUE(plain.result.summary.finished_at && detect.result.summary.finished_at);
  EXPECT_FALSE(plain.result.summary.detected_at);
  ASSERT_TRUE(detect.result.summary.detected_at);
  EXPECT_LT(*detect.result.summary.detected_at, *detect.result.summary.finished_at);
  ASSERT_TRUE(detect.result.summary.timing && plain.result.summary.timing);
  EXPECT_LT(detect.result.summary.timing->control_messages, plain.result.summary.timing->control_messages / 4);
  EXPECT_EQ(detect.result.summary.final_total, 320);
  EXPECT_DOUBLE_EQ(to_json(detect)["summary"]["time_per_iteration"].get<double>(), *detect.result.summary.finished_at / 1000);
}

TEST(IterativeApplication, CostBenefitKeepsLoadHomeOnASlowNetwork) {
  const RunRecord dsl = app_run({"platform.latency=0.04", "platform.bandwidth=1.25e5", "app.cost_benefit=constant", "app.k=1",
                                 "app.work_per_unit=1e4"});
  EXPECT_EQ(dsl.result.summary.load_moved, 0);
  EXPECT_EQ(dsl.result.summary.nodes_with_load, 1u);
  const RunRecord lan = app_run({"app.cost_benefit=constant", "app.k=1"});
  EXPECT_GT(lan.result.summary.load_moved, 0);
}

TEST(IterativeApplication, ShakerBreaksTheStairway) {
  // The integer step problem: M_r on a line leaves steps of up to 2 units; the shaker moves them.
  const RunRecord stuck = app_run({"output.final_load=true"});
  const RunRecord shaken = app_run({"output.final_load=true", "shaker.kappa=0.01"});
  EXPECT_LT(shaken.result.summary.final_spread, stuck.result.summary.final_spread);
  EXPECT_EQ(shaken.result.summary.final_total, 320);
}

// W(t+1) = M_r^T W(t) (sec. 3.2, real load, no filter): what the application must do step for step.
std::vector<double> mr_iteration(const Graph& g, const RelativeSpeedMatrix& m, std::vector<double> w, int steps) {
  for (int t = 0; t < steps; ++t) {
    std::vector<double> next = w;
    for (NodeId i = 0; i < g.num_nodes(); ++i)
      for (Slot s = g.first_slot(i); s < g.end_slot(i); ++s) next[i] -= mr_flow(m.out[s], m.in[s], w[i], w[g.target(s)]);
    w = std::move(next);
  }
  return w;
}

TEST(IterativeApplication, RealLoadFollowsTheSynchronousMrIterationStepForStepUnderMixedTimings) {
  // Mixed speeds make nodes reach each step at different times, and the detection's set-up
  // releases them into step 0 at different times: step t must still decide on w_i(t), never on
  // transfers of step t that arrived early (Eq. 3 and the W(t+1) = M^T W(t) of sec. 3.2).
  for (const char* spec : {"line:6", "ring:7", "mesh:3x3", "hypercube:3", "random-regular:10,3"})
    for (const bool detection : {false, true})
      for (const int steps : {1, 2, 5, 8}) {
        const std::vector<std::string> sets = {"topology=" + std::string(spec), "load.mode=real", "load.init=uniform:0,1000",
                                               "platform.speed=uniform:1e8,4e9", "platform.latency=1.5e-4", "platform.bandwidth=1.25e7",
                                               "app.work_per_unit=1e5", "output.final_load=true",
                                               "app.detection=" + std::string(detection ? "true" : "false"),
                                               "app.iterations=" + std::to_string(steps)};
        Scenario s;
        for (const std::string& kv : {std::string("engine=des"), std::string("agent=iterative"), std::string("algorithm=mr"),
                                      std::string("mr.self=true")})
          s.set_from_text(kv, "test");
        for (const std::string& kv : sets) s.set_from_text(kv, "test");
        const PreparedRun p = prepare_run(s, 1);
        std::vector<double> c(p.topology.graph.num_nodes());
        for (NodeId i = 0; i < c.size(); ++i) c[i] = p.platform.node_speed(i);
        const auto expected = mr_iteration(p.topology.graph, relative_speed_matrix(p.topology.graph, c, true), p.initial, steps);
        const RunRecord r = run_scenario(s, 1);
        ASSERT_EQ(r.result.final_load.size(), expected.size());
        const double total = r.result.summary.initial_total;
        for (NodeId i = 0; i < expected.size(); ++i)
          EXPECT_NEAR(r.result.final_load[i], expected[i], 1e-9 * total)
              << spec << (detection ? " with detection" : "") << ", " << steps << " steps, node " << i;
      }
}

TEST(IterativeApplication, UnderADynamicLoadDetectionSetsHowOftenNodesBalance) {
  // A workload that changes nothing but is dynamic: detection no longer stops balancing; it
  // doubles the interval after each quiet phase, up to app.lb_every_max (64): a step every 64
  // iterations in the end instead of every iteration.
  const std::vector<std::string> still = {"app.iterations=1000", "workload.kind=dynamic", "workload.generation_mean=0",
                                          "workload.generation_variance=0", "workload.consumption=0"};
  auto with = [&](std::vector<std::string> more) {
    more.insert(more.begin(), still.begin(), still.end());
    return app_run(more);
  };
  const RunRecord plain = with({}), adapt = with({"app.detection=true"}), capped = with({"app.detection=true", "app.lb_every_max=4"});
  const auto data = [](const RunRecord& r) { return r.result.summary.timing->data_messages; };
  EXPECT_EQ(data(plain), 1000u * 30);  // one transfer message per edge and direction per step
  EXPECT_LT(data(adapt), data(plain) / 4);
  EXPECT_GE(data(adapt), 1000u / 64 * 30);
  EXPECT_LT(data(adapt), data(capped));
  EXPECT_GE(data(capped), 1000u / 4 * 30);
  EXPECT_TRUE(adapt.result.summary.finished_at);
  EXPECT_EQ(adapt.result.summary.final_total, 320);
  // Load that keeps appearing on the nodes at random keeps the rate up, and is conserved as
  // added: the same record on the rounds engine with 1 and 2 threads.
  const std::vector<std::string> noisy = {"app.iterations=300", "app.detection=true", "workload.kind=dynamic",
                                          "workload.generation_mean=2", "workload.generation_variance=4", "workload.consumption=2"};
  const RunRecord busy = app_run(noisy);
  EXPECT_GT(data(busy), 300u * 30 * 3 / 4);
  EXPECT_NE(busy.result.summary.final_total, 320);
  std::vector<std::string> rounds = noisy;
  rounds.push_back("engine=sync");
  set_thread_count(1);
  const RunRecord one = app_run(rounds);
  set_thread_count(2);
  const RunRecord two = app_run(rounds);
  set_thread_count(0);
  EXPECT_EQ(nlohmann::json(to_json(one)["summary"]).dump(), nlohmann::json(to_json(two)["summary"]).dump());
  EXPECT_NE(one.result.summary.final_total, 320);
}

// A node program that adds `delta` to its load at start.
struct Adder final : Program {
  double delta = 0;
  std::string name() const override { return "adder"; }
  std::unique_ptr<Agent> make_agent(NodeId) const override {
    struct A final : Agent {
      double d;
      explicit A(double delta) : d(delta) {}
      void start(Context& ctx) override { ctx.add_load(d); }
    };
    return std::make_unique<A>(delta);
  }
};

TEST(AddLoad, IsBookedAndRefusedBeyondWhatANodeHoldsOrInPartsOfUnits) {
  const Topology t = make_topology("line:3", 1);
  for (const std::string engine : {"des", "rounds"}) {
    Adder add;
    add.delta = 5;
    EXPECT_EQ(run_on(engine, t, add, platform_with({1e9}), {1, 2, 3}).summary.final_total, 21) << engine;
    add.delta = -2;  // node 0 holds 1
    EXPECT_THROW(run_on(engine, t, add, platform_with({1e9}), {1, 2, 3}), std::logic_error) << engine;
    add.delta = 0.5;
    EXPECT_THROW(run_on(engine, t, add, platform_with({1e9}), {1, 2, 3}), std::logic_error) << engine;
    EXPECT_NO_THROW(run_on(engine, t, add, platform_with({1e9}), {1, 2, 3}, LoadMode::real)) << engine;
  }
}

TEST(IterativeApplication, BadParametersAreInputErrors) {
  EXPECT_THROW(app_run({"shaker.kappa=0"}), InputError);
  EXPECT_THROW(app_run({"shaker.kappa=-1"}), InputError);
  EXPECT_THROW(app_run({"shaker.kappa=0.1", "shaker.part=1.5"}), InputError);
  EXPECT_THROW(app_run({"shaker.kappa=0.1", "shaker.part=some"}), InputError);
  EXPECT_THROW(app_run({"shaker.part=0.5"}), InputError);  // no shaker to apply it to
  EXPECT_NO_THROW(app_run({"shaker.kappa=0.1", "shaker.part=0.5", "app.iterations=5"}));
  EXPECT_THROW(app_run({"app.cost_benefit=sometimes"}), InputError);
  EXPECT_THROW(app_run({"app.k=0"}), InputError);
  EXPECT_THROW(app_run({"app.lb_every=0"}), InputError);
  EXPECT_THROW(app_run({"app.lb_every=8", "app.lb_every_max=4", "app.detection=true", "workload.kind=dynamic"}), InputError);
  EXPECT_THROW(app_run({"app.lb_every_max=4"}), InputError);  // static load: nothing to adapt
  EXPECT_THROW(app_run({"workload.kind=dynamic", "workload.consumption=-1"}), InputError);
  EXPECT_THROW(app_run({"algorithm=fos"}), InputError);
  EXPECT_THROW(app_run({"platform.speed=0"}), InputError);
  EXPECT_THROW(app_run({"load.mode=real", "shaker.kappa=0.1"}), InputError);
}

// --- balance relative to speed --------------------------------------------------------------

using test::run_sets;

TEST(RelativeImbalance, NuAndTheBandAreMeasuredAgainstSpeedProportionalShares) {
  // M_r converges to C_i W / sum C (Theorem 1): nu against those shares falls to the target, where
  // nu against the mean would stay large; the des band around each node's share is reached.
  const std::vector<std::string> base = {"topology=torus:5x5", "algorithm=mr", "platform.speed=uniform:1e8,4e9",
                                         "load.init=uniform:0,1000", "output.final_load=true"};
  auto with = [&](std::vector<std::string> more) {
    more.insert(more.begin(), base.begin(), base.end());
    return run_sets(more);
  };
  const RunRecord sync = with({"stop.imbalance=1e-6"});
  EXPECT_EQ(sync.result.summary.stop_reason, StopReason::imbalance);
  EXPECT_LE(sync.result.summary.final_imbalance, 1e-6);
  double mean = 0, nu_mean = 0;
  for (double x : sync.result.final_load) mean += x / 25;
  for (double x : sync.result.final_load) nu_mean += (x - mean) * (x - mean);
  EXPECT_GT(nu_mean, 1e4);
  const RunRecord des = with({"engine=des", "agent=rounds", "stop.band=0.01"});
  EXPECT_TRUE(des.result.summary.balanced);
  EXPECT_EQ(des.result.summary.stop_reason, StopReason::balanced);
  const RunRecord levelled = with({"engine=des", "agent=async", "algorithm=fos", "stop.time=5"});
  EXPECT_FALSE(levelled.result.summary.balanced);  // FOS levels loads to the mean, not to the shares
}

TEST(RelativeImbalance, EqualSpeedsGiveXusFactorBitForBit) {
  const std::vector<std::string> base = {"topology=mesh:6x5", "algorithm=fos", "stop.steps=30", "output.final_load=true"};
  auto with = [&](const std::string& speed) {
    std::vector<std::string> sets = base;
    sets.push_back("platform.speed=" + speed);
    return run_sets(sets);
  };
  const RunRecord one = with("2e9"), each = with("uniform:2e9,2e9");
  EXPECT_EQ(one.result.summary.final_imbalance, each.result.summary.final_imbalance);
  ASSERT_EQ(one.result.series.size(), each.result.series.size());
  for (std::size_t k = 0; k < one.result.series.size(); ++k) EXPECT_EQ(one.result.series[k].imbalance, each.result.series[k].imbalance);
  double mean = 0, nu = 0;
  for (double x : one.result.final_load) mean += x;
  mean /= static_cast<double>(one.result.final_load.size());
  for (double x : one.result.final_load) nu += (x - mean) * (x - mean);
  EXPECT_NEAR(one.result.summary.final_imbalance, nu, 1e-9 * nu);
}

}  // namespace
}  // namespace nnlb

namespace nnlb {
namespace {

TEST(IterativeApplication, ConsumingMoreThanANodeHoldsEmptiesItExactly) {
  // workload.consumption above the generation mean: nodes run dry (documented: at most what a
  // node holds is consumed). A node that consumes all it holds ends at exactly 0 whatever the
  // rounding of held + generated, and a node that sends all it holds never asks for an ulp more.
  for (const char* engine : {"engine=sync", "engine=des"}) {
    const RunRecord r = test::run_sets({engine, "agent=iterative", "algorithm=mr", "workload.kind=dynamic", "workload.consumption=110",
                                        "app.iterations=300"});
    EXPECT_TRUE(r.result.summary.finished_at) << engine;
    EXPECT_LE(r.result.summary.max_conservation_error, 1e-9) << engine;
  }
}

}  // namespace
}  // namespace nnlb
