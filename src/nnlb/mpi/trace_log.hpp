#pragma once
// One rank's part of a load trace (engine/core/load_trace.hpp gives the format and the replay):
// the application's item events and the balancing steps, on the clock of the run (seconds since
// the balancing started; 0 before). Bounded: after `max_events` the rank records nothing more and
// the trace ends, on every rank, where the first rank stopped (Balancer::finish).
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "nnlb/node/message.hpp"

namespace nnlb::mpi {

class TraceLog {
 public:
  enum class Kind : std::uint8_t { add, weight, remove, pin, unpin, step };
  static constexpr std::size_t max_events = std::size_t{1} << 22;  // 128 MiB a rank

  void record(Kind kind, double time, ItemId id, double value = 0);
  // When this rank stopped recording (it reached max_events), or infinity.
  double full_at() const { return full_at_; }
  // This rank's lines of the trace, up to time `until`.
  std::string lines(int rank, double until) const;

 private:
  struct Event {
    double time;
    double value;
    ItemId id;
    Kind kind;
  };
  std::vector<Event> events_;
  double full_at_ = std::numeric_limits<double>::infinity();
};

}  // namespace nnlb::mpi
