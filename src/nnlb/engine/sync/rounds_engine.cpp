#include "nnlb/engine/sync/rounds_engine.hpp"

#include <algorithm>
#include <cmath>
#include <memory>
#include <mutex>
#include <string>

#include "nnlb/engine/core/driver.hpp"
#include "nnlb/engine/core/envelope.hpp"
#include "nnlb/engine/core/neighbors.hpp"
#include "nnlb/engine/core/node_context.hpp"
#include "nnlb/util/error.hpp"
#include "nnlb/util/parallel.hpp"

namespace nnlb {

namespace {

struct Timer {
  std::uint64_t round;
  std::uint32_t tag;
  bool executed = false;  // the end of the item in hand (Context::execute)
};

// The core's node, with its inboxes and timers.
struct RoundNode : DrivenNode {
  std::vector<Envelope> inbox[channel_count];  // arrived, not yet taken
  std::vector<Timer> timers;                 // in the order they were set
  std::uint32_t fresh[channel_count] = {};   // arrived this round: Agent::arrived still to call
};

// Per worker: what its nodes sent this round, and scratch for their Context calls.
struct Lane {
  std::vector<Envelope> outbox;
  double added = 0;  // Context::add_load by the lane's nodes in this round
  Completions completed;  // items the lane's nodes completed
  std::vector<Message> taken;
  std::vector<Item> taken_items;
  std::vector<NeighborInfo> neighbors;
};

// What the driver reads of the options.
RunRules rules_of(const RoundsOptions& o) {
  RunRules r;
  r.band = o.band;
  r.stop.when_balanced = o.stop_when_balanced;
  r.stop.imbalance = o.imbalance;
  r.stop.on_detection = o.stop_on_detection;
  r.stop.max_rounds = o.max_rounds;
  r.series_every = o.series_every;
  r.series_max_rows = o.series_max_rows;
  r.final_load = o.record_final_load;
  r.faults = o.faults;
  return r;
}

class RoundsRun {
 public:
  RoundsRun(const Topology& topo, const Program& program, LoadMode mode, const InitialState& initial, const Platform& platform,
            const RoundsOptions& opt, const EdgeColoring* coloring)
      : g_(topo.graph), program_(program), platform_(platform), overdraft_(program.needs().overdraft),
        driver_(rules_of(opt), Clock::rounds, mode == LoadMode::integer, initial, node_speeds(platform, g_.num_nodes()), opt.seed),
        facts_(g_, platform, usable_coloring(program, coloring, g_.num_slots()) ? coloring : nullptr, driver_.held()) {
    for (std::size_t c = 0; c < channel_count; ++c) notify_[c] = program.notifies(static_cast<Channel>(c));
    const std::size_t blocks = block_count(g_.num_nodes());
    lanes_.resize(blocks);
    for (std::size_t b = 0; b < blocks; ++b) contexts_.push_back(std::make_unique<NodeContext<RoundsRun>>(*this, b));
  }

  RunResult run() {
    each_node([&](NodeId i, NodeContext<RoundsRun>& ctx) {
      driver_.node(i).agent = program_.make_agent(i);
      ctx.bind(i);
      driver_.node(i).agent->start(ctx);
    });
    book_round();
    driver_.start(*this);
    while (true) {
      if (const auto stop = driver_.after(*this)) return driver_.close(*this, *stop);
      ++round_;
      deliver();
      each_node([&](NodeId i, NodeContext<RoundsRun>& ctx) { act(i, ctx); });
      book_round();
      driver_.round(*this, round_);
    }
  }

  // --- what the driver sees ---
  Driver<RoundNode>& driver() { return driver_; }
  double now() const { return static_cast<double>(round_); }
  // No message sent and not yet delivered, no timer pending.
  bool quiet() const {
    for (const Lane& lane : lanes_)
      if (!lane.outbox.empty()) return false;
    for (NodeId i = 0; i < g_.num_nodes(); ++i)
      if (!driver_.node(i).timers.empty()) return false;
    return true;
  }
  // Messages in the inboxes, not yet taken, and sent this round.
  void count_in_flight(Ledger::Count& c) const {
    for (NodeId i = 0; i < g_.num_nodes(); ++i)
      for (const auto& box : driver_.node(i).inbox) nnlb::count_in_flight(c, box);
    for (const Lane& lane : lanes_) nnlb::count_in_flight(c, lane.outbox);
  }

  // --- the Context of a bound node ---
  std::uint32_t degree(NodeId i) const { return g_.degree(i); }
  std::span<const NeighborInfo> neighbors(NodeId i, std::size_t lane) { return facts_.of(i, lanes_[lane].neighbors); }
  double initial_load(NodeId i, Port p) const { return facts_.initial_load(i, p); }
  std::span<const Item> taken_items(std::size_t lane) const { return lanes_[lane].taken_items; }

  void send(NodeId i, std::size_t lane, Port p, Channel channel, std::uint32_t tag, const std::array<double, 3>& value,
            double /*bytes: rounds take no time*/, const Cargo& cargo) {
    std::vector<Item> items = take_cargo(driver_.node(i), i, p, g_.degree(i), cargo, overdraft_);
    lanes_[lane].outbox.push_back(envelope(g_, i, p, channel, tag, value, cargo.load, std::move(items)));
  }

