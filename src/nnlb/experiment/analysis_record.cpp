#include "nnlb/experiment/analysis_record.hpp"

#include <cmath>
#include <string>

#include <fmt/format.h>

#include "nnlb/experiment/run.hpp"
#include "nnlb/metrics/load_stats.hpp"
#include "nnlb/spectral/analysis.hpp"
#include "nnlb/util/error.hpp"

namespace nnlb {

using nlohmann::json;

json analyze_scenario(const Scenario& s, const AnalysisAsk& ask) {
  const auto seed = static_cast<std::uint64_t>(s.integer("seed"));
  const PreparedRun run = prepare_run(s, seed, {.analysis = true});
  const Topology& topo = run.topology;
  AnalysisRequest req;
  req.port = s.text("port") == "one" ? PortModel::one : PortModel::all;
  req.target_imbalance = ask.target ? *ask.target : s.optional_number("stop.imbalance").value_or(1.0);
  if (!(req.target_imbalance > 0) || !std::isfinite(req.target_imbalance))
    throw ask.target ? InputError("--target", {}, fmt::format("must be an imbalance factor nu > 0, got {}", req.target_imbalance))
                     : InputError(s.source(), "stop.imbalance", "analyze needs a target nu > 0 (or --target)");
  req.initial_imbalance = ask.initial ? *ask.initial : load_stats<double>(run.initial).imbalance;
  if (ask.initial && (!(*ask.initial > 0) || !std::isfinite(*ask.initial)))
    throw InputError("--initial-imbalance", {}, fmt::format("must be an imbalance factor nu > 0, got {}", *ask.initial));
  const BuiltPolicy& built = run.policy;
  if (!built.policy)  // a task program or a job strategy: no iteration of the loads to analyse
    throw InputError(s.source(), "algorithm",
                     "analyze covers diffusion (fos, adf, odf, sos, mr) and dimension exchange (de, ade, ode), not '" + s.text("algorithm") +
                         "', which moves " + (built.domain ? "whole jobs" : "tasks") + " by its own protocol");
  const Analysis a = analyze(topo, *built.policy, nullptr, req);
  json j = {{"topology", topo.spec},
            {"nodes", topo.graph.num_nodes()},
            {"algorithm", a.algorithm},
            {"iteration", a.iteration},
            {"gamma_per_iteration", a.gamma_per_iteration},
            {"steps_per_iteration", a.steps_per_iteration},
            {"gamma_per_step", a.gamma_per_step},
            {"initial_imbalance", req.initial_imbalance},
            {"target_imbalance", req.target_imbalance},
            {"predicted_steps", std::isfinite(a.predicted_steps) ? json(a.predicted_steps) : json(nullptr)},
            {"method", a.method},
            {"solver_converged", a.converged}};
  for (const auto& [k, v] : a.parameters) j["parameters"][k] = v;
  if (a.lambda2 > 0) j["laplacian"] = {{"lambda2", a.lambda2}, {"lambda_max", a.lambda_max}};
  if (ask.measure) {
    Scenario m = s;
    m.set("stop.imbalance", req.target_imbalance, "analyze --measure");
    m.set("output.series_every", 0, "analyze --measure");
    const RunRecord rec = run_scenario(m, seed);
    j["measured_steps"] = rec.result.summary.steps_to_balance ? json(*rec.result.summary.steps_to_balance) : json(nullptr);
  }
  return j;
}

}  // namespace nnlb
