#pragma once
// One node of a node program on one MPI rank: what it holds (engine/core/node_state.hpp), its
// mailboxes and timers, and the Context its agent runs against, over a communicator that carries
// nothing else (its owner duplicates the application's). The transport under engine = "mpi"
// (mpi_engine.hpp) and under the MPI library (balancer.hpp).
//
// Receiving never blocks in progress(): one receive is posted at all times (MPI_Irecv of any
// source and tag, eager_bytes long, wire.hpp) and tested. wait() blocks until there is
// something to do: on the posted receive and the owner's request (MPI_Waitany) when no timer is
// pending, else by polling them until the next timer is due, yielding the processor between
// polls. A rank whose host runs more ranks than it has processors (`shared_processor`) must
// leave them to the ranks that work: it sleeps 50 us between polls instead. Only calls that
// SimGrid 3.32's SMPI implements are used.
#include <mpi.h>

#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <span>
#include <vector>

#include "nnlb/engine/core/agenda.hpp"
#include "nnlb/engine/core/execution.hpp"
#include "nnlb/engine/core/faults.hpp"
#include "nnlb/engine/core/node_context.hpp"
#include "nnlb/engine/core/node_state.hpp"
#include "nnlb/engine/core/tally.hpp"
#include "nnlb/node/payload.hpp"
#include "nnlb/runtime/wire.hpp"

namespace nnlb {

struct RankNodeSetup {
  MPI_Comm comm = MPI_COMM_NULL;        // this node's own communicator; node id = rank in it
  std::vector<NeighborInfo> neighbors;  // by port; NeighborInfo::id is the neighbour's rank
  std::vector<double> initial_loads;    // by port, the neighbours' loads at the start (0 where unknown)
  const Program* program = nullptr;
  bool integer = false;
  double speed = 1e9;                   // C_i (flop/s)
  std::uint64_t seed = 1;
  ItemPayloads* payloads = nullptr;     // the application's data behind its items, or none
  FaultInjection faults{};              // tests: lose or double load-carrying messages
  // Context::execute: an item's work takes weight x work_scale seconds (its owner runs the
  // kernel, then calls complete()); 0: the node program may not execute items (the library).
  double work_scale = 0;
  bool shared_processor = false;        // more ranks than processors on this host (hosts.hpp)
  // The largest MPI message: what follows a message's first eager_bytes goes in pieces of at most
  // this many bytes (an MPI count is an int).
  std::size_t piece_bytes = std::size_t{1} << 30;
  // The owner's notes from a neighbour (tell), by port: called as they arrive.
  std::function<void(Port, std::span<const double>)> heard;
};

class RankNode {
 public:
  explicit RankNode(RankNodeSetup setup);
  ~RankNode();
  RankNode(const RankNode&) = delete;
  RankNode& operator=(const RankNode&) = delete;

  NodeState& state() { return node_; }
  // The node program's agent (after start()).
  const Agent* agent() const { return node_.agent.get(); }
  // The application's data behind its items (before start()).
  void set_payloads(ItemPayloads* payloads) { setup_.payloads = payloads; }
  const NodeState& state() const { return node_; }
  // Makes the agent and runs its start handler; now() counts from `t0` (MPI_Wtime).
  void start(double t0);

  // Receives what has arrived (at most `budget` messages) and reaps finished sends; with
  // `deliver`, the program hears of each arrival and the timers that are due fire (without, the
  // node is frozen: arrivals wait in the mailboxes). Never blocks; returns whether anything
  // happened.
  bool progress(bool deliver = true, std::size_t budget = 1024);
  // Blocks until a message has arrived, the next timer is due, or `other` (if not null and not
  // MPI_REQUEST_NULL) has completed; returns at once when an item is in hand.
  void wait(MPI_Request* other = nullptr);
  // Collective over the communicator: receives (unheard, into the mailboxes) until every message
  // sent anywhere has arrived, then completes this rank's sends. `call` says which collective
  // call of the owner this is (`name`, for the message): when the ranks are not all in the same
  // one, every rank throws std::logic_error saying so instead of pairing different calls.
  void drain(std::uint32_t call = 0, const char* name = "drain");
  // Arrivals without a collective: tells every neighbour that everything this node sent it
  // before was sent (a marker of `epoch`, wire::marker_tag); wait_markers(epoch) then receives
  // (unheard, into the mailboxes) until every neighbour's marker of `epoch` or later came, so
  // everything the neighbours sent before their markers is here. A neighbour that marks
  // finishing (mark_finishing: its owner called a collective end) instead throws
  // std::logic_error naming it.
  void flush(std::uint64_t epoch);
  void mark_finishing() { flush(wire::finishing_marker); }
  void wait_markers(std::uint64_t epoch, const char* name);
  // The owner's note to the neighbour at port `to` (at most wire::note_values values; counted as
  // a control message), outside the node program: its `heard` is called on arrival.
  void tell(Port to, std::span<const double> values);

