// The node-program (agent) layer: one program, every engine. A message protocol written once
// runs on the rounds engine and the discrete-event engine; items keep their identities; nodes
// leave and join; conservation checks fire on a faulty network; the balancing programs give the
// synchronous engine's loads; and every accepted policy x engine pair honours one contract.
#include <gtest/gtest.h>

#include <map>
#include <numeric>

#include "nnlb/programs/async_balancer.hpp"
#include "nnlb/programs/round_balancer.hpp"
#include "nnlb/engine/des/des_engine.hpp"
#include "nnlb/engine/sync/rounds_engine.hpp"
#include "nnlb/engine/sync/sync_engine.hpp"
#include "nnlb/model/load.hpp"
#include "nnlb/catalog/registry.hpp"
#include "nnlb/util/error.hpp"
#include "nnlb/util/parallel.hpp"

#include "contract.hpp"
#include "nnlb/engine/registry.hpp"

namespace nnlb {
namespace {

const Platform platform{{1e9}, {5e-5}, {1.25e8}};

// --- the engines, behind one call -------------------------------------------------------------

// `until_balanced`: the simulator's oracle stops the run once the load is balanced (a balancing
// program never stops by itself); otherwise the run goes on until the program falls quiet or
// the limit (200 simulated seconds, 4000 rounds).
struct DesEngine {
  static constexpr const char* name = "des";
  static constexpr bool deterministic = true;
  static RunResult run(const Topology& t, const Program& p, LoadMode mode, const InitialState& init,
                       const EdgeColoring* coloring = nullptr, bool until_balanced = false) {
    DesOptions o;
    o.time_limit = 200;
    o.record_final_load = true;
    o.stop_when_balanced = until_balanced;
    return run_des(t, p, mode, init, platform, o, coloring);
  }
  static std::optional<RunResult> run_balanced(const Topology& t, const Program& p, LoadMode mode, const InitialState& init,
                                               const EdgeColoring* coloring) {
    return run(t, p, mode, init, coloring, true);
  }
};

struct RoundsEngine {
  static constexpr const char* name = "rounds";
  static constexpr bool deterministic = true;
  static RunResult run(const Topology& t, const Program& p, LoadMode mode, const InitialState& init,
                       const EdgeColoring* coloring = nullptr, bool until_balanced = false) {
    RoundsOptions o;
    o.max_rounds = 4000;
    o.record_final_load = true;
    o.stop_when_balanced = until_balanced;
    return run_rounds(t, p, mode, init, platform, o, coloring);
  }
  static std::optional<RunResult> run_balanced(const Topology& t, const Program& p, LoadMode mode, const InitialState& init,
                                               const EdgeColoring* coloring) {
    return run(t, p, mode, init, coloring, true);
  }
};

// An engine run through its registry entry (engine/registry.hpp), as the experiment layer runs it:
// the toy engine of the tests and, where nnlb was built with it, SimGrid (a process per run).
template <const char* Name>
struct RegisteredEngine {
  static constexpr const char* name = Name;
  static constexpr bool deterministic = true;
  static RunResult run(const Topology& t, const Program& p, LoadMode mode, const InitialState& init,
                       const EdgeColoring* coloring = nullptr, bool until_balanced = false) {
    const EngineEntry* e = find_engine(Name);
    if (e == nullptr || !e->run) throw std::logic_error(std::string("engine ") + Name + " cannot run here");
    EngineRun r{t, p, mode, init, platform};
    r.time_limit = 200;
    r.record_final_load = true;
    r.stop_when_balanced = until_balanced;
    r.sample_period = 0.01;
    r.coloring = coloring;
    return e->run(r);
  }
  static std::optional<RunResult> run_balanced(const Topology& t, const Program& p, LoadMode mode, const InitialState& init,
                                               const EdgeColoring* coloring) {
    return run(t, p, mode, init, coloring, true);
  }
};
constexpr char toy_name[] = "toy";
using ToyEngine = RegisteredEngine<toy_name>;
#ifdef NNLB_HAVE_SIMGRID
constexpr char simgrid_name[] = "simgrid";
using SimgridEngine = RegisteredEngine<simgrid_name>;
#endif

// Engines that run in this process (the tests read their programs' state after a run), and those
// that run the policy x program contract, which reads the record alone.
template <class E>
class EveryEngine : public ::testing::Test {};
using Engines = ::testing::Types<DesEngine, RoundsEngine, ToyEngine>;
TYPED_TEST_SUITE(EveryEngine, Engines);
template <class E>
class ContractEngine : public ::testing::Test {};
#ifdef NNLB_HAVE_SIMGRID
using ContractEngines = ::testing::Types<DesEngine, RoundsEngine, ToyEngine, SimgridEngine>;
#else
using ContractEngines = ::testing::Types<DesEngine, RoundsEngine, ToyEngine>;
#endif
TYPED_TEST_SUITE(ContractEngine, ContractEngines);

InitialState loads(std::vector<double> w) { return {std::move(w), {}}; }


// --- a protocol written once: Chang's echo algorithm ------------------------------------------
// Node 0 floods an explore message; a node's first explore names its parent; once a node has
// heard from every neighbour it echoes the sum of its subtree's loads to its parent. The
// initiator then knows the global total and reports termination.

enum EchoTag : std::uint32_t { explore, echo };

struct EchoResult {
  double total = -1;
  int echoes = 0;
};

class EchoAgent final : public Agent {
 public:
  explicit EchoAgent(EchoResult* result) : result_(result) {}
  void start(Context& ctx) override {
    if (result_ == nullptr) return;  // not the initiator
    for (Port p = 0; p < ctx.degree(); ++p) ctx.send(p, Channel::control, explore, {}, 16);
    if (ctx.degree() == 0) finish(ctx);
  }
  void arrived(Context& ctx, Channel) override {
    for (const Message& m : ctx.take(Channel::control)) {
      ++heard_;
      if (m.tag == echo) sum_ += m.value[0];
      if (m.tag == explore && parent_ == no_port && result_ == nullptr) {
        parent_ = m.port;
        for (Port p = 0; p < ctx.degree(); ++p)
          if (p != parent_) ctx.send(p, Channel::control, explore, {}, 16);
      }
    }
    if (heard_ < ctx.degree() || done_) return;
    done_ = true;
    if (result_ != nullptr) finish(ctx);
    else ctx.send(parent_, Channel::control, echo, {sum_ + ctx.load()}, 16);
  }

