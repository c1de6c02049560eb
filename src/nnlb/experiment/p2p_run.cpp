#include "nnlb/experiment/p2p_run.hpp"

#include <cmath>
#include <sstream>

#include "nnlb/experiment/run_options.hpp"
#include "nnlb/experiment/scenario_checks.hpp"
#include "nnlb/programs/domain_balancer.hpp"
#include "nnlb/engine/des/des_engine.hpp"
#include "nnlb/engine/p2p/p2p_engine.hpp"
#include "nnlb/engine/registry.hpp"
#include "nnlb/model/topology.hpp"
#include "nnlb/util/error.hpp"
#include "nnlb/util/line_file.hpp"
#include "nnlb/util/parse.hpp"
#include "nnlb/util/rng.hpp"

namespace nnlb {

using nlohmann::json;

namespace {

// churn.events: "leave@T", "leave:HOST@T" and "enter@T", comma-separated.
std::vector<ChurnEvent> parse_events(const Scenario& s) {
  std::vector<ChurnEvent> out;
  std::stringstream in(s.text("churn.events"));
  for (std::string item; std::getline(in, item, ',');) {
    const auto at = item.find('@');
    std::string kind = item.substr(0, at);
    ChurnEvent e;
    if (kind.starts_with("leave:")) {
      e.host = located(s, "churn.events", [&] { return static_cast<NodeId>(parse_uint(kind.substr(6), "the host of '" + item + "'")); });
      kind = "leave";
    }
    require(at != std::string::npos && (kind == "leave" || kind == "enter"), s, "churn.events",
            "'" + item + "': write leave@TIME, leave:HOST@TIME or enter@TIME, comma-separated");
    e.kind = kind == "leave" ? ChurnEvent::Kind::leave : ChurnEvent::Kind::enter;
    e.time = located(s, "churn.events", [&] { return parse_double(item.substr(at + 1), "the time of '" + item + "'"); });
    require(e.time >= 0 && std::isfinite(e.time), s, "churn.events", "'" + item + "': the time must be a number >= 0");
    out.push_back(e);
  }
  return out;
}

// Where the jobs start: all on host 0 (as when a program enters the network on one host),
// blocks of consecutive jobs, each on a random host, or as a file says.
std::vector<NodeId> job_mapping(const Scenario& s, NodeId jobs, NodeId hosts, std::uint64_t seed) {
  const std::string how = s.text("guest.mapping");
  std::vector<NodeId> mapping;
  if (how.starts_with("file:")) {
    const std::string path = read_value_lines(how.substr(5), s.base_dir(), "mapping file", [&](std::string_view value, const std::string& where) {
      if (mapping.size() >= jobs) throw InputError(where, {}, "more lines than the guest graph's " + std::to_string(jobs) + " jobs");
      std::uint64_t h = 0;
      try {
        h = parse_uint(value, "host");
      } catch (const InputError& e) {
        throw InputError(where, {}, std::string(e.what()) + " (one host id per line, job by job)");
      }
      if (h >= hosts) throw InputError(where, {}, "names host " + std::string(value) + ", and the network has hosts 0.." + std::to_string(hosts - 1));
      mapping.push_back(static_cast<NodeId>(h));
    });
    if (mapping.size() != jobs)
      throw InputError(path, {}, "maps " + std::to_string(mapping.size()) + " jobs, and the guest graph has " + std::to_string(jobs));
    return mapping;
  }
  mapping.assign(jobs, 0);
  Rng rng(seed, 7);
  for (NodeId j = 0; j < jobs; ++j) {
    if (how == "block") mapping[j] = static_cast<NodeId>(static_cast<std::uint64_t>(j) * hosts / jobs);
    else if (how == "random") mapping[j] = static_cast<NodeId>(rng.below(hosts));
  }
  return mapping;
}

// The stream of des's churn draws, apart from the nodes' own (their ids).
constexpr std::uint64_t des_churn_stream = std::uint64_t{1} << 41;


}  // namespace

bool is_job_strategy(const std::string& a) {
  const PolicyEntry* e = policy_catalog().find(a);
  return e != nullptr && e->program == "jobs";
}

void check_p2p_keys(const Scenario& s) {
  const std::string mapping = s.text("guest.mapping");
  require(mapping == "single" || mapping == "block" || mapping == "random" || mapping.starts_with("file:"), s, "guest.mapping",
          "'" + mapping + "': single, block, random or file:PATH");
  require(s.number("p2p.iteration") > 0, s, "p2p.iteration", "must be > 0");
  require(s.number("p2p.migration_cost") >= 0, s, "p2p.migration_cost", "must be >= 0");
  require(s.number("p2p.gamma") >= 0, s, "p2p.gamma", "must be >= 0");
  require(!s.is_set("churn.half_life") || s.number("churn.half_life") > 0, s, "churn.half_life", "must be > 0 (tau); leave it unset for no churn");
  require(s.integer("p2p.sample_every") >= 1 && s.integer("p2p.sample_every") <= 10'000'000, s, "p2p.sample_every", "must be in 1 .. 1e7");
  require(s.integer("p2p.balance_every") >= 1 && s.integer("p2p.balance_every") <= 10'000'000, s, "p2p.balance_every", "must be in 1 .. 1e7");
  require(s.integer("p2p.iterations") >= 0, s, "p2p.iterations", "must be >= 0");
  require(s.number("stop.time") >= 1 && s.number("stop.time") <= 1e7, s, "stop.time", "p2p: time units, 1 to 1e7");
  parse_events(s);
}

double p2p_memory_bytes(const Scenario& s, double hosts) {
  return hosts * 64 + series_rows(s.number("stop.time") / static_cast<double>(s.integer("p2p.sample_every")) + 2, s) *
                          (sizeof(StepRecord) + 7 * sizeof(double));
}

namespace {

struct Guest {
  Topology graph;
  std::vector<NodeId> mapping;
};

Guest guest_jobs(const Scenario& s, const PreparedRun& p, std::uint64_t seed) {
  const RunSeeds seeds(seed);
  Guest g;
  g.graph = located(s, "guest.graph", [&] { return build_topology(parse_topology(s.text("guest.graph"), s.base_dir()), seeds.load); });
  g.mapping = located(s, "guest.mapping", [&] { return job_mapping(s, g.graph.graph.num_nodes(), p.topology.graph.num_nodes(), seeds.load); });
  return g;
}

}  // namespace

RunResult run_job_agents(const Scenario& s, const PreparedRun& p, std::uint64_t seed) {
  const RunSeeds seeds(seed);
  const Guest g = guest_jobs(s, p, seed);
  InitialState initial{std::vector<double>(p.topology.graph.num_nodes(), 0.0), std::vector<std::vector<Item>>(p.topology.graph.num_nodes())};
  for (NodeId j = 0; j < g.mapping.size(); ++j) initial.items[g.mapping[j]].push_back({j, 1, 0});
  const DomainBalancer program = located(s, "algorithm", [&] {
    return DomainBalancer(p.policy.domain, {.period = s.number("async.lb_period"),
                                            .control_bytes = s.number("message.control_bytes"),
                                            .selection = job_selection(s.text("guest.selection")),
                                            .guest = &g.graph.graph});
  });
  std::optional<Churn> churn = churn_of(s, p.topology.graph, seeds.engine);
  EngineRun r = engine_run(s, p, program, initial, seeds.engine);
  r.mode = LoadMode::integer;
  r.stop_when_balanced = true;  // as balancers do: the jobs within one of every host's share (core/balance.hpp)
  if (churn) r.churn = &*churn;
  if (r.sample_period == 0) r.sample_period = 10 * s.number("async.lb_period");
  // Jobs do not execute here: a strategy stuck out of the band (DASUD's local minima) would run to
  // stop.time. In simulated time (des, simgrid) it is "stalled" after 1000 balancing periods
  // without a move unless stop.stall says otherwise.
  if (find_engine(s.text("engine"))->time == TimeModel::simulated_seconds && !s.is_set("stop.stall"))
    r.stall = 1000 * s.number("async.lb_period");
  return run_engine(s, s.text("engine"), r);
}

RunResult run_jobs(const Scenario& s, const PreparedRun& p, std::uint64_t seed) {
  const RunSeeds seeds(seed);
  const Guest g = guest_jobs(s, p, seed);
  const Topology& guest = g.graph;
  const NodeId hosts = p.topology.graph.num_nodes();
  const std::vector<NodeId>& mapping = g.mapping;
  P2POptions o;
  o.iteration_work = s.number("p2p.iteration");
  o.migration_cost = s.number("p2p.migration_cost");
  o.gamma = s.number("p2p.gamma");
  o.half_life = s.is_set("churn.half_life") ? s.number("churn.half_life") : 0.0;
  o.repair = s.boolean("churn.repair");
  o.events = parse_events(s);
  o.time_limit = s.number("stop.time");
  o.iterations = static_cast<std::uint64_t>(s.integer("p2p.iterations"));
  o.sample_every = static_cast<std::uint32_t>(s.integer("p2p.sample_every"));
  o.series_max_rows = series_max_rows(s);
  o.balance_every = static_cast<std::uint32_t>(s.integer("p2p.balance_every"));
  o.selection = job_selection(s.text("guest.selection"));
  o.seed = seeds.engine;
  o.record_final_load = s.boolean("output.final_load");
  o.band = s.number("stop.band");
  std::int64_t net = static_cast<std::int64_t>(hosts);
  for (const ChurnEvent& e : o.events) {
    net += e.kind == ChurnEvent::Kind::enter ? 1 : -1;
    require(net >= 1, s, "churn.events", "the network would lose its last host");
  }
  return located(s, "", [&] { return run_p2p(p.topology.graph, guest.graph, mapping, *p.policy.domain, o); });
}

std::optional<Churn> churn_of(const Scenario& s, const Graph& hosts, std::uint64_t engine_seed) {
  if (!s.is_set("churn.half_life") && s.text("churn.events").empty()) return std::nullopt;
  require(!s.is_set("churn.half_life") || s.number("churn.half_life") > 0, s, "churn.half_life", "must be > 0 (tau); leave it unset for no churn");
  return Churn(hosts, s.is_set("churn.half_life") ? s.number("churn.half_life") : 0.0, parse_events(s), Rng(engine_seed, des_churn_stream));
}

json p2p_summary(const RunSummary& summary) {
  json j = {{"time", summary.steps}};
  for (const char* k : {"sigma", "progress", "migrations", "jobs_lost", "hosts_left", "hosts_entered", "hosts", "jobs", "edge_cut", "partitioned", "repairs"})
    j[k] = summary.notes.at(k);
  return j;
}

}  // namespace nnlb
