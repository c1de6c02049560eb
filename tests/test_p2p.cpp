// Loosely-synchronous jobs on a P2P host network (Douglas & Harwood): the join rule, churn that
// loses no job, the strategies' end states, the analytic progress rate, and bad input.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <numeric>
#include <random>

#include <nlohmann/json.hpp>

#include "nnlb/engine/des/des_engine.hpp"
#include "nnlb/engine/p2p/p2p_engine.hpp"
#include "nnlb/model/host_network.hpp"
#include "nnlb/model/random_graphs.hpp"
#include "nnlb/model/topology.hpp"
#include "nnlb/node/context.hpp"
#include "nnlb/programs/domain_balancer.hpp"
#include "support.hpp"

namespace nnlb {
namespace {

using test::refused;
using test::run_sets;

std::uint32_t join_degree(std::uint32_t size) { return std::max<std::uint32_t>(1, static_cast<std::uint32_t>(std::bit_width(size)) - 1); }

TEST(HostNetwork, EnteringHostsJoinLog2RandomHostsAndTheNetworkStaysWhole) {
  HostNetwork net(make_p2p(256, 3));
  EXPECT_TRUE(net.connected());
  Rng rng(5);
  for (int k = 0; k < 2000; ++k) {
    net.leave(net.random_host(rng, net.slots()));
    const std::uint32_t before = net.size();
    const NodeId h = net.enter(rng);
    EXPECT_EQ(net.size(), 256u);
    ASSERT_EQ(net.neighbors(h).size(), join_degree(before)) << "entry " << k;  // floor(log2 |H|) distinct live hosts
    std::vector<NodeId> nb(net.neighbors(h).begin(), net.neighbors(h).end());
    std::sort(nb.begin(), nb.end());
    EXPECT_EQ(std::adjacent_find(nb.begin(), nb.end()), nb.end());
    for (NodeId j : nb) EXPECT_TRUE(net.alive(j) && j != h);
  }
  EXPECT_EQ(net.slots(), 256u);  // entering hosts reuse the slots of those that left
  EXPECT_TRUE(net.connected());  // after 2,000 turnovers (8 per host on average)
}

TEST(GuestGraphs, RandomGeometricJoinsPointsWithinTheRadius) {
  const Topology t = make_topology("geometric:400,0.1", 3);
  EXPECT_EQ(t.graph.num_nodes(), 400u);
  EXPECT_TRUE(t.graph.is_connected());
  // Expected degree about (N - 1) pi R^2 = 12.5, less at the square's border.
  const double mean_degree = 2.0 * static_cast<double>(t.graph.num_edges()) / 400;
  EXPECT_GT(mean_degree, 9);
  EXPECT_LT(mean_degree, 13);
  EXPECT_EQ(make_topology("geometric:400,0.1", 3).graph.targets().size(), t.graph.targets().size());  // same seed, same graph
  EXPECT_THROW(make_topology("geometric:400,0", 3), InputError);
  EXPECT_THROW(make_topology("geometric:400,0.01", 3), InputError);  // never connected: refused after bounded draws
}

// --- the engine, direct ---------------------------------------------------------------------

struct Jobs {
  Graph hosts, guest;
  std::vector<NodeId> mapping;
};

Jobs setup(NodeId hosts, NodeId jobs, bool all_on_one) {
  Jobs r{make_p2p(hosts, 11), make_topology("ring:" + std::to_string(jobs), 1).graph, {}};
  for (NodeId j = 0; j < jobs; ++j) r.mapping.push_back(all_on_one ? 0 : j % hosts);
  return r;
}

TEST(P2PEngine, ChurnKeepsTheNetworkSizeAndEveryJob) {
  const Jobs r = setup(64, 300, true);
  P2POptions o;
  o.half_life = 20;  // each host leaves about once in 29 time units
  o.migration_cost = 5;
  o.time_limit = 300;
  const auto pm = make_probabilistic_migration(0.35);
  const RunResult res = run_p2p(r.hosts, r.guest, r.mapping, *pm, o);  // identities checked every sample: every step
  EXPECT_GT(res.summary.notes.at("hosts_left"), 300);
  EXPECT_EQ(res.summary.notes.at("hosts_left"), res.summary.notes.at("hosts_entered"));
  for (double h : res.columns.at("hosts")) EXPECT_EQ(h, 64);
  EXPECT_EQ(res.summary.notes.at("jobs_lost"), 0);
  EXPECT_EQ(res.series.back().mean * 64, 300);
}

TEST(P2PEngine, ALoneHostStaysUnderChurn) {
  // Scripted exits leave one host of three; continuous churn then has no one to replace it with.
  const Jobs r = setup(3, 5, true);
  P2POptions o;
  o.time_limit = 20;
  o.half_life = 1;
  o.events = {{ChurnEvent::Kind::leave, 1}, {ChurnEvent::Kind::leave, 2}};
  const auto pull = make_random_pull(1);
  const RunResult res = run_p2p(r.hosts, r.guest, r.mapping, *pull, o);
  EXPECT_EQ(res.columns.at("hosts").back(), 1);
  EXPECT_EQ(res.summary.notes.at("jobs_lost"), 0);
}

TEST(P2PEngine, ALostJobIsCaught) {
  const Jobs r = setup(16, 40, true);
  P2POptions o;
  o.time_limit = 50;
  o.lose_job_at = 7;
  const auto pm = make_probabilistic_migration(0.5);
  EXPECT_THROW(run_p2p(r.hosts, r.guest, r.mapping, *pm, o), ConservationError);
}

TEST(P2PEngine, AHostLeavingWithJobsInMigrationLosesNone) {
  // Two hosts; at t = 1 DASUD sends half the jobs to host 1, a journey of 50 time units; at t = 2
  // host 1 leaves with all 20 still arriving, at t = 3 a new host enters.
  const Jobs r = setup(2, 40, true);
  P2POptions o;
  o.migration_cost = 50;
  o.time_limit = 100;
  o.events = {{ChurnEvent::Kind::leave, 2, 1}, {ChurnEvent::Kind::enter, 3}};
  o.record_final_load = true;
  const auto dasud = make_dasud();
  const RunResult res = run_p2p(r.hosts, r.guest, r.mapping, *dasud, o);
  EXPECT_EQ(res.summary.notes.at("jobs_lost"), 0);
  EXPECT_EQ(res.summary.notes.at("migrations"), 60);  // 20 sent, the same 20 handed back, 20 to the newcomer
  EXPECT_EQ(res.final_load, (std::vector<double>{20, 20}));
  // A scripted exit of a host that is not there is an input error.
  o.events = {{ChurnEvent::Kind::leave, 2, 1}, {ChurnEvent::Kind::leave, 4, 1}};
  EXPECT_THROW(run_p2p(r.hosts, r.guest, r.mapping, *dasud, o), InputError);
}

TEST(P2PEngine, DasudLeavesEveryDomainWithADifferenceOfAtMostOne) {
  const Jobs r = setup(64, 500, true);
  P2POptions o;
  o.time_limit = 200;
  o.record_final_load = true;
  const auto dasud = make_dasud();
  const RunResult res = run_p2p(r.hosts, r.guest, r.mapping, *dasud, o);
  for (NodeId h = 0; h < 64; ++h) {
    double lo = res.final_load[h], hi = lo;
    for (NodeId j : r.hosts.neighbors(h)) lo = std::min(lo, res.final_load[j]), hi = std::max(hi, res.final_load[j]);
    EXPECT_LE(hi - lo, 1) << "domain of host " << h;
  }
}

TEST(P2PEngine, ExtendedNeighborBeyondTheDiameterReachesTheOptimum) {
  const Jobs r = setup(64, 500, true);
  std::uint32_t diameter = 0;
  for (NodeId h = 0; h < 64; ++h) {
    const auto d = r.hosts.distances_from(h);
    diameter = std::max(diameter, *std::max_element(d.begin(), d.end()));
  }
  P2POptions o;
  o.time_limit = 100;
  const auto en = make_extended_neighbor(diameter + 1);
  const RunResult res = run_p2p(r.hosts, r.guest, r.mapping, *en, o);
  EXPECT_LE(res.summary.final_spread, 1);  // 500 jobs on 64 hosts: 7 or 8 each
  // EN 1 keeps a gradient here: the spread stays above 1.
  const auto en1 = make_extended_neighbor(1);
  EXPECT_GT(run_p2p(r.hosts, r.guest, r.mapping, *en1, o).summary.final_spread, 1);
}

TEST(P2PEngine, DiscreteSenderInitiatedDiffusionOverMigrates) {
  // Three jobs on two hosts (sec. 2.3): SID moves ceil(1 / 2) = 1 job across a difference of one,
  // back and forth for ever; EN 1 moves one job once and stops with the difference of one.
  Jobs r{make_topology("line:2", 1).graph, make_topology("ring:3", 1).graph, {0, 0, 0}};
  P2POptions o;
  o.time_limit = 50;
  const auto sid = make_sender_initiated(), en1 = make_extended_neighbor(1);
  EXPECT_GE(run_p2p(r.hosts, r.guest, r.mapping, *sid, o).summary.notes.at("migrations"), 50);
  EXPECT_EQ(run_p2p(r.hosts, r.guest, r.mapping, *en1, o).summary.notes.at("migrations"), 1);
}

TEST(SenderInitiated, ContinuousLoadBalancesAndIntegerLoadKeepsAGradient) {
  // Divisible load (sec. 2.3): halving the difference with the least loaded neighbour balances;
  // rounded down to whole units it stops with a difference of one on some edges.
  // (A target of its own: without one, sync stops in the band of 1 %, as every engine does.)
  const auto real = test::summary(
      run_sets({"topology=line:8", "algorithm=sid-continuous", "load.init=single:0,800", "stop.spread=1e-4", "stop.steps=2000"}));
  EXPECT_EQ(real["stop_reason"], "spread");
  EXPECT_LT(real["final_spread"].get<double>(), 1e-3);
  const auto whole = test::summary(run_sets({"topology=line:8", "algorithm=sid-continuous", "load.mode=integer", "load.init=single:0,803",
                                             "stop.steps=2000"}));
  EXPECT_EQ(whole["final_total"], 803);
  EXPECT_GE(whole["final_spread"].get<double>(), 1);
  EXPECT_LE(whole["final_spread"].get<double>(), 7);  // at most one unit a hop on 7 hops
}

TEST(P2PEngine, PmZeroBehavesAsEnOne) {
  const Jobs r = setup(48, 200, true);
  P2POptions o;
  o.time_limit = 150;
  o.migration_cost = 2;
  o.half_life = 100;
  o.record_final_load = true;
  const auto pm0 = make_probabilistic_migration(0), en1 = make_extended_neighbor(1);
  const RunResult a = run_p2p(r.hosts, r.guest, r.mapping, *pm0, o), b = run_p2p(r.hosts, r.guest, r.mapping, *en1, o);
  EXPECT_EQ(a.final_load, b.final_load);
  EXPECT_EQ(a.columns.at("progress"), b.columns.at("progress"));
  EXPECT_EQ(a.columns.at("migrations"), b.columns.at("migrations"));
}

// A policy that moves jobs from a host to itself: the engines refuse what it decides.
class SelfMigration : public DomainPolicy {
 public:
  std::string name() const override { return "self"; }
  void decide(const DomainView&, std::vector<Migration>& out) const override { out.push_back({0, 0, 1}); }
};

TEST(P2PEngine, AnImpossibleMigrationFailsLoudly) {
  const Jobs r = setup(8, 16, false);
  P2POptions o;
  o.time_limit = 20;
  const SelfMigration bad;
  EXPECT_THROW(run_p2p(r.hosts, r.guest, r.mapping, bad, o), std::logic_error);
  std::vector<Migration> out;
  const std::vector<DomainHost> two{{0, 0, 3}, {1, 1, 1}};
  EXPECT_THROW(decide_checked(bad, {two, nullptr}, out), std::logic_error);
  out.clear();
  const auto en = make_extended_neighbor(1);
  decide_checked(*en, {two, nullptr}, out);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].jobs, 1);
}

