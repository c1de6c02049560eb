#include "nnlb/engine/p2p/p2p_engine.hpp"

#include <algorithm>
#include <cmath>
#include <optional>
#include <stdexcept>
#include <string>
#include <unordered_map>

#include "nnlb/engine/core/balance.hpp"
#include "nnlb/engine/core/hand_over.hpp"
#include "nnlb/engine/core/recorder.hpp"
#include "nnlb/engine/core/stop_rules.hpp"
#include "nnlb/engine/core/summary.hpp"
#include "nnlb/model/churn.hpp"
#include "nnlb/util/error.hpp"
#include "nnlb/util/rng.hpp"

namespace nnlb {

namespace {

using JobId = std::uint32_t;
constexpr double eps = 1e-9;  // work and clocks are sums of 1/r: a job is done within rounding

enum class Phase : std::uint8_t { run, wait, sync, migrate, end };

class P2PRun {
 public:
  P2PRun(const Graph& hosts, const Graph& guest, std::span<const NodeId> mapping, const DomainPolicy& policy, const P2POptions& o)
      : churn_(hosts, o.half_life, o.events, Rng(o.seed, 1), o.repair), net_(churn_.network()), guest_(guest), policy_(policy), o_(o), order_rng_(o.seed, 2),
        policy_rng_(o.seed, 3), select_rng_(o.seed, 4), handover_rng_(o.seed, 5) {
    const JobId n = guest.num_nodes();
    if (mapping.size() != n) throw std::logic_error("mapping of " + std::to_string(mapping.size()) + " jobs for " + std::to_string(n));
    host_of_.assign(mapping.begin(), mapping.end());
    pos_.resize(n);
    phase_.assign(n, Phase::run);
    resume_.assign(n, Phase::run);
    work_.assign(n, o.iteration_work);
    clock_.assign(n, 0.0);
    iter_.assign(n, 0);
    jobs_on_.resize(net_.slots());
    mark_.resize(net_.slots());
    for (JobId j = 0; j < n; ++j) {
      if (host_of_[j] >= net_.slots()) throw std::logic_error("job " + std::to_string(j) + " mapped to a missing host");
      place(j, host_of_[j]);
    }
  }

  RunResult run() {
    RunResult r;
    sample(r, 0);
    open_summary(r.summary, last_, static_cast<double>(guest_.num_nodes()));
    // The one stop rule (core/stop_rules.hpp): the application's end, or the last whole time unit
    // of the limit. The jobs run an application: a balanced state ends no run here.
    StopRules rules;
    rules.time_limit = std::ceil(o_.time_limit - eps);
    RunMoment m;
    m.next = 1;
    std::uint64_t steps = 0;
    std::optional<StopReason> reason = decide(rules, m);
    while (!reason) {
      const std::uint64_t t = ++steps;
      churn(t);
      if ((t - 1) % o_.balance_every == 0) balance();
      execute();
      if (static_cast<double>(t) == o_.lose_job_at) unplace(0);
      if (total_jobs() != guest_.num_nodes())
        throw ConservationError("job count " + std::to_string(total_jobs()) + " != " + std::to_string(guest_.num_nodes()) + " at t = " +
                                std::to_string(t));
      m.now = static_cast<double>(t), m.next = m.now + 1;
      m.finished = o_.iterations > 0 && ended_ == guest_.num_nodes();
      if (m.finished) r.summary.finished_at = m.now;
      reason = decide(rules, m);
      if (t % o_.sample_every == 0 || reason) sample(r, m.now);
    }
    check_identities(static_cast<double>(steps));
    // The summary as every engine writes it (core/summary.hpp): the core's band rule on the final
    // loads, a job being the grain (less than one job from the share is balanced).
    RunSummary& s = r.summary;
    const BalanceRule rule{o_.band, 1.0};
    close_summary(s, *reason, rule.all_within(held_, static_cast<double>(guest_.num_nodes()), {}), last_, held_,
                  static_cast<double>(migrations_));
    close_rounds(s, *reason, steps, steps);
    s.final_total = static_cast<double>(guest_.num_nodes());
    s.notes["progress"] = progress();
    s.notes["migrations"] = static_cast<double>(migrations_);
    s.notes["jobs_lost"] = 0;
    s.notes["hosts_left"] = static_cast<double>(left_);
    s.notes["hosts_entered"] = static_cast<double>(entered_);
    s.notes["hosts"] = net_.size();
    s.notes["jobs"] = guest_.num_nodes();
    s.notes["edge_cut"] = static_cast<double>(edge_cut());
    s.notes["partitioned"] = steps > 0 ? static_cast<double>(churn_.partitioned_steps()) / static_cast<double>(steps) : 0.0;
    s.notes["repairs"] = static_cast<double>(churn_.repairs());
    if (o_.record_final_load)
      for (NodeId h = 0; h < net_.slots(); ++h)
        if (net_.alive(h)) r.final_load.push_back(static_cast<double>(jobs_on_[h].size()));
    return r;
  }

