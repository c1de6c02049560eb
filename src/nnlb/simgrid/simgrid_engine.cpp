#include "nnlb/simgrid/simgrid_engine.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <deque>
#include <exception>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include <simgrid/Exception.hpp>
#include <simgrid/s4u.hpp>
#include <simgrid/version.h>

#include "nnlb/engine/core/agenda.hpp"
#include "nnlb/engine/core/driver.hpp"
#include "nnlb/engine/core/node_context.hpp"
#include "nnlb/engine/codec.hpp"
#include "nnlb/simgrid/configured_engine.hpp"
#include "nnlb/simgrid/hosts.hpp"
#include "nnlb/simgrid/platform_file.hpp"
#include "nnlb/version.hpp"
#include "nnlb/engine/own_process.hpp"

namespace nnlb {

namespace {

namespace sg4 = simgrid::s4u;

constexpr double never = std::numeric_limits<double>::infinity();

// A message sent and not yet taken: on its way, or in its receiver's mailbox.
struct Wire {
  Message msg;  // msg.port: the receiver's port
  std::vector<Item> items;
  Channel channel = Channel::control;
  Port out = 0;      // the sender's port
  double units = 0;  // its size for SimGrid (units_per_byte)
};

// The sending end of a link direction.
struct OutPort {
  std::array<sg4::Mailbox*, channel_count> box{};
  Port back = 0;                // the receiver's port of the link
  double units_per_second = 1;  // the route's narrowest link
  double latency = 0;           // the route's
  double free_at = 0;           // serial: when it has transmitted its last message
  std::deque<Wire*> queued;     // serial: messages waiting for it
};

// The receiving end: a get posted on each lane's mailbox, and where it puts what it got.
struct InPort {
  std::array<sg4::CommPtr, channel_count> get;
  std::array<Wire*, channel_count> got{};
};

struct SgNode : DrivenNode {
  sg4::Host* host = nullptr;
  std::vector<NeighborInfo> info;
  std::vector<double> initial;  // the neighbours' loads at the start, by port
  std::vector<OutPort> out;
  std::vector<InPort> in;
  std::array<std::vector<Wire*>, channel_count> mailbox;  // arrived, not taken, oldest first
  // What the node's one wait is over, kept from one wait to the next (building it anew for each
  // costs a reference count per activity): the gets (in port p, lane l at p * lanes + l), then
  // the execution if any.
  std::vector<sg4::ActivityPtr> waiting;
  // Puts under way. SimGrid 3.32 keeps a comm its sender never waits for in the sender's books
  // (a list searched at every completion of its activities), and removes a detached one from a
  // list of all of them: the sender waits for each once it is over (forget_sent), but not in its
  // one wait, which would wake it at every put's end and make every wait longer. Only puts past
  // their route's latency can be over: asking every put under way at every wake cost time in
  // proportion to the latency over the sending period (issue 39, reproducer 5). A put is due at
  // the earliest time SimGrid can have completed it: when its route's latency has passed (CM02
  // with latency factor 1: the transfer starts only then), less a microsecond, a thousand times
  // SimGrid's timing precision.
  Agenda<sg4::CommPtr> sent;         // within their latency
  std::vector<sg4::CommPtr> ending;  // past it
  // What the running handler asked of SimGrid, done once it has returned: sends, an item's
  // execution, the gets that follow an arrival (port, lane).
  std::vector<Wire*> to_send;
  bool to_execute = false;
  std::vector<std::pair<Port, std::size_t>> to_receive;
  std::size_t queued = 0;  // serial: messages waiting in its out ports
  sg4::ExecPtr exec;
  Agenda<std::uint32_t> timers;  // their tags
};

// The speed of each node's host.
std::vector<double> host_speeds(const Hosts& hosts, std::size_t nodes) {
  std::vector<double> c;
  for (std::size_t i = 0; i < nodes; ++i) c.push_back(hosts.of_node[i]->get_speed());
  return c;
}

class SimgridRun {
 public:
  SimgridRun(const EngineRun& r, const Hosts& hosts)
      : r_(r), g_(r.topology.graph), overdraft_(r.program.needs().overdraft), serial_(r.simgrid.network == "serial"),
        lanes_(serial_ ? 1 : channel_count),
        driver_(run_rules(r, 1e-2), Clock::seconds, r.mode == LoadMode::integer, r.initial, host_speeds(hosts, g_.num_nodes()), r.seed),
        ctx_(*this) {
    for (std::size_t c = 0; c < channel_count; ++c) notify_[c] = r.program.notifies(static_cast<Channel>(c));
    const bool colored = usable_coloring(r.program, r.coloring, g_.num_slots());
    boxes_.resize(g_.num_slots());
    for (Slot s = 0; s < g_.num_slots(); ++s)
      for (std::size_t l = 0; l < lanes_; ++l) boxes_[s][l] = sg4::Mailbox::by_name(std::to_string(s) + (l == 0 ? "c" : "d"));
    for (NodeId i = 0; i < g_.num_nodes(); ++i) {
      SgNode& n = driver_.node(i);
      n.host = hosts.of_node[i];
      for (Slot s = g_.first_slot(i); s < g_.end_slot(i); ++s) {
        const NodeId j = g_.target(s);
        n.info.push_back({j, g_.degree(j), driver_.speed(j), hosts.latency[s], hosts.bandwidth[s],
                          colored ? static_cast<std::int32_t>(r.coloring->slot_color[s]) : -1});
        n.initial.push_back(driver_.node(j).held());
        OutPort& o = n.out.emplace_back();
        o.box = boxes_[s];
        o.back = g_.peer_port(s);
        o.units_per_second = hosts.bandwidth[s] * units_per_byte;
        o.latency = hosts.latency[s];
      }
      n.in.resize(n.out.size());
    }
  }

