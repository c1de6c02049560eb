#include "nnlb/spectral/analysis.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "nnlb/spectral/spectrum.hpp"
#include "nnlb/util/error.hpp"

namespace nnlb {

namespace {

// Xu et al. Eq. 7 with nu a squared norm: nu(t) ~ gamma^(2t) nu(0).
double iterations_to_balance(double gamma, double initial, double target) {
  if (initial <= target) return 0;
  if (gamma >= 1) return std::numeric_limits<double>::infinity();
  if (gamma <= 0) return 0;  // one application already balances; predicted_steps counts one round
  return std::log(target / initial) / (2.0 * std::log(gamma));
}

}  // namespace

Analysis analyze(const Topology& topo, const Policy& policy, const EdgeColoring* coloring, const AnalysisRequest& req) {
  const Graph& g = topo.graph;
  Analysis a;
  a.algorithm = policy.name();
  Gamma gamma;
  std::uint64_t rounds_per_iteration = 1, steps_per_round = 1;  // as the synchronous engine counts
  if (const auto linear = policy.linear_form()) {
    const LinearForm form = *linear;
    if (form.rule == LinearForm::AlphaRule::uniform) {
      const LaplacianExtremes ext = laplacian_extremes(g);
      gamma = {uniform_fos_gamma(ext, form.alpha), ext.method, ext.iterations, ext.converged};
      a.lambda2 = ext.lambda2, a.lambda_max = ext.lambda_max;
      a.parameters.emplace_back("alpha", form.alpha);
    } else {
      gamma = fos_gamma(g, form);
    }
    if (form.beta != 1.0) {
      // SOS (Ghosh et al. 1996): asymptotic factor per round sqrt(beta - 1) for beta at or above
      // the optimum, larger below it (sos_gamma). At the optimum the dominant eigenvalue is
      // defective, so nu decays like t^2 (beta - 1)^t: the prediction is asymptotic.
      a.parameters.emplace_back("beta", form.beta);
      a.parameters.emplace_back("gamma_fos", gamma.value);
      a.parameters.emplace_back("beta_optimal", sos_optimal_beta(gamma.value));
      gamma.value = sos_gamma(gamma.value, form.beta);
    }
    a.iteration = "round";
    steps_per_round = req.port == PortModel::all ? 1 : g.max_degree();
  } else if (const auto lambda = policy.exchange_lambda()) {
    const EdgeColoring own = coloring ? EdgeColoring{} : edge_coloring_for(topo);
    const EdgeColoring& c = coloring ? *coloring : own;
    gamma = de_sweep_gamma(g, c, *lambda);
    a.parameters.emplace_back("lambda", *lambda);
    a.iteration = "sweep";
    rounds_per_iteration = c.num_colors;  // one colour class per round, one step each in both port models
  } else {
    throw InputError({}, "algorithm", "analyze covers diffusion (fos, adf, odf, sos, mr) and dimension exchange (de, ade, ode), not '" +
                                          policy.name() + "'");
  }
  a.gamma_per_iteration = gamma.value;
  a.method = gamma.method;
  a.converged = gamma.converged;
  a.steps_per_iteration = rounds_per_iteration * steps_per_round;
  a.gamma_per_step = std::pow(gamma.value, 1.0 / static_cast<double>(a.steps_per_iteration));
  a.predicted_iterations = iterations_to_balance(gamma.value, req.initial_imbalance, req.target_imbalance);
  if (req.initial_imbalance > req.target_imbalance) {
    const double rounds = std::max(1.0, std::ceil(a.predicted_iterations * static_cast<double>(rounds_per_iteration)));
    a.predicted_steps = rounds * static_cast<double>(steps_per_round);
  }
  return a;
}

double expected_initial_imbalance_uniform(NodeId n, double lo, double hi) {
  return (static_cast<double>(n) - 1.0) * (hi - lo) * (hi - lo) / 12.0;
}

}  // namespace nnlb
