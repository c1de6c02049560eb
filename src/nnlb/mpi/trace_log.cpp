#include "nnlb/mpi/trace_log.hpp"

#include <cstdio>

namespace nnlb::mpi {

void TraceLog::record(Kind kind, double time, ItemId id, double value) {
  if (time > full_at_) return;
  if (events_.size() == max_events) {
    full_at_ = time;
    return;
  }
  events_.push_back({time, value, id, kind});
}

std::string TraceLog::lines(int rank, double until) const {
  std::string out;
  char line[128];
  for (const Event& e : events_) {
    if (e.time >= until) break;
    const auto id = static_cast<unsigned long long>(e.id);
    switch (e.kind) {
      case Kind::add: std::snprintf(line, sizeof line, "add %.9g %d %llu %.17g\n", e.time, rank, id, e.value); break;
      case Kind::weight: std::snprintf(line, sizeof line, "weight %.9g %d %llu %.17g\n", e.time, rank, id, e.value); break;
      case Kind::remove: std::snprintf(line, sizeof line, "remove %.9g %d %llu\n", e.time, rank, id); break;
      case Kind::pin: std::snprintf(line, sizeof line, "pin %.9g %d %llu\n", e.time, rank, id); break;
      case Kind::unpin: std::snprintf(line, sizeof line, "unpin %.9g %d %llu\n", e.time, rank, id); break;
      case Kind::step: std::snprintf(line, sizeof line, "step %.9g %d %.17g\n", e.time, rank, e.value); break;
    }
    out += line;
  }
  return out;
}

}  // namespace nnlb::mpi
