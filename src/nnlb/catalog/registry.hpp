#pragma once
// Builds a policy from its scenario keys. Xu's four named algorithms fix their parameter:
//   adf = fos with alpha adf, odf = fos with alpha odf, ade = de with lambda 1/2, ode = de with
//   lambda ode; fos, de and sos take `alpha`, `lambda`, `beta` from the scenario.
#include <memory>
#include <string>
#include <vector>

#include "nnlb/model/topology.hpp"
#include "nnlb/policy/policy.hpp"

namespace nnlb {

struct PolicySpec {
  std::string algorithm = "fos";
  std::string alpha;   // empty: the algorithm's default
  std::string lambda;  // empty: the algorithm's default
  std::string beta;    // empty: "optimal"
  double leveling = 1;     // best effort's k (sec. 5.2 of Couturier et al.)
  bool ping_pong = false;  // Bertsekas–Tsitsiklis: enforce the ping-pong condition (Eq. 2)
};

struct PolicyInfo {
  std::string name;
  std::string summary;
  std::vector<std::string> parameters;  // "alpha: cybenko|adf|boillat|odf|optimal|NUMBER (default cybenko)"
};

struct BuiltPolicy {
  std::unique_ptr<Policy> policy;
  // Resolved parameters, for the result record: {"alpha", 0.2}, {"lambda", 0.5}, ...
  std::vector<std::pair<std::string, double>> parameters;
};

// Throws InputError naming the key (algorithm, alpha, lambda, beta) when the choice is bad.
BuiltPolicy make_policy(const PolicySpec& spec, const Topology& topo);

std::vector<PolicyInfo> policy_catalog();

}  // namespace nnlb
