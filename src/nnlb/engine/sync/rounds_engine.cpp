#include "nnlb/engine/sync/rounds_engine.hpp"

#include <algorithm>
#include <cmath>
#include <memory>
#include <mutex>
#include <string>

#include "nnlb/engine/core/balance.hpp"
#include "nnlb/engine/core/envelope.hpp"
#include "nnlb/engine/core/ledger.hpp"
#include "nnlb/engine/core/node_context.hpp"
#include "nnlb/engine/core/node_state.hpp"
#include "nnlb/engine/core/recorder.hpp"
#include "nnlb/engine/core/summary.hpp"
#include "nnlb/engine/core/tally.hpp"
#include "nnlb/metrics/load_stats.hpp"
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
struct RoundNode : NodeState {
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

class RoundsRun {
 public:
  RoundsRun(const Topology& topo, const Program& program, LoadMode mode, const InitialState& initial, const Platform& platform,
            const RoundsOptions& opt, const EdgeColoring* coloring)
      : g_(topo.graph), program_(program), platform_(platform), opt_(opt), integer_(mode == LoadMode::integer),
        overdraft_(program.needs().overdraft), rule_{opt.band, load_grain(integer_, initial)},
        recorder_(speed_shares(platform, g_.num_nodes())), nodes_(g_.num_nodes()), initial_(g_.num_nodes()) {
    if (usable_coloring(program, coloring, g_.num_slots())) colors_ = &coloring->slot_color;
    for (std::size_t c = 0; c < channel_count; ++c) notify_[c] = program.notifies(static_cast<Channel>(c));
    for (NodeId i = 0; i < g_.num_nodes(); ++i) {
      ledger_.open(nodes_[i], initial, i);
      initial_[i] = nodes_[i].held();
      rngs_.emplace_back(opt.seed, i);
    }
    const std::size_t blocks = block_count(g_.num_nodes());
    lanes_.resize(blocks);
    for (std::size_t b = 0; b < blocks; ++b) contexts_.push_back(std::make_unique<NodeContext<RoundsRun>>(*this, b));
  }

  RunResult run() {
    RunResult r;
    each_node([&](NodeId i, NodeContext<RoundsRun>& ctx) {
      nodes_[i].agent = program_.make_agent(i);
      ctx.bind(i);
      nodes_[i].agent->start(ctx);
    });
    book_added();
    LoadStats st = sample(r, true);
    open_summary(r.summary, st, current_total());
    StopReason reason = StopReason::steps;
    while (true) {
      if (const auto stop = stop_now(st)) {
        reason = *stop;
        break;
      }
      ++round_;
      deliver();
      each_node([&](NodeId i, NodeContext<RoundsRun>& ctx) { act(i, ctx); });
      book_added();
      st = sample(r, opt_.series_every > 0 && round_ % opt_.series_every == 0);
    }
    if (r.series.back().round != round_) sample(r, true);
    RunSummary& sum = r.summary;
    const std::vector<double> held = held_now();
    close_summary(sum, reason, rule_.all_within(held, current_total(), recorder_.shares()), st, held, tally_.moved());
    if (reached_balance(reason)) sum.steps_to_balance = round_;
    sum.rounds = sum.steps = round_;
    tally_.close(sum, nodes_.size());
    Completions completed;
    for (const Lane& lane : lanes_) completed.merge(lane.completed);
    if (!completed.ids.empty() || std::any_of(nodes_.begin(), nodes_.end(), [](const RoundNode& n) { return n.execution.item.has_value(); })) {
      std::vector<double> busy;
      for (const RoundNode& n : nodes_) busy.push_back(n.execution.busy);
      sum.work = completed.metrics(std::move(busy));
    }
    if (opt_.record_final_load) r.final_load = held;
    return r;
  }

  // The stop rules, checked between rounds (core/stop_reason.hpp).
  std::optional<StopReason> stop_now(const LoadStats& st) const {
    if (opt_.imbalance && st.imbalance <= *opt_.imbalance) return StopReason::imbalance;
    if (opt_.stop_when_balanced && rule_.all_within(held_now(), current_total(), recorder_.shares())) return StopReason::balanced;
    if (opt_.stop_on_detection && tally_.detected()) return StopReason::detected;
    if (tally_.finished_count() == nodes_.size()) return StopReason::finished;
    if (quiet()) return StopReason::quiet;
    if (round_ >= opt_.max_rounds) return StopReason::steps;
    return std::nullopt;
  }