TEST(P2PEngine, ProgressOfABalancedRunIsTheAnalyticRate) {
  // One job per host: an iteration every 10 time units, so I(t) = floor(t / 10) for every job;
  // k jobs per host share it: one every 10 k.
  for (NodeId per_host : {1u, 2u, 3u}) {
    const Jobs r = setup(31, 31 * per_host, false);
    P2POptions o;
    o.time_limit = 500;
    const auto pm = make_probabilistic_migration(0.35);
    const RunResult res = run_p2p(r.hosts, r.guest, r.mapping, *pm, o);
    const auto& progress = res.columns.at("progress");
    for (std::size_t t = 0; t < res.series.size(); ++t)
      ASSERT_DOUBLE_EQ(progress[t], std::floor(res.series[t].time / (10.0 * per_host))) << per_host << " per host, t = " << t;
    EXPECT_EQ(res.summary.notes.at("migrations"), 0);
  }
}

TEST(P2PEngine, TheApplicationEndsWhenEveryJobHasDoneItsIterations) {
  const Jobs r = setup(31, 62, false);  // two jobs a host: an iteration every 20 units
  P2POptions o;
  o.time_limit = 500;
  o.iterations = 5;
  const auto pm = make_probabilistic_migration(0.35);
  const RunResult res = run_p2p(r.hosts, r.guest, r.mapping, *pm, o);
  EXPECT_EQ(res.summary.stop_reason, StopReason::finished);
  ASSERT_TRUE(res.summary.finished_at);
  EXPECT_EQ(*res.summary.finished_at, 100);
  EXPECT_EQ(res.summary.notes.at("progress"), 5);
}

