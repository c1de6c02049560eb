#pragma once
// The discrete-event engine's run (des_engine.hpp): its clock and event queue, its transport
// (links with latency and bandwidth, a control lane, mailboxes) and the event loop, on the core's
// run driver (engine/core/driver.hpp). Nodes leaving and joining are in des_churn.cpp, a replayed
// load trace in des_replay.cpp.
#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include "nnlb/engine/core/balance.hpp"
#include "nnlb/engine/core/driver.hpp"
#include "nnlb/engine/core/neighbors.hpp"
#include "nnlb/engine/core/node_context.hpp"
#include "nnlb/engine/core/trace_replay.hpp"
#include "nnlb/engine/des/des_engine.hpp"
#include "nnlb/engine/des/event_queue.hpp"
#include "nnlb/engine/des/mail_store.hpp"
#include "nnlb/engine/des/ports.hpp"
#include "nnlb/model/platform.hpp"
#include "nnlb/util/block_pool.hpp"
#include "nnlb/util/error.hpp"
#include "nnlb/util/huge_pages.hpp"

namespace nnlb::des {

// Event kinds; timers encode their tag as first_timer + tag. The driver's wake-up is an event too.
enum EventKind : std::uint32_t { wake_event, arrival_event, change_event, churn_event, executed_event, trace_event, first_timer };

// A message as sent: what the receiver's Message needs, without what its mailbox implies (the
// channel) or the cargo store holds (the items). Messages of a notifying channel wait in the
// engine's pool as a Flight for their arrival event; those of a silent channel go straight into
// the receiver's mailbox, stamped with their arrival time.
struct Wire {
  double arrival = 0;
  double load = 0;
  std::array<double, 3> value{};
  // On a graph that does not change, the receiver's port of the link (the sender is its peer);
  // on one that changes, the sender, whose port is looked up on delivery.
  std::uint32_t link = 0;
  // The tag; or, top bit set, the index of the entry of the cargo store that holds the tag, the
  // items carried and what a mailbox's record has no room for (a message with items, a tag that
  // large, load on the control channel or fields on the data channel).
  std::uint32_t label = 0;
};
static_assert(sizeof(Wire) == 48);
inline constexpr std::uint32_t stored_label = std::uint32_t{1} << 31;
inline constexpr std::uint32_t no_label = ~std::uint32_t{0};  // never a label: the cargo store stops short of it

// A message in its receiver's mailbox, not yet taken. The messages a run holds are most of a
// large run's memory, and each channel's record keeps what its messages mostly carry: a control
// message (a balancer's report, on a silent channel: put at its sending, taken once it arrived)
// its arrival, fields and link, 36 bytes; a data message its load and link, 12 bytes (data is
// notified: put when it arrives; at `hypercube:16` 2.7 M of the 3.7 M messages held are data
// waiting for the computing process). Neither keeps a label: each channel's messages mostly carry
// one tag, and a record's label is its store's usual one, the first plain label put there. What a
// record has no room for, when a message carries it (another label, load on the control channel,
// fields on the data channel, items, or a data message put before it arrives, on a silent data
// channel: its arrival), is in its cargo entry; its `link` then names the entry (top bit set,
// as a Wire's label does), and the entry keeps the link.
struct [[gnu::packed, gnu::aligned(4)]] Report {
  double arrival = 0;
  std::array<double, 3> value{};
  std::uint32_t link = 0;
};
struct [[gnu::packed, gnu::aligned(4)]] Parcel {
  double load = 0;
  std::uint32_t link = 0;
};
static_assert(sizeof(Report) == 36 && sizeof(Parcel) == 12);

// An entry of the cargo store: the tag and the items of a message that carries some, and what
// its mailbox's record has no room for.
struct Carried {
  std::uint32_t tag = 0;
  std::uint32_t link = 0;  // its mailbox record's, whose own `link` names this entry
  double load = 0;
  std::array<double, 3> value{};
  double arrival = 0;  // a data message's, when it is put before it arrives
  std::vector<Item> items;
};

// A message of a notifying channel on its way: in the engine's pool until its arrival event, whose
// time is its arrival. Like a Parcel it keeps its load; its fields, if any, wait in its cargo
// entry (most such messages carry load: data for the computing process).
struct Flight {
  double load = 0;
  std::uint32_t link = 0, label = 0;  // as a Wire's
  NodeId to = 0;                      // the receiver
  Channel channel = Channel::control;
  bool live = false;  // still on its way
};
static_assert(sizeof(Flight) == 24);

// The core's node, with when it started.
struct DesNode : DrivenNode {
  // The event sequence number when this node started: a timer or an item's end set by an earlier
  // node of the same id (one that left) is older and never reaches this one.
  std::uint64_t born = 0;
};

// What the driver reads of the options.
inline RunRules rules_of(const DesOptions& o) {
  RunRules r;
  r.band = o.band;
  r.stop.when_balanced = o.stop_when_balanced;
  r.stop.graph_changes = o.churn != nullptr;
  r.stop.spread = o.spread;
  r.stop.stall = o.stall;
  r.stop.on_detection = o.stop_on_detection;
  r.stop.time_limit = o.time_limit;
  r.sample_period = o.sample_period;
  r.series_every = o.record_series ? 1 : 0;
  r.load_history = o.record_load_history;
  r.series_max_rows = o.series_max_rows;
  r.final_load = o.record_final_load;
  r.faults = o.faults;
  return r;
}

class DesRun {
  // The mailbox store of a channel, to `f` (ahead of its uses: its return type is deduced).
  template <class F>
  decltype(auto) in_store(Channel channel, F&& f) {
    return channel == Channel::control ? f(control_mail_) : f(data_mail_);
  }

