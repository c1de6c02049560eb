#include "nnlb/engine/des/des_engine.hpp"

#include <algorithm>
#include <cmath>
#include <deque>
#include <string>

#include "nnlb/engine/des/event_queue.hpp"
#include "nnlb/engine/des/links.hpp"
#include "nnlb/metrics/load_stats.hpp"

namespace nnlb {

namespace {

enum EventKind : std::uint32_t { compute_wake, balance_wake, message_arrival, sample };

template <class L>
struct Message {
  Slot slot = 0;        // the sender's slot: the receiver is target(slot), the sender its source
  bool data = false;
  double arrival = 0;   // when it lands in the receiver's FIFO
  L amount{0};          // data: load carried; control: virtual load announced (0 without)
  L load{0};            // control: the sender's load as it decides
  L counted{0};         // control: all the load from the receiver that the sender has counted so far
};

template <class L>
struct Node {
  L real{0};                    // load held
  L pending_total{0};           // decided but not yet sent
  L announced{0};               // virtual load announced to this node, not yet received
  bool waiting = false;         // computing process waits for data
  bool in_band = false;
  double idle_since = 0, idle = 0, band_entry = 0;
  std::uint64_t lb_steps = 0;
  // FIFOs of message indices. Control messages are only read by the balancing process, so they
  // need no arrival event: they join `ctrl` when sent and count as received once their arrival
  // time has passed. Data messages may wake a waiting computing process and do have an event.
  std::vector<std::uint32_t> ctrl, data;
};

constexpr double real_conservation_tolerance = 1e-9;

template <class L>
class DesRun {
 public:
  DesRun(const Topology& topo, const Policy& policy, const std::vector<double>& initial, const Platform& platform,
         const DesOptions& opt)
      : g_(topo.graph), policy_(policy), platform_(platform), opt_(opt), nodes_(g_.num_nodes()), links_(g_, platform) {
    known_.resize(g_.num_slots());
    committed_.assign(g_.num_slots(), L{0});
    counted_.assign(g_.num_slots(), L{0});
    pending_.assign(g_.num_slots(), L{0});
    if (policy.edge_memory() > 0) memory_.assign(g_.num_slots() * policy.edge_memory(), 0.0);
    last_flow_.assign(g_.num_slots(), 0.0);
    for (NodeId i = 0; i < g_.num_nodes(); ++i) {
      nodes_[i].real = static_cast<L>(initial[i]);
      total_ += nodes_[i].real;
    }
    // Set-up exchange: every node starts knowing its neighbours' initial loads.
    for (NodeId i = 0; i < g_.num_nodes(); ++i)
      for (Slot s = g_.first_slot(i); s < g_.end_slot(i); ++s) known_[s] = static_cast<double>(nodes_[g_.target(s)].real);
    mean_ = static_cast<double>(total_) / g_.num_nodes();
    sample_period_ = opt.sample_period > 0 ? opt.sample_period : 10 * opt.lb_period;
    rngs_.reserve(g_.num_nodes());
    for (NodeId i = 0; i < g_.num_nodes(); ++i) rngs_.emplace_back(opt.seed, i);
  }

  RunResult run() {
    RunResult r;
    for (NodeId i = 0; i < g_.num_nodes(); ++i) {
      set_real(i, nodes_[i].real, 0.0, true);
      queue_.push(0.0, balance_wake, i);
      queue_.push(0.0, compute_wake, i);
    }
    const LoadStats first = load_stats(0.0, r);
    r.summary.initial_total = static_cast<double>(total_);
    r.summary.initial_imbalance = first.imbalance;
    queue_.push(sample_period_, sample, 0);
    std::string reason = "time";
    while (!queue_.empty()) {
      if (in_band_ == g_.num_nodes()) {
        reason = "balanced";
        break;
      }
      if (queue_.next_time() > opt_.time_limit) break;
      const Event e = queue_.pop();
      now_ = e.time;
      ++events_;
      switch (e.kind) {
        case compute_wake: compute(e.target); break;
        case balance_wake: balance(e.target); break;
        case message_arrival: arrive(e.target); break;
        case sample:
          load_stats(now_, r, opt_.record_series);
          queue_.push(now_ + sample_period_, sample, 0);
          break;
      }
    }
    if (reason == "time") now_ = std::min(now_, opt_.time_limit);
    const LoadStats last = load_stats(now_, r);
    finish(r, reason, last);
    return r;
  }

 private:
  // --- the three processes -------------------------------------------------------------------

