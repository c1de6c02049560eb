#pragma once
// The built-in discrete-event engine (Couturier, Giersch & Hakem, sec. 6.1): simulated seconds;
// nodes with speeds; links of the logical topology with latency and bandwidth, where a message
// of s bytes takes latency + s / bandwidth and messages on one link and direction queue behind
// each other. Each node runs three processes:
//   receiver  - control and data messages land in two FIFOs;
//   computing - takes the received load, sends the load the balancer decided to send, then
//               computes for load * flops_per_unit / speed seconds (at least comp_min_period);
//               with no load and nothing received it waits for data;
//   balancing - reads control messages (neighbours' loads, virtual-load notices), runs the
//               policy, sends a control message to every neighbour, waits lb_period.
// With virtual load (sec. 6), a control message also announces the load its sender has just
// committed to the receiver, and the receiver counts announced load as its own before it arrives.
#include <cstdint>
#include <vector>

#include "nnlb/engine/result.hpp"
#include "nnlb/model/load.hpp"
#include "nnlb/model/platform.hpp"
#include "nnlb/model/topology.hpp"
#include "nnlb/policy/policy.hpp"

namespace nnlb {

struct DesOptions {
  double flops_per_unit = 1e5;     // computation per load unit and iteration
  double bytes_per_unit = 1250;    // data message bytes per load unit
  double control_bytes = 64;       // size of a control message
  double lb_period = 1e-3;         // minimum period of the balancing process (s)
  double comp_min_period = 1e-4;   // minimum period of the computing process (s)
  bool virtual_load = false;
  double band = 0.01;              // balanced when every node is within band * mean of the mean
  double time_limit = 1e4;         // simulated seconds
  double sample_period = 0;        // series and load-history sampling (s); 0: 1000 samples at most
  bool record_series = true;       // every sample in the series (false: the first and last only)
  bool record_load_history = false;
  bool record_final_load = false;
  std::uint64_t seed = 1;
};

RunResult run_des(const Topology& topo, const Policy& policy, LoadMode mode, const std::vector<double>& initial,
                  const Platform& platform, const DesOptions& options);

}  // namespace nnlb