 public:
  DesRun(const Topology& topo, const Program& program, LoadMode mode, const InitialState& initial, const Platform& platform,
         const DesOptions& opt, const EdgeColoring* coloring, const std::vector<GraphChange>& changes)
      : program_(program), platform_(platform), opt_(opt), overdraft_(program.needs().overdraft),
        dynamic_(!changes.empty() || opt.churn != nullptr), changes_(changes),
        driver_(rules_of(opt), Clock::seconds, mode == LoadMode::integer, initial, node_speeds(platform, topo.graph.num_nodes()), opt.seed),
        control_mail_(topo.graph.num_nodes(), topo.graph.max_degree() + extra_reports, large(topo.graph.num_nodes())),
        data_mail_(topo.graph.num_nodes(), parcels_a_chunk, large(topo.graph.num_nodes())), flights_(1, large(topo.graph.num_nodes()), true), ctx_(*this) {
    const Graph& g = topo.graph;
    for (std::size_t c = 0; c < channel_count; ++c) notify_[c] = program.notifies(static_cast<Channel>(c));
    const EdgeColoring* colors = usable_coloring(program, coloring, g.num_slots()) ? coloring : nullptr;
    std::vector<double> held = driver_.held();
    if (!dynamic_) {
      fixed_.emplace(g, platform, colors, std::move(held), opt.separate_control);
    } else {
      ports_.resize(g.num_nodes());
      for (NodeId i = 0; i < g.num_nodes(); ++i) {
        ports_[i].reserve(g.degree(i), opt.separate_control);
        for (Slot s = g.first_slot(i); s < g.end_slot(i); ++s) {
          const NodeId j = g.target(s);
          ports_[i].push_back(neighbor_info(g, s, platform, colors), held[j], g.peer_port(s), 0.0,
                              opt.separate_control);
        }
      }
    }
    for (std::size_t k = 0; k < changes_.size(); ++k) {
      if (k > 0 && changes_[k].time < changes_[k - 1].time) throw InputError({}, "changes", "graph changes must be in time order");
    }
  }