  // Computing process: take received load, send what the balancer decided, compute.
  void compute(NodeId i) {
    Node<L>& n = nodes_[i];
    n.waiting = false;
    L real = n.real;
    for (std::uint32_t m : n.data) {
      const Message<L>& msg = messages_[m];
      real += msg.amount;
      in_flight_ -= msg.amount;
      if (opt_.virtual_load) n.announced -= msg.amount;
      else counted_[g_.reverse(msg.slot)] += msg.amount;
      free_.push_back(m);
    }
    n.data.clear();
    for (Slot s = g_.first_slot(i); s < g_.end_slot(i); ++s) {
      const L amount = std::min(pending_[s], real);
      if (amount <= L{0}) continue;
      pending_[s] -= amount;
      n.pending_total -= amount;
      real -= amount;
      in_flight_ += amount;
      moved_ += static_cast<double>(amount);
      ++data_messages_;
      send(s, Message<L>{s, true, 0.0, amount, L{0}, L{0}}, static_cast<double>(amount) * opt_.bytes_per_unit);
    }
    set_real(i, real, now_, false);
    if (real > L{0}) {
      const double work = static_cast<double>(real) * opt_.flops_per_unit / platform_.node_speed(i);
      queue_.push(now_ + std::max(work, opt_.comp_min_period), compute_wake, i);
    } else {
      n.waiting = true;  // woken by the next data message
    }
  }

  // Balancing process: read control messages, decide, tell every neighbour.
  void balance(NodeId i) {
    Node<L>& n = nodes_[i];
    std::size_t kept = 0;
    for (std::uint32_t m : n.ctrl) {
      const Message<L>& msg = messages_[m];
      if (msg.arrival > now_) {
        n.ctrl[kept++] = m;  // still on the wire
        continue;
      }
      ++events_;  // its delivery
      const Slot back = g_.reverse(msg.slot);
      if (opt_.virtual_load) {
        n.announced += msg.amount;
        counted_[back] += msg.amount;
      }
      // The neighbour's load as it reported it, plus what this node committed to it that the
      // report did not count yet (still pending here or in flight).
      known_[back] = static_cast<double>(msg.load + (committed_[back] - msg.counted));
      free_.push_back(m);
    }
    n.ctrl.resize(kept);
    L load = decision_load(n);
    const Slot first = g_.first_slot(i), end = g_.end_slot(i);
    scratch_.clear();
    slot_of_.clear();
    // Pairwise policies (dimension exchange) balance with one neighbour per step, round robin.
    const bool pairwise = policy_.pairing() == Pairing::matching;
    for (Slot s = first; s < end; ++s) {
      if (pairwise && s != first + n.lb_steps % (end - first)) continue;
      NeighborState nb;
      nb.id = g_.target(s);
      nb.degree = g_.degree(nb.id);
      nb.load = known_[s];
      nb.speed = platform_.node_speed(nb.id);
      nb.last_flow = last_flow_[s];
      nb.memory = memory_.empty() ? nullptr : memory_.data() + s * policy_.edge_memory();
      scratch_.push_back(nb);
      slot_of_.push_back(s);
    }
    LocalView view;
    view.self = i;
    view.degree = g_.degree(i);
    view.load = static_cast<double>(load);
    view.speed = platform_.node_speed(i);
    view.step = n.lb_steps++;
    view.neighbors = scratch_;
    view.rng = &rngs_[i];
    transfers_.clear();
    if (!scratch_.empty()) policy_.decide(view, transfers_);
    std::fill(announce_.begin(), announce_.end(), L{0});
    announce_.resize(end - first, L{0});
    for (Slot s = first; s < end; ++s) last_flow_[s] = 0;
    for (const Transfer& t : transfers_) {
      const L amount = std::min(quantize<L>(t.amount), load);
      if (amount <= L{0}) continue;
      const Slot s = slot_of_[t.neighbor];
      pending_[s] += amount;
      committed_[s] += amount;
      n.pending_total += amount;
      load -= amount;
      known_[s] += static_cast<double>(amount);  // until the neighbour reports again
      last_flow_[s] += static_cast<double>(amount);
      announce_[s - first] += amount;
    }
    for (Slot s = first; s < end; ++s) {
      ++control_messages_;
      send(s, Message<L>{s, false, 0.0, opt_.virtual_load ? announce_[s - first] : L{0}, load, counted_[s]}, opt_.control_bytes);
    }
    queue_.push(now_ + opt_.lb_period, balance_wake, i);
  }

  // Receiver: a data message lands in the data FIFO of its destination.
  void arrive(std::uint32_t m) {
    const NodeId to = g_.target(messages_[m].slot);
    Node<L>& n = nodes_[to];
    n.data.push_back(m);
    if (n.waiting) {
      n.waiting = false;
      queue_.push(now_, compute_wake, to);
    }
  }

  // --- network and bookkeeping ---------------------------------------------------------------

  void send(Slot s, const Message<L>& msg, double bytes) {
    std::uint32_t m;
    if (free_.empty()) {
      m = static_cast<std::uint32_t>(messages_.size());
      messages_.push_back(msg);
    } else {
      m = free_.back();
      free_.pop_back();
      messages_[m] = msg;
    }
    Message<L>& sent = messages_[m];
    sent.arrival = links_.deliver(s, now_, bytes);
    if (sent.data) queue_.push(sent.arrival, message_arrival, m);
    else nodes_[g_.target(s)].ctrl.push_back(m);
  }

  L decision_load(const Node<L>& n) const {
    return n.real - n.pending_total + (opt_.virtual_load ? n.announced : L{0});
  }