TEST(P2PEngine, SynchronizationCostsGammaPerHop) {
  // Jobs 0 and 1 (a 2-ring) on hosts 3 hops apart: each iteration takes 10 + 3 gamma.
  Jobs r{make_topology("line:4", 1).graph, make_topology("line:2", 1).graph, {0, 3}};
  P2POptions o;
  o.time_limit = 200;
  o.gamma = 2;
  const auto en0 = make_extended_neighbor(0);  // a domain of one host: nothing moves
  const RunResult res = run_p2p(r.hosts, r.guest, r.mapping, *en0, o);
  EXPECT_EQ(res.summary.notes.at("progress"), std::floor((200 + 6) / 16.0));  // iterations end at 10, 26, 42, ...
}

TEST(P2PEngine, HostsBalanceEveryBalanceEveryTimeUnits) {
  // 64 jobs on host 0 of a line of 2: DASUD moves 32 at the first balancing round (t = 1).
  // Balancing once an iteration (10 units) still starts at t = 1. PM 1 with 24 jobs on 16 hosts
  // never settles (the jobs do not divide), so its migrations count the rounds.
  Jobs r{make_topology("line:2", 1).graph, make_topology("ring:64", 1).graph, std::vector<NodeId>(64, 0)};
  P2POptions o;
  o.time_limit = 1;
  o.balance_every = 10;
  o.record_final_load = true;
  EXPECT_EQ(run_p2p(r.hosts, r.guest, r.mapping, *make_dasud(), o).final_load, (std::vector<double>{32, 32}));
  auto migrations = [](std::uint32_t every) {
    const Jobs s = setup(16, 24, true);
    P2POptions p;
    p.time_limit = 100;
    p.balance_every = every;
    return run_p2p(s.hosts, s.guest, s.mapping, *make_probabilistic_migration(1.0), p).summary.notes.at("migrations");
  };
  const double each_unit = migrations(1), each_iteration = migrations(10);
  EXPECT_GT(each_iteration, 0);
  EXPECT_LT(each_iteration, each_unit / 4);  // 10 rounds against 100
}

