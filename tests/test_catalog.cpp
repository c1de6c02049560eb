// The policy catalog: every policy registers its names and keys; scenario keys and refusals
// come from it.
#include <gtest/gtest.h>

#include <algorithm>

#include "nnlb/catalog/registry.hpp"
#include "nnlb/experiment/scenario.hpp"
#include "nnlb/model/topology.hpp"
#include "nnlb/util/error.hpp"

namespace nnlb {
namespace {

TEST(Catalog, EveryPolicyAndAliasBuildsAndEveryKeyIsAScenarioKey) {
  const Topology t = make_topology("torus:6x6", 1);
  const auto& keys = scenario_keys();
  for (const PolicyEntry& e : policy_catalog().entries()) {
    std::vector<std::string> names = e.aliases;
    names.push_back(e.name);
    for (const std::string& name : names) {
      PolicySpec spec{name, {}};
      if (name == "gde") spec.values["lambda"] = "0.4";
      EXPECT_NO_THROW(make_policy(spec, t)) << name;
    }
    for (const std::string& key : e.reads)
      EXPECT_TRUE(std::any_of(keys.begin(), keys.end(), [&](const KeyInfo& k) { return k.name == key; })) << key;
  }
  EXPECT_EQ(policy_catalog().find("naive")->name, "bertsekas-tsitsiklis");
}

TEST(Catalog, AKeyThePolicyDoesNotReadIsRefused) {
  const Topology t = make_topology("ring:8", 1);
  auto refused = [&](const std::string& algorithm, const std::string& key, const std::string& value) {
    try {
      make_policy({algorithm, {{key, value}}}, t);
    } catch (const InputError& e) {
      return e.key() == key;
    }
    return false;
  };
  EXPECT_TRUE(refused("fos", "ping_pong", "true"));
  EXPECT_TRUE(refused("naive", "leveling", "4"));
  EXPECT_TRUE(refused("ade", "lambda", "0.3"));  // fixed by the algorithm
  EXPECT_TRUE(refused("sos", "lambda", "0.3"));
  EXPECT_FALSE(refused("naive", "leveling", "1"));  // the default changes nothing
  EXPECT_FALSE(refused("best-effort", "leveling", "4"));
}

}  // namespace
}  // namespace nnlb
