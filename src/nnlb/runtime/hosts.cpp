#include "nnlb/runtime/hosts.hpp"

#include <algorithm>
#include <cstring>
#include <map>
#include <utility>

namespace nnlb {

namespace {

// Per host name: its ranks and the union of their processors.
std::map<std::string, std::pair<int, cpu_set_t>> by_host(const std::vector<HostReport>& hosts) {
  std::map<std::string, std::pair<int, cpu_set_t>> out;
  for (const HostReport& h : hosts) {
    auto [it, fresh] = out.try_emplace(h.name);
    if (fresh) CPU_ZERO(&it->second.second);
    ++it->second.first;
    CPU_OR(&it->second.second, &it->second.second, &h.processors);
  }
  return out;
}

}  // namespace

HostReport HostReport::here() {
  HostReport h;
  int length = 0;
  MPI_Get_processor_name(h.name, &length);
  CPU_ZERO(&h.processors);
  if (sched_getaffinity(0, sizeof h.processors, &h.processors) != 0) CPU_SET(0, &h.processors);
  return h;
}

std::vector<HostReport> gather_hosts(MPI_Comm comm) {
  int size = 1;
  MPI_Comm_size(comm, &size);
  std::vector<HostReport> all(static_cast<std::size_t>(size));
  HostReport mine = HostReport::here();
  MPI_Allgather(&mine, sizeof mine, MPI_BYTE, all.data(), sizeof mine, MPI_BYTE, comm);
  return all;
}

double processors_available(const std::vector<HostReport>& hosts) {
  double available = 0;
  for (const auto& [name, count] : by_host(hosts)) available += std::min(count.first, CPU_COUNT(&count.second));
  return available;
}

bool oversubscribed(const std::vector<HostReport>& hosts, int rank) {
  const auto all = by_host(hosts);
  const auto& [ranks, processors] = all.at(hosts.at(static_cast<std::size_t>(rank)).name);
  return ranks > CPU_COUNT(&processors);
}

}  // namespace nnlb