  RunResult run() {
    driver_.start_agents(program_, ctx_, now_);
    driver_.start(*this);
    // A large run's nodes, agents and ports, read at random from here on, on huge pages
    // (`hypercube:18`: docs/benchmarks.md): every mapping of two huge pages or more, not only the
    // largest, since where the allocator puts an array decides which mapping it lands in (with
    // 32 MiB, `hypercube:16` ran 1.03 times as long once one array less moved the nodes out of a
    // large mapping). A run of fewer nodes is spared the walk through the mappings (0.5 ms).
    if (large(driver_.size())) collapse_to_huge_pages(2 * huge_page_bytes);
    // Asking ahead pays once the state is far larger than the caches: at 2^14 nodes of a hypercube
    // it saves 3 % of the time, at 2^10-2^13 it costs 1-3 % (docs/benchmarks.md).
    look_ahead_ = driver_.size() >= 16384;
    queue_.push(driver_.next_wake(), wake_event, 0);
    if (!changes_.empty()) queue_.push(changes_[0].time, change_event, 0);
    if (opt_.churn) queue_.push(1.0, churn_event, 1);
    if (opt_.trace) {
      replayed_.resize(driver_.size());
      if (!opt_.trace->actions.empty()) queue_.push(opt_.trace->actions[0].time, trace_event, 0);
    }
    while (true) {
      if (const auto stop = driver_.after(*this, queue_.next_time())) return finish(*stop);
      const Event e = queue_.pop();
      now_ = e.time;
      if (look_ahead_) look_ahead();
      if (e.kind >= first_timer) {
        if (mine(e)) call(e.target, [&](Agent& a) { a.timer(ctx_, e.kind - first_timer); });
      } else if (e.kind == arrival_event) {
        arrive(e.target, e.seq);
      } else if (e.kind == executed_event) {
        if (mine(e)) executed(e.target);
      } else if (e.kind == trace_event) {
        replay(e.target);
        if (e.target + 1 < opt_.trace->actions.size()) queue_.push(opt_.trace->actions[e.target + 1].time, trace_event, e.target + 1);
      } else if (e.kind == churn_event) {
        for (const GraphChange& c : opt_.churn->step(e.target)) apply(c);
        if (opt_.churn->more()) queue_.push(e.target + 1.0, churn_event, e.target + 1);
      } else if (e.kind == wake_event) {
        driver_.wake(*this);
        queue_.push(driver_.next_wake(), wake_event, 0);
      } else {
        apply_change(e.target);
        next_change_ = e.target + 1;
        if (next_change_ < changes_.size()) queue_.push(changes_[next_change_].time, change_event, next_change_);
      }
    }
  }

  // --- what the driver sees ------------------------------------------------------------------

  Driver<DesNode>& driver() { return driver_; }
  double now() const { return now_; }
  // Nothing left to happen: the driver's wake-up is the only event, and no listed change is due.
  bool quiet() const { return queue_.size() == 1 && next_change_ == changes_.size(); }
  // Every message on a live wire or in a mailbox (delivered or not).
  void count_in_flight(Ledger::Count& c) const {
    for_each_held([&](double load, std::uint32_t label) { c.in_flight(load, items_of(label)); });
  }

  // --- the Context of the bound node ---------------------------------------------------------

  std::uint32_t degree(NodeId i) const { return dynamic_ ? ports_[i].size() : fixed_->degree(i); }
  std::span<const NeighborInfo> neighbors(NodeId i, std::size_t) const { return dynamic_ ? ports_[i].info : fixed_->neighbors(i); }
  double initial_load(NodeId i, Port p) const { return dynamic_ ? ports_[i].initial[p] : fixed_->initial_load(i, p); }

  void send(NodeId i, std::size_t, Port p, Channel channel, std::uint32_t tag, const std::array<double, 3>& value,
            double bytes, const Cargo& cargo) {
    const std::vector<Item> carried = driver_.send(i, p, degree(i), channel, cargo, now_, overdraft_);
    for (const Item& it : carried) bytes += it.bytes;
    ship(i, p, channel, tag, value, bytes, cargo.load, carried);
  }