  RunResult run() {
    std::vector<sg4::ActorPtr> actors;
    for (NodeId i = 0; i < g_.num_nodes(); ++i)
      actors.push_back(sg4::Actor::create("node-" + std::to_string(i), driver_.node(i).host, [this, i] { guarded([&] { node(i); }); }));
    sg4::Actor::create("monitor", driver_.node(0).host, [this] { guarded([&] { monitor(); }); });
    for (Slot s = 0; s < g_.num_slots(); ++s)
      for (std::size_t l = 0; l < lanes_; ++l) boxes_[s][l]->set_receiver(actors[g_.target(s)]);
    sg4::Engine::get_instance()->run();
    release();
    if (error_) std::rethrow_exception(error_);
    if (!reason_) throw std::logic_error("engine simgrid: the simulation ended without a stop");
    RunResult r = driver_.close(*this, *reason_);
    r.engine_info = {{"simgrid_version", simgrid_version()}, {"simgrid.network", r_.simgrid.network},
                     {"platform", r_.platform.hosts_file.empty() ? "logical" : r_.platform.hosts_file},
                     {"wakes", std::to_string(wakes_)}, {"comms", std::to_string(comms_)}, {"comm_checks", std::to_string(comm_checks_)}};
    for (const std::string& setting : network_settings()) {
      const auto colon = setting.find(':');
      r.engine_info[setting.substr(0, colon)] = setting.substr(colon + 1);
    }
    return r;
  }

  // --- what the driver sees ------------------------------------------------------------------

  Driver<SgNode>& driver() { return driver_; }
  double now() const { return halted_ ? stop_time_ : sg4::Engine::get_clock(); }
  // No timer, no item in hand, no message of a notifying channel on its way (messages of a silent
  // channel wake no one).
  bool quiet() const { return timers_ == 0 && executing_ == 0 && notifying_in_flight_ == 0; }
  // Every message not yet taken: queued, on its way or in a mailbox.
  void count_in_flight(Ledger::Count& c) const {
    for (const Wire& w : wires_)
      if (w.units > 0) c.in_flight(w.msg.load, w.items);
  }

  // --- the Context of the bound node ---------------------------------------------------------

  std::uint32_t degree(NodeId i) const { return static_cast<std::uint32_t>(driver_.node(i).out.size()); }
  std::span<const NeighborInfo> neighbors(NodeId i, std::size_t) const { return driver_.node(i).info; }
  double initial_load(NodeId i, Port p) const { return driver_.node(i).initial[p]; }

  void send(NodeId i, std::size_t, Port p, Channel channel, std::uint32_t tag, const std::array<double, 3>& value, double bytes,
            const Cargo& cargo) {
    SgNode& n = driver_.node(i);
    std::vector<Item> carried = driver_.send(i, p, degree(i), channel, cargo, now(), overdraft_);
    for (const Item& it : carried) bytes += it.bytes;
    // SimGrid hands a message of 0 bytes still paying its latency to a get posted after it was
    // sent (CommImpl::irecv, 3.32): every message is at least one unit.
    const double units = std::max(1.0, std::round(bytes * units_per_byte));
    double load = cargo.load;
    driver_.through_faults(load, !carried.empty(), [&] {
      Wire* w = new_wire();
      w->msg = Message{n.out[p].back, i, tag, static_cast<std::uint32_t>(carried.size()), load, value};
      w->items = carried;
      w->channel = channel;
      w->out = p;
      w->units = units;
      if (notify_[static_cast<std::size_t>(channel)]) ++notifying_in_flight_;
      n.to_send.push_back(w);
    });
  }

