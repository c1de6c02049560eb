// A toy engine: what an engine is, in one file and one registration. Its clock counts whole
// time units; its transport delivers every message one unit after it was sent, in the order sent;
// its timers fire in order of time; an item's work takes weight x reference_speed / speed units.
// Everything a record says comes from the engine core (holdings, ledger, balance rule, recorder,
// summary, node state, tally), and the conformance tests (conformance.cpp) run on it as on every engine.
#include <cmath>
#include <memory>
#include <queue>
#include <vector>

#include "nnlb/engine/core/balance.hpp"
#include "nnlb/engine/core/envelope.hpp"
#include "nnlb/engine/core/ledger.hpp"
#include "nnlb/engine/core/node_context.hpp"
#include "nnlb/engine/core/node_state.hpp"
#include "nnlb/engine/core/recorder.hpp"
#include "nnlb/engine/core/summary.hpp"
#include "nnlb/engine/core/tally.hpp"
#include "nnlb/engine/registry.hpp"
#include "nnlb/metrics/load_stats.hpp"

namespace nnlb {
namespace {

// Something due at a time: a letter to deliver, a timer, or an item's end.
struct Due {
  double at;
  std::uint64_t seq;
  enum class Kind { letter, timer, executed } kind;
  NodeId node;
  std::uint32_t tag;  // timer tag, or the letter's index
  bool operator>(const Due& o) const { return at != o.at ? at > o.at : seq > o.seq; }
};

struct ToyNode : NodeState {
  std::vector<NeighborInfo> neighbors;
  std::vector<Envelope> mailbox[channel_count];
};

class ToyRun {
 public:
  explicit ToyRun(const EngineRun& r)
      : r_(r), g_(r.topology.graph), rule_{r.band, load_grain(r.mode == LoadMode::integer, r.initial)},
        recorder_(speed_shares(r.platform, g_.num_nodes())), nodes_(g_.num_nodes()), ctx_(*this) {
    for (NodeId i = 0; i < g_.num_nodes(); ++i) {
      ledger_.open(nodes_[i], r.initial, i);
      rngs_.emplace_back(r.seed, i);
    }
    for (NodeId i = 0; i < g_.num_nodes(); ++i)
      for (Slot s = g_.first_slot(i); s < g_.end_slot(i); ++s) {
        const NodeId j = g_.target(s);
        nodes_[i].neighbors.push_back({j, g_.degree(j), r.platform.node_speed(j), r.platform.link_latency(s),
                                       r.platform.link_bandwidth(s), r.coloring ? static_cast<std::int32_t>(r.coloring->slot_color[s]) : -1,
                                       nodes_[j].held()});
      }
  }

  RunResult run() {
    RunResult out;
    for (NodeId i = 0; i < nodes_.size(); ++i) {
      nodes_[i].agent = r_.program.make_agent(i);
      call(i, [&](Agent& a) { a.start(ctx_); });
    }
    open_summary(out.summary, sample(out), ledger_.current_total(completions_.weight));
    StopReason reason = StopReason::quiet;
    while (true) {
      if (r_.stop_when_balanced && balanced()) {
        reason = StopReason::balanced;
        break;
      }
      if (tally_.finished_count() == nodes_.size()) {
        reason = StopReason::finished;
        break;
      }
      if (due_.empty()) break;  // quiet
      if (due_.top().at > r_.time_limit) {
        reason = StopReason::time;
        now_ = r_.time_limit;
        break;
      }
      const Due d = due_.top();
      due_.pop();
      now_ = d.at;
      if (d.kind == Due::Kind::letter) {
        Envelope& l = letters_[d.tag];
        const Channel c = l.channel;
        nodes_[l.to].mailbox[static_cast<std::size_t>(c)].push_back(std::move(l));
        if (r_.program.notifies(c)) call(d.node, [&](Agent& a) { a.arrived(ctx_, c); });
      } else if (d.kind == Due::Kind::executed) {
        completions_.complete(nodes_[d.node].execution, now_);
        call(d.node, [&](Agent& a) { a.timer(ctx_, d.tag); });
      } else {
        call(d.node, [&](Agent& a) { a.timer(ctx_, d.tag); });
      }
    }
    const LoadStats last = sample(out);
    std::vector<double> held;
    for (const ToyNode& n : nodes_) held.push_back(n.held());
    close_summary(out.summary, reason, balanced(), last, held, tally_.moved());
    tally_.close(out.summary, nodes_.size());
    if (!completions_.ids.empty()) {
      std::vector<double> busy;
      for (const ToyNode& n : nodes_) busy.push_back(n.execution.busy);
      out.summary.work = completions_.metrics(std::move(busy));
    }
    if (r_.record_final_load) out.final_load = held;
    return out;
  }

  // --- the Context of the bound node ---
  double now() const { return now_; }
  double speed(NodeId i) const { return r_.platform.node_speed(i); }
  std::uint32_t degree(NodeId i) const { return g_.degree(i); }
  std::span<const NeighborInfo> neighbors(NodeId i, std::size_t) const { return nodes_[i].neighbors; }
  Rng& rng(NodeId i) { return rngs_[i]; }
  bool integer_load() const { return r_.mode == LoadMode::integer; }
  double load(NodeId i) const { return nodes_[i].load; }
  std::span<const Item> items(NodeId i) const { return nodes_[i].items; }
  std::span<const Item> taken_items(std::size_t) const { return taken_items_; }