TEST(P2PEngine, JobSelectionKeepsGuestNeighboursTogether) {
  // 64 jobs of a ring all on host 0 of a 2-host line: DASUD moves 32 at t = 1. Chosen by edge cut
  // or by distance they form one arc (2 ring edges cut); chosen at random, about half the edges.
  Jobs r{make_topology("line:2", 1).graph, make_topology("ring:64", 1).graph, std::vector<NodeId>(64, 0)};
  P2POptions o;
  o.time_limit = 1;
  o.record_final_load = true;
  const auto dasud = make_dasud();
  for (JobSelection sel : {JobSelection::edge_cut, JobSelection::distance, JobSelection::any}) {
    o.selection = sel;
    const RunResult res = run_p2p(r.hosts, r.guest, r.mapping, *dasud, o);
    EXPECT_EQ(res.final_load, (std::vector<double>{32, 32}));
    if (sel == JobSelection::any) EXPECT_GT(res.summary.notes.at("edge_cut"), 16);
    else EXPECT_EQ(res.summary.notes.at("edge_cut"), 2);
  }
}

// --- the same policies as node programs, views gathered by messages (des) --------------------

struct DesJobs {
  Topology topo;
  InitialState initial;
};

DesJobs des_jobs(NodeId hosts, std::uint64_t jobs) {
  DesJobs d{make_topology("p2p:" + std::to_string(hosts), 11), {std::vector<double>(hosts, 0.0), std::vector<std::vector<Item>>(hosts)}};
  for (std::uint64_t j = 0; j < jobs; ++j) d.initial.items[0].push_back({j, 1, 0});
  return d;
}

TEST(DomainBalancer, DasudByMessagesLeavesEveryDomainWithADifferenceOfAtMostOne) {
  const DesJobs d = des_jobs(32, 300);
  const DomainBalancer program(make_dasud(), {.period = 1});
  DesOptions o;
  o.time_limit = 300;
  o.stop_when_balanced = false;
  o.record_final_load = true;
  const RunResult r = run_des(d.topo, program, LoadMode::integer, d.initial, Platform{{1e9}, {1e-3}, {1e6}}, o);
  ASSERT_EQ(r.final_load.size(), 32u);  // the des engine recounts every job's identity at every sample
  EXPECT_EQ(std::accumulate(r.final_load.begin(), r.final_load.end(), 0.0), 300);
  for (NodeId h = 0; h < 32; ++h) {
    double lo = r.final_load[h], hi = lo;
    for (NodeId j : d.topo.graph.neighbors(h)) lo = std::min(lo, r.final_load[j]), hi = std::max(hi, r.final_load[j]);
    EXPECT_LE(hi - lo, 1) << "domain of host " << h;
  }
}