  // Context::execute: whether an item is in hand, how long its work takes, and its end (the
  // owner ran the kernel): completed, counted, and the program's timer fires.
  bool executing() const { return node_.in_hand().item.has_value(); }
  double work_in_hand() const { return node_.in_hand().ends - node_.in_hand().started; }
  void complete();

  bool timers_pending() const { return !timers_.empty(); }
  std::uint64_t sent() const { return sent_; }          // messages put on the wire (duplicates twice)
  std::uint64_t received() const { return received_; }
  std::uint64_t lost() const { return lost_; }          // fault injection: load-carrying messages dropped
  std::uint64_t carrying() const { return carrying_; }  // messages sent with load or items
  std::uint64_t handlers() const { return handlers_; }  // the program's handlers run (the record's events)
  const Tally& tally() const { return tally_; }
  const Completions& completions() const { return completions_; }
  double added() const { return added_; }               // Context::add_load, in all
  // Calls f(load, items) for every message arrived and not taken yet.
  void for_each_waiting(const std::function<void(double, std::span<const Item>)>& f) const;
  // Hands the payloads of waiting messages' items to the application (at the end of a run).
  void unpack_waiting();
  // The program hears again of what waits on the channels it listens to (after a freeze).
  void renotify();
  // Every waiting message's load and items reach the node, unheard (their protocol fields are
  // dropped): the end of a run whose holdings live on (the MPI library).
  void settle();
  // The neighbours' loads and speeds at the start, by port (Context::initial_load,
  // NeighborInfo::speed), before start().
  void know_initial(std::span<const double> loads, std::span<const double> speeds) {
    setup_.initial_loads.assign(setup_.neighbors.size(), 0.0);
    for (std::size_t p = 0; p < loads.size() && p < setup_.neighbors.size(); ++p) setup_.initial_loads[p] = loads[p];
    for (std::size_t p = 0; p < speeds.size() && p < setup_.neighbors.size(); ++p) setup_.neighbors[p].speed = speeds[p];
  }
  // C_i from now on (the MPI library's measured speed).
  void set_speed(double speed) { setup_.speed = speed; }
  // Calls the program's timer handler with `tag` now (a balancing step on demand).
  void fire(std::uint32_t tag) { node_.agent->timer(ctx_, tag); }

  // --- the Context of this node (engine/core/node_context.hpp) ---
  double now() const { return MPI_Wtime() - t0_; }
  double speed(NodeId) const { return setup_.speed; }
  std::uint32_t degree(NodeId) const { return static_cast<std::uint32_t>(setup_.neighbors.size()); }
  std::span<const NeighborInfo> neighbors(NodeId, std::size_t) const { return setup_.neighbors; }
  double initial_load(NodeId, Port p) const { return p < setup_.initial_loads.size() ? setup_.initial_loads[p] : 0.0; }
  Rng& rng(NodeId) { return rng_; }
  bool integer_load() const { return setup_.integer; }
  double load(NodeId) const { return node_.load; }
  std::span<const Item> items(NodeId) const { return node_.items; }
  std::span<const Item> taken_items(std::size_t) const { return taken_items_; }
  void send(NodeId, std::size_t, Port to, Channel channel, std::uint32_t tag, const std::array<double, 3>& value, double bytes,
            const Cargo& cargo);
  std::span<const Message> take(NodeId, std::size_t, Channel channel);
  void set_timer(NodeId, double delay, std::uint32_t tag);
  void execute(NodeId, ItemId item, std::uint32_t tag);
  void add_load(NodeId, std::size_t, double delta);
  void detected(NodeId) { tally_.detected(now()); }
  void finished(NodeId) { tally_.finished(now()); }
  void note(std::string_view name, double value) { tally_.note(name, value); }

 private:
  struct PendingSend {
    std::vector<MPI_Request> requests;  // the first eager_bytes, then the pieces of the rest
    std::vector<std::byte> bytes;
  };

  void post_receive();
  void receive(const MPI_Status& status, bool deliver);  // the posted receive has completed
  bool fire_timers();
  void reap_sends();
  void put(std::vector<std::byte> bytes, int to);
  Port port_of(NodeId from) const;

  RankNodeSetup setup_;
  NodeId self_ = 0;
  NodeState node_;
  NodeContext<RankNode> ctx_;
  Rng rng_{1, 0};
  bool notify_[channel_count] = {};
  std::vector<wire::Decoded> mailbox_[channel_count];
  std::vector<Message> taken_;
  std::vector<Item> taken_items_;
  std::vector<std::byte> payload_;  // scratch: a send's items' data
  std::vector<std::byte> eager_;    // the posted receive's buffer
  MPI_Request receive_ = MPI_REQUEST_NULL;
  Agenda<std::uint32_t> timers_;  // their tags
  std::deque<PendingSend> sends_;
  std::vector<std::uint64_t> marked_;  // by port: the last epoch marked
  std::vector<bool> finishing_;        // by port: the neighbour marked finishing
  std::uint64_t sent_ = 0, received_ = 0, lost_ = 0, carrying_ = 0, handlers_ = 0;
  Tally tally_;
  Completions completions_;
  double t0_ = 0, added_ = 0;
};

}  // namespace nnlb
