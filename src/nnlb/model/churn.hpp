#pragma once
// Churn of a host graph (Douglas & Harwood sec. 3.1), drawn from the graph alone and never from
// the load, so that every engine that runs under it sees the same hosts leave and enter. In each
// time unit t = 1, 2, ... every live host, in id order, leaves with probability 1 - 2^(-1/tau) and
// a new host enters in its place (|H| stays; a lone host stays too), then the scripted events due
// by t happen in time order. An entering host takes the lowest free id and links to
// max(1, floor(log2 |H|)) random live hosts (HostNetwork). The paper assumes H stays connected;
// the rule does not ensure it. Each step notes whether H is partitioned, and with `repair` a
// part cut off from the largest one links to it again: its lowest host rejoins by the entering
// rule, drawing its links among the largest part's hosts.
#include <cstdint>
#include <vector>

#include "nnlb/model/graph.hpp"
#include "nnlb/model/host_network.hpp"
#include "nnlb/util/rng.hpp"

namespace nnlb {

// A change of the graph: a node leaves (its live neighbours at that moment in `peers`, the heirs
// of what it holds), or a node joins linked to `peers`.
struct GraphChange {
  enum class Kind { leave, join } kind = Kind::leave;
  double time = 0;
  NodeId node = 0;
  std::vector<NodeId> peers;
};

// A scripted event of churn.events.
struct ChurnEvent {
  static constexpr NodeId any = ~NodeId{0};
  enum class Kind { leave, enter } kind = Kind::leave;
  double time = 0;
  NodeId host = any;  // leave: this host (InputError if it is not in the network then), or a random one
};

class Churn {
 public:
  // `half_life`: tau in time units, 0 for none; every draw comes from `rng`.
  Churn(const Graph& hosts, double half_life, std::vector<ChurnEvent> scripted, Rng rng, bool repair = false);

  // Whether a later step can still change anything.
  bool more() const { return leave_p_ > 0 || next_ < events_.size(); }
  // The changes of time unit t (t = 1, 2, ..., each once and in order), stamped `time` = t.
  const std::vector<GraphChange>& step(std::uint64_t t);
  // The host graph after the last step.
  const HostNetwork& network() const { return net_; }
  // Whether H was in more than one part after the last step (after its repair), and in how many
  // steps so far it was.
  bool partitioned() const { return partitioned_; }
  std::uint64_t partitioned_steps() const { return partitioned_steps_; }
  // Links added by repairs so far.
  std::uint64_t repairs() const { return repairs_; }

 private:
  void leave(NodeId h, double t);
  void enter(double t);
  void repair();

  HostNetwork net_;
  Rng rng_;
  double leave_p_ = 0;
  std::vector<ChurnEvent> events_;  // in time order
  std::size_t next_ = 0;
  std::vector<GraphChange> changes_;
  bool repair_ = false, partitioned_ = false;
  std::uint64_t partitioned_steps_ = 0, repairs_ = 0;
};

}  // namespace nnlb