TEST(DomainBalancer, JobsSurviveHostsLeavingAndJoiningOnDes) {
  const DesJobs d = des_jobs(16, 120);
  const DomainBalancer program(make_probabilistic_migration(0.35), {.period = 1});
  DesOptions o;
  o.time_limit = 100;
  o.stop_when_balanced = false;
  const std::vector<GraphChange> churn = {{GraphChange::Kind::leave, 5.5, 0, {}},  // the host holding every job, early
                                          {GraphChange::Kind::leave, 30.5, 7, {}},
                                          {GraphChange::Kind::join, 40.5, 0, {3, 9, 12}}};
  RunResult r;
  ASSERT_NO_THROW(r = run_des(d.topo, program, LoadMode::integer, d.initial, Platform{{1e9}, {1e-3}, {1e6}}, o, nullptr, churn));
  EXPECT_EQ(r.summary.final_spread <= 2, true) << r.summary.final_spread;
  // A radius-2 domain is not gathered by this program.
  EXPECT_THROW(DomainBalancer(make_extended_neighbor(2), {}), InputError);
}

// A program that runs another and notes the items each node holds after each of its handlers
// (at the end of a quiet run: where every item is).
class HoldingsWatch final : public Program {
 public:
  HoldingsWatch(const Program& inner, NodeId nodes) : held(nodes), inner_(inner) {}
  std::string name() const override { return inner_.name(); }
  ProgramNeeds needs() const override { return inner_.needs(); }
  std::unique_ptr<Agent> make_agent(NodeId node) const override {
    return std::make_unique<Watch>(inner_.make_agent(node), held.at(node));
  }
  mutable std::vector<std::vector<ItemId>> held;

 private:
  struct Watch final : Agent {
    Watch(std::unique_ptr<Agent> a, std::vector<ItemId>& out) : inner(std::move(a)), held(out) {}
    void start(Context& ctx) override { inner->start(ctx), note(ctx); }
    void timer(Context& ctx, std::uint32_t tag) override { inner->timer(ctx, tag), note(ctx); }
    void arrived(Context& ctx, Channel c) override { inner->arrived(ctx, c), note(ctx); }
    void note(Context& ctx) {
      held.clear();
      for (const Item& it : ctx.items()) held.push_back(it.id);
    }
    std::unique_ptr<Agent> inner;
    std::vector<ItemId>& held;
  };
  const Program& inner_;
};

TEST(DomainBalancer, SelectionRulesOnLocalKnowledgeKeepGuestNeighboursTogether) {
  // The jobs of ring:64 on host 0 of line:2, held in a shuffled order. Sent as received last,
  // the 32 that go cut about half the ring's edges; chosen by edge cut or distance on what host 0
  // knows (the jobs it holds, where it sent others) they form a few arcs.
  const Topology hosts = make_topology("line:2", 1), ring = make_topology("ring:64", 1);
  InitialState initial{{0.0, 0.0}, {{}, {}}};
  std::vector<ItemId> order(64);
  std::iota(order.begin(), order.end(), 0);
  Rng shuffle(5);
  std::shuffle(order.begin(), order.end(), shuffle);
  for (ItemId j : order) initial.items[0].push_back({j, 1, 0});
  auto cut_edges = [&](JobSelection rule) {
    const DomainBalancer balancer(make_dasud(), {.period = 1, .selection = rule, .guest = &ring.graph});
    const HoldingsWatch program(balancer, 2);
    DesOptions o;
    o.time_limit = 20;
    o.record_final_load = true;
    const RunResult r = run_des(hosts, program, LoadMode::integer, initial, Platform{{1e9}, {1e-3}, {1e6}}, o);
    EXPECT_EQ(r.final_load, (std::vector<double>{32, 32}));
    std::vector<NodeId> host_of(64);
    for (NodeId h = 0; h < 2; ++h)
      for (ItemId j : program.held[h]) host_of[j] = h;
    int cut = 0;
    for (NodeId j = 0; j < 64; ++j)
      for (NodeId k : ring.graph.neighbors(j)) cut += j < k && host_of[j] != host_of[k];
    return cut;
  };
  EXPECT_GT(cut_edges(JobSelection::any), 16);
  EXPECT_LE(cut_edges(JobSelection::edge_cut), 4);
  EXPECT_LE(cut_edges(JobSelection::distance), 4);
}

