// Platforms: the presets of Jeannot & Vernier sec. 4.2 (LAN, DSL, the two-cluster mesh of Fig. 6),
// platform files with per-node speeds and per-link latency and bandwidth, and their refusals.
#include <gtest/gtest.h>

#include "nnlb/experiment/run.hpp"
#include "nnlb/experiment/scenario.hpp"
#include "nnlb/model/platform.hpp"
#include "nnlb/model/topology.hpp"
#include "nnlb/util/error.hpp"
#include "support.hpp"

namespace nnlb {
namespace {

using test::input_error;
using test::run_sets;
using test::write_temp;

Slot slot_of(const Graph& g, NodeId i, NodeId j) {
  for (Slot s = g.first_slot(i); s < g.end_slot(i); ++s)
    if (g.target(s) == j) return s;
  ADD_FAILURE() << "no edge " << i << "-" << j;
  return 0;
}

TEST(PlatformPreset, LanAndDslAreThePapersLinks) {
  const Topology t = make_topology("line:4", 1);
  const Platform lan = preset_platform("lan", t.graph), dsl = preset_platform("dsl", t.graph);
  EXPECT_EQ(lan.link_latency(0), 1.5e-4);
  EXPECT_EQ(lan.link_bandwidth(0), 1.25e7);  // 100 Mb/s in bytes/s
  EXPECT_EQ(dsl.link_latency(3), 0.04);
  EXPECT_EQ(dsl.link_bandwidth(3), 1.25e5);  // 1 Mb/s
}

TEST(PlatformPreset, TwoClusterMeshOfFig6) {
  const Topology t = make_topology("mesh:10x10", 1);
  const Graph& g = t.graph;
  const Platform p = preset_platform("two-cluster", g);
  for (NodeId i = 0; i < 100; ++i) EXPECT_EQ(p.node_speed(i), i < 50 ? 3e9 : 2e9) << i;
  EXPECT_EQ(p.link_latency(slot_of(g, 0, 1)), 1.5e-4);   // inside the first cluster
  EXPECT_EQ(p.link_latency(slot_of(g, 98, 99)), 1.5e-4);  // inside the second
  int backbone = 0;
  for (NodeId i = 0; i < 100; ++i)
    for (Slot s = g.first_slot(i); s < g.end_slot(i); ++s) {
      EXPECT_EQ(p.link_bandwidth(s), 1.25e8);
      backbone += p.link_latency(s) == 0.015;
    }
  EXPECT_EQ(backbone, 20);  // the ten links between rows 4 and 5, both directions
  EXPECT_EQ(p.link_latency(slot_of(g, 45, 55)), 0.015);
  EXPECT_EQ(p.link_latency(slot_of(g, 55, 45)), 0.015);
}

TEST(PlatformFile, LaterLinesOverrideEarlierOnesAndLinksAreSymmetric) {
  const Topology t = make_topology("ring:6", 1);
  const std::string path = write_temp("ring.txt",
                                      "# a ring of six\n"
                                      "speed * 1e9\n"
                                      "speed 0-2 3e9   # the first half is faster\n"
                                      "speed 5 2e9\n"
                                      "link 1e-3 1e6\n"
                                      "link 0 1,5 0.5 2e6\n");
  Platform p{{1e9}, {5e-5}, {1.25e8}};
  apply_platform_file(path, t.graph, p);
  const std::vector<double> speeds = {3e9, 3e9, 3e9, 1e9, 1e9, 2e9};
  for (NodeId i = 0; i < 6; ++i) EXPECT_EQ(p.node_speed(i), speeds[i]);
  const Graph& g = t.graph;
  EXPECT_EQ(p.link_latency(slot_of(g, 0, 1)), 0.5);
  EXPECT_EQ(p.link_latency(slot_of(g, 1, 0)), 0.5);
  EXPECT_EQ(p.link_latency(slot_of(g, 5, 0)), 0.5);
  EXPECT_EQ(p.link_bandwidth(slot_of(g, 0, 5)), 2e6);
  EXPECT_EQ(p.link_latency(slot_of(g, 2, 3)), 1e-3);
  EXPECT_EQ(p.link_bandwidth(slot_of(g, 3, 4)), 1e6);
}

TEST(PlatformFile, BadLinesNameTheFileAndLine) {
  const Topology t = make_topology("line:4", 1);
  auto apply = [&](const std::string& name, const std::string& text) {
    return input_error([&] {
      Platform p{{1e9}, {5e-5}, {1.25e8}};
      apply_platform_file(write_temp(name, text), t.graph, p);
    });
  };
  EXPECT_NE(apply("node.txt", "speed 1e9\nspeed 7 1e9\n").find("nnlb_test_node.txt:2"), std::string::npos);
  EXPECT_NE(apply("node2.txt", "speed 7 1e9\n").find("node 7 is not in the topology"), std::string::npos);
  EXPECT_NE(apply("nolink.txt", "link 0 3 1e-3 1e6\n").find("no link of the topology joins 0 and 3"), std::string::npos);
  EXPECT_NE(apply("zero.txt", "speed * 0\n").find("speed must be > 0"), std::string::npos);
  EXPECT_NE(apply("neg.txt", "link -1 1e6\n").find("latency must be >= 0"), std::string::npos);
  EXPECT_NE(apply("bw.txt", "link 0.1 0\n").find("bandwidth must be > 0"), std::string::npos);
  EXPECT_NE(apply("word.txt", "spede * 1\n").find("unknown line 'spede'"), std::string::npos);
  EXPECT_NE(apply("arity.txt", "link 0 1 0.1\n").find("expected 'link"), std::string::npos);
  EXPECT_NE(apply("nan.txt", "speed * nan\n").find(":1"), std::string::npos);
  EXPECT_NE(apply("range.txt", "speed 3-1 1e9\n").find("empty"), std::string::npos);
  EXPECT_NE(input_error([&] {
              Platform p{{1e9}, {5e-5}, {1.25e8}};
              apply_platform_file(::testing::TempDir() + "nnlb_no_such_platform", t.graph, p);
            }).find("not found"),
            std::string::npos);
}

TEST(PlatformScenario, PresetsRefuseTheKeysTheySet) {
  EXPECT_NE(input_error([] { run_sets({"platform.preset=lan", "platform.latency=0.1"}); }).find("platform.latency"), std::string::npos);
  EXPECT_NE(input_error([] { run_sets({"platform.preset=two-cluster", "platform.speed=2e9"}); }).find("platform.speed"),
            std::string::npos);
  EXPECT_NE(input_error([] { run_sets({"platform.preset=wan"}); }).find("platform.preset"), std::string::npos);
  // Speeds still come from platform.speed on LAN and DSL.
  EXPECT_NO_THROW(run_sets({"platform.preset=dsl", "platform.speed=uniform:1e9,2e9", "stop.steps=2"}));
}

TEST(PlatformScenario, TheDesEngineUsesEachLinksLatency) {
  // Two nodes, 100 balancing steps of the iterative application: each step waits for a report
  // and a transfer over the one link, so a 0.1 s link adds about 2 x 100 x 0.1 s.
  const std::vector<std::string> base = {"engine=des", "agent=iterative", "algorithm=mr", "mr.self=true", "topology=line:2",
                                         "load.mode=integer", "load.init=single:0,100", "app.iterations=100"};
  auto finished = [&](const std::string& file) {
    std::vector<std::string> sets = base;
    if (!file.empty()) sets.push_back("platform.file=" + file);
    const RunRecord r = run_sets(sets);
    EXPECT_TRUE(r.result.summary.finished_at);
    return r.result.summary.finished_at.value_or(0);
  };
  const double fast = finished(""), slow = finished(write_temp("slow.txt", "link 0 1 0.1 1.25e8\n"));
  EXPECT_NEAR(slow - fast, 2 * 100 * 0.1, 1.0);
}

}  // namespace
}  // namespace nnlb