  void send_each(NodeId i, std::size_t, Channel channel, std::uint32_t tag, std::span<const std::array<double, 3>> values,
                 double bytes) {
    if (values.size() != degree(i)) [[unlikely]]
      throw std::logic_error("send_each of node " + std::to_string(i) + " gives " + std::to_string(values.size()) +
                             " messages for " + std::to_string(degree(i)) + " neighbours");
    // ship() without cargo: no load to count, no fault to inject.
    driver_.tally().sent_plain(channel, values.size());
    const bool own_lane = opt_.separate_control && channel == Channel::control;
    if (dynamic_) {
      NodePorts& ports = ports_[i];
      for (Port p = 0; p < values.size(); ++p)
        post(ports.to(p), channel, {ports.deliver(p, now_, bytes, own_lane), 0.0, values[p], i, label_of(tag, {})});
      return;
    }
    const std::array<double, 3>* value = values.data();
    const std::uint32_t label = label_of(tag, {});
    if (!notify_[static_cast<std::size_t>(channel)]) {
      // Into the receivers' mailboxes, each most likely a cache miss at scale: their places are
      // asked for first (the boxes, then the places in their chunks), so that the misses overlap
      // instead of following one another.
      const std::span<const NodeId> to = fixed_->targets(i);
      in_store(channel, [&](auto& store) {
        for (const NodeId j : to) store.prefetch_box(j);
        for (const NodeId j : to) store.prefetch_place(j);
        fixed_->send_each(i, now_, bytes, own_lane, [&](NodeId to, Port back, double arrival) {
          hold();
          store.put(to, record_of(store, {arrival, 0.0, *value++, back, label}));
        });
      });
      return;
    }
    fixed_->send_each(i, now_, bytes, own_lane, [&](NodeId to, Port back, double arrival) {
      post(to, channel, {arrival, 0.0, *value++, back, label});
    });
  }

  std::span<const Message> take(NodeId i, std::size_t, Channel channel) {
    return in_store(channel, [&](auto& store) { return take_from(store, i); });
  }

  std::span<const Item> taken_items(std::size_t) const { return taken_items_; }

  void set_timer(NodeId i, double delay, std::uint32_t tag) {
    queue_.push(now_ + delay, first_timer + tag, i);
  }

  void execute(NodeId i, ItemId item, std::uint32_t tag) {
    DesNode& n = driver_.node(i);
    const double seconds = work_seconds(n, item, driver_.speed(i));
    driver_.execute(i, item, tag, now_, platform_.background.finish(i, now_, seconds) - now_);
    queue_.push(n.in_hand().ends, executed_event, i);
  }

 private:
  // At scale most of an event's time is cache misses on its node's state, so the engine asks
  // ahead for it, in steps, wherever the next events wait (a lane or the heap): three events
  // ahead along the lane (the balancing timers'), and two from anywhere, a timer's node, mailbox
  // and first messages, or an arrival's record; one ahead, what they point to (the agent and the
  // ports; the receiver's node and mailbox).
  void look_ahead() const {
    if (queue_.empty()) return;
    if (const Event* far = queue_.in_next_lane(2); far && far->kind >= first_timer) {
      prefetch(&driver_.node(far->target));
      control_mail_.prefetch_box(far->target);
    }
    if (const Event* later = queue_.after_next()) {
      if (later->kind == arrival_event) prefetch(&flights_[later->target]);
      else if (later->kind >= first_timer) {
        prefetch(&driver_.node(later->target));
        control_mail_.prefetch_box(later->target);
        control_mail_.prefetch_head(later->target);
      }
    }
    if (const Event& soon = queue_.next(); soon.kind == arrival_event) {
      const NodeId to = flights_[soon.target].to;  // asked for one event ago
      prefetch(&driver_.node(to));
      data_mail_.prefetch_box(to);
    } else if (soon.kind >= first_timer) {
      if (const Agent* agent = driver_.node(soon.target).agent.get()) prefetch(agent);
      if (fixed_) fixed_->prefetch(soon.target);
    }
  }

  // Whether a timer or an item's end is for the node now holding its target id.
  bool mine(const Event& e) const { return driver_.alive(e.target) && e.seq >= driver_.node(e.target).born; }

  // Node i's item in hand is done: complete it, then its program hears.
  void executed(NodeId i) {
    DesNode& n = driver_.node(i);
    if (!driver_.alive(i) || !n.in_hand().item || n.in_hand().ends != now_) return;  // it left meanwhile
    driver_.complete(i, now_);
    call(i, [&](Agent& a) { a.timer(ctx_, n.in_hand().tag); });
  }

  // Runs a handler of node i's agent (the driver then updates its idle and band bookkeeping).
  template <class F>
  void call(NodeId i, F&& handler) {
    driver_.handle(ctx_, i, handler, now_);
  }