 private:
  void finish(Context& ctx) {
    result_->total = sum_ + ctx.load();
    ++result_->echoes;
    ctx.detected_termination();
  }
  EchoResult* result_;
  Port parent_ = no_port;
  std::uint32_t heard_ = 0;
  double sum_ = 0;
  bool done_ = false;  // echoed, or finished at the initiator
};

class Echo final : public Program {
 public:
  std::string name() const override { return "echo"; }
  std::unique_ptr<Agent> make_agent(NodeId node) const override {
    return std::make_unique<EchoAgent>(node == 0 ? &result : nullptr);
  }
  mutable EchoResult result;
};

TYPED_TEST(EveryEngine, EchoProtocolComputesTheTotalOnce) {
  for (const char* spec : {"single", "line:2", "ring:7", "star:6", "complete:5", "torus:5x4", "hypercube:4"}) {
    const Topology t = test::contract_topology(spec);
    const NodeId n = t.graph.num_nodes();
    std::vector<double> w(n);
    std::iota(w.begin(), w.end(), 1.0);
    Echo program;
    const RunResult r = TypeParam::run(t, program, LoadMode::real, loads(w));
    EXPECT_EQ(program.result.total, n * (n + 1) / 2.0) << spec;
    EXPECT_EQ(program.result.echoes, 1) << spec;
    ASSERT_TRUE(r.summary.detected_at.has_value()) << spec;
  }
}

TEST(AgentLayer, EchoTakesOneRoundTripPerTreeLevelInRounds) {
  // On a line of 6 from one end: 5 rounds out, 5 back.
  Echo program;
  const RunResult r = RoundsEngine::run(make_topology("line:6", 1), program, LoadMode::real, loads(std::vector<double>(6, 1)));
  EXPECT_EQ(*r.summary.detected_at, 10.0);
}

// --- send_each: one message to every neighbour, each with its own fields ------------------------

class Greeting final : public Program {
  class GreetingAgent final : public Agent {
   public:
    explicit GreetingAgent(std::vector<std::vector<std::array<double, 3>>>& heard) : heard_(heard) {}
    void start(Context& ctx) override {
      std::vector<std::array<double, 3>> hello(ctx.degree());
      for (Port p = 0; p < ctx.degree(); ++p) hello[p] = {double(ctx.self()), double(p), double(ctx.neighbors()[p].id)};
      ctx.send_each(Channel::control, 7, hello, 16);
    }
    void arrived(Context& ctx, Channel) override {
      for (const Message& m : ctx.take(Channel::control))
        heard_[ctx.self()].push_back({double(m.from), double(ctx.neighbors()[m.port].id), m.value[2] + 1000 * m.tag});
    }

