#pragma once
// What a run stops on, samples and records: the part of a run's description that the driver
// reads, the same on every engine.
#include <cstdint>

#include "nnlb/engine/core/faults.hpp"
#include "nnlb/engine/core/recorder.hpp"
#include "nnlb/engine/core/stop_rules.hpp"

namespace nnlb {

struct RunRules {
  double band = 0.01;         // balanced: every node within band x its share (balance.hpp)
  StopRules stop;
  double sample_period = 0;   // timed engines: a sample every this many seconds; 0: at the start and the stop only
  std::uint64_t series_every = 1;  // a row every k rounds (round engines); any k > 0 keeps every sample (timed engines); 0: first and last only
  bool load_history = false;  // every node's load at each sample
  std::uint64_t series_max_rows = default_series_max_rows;  // rows of the series and of the load history (recorder.hpp; 0: no bound)
  bool final_load = false;    // every node's load at the stop
  FaultInjection faults;      // tests: lose, double or alter load-carrying messages
};

}  // namespace nnlb
