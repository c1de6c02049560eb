#pragma once
// A domain policy (Douglas & Harwood's EN 1, DASUD, PM x, SID) as a node program over items: the
// same DomainPolicy the p2p engine applies with exact views, here with views gathered by
// messages on any engine that moves items (des, mpi). Every `period` (staggered: a random first
// offset) a node decides on its radius-1 domain as its neighbours' reports last told it, then
// reports its job count; it reports again whenever jobs arrive. Jobs it sends itself go to the
// chosen neighbour; a migration between two other hosts of its domain (DASUD's) becomes an
// instruction to the sender, which moves the jobs to the receiver if they are neighbours, else
// through the instructing node. A node moves jobs (by its own decision or an instruction) at
// most once a period: domains deciding at once on the same counts would otherwise over-migrate.
// A leaving node hands its jobs to its neighbours, spread evenly. Which jobs go follows the
// selection rule (policy/job_selection.hpp) on what the node knows itself: the jobs it holds and
// where it last sent others; without a rule, those it received last.
#include <memory>

#include "nnlb/node/agent.hpp"
#include "nnlb/model/graph.hpp"
#include "nnlb/policy/domain_policy.hpp"
#include "nnlb/policy/job_selection.hpp"

namespace nnlb {

struct DomainBalancerOptions {
  double period = 1;          // seconds between two reports and decisions
  double control_bytes = 64;  // size of a report or an instruction
  JobSelection selection = JobSelection::any;
  const Graph* guest = nullptr;  // the jobs' synchronization edges (items are its nodes); needed by a selection rule
};

class DomainBalancer final : public Program {
 public:
  // InputError when the policy needs more than the radius-1 domain or a random host.
  DomainBalancer(std::shared_ptr<const DomainPolicy> policy, DomainBalancerOptions options);
  std::string name() const override { return "domain balancer (" + policy_->name() + ")"; }
  std::unique_ptr<Agent> make_agent(NodeId node) const override;
  ProgramNeeds needs() const override { return {.items = true}; }

 private:
  std::shared_ptr<const DomainPolicy> policy_;
  DomainBalancerOptions options_;
};

}  // namespace nnlb