  // Puts a message from node i on the wire of port p; its load and items have left the node
  // (and were counted).
  [[gnu::always_inline]] void ship(NodeId i, Port p, Channel channel, std::uint32_t tag, const std::array<double, 3>& value,
                                   double bytes, double load, std::span<const Item> items) {
    if (driver_.faulty() && (load > 0 || !items.empty())) [[unlikely]] {
      ship_faulty(i, p, channel, tag, value, bytes, load, items);
      return;
    }
    post(out_of(i, p), channel, wire(i, p, channel, tag, value, bytes, load, items));
  }

  // Node i's port p: its peer, the peer's port of the link, and a send of `bytes` on its wire now
  // (or its control lane's), which returns the arrival time.
  NodeId out_of(NodeId i, Port p) const { return dynamic_ ? ports_[i].to(p) : fixed_->to(fixed_->first_slot(i) + p); }
  Port back_of(NodeId i, Port p) const { return dynamic_ ? ports_[i].back[p] : fixed_->back(fixed_->first_slot(i) + p); }
  double deliver(NodeId i, Port p, double bytes, bool control_lane) {
    return dynamic_ ? ports_[i].deliver(p, now_, bytes, control_lane) : fixed_->deliver(fixed_->first_slot(i) + p, now_, bytes, control_lane);
  }

  // The message record of a send, on the wire of port p from now on.
  [[gnu::always_inline]] Wire wire(NodeId i, Port p, Channel channel, std::uint32_t tag, const std::array<double, 3>& value, double bytes,
            double load, std::span<const Item> items) {
    const double arrival = deliver(i, p, bytes, opt_.separate_control && channel == Channel::control);
    return {arrival, load, value, dynamic_ ? i : back_of(i, p), label_of(tag, items)};
  }

  // Into the receiver's mailbox (silent channel) or the pool, with an arrival event.
  [[gnu::always_inline]] void post(NodeId to, Channel channel, const Wire& w) {
    if (!notify_[static_cast<std::size_t>(channel)]) {
      deposit(to, channel, w);
      return;
    }
    hold();
    const std::uint32_t m = flights_.make();
    Flight& f = flights_[m];
    f = {w.load, w.link, w.label, to, channel, true};
    if (nonzero(w.value)) [[unlikely]] cargo(f.label).value = w.value;
    queue_.push(w.arrival, arrival_event, m);
  }

  // The driver's fault for a load-carrying message: lost, altered or sent twice (FaultInjection).
  [[gnu::noinline]] void ship_faulty(NodeId i, Port p, Channel channel, std::uint32_t tag, const std::array<double, 3>& value, double bytes,
                   double load, std::span<const Item> items) {
    const Fault f = driver_.fault(load, !items.empty());
    if (f.lost) return;
    Wire w = wire(i, p, channel, tag, value, bytes, load * f.factor, items);
    post(out_of(i, p), channel, w);
    if (f.copies == 2) {
      if (w.label & stored_label) w.label = label_of(tag, items);  // an entry of its own
      post(out_of(i, p), channel, w);
    }
  }

