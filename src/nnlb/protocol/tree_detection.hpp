#pragma once
// Decentralized convergence detection on a spanning tree (Jeannot & Vernier 2006, sec. 3.3.2,
// after Bahi et al.'s IEEE-1394-like election), for node programs that balance in numbered
// synchronous steps.
//
// Set-up (initLBDetecConv): a spanning tree by flooding from node 0 (explore; the first explore
// makes its sender the parent and is accepted, later ones are rejected). The tree's edges are what
// the detection uses; its orientation is then chosen as in the paper: a node that has heard from
// all its tree neighbours but one takes that one as its father, so the leaves start; a node that
// has heard from all of them is a root, and two adjacent nodes that choose each other are two
// roots (both detect).
//
// Detection: after every step t a node sends its father the state of its sub-tree, pipelined (one
// message per step, carrying the latest of its children's): L, the last step in which any node of
// the sub-tree exchanged load, and O, the oldest step the sub-tree's information is current for.
// Nothing was exchanged anywhere in step O when O > L, so a root that sees O > L over the whole
// tree has observed a globally quiet step; with static load and a deterministic policy nothing
// moves again. It detects h + 1 steps after the last exchange, h its tree height. It broadcasts a
// stop step S = t + h + 1, which reaches every node before step S (one hop per step): all nodes
// end balancing at the same step.
//
// Continuous mode (dynamic load; the paper's last paragraph of sec. 3.3.2: "reduce the frequency
// of LB steps if the system became stable or increase it if it became unbalanced"): nothing
// stops. The roots keep watching and broadcast phase changes the same way, in force from
// S = t + h + 1: an exchange seen after the last change's information (L > its O) in a quiet
// phase drops the quiet level to 0; otherwise a quiet step seen after it (O > L and O > its O)
// raises the level by one (the application balances half as often). Every change reaches every node before
// its S, so all nodes know the same changes at every step and apply them at the same steps; a
// root decides only once the last change it knows is in force (ties at one S: level 0 wins).
#include <cstdint>
#include <optional>
#include <vector>

#include "nnlb/node/context.hpp"

namespace nnlb {

// How a node program uses the detection: not at all, to stop balancing, or continuously (above).
enum class Detection { off, stop, continuous };

class SpanningTreeDetection {
 public:
  // `continuous`: phase changes instead of a stop (above).
  void start(Context& ctx, bool continuous = false);
  bool handles(const Message& m) const;
  void receive(Context& ctx, const Message& m);
  bool tree_ready() const { return ready_; }
  // After balancing step t; `last_exchange` is the last step in which this node sent or received
  // load (-1: none yet).
  void after_step(Context& ctx, std::int64_t t, std::int64_t last_exchange);
  // The step at which balancing stops, once known here.
  std::optional<std::int64_t> stop_step() const { return stop_; }
  // The step at which this node, as a root, detected convergence.
  std::optional<std::int64_t> detected_step() const { return detected_; }
  bool is_root() const { return root_; }
  // Continuous mode: the quiet level in force at step t (0: balance at the base rate).
  std::uint32_t level_at(std::int64_t t) const;
  // Continuous mode: how many phase changes this node knows.
  std::size_t phase_changes() const { return changes_.size(); }
  const std::vector<Port>& tree_ports() const { return tree_; }

 private:
  struct SubTree {
    bool heard = false;
    double last_exchange = -1, current = 0, height = 0;  // L, O, h of the neighbour's report
  };
  void explore(Context& ctx, Port parent);
  void settle_tree();
  void stop_at(Context& ctx, double step, Port from);
  struct PhaseChange {
    std::int64_t step = 0;     // S: in force from this step on
    std::uint32_t level = 0;
    double basis = -1;         // O when it was decided: exchanges up to this step were seen
  };
  // Keeps change `c` if it is new (or wins a tie at its step) and passes it on down the tree.
  void change_at(Context& ctx, PhaseChange c, Port from);
  // A root's verdict on the phase in force, from the whole tree's L, O and h.
  void decide_phase(Context& ctx, std::int64_t t, double last_all, double current_all, double height_all);
  std::vector<Port> tree_;         // tree neighbours by port
  std::vector<std::int8_t> state_;  // per port: 0 unknown, 1 tree edge, 2 not a tree edge
  std::vector<SubTree> sub_;        // per port
  Port parent_ = no_port, father_ = no_port;
  std::uint32_t pending_ = 0;
  std::vector<PhaseChange> changes_;  // continuous mode: by step S
  bool explored_ = false, ready_ = false, root_ = false, continuous_ = false;
  std::optional<std::int64_t> stop_, detected_;
  double control_bytes_ = 32;
};

}  // namespace nnlb
