// Conformance: one test per Context operation, run on every engine that declares it
// (engine/registry.hpp, Capability) and has a runner in this process: des, rounds and the toy
// engine of toy_engine.cpp, which shows what an engine is; the same file, built into the MPI test
// program with NNLB_CONFORMANCE_ENGINE="mpi", runs it on real ranks (mpi_contract.cpp). Each test
// drives a small node program, records what the nodes observed, and checks it and the record
// against what the operation promises (node/context.hpp). On a distributed engine each process
// checks what its own nodes observed, and the process that has the record checks the record.
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <map>
#include <memory>
#include <numeric>
#include <set>
#include <vector>

#include "nnlb/engine/registry.hpp"
#include "nnlb/model/topology.hpp"

namespace nnlb {
namespace {

const Platform conformance_platform{{1e9}, {1e-4}, {1e6}};

// Every engine that can run node programs here and declares `capability`.
std::vector<const EngineEntry*> engines_with(std::uint32_t capability) {
  std::vector<const EngineEntry*> out;
  for (const EngineEntry& e : engines()) {
#ifdef NNLB_CONFORMANCE_ENGINE
    if (e.name != NNLB_CONFORMANCE_ENGINE) continue;
#else
    if (e.time == TimeModel::wall_seconds) continue;  // real ranks: their own test program
#endif
    if (e.runs_programs && e.run && (e.provides & capability) == capability) out.push_back(&e);
  }
  return out;
}

// The engine's time unit of the tests' delays and work: a second, or a hundredth on wall-clock
// engines (the tests take a second of real time at most).
double unit(const EngineEntry& e) { return e.time == TimeModel::wall_seconds ? 0.01 : 1.0; }

EngineRun run_of(const EngineEntry& e, const Topology& t, const Program& p, const InitialState& init) {
  EngineRun r{t, p, LoadMode::real, init, conformance_platform};
  r.time_limit = 1e4 * unit(e);
  r.max_rounds = 2000;
  r.sample_period = 0.5 * unit(e);
  r.work_scale = unit(e);
  r.record_final_load = true;
  return r;
}

RunResult run_on(const EngineEntry& e, const Topology& t, const Program& p, const InitialState& init, bool until_balanced = false) {
  EngineRun r = run_of(e, t, p, init);
  r.stop_when_balanced = until_balanced;
  return e.run(r);
}

// The record's totals: initial and final (load and item weights), and what moved.
void expect_totals(const RunResult& r, double initial, double final, double moved) {
  EXPECT_EQ(r.summary.initial_total, initial);
  EXPECT_EQ(r.summary.final_total, final);
  EXPECT_EQ(r.summary.load_moved, moved);
}

// A program from one lambda per handler; what the nodes observed goes to `log`.
struct Log {
  std::set<NodeId> here;                         // the nodes that ran in this process
  std::map<NodeId, std::vector<double>> values;  // per receiving node, in the order observed
  std::map<NodeId, std::vector<std::uint64_t>> ids;
  std::vector<std::uint32_t> fired;
  std::vector<double> fired_at;
};

struct Scripted final : Program {
  using Start = std::function<void(Context&, Log&)>;
  using Arrived = std::function<void(Context&, Channel, Log&)>;
  using Timer = std::function<void(Context&, std::uint32_t, Log&)>;
  Start on_start;
  Arrived on_arrived = [](Context& ctx, Channel ch, Log& log) {
    for (const Message& m : ctx.take(ch)) log.values[ctx.self()].push_back(m.value[0]);
    for (const Item& it : ctx.taken_items()) log.ids[ctx.self()].push_back(it.id);
  };
  Timer on_timer = [](Context&, std::uint32_t, Log&) {};
  bool needs_items = false;
  std::shared_ptr<Log> log = std::make_shared<Log>();