  void send(NodeId i, std::size_t, Port p, Channel channel, std::uint32_t tag, const std::array<double, 3>& value, double,
            const Cargo& cargo) {
    ToyNode& n = nodes_[i];
    Envelope l{Message{}, 0, channel, take_cargo(n, i, p, degree(i), cargo, r_.program.needs().overdraft)};
    l.to = n.neighbors[p].id;
    const Slot s = g_.first_slot(i) + p;
    l.msg = {static_cast<Port>(g_.reverse(s) - g_.first_slot(l.to)), i, tag, static_cast<std::uint32_t>(l.items.size()), cargo.load, value};
    tally_.sent(channel, now_, cargo.load, l.items);
    if ((cargo.load > 0 || !l.items.empty()) && FaultInjection::hits(r_.faults.drop_every, ++carrying_)) return;  // lost on purpose
    letters_.push_back(std::move(l));
    due_.push({now_ + 1, seq_++, Due::Kind::letter, letters_.back().to, static_cast<std::uint32_t>(letters_.size() - 1)});
  }

  std::span<const Message> take(NodeId i, std::size_t, Channel channel) {
    auto& box = nodes_[i].mailbox[static_cast<std::size_t>(channel)];
    taken_.clear();
    taken_items_.clear();
    for (Envelope& l : box) {
      credit(nodes_[i], l.msg.load, l.items, taken_items_);
      taken_.push_back(l.msg);
    }
    box.clear();
    return taken_;
  }

  void add_load(NodeId i, std::size_t, double delta) {
    own_load(nodes_[i], i, delta, integer_load());
    ledger_.add(delta);
  }

  void execute(NodeId i, ItemId item, std::uint32_t tag) {
    ToyNode& n = nodes_[i];
    const double units = std::ceil(work_seconds(n, item, speed(i)));
    n.execution.begin(n, item, tag, now_, units, i);
    due_.push({n.execution.ends, seq_++, Due::Kind::executed, i, tag});
  }

  void set_timer(NodeId i, double delay, std::uint32_t tag) {
    if (!(delay >= 0)) throw std::logic_error("negative timer delay");
    due_.push({now_ + delay, seq_++, Due::Kind::timer, i, tag});
  }
  void detected(NodeId) { tally_.detected(now_); }
  void finished(NodeId) { tally_.finished(now_); }
  void note(std::string_view name, double value) { tally_.note(name, value); }

 private:
  template <class F>
  void call(NodeId i, F&& handler) {
    ctx_.bind(i);
    handler(*nodes_[i].agent);
  }

  bool balanced() const {
    std::vector<double> held;
    for (const ToyNode& n : nodes_) held.push_back(n.held());
    return rule_.all_within(held, ledger_.current_total(completions_.weight), recorder_.shares());
  }

  // Conservation recounted from the nodes, the mailboxes and the letters on their way.
  LoadStats sample(RunResult& out) {
    Ledger::Count c;
    std::vector<double> held;
    for (const ToyNode& n : nodes_) {
      c.node(n, n.execution);
      held.push_back(n.held());
      for (const auto& box : n.mailbox)
        for (const Envelope& l : box) c.in_flight(l.msg.load, l.items);
    }
    c.completed(completions_);
    for (auto pending = due_; !pending.empty(); pending.pop())
      if (pending.top().kind == Due::Kind::letter) c.in_flight(letters_[pending.top().tag].msg.load, letters_[pending.top().tag].items);
    out.summary.final_total = c.total();
    out.summary.max_conservation_error =
        std::max(out.summary.max_conservation_error, ledger_.check(std::move(c), integer_load(), "toy time " + std::to_string(now_)));
    ++samples_;
    return recorder_.sample(out, {samples_, 0, now_}, held, tally_.moved(), r_.series_every > 0);
  }

  const EngineRun& r_;
  const Graph& g_;
  const BalanceRule rule_;
  Recorder recorder_;
  Ledger ledger_;
  Completions completions_;
  std::vector<ToyNode> nodes_;
  std::vector<Rng> rngs_;
  std::vector<Envelope> letters_;
  std::priority_queue<Due, std::vector<Due>, std::greater<>> due_;
  NodeContext<ToyRun> ctx_;
  std::vector<Message> taken_;
  std::vector<Item> taken_items_;
  Tally tally_;
  double now_ = 0;
  std::uint64_t seq_ = 0, samples_ = 0, carrying_ = 0;
};

// The one registration.
const bool registered = [] {
  register_engine({.name = "toy",
                   .summary = "tests only: messages take one time unit, in the order sent",
                   .time = TimeModel::simulated_seconds,
                   .items = true,
                   .provides = program_capabilities,
                   .run = [](const EngineRun& r) { return ToyRun(r).run(); }});
  return true;
}();

}  // namespace
}  // namespace nnlb