  // A message into node `to`'s mailbox (delivered, or stamped with its arrival on a silent channel).
  [[gnu::always_inline]] void deposit(NodeId to, Channel channel, const Wire& w) {
    hold();
    in_store(channel, [&](auto& store) { store.put(to, record_of(store, w)); });
  }
  // A message's record in a store's mailboxes; what the record has no room for goes to its cargo
  // entry.
  [[gnu::always_inline]] Report record_of(const MailStore<Report>&, const Wire& w) {
    if (w.label == usual_label_[0] && !(w.link & stored_label) && !nonzero(w.load)) [[likely]]
      return {w.arrival, w.value, w.link};
    return {w.arrival, w.value, link_to_cargo(0, w)};
  }
  [[gnu::always_inline]] Parcel record_of(const MailStore<Parcel>&, const Wire& w) {
    if (w.label == usual_label_[1] && !(w.link & stored_label) && !nonzero(w.value) && !(w.arrival > now_)) [[likely]]
      return {w.load, w.link};
    return {w.load, link_to_cargo(1, w)};
  }
  // The `link` of the record of w in store `s` (0: reports, 1: parcels) when it is not w's link:
  // its label, an entry of the cargo store that keeps the link and what the record has no room
  // for. The first plain label a store meets is its usual one.
  [[gnu::noinline]] std::uint32_t link_to_cargo(int s, const Wire& w) {
    if (usual_label_[s] == no_label && !(w.label & stored_label)) {
      usual_label_[s] = w.label;
      const bool fits = s == 0 ? !nonzero(w.load) : !nonzero(w.value) && !(w.arrival > now_);
      if (fits && !(w.link & stored_label)) return w.link;  // nothing for the cargo store
    }
    std::uint32_t label = w.label;
    Carried& c = cargo(label);
    c.link = w.link;
    if (s == 0 && nonzero(w.load)) c.load = w.load;
    if (s == 1 && nonzero(w.value)) c.value = w.value;
    if (s == 1 && w.arrival > now_) c.arrival = w.arrival;
    return label;
  }
  // Whether a message in a mailbox is still on its wire (put at its sending on a silent channel).
  bool on_the_wire(const Report& r) const { return r.arrival > now_; }
  bool on_the_wire(const Parcel& p) const { return (p.link & stored_label) && cargo_[p.link & ~stored_label].arrival > now_; }
  // A message's load, link and label, wherever its record keeps them.
  double load_of(const Report& r) const { return r.link & stored_label ? cargo_[r.link & ~stored_label].load : 0.0; }
  double load_of(const Parcel& p) const { return p.load; }
  template <class Record>
  std::uint32_t link_of(const Record& r) const { return r.link & stored_label ? cargo_[r.link & ~stored_label].link : r.link; }
  std::uint32_t label_in(const Report& r) const { return r.link & stored_label ? r.link : usual_label_[0]; }
  std::uint32_t label_in(const Parcel& p) const { return p.link & stored_label ? p.link : usual_label_[1]; }
  // Bit for bit (a -0.0 is kept as sent).
  static bool nonzero(double x) { return std::bit_cast<std::uint64_t>(x) != 0; }
  static bool nonzero(const std::array<double, 3>& v) { return nonzero(v[0]) || nonzero(v[1]) || nonzero(v[2]); }
  // The cargo entry of a label, made if it has none yet.
  Carried& cargo(std::uint32_t& label) {
    if (!(label & stored_label)) label = stored_label | store_cargo(label, {});
    return cargo_[label & ~stored_label];
  }

  // Node i's messages of one store that have arrived, out of its mailbox; their load and items
  // are the node's.
  template <class Record>
  std::span<const Message> take_from(MailStore<Record>& store, NodeId i) {
    taken_items_.clear();
    if (taken_.size() < store.size(i)) taken_.resize(store.size(i));
    DesNode& n = driver_.node(i);
    std::size_t got = 0;
    store.take_if(i, [&](const Record& r) {
      if (on_the_wire(r)) return false;
      const std::uint32_t link = link_of(r), label = label_in(r);
      const NodeId from = sender(i, link);
      const Port port = dynamic_ ? port_to(i, from) : link;
      std::uint32_t tag = label, count = 0;
      Message& m = taken_[got++];
      if constexpr (std::is_same_v<Record, Report>) m.value = r.value, m.load = 0;
      else m.value = {}, m.load = r.load;
      if (!(label & stored_label)) [[likely]] {
        n.load += m.load;
      } else {
        const std::uint32_t k = label & ~stored_label;
        const Carried& c = cargo_[k];
        if constexpr (std::is_same_v<Record, Report>) m.load = c.load;
        else m.value = c.value;
        tag = c.tag;
        count = static_cast<std::uint32_t>(c.items.size());
        if (count == 0) n.load += m.load;
        else credit(n, m.load, c.items, taken_items_);
        free_cargo(k);
      }
      m.port = port, m.from = from, m.tag = tag, m.item_count = count;
      return true;
    });
    held_ -= got;
    return {taken_.data(), got};
  }
  // One more message held (on a wire or in a mailbox): the model's own memory (docs/benchmarks.md).
  void hold() { held_peak_ = std::max(held_peak_, ++held_); }

