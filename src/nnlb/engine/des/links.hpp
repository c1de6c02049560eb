#pragma once
// Links of the logical topology (Couturier, Giersch & Hakem, sec. 6.1, without contention): a
// message of s bytes on a link takes latency + s / bandwidth; messages on the same link and
// direction queue behind each other (transmission is serialized, latency is pipelined).
#include <algorithm>
#include <vector>

#include "nnlb/model/graph.hpp"
#include "nnlb/model/platform.hpp"

namespace nnlb {

class Links {
 public:
  Links(const Graph& g, const Platform& platform) : platform_(platform), free_at_(g.num_slots(), 0.0) {}

  // Sends `bytes` over slot s at time `now`; returns the arrival time.
  double deliver(Slot s, double now, double bytes) {
    const double start = std::max(now, free_at_[s]);
    free_at_[s] = start + bytes / platform_.link_bandwidth(s);
    return free_at_[s] + platform_.link_latency(s);
  }

 private:
  const Platform& platform_;
  std::vector<double> free_at_;  // per slot: when the link is free again in that direction
};

}  // namespace nnlb
