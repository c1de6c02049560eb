#pragma once
// `nnlb analyze`: the efficiency of a synchronous scheme predicted from its spectrum (Xu et al.
// 1995, Eq. 7 and Table 1). The imbalance nu = ||W - W_bar||^2 is a squared norm, so
// nu(t) ~ gamma^(2t) nu(0) and reaching nu <= target takes ln(target / nu(0)) / (2 ln gamma)
// iterations of the operator F. Steps are counted as the synchronous engine counts them.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "nnlb/model/edge_coloring.hpp"
#include "nnlb/model/port.hpp"
#include "nnlb/model/topology.hpp"
#include "nnlb/policy/policy.hpp"

namespace nnlb {

struct AnalysisRequest {
  double initial_imbalance = 0;   // nu(0)
  double target_imbalance = 1.0;  // balanced when nu <= this (Xu et al. sec. 5)
  PortModel port = PortModel::all;
};

struct Analysis {
  std::string algorithm;                   // the policy's name
  double gamma_per_iteration = 0;          // subdominant modulus of F
  std::string iteration;                   // "round" (FOS, SOS: one application of F) or "sweep" (DE: every colour once)
  std::uint64_t steps_per_iteration = 1;   // FOS/SOS: 1 all-port, d(G) one-port; DE: number of colours
  double gamma_per_step = 0;               // gamma^(1 / steps_per_iteration)
  double predicted_iterations = 0;         // +infinity when gamma >= 1 (does not converge)
  double predicted_steps = 0;              // whole engine rounds times their step cost; +infinity likewise
  std::string method;                      // how gamma was computed: "dense", "lanczos", "power"
  bool converged = true;                   // false if the iterative solver hit its cap
  std::vector<std::pair<std::string, double>> parameters;  // alpha, beta, lambda, ...
  double lambda2 = 0, lambda_max = 0;      // Laplacian extremes, for diffusion with a uniform alpha (else 0)
};

// FOS and SOS are recognised by Policy::linear_form() (SOS when beta != 1), dimension exchange by
// Policy::exchange_lambda(); anything else is refused (InputError, key "algorithm"). `coloring` is used
// by dimension exchange; when null, edge_coloring_for(topo) is used.
Analysis analyze(const Topology& topo, const Policy& policy, const EdgeColoring* coloring, const AnalysisRequest& req);

// Expected nu(0) for i.i.d. uniform loads on [lo, hi] ("uniform:LO,HI"): E[sum (w_i - mean)^2]
// = (n - 1) sigma^2 with sigma^2 = (hi - lo)^2 / 12. (Integer draws LO..HI have variance
// ((hi - lo + 1)^2 - 1) / 12, a negligible difference for the usual ranges.)
double expected_initial_imbalance_uniform(NodeId n, double lo, double hi);

}  // namespace nnlb