  // A message's label (Wire::label): its tag, or an entry of the cargo store.
  [[gnu::always_inline]] std::uint32_t label_of(std::uint32_t tag, std::span<const Item> items) {
    if (items.empty() && tag < stored_label) [[likely]]
      return tag;
    return stored_label | store_cargo(tag, items);
  }

  std::uint32_t store_cargo(std::uint32_t tag, std::span<const Item> items) {
    std::uint32_t k;
    if (free_cargo_.empty()) {
      k = static_cast<std::uint32_t>(cargo_.size());
      if (k == no_label - stored_label) throw std::length_error("des: 2^31 - 1 messages with a cargo entry at once");
      cargo_.emplace_back();
    } else {
      k = free_cargo_.back();
      free_cargo_.pop_back();
    }
    Carried& c = cargo_[k];
    c.tag = tag, c.link = 0, c.load = 0, c.value = {}, c.arrival = 0;
    c.items.assign(items.begin(), items.end());
    return k;
  }

  void free_cargo(std::uint32_t k) {
    cargo_[k].items.clear();
    free_cargo_.push_back(k);
  }

  // The items a message of this label carries (none for most).
  std::span<const Item> items_of(std::uint32_t label) const {
    return label & stored_label ? std::span<const Item>(cargo_[label & ~stored_label].items) : std::span<const Item>{};
  }

  // The sender of a message node `to` holds, by its link.
  NodeId sender(NodeId to, std::uint32_t link) const { return dynamic_ ? link : fixed_->to(fixed_->first_slot(to) + link); }

  // Visits every message on a live wire or in a mailbox (delivered or not), f(load, label): the
  // pool, then node by node its mailboxes, channel by channel.
  template <class F>
  void for_each_held(F&& f) const {
    flights_.for_each_made([&](std::uint32_t m) {
      if (flights_[m].live) f(flights_[m].load, flights_[m].label);
    });
    for (NodeId i = 0; i < control_mail_.boxes(); ++i) {
      control_mail_.for_each(i, [&](const Report& r) { f(load_of(r), label_in(r)); });
      data_mail_.for_each(i, [&](const Parcel& p) { f(p.load, label_in(p)); });
    }
  }

  // Node i's messages of a channel, out of its mailbox and on their way again (a node leaving).
  std::vector<Wire> release(NodeId i, Channel channel);

  // Node `to`'s port of the link from `from` now, or none (links change when nodes leave/join;
  // a graph has no two links between the same nodes).
  Port port_to(NodeId to, NodeId from) const {
    const auto& info = ports_[to].info;
    for (Port p = 0; p < info.size(); ++p)
      if (info[p].id == from) return p;
    return no_port;
  }

  // A message lands in its receiver's mailbox; a receiver that left (the node now holding its id
  // started after the message was sent, `sent`) sends it back.
  void arrive(std::uint32_t m, std::uint64_t sent) {
    Flight& f = flights_[m];
    Wire w{now_, f.load, {}, f.link, f.label};
    if (w.label & stored_label) {  // its fields, back from its cargo entry
      Carried& c = cargo_[w.label & ~stored_label];
      w.value = c.value, c.value = {};
    }
    const NodeId to = f.to;
    const Channel channel = f.channel;
    f.live = false;
    flights_.give_back(m);
    --held_;
    if (!driver_.alive(to) || sent < driver_.node(to).born) {
      bounce(to, channel, w);
      return;
    }
    deposit(to, channel, w);
    call(to, [&](Agent& a) { a.arrived(ctx_, channel); });
  }

  // A message for node `gone`, which left, returns to its sender (or, if that one left too, goes
  // to the first live node), so no load or item is lost. It carries only what it carried.
  void bounce(NodeId gone, Channel channel, Wire w);

  NodeId first_alive() const;

  void apply_change(std::size_t k) { apply(changes_[k]); }

  // --- a load trace, replayed ------------------------------------------------------------------

  void replay(std::size_t k);

  // New weights for the named items wherever they are: held, in hand, on a wire or in a mailbox.
  void reweigh_everywhere(std::span<const Item> changes);