 private:
  // --- jobs on hosts ---
  void place(JobId j, NodeId h) {
    host_of_[j] = h;
    pos_[j] = static_cast<std::uint32_t>(jobs_on_[h].size());
    jobs_on_[h].push_back(j);
  }
  void unplace(JobId j) {
    auto& list = jobs_on_[host_of_[j]];
    const JobId last = list.back();
    list[pos_[j]] = last;
    pos_[last] = pos_[j];
    list.pop_back();
  }
  // Job j goes to host h and spends the migration cost on the way.
  void migrate(JobId j, NodeId h) {
    unplace(j);
    place(j, h);
    ++migrations_;
    if (o_.migration_cost > 0) {
      if (phase_[j] != Phase::migrate) resume_[j] = phase_[j];
      phase_[j] = Phase::migrate;
      clock_[j] = o_.migration_cost;
    }
  }
  std::uint64_t total_jobs() const {
    std::uint64_t n = 0;
    for (NodeId h = 0; h < net_.slots(); ++h) n += jobs_on_[h].size();
    return n;
  }

  // --- 1. churn (model/churn.hpp), in the order it happened ---
  void churn(std::uint64_t t) {
    const std::vector<GraphChange>& changes = churn_.step(t);
    for (const GraphChange& c : changes) {
      if (c.kind == GraphChange::Kind::leave) {
        leave(c.node, c.peers);
      } else {
        if (c.node >= jobs_on_.size()) jobs_on_.resize(c.node + 1), mark_.resize(c.node + 1);
        ++entered_;
      }
    }
    if (!changes.empty()) distances_.clear();
  }

  // Host h left: its jobs go to its heirs in turn (core/hand_over.hpp), or with none to a random
  // host of the network as the step left it.
  void leave(NodeId h, const std::vector<NodeId>& heirs) {
    const std::vector<JobId> jobs = jobs_on_[h];
    if (heirs.empty()) {
      for (JobId j : jobs) migrate(j, net_.random_host(handover_rng_, h));
    } else {
      const auto hands = deal<JobId>(jobs, heirs.size());
      for (std::size_t k = 0; k < hands.size(); ++k)
        for (JobId j : hands[k]) migrate(j, heirs[k]);
    }
    ++left_;
  }

  // --- 2. balancing ---
  void balance() {
    std::vector<NodeId> order = net_.live_hosts();
    for (std::size_t k = order.size(); k > 1; --k) std::swap(order[k - 1], order[order_rng_.below(k)]);
    std::vector<std::pair<NodeId, std::uint32_t>> ball;
    std::vector<DomainHost> domain;
    std::vector<Migration> decided;
    for (NodeId h : order) {
      domain.clear();
      if (policy_.domain() == DomainKind::random_host) {
        domain.push_back({h, 0, static_cast<std::int64_t>(jobs_on_[h].size())});
        if (net_.size() > 1) {
          const NodeId other = net_.random_host(policy_rng_, h);
          domain.push_back({other, 0, static_cast<std::int64_t>(jobs_on_[other].size())});
        }
      } else {
        net_.ball(h, policy_.radius(), ball, mark_);
        for (const auto& [j, d] : ball) domain.push_back({j, d, static_cast<std::int64_t>(jobs_on_[j].size())});
      }
      decided.clear();
      decide_checked(policy_, {domain, &policy_rng_}, decided);
      for (const Migration& m : decided) {
        move_jobs(domain[m.from].id, domain[m.to].id, static_cast<std::uint64_t>(m.jobs));
      }
    }
  }

