#pragma once
// The policy catalog. Every policy family registers itself from its own file under
// catalog/policies/ (a function register_<file name>(PolicyCatalog&), found by the build): its
// names, a summary, the scenario keys it reads, and how to build it from their values and the
// topology. `nnlb list`, the scenario keys and make_policy all come from here, so adding a policy
// touches its own files only.
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "nnlb/node/agent.hpp"
#include "nnlb/model/topology.hpp"
#include "nnlb/policy/domain_policy.hpp"
#include "nnlb/policy/policy.hpp"

namespace nnlb {

// A scenario key a policy reads.
struct PolicyKey {
  enum class Type { number, boolean, text_or_number } type = Type::text_or_number;
  std::string name;
  std::string default_value;  // as the scenario writes it; "" = unset
  std::string doc;
};

// The policy keys of one run, as text ("" = unset: the policy's default).
struct PolicySpec {
  std::string algorithm = "fos";
  std::map<std::string, std::string> values;
  // The platform's node speeds C_i (one for all, or one per node): set-up knowledge, read by
  // the relative-speed policy (Jeannot & Vernier 2006 sec. 3.2). Empty: all equal.
  std::vector<double> speeds;

  std::string text(const std::string& key) const;
  // The key as a number, or `fallback` when unset; InputError (naming the key) when not a number.
  double number(const std::string& key, double fallback) const;
  bool boolean(const std::string& key) const;  // "true" / "false" (unset: false)
};

struct BuiltPolicy {
  std::shared_ptr<const Policy> policy;
  // Or a node program of its own, for algorithms that are not a rule over a local view (task
  // scheduling: Filipović & Krstajić's DD, MS, CA).
  std::shared_ptr<const Program> program;
  // Or a strategy over whole jobs and a domain of hosts, for the loosely-synchronous engine
  // (Douglas & Harwood: EN x, DASUD, PM x, SID, random push and pull).
  std::shared_ptr<const DomainPolicy> domain;
  // Resolved parameters, for the result record: {"alpha", 0.2}, {"lambda", 0.5}, ...
  std::vector<std::pair<std::string, double>> parameters;
};

struct PolicyEntry {
  std::string name{};
  std::vector<std::string> aliases{};
  std::string summary{};
  std::vector<std::string> reads{};  // names of the keys it reads (declared in `keys` of some entry)
  std::vector<std::string> fixes{};  // keys it fixes itself (e.g. ade fixes lambda): setting one is an error
  std::vector<PolicyKey> keys{};     // keys it declares, with type, default and doc
  std::vector<std::string> help{};   // lines for `nnlb list`
  std::function<BuiltPolicy(const PolicySpec&, const Topology&)> build{};
  // The node program it runs as, when not a rule inside a balancer: "tasks" (a program of its
  // own, BuiltPolicy::program) or "jobs" (whole jobs over a domain, BuiltPolicy::domain).
  std::string program{};
};

class PolicyCatalog {
 public:
  void add(PolicyEntry entry);
  const std::vector<PolicyEntry>& entries() const { return entries_; }
  const PolicyEntry* find(const std::string& name) const;  // by name or alias
  // Every key any policy reads, once, in registration order.
  std::vector<PolicyKey> keys() const;

 private:
  std::vector<PolicyEntry> entries_;
};

const PolicyCatalog& policy_catalog();

// Builds the policy `spec.algorithm` names. Throws InputError naming the key: an unknown
// algorithm, a key set that the algorithm does not read or fixes itself, a bad value.
BuiltPolicy make_policy(const PolicySpec& spec, const Topology& topo);

}  // namespace nnlb
