#include "nnlb/experiment/run_memory.hpp"

#include <algorithm>
#include <limits>
#include <string>

#include <fmt/format.h>

#include "nnlb/engine/registry.hpp"
#include "nnlb/experiment/key_checks.hpp"
#include "nnlb/experiment/p2p_run.hpp"
#include "nnlb/experiment/run_options.hpp"
#include "nnlb/experiment/run_platform.hpp"
#include "nnlb/experiment/scenario_checks.hpp"
#include "nnlb/experiment/task_run.hpp"
#include "nnlb/spectral/spectrum.hpp"

namespace nnlb {

MemoryEstimate run_memory(const Scenario& s, const TopologySize& size, const MemoryUse& use) {
  const EngineEntry* engine = find_engine(s.text("engine"));
  // Timed engines sample every period (mpi as des does); round engines every round.
  const bool des = engine != nullptr && (engine->time == TimeModel::simulated_seconds || engine->time == TimeModel::wall_seconds);
  MemoryEstimate m;
  const std::string smaller = "use a smaller topology";
  m.add("graph", "topology", smaller, size.build_bytes());
  if (use.analysis) {
    m.add("spectrum", "topology", smaller, spectrum_memory_bytes(size.nodes, size.slots()));
    return m;
  }
  if (s.text("platform.preset") != "none" || s.is_set("platform.file"))
    m.add("platform", "topology", smaller, 2 * sizeof(double) * size.slots() + sizeof(double) * size.nodes);  // per-slot links, speeds
  if (is_task_algorithm(s.text("algorithm")))
    m.add("tasks", "tasks.init", "run fewer tasks", 160 * task_count_bound(s));  // held, in the recounts, completed
  if (is_job_strategy(s.text("algorithm"))) {
    // Per job: host, position, phase, work, clock, iterations and its list entry (p2p), or an
    // item held, in flight and in the recounts (des, mpi); the guest graph's CSR.
    const TopologySize guest = topology_size(located(s, "guest.graph", [&] { return parse_topology(s.text("guest.graph"), s.base_dir()); }));
    m.add("jobs", "guest.graph", "use a smaller guest graph", guest.build_bytes() + 96 * guest.nodes);
    if (engine != nullptr && !engine->runs_programs) {  // the loosely-synchronous engine's own loop
      m.add("hosts", "topology", smaller, p2p_memory_bytes(s, size.nodes));  // adjacency, scratch, the series
      return m;
    }
  }
  // Node programs: agents and mailboxes (and on simgrid actors).
  const EngineEntry::Cost cost = running_engine(s).memory;
  m.add("engine", "topology", smaller, cost.per_run + cost.per_node * size.nodes + cost.per_slot * size.slots());
  if (cost.per_pair > 0 && !s.is_set("platform.file"))
    m.add("routing", "topology", smaller, cost.per_pair * size.nodes * size.nodes);
  if (const PlatformHosts* hosts = engine != nullptr ? platform_hosts(engine->name) : nullptr;
      hosts != nullptr && cost.per_file_host > 0 && s.is_set("platform.file"))
    m.add("platform hosts", "platform.file", "use a platform file with fewer hosts",
          cost.per_file_host * (*hosts)(platform_file_path(s).string()));
  if (engine != nullptr && engine->time == TimeModel::simulated_seconds && !is_task_algorithm(s.text("algorithm")) &&
      s.number("async.lb_period") > 0) {  // (a period <= 0 is refused on engines that read it)
    // A link holds what its sender sent within one latency: about a control and a data message
    // a balancing period.
    const double on_a_link = std::min(s.number("platform.latency"), s.number("stop.time")) / s.number("async.lb_period") + 1;
    m.add("messages in flight", "platform.latency",
          "a link holds platform.latency / async.lb_period messages at once: use a shorter latency or a longer period",
          2 * cost.per_message * on_a_link * static_cast<double>(size.slots()));
  }
  double samples = 0;
  if (des) {
    const double period = s.number("output.sample_period") > 0 ? s.number("output.sample_period") : 10 * s.number("async.lb_period");
    samples = s.number("stop.time") / period + 2;
  } else {
    samples = static_cast<double>(s.integer("stop.steps")) + 2;
  }
  const auto series_every = s.integer("output.series_every");
  const std::string fewer = " or lower output.series_max_rows";
  if (!des && series_every > 0)
    m.add("series", "output.series_every", "record the series less often (output.series_every)" + fewer,
          series_rows(samples / static_cast<double>(series_every), s) * sizeof(StepRecord));
  // A timed engine keeps every sample: a row, and its JSON text and tree in the record (about
  // 512 bytes in all, measured on des records).
  if (des && series_every > 0)
    m.add("series", "output.sample_period", "sample less often (output.sample_period), set output.series_every = 0" + fewer,
          series_rows(samples, s) * 512);
  if (const auto every = s.integer("output.load_history"); every > 0)
    m.add("load history", "output.load_history", "record every node's load less often (output.load_history), not at all" + fewer,
          series_rows(des ? samples : samples / static_cast<double>(every), s) * size.nodes * sizeof(double));
  return m;
}

void check_in_flight(const Scenario& s, const PreparedRun& p) {
  const double limit = running_engine(s).in_flight_limit;
  const double period = s.number("async.lb_period");
  if (!(limit > 0) || !running_program(s).uses_key("async.lb_period") || !(period > 0)) return;  // a period <= 0 is refused later
  const Graph& g = p.topology.graph;
  double latency = 0;
  for (Slot k = 0; k < g.num_slots(); ++k) latency = std::max(latency, p.platform.link_latency(k));
  latency = std::min(latency, std::numeric_limits<double>::max());  // a route of two 1e308 s links
  // A report to every neighbour each period, on its way for the link's latency (as printed: a
  // latency of 1e308 s is not infinitely many periods).
  const double periods = std::min(latency / period, std::numeric_limits<double>::max());
  const double held = std::min(g.max_degree() * (periods + 1), std::numeric_limits<double>::max());
  const bool file = s.is_set("platform.file");
  const std::string latency_is = file ? fmt::format("the longest route's latency, {:g} s,", latency) : fmt::format("{:g} s", latency);
  require(held <= limit, s, file ? "platform.file" : "platform.latency",
          fmt::format("{} is {:.4g} periods of async.lb_period ({:g} s): a node of degree {} keeps about {:.4g} messages on their way, "
                      "and engine {} takes at most {:g} (it spends time on each message in proportion to those its sender and "
                      "receiver keep); use a shorter latency, a longer async.lb_period or engine = \"des\"",
                      latency_is, periods, period, g.max_degree(), held, s.text("engine"), limit));
}

}  // namespace nnlb
