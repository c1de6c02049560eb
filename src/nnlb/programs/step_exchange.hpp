#pragma once
// One synchronous balancing step by messages, the component a program embeds (Xu et al. 1995,
// Eq. 1; getWj and sendRecvLoad of Jeannot & Vernier's Algorithm 1): in step t a node reports
// w_i(t) to every neighbour (control channel), decides once every neighbour's report of step t is
// in, sends each neighbour one transfer (data channel, possibly empty, so that the neighbour
// knows the step is complete), and ends the step once every neighbour's transfer is in. Steps are
// counted by messages, so no clock is needed: the rounds engine, links of any latency and real
// ranks run it alike.
//
// The decision is on w_i(t) whatever the timing: a neighbour that decided first may send its
// transfer of step t while this node still waits for a report; that transfer stays in the data
// channel (its load not yet this node's) until this node has decided. A transfer of step t + 1
// cannot come earlier: it needs this node's report of step t + 1.
#include <algorithm>
#include <cstdint>
#include <span>
#include <vector>

#include "nnlb/node/context.hpp"

namespace nnlb {

class StepExchange {
 public:
  static constexpr std::uint32_t report_tag = 0, transfer_tag = 1;

  void start(std::uint32_t degree) { edges_.assign(degree, Edge{}); }

  // Step t begins: w_i(t) to every neighbour.
  void report(Context& ctx, double bytes) const {
    for (Port p = 0; p < edges_.size(); ++p) ctx.send(p, Channel::control, report_tag, {ctx.load(), 0, 0}, bytes);
  }

  // Takes the channel's messages: reports at any time, transfers once this node has decided;
  // any other message (a protocol's, tags from protocol/tags.hpp) goes to `other`, which must not
  // take messages itself. Load sent back by a neighbour that left (no port) is kept and is no
  // part of a step.
  template <class Other>
  void arrived(Context& ctx, Channel channel, Other&& other) {
    if (channel == Channel::data && !decided_) return;
    for (const Message& m : ctx.take(channel)) {
      if (m.tag != report_tag && m.tag != transfer_tag) {
        other(m);
        continue;
      }
      if (m.port == no_port) continue;
      Edge& e = edges_[m.port];
      if (m.tag == report_tag) {
        e.reported = m.value[0];
        ++e.reports;
      } else {
        e.received += m.load;
        ++e.transfers;
      }
    }
  }

  bool reports_in() const { return !decided_ && all(&Edge::reports); }
  std::uint64_t step() const { return step_; }
  double reported(Port p) const { return edges_[p].reported; }
  double net_flow(Port p) const { return edges_[p].net_flow; }  // sent - received over p in step t - 1

  // This node has decided step t: `sent[p]` to port p. Transfers of step t may now be taken
  // (those already waiting are); send them with `send`, at once or after a delay of the program's.
  void decide(Context& ctx, std::span<const double> sent) {
    for (Port p = 0; p < edges_.size(); ++p) edges_[p].sent = sent[p];
    decided_ = true;
    arrived(ctx, Channel::data, [](const Message&) {});
  }

  // One transfer message per neighbour: `bytes_per_unit` per unit carried, `empty_bytes` when
  // nothing is.
  void send(Context& ctx, double bytes_per_unit, double empty_bytes) const {
    for (Port p = 0; p < edges_.size(); ++p) {
      const double l = edges_[p].sent;
      ctx.send(p, Channel::data, transfer_tag, {}, l > 0 ? l * bytes_per_unit : empty_bytes, {.load = l});
    }
  }

  bool transfers_in() const { return decided_ && all(&Edge::transfers); }

  // Ends step t (every transfer in): what it moved.
  struct Moved {
    double received = 0;
    bool any = false;  // some load crossed an edge of this node, either way
  };
  Moved end() {
    Moved m;
    for (Edge& e : edges_) {
      m.received += e.received;
      m.any = m.any || e.sent > 0 || e.received > 0;
      e.net_flow = e.sent - e.received;
      e.sent = e.received = 0;
    }
    decided_ = false;
    ++step_;
    return m;
  }

 private:
  struct Edge {
    double reported = 0;  // the neighbour's load in its latest report
    std::uint64_t reports = 0, transfers = 0;
    double sent = 0, received = 0;  // in the current step
    double net_flow = 0;
  };

  bool all(std::uint64_t Edge::*counter) const {
    return std::all_of(edges_.begin(), edges_.end(), [&](const Edge& e) { return e.*counter >= step_ + 1; });
  }

  std::vector<Edge> edges_;
  std::uint64_t step_ = 0;
  bool decided_ = false;  // step t decided: its transfers may be taken
};

}  // namespace nnlb
