// Synchronous engine: hand-checked cases, conservation, the dense-matrix iteration it must equal,
// fused vs per-node paths, thread-count independence, invocation and step accounting.
#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <numeric>

#include "nnlb/catalog/registry.hpp"
#include "nnlb/engine/sync/grid_stencil.hpp"
#include "nnlb/engine/sync/sync_engine.hpp"
#include "support.hpp"
#include "nnlb/model/edge_coloring.hpp"
#include "nnlb/model/load.hpp"
#include "nnlb/model/topology.hpp"
#include "nnlb/policy/diffusion.hpp"
#include "nnlb/policy/dimension_exchange.hpp"
#include "nnlb/util/error.hpp"
#include "nnlb/util/parallel.hpp"

namespace nnlb {
namespace {

Platform unit_platform() { return Platform{{1.0}, {0.0}, {1.0}}; }

struct Case {
  Topology topo;
  BuiltPolicy built;
  EdgeColoring coloring;
};

Case make_case(const std::string& topology, const std::string& algorithm, const std::string& alpha = {},
               const std::string& lambda = {}) {
  Case c{make_topology(topology, 7), {}, {}};
  PolicySpec spec{algorithm, {}};
  if (!alpha.empty()) spec.values["alpha"] = alpha;
  if (!lambda.empty()) spec.values["lambda"] = lambda;
  c.built = make_policy(spec, c.topo);
  if (c.built.policy->pairing() == Pairing::matching) c.coloring = edge_coloring_for(c.topo);
  return c;
}

RunResult run(const Case& c, LoadMode mode, const std::vector<double>& w0, SyncOptions opt) {
  opt.record_final_load = true;
  return run_sync(c.topo, *c.built.policy, &c.coloring, mode, w0, unit_platform(), opt);
}

SyncOptions steps(std::uint64_t n) {
  SyncOptions o;
  o.stop.max_steps = n;
  return o;
}

TEST(SyncEngine, ConservationCheckCatchesALostDoubledOrAlteredTransfer) {
  // The check recounts every node's load after each round; an injected fault must make it fire,
  // on the fused path (FOS) and the per-node one (ADE), real and integer.
  for (const char* algorithm : {"fos", "ade"}) {
    const auto c = make_case("torus:4x4", algorithm);
    std::vector<double> w0(16, 0.0);
    w0[0] = 1600;
    for (LoadMode mode : {LoadMode::real, LoadMode::integer}) {
      for (int fault = 0; fault < 3; ++fault) {
        SyncOptions o = steps(20);
        (fault == 0 ? o.faults.drop_every : fault == 1 ? o.faults.duplicate_every : o.faults.corrupt_every) = 3;
        EXPECT_THROW(run(c, mode, w0, o), ConservationError) << algorithm << " fault " << fault;
      }
      EXPECT_NO_THROW(run(c, mode, w0, steps(20))) << algorithm;
    }
  }
}

TEST(SyncEngine, TwoNodesMeetInTheMiddle) {
  // line:2 has d(G) = 1, so Cybenko's alpha is 1/2: one FOS step balances exactly.
  const auto c = make_case("line:2", "fos");
  const auto r = run(c, LoadMode::real, {10, 0}, steps(1));
  EXPECT_EQ(r.final_load, (std::vector<double>{5, 5}));
  EXPECT_DOUBLE_EQ(r.summary.load_moved, 5);
  // Dimension exchange with lambda 1/2 (ADE) does the same in one colour step.
  const auto d = make_case("line:2", "ade");
  EXPECT_EQ(run(d, LoadMode::real, {10, 0}, steps(1)).final_load, (std::vector<double>{5, 5}));
}

TEST(SyncEngine, IntegerStepsOnALineStayStuck) {
  // Jeannot & Vernier 2006 sec. 3.3: {3,2,1,0} on a line of 4 cannot be balanced by plain
  // diffusion with indivisible loads: floor(alpha * 1) = 0 on every edge.
  const auto c = make_case("line:4", "fos");
  SyncOptions o = steps(100);
  o.stop.quiescent = true;
  const auto r = run(c, LoadMode::integer, {3, 2, 1, 0}, o);
  EXPECT_EQ(r.final_load, (std::vector<double>{3, 2, 1, 0}));
  EXPECT_EQ(r.summary.stop_reason, StopReason::quiet);
  EXPECT_EQ(r.summary.steps, 1u);
  // Real loads do converge from the same start.
  SyncOptions real = steps(10000);
  real.stop.imbalance = 1e-6;
  EXPECT_TRUE(run(c, LoadMode::real, {3, 2, 1, 0}, real).summary.balanced);
}

// Dense iteration matrices, built independently from the engine.
Eigen::MatrixXd fos_matrix(const Graph& g, double alpha) {
  Eigen::MatrixXd M = Eigen::MatrixXd::Identity(g.num_nodes(), g.num_nodes());
  for (NodeId i = 0; i < g.num_nodes(); ++i)
    for (NodeId j : g.neighbors(i)) M(i, j) += alpha, M(i, i) -= alpha;
  return M;
}

Eigen::VectorXd as_vector(const std::vector<double>& w) { return Eigen::Map<const Eigen::VectorXd>(w.data(), static_cast<Eigen::Index>(w.size())); }

std::vector<double> random_loads(NodeId n, std::uint64_t seed) { return make_initial_load("uniform:0,1000", n, LoadMode::real, seed); }

TEST(SyncEngine, FosEqualsDenseMatrixIteration) {
  for (const char* spec : {"mesh:5x7", "torus:6x6", "hypercube:5", "star:9", "ring:9"}) {
    const auto c = make_case(spec, "fos", "0.1");
    const auto w0 = random_loads(c.topo.graph.num_nodes(), 3);
    const auto r = run(c, LoadMode::real, w0, steps(25));
    Eigen::VectorXd expect = as_vector(w0);
    const Eigen::MatrixXd M = fos_matrix(c.topo.graph, 0.1);
    for (int t = 0; t < 25; ++t) expect = M * expect;
    EXPECT_LT((as_vector(r.final_load) - expect).norm(), 1e-9 * expect.norm()) << spec;
  }
}

TEST(SyncEngine, DimensionExchangeEqualsProductOfColourClasses) {
  for (const char* spec : {"mesh:6x5", "torus:5x6", "hypercube:4"}) {
    const auto c = make_case(spec, "de", {}, "0.37");
    const Graph& g = c.topo.graph;
    const auto w0 = random_loads(g.num_nodes(), 4);
    const std::uint64_t rounds = 3 * c.coloring.num_colors + 1;
    const auto r = run(c, LoadMode::real, w0, steps(rounds));
    Eigen::VectorXd expect = as_vector(w0);
    for (std::uint64_t t = 0; t < rounds; ++t) {
      Eigen::MatrixXd D = Eigen::MatrixXd::Identity(g.num_nodes(), g.num_nodes());
      for (NodeId i = 0; i < g.num_nodes(); ++i) {
        const Slot s = c.coloring.partner_slot(g, i, static_cast<std::uint32_t>(t % c.coloring.num_colors));
        if (s == g.num_slots()) continue;
        D(i, i) = 1 - 0.37;
        D(i, g.target(s)) = 0.37;
      }
      expect = D * expect;
    }
    EXPECT_LT((as_vector(r.final_load) - expect).norm(), 1e-9 * expect.norm()) << spec;
    EXPECT_EQ(r.summary.steps, rounds) << "each colour class costs one step";
  }
}

TEST(SyncEngine, SecondOrderSchemeEqualsItsRecurrence) {
  // W(1) = M W(0); W(t+1) = beta M W(t) + (1 - beta) W(t-1) (Ghosh, Muthukrishnan & Schultz).
  Topology topo = make_topology("torus:6x8", 1);
  LinearForm f;
  f.alpha = 0.15;
  f.beta = 1.6;
  SecondOrderDiffusion sos(f);
  const auto w0 = random_loads(topo.graph.num_nodes(), 5);
  SyncOptions o = steps(30);
  o.record_final_load = true;
  const auto r = run_sync(topo, sos, nullptr, LoadMode::real, w0, unit_platform(), o);
  const Eigen::MatrixXd M = fos_matrix(topo.graph, 0.15);
  Eigen::VectorXd prev = as_vector(w0), cur = M * prev;
  for (int t = 1; t < 30; ++t) {
    Eigen::VectorXd next = 1.6 * (M * cur) + (1 - 1.6) * prev;
    prev = cur;
    cur = next;
  }
  EXPECT_LT((as_vector(r.final_load) - cur).norm(), 1e-9 * cur.norm());
}

TEST(SyncEngine, SosNeedsFarFewerStepsThanFos) {
  const auto fos = make_case("torus:32x32", "fos", "optimal");
  Case sos = make_case("torus:32x32", "sos");
  const auto w0 = random_loads(fos.topo.graph.num_nodes(), 6);
  SyncOptions o = steps(100000);
  o.stop.imbalance = 1.0;
  const auto a = run(fos, LoadMode::real, w0, o);
  const auto b = run(sos, LoadMode::real, w0, o);
  ASSERT_TRUE(a.summary.balanced && b.summary.balanced);
  EXPECT_LT(*b.summary.steps_to_balance * 4, *a.summary.steps_to_balance);
}

TEST(SyncEngine, FusedAndPerNodePathsAgreeBitForBit) {
  for (const char* algorithm : {"fos", "sos"})
    for (LoadMode mode : {LoadMode::real, LoadMode::integer}) {
      const auto c = make_case("torus:12x9", algorithm, algorithm == std::string("fos") ? "boillat" : "");
      const auto w0 = make_initial_load("uniform:0,1000", c.topo.graph.num_nodes(), mode, 9);
      SyncOptions fused = steps(40), per_node = steps(40);
      per_node.allow_fused = false;
      const auto a = run(c, mode, w0, fused), b = run(c, mode, w0, per_node);
      EXPECT_EQ(a.final_load, b.final_load) << algorithm;
      EXPECT_EQ(a.summary.load_moved, b.summary.load_moved) << algorithm;
    }
}

TEST(SyncEngine, GridStencilGivesTheCsrPathsLoadsBitForBit) {
  // FOS with one alpha on 2-D meshes and tori runs as a row stencil (grid_stencil.hpp); the loads
  // must equal the per-node path's exactly, the load moved to rounding. torus:70x64 spans two
  // 4096-node blocks that split a row; torus:3x3 has a single interior node.
  for (const char* spec : {"torus:12x9", "mesh:7x11", "torus:3x3", "torus:70x64", "mesh:5x40"}) {
    const auto c = make_case(spec, "fos", "cybenko");
    ASSERT_TRUE(fos_grid_stencil(c.topo, *c.built.policy->linear_form())) << spec;
    const auto w0 = make_initial_load("uniform:0,1000", c.topo.graph.num_nodes(), LoadMode::real, 4);
    SyncOptions stencil = steps(30), per_node = steps(30);
    per_node.allow_fused = false;
    const auto a = run(c, LoadMode::real, w0, stencil), b = run(c, LoadMode::real, w0, per_node);
    EXPECT_EQ(a.final_load, b.final_load) << spec;
    EXPECT_NEAR(a.summary.load_moved, b.summary.load_moved, 1e-12 * b.summary.load_moved) << spec;
  }
  EXPECT_FALSE(fos_grid_stencil(make_topology("torus:2x8", 1), LinearForm{}));
  EXPECT_FALSE(fos_grid_stencil(make_topology("torus:4x4x4", 1), LinearForm{}));
}

TEST(SyncEngine, IntegerFosFollowsAReferenceLoop) {
  // FOS with indivisible loads, computed here edge by edge with each flow rounded down by the
  // more loaded end: the engine must give the same loads (and so the same step problem).
  const auto c = make_case("mesh:4x3", "fos");
  const Graph& g = c.topo.graph;
  const double alpha = 1.0 / (1 + g.max_degree());
  std::vector<double> w = make_initial_load("uniform:0,97", g.num_nodes(), LoadMode::integer, 8);
  const auto r = run(c, LoadMode::integer, w, steps(25));
  for (int step = 0; step < 25; ++step) {
    std::vector<double> next = w;
    for (NodeId i = 0; i < g.num_nodes(); ++i)
      for (NodeId j : g.neighbors(i))
        if (w[i] > w[j]) {
          const double flow = std::floor(alpha * (w[i] - w[j]));
          next[i] -= flow, next[j] += flow;
        }
    w = next;
  }
  EXPECT_EQ(r.final_load, w);
}

TEST(SyncEngine, ConservesLoadInEveryModeAndPolicy) {
  for (const char* algorithm : {"fos", "adf", "odf", "ade", "ode", "sos"})
    for (LoadMode mode : {LoadMode::real, LoadMode::integer}) {
      const auto c = make_case("mesh:9x7", algorithm);
      const auto w0 = make_initial_load("single:0,1000003", c.topo.graph.num_nodes(), mode, 2);
      const auto r = run(c, mode, w0, steps(300));
      const double total = std::accumulate(r.final_load.begin(), r.final_load.end(), 0.0);
      if (mode == LoadMode::integer) {
        EXPECT_EQ(total, 1000003.0) << algorithm;
      } else {
        EXPECT_NEAR(total, 1000003.0, 1e-9 * 1000003.0) << algorithm;
        EXPECT_LE(r.summary.max_conservation_error, 1e-12) << algorithm;
      }
    }
}

TEST(SyncEngine, SameResultWhateverTheThreadCount) {
  // More nodes than one reduction block, so several threads really share the work.
  for (const char* algorithm : {"fos", "ade"}) {
    const auto c = make_case("torus:90x90", algorithm);
    const auto w0 = random_loads(c.topo.graph.num_nodes(), 8);
    SyncOptions o = steps(20);
    o.workload.kind = Workload::Kind::dynamic;
    set_thread_count(1);
    const auto a = run(c, LoadMode::real, w0, o);
    set_thread_count(2);
    const auto b = run(c, LoadMode::real, w0, o);
    set_thread_count(4);
    const auto d = run(c, LoadMode::real, w0, o);
    EXPECT_EQ(a.final_load, b.final_load) << algorithm;
    EXPECT_EQ(a.final_load, d.final_load) << algorithm;
    ASSERT_EQ(a.series.size(), b.series.size());
    for (std::size_t i = 0; i < a.series.size(); ++i) EXPECT_EQ(a.series[i].imbalance, b.series[i].imbalance);
  }
  set_thread_count(0);
}

TEST(SyncEngine, ThresholdInvocationLeavesInBandNeighbourhoodsAlone) {
  // Only node 0 is out of [200, 800]; it balances with its neighbours (its balancing domain,
  // Xu et al. sec. 4.1); edges between in-band nodes stay idle.
  const auto c = make_case("line:5", "fos", "0.25");
  SyncOptions o = steps(1);
  o.invocation.kind = Invocation::Kind::threshold;
  const auto r = run(c, LoadMode::real, {1000, 500, 300, 700, 400}, o);
  EXPECT_DOUBLE_EQ(r.final_load[0], 1000 - 0.25 * 500);
  EXPECT_DOUBLE_EQ(r.final_load[1], 500 + 0.25 * 500);
  EXPECT_EQ(r.final_load[2], 300);
  EXPECT_EQ(r.final_load[3], 700);
  EXPECT_EQ(r.final_load[4], 400);
}

TEST(SyncEngine, OnePortDiffusionRoundCostsMaxDegreeSteps) {
  const auto c = make_case("mesh:4x4", "adf");
  SyncOptions o = steps(40);
  o.port = PortModel::one;
  const auto r = run(c, LoadMode::real, random_loads(16, 1), o);
  EXPECT_EQ(r.summary.rounds, 10u);
  EXPECT_EQ(r.summary.steps, 40u);
}

TEST(SyncEngine, DynamicWorkloadIsAccountedInConservation) {
  for (LoadMode mode : {LoadMode::real, LoadMode::integer}) {
    const auto c = make_case("mesh:8x8", "ade");
    SyncOptions o = steps(200);
    o.invocation.kind = Invocation::Kind::threshold;
    o.workload.kind = Workload::Kind::dynamic;
    const auto r = run(c, mode, make_initial_load("uniform:0,1000", 64, mode, 3), o);
    EXPECT_EQ(r.summary.steps, 200u);
    EXPECT_NE(r.summary.final_total, r.summary.initial_total);  // the workload does change the total
    for (double x : r.final_load) EXPECT_GE(x, 0);
  }
}

TEST(SyncEngine, StopRules) {
  const auto c = make_case("torus:8x8", "fos", "optimal");
  const auto w0 = random_loads(64, 11);
  SyncOptions o = steps(100000);
  o.stop.imbalance = 10.0;
  auto r = run(c, LoadMode::real, w0, o);
  EXPECT_EQ(r.summary.stop_reason, StopReason::imbalance);
  EXPECT_LE(r.summary.final_imbalance, 10.0);
  EXPECT_GT(r.series[r.series.size() - 2].imbalance, 10.0);
  o.stop.imbalance.reset();
  o.stop.spread = 1.0;
  r = run(c, LoadMode::real, w0, o);
  EXPECT_EQ(r.summary.stop_reason, StopReason::spread);
  EXPECT_LE(r.summary.final_spread, 1.0);
  EXPECT_EQ(r.summary.steps_to_balance, r.summary.steps);
  r = run(c, LoadMode::real, w0, steps(7));
  EXPECT_EQ(r.summary.stop_reason, StopReason::steps);
  EXPECT_FALSE(r.summary.steps_to_balance.has_value());
  EXPECT_EQ(r.series.size(), 8u);
}

}  // namespace
}  // namespace nnlb

