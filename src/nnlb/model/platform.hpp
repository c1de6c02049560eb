#pragma once
// Where the nodes run: node speeds C_i (flop/s, heterogeneous allowed) and per-link latency (s)
// and bandwidth (load units/s). The synchronous engine counts steps and ignores time; the
// discrete-event engines use all of it.
#include <cstdint>
#include <string_view>
#include <vector>

#include "nnlb/model/graph.hpp"

namespace nnlb {

struct Platform {
  std::vector<double> speed;      // per node
  std::vector<double> latency;    // per directed slot, or one value for all links
  std::vector<double> bandwidth;  // per directed slot, or one value for all links

  double node_speed(NodeId i) const { return speed.size() == 1 ? speed[0] : speed[i]; }
  double link_latency(Slot s) const { return latency.size() == 1 ? latency[0] : latency[s]; }
  double link_bandwidth(Slot s) const { return bandwidth.size() == 1 ? bandwidth[0] : bandwidth[s]; }
};

// Speeds from a spec: a number (all equal), uniform:LO,HI, or file:PATH (one per line).
std::vector<double> make_speeds(std::string_view spec, NodeId nodes, std::uint64_t seed, const std::string& base_dir = {});

}  // namespace nnlb
