#include "nnlb/experiment/replay_setup.hpp"

#include <filesystem>
#include <memory>
#include <string>

#include "nnlb/experiment/run_memory.hpp"
#include "nnlb/experiment/scenario_checks.hpp"
#include "nnlb/util/memory.hpp"

namespace nnlb {

using nlohmann::json;

// When the loads first were balanced at a step (the band of stop.band), on the recorded run and
// in the replay, and what the recorded run was.
json replay_summary(const LoadTrace& trace, const RunSummary& sum) {
  auto note = [&](const char* key) { return sum.notes.contains(key) ? json(sum.notes.at(key)) : json(nullptr); };
  json j = {{"trace_balanced_at", note("trace_balanced_at")},
            {"trace_balanced_step", note("trace_balanced_step")},
            {"replay_balanced_at", note("replay_balanced_at")},
            {"replay_balanced_step", note("replay_balanced_step")},
            {"trace_end", trace.end}};
  if (const auto p = trace.meta.find("policy"); p != trace.meta.end()) j["trace_policy"] = p->second;
  return j;
}

void prepare_trace(const Scenario& s, PreparedRun& p, const MemoryUse& use) {
  for (const char* key : {"topology", "load.init"}) require(s.is_default(key), s, key, "is given by load.trace");
  require(p.mode == LoadMode::real, s, "load.mode", "a trace's items have real weights: load.mode = \"real\"");
  std::filesystem::path path(s.text("load.trace"));
  if (path.is_relative() && !s.base_dir().empty()) path = std::filesystem::path(s.base_dir()) / path;
  std::error_code ec;
  const auto bytes = std::filesystem::file_size(path, ec);
  MemoryEstimate reading;
  reading.add("load trace", "load.trace", "replay a shorter trace", ec ? 0.0 : load_trace_memory_bytes(static_cast<double>(bytes)));
  check_memory(reading, s.source(), use.side_by_side);
  auto trace = std::make_shared<LoadTrace>(located(s, "load.trace", [&] { return read_load_trace(path.string()); }));
  if (s.text("load.trace_steps") == "lockstep") lock_steps(*trace);
  // Each batch of weight changes passes over every item once (des_engine.cpp, reweigh_everywhere).
  double items = 0, batches = 0;
  for (const auto& held : trace->initial) items += static_cast<double>(held.size());
  for (const TraceAction& a : trace->actions) {
    if (a.kind == TraceAction::Kind::add) items += static_cast<double>(a.items.size());
    if (a.kind == TraceAction::Kind::weights) batches += 1;
  }
  require(items * batches <= 1e10, s, "load.trace",
          "replaying " + std::to_string(static_cast<long long>(batches)) + " batches of weight changes over " + std::to_string(static_cast<long long>(items)) +
              " items would take over 1e10 item visits (record fewer steps or fewer items)");
  check_memory(run_memory(s, {static_cast<double>(trace->ranks), static_cast<double>(trace->edges.size())}, use), s.source(), use.side_by_side);
  p.topology = Topology{"trace:" + path.string(), TopologyKind::file, Graph::from_edges(trace->ranks, trace->edges), {}};
  p.initial.assign(trace->ranks, 0.0);
  p.items = trace->initial;
  p.trace = std::move(trace);
}

}  // namespace nnlb