  std::span<const Message> take(NodeId i, std::size_t, Channel channel) {
    SgNode& n = driver_.node(i);
    auto& box = n.mailbox[static_cast<std::size_t>(channel)];
    taken_.clear();
    taken_items_.clear();
    for (Wire* w : box) {
      credit(n, w->msg.load, w->items, taken_items_);
      taken_.push_back(w->msg);
      free_wire(w);
    }
    box.clear();
    return taken_;
  }

  std::span<const Item> taken_items(std::size_t) const { return taken_items_; }

  void set_timer(NodeId i, double delay, std::uint32_t tag) {
    SgNode& n = driver_.node(i);
    n.timers.add(now() + delay, tag);
    ++timers_;
  }

  void execute(NodeId i, ItemId item, std::uint32_t tag) {
    SgNode& n = driver_.node(i);
    driver_.execute(i, item, tag, now(), work_seconds(n, item, driver_.speed(i)));
    n.to_execute = true;
    ++executing_;
  }

 private:
  // --- the actors ------------------------------------------------------------------------------

  // Runs an actor's body; an error stops the run and is thrown again once the engine returned.
  // SimGrid ends killed actors by an exception of its own, which must go through.
  template <class F>
  void guarded(F&& body) {
    try {
      body();
    } catch (const simgrid::ForcefulKillException&) {
      throw;
    } catch (const simgrid::CancelException&) {
      if (halted_) return;  // the stop cancelled what this actor waited for: it ends with the run
      error_ = std::current_exception();
      halt();
    } catch (...) {
      error_ = std::current_exception();
      halt();
    }
  }

  // Node i's actor: its program's start, then every event of the node, one at a time.
  void node(NodeId i) {
    SgNode& n = driver_.node(i);
    n.waiting.resize(n.in.size() * lanes_);
    for (Port p = 0; p < n.in.size(); ++p)
      for (std::size_t l = 0; l < lanes_; ++l) receive(i, p, l);
    n.agent = r_.program.make_agent(i);
    call(i, [&](Agent& a) { a.start(ctx_); });
    if (++started_ == g_.num_nodes()) driver_.start(*this);
    if (!carry_on(i, now())) return;
    const std::size_t gets = n.in.size() * lanes_;
    while (true) {
      forget_sent(n, now());
      // One wait over the node's gets and its execution, until its next timer.
      const double wake = next_wake(n);
      const ssize_t k = sg4::Activity::wait_any_for(n.waiting, wake < never ? std::max(0.0, wake - now()) : -1.0);
      ++wakes_;
      // Woken by the timeout, the wake is due even where SimGrid's clock is a rounding short of it.
      const double due = k < 0 ? std::max(now(), wake) : now();
      if (k < 0) {
        fire_timer(i, due);
      } else if (static_cast<std::size_t>(k) < gets) {
        arrive(i, static_cast<Port>(k / lanes_), k % lanes_);
      } else {
        executed(i);
      }
      if (!carry_on(i, due)) return;
    }
  }

  // The driver's clock: it sleeps until the driver asks to be woken, or stops at the time limit.
  void monitor() {
    while (started_ < g_.num_nodes()) sg4::this_actor::yield();
    while (true) {
      const double wake = driver_.next_wake();
      if (const auto reason = driver_.after(*this, wake)) {
        sg4::this_actor::sleep_until(std::min(wake, driver_.time_limit()));
        return stop(*reason);
      }
      sg4::this_actor::sleep_until(wake);
      driver_.wake(*this);
      if (const auto reason = driver_.after(*this)) return stop(*reason);
    }
  }

