#include <cmath>
#include <fmt/format.h>

#include "commands.hpp"
#include "nnlb/experiment/analysis_record.hpp"

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
  const nlohmann::json j = analyze_scenario(o.scenario.load(), {o.initial, o.target, o.measure});
  if (o.format == "json") {
    fmt::print("{}\n", j.dump(1));
    return 0;
  }
  std::string params;
  if (j.contains("parameters"))
    for (const auto& [k, v] : j["parameters"].items()) params += fmt::format(" {}={:.6g}", k, v.get<double>());
  const auto number = [&](const char* key) { return j[key].get<double>(); };
  fmt::print("{} on {} ({} nodes){}\n", j["algorithm"].get<std::string>(), j["topology"].get<std::string>(), j["nodes"].dump(), params);
  if (j.contains("laplacian"))
    fmt::print("Laplacian: lambda_2 = {:.8g}, lambda_max = {:.8g}\n", j["laplacian"]["lambda2"].get<double>(), j["laplacian"]["lambda_max"].get<double>());
  const auto steps = j["steps_per_iteration"].dump();
  fmt::print("subdominant eigenvalue gamma = {:.10f} per {} ({} step{}), {:.10f} per step  [{}{}]\n", number("gamma_per_iteration"),
             j["iteration"].get<std::string>(), steps, steps == "1" ? "" : "s", number("gamma_per_step"), j["method"].get<std::string>(),
             j["solver_converged"].get<bool>() ? "" : ", solver hit its iteration cap");
  const double predicted = j["predicted_steps"].is_null() ? INFINITY : number("predicted_steps");
  fmt::print("predicted steps to nu <= {:g} from nu(0) = {:.6g} (Xu et al. Eq. 7): {}\n", number("target_imbalance"), number("initial_imbalance"),
             steps_text(predicted));
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