  // The notes of a replay: the first step at which the loads were balanced, recorded and replayed.
  void note_replay();

  void apply(const GraphChange& c);

  void leave(NodeId i);

  // Spreads what a leaving node still holds over its neighbours as data messages, by the rule of
  // core/hand_over.hpp; with no neighbour left, all of it reaches a random live node at once.
  void hand_over(NodeId i);

  // Removes the link on node i's port p at both ends; the neighbour hears of it.
  void unlink(NodeId i, Port p);

  // Removes node i's port p; the peers of its later ports learn their new numbers, and every
  // neighbour its new degree.
  void erase_port(NodeId i, Port p);

  void join(NodeId i, const std::vector<NodeId>& peers);

  // The record, with the notes of what only this engine knows: churn, a replayed trace.
  RunResult finish(StopReason reason) {
    if (left_ + entered_ > 0) {  // named as on p2p
      driver_.tally().note("hosts_left", static_cast<double>(left_));
      driver_.tally().note("hosts_entered", static_cast<double>(entered_));
    }
    if (opt_.trace) note_replay();
    RunResult r = driver_.close(*this, reason);
    r.engine_info["messages_held_peak"] = std::to_string(held_peak_);
    return r;
  }

  static constexpr std::uint32_t handover_tag = 0xffffffffu;
  // A run whose state, read at random, is far larger than the caches: its message stores ask for
  // huge pages from their first block, and its other arrays are collapsed into them once set up.
  static bool large(std::size_t nodes) { return nodes >= 8192; }

  const Program& program_;
  const Platform& platform_;
  const DesOptions& opt_;
  const bool overdraft_;
  const bool dynamic_;  // nodes leave or join: ports of messages are checked on delivery
  const std::vector<GraphChange>& changes_;
  Driver<DesNode> driver_;
  std::optional<GraphPorts> fixed_;  // the ports on a graph that does not change
  std::vector<NodePorts> ports_;     // or each node's own, when nodes leave or join
  bool notify_[channel_count] = {};
  // Every node's mailbox of each channel: box i is node i's. Each one's last chunk is part-filled,
  // and the store's chunks at the memory's peak are most of a large run's memory. A balancer's
  // control mailbox then holds about a report from each neighbour (at `hypercube:16` and `:18`,
  // 99.9 % of them at most d + 3: some of the next period's come before the last are taken), so
  // its chunk holds d + 3: one chunk a node (chunks of d reports took 1.5 a node at `:16`). A data
  // mailbox holds from none to hundreds of parcels (27 at the median at `:16` and `:18`), in chunks
  // of 16 (192 bytes). With chunks of d reports and 512-byte ones for parcels, `:16` took 12 % more
  // memory and `:18` 7 %, in the same time.
  static constexpr std::size_t extra_reports = 3, parcels_a_chunk = 16;
  MailStore<Report> control_mail_;
  MailStore<Parcel> data_mail_;
  Rng handover_rng_{opt_.seed, std::uint64_t{1} << 40};  // a node with no neighbour left hands over to a random one
  // Messages of notifying channels on their way, compacted: the burst at t = 0 (every node's first
  // transfers) is many times what is on its way later.
  BlockPool<Flight> flights_;
  std::vector<Carried> cargo_;  // the items of messages that carry some, and what records lack
  std::vector<std::uint32_t> free_cargo_;
  std::vector<Message> taken_;  // scratch of take(): its first entries are the messages taken
  std::vector<Item> taken_items_;
  EventQueue queue_;
  NodeContext<DesRun> ctx_;
  double now_ = 0;
  bool look_ahead_ = false;  // a large run: ask ahead for what the next events touch
  std::uint32_t next_change_ = 0;
  std::uint64_t left_ = 0, entered_ = 0;  // nodes that left and joined
  std::uint64_t held_ = 0, held_peak_ = 0;  // messages on a wire or in a mailbox, now and at most
  std::uint32_t usual_label_[2] = {no_label, no_label};  // of the reports' and the parcels' store: none until the first put
  std::vector<std::vector<StepSnapshot>> replayed_;  // a trace's steps as the replay took them
};

}  // namespace nnlb::des