  std::string name() const override { return "scripted"; }
  ProgramNeeds needs() const override { return {.items = needs_items}; }
  std::unique_ptr<Agent> make_agent(NodeId) const override {
    struct A final : Agent {
      const Scripted& p;
      explicit A(const Scripted& s) : p(s) {}
      void start(Context& ctx) override {
        p.log->here.insert(ctx.self());
        if (p.on_start) p.on_start(ctx, *p.log);
      }
      void arrived(Context& ctx, Channel ch) override { p.on_arrived(ctx, ch, *p.log); }
      void timer(Context& ctx, std::uint32_t tag) override { p.on_timer(ctx, tag, *p.log); }
    };
    return std::make_unique<A>(*this);
  }
};

TEST(Conformance, MessagesOfALinkArriveInOrderWithTheirCargo) {
  const auto engines = engines_with(Capability::messages);
#ifdef NNLB_CONFORMANCE_ENGINE
  ASSERT_EQ(engines.size(), 1u);
#else
  ASSERT_GE(engines.size(), 3u);  // des, rounds, toy
#endif
  for (const EngineEntry* e : engines) {
    SCOPED_TRACE(e->name);
    // Node 0 sends 20 data messages to node 1, of sizes that differ (a bandwidth-sharing network
    // would let the small ones overtake), each with one unit of load, and one report to each
    // neighbour with send_each.
    Scripted p;
    p.on_start = [](Context& ctx, Log&) {
      if (ctx.self() != 0) return;
      for (int k = 0; k < 20; ++k) ctx.send(0, Channel::data, 1, {static_cast<double>(k), 0, 0}, k % 2 ? 1e6 : 0, {.load = 1});
      std::vector<std::array<double, 3>> each(ctx.degree(), {100, 0, 0});
      ctx.send_each(Channel::control, 2, each, 64);
    };
    const Topology t = make_topology("line:2", 1);
    const RunResult r = run_on(*e, t, p, {{50, 0}, {}});
    if (p.log->here.contains(1)) {
      std::vector<double> expected(20);
      std::iota(expected.begin(), expected.end(), 0.0);
      std::vector<double> got = p.log->values[1];
      ASSERT_EQ(got.size(), 21u);
      const auto report = std::find(got.begin(), got.end(), 100.0);  // the control report: another channel,
      ASSERT_NE(report, got.end());                                   // order against data not promised
      got.erase(report);
      EXPECT_EQ(got, expected);  // first in, first out on the link
    }
    if (!r.reported) continue;
    EXPECT_EQ(r.final_load, (std::vector<double>{30, 20}));
    expect_totals(r, 50, 50, 20);
  }
}

TEST(Conformance, ALostMessageIsCaughtByTheRecount) {
  for (const EngineEntry* e : engines_with(Capability::messages)) {
    SCOPED_TRACE(e->name);
    Scripted p;
    p.on_start = [](Context& ctx, Log&) {
      if (ctx.self() == 0) ctx.send(0, Channel::data, 1, {}, 0, {.load = 5});
    };
    const Topology t = make_topology("line:2", 1);
    const InitialState init{{10, 0}, {}};
    EngineRun r = run_of(*e, t, p, init);
    r.faults.drop_every = 1;
    try {
      const RunResult out = e->run(r);
      EXPECT_FALSE(out.reported) << "a lost message went unnoticed";  // the process with the record recounts
    } catch (const ConservationError&) {
    }
  }
}

TEST(Conformance, ASendOfWhatTheNodeDoesNotHoldIsRefused) {
  // Each bad send, on every engine: to a port the node does not have, more load than it holds,
  // negative load, an item it does not hold, an item named twice.
  const std::vector<std::function<void(Context&)>> bad = {
      [](Context& ctx) { ctx.send(ctx.degree(), Channel::data, 1, {}, 0); },
      [](Context& ctx) { ctx.send(0, Channel::data, 1, {}, 0, {.load = ctx.load() + 1}); },
      [](Context& ctx) { ctx.send(0, Channel::data, 1, {}, 0, {.load = -1}); },
      [](Context& ctx) {
        const ItemId none[] = {999};
        ctx.send(0, Channel::data, 1, {}, 0, {.items = none});
      },
      [](Context& ctx) {
        const ItemId twice[] = {ctx.items().front().id, ctx.items().front().id};
        ctx.send(0, Channel::data, 1, {}, 0, {.items = twice});
      },
  };
  for (const EngineEntry* e : engines_with(Capability::messages | Capability::items)) {
    SCOPED_TRACE(e->name);
    // On real ranks a program's error ends that rank's process (the CLI reports it, exit 2):
    // the other ranks cannot be asked to go on within one test process.
    if (e->time == TimeModel::wall_seconds) continue;
    for (std::size_t k = 0; k < bad.size(); ++k) {
      SCOPED_TRACE(k);
      Scripted p;
      p.needs_items = true;
      p.on_start = [&bad, k](Context& ctx, Log&) {
        if (ctx.self() == 0) bad[k](ctx);
      };
      const InitialState init{{5, 0}, {{{1, 1, 0}}, {}}};
      EXPECT_THROW(run_on(*e, make_topology("line:2", 1), p, init), std::logic_error);
    }
  }
}

TEST(Conformance, ItemsTravelWithTheirIdentitiesAndWeights) {
  for (const EngineEntry* e : engines_with(Capability::messages | Capability::items)) {
    SCOPED_TRACE(e->name);
    Scripted p;
    p.needs_items = true;
    p.on_start = [](Context& ctx, Log&) {
      if (ctx.self() != 0) return;
      while (!ctx.items().empty()) {
        const ItemId first[] = {ctx.items().front().id};
        ctx.send(0, Channel::data, 1, {}, 0, {.items = first});
      }
    };
    InitialState init{{0, 0}, {{{100, 1, 8}, {101, 2, 8}, {102, 3, 8}}, {}}};
    const RunResult r = run_on(*e, make_topology("line:2", 1), p, init);
    if (p.log->here.contains(1)) {
      std::vector<std::uint64_t> ids = p.log->ids[1];
      std::sort(ids.begin(), ids.end());
      EXPECT_EQ(ids, (std::vector<std::uint64_t>{100, 101, 102}));
    }
    if (!r.reported) continue;
    EXPECT_EQ(r.final_load, (std::vector<double>{0, 6}));  // item weights count as load
    expect_totals(r, 6, 6, 6);
  }
}

TEST(Conformance, TimersFireInOrderOfTimeNotOfSetting) {
  for (const EngineEntry* e : engines_with(Capability::timers)) {
    SCOPED_TRACE(e->name);
    Scripted p;
    const double u = unit(*e);
    p.on_start = [u](Context& ctx, Log&) {
      if (ctx.self() != 0) return;
      ctx.set_timer(30 * u, 3);
      ctx.set_timer(10 * u, 1);
      ctx.set_timer(20 * u, 2);
    };
    p.on_timer = [](Context& ctx, std::uint32_t tag, Log& log) {
      log.fired.push_back(tag);
      log.fired_at.push_back(ctx.now());
    };
    const RunResult r = run_on(*e, make_topology("line:2", 1), p, {{1, 1}, {}});
    if (p.log->here.contains(0)) {
      EXPECT_EQ(p.log->fired, (std::vector<std::uint32_t>{1, 2, 3}));
      ASSERT_EQ(p.log->fired_at.size(), 3u);
      for (std::size_t k = 0; k < 3; ++k) EXPECT_GE(p.log->fired_at[k], 10.0 * (k + 1) * u);
    }
    if (r.reported) {
      EXPECT_EQ(r.summary.stop_reason, StopReason::quiet);
    }
  }
}

TEST(Conformance, ExecutedItemsCompleteOnceAtTheNodesSpeed) {
  for (const EngineEntry* e : engines_with(Capability::execute)) {
    SCOPED_TRACE(e->name);
    // Node 0 executes its three items one after the other (reference speed: 1 s of work each).
    Scripted p;
    p.needs_items = true;
    p.on_start = [](Context& ctx, Log&) {
      if (ctx.self() == 0) ctx.execute(ctx.items().front().id, 7);
      else ctx.finished();
    };
    p.on_timer = [](Context& ctx, std::uint32_t tag, Log& log) {
      log.fired.push_back(tag);
      log.fired_at.push_back(ctx.now());
      if (!ctx.items().empty()) ctx.execute(ctx.items().front().id, 7);
      else ctx.finished();
    };
    InitialState init{{0, 0}, {{{1, 4, 0}, {2, 4, 0}, {3, 4, 0}}, {}}};
    const RunResult r = run_on(*e, make_topology("line:2", 1), p, init);
    if (p.log->here.contains(0)) {
      EXPECT_EQ(p.log->fired, (std::vector<std::uint32_t>{7, 7, 7}));
      ASSERT_EQ(p.log->fired_at.size(), 3u);
      // One at a time: the three end after three items' time (on real ranks the calibrated
      // kernel runs within 20 % of it, not to the nanosecond).
      const double slack = e->time == TimeModel::wall_seconds ? 0.8 : 1.0;
      EXPECT_GE(p.log->fired_at[2], slack * 3 * 4 * reference_speed / conformance_platform.node_speed(0) * unit(*e) - 1e-9);
    }
    if (!r.reported) continue;
    ASSERT_TRUE(r.summary.work);
    EXPECT_EQ(r.summary.work->completed, 3u);
    EXPECT_EQ(r.summary.final_total, 0);  // completed items no longer count
    EXPECT_EQ(r.summary.initial_total, 12);
    EXPECT_EQ(r.summary.stop_reason, StopReason::finished);
  }
}

TEST(Conformance, AddedLoadIsBookedAndRecounted) {
  for (const EngineEntry* e : engines_with(Capability::add_load)) {
    SCOPED_TRACE(e->name);
    Scripted p;
    p.on_start = [](Context& ctx, Log&) {
      ctx.add_load(5);
      ctx.add_load(-2);
      ctx.send(0, Channel::data, 1, {}, 0, {.load = 1});
    };
    const RunResult r = run_on(*e, make_topology("ring:3", 1), p, {{10, 10, 10}, {}});
    if (!r.reported) continue;
    EXPECT_EQ(r.summary.initial_total, 39);  // what the nodes added at start counts from the start
    EXPECT_EQ(r.summary.final_total, 39);
    EXPECT_EQ(r.final_load, (std::vector<double>{14, 13, 12}));  // port 0 of ring:3: 0 -> 1, 1 -> 0, 2 -> 0
    EXPECT_EQ(r.summary.max_conservation_error, 0);
  }
}

TEST(Conformance, NotesDetectionAndTheEndOfEveryProgramReachTheRecord) {
  for (const EngineEntry* e : engines_with(Capability::notes | Capability::detection)) {
    SCOPED_TRACE(e->name);
    Scripted p;
    const double u = unit(*e);
    p.on_start = [u](Context& ctx, Log&) {
      ctx.note("phase", 1);
      ctx.note("phase", 2);  // a later note of the same name replaces it
      if (ctx.self() == 2) ctx.detected_termination();
      ctx.set_timer(5 * u, 0);
    };
    p.on_timer = [](Context& ctx, std::uint32_t, Log&) { ctx.finished(); };
    const RunResult r = run_on(*e, make_topology("ring:3", 1), p, {{1, 1, 1}, {}});
    if (!r.reported) continue;
    EXPECT_EQ(r.summary.notes.at("phase"), 2);
    ASSERT_TRUE(r.summary.detected_at);
    EXPECT_LT(*r.summary.detected_at, 5 * u);  // at the start
    if (e->time != TimeModel::wall_seconds) {
      EXPECT_EQ(*r.summary.detected_at, 0);
    }
    ASSERT_TRUE(r.summary.finished_at);
    EXPECT_GE(*r.summary.finished_at, 5 * u);
    EXPECT_EQ(r.summary.stop_reason, StopReason::finished);
  }
}

TEST(Conformance, ABalancedRunStopsByItselfWithTheSameVerdictEverywhere) {
  for (const EngineEntry* e : engines_with(Capability::messages)) {
    SCOPED_TRACE(e->name);
    // Node 0 gives each neighbour its share at start; the balance rule stops the run.
    Scripted p;
    p.on_start = [](Context& ctx, Log&) {
      if (ctx.self() == 0)
        for (Port q = 0; q < ctx.degree(); ++q) ctx.send(q, Channel::data, 1, {}, 0, {.load = 10});
      ctx.set_timer(1e3, 0);  // something left to happen: only the balance rule ends the run early
    };
    const RunResult r = run_on(*e, make_topology("star:4", 1), p, {{40, 0, 0, 0}, {}}, true);
    if (!r.reported) continue;
    EXPECT_EQ(r.summary.stop_reason, StopReason::balanced);
    EXPECT_TRUE(r.summary.balanced);
    EXPECT_EQ(r.final_load, (std::vector<double>{10, 10, 10, 10}));
  }
}

}  // namespace
}  // namespace nnlb