// --- through the scenario keys ----------------------------------------------------------------

TEST(P2PScenario, RunsFromKeysAndRefusesBadInput) {
  const std::vector<std::string> base = {"engine=p2p", "topology=p2p:16", "guest.graph=mesh:4x4", "stop.time=100"};
  auto with = [&](std::vector<std::string> extra) {
    std::vector<std::string> sets = base;
    sets.insert(sets.end(), extra.begin(), extra.end());
    return sets;
  };
  const auto s = test::summary(run_sets(with({"algorithm=pm", "churn.events=leave@20,enter@30"})));
  EXPECT_EQ(s["jobs_lost"], 0);
  EXPECT_EQ(s["hosts_left"], 1);
  EXPECT_GT(s["progress"].get<double>(), 0);
  // The same strategy as node programs on des: the jobs balance by messages.
  const auto des = test::summary(run_sets({"engine=des", "topology=p2p:16", "guest.graph=ring:100", "algorithm=dasud", "async.lb_period=1",
                                           "stop.time=100"}));
  EXPECT_LE(des["final_spread"].get<double>(), 3);
  EXPECT_EQ(des["nodes_with_load"], 16);
  EXPECT_TRUE(refused({"engine=sync", "algorithm=dasud"}, "engine"));
  for (const char* engine : {"engine=p2p", "engine=des"})  // 9e8 jobs: refused with the estimate before anything is built
    EXPECT_TRUE(refused({engine, "algorithm=dasud", "topology=p2p:16", "guest.graph=mesh:30000x30000"}, "needs about"));
  EXPECT_TRUE(refused({"engine=des", "algorithm=en", "en.x=2", "topology=p2p:8"}, "radius 1"));
  EXPECT_TRUE(refused(with({"algorithm=pm", "churn.half_life=0"}), "churn.half_life"));
  EXPECT_TRUE(refused(with({"algorithm=pm", "churn.half_life=-5"}), "churn.half_life"));
  EXPECT_TRUE(refused(with({"algorithm=en", "en.x=-1"}), "en.x"));
  EXPECT_TRUE(refused(with({"algorithm=pm", "pm.x=1.5"}), "pm.x"));
  EXPECT_TRUE(refused(with({"algorithm=pm", "churn.events=leave@x"}), "churn.events"));
  EXPECT_TRUE(refused(with({"algorithm=pm", "guest.mapping=diagonal"}), "guest.mapping"));
  EXPECT_TRUE(refused(with({"algorithm=fos"}), "algorithm"));                            // not a job strategy
  EXPECT_TRUE(refused({"engine=sync", "algorithm=fos", "p2p.gamma=3"}, "p2p.gamma"));  // a p2p key elsewhere
  const std::string map = test::write_temp("mapping", "0\n1\n99\n");
  EXPECT_TRUE(refused(with({"algorithm=pm", "guest.graph=ring:3", "guest.mapping=file:" + map}), "host 99"));
  const std::string short_map = test::write_temp("mapping", "0\n1\n");
  EXPECT_TRUE(refused(with({"algorithm=pm", "guest.graph=ring:3", "guest.mapping=file:" + short_map}), "maps 2 jobs"));
  const std::string bad_graph = test::write_temp("guest.edges", "0 1\n1 x\n");
  EXPECT_TRUE(refused(with({"algorithm=pm", "guest.graph=file:" + bad_graph}), bad_graph));
}

}  // namespace
}  // namespace nnlb

namespace nnlb {
namespace {

TEST(P2p, ItsTimeLimitIsItsOwnNotTheSimulatorsPeriods) {
  // stop.time is documented up to 1e7 time units on p2p; des's balancing periods (which bound
  // stop.time on des and mpi) are no concern of it.
  const RunRecord r = test::run_sets({"engine=p2p", "algorithm=dasud", "topology=ring:4", "guest.graph=ring:8", "stop.time=2e5"});
  EXPECT_EQ(r.result.summary.stop_reason, StopReason::time);
  EXPECT_TRUE(test::refused({"engine=p2p", "algorithm=dasud", "topology=ring:4", "guest.graph=ring:8", "stop.time=2e7"}, "key 'stop.time'"));
}

}  // namespace
}  // namespace nnlb