  // After an event of node i: the stop rules, else what its handler asked of SimGrid (messages
  // and timers due by `due`). False once the run stopped.
  bool carry_on(NodeId i, double due) {
    if (started_ == g_.num_nodes())
      if (const auto reason = driver_.after(*this)) {
        stop(*reason);
        return false;
      }
    SgNode& n = driver_.node(i);
    for (Wire* w : n.to_send) {
      if (serial_) n.out[w->out].queued.push_back(w), ++n.queued;
      else put(n, w);
    }
    n.to_send.clear();
    if (n.queued > 0) transmit(n, due);
    if (n.to_execute) {
      n.to_execute = false;
      n.exec = sg4::this_actor::exec_async(n.in_hand().item->weight * reference_speed);
      n.waiting.insert(n.waiting.begin() + static_cast<std::ptrdiff_t>(n.in.size() * lanes_), n.exec);
    }
    for (const auto& [p, c] : n.to_receive) receive(i, p, c);
    n.to_receive.clear();
    return true;
  }

  // The driver named a reason (the first one counts), or an error ended the run: the clock stops.
  void stop(StopReason reason) {
    if (!halted_) reason_ = reason;
    halt();
  }
  void halt() {
    if (halted_) return;
    halted_ = true;
    stop_time_ = sg4::Engine::get_clock();
    // An execution under way is cancelled first: killing an actor inside one ends the simulation
    // (SimGrid 3.32 aborts with an ImpossibleError, seen on a task run stopped by stop.time).
    for (NodeId i = 0; i < g_.num_nodes(); ++i)
      if (SgNode& n = driver_.node(i); n.exec && n.exec->get_state() == sg4::Activity::State::STARTED) n.exec->cancel();
    sg4::Actor::kill_all();
  }

  // Serial: the messages whose link direction is free by `due` start, each when the one before
  // it has been transmitted (des's LinkDirection: latency pipelined).
  void transmit(SgNode& n, double due) {
    for (OutPort& o : n.out)
      while (!o.queued.empty() && o.free_at <= due) {
        Wire* w = o.queued.front();
        o.queued.pop_front();
        --n.queued;
        o.free_at = std::max(o.free_at, now()) + w->units / o.units_per_second;
        put(n, w);
      }
  }

  void put(SgNode& n, Wire* w) {
    const std::size_t lane = serial_ ? 0 : static_cast<std::size_t>(w->channel);
    const OutPort& o = n.out[w->out];
    n.sent.add(now() + o.latency - 1e-6, o.box[lane]->put_async(w, static_cast<std::uint64_t>(w->units)));
    ++comms_;
  }

  // Waits for the node's puts that are over, so that SimGrid forgets them: a wait for a finished
  // comm returns at once. A started comm has no bytes left only once it is over (its receiver
  // is always there: every mailbox has its receiver as permanent receiver).
  void forget_sent(SgNode& n, double now) {
    while (n.sent.next_time() <= now) n.ending.push_back(n.sent.pop());
    for (std::size_t s = 0; s < n.ending.size();) {
      ++comm_checks_;
      if (n.ending[s]->get_remaining() > 0) {
        ++s;
        continue;
      }
      n.ending[s]->wait();
      n.ending[s] = std::move(n.ending.back());
      n.ending.pop_back();
    }
  }

  void receive(NodeId i, Port p, std::size_t lane) {
    SgNode& n = driver_.node(i);
    InPort& in = n.in[p];
    in.get[lane] = incoming(i, p)[lane]->get_async<Wire>(&in.got[lane]);
    n.waiting[p * lanes_ + lane] = in.get[lane];
  }

  // The mailboxes of the link from node i's port p to node i.
  const std::array<sg4::Mailbox*, channel_count>& incoming(NodeId i, Port p) const {
    return boxes_[g_.reverse(g_.first_slot(i) + p)];
  }

  // The earliest of node i's timers and, serial, of its queued messages' starts.
  double next_wake(const SgNode& n) const {
    double wake = n.timers.next_time();
    if (n.queued > 0)
      for (const OutPort& o : n.out)
        if (!o.queued.empty()) wake = std::min(wake, o.free_at);
    return wake;
  }

  void fire_timer(NodeId i, double due) {
    SgNode& n = driver_.node(i);
    if (n.timers.next_time() > due) return;  // woken to transmit
    const std::uint32_t tag = n.timers.pop();
    --timers_;
    call(i, [&](Agent& a) { a.timer(ctx_, tag); });
  }

  void arrive(NodeId i, Port p, std::size_t lane) {
    SgNode& n = driver_.node(i);
    Wire* w = n.in[p].got[lane];
    const auto c = static_cast<std::size_t>(w->channel);
    n.mailbox[c].push_back(w);
    n.to_receive.emplace_back(p, lane);
    if (!notify_[c]) return;
    --notifying_in_flight_;
    call(i, [&](Agent& a) { a.arrived(ctx_, static_cast<Channel>(c)); });
  }

