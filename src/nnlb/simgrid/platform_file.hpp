#pragma once
// SimGrid XML platforms (platform.file = "*.xml" on engine = "simgrid"): the nodes of the topology
// mapped onto the file's hosts, read before the run so that the policies, the record and the
// balance rule know the nodes' speeds (Jeannot & Vernier's two clusters of 3000 and 2000 Mflop/s).
#include "nnlb/engine/registry.hpp"

namespace nnlb {

// The checks made before SimGrid reads `path`: a missing file, a folder, a device, an include
// cycle or too deep a nesting is one line (InputError naming platform.file).
void check_simgrid_platform(const std::string& path);

// Reads `file` in this process (SimGrid allows one engine per process; simgrid_engine_plugin()
// reads it in a process of its own). The hosts in order of their names (numbers compared as
// numbers: node-2 before node-10), node i on the i-th; or at random (seeded); or from a file of
// host names, node i on line i. Returns the platform: hosts_file and hosts, each node's host
// speed, each slot's route latency and narrowest bandwidth. InputError naming platform.file (a
// missing or malformed file, a host or link whose speed, bandwidth or latency cannot be
// simulated, fewer hosts than nodes, two nodes without a route) or simgrid.mapping (a host it
// names twice or that the file lacks, too few lines).
Platform read_simgrid_platform_here(const PlatformFile& file, const Graph& g);

// SimGrid 3.32 dies on a route a Full zone does not have (include cycles and deep nesting are
// refused before; a Floyd zone's missing route is named): what a reading that died says.
inline constexpr const char* simgrid_died_reading =
    "SimGrid failed on it, as it does on a Full zone without a route between the hosts of two neighbouring nodes";

// The hosts `path` and the files it includes declare: <host> elements and the radicals of
// <cluster> and <cabinet> elements ("0-15,20": 17), read from the text, without SimGrid; 0 when
// the file cannot be read (reading it names the cause).
double simgrid_platform_hosts(const std::string& path);

}  // namespace nnlb
