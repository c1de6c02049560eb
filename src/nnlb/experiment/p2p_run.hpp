#pragma once
// Runs of loosely-synchronous jobs on a P2P host network (Douglas & Harwood; engine = "p2p"):
// the host graph is `topology` (p2p:N grows it by the entering rule), the guest graph
// `guest.graph` (any topology spec or graph file), the jobs start where `guest.mapping` puts them,
// and the strategy is a domain policy (algorithm = en | dasud | pm | sid | push | pull).
#include <cstdint>
#include <optional>

#include <nlohmann/json.hpp>

#include "nnlb/engine/core/result.hpp"
#include "nnlb/model/churn.hpp"
#include "nnlb/experiment/run.hpp"
#include "nnlb/experiment/scenario.hpp"

namespace nnlb {

// en, dasud, pm, sid, push, pull.
bool is_job_strategy(const std::string& algorithm);
// Refuses keys and values the engine cannot take (before anything is built).
void check_p2p_keys(const Scenario& s);
// Bytes a run will hold: jobs, hosts, the series.
double p2p_memory_bytes(const Scenario& s, double hosts);
// Runs a prepared p2p run.
RunResult run_jobs(const Scenario& s, const PreparedRun& p, std::uint64_t seed);
// A radius-1 job strategy as node programs (agent/domain_balancer) on des or mpi: the jobs of
// guest.graph are items placed by guest.mapping; the balancers' views come by messages. Only
// the balancing: the jobs do not execute.
RunResult run_job_agents(const Scenario& s, const PreparedRun& p, std::uint64_t seed);
// The churn of churn.half_life and churn.events over the host graph `hosts` for des (a step each
// second), drawn from a stream of `engine_seed` of its own; none when neither is set.
std::optional<Churn> churn_of(const Scenario& s, const Graph& hosts, std::uint64_t engine_seed);
// The summary entries of a finished run: progress, migrations, jobs_lost, hosts_left, hosts_entered.
nlohmann::json p2p_summary(const RunSummary& summary);

}  // namespace nnlb