  // Moves up to n jobs that are not migrating already from host a to host b.
  void move_jobs(NodeId a, NodeId b, std::uint64_t n) {
    std::vector<JobId> movable;
    for (JobId j : jobs_on_[a])
      if (phase_[j] != Phase::migrate) movable.push_back(j);
    if (n == 0 || movable.empty()) return;
    // Where a guest neighbour is, by its host: exact hops for distance, on a or b for edge cut.
    const bool by_distance = o_.selection == JobSelection::distance;
    const std::vector<std::uint32_t> from = by_distance ? distances(a) : std::vector<std::uint32_t>{};
    const std::vector<std::uint32_t> to = by_distance ? distances(b) : std::vector<std::uint32_t>{};
    auto place = [&](JobId k) {
      const NodeId h = host_of_[k];
      return by_distance ? NeighbourPlace{from[h], to[h]} : NeighbourPlace{h != a, h != b};
    };
    pick_jobs(o_.selection, movable, n, guest_, select_rng_, place, [&](JobId j) { migrate(j, b); });
  }

  // Hop distances from host h in the current network, kept for the step (a few at a time).
  const std::vector<std::uint32_t>& distances(NodeId h) {
    if (distances_.size() > 64) distances_.clear();
    auto it = distances_.find(h);
    if (it == distances_.end()) it = distances_.emplace(h, net_.distances_from(h)).first;
    return it->second;
  }

  // --- 3. execution ---
  void execute() {
    for (NodeId h = 0; h < net_.slots(); ++h) {
      if (jobs_on_[h].empty()) continue;
      std::uint32_t running = 0;
      for (JobId j : jobs_on_[h]) running += phase_[j] == Phase::run;
      const double share = running ? 1.0 / running : 0.0;
      for (JobId j : jobs_on_[h]) {
        switch (phase_[j]) {
          case Phase::run:
            work_[j] -= share;
            if (work_[j] <= eps) ++iter_[j], phase_[j] = Phase::wait;  // enters synchronization
            break;
          case Phase::sync:
            if ((clock_[j] -= 1) <= eps) phase_[j] = Phase::run, work_[j] = o_.iteration_work;
            break;
          case Phase::migrate:
            if ((clock_[j] -= 1) <= eps) phase_[j] = resume_[j];
            break;
          case Phase::wait:
          case Phase::end: break;
        }
      }
    }
    // Blocked jobs whose guest neighbours have all entered the same synchronization go on, or
    // end after the application's last iteration.
    for (JobId j = 0; j < guest_.num_nodes(); ++j) {
      if (phase_[j] != Phase::wait) continue;
      bool ready = true;
      for (NodeId k : guest_.neighbors(j)) ready = ready && iter_[k] >= iter_[j];
      if (!ready) continue;
      if (o_.iterations > 0 && iter_[j] >= o_.iterations) {
        phase_[j] = Phase::end;
        ++ended_;
        continue;
      }
      double hops = 0;
      if (o_.gamma > 0) {
        const auto& d = distances(host_of_[j]);
        for (NodeId k : guest_.neighbors(j)) hops = std::max(hops, static_cast<double>(d[host_of_[k]]));
      }
      if (o_.gamma * hops > eps) phase_[j] = Phase::sync, clock_[j] = o_.gamma * hops;
      else phase_[j] = Phase::run, work_[j] = o_.iteration_work;
    }
    distances_.clear();
  }

  // --- metrics ---
  double progress() const {
    double sum = 0;
    for (std::uint64_t i : iter_) sum += static_cast<double>(i);
    return guest_.num_nodes() ? sum / guest_.num_nodes() : 0.0;
  }