  // Updates a node's load and its idle and band bookkeeping.
  void set_real(NodeId i, L value, double t, bool initial) {
    Node<L>& n = nodes_[i];
    const bool was_idle = !initial && n.real <= L{0};
    if (!initial && was_idle && value > L{0}) n.idle += t - n.idle_since;
    if ((initial || !was_idle) && value <= L{0}) n.idle_since = t;
    n.real = value;
    const bool band = std::abs(static_cast<double>(value) - mean_) <= opt_.band * mean_;
    if (band && !n.in_band) {
      n.band_entry = t;
      ++in_band_;
    } else if (!band && n.in_band) {
      --in_band_;
    }
    n.in_band = band;
  }

  // Checks conservation; records the sample in the series if `keep` (and in the load history).
  LoadStats load_stats(double t, RunResult& r, bool keep = true) {
    std::vector<L> w(g_.num_nodes());
    L held{0};
    for (NodeId i = 0; i < g_.num_nodes(); ++i) w[i] = nodes_[i].real, held += w[i];
    check_conservation(held, r.summary);
    const LoadStats st = nnlb::load_stats<L>(w);
    if (keep) {
      r.series.push_back({events_, 0, t, st.imbalance, st.stddev, st.min, st.max, st.mean, moved_ - moved_at_sample_});
      moved_at_sample_ = moved_;
    }
    if (opt_.record_load_history) {
      r.load_history.steps.push_back(t);
      r.load_history.loads.emplace_back(w.begin(), w.end());
    }
    return st;
  }

  // Load held plus load in flight must equal the initial total.
  void check_conservation(L held, RunSummary& sum) {
    if constexpr (std::is_integral_v<L>) {
      if (held + in_flight_ != total_)
        throw ConservationError("integer load not conserved at t = " + std::to_string(now_) + ": held " + std::to_string(held) +
                                " + in flight " + std::to_string(in_flight_) + " != " + std::to_string(total_));
    } else {
      const double err = std::abs(held + in_flight_ - total_) / std::max(std::abs(total_), 1e-300);
      sum.max_conservation_error = std::max(sum.max_conservation_error, err);
      if (err > real_conservation_tolerance)
        throw ConservationError("load not conserved at t = " + std::to_string(now_) + ": relative error " + std::to_string(err));
    }
  }

  void finish(RunResult& r, const std::string& reason, const LoadStats& st) {
    RunSummary& sum = r.summary;
    sum.stop_reason = reason;
    sum.balanced = reason == "balanced";
    sum.final_imbalance = st.imbalance;
    sum.final_stddev = st.stddev;
    sum.final_spread = st.max - st.min;
    sum.final_total = static_cast<double>(total_);
    sum.load_moved = moved_;
    sum.rounds = events_;
    TimeMetrics tm;
    tm.time = now_;
    for (NodeId i = 0; i < g_.num_nodes(); ++i) {
      const Node<L>& n = nodes_[i];
      tm.avg_idle_time += n.idle + (n.real <= L{0} ? now_ - n.idle_since : 0.0);
      tm.avg_convergence_time += n.band_entry;
      tm.max_convergence_time = std::max(tm.max_convergence_time, n.band_entry);
    }
    tm.avg_idle_time /= g_.num_nodes();
    tm.avg_convergence_time /= g_.num_nodes();
    tm.data_transferred = total_ != L{0} ? moved_ / static_cast<double>(total_) : 0.0;
    tm.control_messages = control_messages_;
    tm.data_messages = data_messages_;
    tm.events = events_;
    sum.timing = tm;
    if (opt_.record_final_load)
      for (const auto& n : nodes_) r.final_load.push_back(static_cast<double>(n.real));
  }

  const Graph& g_;
  const Policy& policy_;
  const Platform& platform_;
  const DesOptions& opt_;
  std::vector<Node<L>> nodes_;
  Links links_;
  std::vector<double> known_;        // per slot: x_j^i, what i knows of j's load
  std::vector<L> pending_;           // per slot: decided, not yet sent
  std::vector<L> committed_;         // per slot: all load ever committed to the neighbour
  std::vector<L> counted_;           // per slot: all load from the neighbour counted here
  std::vector<double> last_flow_;    // per slot: sent in i's last balancing step
  std::vector<double> memory_;
  std::vector<Rng> rngs_;
  std::vector<Message<L>> messages_;
  std::vector<std::uint32_t> free_;  // recycled message indices
  std::vector<NeighborState> scratch_;
  std::vector<Slot> slot_of_;
  std::vector<Transfer> transfers_;
  std::vector<L> announce_;
  EventQueue queue_;
  double now_ = 0, mean_ = 0, sample_period_ = 0, moved_ = 0, moved_at_sample_ = 0;
  L total_{0}, in_flight_{0};
  NodeId in_band_ = 0;
  std::uint64_t events_ = 0, control_messages_ = 0, data_messages_ = 0;
};

}  // namespace

RunResult run_des(const Topology& topo, const Policy& policy, LoadMode mode, const std::vector<double>& initial,
                  const Platform& platform, const DesOptions& options) {
  if (mode == LoadMode::integer) return DesRun<std::int64_t>(topo, policy, initial, platform, options).run();
  return DesRun<double>(topo, policy, initial, platform, options).run();
}

}  // namespace nnlb