   private:
    std::vector<std::vector<std::array<double, 3>>>& heard_;
  };

 public:
  explicit Greeting(NodeId n) : heard(n) {}
  std::string name() const override { return "greeting"; }
  std::unique_ptr<Agent> make_agent(NodeId) const override { return std::make_unique<GreetingAgent>(heard); }
  mutable std::vector<std::vector<std::array<double, 3>>> heard;  // per node: (from, port's id, addressee + 1000 tag)
};

TYPED_TEST(EveryEngine, SendEachReachesEveryNeighbourWithItsOwnFields) {
  const Topology t = make_topology("star:5", 1);
  Greeting program(t.graph.num_nodes());
  TypeParam::run(t, program, LoadMode::real, loads(std::vector<double>(t.graph.num_nodes(), 1)));
  for (NodeId i = 0; i < t.graph.num_nodes(); ++i) {
    ASSERT_EQ(program.heard[i].size(), t.graph.degree(i)) << i;
    for (const auto& [from, port_id, addressee] : program.heard[i]) {
      EXPECT_EQ(from, port_id) << i;               // the message's port names its sender
      EXPECT_EQ(addressee, 7000.0 + i) << i;       // it carried the fields meant for this node
    }
  }
}

TYPED_TEST(EveryEngine, SendEachRefusesAWrongNumberOfMessages) {
  class Wrong final : public Program {
    class A final : public Agent {
      void start(Context& ctx) override { ctx.send_each(Channel::control, 0, std::vector<std::array<double, 3>>(ctx.degree() + 1), 16); }
    };
   public:
    std::string name() const override { return "wrong"; }
    std::unique_ptr<Agent> make_agent(NodeId) const override { return std::make_unique<A>(); }
  };
  EXPECT_THROW(TypeParam::run(make_topology("line:3", 1), Wrong{}, LoadMode::real, loads({1, 1, 1})), std::logic_error);
}

// --- items: random moves keep every identity exactly once --------------------------------------

class RandomMover final : public Program {
  class MoverAgent final : public Agent {
   public:
    void start(Context& ctx) override { ctx.set_timer(0.01, 0); }
    // Moves a random half of its items and half of its load to a random neighbour every tick;
    // the last ten ticks only take what arrives.
    void timer(Context& ctx, std::uint32_t) override {
      ctx.take(Channel::data);
      if (ticks_ < 30 && ctx.degree() > 0 && !ctx.items().empty()) {
        std::vector<ItemId> pick;
        for (const Item& it : ctx.items())
          if (ctx.rng().uniform() < 0.5) pick.push_back(it.id);
        const double share = ctx.integer_load() ? std::floor(ctx.load() / 2) : ctx.load() / 2;
        ctx.send(static_cast<Port>(ctx.rng().below(ctx.degree())), Channel::data, 0, {}, 100, {.load = share, .items = pick});
      }
      if (++ticks_ < 40) ctx.set_timer(ticks_ < 39 ? 0.01 : 2.0, 0);  // the last take when every message has arrived
    }
    void arrived(Context&, Channel) override {}

   private:
    int ticks_ = 0;
  };