  void executed(NodeId i) {
    SgNode& n = driver_.node(i);
    n.waiting.erase(n.waiting.begin() + static_cast<std::ptrdiff_t>(n.in.size() * lanes_));
    n.exec = nullptr;
    --executing_;
    driver_.complete(i, now());
    call(i, [&](Agent& a) { a.timer(ctx_, n.in_hand().tag); });
  }

  // Runs a handler of node i's agent (the driver then updates its idle and band bookkeeping).
  template <class F>
  void call(NodeId i, F&& handler) {
    driver_.handle(ctx_, i, handler, now());
  }

  Wire* new_wire() {
    if (free_.empty()) return &wires_.emplace_back();
    Wire* w = free_.back();
    free_.pop_back();
    return w;
  }

  void free_wire(Wire* w) {
    w->items.clear();
    w->units = 0;  // not live
    free_.push_back(w);
  }

  // SimGrid's handles go before the engine: comms and executions still under way are cancelled.
  void release() {
    for (NodeId i = 0; i < g_.num_nodes(); ++i) {
      SgNode& n = driver_.node(i);
      for (InPort& in : n.in)
        for (sg4::CommPtr& get : in.get)
          if (get && get->get_state() == sg4::Activity::State::STARTED) get->cancel();
      while (!n.sent.empty()) n.ending.push_back(n.sent.pop());
      for (sg4::CommPtr& put : n.ending)
        if (put->get_state() == sg4::Activity::State::STARTED) put->cancel();
      if (n.exec && n.exec->get_state() == sg4::Activity::State::STARTED) n.exec->cancel();
      n.in.clear(), n.ending.clear(), n.waiting.clear(), n.exec = nullptr;
    }
  }

  const EngineRun& r_;
  const Graph& g_;
  const bool overdraft_, serial_;
  // Mailboxes per link direction: serial links transmit one message at a time, so their messages
  // arrive in the order they were sent whatever their channel and one mailbox keeps that order;
  // with bandwidth sharing each channel has its own (a small control message may overtake data).
  const std::size_t lanes_;
  Driver<SgNode> driver_;
  bool notify_[channel_count] = {};
  std::vector<std::array<sg4::Mailbox*, channel_count>> boxes_;  // per slot
  std::deque<Wire> wires_;  // every message ever sent, reused once taken (units > 0: live)
  std::vector<Wire*> free_;
  std::vector<Message> taken_;
  std::vector<Item> taken_items_;
  NodeContext<SimgridRun> ctx_;
  std::size_t started_ = 0;
  std::uint64_t timers_ = 0, executing_ = 0, notifying_in_flight_ = 0;
  // For the record: the nodes' returns from their one wait, the puts, and how often a sender
  // asked SimGrid whether a put was over.
  std::uint64_t wakes_ = 0, comms_ = 0, comm_checks_ = 0;
  std::optional<StopReason> reason_;
  bool halted_ = false;
  double stop_time_ = 0;
  std::exception_ptr error_;
};

}  // namespace

std::string simgrid_version() {
  int major = 0, minor = 0, patch = 0;
  sg_version_get(&major, &minor, &patch);
  return std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(patch);
}

RunResult run_simgrid_here(const EngineRun& run) {
  static bool ran = false;
  if (ran) throw std::logic_error("engine simgrid: one simulation per process (its entry points run each in a process of its own)");
  ran = true;
  if (!(run.sample_period >= 0)) throw std::logic_error("simgrid sample period must be >= 0");
  ConfiguredEngine engine;
  const Hosts hosts = hosts_of(run);
  SimgridRun sim(run, hosts);
  return sim.run();
}

const EnginePlugin& simgrid_engine_plugin() {
  static const EnginePlugin plugin{
      .code_version = code_version,
      .run_size = sizeof(EngineRun),
      .result_size = sizeof(RunResult),
      .platform_size = sizeof(Platform),
      .run = [](const EngineRun& r) { return answer([&] { return encode(run_simgrid_here(r)); }); },
      .read_platform = [](const PlatformFile& f, const Graph& g) { return answer([&] { return encode(read_simgrid_platform_here(f, g)); }); },
      .died_reading_platform = simgrid_died_reading,
      .check_platform = [](const std::string& path) { return answer([&] { return check_simgrid_platform(path), std::string(); }); },
      .platform_hosts = simgrid_platform_hosts,
  };
  return plugin;
}

}  // namespace nnlb
