#pragma once
// Jeannot & Vernier 2006, Algorithm 1 (right): the neighbours of a node agree on the entries of
// the relative-speed diffusion matrix M_r without global knowledge. Every node sends its speed to
// every neighbour; with all speeds in, it knows delta_i and proposes Mr_ij = delta_i C_r,ij and
// Mr_ji = delta_i C_r,ji and sends Mr_ji; when the neighbour's proposal RMr_ji is smaller, it wins:
// Mr_ij = RMr_ji Mr_ij / Mr_ji and Mr_ji = RMr_ji. Both ends end with
// M_r,ij = min(delta_i, delta_j) C_r,ij, the closed form of sec. 3.2 (tested). Two exchanges of
// one control message per edge and direction.
#include <cstdint>
#include <vector>

#include "nnlb/node/context.hpp"

namespace nnlb {

class RelativeSpeedNegotiation {
 public:
  explicit RelativeSpeedNegotiation(bool self_term) : self_term_(self_term) {}
  void start(Context& ctx);
  bool handles(const Message& m) const;
  void receive(Context& ctx, const Message& m);
  bool done() const { return done_; }
  // After done(): the agreed M_r,ij (out) and M_r,ji (in) by port.
  const std::vector<double>& out() const { return out_; }
  const std::vector<double>& in() const { return in_; }

 private:
  void propose(Context& ctx);
  void settle(Port p);
  bool self_term_;
  double control_bytes_ = 16;
  std::vector<double> speed_, out_, in_, proposal_;
  std::vector<char> has_speed_, has_answer_;
  std::uint32_t speeds_ = 0, answers_ = 0;
  bool proposed_ = false, done_ = false;
};

}  // namespace nnlb
