#pragma once
// Couturier, Giersch & Hakem sec. 7.2's per-node times, kept alike by every engine that simulates
// seconds: the time a node spends holding nothing (idle) and its last entry into the band of its
// share (its convergence time), and the record's time metrics made from them.
#include <algorithm>
#include <cstddef>

#include "nnlb/engine/core/result.hpp"

namespace nnlb {

struct NodeTimes {
  bool in_band = false;
  bool idle = false;  // holds nothing
  double idle_since = 0, idle_time = 0, band_entry = 0;

  // At the start (`initial`), or after the band itself moved (the mean changed): the node holds
  // `held` and is in the band or not at time t.
  void reset(bool initial, double held, bool band, double t) {
    if (initial) {
      idle = held <= 0;
      if (idle) idle_since = t;
    }
    if (band && (initial || !in_band)) band_entry = t;
    in_band = band;
  }

  // After a handler changed what the node holds; returns the change of the number of nodes in
  // the band (-1, 0 or +1).
  int update(double held, bool band, double now) {
    const bool empty = held <= 0;
    if (empty != idle) {
      if (empty) idle_since = now;
      else idle_time += now - idle_since;
      idle = empty;
    }
    const int change = band == in_band ? 0 : band ? 1 : -1;
    if (change > 0) band_entry = now;
    in_band = band;
    return change;
  }

  double idle_until(double now) const { return idle_time + (idle ? now - idle_since : 0.0); }
};

// Adds one node's times at `now` to the sums of `tm`; average() divides them by the node count.
inline void accumulate(TimeMetrics& tm, const NodeTimes& t, double now) {
  tm.avg_idle_time += t.idle_until(now);
  tm.avg_convergence_time += t.band_entry;
  tm.max_convergence_time = std::max(tm.max_convergence_time, t.band_entry);
}

inline void average(TimeMetrics& tm, std::size_t nodes) {
  tm.avg_idle_time /= static_cast<double>(nodes);
  tm.avg_convergence_time /= static_cast<double>(nodes);
}

}  // namespace nnlb