  // --- the Context of a bound node ---
  double now() const { return static_cast<double>(round_); }
  double speed(NodeId i) const { return platform_.node_speed(i); }
  std::uint32_t degree(NodeId i) const { return g_.degree(i); }
  std::span<const NeighborInfo> neighbors(NodeId i, std::size_t lane) {
    std::vector<NeighborInfo>& out = lanes_[lane].neighbors;
    out.clear();
    for (Slot s = g_.first_slot(i); s < g_.end_slot(i); ++s) {
      const NodeId j = g_.target(s);
      out.push_back({j, g_.degree(j), platform_.node_speed(j), platform_.link_latency(s), platform_.link_bandwidth(s),
                     colors_ ? static_cast<std::int32_t>((*colors_)[s]) : -1, initial_[j]});
    }
    return out;
  }
  Rng& rng(NodeId i) { return rngs_[i]; }
  bool integer_load() const { return integer_; }
  double load(NodeId i) const { return nodes_[i].load; }
  std::span<const Item> items(NodeId i) const { return nodes_[i].items; }
  std::span<const Item> taken_items(std::size_t lane) const { return lanes_[lane].taken_items; }

  void send(NodeId i, std::size_t lane, Port p, Channel channel, std::uint32_t tag, const std::array<double, 3>& value,
            double /*bytes: rounds take no time*/, const Cargo& cargo) {
    Envelope post;
    post.items = take_cargo(nodes_[i], i, p, g_.degree(i), cargo, overdraft_);
    const Slot s = g_.first_slot(i) + p;
    post.to = g_.target(s);
    post.msg.port = static_cast<Port>(g_.reverse(s) - g_.first_slot(post.to));
    post.msg.from = i;
    post.channel = channel;
    post.msg.tag = tag;
    post.msg.load = cargo.load;
    post.msg.value = value;
    post.msg.item_count = static_cast<std::uint32_t>(post.items.size());
    lanes_[lane].outbox.push_back(std::move(post));
  }

  std::span<const Message> take(NodeId i, std::size_t lane, Channel channel) {
    RoundNode& n = nodes_[i];
    std::vector<Message>& taken = lanes_[lane].taken;
    std::vector<Item>& items = lanes_[lane].taken_items;
    taken.clear();
    items.clear();
    for (Envelope& p : n.inbox[static_cast<std::size_t>(channel)]) {
      credit(n, p.msg.load, p.items, items);
      taken.push_back(p.msg);
    }
    n.inbox[static_cast<std::size_t>(channel)].clear();
    return taken;
  }

  void set_timer(NodeId i, double delay, std::uint32_t tag) {
    if (!(delay >= 0)) throw std::logic_error("negative timer delay");
    const auto rounds = static_cast<std::uint64_t>(std::max(1.0, std::ceil(delay)));
    nodes_[i].timers.push_back({round_ + rounds, tag});
  }

  void add_load(NodeId i, std::size_t lane, double delta) {
    own_load(nodes_[i], i, delta, integer_);
    lanes_[lane].added += delta;
  }

  // An item takes its work at the node's speed, rounded up to whole rounds (at least one).
  void execute(NodeId i, ItemId item, std::uint32_t tag) {
    RoundNode& n = nodes_[i];
    const double seconds = work_seconds(n, item, platform_.node_speed(i));
    const double rounds = std::max(1.0, std::ceil(platform_.background.finish(i, now(), seconds) - now()));
    n.execution.begin(n, item, tag, now(), rounds, i);
    n.timers.push_back({round_ + static_cast<std::uint64_t>(rounds), tag, true});
  }

  // Nodes of one round report from several workers: the tally takes them one at a time.
  void note(std::string_view name, double value) {
    std::lock_guard lock(report_mutex_);
    tally_.note(name, value);
  }
  void detected(NodeId) {
    std::lock_guard lock(report_mutex_);
    tally_.detected(now());
  }
  void finished(NodeId) {
    std::lock_guard lock(report_mutex_);
    tally_.finished(now());
  }

 private:
  template <class F>
  void each_node(F&& f) {
    for_each_block(nodes_.size(), [&](std::size_t b, std::size_t e, std::size_t blk) {
      for (std::size_t i = b; i < e; ++i) f(static_cast<NodeId>(i), *contexts_[blk]);
    });
  }

