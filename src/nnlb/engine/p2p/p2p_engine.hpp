#pragma once
// The loosely-synchronous engine (Douglas & Harwood secs. 3, 4): the jobs of a guest graph G on
// the hosts of a P2P network H that changes, in steps of one time unit. Each step:
//  1. churn: with a half-life tau every live host leaves with probability 1 - 2^(-1/tau) and a
//     new host enters in its place (|H| constant, sec. 3.1), plus scripted leave/enter events;
//     a leaving host first hands its jobs to its neighbours, round robin (to a random host when it
//     has none; engine/core/hand_over.hpp); the churn itself is model/churn.hpp, as on des;
//  2. balancing (every `balance_every` time units, from t = 1): every live host, in a random order, sees its domain (DomainPolicy) with the job
//     counts of that moment and its migrations are applied at once; the jobs to move are chosen
//     by the selection rule (sec. 4.5) among those not migrating already;
//  3. execution: a host shares its CPU equally among its running jobs; a job that completes an
//     iteration (iteration_work units) enters synchronization (I_j + 1) and blocks until every
//     guest neighbour has entered it too, then spends S_j = gamma x (the most hops from its host
//     to a neighbour's host) synchronizing before its next iteration; a migrating job does nothing
//     for migration_cost units, then resumes where it was. With `iterations`, a job that has done
//     them ends, and the run stops when all have (sec. 3.2: "all jobs simultaneously end").
// Jobs are counted on their destination host from the moment they migrate. Every sample checks
// that each job is on exactly one live host (identities, not counts); the count is checked every
// step.
#include <cstdint>
#include <span>
#include <vector>

#include "nnlb/engine/core/recorder.hpp"
#include "nnlb/engine/core/result.hpp"
#include "nnlb/model/churn.hpp"
#include "nnlb/model/graph.hpp"
#include "nnlb/policy/domain_policy.hpp"
#include "nnlb/policy/job_selection.hpp"

namespace nnlb {

struct P2POptions {
  double iteration_work = 10;  // time units of an iteration on a dedicated host (sec. 4.3, note 6)
  double migration_cost = 0;   // time units a migrating job does nothing
  double gamma = 0;            // synchronization time per hop (sec. 4.5); 0: synchronization is free
  double half_life = 0;        // tau of continuous churn; 0: none
  bool repair = false;         // a part of H cut off by churn links to the largest part again (model/churn.hpp)
  std::vector<ChurnEvent> events;
  double time_limit = 500;
  std::uint64_t iterations = 0;  // the application's iterations: it ends when every job has done them (0: it runs to time_limit)
  std::uint32_t sample_every = 1;  // time units between samples of the series
  std::uint64_t series_max_rows = default_series_max_rows;  // rows of the series (core/recorder.hpp; 0: no bound)
  std::uint32_t balance_every = 1; // time units between two balancing rounds (the paper's rate is not stated; 10 = once an iteration)
  JobSelection selection = JobSelection::any;
  std::uint64_t seed = 1;
  bool record_final_load = false;
  double band = 0.01;             // balanced: every host within band x its share, or less than one job from it
  std::uint64_t check_every = 1;  // samples between two checks of every job's identity and host
  double lose_job_at = -1;        // fault injection: job 0 vanishes from its host at this time (the checks must fire)
};

// Series: one row a sample, `time` in time units, stddev = sqrt(nu / |H|) over the live hosts as
// on every engine, imbalance nu = sum of squared deviations, moved = migrations since the last
// row; extra columns sigma (the paper's, |H| - 1 in the denominator, sec. 3.3), progress (mean
// I_j), migrations (M(t)), hosts (|H|), gradient (the largest difference of job counts across an
// edge of H), edge_cut (guest edges between jobs on different hosts), partitioned (1 when H is
// in more than one part). Summary notes: sigma, progress, migrations, jobs_lost (0, or the run
// throws ConservationError), hosts_left, hosts_entered, hosts, edge_cut, partitioned (the
// fraction of time units H was in more than one part), repairs (links the repair added).
RunResult run_p2p(const Graph& hosts, const Graph& guest, std::span<const NodeId> mapping, const DomainPolicy& policy,
                  const P2POptions& options);

}  // namespace nnlb