 public:
  std::string name() const override { return "random-mover"; }
  std::unique_ptr<Agent> make_agent(NodeId) const override { return std::make_unique<MoverAgent>(); }
  bool notifies(Channel) const override { return false; }
  ProgramNeeds needs() const override { return {.items = true}; }
};

InitialState with_items(NodeId n, std::uint64_t per_node) {
  InitialState s{std::vector<double>(n, 64.0), std::vector<std::vector<Item>>(n)};
  std::uint64_t id = 1000;
  for (NodeId i = 0; i < n; ++i)
    for (std::uint64_t k = 0; k < per_node; ++k) s.items[i].push_back({id++, 1.0 + static_cast<double>(k), 10});
  return s;
}

TYPED_TEST(EveryEngine, RandomItemMovesConserveIdentitiesAndLoad) {
  const Topology t = make_topology("torus:4x4", 1);
  const InitialState init = with_items(16, 5);
  const RunResult r = TypeParam::run(t, RandomMover{}, LoadMode::integer, init);  // checks at every sample
  const double item_weight = 16 * (1 + 2 + 3 + 4 + 5);
  EXPECT_EQ(r.summary.final_total, 16 * 64.0 + item_weight);  // divisible load and item weights
  EXPECT_EQ(std::accumulate(r.final_load.begin(), r.final_load.end(), 0.0), 16 * 64.0 + item_weight);
  EXPECT_GT(r.summary.load_moved, 0);
}

// --- the checks fire on a faulty network --------------------------------------------------------

TEST(AgentLayer, ConservationCheckCatchesLostDuplicatedAndCorruptedMessages) {
  const Topology t = make_topology("torus:4x4", 1);
  PolicySpec spec;
  spec.algorithm = "best-effort";
  const BuiltPolicy built = make_policy(spec, t);
  const AsyncBalancer program(*built.policy, {});
  const auto w0 = make_initial_load("random-total:16000", 16, LoadMode::real, 3);
  for (int fault = 0; fault < 3; ++fault) {
    DesOptions o;
    o.time_limit = 1;
    o.stop_when_balanced = false;
    (fault == 0 ? o.faults.drop_every : fault == 1 ? o.faults.duplicate_every : o.faults.corrupt_every) = 7;
    EXPECT_THROW(run_des(t, program, LoadMode::real, {w0, {}}, platform, o), ConservationError) << "fault " << fault;
  }
  DesOptions clean;
  clean.time_limit = 1;
  EXPECT_NO_THROW(run_des(t, program, LoadMode::real, {w0, {}}, platform, clean));
}

TEST(AgentLayer, RoundsEngineConservationCheckCatchesFaultyMessages) {
  const Topology t = make_topology("torus:4x4", 1);
  PolicySpec spec;
  spec.algorithm = "fos";
  const BuiltPolicy built = make_policy(spec, t);
  const RoundBalancer program(*built.policy, {.steps = 20});
  for (LoadMode mode : {LoadMode::real, LoadMode::integer}) {
    const auto w0 = make_initial_load("random-total:16000", 16, mode, 3);  // whole units in integer mode
    for (int fault = 0; fault < 3; ++fault) {
      RoundsOptions o;
      (fault == 0 ? o.faults.drop_every : fault == 1 ? o.faults.duplicate_every : o.faults.corrupt_every) = 7;
      EXPECT_THROW(run_rounds(t, program, mode, {w0, {}}, platform, o), ConservationError) << "fault " << fault;
    }
    EXPECT_NO_THROW(run_rounds(t, program, mode, {w0, {}}, platform, RoundsOptions{}));
  }
}

TEST(AgentLayer, ItemCheckCatchesALostItem) {
  DesOptions o;
  o.time_limit = 1;
  o.stop_when_balanced = false;
  o.faults.drop_every = 3;
  try {
    run_des(make_topology("ring:6", 1), RandomMover{}, LoadMode::integer, {std::vector<double>(6, 0.0), with_items(6, 4).items},
            platform, o);
    FAIL() << "a dropped message went unnoticed";
  } catch (const ConservationError& e) {
    EXPECT_NE(std::string(e.what()).find("lost"), std::string::npos) << e.what();
  }
}

// --- nodes leave and join (des) --------------------------------------------------------------------

TEST(AgentLayer, LeavingNodeHandsOverLoadAndItemsAndTheRestBalances) {
  const Topology t = make_topology("torus:4x4", 1);
  PolicySpec spec;
  spec.algorithm = "best-effort";
  const BuiltPolicy built = make_policy(spec, t);
  const AsyncBalancer program(*built.policy, {});
  InitialState init = with_items(16, 3);
  init.load.assign(16, 0.0);
  init.load[5] = 16000;
  const std::vector<GraphChange> changes = {{GraphChange::Kind::leave, 0.05, 5, {}},
                                            {GraphChange::Kind::leave, 0.2, 6, {}},
                                            {GraphChange::Kind::join, 0.3, 16, {0, 1, 2}}};
  DesOptions o;
  o.record_final_load = true;
  o.time_limit = 100;
  const RunResult r = run_des(t, program, LoadMode::real, init, platform, o, nullptr, changes);
  EXPECT_EQ(r.summary.stop_reason, StopReason::balanced);
  EXPECT_EQ(r.final_load.size(), 15u);  // 16 - 2 + 1 nodes
  const double items = 16 * (1 + 2 + 3);
  EXPECT_NEAR(r.summary.final_total, 16000 + items, 1e-6);  // load and item weight held and in flight, recounted
  EXPECT_GT(std::accumulate(r.final_load.begin(), r.final_load.end(), 0.0), items);
}

// A node that ticks once a second, counting its ticks by id.
class Ticker final : public Program {
 public:
  std::string name() const override { return "ticker"; }
  std::unique_ptr<Agent> make_agent(NodeId) const override {
    struct A final : Agent {
      std::map<NodeId, int>& ticks;
      explicit A(std::map<NodeId, int>& t) : ticks(t) {}
      void start(Context& ctx) override { ctx.set_timer(1, 0); }
      void timer(Context& ctx, std::uint32_t) override {
        ++ticks[ctx.self()];
        ctx.set_timer(1, 0);
      }
    };
    return std::make_unique<A>(ticks);
  }
  mutable std::map<NodeId, int> ticks;
};

TEST(AgentLayer, ANodeThatTakesTheIdOfOneThatLeftGetsNoneOfItsTimers) {
  // Node 2 leaves at 2.5 and a new node 2 joins at once (as churn's entering host takes the id
  // just freed). The first ticked at 1 and 2; its timer for 3 must not reach the second, which
  // ticks at 3.5 .. 9.5: 9 ticks in all, not 17 (two timer chains on one node, doubling at each
  // such reuse, were a bug).
  Ticker program;
  run_des(make_topology("line:3", 1), program, LoadMode::real, loads({1, 1, 1}), platform, {.time_limit = 10, .stop_when_balanced = false},
          nullptr, {{GraphChange::Kind::leave, 2.5, 2, {}}, {GraphChange::Kind::join, 2.5, 2, {1}}});
  EXPECT_EQ(program.ticks[0], 10);
  EXPECT_EQ(program.ticks[2], 2 + 7);
}

TEST(AgentLayer, BadGraphChangesAreInputErrors) {
  const Topology t = make_topology("line:3", 1);
  Echo program;
  DesOptions o;
  o.stop_when_balanced = false;
  o.time_limit = 1;
  EXPECT_THROW(run_des(t, program, LoadMode::real, loads({1, 1, 1}), platform, o, nullptr, {{GraphChange::Kind::leave, 0.1, 7, {}}}),
               InputError);
  EXPECT_THROW(run_des(t, program, LoadMode::real, loads({1, 1, 1}), platform, o, nullptr, {{GraphChange::Kind::join, 0.1, 1, {0}}}),
               InputError);
}

// --- the balancing programs -------------------------------------------------------------------------

BuiltPolicy policy(const std::string& algorithm, const Topology& t) {
  PolicySpec spec;
  spec.algorithm = algorithm;
  return make_policy(spec, t);
}

TEST(AgentLayer, RoundBalancerGivesTheSynchronousEnginesLoads) {
  // Xu's synchronous steps as messages equal the engine's direct per-node path and its fused
  // kernels: exactly in integer mode, to rounding in real mode (the sums run in another order).
  for (const char* algorithm : {"fos", "sos", "ade", "ode"})
    for (LoadMode mode : {LoadMode::real, LoadMode::integer}) {
      const Topology t = make_topology("mesh:6x5", 1);
      const BuiltPolicy built = policy(algorithm, t);
      const EdgeColoring coloring = edge_coloring_for(t);
      const auto w0 = make_initial_load("uniform:0,1000", 30, mode, 4);
      const std::uint64_t steps = 37;
      RoundBalancerOptions ro;
      ro.steps = steps;
      ro.colors = coloring.num_colors;
      const RoundBalancer program(*built.policy, ro);
      const RunResult agent = RoundsEngine::run(t, program, mode, loads(w0), &coloring);
      EXPECT_EQ(agent.summary.rounds, 2 * steps);
      for (bool fused : {false, true}) {
        SyncOptions so;
        so.stop.max_steps = steps;
        so.allow_fused = fused;
        so.record_final_load = true;
        const RunResult direct = run_sync(t, *built.policy, &coloring, mode, w0, platform, so);
        ASSERT_EQ(direct.final_load.size(), agent.final_load.size());
        for (std::size_t i = 0; i < direct.final_load.size(); ++i) {
          if (mode == LoadMode::integer) EXPECT_EQ(agent.final_load[i], direct.final_load[i]) << algorithm << " node " << i;
          else EXPECT_NEAR(agent.final_load[i], direct.final_load[i], 1e-9 * 1000) << algorithm << " node " << i;
        }
      }
    }
}

TEST(AgentLayer, RoundBalancerOnDesGivesTheRoundsEnginesLoadsBitForBit) {
  // A synchronous step decides on w_i(t) whatever the timing: on des, transfers of sizes that
  // differ (1250 bytes per unit, 1 Mb/s links) make nodes end steps at different times, and a
  // neighbour that decided first may send step t's transfer before this node has every report
  // of step t; it must wait. The same loads as in lock-step rounds: integer loads bit for bit,
  // real ones to rounding (a node adds its transfers in the order they arrive); on links that
  // keep arrivals in sender order (equal sizes and latencies), bit for bit too.
  const Platform slow{{1e9}, {1e-3}, {1.25e5}};
  for (const char* spec : {"ring:7", "mesh:4x3", "random-regular:12,3", "star:6"})
    for (const char* algorithm : {"fos", "sos"})
      for (LoadMode mode : {LoadMode::real, LoadMode::integer}) {
        const Topology t = make_topology(spec, 2);
        const BuiltPolicy built = policy(algorithm, t);
        const auto w0 = make_initial_load("uniform:0,1000", t.graph.num_nodes(), mode, 5);
        const RoundBalancer program(*built.policy, {.steps = 12, .control_bytes = 64, .bytes_per_unit = 1250});
        RoundsOptions ro;
        ro.record_final_load = true;
        const RunResult rounds = run_rounds(t, program, mode, loads(w0), slow, ro);
        DesOptions o;
        o.time_limit = 1e5;
        o.stop_when_balanced = false;
        o.record_final_load = true;
        const RunResult des = run_des(t, program, mode, loads(w0), slow, o);
        ASSERT_EQ(des.final_load.size(), rounds.final_load.size());
        for (std::size_t i = 0; i < des.final_load.size(); ++i) {
          if (mode == LoadMode::integer) EXPECT_EQ(des.final_load[i], rounds.final_load[i]) << spec << " " << algorithm << " node " << i;
          else EXPECT_NEAR(des.final_load[i], rounds.final_load[i], 1e-12 * 1000 * des.final_load.size()) << spec << " " << algorithm;
        }
      }
  const Topology t = make_topology("torus:4x4", 1);
  const BuiltPolicy built = policy("fos", t);
  const RoundBalancer program(*built.policy, {.steps = 20});
  const InitialState w0 = loads(make_initial_load("uniform:0,1000", 16, LoadMode::real, 6));
  RoundsOptions ro;
  ro.record_final_load = true;
  DesOptions o;
  o.stop_when_balanced = false;
  o.record_final_load = true;
  EXPECT_EQ(run_des(t, program, LoadMode::real, w0, platform, o).final_load, run_rounds(t, program, LoadMode::real, w0, platform, ro).final_load);
}

TEST(AgentLayer, AsyncBalancerRefusesWhatItCannotGive) {
  const Topology t = make_topology("ring:8", 1);
  EXPECT_THROW(AsyncBalancer(*policy("sos", t).policy, {}), InputError);           // no synchronous net flow
  EXPECT_THROW(AsyncBalancer(*policy("ade", t).policy, {.colors = 0}), InputError);  // no colouring
  EXPECT_THROW(RoundBalancer(*policy("ode", t).policy, {}), InputError);
  Echo echo;
  EXPECT_NO_THROW(DesEngine::run(t, echo, LoadMode::real, loads(std::vector<double>(8, 1))));
}

// A policy that reads NeighborState::last_flow (as SOS does; Policy::reads_last_flow keeps its
// default) and notes, step by step, what it decided and what it was told it sent before.
class FlowWatcher final : public Policy {
 public:
  std::string name() const override { return "flow-watcher"; }
  void decide(const LocalView& view, std::vector<Transfer>& out) const override {
    const NeighborState& nb = view.neighbors[0];
    seen[view.self].push_back(nb.last_flow);
    const double amount = view.load > nb.load ? 0.25 * (view.load - nb.load) : 0.0;
    decided[view.self].push_back(amount);
    if (amount > 0) out.push_back({0, amount});
  }
  mutable std::map<NodeId, std::vector<double>> seen, decided;  // by node, one entry a step
};

TEST(AgentLayer, AsyncBalancerGivesAPolicyThatReadsItTheLastStepsFlow) {
  const Topology t = make_topology("line:2", 1);
  FlowWatcher watcher;
  ASSERT_TRUE(watcher.reads_last_flow());
  EXPECT_FALSE(policy("best-effort", t).policy->reads_last_flow());
  const AsyncBalancer program(watcher, {});
  DesOptions o;
  o.time_limit = 0.02;
  o.stop_when_balanced = false;
  run_des(t, program, LoadMode::real, loads({100, 0}), platform, o);
  for (NodeId i = 0; i < 2; ++i) {
    const auto& seen = watcher.seen[i];
    const auto& decided = watcher.decided[i];
    ASSERT_GE(seen.size(), 5u) << "node " << i;
    EXPECT_EQ(seen[0], 0.0);
    for (std::size_t k = 1; k < seen.size(); ++k) EXPECT_EQ(seen[k], decided[k - 1]) << "node " << i << ", step " << k;
  }
  EXPECT_GT(watcher.decided[0][0], 0.0);  // the check above saw a flow
}

// --- the contract: every accepted policy x program x engine (tests/contract.hpp; the MPI engine
// runs it in tests/mpi_contract.cpp) ---------------------------------------------------------------

TYPED_TEST(ContractEngine, ConservesConvergesAndRepeats) { test::check_contract<TypeParam>(); }

TEST(AgentLayer, RoundsEngineResultDoesNotDependOnTheThreadCount) {
  const Topology t = make_topology("torus:90x90", 1);  // two blocks of nodes
  const BuiltPolicy built = policy("best-effort", t);
  const RoundBalancer program(*built.policy, {.steps = 6});
  const auto w0 = make_initial_load("uniform:0,1000", t.graph.num_nodes(), LoadMode::real, 2);
  std::vector<RunResult> results;
  for (int threads : {1, 2, 3}) {
    set_thread_count(threads);
    results.push_back(RoundsEngine::run(t, program, LoadMode::real, loads(w0)));
  }
  set_thread_count(0);
  EXPECT_EQ(results[0].final_load, results[1].final_load);
  EXPECT_EQ(results[0].final_load, results[2].final_load);
  EXPECT_NE(results[0].final_load, w0);
}

}  // namespace
}  // namespace nnlb