namespace nnlb {
namespace {

// --- one churn for p2p and des (model/churn.hpp) --------------------------------------------------

TEST(Churn, DrawnFromTheGraphAloneTheSameForTheSameStream) {
  const Graph hosts = make_p2p(32, 3);
  Churn a(hosts, 5, {}, Rng(9, 1)), b(hosts, 5, {}, Rng(9, 1));
  std::uint64_t leaves = 0;
  for (std::uint64_t t = 1; t <= 50; ++t) {
    const std::vector<GraphChange> x = a.step(t);
    const std::vector<GraphChange>& y = b.step(t);
    ASSERT_EQ(x.size(), y.size());
    for (std::size_t k = 0; k < x.size(); ++k) {
      EXPECT_EQ(x[k].node, y[k].node);
      EXPECT_EQ(x[k].peers, y[k].peers);
      EXPECT_EQ(x[k].time, static_cast<double>(t));
      if (x[k].kind == GraphChange::Kind::join) {
        EXPECT_EQ(x[k].peers.size(), join_degree(31));  // it joins a network of 31
      } else {
        ++leaves;
        EXPECT_EQ(x[k + 1].kind, GraphChange::Kind::join);  // a new host enters in its place
      }
    }
    EXPECT_EQ(a.network().size(), 32u);
  }
  EXPECT_GT(leaves, 100u);  // 32 x 50 x (1 - 2^(-1/5)) = 207 expected
}

TEST(Churn, APartitionIsCountedAndTheRepairJoinsThePartsAgain) {
  // line:3 loses its middle host at t = 2: hosts 0 and 2 are cut apart from then on (9 of 10
  // steps), unless the repair links the smaller part to the largest again (ties: the first).
  const Graph line = make_topology("line:3", 1).graph;
  const std::vector<ChurnEvent> cut = {{ChurnEvent::Kind::leave, 2, 1}};
  for (bool repair : {false, true}) {
    Churn churn(line, 0, cut, Rng(3, 1), repair);
    for (std::uint64_t t = 1; t <= 10; ++t) churn.step(t);
    EXPECT_EQ(churn.partitioned(), !repair);
    EXPECT_EQ(churn.partitioned_steps(), repair ? 0u : 9u);
    EXPECT_EQ(churn.repairs(), repair ? 1u : 0u);
    EXPECT_EQ(churn.network().connected(), repair);
  }
  // On the p2p engine: the summary's fraction of time units and the series column.
  const Jobs r{line, make_topology("ring:6", 1).graph, std::vector<NodeId>(6, 0)};
  for (bool repair : {false, true}) {
    const RunResult res = run_p2p(r.hosts, r.guest, r.mapping, *make_dasud(), {.repair = repair, .events = cut, .time_limit = 10});
    EXPECT_DOUBLE_EQ(res.summary.notes.at("partitioned"), repair ? 0.0 : 0.9);
    EXPECT_EQ(res.columns.at("partitioned").back(), repair ? 0.0 : 1.0);
  }
}

TEST(Churn, TheP2pEngineRunsTheSharedGeneratorsChurn) {
  const Jobs r = setup(32, 100, true);
  const RunResult res = run_p2p(r.hosts, r.guest, r.mapping, *make_probabilistic_migration(0.35), {.half_life = 8, .time_limit = 60, .seed = 17});
  Churn churn(r.hosts, 8, {}, Rng(17, 1));
  double leaves = 0;
  for (std::uint64_t t = 1; t <= 60; ++t)
    for (const GraphChange& c : churn.step(t)) leaves += c.kind == GraphChange::Kind::leave;
  EXPECT_GT(leaves, 0);
  EXPECT_EQ(res.summary.notes.at("hosts_left"), leaves);
}

TEST(Churn, JobStrategiesAndTheAsynchronousBalancerRunUnderItOnDes) {
  // Hosts leave and enter each second; every job and every unit of load is recounted at each
  // sample (the run throws otherwise); balance does not end a run under churn.
  const std::vector<std::string> jobs = {"engine=des", "topology=p2p:16", "guest.graph=ring:64", "algorithm=dasud",
                                         "async.lb_period=0.1", "stop.time=40", "churn.half_life=5"};
  const RunRecord r = test::run_sets(jobs);
  const RunSummary& s = r.result.summary;
  EXPECT_EQ(s.stop_reason, StopReason::time);
  EXPECT_GT(s.notes.at("hosts_left"), 20);  // 16 x 40 x 0.13 = 83 expected
  EXPECT_EQ(s.notes.at("hosts_left"), s.notes.at("hosts_entered"));
  EXPECT_EQ(s.final_total, 64);
  // The host holding every job leaves at t = 2: they reach its neighbours.
  auto scripted = jobs;
  scripted.back() = "churn.events=leave:0@2";
  const RunRecord one = test::run_sets(scripted);
  EXPECT_EQ(one.result.summary.notes.at("hosts_left"), 1);
  EXPECT_EQ(one.result.summary.final_total, 64);
  const RunRecord fos = test::run_sets({"engine=des", "topology=p2p:16", "algorithm=fos", "stop.time=20", "churn.half_life=5"});
  EXPECT_GT(fos.result.summary.notes.at("hosts_left"), 0);
  EXPECT_NEAR(fos.result.summary.final_total, fos.result.summary.initial_total, 1e-9 * fos.result.summary.initial_total);
  // Programs that cannot hear of neighbours leaving, and engines without churn, refuse it.
  EXPECT_TRUE(test::refused({"engine=des", "topology=p2p:16", "agent=rounds", "algorithm=fos", "churn.half_life=5"}, "churn.half_life"));
  EXPECT_TRUE(test::refused({"engine=rounds", "topology=p2p:16", "algorithm=fos", "churn.half_life=5"}, "churn.half_life"));
}

}  // namespace
}  // namespace nnlb

