#pragma once
// Where the nodes of a SimGrid run live: the platform built in the running s4u::Engine (the
// logical platform of the topology, or the SimGrid XML file of run.platform) and the host each
// node runs on.
#include <vector>

#include <simgrid/s4u/Host.hpp>

#include "nnlb/engine/registry.hpp"

namespace nnlb {

// SimGrid counts whole bytes: sizes are given to it in units of 1/1024 byte and bandwidths in
// units per second, so a fractional size keeps its time (a power of two scales exactly).
inline constexpr double units_per_byte = 1024;

struct Hosts {
  std::vector<simgrid::s4u::Host*> of_node;  // node i runs on of_node[i]
  std::vector<double> latency;               // per slot: the route's latency (s)
  std::vector<double> bandwidth;             // per slot: the route's narrowest link (bytes/s)
};

// Builds the platform of `run` in the current engine. Without a platform file, the logical
// platform: a host per node at its platform speed and a link per slot (one direction of an edge)
// with the slot's latency and bandwidth, the only link of its route (Couturier et al.'s model:
// des's links). With one, its hosts as run.platform.hosts names them (platform_file.hpp).
Hosts hosts_of(const EngineRun& run);

}  // namespace nnlb
