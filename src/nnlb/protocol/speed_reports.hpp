#pragma once
// Relative-speed diffusion on speeds measured while the run goes on (Jeannot & Vernier 2006,
// sec. 3.2, whose Algorithm 1, right, agrees on M_r once, from speeds known at set-up). Each node
// tells its neighbours its speed C_i and its delta_i = 1 / sum_j C_r,ij (Policy::reported_delta)
// before a balancing step in which either changed since it last told them; both ends of an edge
// then compute the same M_r,ij = min(delta_i, delta_j) C_r,ij from what they heard. A change of
// C_i changes the neighbours' deltas, which they tell at their next step: static speeds settle
// after two steps, as the negotiation's two exchanges. One control message per neighbour and
// change; a policy without a delta (every other one) sends nothing and keeps nothing per port.
#include <cstdint>
#include <vector>

#include "nnlb/node/context.hpp"
#include "nnlb/policy/policy.hpp"

namespace nnlb {

class SpeedReports {
 public:
  // Whether the policy reports a delta (else nothing is ever told or heard).
  static bool needed(const Policy& policy) { return policy.reported_delta(1, {}).has_value(); }
  void start(Context& ctx, const Policy& policy) {
    active_ = needed(policy);
    if (active_) neighbors_.assign(ctx.degree(), {});
  }
  // Whether the policy reports a delta: otherwise nothing is ever heard, and a step reads the
  // speeds of set-up.
  bool active() const { return active_; }
  bool handles(const Message& m) const;
  void receive(const Message& m);
  // Before a step: tells every neighbour C_i and delta_i if the policy has one and either changed.
  void announce(Context& ctx, const Policy& policy, double control_bytes);
  // What this node knows of port p: the speed the neighbour reported (else `set_up`, its
  // NeighborInfo::speed), and its delta (0: not heard).
  double speed(Port p, double set_up) const { return neighbors_[p].speed > 0 ? neighbors_[p].speed : set_up; }
  double delta(Port p) const { return neighbors_[p].delta; }
  void neighbor_added(Port p) {
    if (!active_) return;
    neighbors_.insert(neighbors_.begin() + p, Heard{});
    told_speed_ = 0;  // the newcomer has heard nothing yet: tell everyone again
  }
  void neighbor_removed(Port p) {
    if (active_) neighbors_.erase(neighbors_.begin() + p);
  }

 private:
  struct Heard {
    double speed = 0, delta = 0;  // 0: not heard
  };
  std::vector<Heard> neighbors_;
  std::vector<double> speeds_;  // scratch
  double told_speed_ = 0, told_delta_ = 0;
  bool active_ = false;
};

}  // namespace nnlb