namespace nnlb {
namespace {

// --- p2p beside des: the same strategies, the same graphs, statistically the same ---------------

struct SeedMeans {
  double stddev = 0, moved = 0, balanced = 0, settled = 0;  // means over the seeds
};

// `algorithm` on `engine` from all jobs on host 0, over seeds 1..n: the final stddev, the jobs
// moved, the share of balanced runs and the time the spread first fell to one job.
SeedMeans outcome(const std::string& engine, const std::string& algorithm, int n) {
  SeedMeans o;
  for (int seed = 1; seed <= n; ++seed) {
    std::vector<std::string> sets = {"engine=" + engine, "topology=p2p:31", "guest.graph=ring:93", "algorithm=" + algorithm, "stop.time=100"};
    if (engine == "des") sets.push_back("async.lb_period=1");  // a decision a time unit, as on p2p
    const RunRecord r = test::run_sets(sets, static_cast<std::uint64_t>(seed));
    const RunSummary& s = r.result.summary;
    o.stddev += s.final_stddev / n, o.moved += s.load_moved / n, o.balanced += (s.balanced ? 1.0 : 0.0) / n;
    double settled = 100;
    for (const StepRecord& row : r.result.series)
      if (row.max - row.min <= 1) {
        settled = row.time;
        break;
      }
    o.settled += settled / n;
  }
  return o;
}

TEST(P2pBesideDes, AJobStrategyStuckOnDesEndsStalled) {
  // DASUD from all 64 jobs on one host of torus:8x8 stops at a spread of two jobs; it ran to the
  // default stop.time of 10,000 s, ten million balancing periods (found by the fuzz kind "pairs").
  const RunRecord r = test::run_sets({"engine=des", "algorithm=dasud"});
  EXPECT_EQ(r.result.summary.stop_reason, StopReason::stalled);
  EXPECT_LT(r.result.summary.timing->time, 10.0);
  EXPECT_EQ(r.result.summary.final_total, 64);
}

TEST(P2pBesideDes, DasudAndPmAgreeWithoutChurn) {
  // The p2p engine reads every domain exactly and moves jobs at once, a host after another in
  // each time unit; des gathers the domains by messages, one decision a second per host, and
  // moves jobs as messages. Measured over these 10 seeds (2026-11-25), p2p then des: DASUD ends
  // with about the same stddev (0.239 and 0.250: most runs stuck at a spread of 2) and jobs
  // moved (236 and 251, des relaying some through the centre), PM 0.35 balances every run on
  // both, with 278 and 277 jobs moved, the spread first at one job after 9.9 and 12.8 time units.
  // The bounds below leave room for other seeds.
  const SeedMeans dasud_p2p = outcome("p2p", "dasud", 10), dasud_des = outcome("des", "dasud", 10);
  EXPECT_NEAR(dasud_p2p.stddev, dasud_des.stddev, 0.1);
  EXPECT_NEAR(dasud_des.moved / dasud_p2p.moved, 1.0, 0.2);
  const SeedMeans pm_p2p = outcome("p2p", "pm", 10), pm_des = outcome("des", "pm", 10);
  EXPECT_NEAR(pm_p2p.balanced, 1.0, 1e-12);  // every run
  EXPECT_NEAR(pm_des.balanced, 1.0, 1e-12);
  EXPECT_NEAR(pm_des.moved / pm_p2p.moved, 1.0, 0.2);
  EXPECT_GT(pm_des.settled / pm_p2p.settled, 0.5);
  EXPECT_LT(pm_des.settled / pm_p2p.settled, 2.5);
}

}  // namespace
}  // namespace nnlb