  std::span<const Message> take(NodeId i, std::size_t lane, Channel channel) {
    RoundNode& n = driver_.node(i);
    return take_all(n, n.inbox[static_cast<std::size_t>(channel)], lanes_[lane].taken, lanes_[lane].taken_items);
  }

  void set_timer(NodeId i, double delay, std::uint32_t tag) {
    const auto rounds = static_cast<std::uint64_t>(std::max(1.0, std::ceil(delay)));
    driver_.node(i).timers.push_back({round_ + rounds, tag});
  }

  // Nodes act side by side: each lane books its nodes' own load, added in lane order after the round.
  void add_load(NodeId i, std::size_t lane, double delta) {
    own_load(driver_.node(i), i, delta, driver_.integer());
    lanes_[lane].added += delta;
  }

  // An item takes its work at the node's speed, rounded up to whole rounds (at least one).
  void execute(NodeId i, ItemId item, std::uint32_t tag) {
    RoundNode& n = driver_.node(i);
    const double seconds = work_seconds(n, item, driver_.speed(i));
    const double rounds = std::max(1.0, std::ceil(platform_.background.finish(i, now(), seconds) - now()));
    driver_.execute(i, item, tag, now(), rounds);
    n.timers.push_back({round_ + static_cast<std::uint64_t>(rounds), tag, true});
  }

  // Nodes of one round report from several workers: the tally takes them one at a time.
  void note(std::string_view name, double value) {
    std::lock_guard lock(report_mutex_);
    driver_.tally().note(name, value);
  }
  void detected(NodeId) {
    std::lock_guard lock(report_mutex_);
    driver_.tally().detected(now());
  }
  void finished(NodeId) {
    std::lock_guard lock(report_mutex_);
    driver_.tally().finished(now());
  }

 private:
  template <class F>
  void each_node(F&& f) {
    for_each_block(driver_.size(), [&](std::size_t b, std::size_t e, std::size_t blk) {
      for (std::size_t i = b; i < e; ++i) f(static_cast<NodeId>(i), *contexts_[blk]);
    });
  }

  // Moves last round's messages into their receivers' inboxes, in sender order.
  void deliver() {
    for (Lane& lane : lanes_) {
      for (Envelope& p : lane.outbox) {
        const auto c = static_cast<std::size_t>(p.channel);
        driver_.tally().sent(p.channel, now(), p.msg.load, p.items);
        if (driver_.faulty() && (p.msg.load > 0 || !p.items.empty())) [[unlikely]] {
          inject_fault(p);
          continue;
        }
        ++driver_.node(p.to).fresh[c];
        driver_.node(p.to).inbox[c].push_back(std::move(p));
      }
      lane.outbox.clear();
    }
  }

  // The driver's fault for a load-carrying message: lost, altered or delivered twice.
  [[gnu::noinline]] void inject_fault(Envelope& p) {
    const auto c = static_cast<std::size_t>(p.channel);
    driver_.through_faults(p.msg.load, !p.items.empty(), [&] {
      ++driver_.node(p.to).fresh[c];
      driver_.node(p.to).inbox[c].push_back(p);
    });
  }

  // A node's round: arrivals it asked to hear of, then its due timers.
  void act(NodeId i, NodeContext<RoundsRun>& ctx) {
    RoundNode& n = driver_.node(i);
    ctx.bind(i);
    for (std::size_t c = 0; c < channel_count; ++c) {
      const std::uint32_t fresh = n.fresh[c];
      n.fresh[c] = 0;
      if (notify_[c])
        for (std::uint32_t k = 0; k < fresh; ++k) n.agent->arrived(ctx, static_cast<Channel>(c));
    }
    if (n.timers.empty()) return;
    std::vector<Timer> due;
    std::erase_if(n.timers, [&](const Timer& t) { return t.round <= round_ && (due.push_back(t), true); });
    for (const Timer& t : due) {
      if (t.executed) lanes_[lane_of(i)].completed.complete(n.hand(), static_cast<double>(round_));
      n.agent->timer(ctx, t.tag);
    }
  }

  static std::size_t lane_of(NodeId i) { return i / reduction_block; }

  // After a round: the load the nodes' work added and the items they completed, lane by lane in
  // order (the same sums for any thread count).
  void book_round() {
    for (Lane& lane : lanes_) {
      driver_.ledger().add(lane.added), lane.added = 0;
      driver_.completions().merge(lane.completed), lane.completed = {};
    }
  }

  const Graph& g_;
  const Program& program_;
  const Platform& platform_;
  const bool overdraft_;
  Driver<RoundNode> driver_;
  bool notify_[channel_count] = {};
  NeighborFacts facts_;
  std::vector<Lane> lanes_;  // one per block of nodes
  std::vector<std::unique_ptr<NodeContext<RoundsRun>>> contexts_;
  std::mutex report_mutex_;
  std::uint64_t round_ = 0;
};

}  // namespace

RunResult run_rounds(const Topology& topo, const Program& program, LoadMode mode, const InitialState& initial,
                     const Platform& platform, const RoundsOptions& options, const EdgeColoring* coloring) {
  return RoundsRun(topo, program, mode, initial, platform, options, coloring).run();
}

}  // namespace nnlb
