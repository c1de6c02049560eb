#pragma once
// Where the nodes run: node speeds C_i (flop/s, heterogeneous allowed) and per-link latency (s)
// and bandwidth (load units/s). The synchronous engine counts steps and ignores time; the
// discrete-event engines use all of it.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "nnlb/model/background.hpp"
#include "nnlb/model/graph.hpp"

namespace nnlb {

// The speed that `platform.speed` defaults to: an item's work (Context::execute) is measured in
// seconds on a node of this speed.
inline constexpr double reference_speed = 1e9;

struct Platform {
  std::vector<double> speed;      // per node
  std::vector<double> latency;    // per directed slot, or one value for all links
  std::vector<double> bandwidth;  // per directed slot, or one value for all links
  Background background;          // the fraction of each node's speed left to the run, over time
  // From a SimGrid platform file (engine = "simgrid"): the file and the host node i runs on (the
  // speeds and links above are then those of the hosts and their routes); empty otherwise.
  std::string hosts_file;
  std::vector<std::string> hosts;

  double node_speed(NodeId i) const { return speed.size() == 1 ? speed[0] : speed[i]; }
  double link_latency(Slot s) const { return latency.size() == 1 ? latency[0] : latency[s]; }
  double link_bandwidth(Slot s) const { return bandwidth.size() == 1 ? bandwidth[0] : bandwidth[s]; }
};

// Every one of `nodes` nodes' speed.
inline std::vector<double> node_speeds(const Platform& platform, std::size_t nodes) {
  std::vector<double> c(nodes);
  for (std::size_t i = 0; i < nodes; ++i) c[i] = platform.node_speed(static_cast<NodeId>(i));
  return c;
}

// Speeds from a spec: a number (all equal), uniform:LO,HI, or file:PATH (one per line).
std::vector<double> make_speeds(std::string_view spec, NodeId nodes, std::uint64_t seed, const std::string& base_dir = {});

// The networks of Jeannot & Vernier 2006, sec. 4.2 (bandwidths in bytes/s):
//  lan          100 Mb/s, 0.15 ms on every link;
//  dsl          1 Mb/s, 40 ms on every link;
//  two-cluster  nodes [0, n/2) at 3000 Mflop/s and [n/2, n) at 2000 Mflop/s (on mesh:10x10 the
//               first five rows and the last five, Fig. 6); 1 Gb/s, 0.15 ms inside a cluster,
//               and a 1 Gb/s, 15 ms backbone on the links between the clusters.
// Throws InputError (key platform.preset) for another name.
Platform preset_platform(std::string_view name, const Graph& g);
// The names preset_platform knows.
const std::vector<std::string>& platform_presets();

// Applies a platform file (docs/platform-files.md) to `p` on graph g: lines `speed [NODES] C` and
// `link [NODES NODES] LATENCY BANDWIDTH`, later lines overriding earlier ones; links become per
// slot. Errors name the file and line: a node not in the graph, a link line that matches no
// edge, a value that is not > 0 (latency >= 0).
void apply_platform_file(const std::string& path, const Graph& g, Platform& p);

}  // namespace nnlb