namespace nnlb {
namespace {

TEST(SyncEngine, DeSweepCountedAsOneStepDoesTheSameExchanges) {
  const auto c = make_case("mesh:6x6", "ade");
  const auto w0 = random_loads(36, 12);
  SyncOptions per_class = steps(3 * c.coloring.num_colors), per_sweep = steps(3);
  per_sweep.de_sweep_is_one_step = true;
  const auto a = run(c, LoadMode::real, w0, per_class), b = run(c, LoadMode::real, w0, per_sweep);
  EXPECT_EQ(a.final_load, b.final_load);
  EXPECT_EQ(a.summary.steps, 12u);
  EXPECT_EQ(b.summary.steps, 3u);
}

TEST(InitialLoad, TotalsPerNode) {
  const auto single = make_initial_load("single:3,1000*N", 16, LoadMode::integer, 1);
  EXPECT_EQ(single[3], 16000.0);
  EXPECT_EQ(std::accumulate(single.begin(), single.end(), 0.0), 16000.0);
  const auto spread = make_initial_load("random-total:1000*N", 16, LoadMode::integer, 1);
  EXPECT_EQ(std::accumulate(spread.begin(), spread.end(), 0.0), 16000.0);
  EXPECT_GT(*std::max_element(spread.begin(), spread.end()), *std::min_element(spread.begin(), spread.end()));
  EXPECT_THROW(make_initial_load("single:0,-1*N", 4, LoadMode::real, 1), InputError);
  EXPECT_THROW(make_initial_load("single:0,0.5*N", 3, LoadMode::integer, 1), InputError);
}

}  // namespace
}  // namespace nnlb

