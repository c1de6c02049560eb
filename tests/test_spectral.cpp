// Spectra of the synchronous schemes (Xu et al. 1995, sec. 4.2) and the predictions of
// `nnlb analyze`: dense vs closed forms, iterative vs dense, and Xu's Table 1 scaling.
#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <numbers>
#include <string>

#include "nnlb/catalog/registry.hpp"
#include "nnlb/engine/sync/sync_engine.hpp"
#include "nnlb/metrics/load_stats.hpp"
#include "nnlb/model/edge_coloring.hpp"
#include "nnlb/model/load.hpp"
#include "nnlb/model/topology.hpp"
#include "nnlb/policy/diffusion.hpp"
#include "nnlb/spectral/analysis.hpp"
#include "nnlb/spectral/spectrum.hpp"
#include "nnlb/util/parallel.hpp"

namespace nnlb {
namespace {

constexpr double pi = std::numbers::pi;

// Largest eigenvalue modulus of F after dropping the eigenvalue closest to 1.
double subdominant_modulus(const Eigen::MatrixXd& F) {
  Eigen::EigenSolver<Eigen::MatrixXd> es(F, false);
  const auto& ev = es.eigenvalues();
  Eigen::Index drop = 0;
  for (Eigen::Index k = 0; k < ev.size(); ++k)
    if (std::abs(ev[k] - 1.0) < std::abs(ev[drop] - 1.0)) drop = k;
  double m = 0;
  for (Eigen::Index k = 0; k < ev.size(); ++k)
    if (k != drop) m = std::max(m, std::abs(ev[k]));
  return m;
}

// M = I - sum over edges alpha_ij (e_i - e_j)(e_i - e_j)^T, built edge by edge.
Eigen::MatrixXd fos_matrix(const Graph& g, const LinearForm& form) {
  Eigen::MatrixXd M = Eigen::MatrixXd::Identity(g.num_nodes(), g.num_nodes());
  for (NodeId i = 0; i < g.num_nodes(); ++i)
    for (NodeId j : g.neighbors(i))
      if (i < j) {
        const double a = form.alpha_ij(g.degree(i), g.degree(j));
        M(i, i) -= a, M(j, j) -= a, M(i, j) += a, M(j, i) += a;
      }
  return M;
}

BuiltPolicy policy(const char* algorithm, const Topology& t) {
  PolicySpec spec;
  spec.algorithm = algorithm;
  return make_policy(spec, t);
}

struct ClosedForm {
  const char* spec;
  double lambda2, lambda_max;
};

TEST(Spectrum, LaplacianExtremesMatchClosedForms) {
  const ClosedForm cases[] = {
      {"ring:10", 2 - 2 * std::cos(2 * pi / 10), 4},
      {"ring:16", 2 - 2 * std::cos(2 * pi / 16), 4},
      {"line:9", 2 - 2 * std::cos(pi / 9), 2 + 2 * std::cos(pi / 9)},
      {"line:30", 2 - 2 * std::cos(pi / 30), 2 + 2 * std::cos(pi / 30)},
      {"line:300", 2 - 2 * std::cos(pi / 300), 2 + 2 * std::cos(pi / 300)},  // Lanczos runs past n - 1 steps
      {"hypercube:5", 2, 10},
      {"complete:12", 12, 12},
  };
  for (const auto& c : cases) {
    const Topology t = make_topology(c.spec, 1);
    for (auto method : {SpectrumMethod::dense, SpectrumMethod::iterative}) {
      const auto e = laplacian_extremes(t.graph, method);
      EXPECT_NEAR(e.lambda2, c.lambda2, 1e-9) << c.spec << " " << e.method;
      EXPECT_NEAR(e.lambda_max, c.lambda_max, 1e-9) << c.spec << " " << e.method;
      EXPECT_TRUE(e.converged);
    }
  }
}

TEST(Spectrum, LanczosMatchesDense) {
  for (const char* spec : {"torus:24x24", "mesh:20x30", "random-regular:500,4", "p2p:400"}) {
    const Topology t = make_topology(spec, 3);
    const auto dense = laplacian_extremes(t.graph, SpectrumMethod::dense);
    const auto lanczos = laplacian_extremes(t.graph, SpectrumMethod::iterative);
    EXPECT_EQ(lanczos.method, "lanczos");
    EXPECT_TRUE(lanczos.converged) << spec;
    EXPECT_NEAR(lanczos.lambda2, dense.lambda2, 1e-6 * dense.lambda2) << spec;
    EXPECT_NEAR(lanczos.lambda_max, dense.lambda_max, 1e-6 * dense.lambda_max) << spec;
  }
}

TEST(Spectrum, AutomaticSwitchesToLanczosAboveTheDenseLimit) {
  const Topology t = make_topology("torus:40x40", 1);  // 1600 nodes > dense_spectrum_limit
  const auto e = laplacian_extremes(t.graph);
  EXPECT_EQ(e.method, "lanczos");
  EXPECT_NEAR(e.lambda2, 2 - 2 * std::cos(2 * pi / 40), 1e-8);
  EXPECT_NEAR(e.lambda_max, 8, 1e-8);
}

// Fixed start vectors and blocked reductions: bit-identical results for any thread count.
TEST(Spectrum, IterativeResultsDoNotDependOnThreadCount) {
  const Topology t = make_topology("random-regular:20000,3", 5);  // several reduction blocks
  const Topology cube = make_topology("hypercube:15", 1);          // sweep gamma |1 - 2 lambda|
  const EdgeColoring c = edge_coloring_for(cube);
  const int threads = thread_count();
  auto solve = [&](int n) {
    set_thread_count(n);
    return std::pair{laplacian_extremes(t.graph), de_sweep_gamma(cube.graph, c, 0.3)};
  };
  const auto [ext1, de1] = solve(1);
  const auto [ext2, de2] = solve(2);
  set_thread_count(threads);
  EXPECT_EQ(ext1.method, "lanczos");
  EXPECT_EQ(ext1.lambda2, ext2.lambda2);
  EXPECT_EQ(ext1.lambda_max, ext2.lambda_max);
  EXPECT_EQ(ext1.iterations, ext2.iterations);
  EXPECT_EQ(de1.method, "power");
  EXPECT_NEAR(de1.value, 0.4, 1e-6);
  EXPECT_EQ(de1.value, de2.value);
}

TEST(Spectrum, FosGammaMatchesEigenSolver) {
  for (const char* spec : {"mesh:6x5", "torus:8x6", "random-regular:60,3", "p2p:80"}) {
    const Topology t = make_topology(spec, 2);
    LinearForm uniform;
    uniform.alpha = 1.0 / (1.0 + t.graph.max_degree());
    LinearForm boillat;
    boillat.rule = LinearForm::AlphaRule::boillat;
    for (const LinearForm& form : {uniform, boillat}) {
      const double expected = subdominant_modulus(fos_matrix(t.graph, form));
      for (auto method : {SpectrumMethod::dense, SpectrumMethod::iterative}) {
        const Gamma gm = fos_gamma(t.graph, form, method);
        EXPECT_NEAR(gm.value, expected, 1e-9) << spec << " " << gm.method;
      }
    }
  }
}

TEST(Spectrum, DeSweepPowerMatchesDense) {
  const Topology t = make_topology("mesh:12x12", 1);
  const EdgeColoring c = edge_coloring_for(t);
  for (const char* algo : {"ade", "ode"}) {
    const double lambda = policy(algo, t).parameters.at(0).second;
    const Gamma dense = de_sweep_gamma(t.graph, c, lambda, SpectrumMethod::dense);
    const Gamma power = de_sweep_gamma(t.graph, c, lambda, SpectrumMethod::iterative);
    EXPECT_EQ(power.method, "power");
    EXPECT_TRUE(power.converged) << algo;
    EXPECT_NEAR(power.value, dense.value, 1e-4) << algo;
  }
}

// Xu et al. Table 1: on k x k meshes ADE needs O(k^2) sweeps and ODE O(k), i.e. 1 - gamma is
// Theta(1/k^2) for ADE and Theta(1/k) for ODE. Closed forms: cos^2(pi/k) and
// (1 - sin(pi/k)) / (1 + sin(pi/k)).
TEST(Spectrum, XuMeshScalingOfDimensionExchange) {
  auto gap = [](const char* algo, int k) {
    const Topology t = make_topology("mesh:" + std::to_string(k) + "x" + std::to_string(k), 1);
    const double lambda = policy(algo, t).parameters.at(0).second;
    const double gamma = de_sweep_gamma(t.graph, edge_coloring_for(t), lambda).value;
    const double s = std::sin(pi / k);
    EXPECT_NEAR(gamma, std::string(algo) == "ade" ? 1 - s * s : (1 - s) / (1 + s), 1e-6) << algo << " k=" << k;
    return 1 - gamma;
  };
  const double ade8 = gap("ade", 8), ade16 = gap("ade", 16), ode8 = gap("ode", 8), ode16 = gap("ode", 16);
  EXPECT_GT(ode16, 5 * ade16);
  EXPECT_NEAR(ade8 / ade16, 4.0, 1.0);
  EXPECT_NEAR(ode8 / ode16, 2.0, 0.5);
}

TEST(Analysis, FosOnRingMatchesEq7WithClosedFormGamma) {
  const Topology t = make_topology("ring:16", 1);
  LinearForm form;
  form.alpha = 1.0 / 3.0;
  const Diffusion fos(form);
  const double nu0 = 1e6;
  const double gamma = std::max(std::abs(1 - (2 - 2 * std::cos(2 * pi / 16)) / 3), std::abs(1 - 4.0 / 3));
  const double expected = std::ceil(std::log(1 / nu0) / (2 * std::log(gamma)));

  const Analysis all = analyze(t, fos, nullptr, {nu0, 1.0, PortModel::all});
  EXPECT_EQ(all.iteration, "round");
  EXPECT_NEAR(all.gamma_per_iteration, gamma, 1e-12);
  EXPECT_EQ(all.steps_per_iteration, 1u);
  EXPECT_EQ(all.predicted_steps, expected);

  const Analysis one = analyze(t, fos, nullptr, {nu0, 1.0, PortModel::one});  // d(G) = 2 steps per round
  EXPECT_EQ(one.steps_per_iteration, 2u);
  EXPECT_NEAR(one.gamma_per_step, std::sqrt(gamma), 1e-12);
  EXPECT_EQ(one.predicted_steps, 2 * expected);
}

// SOS iteration on (W(t), W(t-1)): [beta M, (1 - beta) I; I, 0].
TEST(Analysis, SosOptimalBetaAndFactor) {
  const Topology t = make_topology("ring:16", 1);
  LinearForm form;
  form.alpha = 1.0 / 3.0;
  const Eigen::MatrixXd M = fos_matrix(t.graph, form);
  const double gamma_fos = fos_gamma(t.graph, form).value;
  const double opt = sos_optimal_beta(gamma_fos);
  EXPECT_NEAR(opt, 2 / (1 + std::sqrt(1 - gamma_fos * gamma_fos)), 1e-15);
  auto sos_modulus = [&](double beta) {
    const Eigen::Index n = M.rows();
    Eigen::MatrixXd F = Eigen::MatrixXd::Zero(2 * n, 2 * n);
    F.topLeftCorner(n, n) = beta * M;
    F.topRightCorner(n, n) = (1 - beta) * Eigen::MatrixXd::Identity(n, n);
    F.bottomLeftCorner(n, n) = Eigen::MatrixXd::Identity(n, n);
    return subdominant_modulus(F);
  };
  for (double beta : {1.2, opt, 1.9}) EXPECT_NEAR(sos_gamma(gamma_fos, beta), sos_modulus(beta), 1e-6) << beta;
  EXPECT_NEAR(sos_gamma(gamma_fos, opt), std::sqrt(opt - 1), 1e-12);
  EXPECT_LT(sos_gamma(gamma_fos, opt), sos_gamma(gamma_fos, opt - 0.05));
  EXPECT_LT(sos_gamma(gamma_fos, opt), sos_gamma(gamma_fos, opt + 0.05));

  form.beta = opt;
  const Analysis a = analyze(t, SecondOrderDiffusion(form), nullptr, {1e6});
  EXPECT_NEAR(a.gamma_per_iteration, std::sqrt(opt - 1), 1e-12);
  EXPECT_LT(a.predicted_steps, analyze(t, Diffusion(LinearForm{.alpha = 1.0 / 3.0}), nullptr, {1e6}).predicted_steps);
}

// Predictions (Xu Eq. 7) against the synchronous engine on Xu's set-up: uniform loads on
// [0, 1000], balanced when nu <= 1.
TEST(Analysis, PredictionsAgreeWithTheSynchronousEngine) {
  const Topology t = make_topology("mesh:8x8", 1);
  const EdgeColoring c = edge_coloring_for(t);
  const auto w0 = make_initial_load("uniform:0,1000", t.graph.num_nodes(), LoadMode::real, 7);
  const double nu0 = load_stats<double>(w0).imbalance;
  Platform platform;
  platform.speed = {1.0};
  SyncOptions opt;
  opt.stop.imbalance = 1.0;
  opt.stop.max_steps = 100000;
  opt.series_every = 0;
  for (const char* algo : {"ade", "ode", "adf", "odf"}) {
    const BuiltPolicy p = policy(algo, t);
    const Analysis a = analyze(t, *p.policy, &c, {nu0});
    const bool exchange = p.policy->pairing() == Pairing::matching;
    EXPECT_EQ(a.iteration, exchange ? "sweep" : "round");
    EXPECT_EQ(a.steps_per_iteration, exchange ? c.num_colors : 1u);
    const RunResult r = run_sync(t, *p.policy, &c, LoadMode::real, w0, platform, opt);
    ASSERT_TRUE(r.summary.steps_to_balance) << algo;
    const double measured = static_cast<double>(*r.summary.steps_to_balance);
    EXPECT_GT(a.predicted_steps, measured / 2) << algo;
    EXPECT_LT(a.predicted_steps, measured * 2) << algo;
  }
}

TEST(Analysis, ExpectedUniformImbalance) {
  const NodeId n = 4096;
  EXPECT_DOUBLE_EQ(expected_initial_imbalance_uniform(n, 0, 1000), (n - 1) * 1e6 / 12);
  const auto w = make_initial_load("uniform:0,1000", n, LoadMode::real, 3);
  EXPECT_NEAR(load_stats<double>(w).imbalance / expected_initial_imbalance_uniform(n, 0, 1000), 1.0, 0.05);
}

}  // namespace
}  // namespace nnlb
