// The policy catalog and the engine registry: every policy registers its names and keys, every
// engine what it provides and honours; scenario keys and refusals come from them.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <tuple>

#include "nnlb/catalog/registry.hpp"
#include "nnlb/engine/registry.hpp"
#include "nnlb/experiment/run.hpp"
#include "nnlb/experiment/scenario.hpp"
#include "nnlb/model/topology.hpp"
#include "nnlb/util/error.hpp"
#include "support.hpp"

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

namespace nnlb {
namespace {

using test::sample_value;

TEST(EngineRegistry, EveryEngineSpecificKeyIsHonouredOrRefusedByNameOnEveryEngine) {
  std::size_t refused = 0, honoured = 0;
  for (const EngineEntry& engine : engines())
    for (const KeyInfo& key : scenario_keys()) {
      if (!engine_specific(key.name)) continue;
      Scenario s;
      s.set_from_text("engine=" + engine.name, "test");
      s.set_from_text("topology=ring:4", "test");
      if (engine.name == "p2p") s.set_from_text("algorithm=dasud", "test");
      const std::string value = sample_value(key);
      s.set_from_text(key.name + "=" + value, "test");
      std::string line;
      try {
        prepare_run(s, 1);
      } catch (const InputError& e) {
        line = e.line();
      }
      const std::string refusal = "key '" + key.name + "': is not honoured by engine = \"" + engine.name + "\"";
      if (engine.honours_key(key.name)) {
        ++honoured;
        EXPECT_EQ(line.find("is not honoured"), std::string::npos) << engine.name << " " << key.name << "=" << value << ": " << line;
      } else {
        ++refused;
        EXPECT_NE(line.find(refusal), std::string::npos) << engine.name << " " << key.name << "=" << value << ": " << line;
      }
    }
  EXPECT_GT(refused, 50u);
  EXPECT_GT(honoured, 30u);
}

TEST(EngineRegistry, EachEngineStatesWhatItProvides) {
  // An engine cannot pass by declaring nothing: the capabilities the tests rely on, listed.
  const std::map<std::string, std::tuple<TimeModel, bool, bool>> expected = {
      {"sync", {TimeModel::rounds, false, false}},         {"rounds", {TimeModel::rounds, true, true}},
      {"des", {TimeModel::simulated_seconds, true, true}}, {"p2p", {TimeModel::time_units, false, true}},
      {"mpi", {TimeModel::wall_seconds, true, true}}};
  for (const auto& [name, traits] : expected) {
    const EngineEntry* found = find_engine(name);
    ASSERT_NE(found, nullptr) << name;
    const EngineEntry& e = *found;
    const auto& [time, programs, items] = traits;
    EXPECT_EQ(e.provides, programs ? program_capabilities : 0u) << e.name;
    EXPECT_EQ(e.time, time) << e.name;
    EXPECT_EQ(e.runs_programs, programs) << e.name;
    EXPECT_EQ(e.items, items) << e.name;
    EXPECT_EQ(static_cast<bool>(e.run), programs && e.name != "mpi") << e.name;  // mpi's runner comes with mpirun
    EXPECT_FALSE(e.summary.empty()) << e.name;
  }
}

}  // namespace
}  // namespace nnlb
