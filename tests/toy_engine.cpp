// A toy engine: what an engine is, in one file and one registration. Its clock counts seconds;
// its transport delivers every message its link's latency after it was sent, in the order sent
// (no bandwidth); an item's work takes weight x reference_speed / speed seconds, rounded up.
// The nodes, the stop rules, the samples and the record are the driver's (engine/core/driver.hpp),
// and the conformance tests (conformance.cpp) run on it as on every engine.
#include <algorithm>
#include <cmath>
#include <vector>

#include "nnlb/engine/core/agenda.hpp"
#include "nnlb/engine/core/driver.hpp"
#include "nnlb/engine/core/envelope.hpp"
#include "nnlb/engine/core/neighbors.hpp"
#include "nnlb/engine/core/node_context.hpp"
#include "nnlb/engine/registry.hpp"

namespace nnlb {
namespace {

// Something due: a letter to deliver, a timer, or an item's end.
struct Due {
  enum class Kind { letter, timer, executed } kind;
  NodeId node;
  std::uint32_t tag;
  Envelope letter;  // a letter's
};

struct ToyNode : DrivenNode {
  std::vector<Envelope> mailbox[channel_count];
};

class ToyRun {
 public:
  explicit ToyRun(const EngineRun& r)
      : r_(r), g_(r.topology.graph),
        driver_(run_rules(r, 0), Clock::seconds, r.mode == LoadMode::integer, r.initial, node_speeds(r.platform, g_.num_nodes()), r.seed),
        facts_(g_, r.platform, usable_coloring(r.program, r.coloring, g_.num_slots()) ? r.coloring : nullptr, driver_.held()), ctx_(*this) {}

  RunResult run() {
    driver_.start_agents(r_.program, ctx_, now_);
    driver_.start(*this);
    while (true) {  // the driver's wake-ups go first at equal times
      const double next = std::min(driver_.next_wake(), due_.next_time());
      if (const auto stop = driver_.after(*this, next)) return driver_.close(*this, *stop);
      now_ = next;
      if (next == driver_.next_wake()) driver_.wake(*this);
      else fire(due_.pop());
    }
  }

  // --- what the driver sees: the clock, what is left, what is in flight ---
  double now() const { return now_; }
  bool quiet() const { return due_.empty(); }
  void count_in_flight(Ledger::Count& c) const {
    for (NodeId i = 0; i < g_.num_nodes(); ++i)
      for (const auto& box : driver_.node(i).mailbox) nnlb::count_in_flight(c, box);
    due_.for_each([&](const Due& d) { c.in_flight(d.letter.msg.load, d.letter.items); });
  }

  // --- the Context of the bound node: its links, its transport, its work ---
  Driver<ToyNode>& driver() { return driver_; }
  std::uint32_t degree(NodeId i) const { return g_.degree(i); }
  std::span<const NeighborInfo> neighbors(NodeId i, std::size_t) { return facts_.of(i, neighbors_); }
  double initial_load(NodeId i, Port p) const { return facts_.initial_load(i, p); }
  std::span<const Item> taken_items(std::size_t) const { return taken_items_; }

  void send(NodeId i, std::size_t, Port p, Channel channel, std::uint32_t tag, const std::array<double, 3>& value, double,
            const Cargo& cargo) {
    std::vector<Item> items = driver_.send(i, p, degree(i), channel, cargo, now_, r_.program.needs().overdraft);  // checks the port
    Envelope l = envelope(g_, i, p, channel, tag, value, cargo.load, std::move(items));
    const double at = now_ + r_.platform.link_latency(g_.first_slot(i) + p);
    driver_.through_faults(l.msg.load, !l.items.empty(), [&] { due_.add(at, {Due::Kind::letter, l.to, 0, l}); });
  }

  std::span<const Message> take(NodeId i, std::size_t, Channel channel) {
    return take_all(driver_.node(i), driver_.node(i).mailbox[static_cast<std::size_t>(channel)], taken_, taken_items_);
  }

  void execute(NodeId i, ItemId item, std::uint32_t tag) {
    driver_.execute(i, item, tag, now_, std::ceil(work_seconds(driver_.node(i), item, driver_.speed(i))));
    due_.add(driver_.node(i).in_hand().ends, {Due::Kind::executed, i, tag, {}});
  }
  void set_timer(NodeId i, double delay, std::uint32_t tag) { due_.add(now_ + delay, {Due::Kind::timer, i, tag, {}}); }

 private:
  // A letter lands in its mailbox (heard of on a notifying channel); a timer or an item's end runs a handler.
  void fire(Due d) {
    const Channel c = d.letter.channel;
    if (d.kind == Due::Kind::letter) driver_.node(d.node).mailbox[static_cast<std::size_t>(c)].push_back(std::move(d.letter));
    if (d.kind == Due::Kind::executed) driver_.complete(d.node, now_);
    if (d.kind != Due::Kind::letter) driver_.handle(ctx_, d.node, [&](Agent& a) { a.timer(ctx_, d.tag); }, now_);
    else if (r_.program.notifies(c)) driver_.handle(ctx_, d.node, [&](Agent& a) { a.arrived(ctx_, c); }, now_);
  }

  const EngineRun& r_;
  const Graph& g_;
  Driver<ToyNode> driver_;
  NeighborFacts facts_;
  NodeContext<ToyRun> ctx_;
  Agenda<Due> due_;
  std::vector<NeighborInfo> neighbors_;
  std::vector<Message> taken_;
  std::vector<Item> taken_items_;
  double now_ = 0;
};

// The one registration.
const bool toy_engine_registered = [] {
  register_engine({.name = "toy",
                   .summary = "tests only: messages take their link's latency, in the order sent",
                   .time = TimeModel::simulated_seconds,
                   .default_program = "async",
                   .items = true,
                   .provides = program_capabilities,
                   .run = [](const EngineRun& r) { return ToyRun(r).run(); }});
  return true;
}();

}  // namespace
}  // namespace nnlb
