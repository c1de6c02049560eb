#pragma once
// Strategies over whole jobs on a host network (Douglas & Harwood secs. 2.1, 2.3, 3.4-3.6). A
// host balancing sees its domain: the live hosts within radius() hops with their job counts
// (itself first, then breadth-first), or itself and one random host of the network; it decides
// migrations of jobs between hosts of that domain, which need not include itself (DASUD).
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "nnlb/model/graph.hpp"
#include "nnlb/util/rng.hpp"

namespace nnlb {

struct DomainHost {
  NodeId id = 0;
  std::uint32_t hops = 0;  // from the centre
  std::int64_t jobs = 0;   // w: jobs the host holds, those arriving included
};

struct DomainView {
  std::span<const DomainHost> hosts;  // hosts[0] is the centre
  Rng* rng = nullptr;
};

struct Migration {
  std::uint32_t from = 0, to = 0;  // indices into DomainView::hosts
  std::int64_t jobs = 0;
};

enum class DomainKind {
  ball,         // the hosts within radius() hops
  random_host,  // the centre and one live host drawn uniformly (random push and pull)
};

class DomainPolicy {
 public:
  virtual ~DomainPolicy() = default;
  virtual std::string name() const = 0;
  virtual DomainKind domain() const { return DomainKind::ball; }
  virtual std::uint32_t radius() const { return 1; }
  virtual void decide(const DomainView& view, std::vector<Migration>& out) const = 0;
};

// policy.decide(view, out), then every migration checked possible (two distinct hosts of the
// view, jobs >= 0): the engines run any policy through this, so a bad one fails loudly.
void decide_checked(const DomainPolicy& policy, const DomainView& view, std::vector<Migration>& out);

// EN x (sec. 3.4, Corradi et al.): the centre i sends floor((w_i - w_min) / 2) jobs to the least
// loaded host of its radius-x domain; when i is the least loaded itself, the most loaded host
// sends it floor((w_max - w_i) / 2).
std::unique_ptr<DomainPolicy> make_extended_neighbor(std::uint32_t x);
// DASUD (sec. 3.5, Cortés et al.): in the radius-1 domain, the most loaded host sends
// floor((w_max - w_min) / 2) jobs to the least loaded one, whether or not either is the centre;
// a domain is left with a difference of at most 1.
std::unique_ptr<DomainPolicy> make_dasud();
// PM x (sec. 3.6): EN 1, and when the centre holds exactly one job more than its least loaded
// neighbour it sends it one with probability x (PM 0 is EN 1).
std::unique_ptr<DomainPolicy> make_probabilistic_migration(double x);
// SID, discrete (sec. 2.3): the centre sends ceil((w_i - w_j) / 2) jobs to its least loaded
// neighbour j whenever w_i > w_j, so a difference of 1 swaps sides: over-migration.
std::unique_ptr<DomainPolicy> make_sender_initiated();
// Random push (sec. 2.1): a host holding more than `threshold` jobs sends one to a random host
// holding at least two fewer.
std::unique_ptr<DomainPolicy> make_random_push(double threshold);
// Random pull (sec. 2.1): a host holding fewer than `threshold` jobs takes one from a random host
// holding at least two more.
std::unique_ptr<DomainPolicy> make_random_pull(double threshold);

}  // namespace nnlb
