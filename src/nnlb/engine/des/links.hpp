#pragma once
// One direction of a link (Couturier, Giersch & Hakem sec. 6.1, without contention): a message
// of s bytes takes latency + s / bandwidth; messages in the same direction queue behind each
// other (transmission is serialized, latency is pipelined).
#include <algorithm>

namespace nnlb {

struct LinkDirection {
  double latency = 0;
  double bandwidth = 1;  // bytes/s
  double free_at = 0;    // when the wire is free again

  // Sends `bytes` at time `now`; returns the arrival time.
  double deliver(double now, double bytes) {
    free_at = std::max(now, free_at) + bytes / bandwidth;
    return free_at + latency;
  }
};

}  // namespace nnlb
