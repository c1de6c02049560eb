#pragma once
// SimGrid XML platforms (platform.file = "*.xml" on engine = "simgrid"): the nodes of the topology
// mapped onto the file's hosts, read before the run so that the policies, the record and the
// balance rule know the nodes' speeds (Jeannot & Vernier's two clusters of 3000 and 2000 Mflop/s).
#include "nnlb/engine/registry.hpp"

namespace nnlb {

// Reads `file` in a process of its own (SimGrid allows one engine per process). The hosts in
// order of their names (numbers compared as numbers: node-2 before node-10), node i on the i-th;
// or at random (seeded); or from a file of host names, node i on line i. Returns the platform:
// hosts_file and hosts, each node's host speed, each slot's route latency and narrowest
// bandwidth. InputError naming platform.file (a missing or malformed file, a host or link whose
// speed, bandwidth or latency cannot be simulated, fewer hosts than nodes, two nodes without a
// route) or simgrid.mapping (a host it names twice or that the file
// lacks, too few lines).
Platform read_simgrid_platform(const PlatformFile& file, const Graph& g);

// The hosts `path` and the files it includes declare: <host> elements and the radicals of
// <cluster> and <cabinet> elements ("0-15,20": 17), read from the text, without SimGrid; 0 when
// the file cannot be read (read_simgrid_platform names the cause).
double simgrid_platform_hosts(const std::string& path);

}  // namespace nnlb