  // Moves last round's messages into their receivers' inboxes, in sender order.
  void deliver() {
    for (Lane& lane : lanes_) {
      for (Envelope& p : lane.outbox) {
        const auto c = static_cast<std::size_t>(p.channel);
        tally_.sent(p.channel, now(), p.msg.load, p.items);
        if (opt_.faults.any() && (p.msg.load > 0 || !p.items.empty())) [[unlikely]] {
          inject_fault(p);
          continue;
        }
        ++nodes_[p.to].fresh[c];
        nodes_[p.to].inbox[c].push_back(std::move(p));
      }
      lane.outbox.clear();
    }
  }

  // FaultInjection: the k-th load-carrying message is lost, altered or delivered twice.
  [[gnu::noinline]] void inject_fault(Envelope& p) {
    const auto c = static_cast<std::size_t>(p.channel);
    const std::uint64_t k = ++carrying_sent_;
    if (FaultInjection::hits(opt_.faults.drop_every, k)) return;
    if (FaultInjection::hits(opt_.faults.corrupt_every, k)) p.msg.load *= 1 + 1e-6;
    const int copies = FaultInjection::hits(opt_.faults.duplicate_every, k) ? 2 : 1;
    for (int copy = 0; copy < copies; ++copy) {
      ++nodes_[p.to].fresh[c];
      nodes_[p.to].inbox[c].push_back(p);
    }
  }

  // A node's round: arrivals it asked to hear of, then its due timers.
  void act(NodeId i, NodeContext<RoundsRun>& ctx) {
    RoundNode& n = nodes_[i];
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
      if (t.executed) lanes_[lane_of(i)].completed.complete(n.execution, static_cast<double>(round_));
      n.agent->timer(ctx, t.tag);
    }
  }

  static std::size_t lane_of(NodeId i) { return i / reduction_block; }

  std::vector<double> held_now() const {
    std::vector<double> w(nodes_.size());
    for (NodeId i = 0; i < nodes_.size(); ++i) w[i] = nodes_[i].held();
    return w;
  }

  // The run's load now: divisible load and the items not yet completed, held or in flight.
  double current_total() const {
    double completed = 0;
    for (const Lane& lane : lanes_) completed += lane.completed.weight;
    return ledger_.current_total(completed);
  }

  // Books the load the nodes' work added, lane by lane in order (the same sum for any thread count).
  void book_added() {
    for (Lane& lane : lanes_) ledger_.add(lane.added), lane.added = 0;
  }

  bool quiet() const {
    for (const Lane& lane : lanes_)
      if (!lane.outbox.empty()) return false;
    for (const RoundNode& n : nodes_)
      if (!n.timers.empty()) return false;
    return true;
  }

  LoadStats sample(RunResult& r, bool keep) {
    Ledger::Count c;
    for (const Lane& lane : lanes_) c.completed(lane.completed);
    for (const RoundNode& n : nodes_) {
      c.node(n, n.execution);
      for (const auto& box : n.inbox)
        for (const Envelope& p : box) c.in_flight(p.msg.load, p.items);
    }
    for (const Lane& lane : lanes_)
      for (const Envelope& p : lane.outbox) c.in_flight(p.msg.load, p.items);
    r.summary.final_total = c.total();
    r.summary.max_conservation_error =
        std::max(r.summary.max_conservation_error, ledger_.check(std::move(c), integer_, "round " + std::to_string(round_)));
    return recorder_.sample(r, {round_, round_, 0.0}, held_now(), tally_.moved(), keep);
  }

  const Graph& g_;
  const Program& program_;
  const Platform& platform_;
  const RoundsOptions& opt_;
  const bool integer_;
  const bool overdraft_;
  const BalanceRule rule_;
  Recorder recorder_;
  bool notify_[channel_count] = {};
  const std::vector<std::uint16_t>* colors_ = nullptr;
  std::vector<RoundNode> nodes_;
  std::vector<double> initial_;
  std::vector<Rng> rngs_;
  std::vector<Lane> lanes_;  // one per block of nodes
  std::vector<std::unique_ptr<NodeContext<RoundsRun>>> contexts_;
  Ledger ledger_;
  std::mutex report_mutex_;
  Tally tally_;
  std::uint64_t round_ = 0;
  std::uint64_t carrying_sent_ = 0;
};

}  // namespace

RunResult run_rounds(const Topology& topo, const Program& program, LoadMode mode, const InitialState& initial,
                     const Platform& platform, const RoundsOptions& options, const EdgeColoring* coloring) {
  return RoundsRun(topo, program, mode, initial, platform, options, coloring).run();
}

}  // namespace nnlb
