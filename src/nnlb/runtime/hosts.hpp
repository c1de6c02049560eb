#pragma once
// Where the ranks run: each rank's host and the processors it may use there, for the record
// (processors the ranks really had) and for how an idle rank waits (a rank that shares its
// processors with more ranks than they are must not spin).
#include <mpi.h>
#include <sched.h>

#include <string>
#include <vector>

namespace nnlb {

struct HostReport {
  char name[MPI_MAX_PROCESSOR_NAME] = {};
  cpu_set_t processors;
  static HostReport here();
};

// Every rank's report, in rank order (collective over `comm`).
std::vector<HostReport> gather_hosts(MPI_Comm comm);

// Processors the ranks really had: on each host, the fewer of its ranks and the processors any
// of them may use (ranks bound to a core each have one each; unbound ranks share the host's).
double processors_available(const std::vector<HostReport>& hosts);

// Whether the host of rank `rank` runs more of these ranks than they have processors there.
bool oversubscribed(const std::vector<HostReport>& hosts, int rank);

}  // namespace nnlb
