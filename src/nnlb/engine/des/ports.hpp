#pragma once
// A des node's ports: the links to its neighbours (Couturier, Giersch & Hakem sec. 6.1, without
// contention) and what it knows of each neighbour from set-up (Context::neighbors). On a graph
// that does not change, everything but when each wire is free again comes from the graph (CSR)
// and the platform (GraphPorts); when nodes leave and join, each node keeps its own (NodePorts).
#include <span>
#include <vector>

#include "nnlb/engine/core/neighbors.hpp"
#include "nnlb/engine/des/links.hpp"
#include "nnlb/model/edge_coloring.hpp"
#include "nnlb/model/graph.hpp"
#include "nnlb/model/platform.hpp"
#include "nnlb/util/prefetch.hpp"

namespace nnlb::des {

// Sends `bytes` at `now` on a wire of `latency` and `bandwidth` free again at `free_at`; returns
// the arrival time.
inline double deliver(double latency, double bandwidth, double& free_at, double now, double bytes) {
  LinkDirection wire{latency, bandwidth, free_at};
  const double arrival = wire.deliver(now, bytes);
  free_at = wire.free_at;
  return arrival;
}

// The ports of every node on a graph that does not change: per slot, when its wire (and its
// control lane's, if control has one) is free again, so that a send reads the node's slots in
// order, not the neighbours': 8 bytes a port. The peer's port of the link is the graph's
// (Graph::peer_port); what set-up knows of the neighbours (Context::neighbors, built on demand for
// one node at a time, and Context::initial_load) is the core's NeighborFacts.
class GraphPorts {
 public:
  GraphPorts(const Graph& g, const Platform& platform, const EdgeColoring* colors, std::vector<double> held, bool control_lane)
      : g_(g), platform_(platform), set_up_(g, platform, colors, std::move(held)), free_at_(g.num_slots(), 0.0) {
    if (control_lane) control_free_at_.assign(g.num_slots(), 0.0);
  }

  std::uint32_t degree(NodeId i) const { return g_.degree(i); }
  // Node i's port p is its slot first_slot(i) + p: its peer, the peer's port of the link, and a
  // send of `bytes` on its wire at `now`, which returns the arrival time.
  Slot first_slot(NodeId i) const { return g_.first_slot(i); }
  NodeId to(Slot s) const { return g_.target(s); }
  // Asks ahead for node i's slots in what a balancing step reads.
  void prefetch(NodeId i) const {
    const Slot s = g_.first_slot(i);
    nnlb::prefetch(&free_at_[s]);
    set_up_.prefetch(i);
    nnlb::prefetch(g_.targets().data() + s), nnlb::prefetch(g_.peer_ports().data() + s);
  }
  std::span<const NodeId> targets(NodeId i) const { return {g_.targets().data() + g_.first_slot(i), g_.degree(i)}; }
  Port back(Slot s) const { return g_.peer_port(s); }
  double deliver(Slot s, double now, double bytes, bool control_lane) {
    return des::deliver(platform_.link_latency(s), platform_.link_bandwidth(s), control_lane ? control_free_at_[s] : free_at_[s], now, bytes);
  }
  // A send of `bytes` at `now` on every port of node i, in port order: calls
  // post(peer, peer's port, arrival) for each. One loop over the node's slots, with the arrays
  // it reads held in registers.
  template <class Post>
  void send_each(NodeId i, double now, double bytes, bool control_lane, Post&& post) {
    const Slot first = g_.first_slot(i), end = g_.end_slot(i);
    const NodeId* to = g_.targets().data();
    const Port* back = g_.peer_ports().data();
    double* free_at = control_lane ? control_free_at_.data() : free_at_.data();
    const double* latency = platform_.latency.data();
    const double* bandwidth = platform_.bandwidth.data();
    // 0 where the platform gives one value for every link, 1 where it gives one a slot
    const Slot latency_stride = platform_.latency.size() == 1 ? 0 : 1, bandwidth_stride = platform_.bandwidth.size() == 1 ? 0 : 1;
    for (Slot s = first; s < end; ++s)
      post(to[s], back[s], des::deliver(latency[s * latency_stride], bandwidth[s * bandwidth_stride], free_at[s], now, bytes));
  }

  // Node i's neighbours as set-up knows them; valid until the next call for another node.
  std::span<const NeighborInfo> neighbors(NodeId i) const {
    if (built_for_ != i) {
      set_up_.of(i, scratch_);
      built_for_ = i;
    }
    return scratch_;
  }
  double initial_load(NodeId i, Port p) const { return set_up_.initial_load(i, p); }

 private:
  const Graph& g_;
  const Platform& platform_;
  NeighborFacts set_up_;
  std::vector<double> free_at_, control_free_at_;
  mutable std::vector<NeighborInfo> scratch_;
  mutable NodeId built_for_ = static_cast<NodeId>(-1);
};

// One node's ports on a graph that changes: what it knows of each neighbour (where a send also
// reads the peer, the latency and the bandwidth) and its load when this node started, when the
// wire towards it is free again, and the peer's port of the link. 60 bytes a port.
struct NodePorts {
  std::vector<NeighborInfo> info;
  std::vector<double> initial;
  std::vector<double> free_at;
  std::vector<Port> back;
  std::vector<double> control_free_at;  // the control lane's wire: only when control has a lane of its own
  std::uint32_t size() const { return static_cast<std::uint32_t>(info.size()); }
  NodeId to(Port p) const { return info[p].id; }
  void reserve(std::size_t degree, bool control_lane) {
    info.reserve(degree), initial.reserve(degree), free_at.reserve(degree), back.reserve(degree);
    if (control_lane) control_free_at.reserve(degree);
  }
  void push_back(const NeighborInfo& i, double initial_load, Port peer_port, double free, bool control_lane) {
    info.push_back(i), initial.push_back(initial_load), free_at.push_back(free), back.push_back(peer_port);
    if (control_lane) control_free_at.push_back(free);
  }
  void erase(Port p) {
    info.erase(info.begin() + p), initial.erase(initial.begin() + p), free_at.erase(free_at.begin() + p), back.erase(back.begin() + p);
    if (!control_free_at.empty()) control_free_at.erase(control_free_at.begin() + p);
  }
  double deliver(Port p, double now, double bytes, bool control_lane) {
    return des::deliver(info[p].latency, info[p].bandwidth, control_lane ? control_free_at[p] : free_at[p], now, bytes);
  }
};

}  // namespace nnlb::des