  // Guest edges whose jobs are on different hosts.
  std::uint64_t edge_cut() const {
    std::uint64_t cut = 0;
    for (JobId j = 0; j < guest_.num_nodes(); ++j)
      for (NodeId k : guest_.neighbors(j)) cut += j < k && host_of_[j] != host_of_[k];
    return cut;
  }

  // A row of the series (core/recorder.hpp: jobs per live host against the mean), and the columns
  // of Douglas & Harwood's measures.
  void sample(RunResult& r, double t) {
    if (++samples_ % o_.check_every == 0) check_identities(t);
    const std::vector<NodeId> live = net_.live_hosts();
    held_.clear();
    double gradient = 0;
    for (NodeId h : live) {
      const auto w = static_cast<double>(jobs_on_[h].size());
      held_.push_back(w);
      for (NodeId j : net_.neighbors(h)) gradient = std::max(gradient, w - static_cast<double>(jobs_on_[j].size()));
    }
    last_ = load_stats<double>(held_, recorder_.shares());
    // The paper's sigma (sec. 3.3) has |H| - 1 in the denominator where stddev has N: a column of
    // its own.
    const double n = static_cast<double>(live.size()), sigma = n > 1 ? std::sqrt(last_.imbalance / (n - 1)) : 0.0;
    recorder_.row(r, {samples_ - 1, 0, t}, last_, static_cast<double>(migrations_),
                  {{"sigma", sigma},
                   {"progress", progress()},
                   {"migrations", static_cast<double>(migrations_)},
                   {"hosts", n},
                   {"gradient", gradient},
                   {"edge_cut", static_cast<double>(edge_cut())},
                   {"partitioned", churn_.partitioned() ? 1.0 : 0.0}});
    r.summary.notes["sigma"] = sigma;
  }

  // Every job on exactly one live host, where that host's list says it is.
  void check_identities(double t) const {
    std::uint64_t listed = 0;
    for (NodeId h = 0; h < net_.slots(); ++h) {
      if (!net_.alive(h) && !jobs_on_[h].empty())
        throw ConservationError(std::to_string(jobs_on_[h].size()) + " jobs on host " + std::to_string(h) + ", which left, at t = " +
                                std::to_string(t));
      for (std::size_t k = 0; k < jobs_on_[h].size(); ++k)
        if (host_of_[jobs_on_[h][k]] != h || pos_[jobs_on_[h][k]] != k)
          throw ConservationError("job " + std::to_string(jobs_on_[h][k]) + " listed on host " + std::to_string(h) + " is elsewhere");
      listed += jobs_on_[h].size();
    }
    if (listed != guest_.num_nodes())
      throw ConservationError(std::to_string(guest_.num_nodes() - listed) + " jobs lost at t = " + std::to_string(t));
  }

  Churn churn_;
  const HostNetwork& net_;  // churn_'s
  const Graph& guest_;
  const DomainPolicy& policy_;
  const P2POptions& o_;
  Rng order_rng_, policy_rng_, select_rng_, handover_rng_;
  std::vector<NodeId> host_of_;
  std::vector<std::uint32_t> pos_;
  std::vector<Phase> phase_, resume_;
  std::vector<double> work_, clock_;
  std::vector<std::uint64_t> iter_;
  std::vector<std::vector<JobId>> jobs_on_;
  std::vector<std::uint8_t> mark_;
  std::unordered_map<NodeId, std::vector<std::uint32_t>> distances_;
  std::uint64_t migrations_ = 0, left_ = 0, entered_ = 0, samples_ = 0, ended_ = 0;
  Recorder recorder_{{}, o_.series_max_rows};  // equal hosts: the mean is every host's share
  std::vector<double> held_;  // jobs on each live host at the last sample
  LoadStats last_;            // their statistics
};

}  // namespace

RunResult run_p2p(const Graph& hosts, const Graph& guest, std::span<const NodeId> mapping, const DomainPolicy& policy,
                  const P2POptions& options) {
  return P2PRun(hosts, guest, mapping, policy, options).run();
}

}  // namespace nnlb