namespace nnlb {
namespace {

TEST(SyncEngine, AnAlphaAtOrAboveTheStabilityBoundIsRefusedOrEndsDiverged) {
  // FOS is W(t+1) = (I - alpha L) W(t); on torus:8x8 lambda_max(L) = 8, so it diverges for
  // alpha >= 2/8 (alpha = 0.9 once drove loads to +-4e17 while the run reported success).
  EXPECT_TRUE(test::refused({"alpha=0.9"}, "alpha = 0.9 is at or above 2 / lambda_max(L) = 0.25"));
  EXPECT_TRUE(test::refused({"algorithm=sos", "alpha=0.3"}, "is at or above 2 / lambda_max(L) = 0.25"));
  const RunRecord r = test::run_sets({"alpha=0.9", "alpha.unstable=true"});
  const RunSummary& s = r.result.summary;
  EXPECT_EQ(s.stop_reason, StopReason::diverged);
  EXPECT_FALSE(s.balanced);
  EXPECT_LT(s.rounds, 50u);
  EXPECT_NEAR(s.final_total, s.initial_total, 1e-9 * s.initial_total);  // conservation checked until it diverged
  EXPECT_LE(s.max_conservation_error, 1e-9);
  // Just below the bound it converges.
  EXPECT_EQ(test::run_sets({"alpha=0.24", "stop.imbalance=1"}).result.summary.stop_reason, StopReason::imbalance);
}

}  // namespace
}  // namespace nnlb
