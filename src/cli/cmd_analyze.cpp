#include <cmath>
#include <fmt/format.h>

#include "commands.hpp"
#include "nnlb/experiment/run.hpp"
#include "nnlb/metrics/load_stats.hpp"
#include "nnlb/spectral/analysis.hpp"
#include "nnlb/util/error.hpp"

namespace nnlb::cli {

namespace {

struct AnalyzeOptions {
  ScenarioOptions scenario;
  std::optional<double> initial;
  std::optional<double> target;
  bool measure = false;
  std::string format = "table";
};

std::string steps_text(double v) { return std::isfinite(v) ? fmt::format("{:.0f}", v) : "never (gamma >= 1)"; }

int analyze_command(const AnalyzeOptions& o) {
  const Scenario s = o.scenario.load();
  const auto seed = static_cast<std::uint64_t>(s.integer("seed"));
  const PreparedRun run = prepare_run(s, seed, {.analysis = true});
  const Topology& topo = run.topology;
  AnalysisRequest req;
  req.port = s.text("port") == "one" ? PortModel::one : PortModel::all;
  req.target_imbalance = o.target ? *o.target : s.optional_number("stop.imbalance").value_or(1.0);
  if (!(req.target_imbalance > 0) || !std::isfinite(req.target_imbalance))
    throw o.target ? InputError("--target", {}, fmt::format("must be an imbalance factor nu > 0, got {}", req.target_imbalance))
                   : InputError(s.source(), "stop.imbalance", "analyze needs a target nu > 0 (or --target)");
  // Default nu(0): that of the scenario's own initial load for this seed.
  req.initial_imbalance = o.initial ? *o.initial : load_stats<double>(run.initial).imbalance;
  if (o.initial && (!(*o.initial > 0) || !std::isfinite(*o.initial)))
    throw InputError("--initial-imbalance", {}, fmt::format("must be an imbalance factor nu > 0, got {}", *o.initial));
  const BuiltPolicy& built = run.policy;
  if (!built.policy)  // a task program or a job strategy: no iteration of the loads to analyse
    throw InputError(s.source(), "algorithm",
                     "analyze covers diffusion (fos, adf, odf, sos, mr) and dimension exchange (de, ade, ode), not '" + s.text("algorithm") +
                         "', which moves " + (built.domain ? "whole jobs" : "tasks") + " by its own protocol");
  const Analysis a = analyze(topo, *built.policy, nullptr, req);
  nlohmann::json j = {{"topology", topo.spec},
                      {"nodes", topo.graph.num_nodes()},
                      {"algorithm", a.algorithm},
                      {"iteration", a.iteration},
                      {"gamma_per_iteration", a.gamma_per_iteration},
                      {"steps_per_iteration", a.steps_per_iteration},
                      {"gamma_per_step", a.gamma_per_step},
                      {"initial_imbalance", req.initial_imbalance},
                      {"target_imbalance", req.target_imbalance},
                      {"predicted_steps", std::isfinite(a.predicted_steps) ? nlohmann::json(a.predicted_steps) : nlohmann::json(nullptr)},
                      {"method", a.method},
                      {"solver_converged", a.converged}};
  for (const auto& [k, v] : a.parameters) j["parameters"][k] = v;
  if (a.lambda2 > 0) j["laplacian"] = {{"lambda2", a.lambda2}, {"lambda_max", a.lambda_max}};
  if (o.measure) {
    Scenario m = s;
    m.set("stop.imbalance", req.target_imbalance, "analyze --measure");
    m.set("output.series_every", 0, "analyze --measure");
    const RunRecord rec = run_scenario(m, seed);
    j["measured_steps"] = rec.result.summary.steps_to_balance ? nlohmann::json(*rec.result.summary.steps_to_balance) : nlohmann::json(nullptr);
  }
  if (o.format == "json") {
    fmt::print("{}\n", j.dump(1));
    return 0;
  }
  std::string params;
  for (const auto& [k, v] : a.parameters) params += fmt::format(" {}={:.6g}", k, v);
  fmt::print("{} on {} ({} nodes){}\n", a.algorithm, topo.spec, topo.graph.num_nodes(), params);
  if (a.lambda2 > 0) fmt::print("Laplacian: lambda_2 = {:.8g}, lambda_max = {:.8g}\n", a.lambda2, a.lambda_max);
  fmt::print("subdominant eigenvalue gamma = {:.10f} per {} ({} step{}), {:.10f} per step  [{}{}]\n", a.gamma_per_iteration, a.iteration,
             a.steps_per_iteration, a.steps_per_iteration == 1 ? "" : "s", a.gamma_per_step, a.method,
             a.converged ? "" : ", solver hit its iteration cap");
  fmt::print("predicted steps to nu <= {:g} from nu(0) = {:.6g} (Xu et al. Eq. 7): {}\n", req.target_imbalance, req.initial_imbalance,
             steps_text(a.predicted_steps));
  if (o.measure) fmt::print("measured by the synchronous engine: {}\n", j["measured_steps"].is_null() ? "not reached" : j["measured_steps"].dump());
  return 0;
}

}  // namespace

Action add_analyze(CLI::App& app) {
  auto o = std::make_shared<AnalyzeOptions>();
  o->scenario.add_to(app);
  app.add_option("--initial-imbalance", o->initial, "nu(0) (default: that of the scenario's load.init for its seed)");
  app.add_option("--target", o->target, "target nu (default: stop.imbalance, else 1)");
  app.add_flag("--measure", o->measure, "also run the synchronous engine and report the measured steps");
  app.add_option("--format", o->format, "table or json")->check(CLI::IsMember({"table", "json"}));
  add_memory_option(app);
  return [o] { return analyze_command(*o); };
}

}  // namespace nnlb::cli
