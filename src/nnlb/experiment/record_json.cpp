// The result record as JSON (docs/result-schema.md).
#include <string>

#include "nnlb/engine/registry.hpp"
#include "nnlb/experiment/run.hpp"
#include "nnlb/experiment/store.hpp"
#include "nnlb/version.hpp"

namespace nnlb {

using nlohmann::json;

json summary_json(const RunSummary& m) {
  json j = {{"stop_reason", std::string(name(m.stop_reason))},
            {"balanced", m.balanced},
            {"steps_to_balance", m.steps_to_balance ? json(*m.steps_to_balance) : json(nullptr)},
            // Rounds and steps are counted by the engines of rounds and time units; a timed engine has none.
            {"rounds", m.timing ? json(nullptr) : json(m.rounds)},
            {"steps", m.timing ? json(nullptr) : json(m.steps)},
            {"initial_imbalance", m.initial_imbalance},
            {"final_imbalance", m.final_imbalance},
            {"final_stddev", m.final_stddev},
            {"final_spread", m.final_spread},
            {"load_moved", m.load_moved},
            {"initial_total", m.initial_total},
            {"final_total", m.final_total},
            {"max_conservation_error", m.max_conservation_error}};
  if (m.timing) {
    const TimeMetrics& t = *m.timing;
    j["time"] = t.time;
    j["avg_idle_time"] = t.avg_idle_time;
    // Without convergence there is no convergence time (the paper leaves such bars out).
    j["avg_convergence_time"] = m.balanced ? json(t.avg_convergence_time) : json(nullptr);
    j["max_convergence_time"] = m.balanced ? json(t.max_convergence_time) : json(nullptr);
    j["data_transferred"] = t.data_transferred;
    j["control_messages"] = t.control_messages;
    j["data_messages"] = t.data_messages;
    j["events"] = t.events;
  }
  if (m.detected_at) j["detected_at"] = *m.detected_at;
  if (m.finished_at) j["finished_at"] = *m.finished_at;
  j["nodes_with_load"] = m.nodes_with_load;
  return j;
}

json to_json(const RunRecord& r) {
  // Simulated time only where there is some (des); sync counts rounds and steps.
  const EngineEntry* engine = find_engine(r.scenario.value("engine", ""));
  const bool timed = r.result.summary.timing.has_value() || (engine != nullptr && engine->time == TimeModel::time_units);
  json series = {{"round", json::array()}, {"steps", json::array()}, {"imbalance", json::array()}, {"stddev", json::array()},
                 {"min", json::array()},   {"max", json::array()},   {"mean", json::array()},      {"moved", json::array()}};
  if (timed) series["time"] = json::array();
  for (const auto& p : r.result.series) {
    series["round"].push_back(p.round);
    series["steps"].push_back(p.steps);
    if (timed) series["time"].push_back(p.time);
    series["imbalance"].push_back(p.imbalance);
    series["stddev"].push_back(p.stddev);
    series["min"].push_back(p.min);
    series["max"].push_back(p.max);
    series["mean"].push_back(p.mean);
    series["moved"].push_back(p.moved);
  }
  for (const auto& [name, values] : r.result.columns) series[name] = values;
  json summary = summary_json(r.result.summary);
  summary.update(r.summary_extra);
  json j = {{"nnlb_version", version},
            {"schema_version", record_schema_version},
            {"seed", r.seed},
            {"scenario", r.scenario},
            {"topology", r.topology},
            {"parameters", r.parameters},
            {"summary", std::move(summary)},
            {"series", series}};
  if (!r.result.engine_info.empty()) j["engine_info"] = r.result.engine_info;
  if (!r.result.final_load.empty() && r.scenario.value("output.final_load", false)) j["final_load"] = r.result.final_load;
  if (!r.result.load_history.steps.empty())
    j["load_history"] = {{"steps", r.result.load_history.steps}, {"loads", r.result.load_history.loads}};
  return j;
}

}  // namespace nnlb
