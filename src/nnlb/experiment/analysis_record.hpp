#pragma once
// `nnlb analyze` as a record: the subdominant eigenvalue of a scenario's iteration and the steps
// Xu et al.'s Eq. 7 predicts (spectral/analysis.hpp), optionally beside the steps measured by a
// synchronous run. The CLI prints it; the Python module returns it.
#include <optional>

#include <nlohmann/json.hpp>

#include "nnlb/experiment/scenario.hpp"

namespace nnlb {

struct AnalysisAsk {
  std::optional<double> initial;  // nu(0); default: that of the scenario's load.init for its seed
  std::optional<double> target;   // target nu; default: stop.imbalance, else 1
  bool measure = false;           // also run the synchronous engine: "measured_steps"
};

// Fields: topology, nodes, algorithm, iteration, gamma_per_iteration, steps_per_iteration,
// gamma_per_step, initial_imbalance, target_imbalance, predicted_steps (null: never), method,
// solver_converged, parameters, laplacian (lambda2, lambda_max) where defined, measured_steps.
// InputError for bad keys, a policy without an iteration to analyse, nu values <= 0.
nlohmann::json analyze_scenario(const Scenario& s, const AnalysisAsk& ask);

}  // namespace nnlb
