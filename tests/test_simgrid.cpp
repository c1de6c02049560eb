// engine = "simgrid" (issue 28): the node programs des runs, on SimGrid, through the same engine
// core: convergence and conservation, agreement with des on the logical platform, one simulation
// per process, faults caught by the recount.
// Skipped with a message where nnlb was built without SimGrid.
#include <gtest/gtest.h>

#include <array>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <set>

#include "nnlb/catalog/registry.hpp"
#include "nnlb/engine/registry.hpp"
#include "nnlb/model/load.hpp"
#include "nnlb/programs/async_balancer.hpp"
#ifdef NNLB_HAVE_SIMGRID
#include "nnlb/simgrid/platform_file.hpp"
#include "nnlb/simgrid/simgrid_engine.hpp"
#endif
#include "support.hpp"

namespace nnlb {
namespace {

#ifdef NNLB_HAVE_SIMGRID
// The CLI attaches the runner in main(); this program does it before any test runs, so the
// conformance tests run simgrid too.
const bool attached = (attach_engine("simgrid", simgrid_engine_plugin()), true);
#endif

#define REQUIRE_SIMGRID()                                                                      \
  if (!find_engine("simgrid")->run)                                                           \
  GTEST_SKIP() << "nnlb was built without SimGrid (libsimgrid-dev): the simgrid tests do not run"

TEST(Simgrid, WithoutSimGridTheEngineIsNamedUnavailable) {
  const EngineEntry* e = find_engine("simgrid");
  ASSERT_NE(e, nullptr);
  if (e->run) GTEST_SKIP() << "built with SimGrid";
  EXPECT_TRUE(test::refused({"engine=simgrid", "topology=line:4"}, "engine = \"simgrid\" is not available"));
}

TEST(Simgrid, EachPolicyConvergesAndConservesOnEachTopology) {
  REQUIRE_SIMGRID();
  const std::array topologies = {"line:8", "torus:4x4", "hypercube:4"};
  const std::array algorithms = {"best-effort", "bertsekas-tsitsiklis", "fos"};
  for (std::size_t t = 0; t < topologies.size(); ++t)
    for (std::size_t a = 0; a < algorithms.size(); ++a) {
      if (!test::runs_case(t + a)) continue;  // a sample: each topology and each algorithm once
      const char *topology = topologies[t], *algorithm = algorithms[a];
      SCOPED_TRACE(std::string(topology) + " " + algorithm);
      const RunRecord r = test::run_sets({"engine=simgrid", std::string("topology=") + topology, std::string("algorithm=") + algorithm,
                                          "load.init=uniform:0,2000", "stop.time=100"});
      const RunSummary& s = r.result.summary;
      EXPECT_EQ(s.stop_reason, StopReason::balanced);
      EXPECT_TRUE(s.balanced);
      EXPECT_NEAR(s.final_total, s.initial_total, 1e-9 * s.initial_total);
      EXPECT_LE(s.max_conservation_error, 1e-12);
      EXPECT_GT(s.timing->data_messages, 0u);
      EXPECT_EQ(r.result.engine_info.at("network/model"), "CM02");
      EXPECT_EQ(r.result.engine_info.at("simgrid_version").substr(0, 5), "3.32.");
    }
}

// The asynchronous balancers of Couturier et al. on des and on simgrid's logical platform
// (scenarios/presets/des-1-1.toml's platform and periods), from one node or at random.
struct CrossCheck {
  const char* topology;
  const char* algorithm;
  const char* init;
  TimeMetrics des, serial, sharing;
};

std::vector<CrossCheck> cross_check() {
  std::vector<CrossCheck> out;
  const std::array topologies = {"line:16", "torus:4x4", "hypercube:5"};
  const std::array algorithms = {"best-effort", "bertsekas-tsitsiklis", "fos"};
  for (std::size_t t = 0; t < topologies.size(); ++t)
    for (std::size_t a = 0; a < algorithms.size(); ++a)
      for (const char* init : {"single:0,1000*N", "random-total:1000*N"}) {
        if (!test::runs_case(t + a)) continue;  // a sample: each topology and each algorithm once
        const char *topology = topologies[t], *algorithm = algorithms[a];
        CrossCheck c{topology, algorithm, init, {}, {}, {}};
        const std::vector<std::string> sets = {std::string("topology=") + topology, std::string("algorithm=") + algorithm,
                                               std::string("load.init=") + init, "platform.latency=5e-5", "platform.bandwidth=1.25e8",
                                               "async.comp_comm_ratio=1", "async.lb_period=0.01", "async.comp_min_period=0.01",
                                               "output.series_every=0"};
        auto timing = [&](std::vector<std::string> engine) {
          engine.insert(engine.end(), sets.begin(), sets.end());
          const RunRecord r = test::run_sets(engine);
          EXPECT_EQ(r.result.summary.stop_reason, StopReason::balanced) << engine[0];
          return *r.result.summary.timing;
        };
        c.des = timing({"engine=des"});
        c.serial = timing({"engine=simgrid"});
        c.sharing = timing({"engine=simgrid", "simgrid.network=sharing"});
        out.push_back(c);
      }
  return out;
}

double relative(double a, double b) { return std::abs(a - b) / b; }

TEST(Simgrid, AgreesWithDesOnTheLogicalPlatform) {
  REQUIRE_SIMGRID();
  // Serial links are des's links: the same convergence times to 1e-6 relative (measured: 1e-11).
  // Bandwidth sharing moves data arrivals by microseconds, which can cross a balancing tick:
  // within 5 % here (docs/simgrid.md).
  int differ = 0;
  for (const CrossCheck& c : cross_check()) {
    SCOPED_TRACE(std::string(c.topology) + " " + c.algorithm + " " + c.init);
    EXPECT_LE(relative(c.serial.avg_convergence_time, c.des.avg_convergence_time), 1e-6);
    EXPECT_LE(relative(c.serial.max_convergence_time, c.des.max_convergence_time), 1e-6);
    EXPECT_LE(relative(c.sharing.avg_convergence_time, c.des.avg_convergence_time), 0.05);
    EXPECT_LE(relative(c.sharing.max_convergence_time, c.des.max_convergence_time), 0.05);
    differ += c.sharing.avg_convergence_time != c.des.avg_convergence_time;
  }
  EXPECT_GT(differ, 0);  // sharing is another model, not the same one under another name
}

TEST(Simgrid, TwoRunsInARowBothStartAtZeroAndAgree) {
  REQUIRE_SIMGRID();
  // A second s4u::Engine in one process would carry on from the first one's clock.
  const std::vector<std::string> sets = {"engine=simgrid", "topology=torus:4x4", "algorithm=best-effort", "load.init=single:0,1600"};
  const RunRecord a = test::run_sets(sets), b = test::run_sets(sets);
  for (const RunRecord* r : {&a, &b}) {
    ASSERT_FALSE(r->result.series.empty());
    EXPECT_EQ(r->result.series.front().time, 0.0);
  }
  EXPECT_EQ(a.result.summary.timing->time, b.result.summary.timing->time);
  EXPECT_EQ(a.result.summary.timing->max_convergence_time, b.result.summary.timing->max_convergence_time);
  EXPECT_EQ(a.result.series.size(), b.result.series.size());
}

TEST(Simgrid, LostDuplicatedAndAlteredMessagesAreCaughtByTheRecount) {
  REQUIRE_SIMGRID();
  const Topology t = make_topology("torus:4x4", 1);
  PolicySpec spec;
  spec.algorithm = "best-effort";
  const BuiltPolicy built = make_policy(spec, t);
  const AsyncBalancer program(*built.policy, {});
  const InitialState init{make_initial_load("random-total:16000", 16, LoadMode::real, 3), {}};
  const Platform platform{{1e9}, {5e-5}, {1.25e8}};
  for (int fault = 0; fault < 4; ++fault) {
    SCOPED_TRACE(fault);
    EngineRun r{t, program, LoadMode::real, init, platform};
    r.time_limit = 1;
    if (fault < 3) (fault == 0 ? r.faults.drop_every : fault == 1 ? r.faults.duplicate_every : r.faults.corrupt_every) = 7;
    if (fault < 3) EXPECT_THROW(find_engine("simgrid")->run(r), ConservationError);
    else EXPECT_NO_THROW(find_engine("simgrid")->run(r));
  }
}

const std::string platforms = std::string(NNLB_SOURCE_DIR) + "/platforms/";
const std::string data = std::string(NNLB_TEST_DATA) + "/simgrid/";

// A SimGrid platform file read as a run reads it (the reader attached above).
Platform read_platform(const PlatformFile& file, const Graph& g) { return (*platform_reader("simgrid"))(file, g); }

TEST(Simgrid, PlatformFilesGiveEachNodeItsHostSpeedAndRoutes) {
  REQUIRE_SIMGRID();
  // Jeannot & Vernier's Fig. 6: the 10 x 10 mesh in order, its first five rows on the fast cluster.
  const Topology mesh = make_topology("mesh:10x10", 1);
  const Platform p = read_platform({platforms + "jeannot-fig6.xml"}, mesh.graph);
  ASSERT_EQ(p.hosts.size(), 100u);
  EXPECT_EQ(p.hosts[0], "fast-0");
  EXPECT_EQ(p.hosts[10], "fast-10");  // numbers compare as numbers
  EXPECT_EQ(p.hosts[50], "slow-0");
  EXPECT_EQ(p.speed[49], 3e9);
  EXPECT_EQ(p.speed[50], 2e9);
  const Graph& g = mesh.graph;
  for (Slot s = g.first_slot(45); s < g.end_slot(45); ++s) {
    const bool across = g.target(s) >= 50;  // node 45's neighbour below it is on the slow cluster
    EXPECT_NEAR(p.latency[s], across ? 15.15e-3 : 0.15e-3, 1e-12) << g.target(s);
    EXPECT_EQ(p.bandwidth[s], 1.25e8);
  }
  // The grid's 1024 hosts in order fill site a first; at random they spread over the sites.
  const Topology line = make_topology("line:300", 1);
  const Platform grid = read_platform({platforms + "grid.xml"}, line.graph);
  EXPECT_EQ(grid.hosts[255], "a-255");
  EXPECT_EQ(grid.hosts[256], "b-0");
  const Platform spread = read_platform({platforms + "grid.xml", "random", 7}, line.graph);
  std::set<char> sites;
  for (const std::string& h : spread.hosts) sites.insert(h[0]);
  EXPECT_EQ(sites.size(), 4u);
  EXPECT_EQ(std::set<std::string>(spread.hosts.begin(), spread.hosts.end()).size(), 300u);  // each host once
  const Platform mapped = read_platform({platforms + "cluster.xml", "file:reversed.txt", 1, data}, make_topology("line:4", 1).graph);
  EXPECT_EQ(mapped.hosts, (std::vector<std::string>{"host-7", "host-5", "host-3", "host-1"}));
}

TEST(Simgrid, ShippedPlatformsRunWithTheirContention) {
  REQUIRE_SIMGRID();
  // The same balancing on the cluster (every message over the shared backbone, 600 us) takes
  // longer than on the logical platform (50 us links), and the record names the file.
  const std::vector<std::string> sets = {"engine=simgrid", "topology=torus:4x4", "algorithm=best-effort", "load.init=single:0,16000"};
  const RunRecord logical = test::run_sets(sets);
  std::vector<std::string> on_cluster = sets;
  on_cluster.push_back("platform.file=" + platforms + "cluster.xml");
  const RunRecord cluster = test::run_sets(on_cluster);
  EXPECT_EQ(cluster.result.summary.stop_reason, StopReason::balanced);
  EXPECT_GT(cluster.result.summary.timing->max_convergence_time, logical.result.summary.timing->max_convergence_time);
  EXPECT_EQ(cluster.result.engine_info.at("platform"), platforms + "cluster.xml");
  EXPECT_EQ(logical.result.engine_info.at("platform"), "logical");
}

TEST(Simgrid, BadPlatformsAndMappingsAreOneLineAndExitTwo) {
  REQUIRE_SIMGRID();
  struct Bad {
    std::string sets, expect;
  };
  const std::vector<Bad> cases = {
      {"--set platform.file=" + data + "malformed.xml", "key 'platform.file': " + data + "malformed.xml: not a SimGrid platform: Parse error"},
      {"--set platform.file=" + data + "two-hosts.xml", "two-hosts.xml has 2 hosts, fewer than the 4 nodes of the topology"},
      {"--set platform.file=" + platforms + "cluster.xml --set simgrid.mapping=file:" + data + "missing-host.txt",
       "missing-host.txt:4: key 'simgrid.mapping': host 'no-such-host' is not in"},
      {"--set platform.file=" + data + "no-such.xml", "no-such.xml: key 'platform.file': platform file not found"},
      {"--set engine=des --set platform.file=" + platforms + "cluster.xml", "key 'platform.file': a SimGrid platform (.xml) is read by engine = simgrid"},
  };
  for (const Bad& c : cases) {
    const std::string cmd = std::string(NNLB_BINARY) + " run --set engine=simgrid --set topology=line:4 " + c.sets + " 2>&1 >/dev/null";
    const test::Outcome o = test::shell(cmd);
    EXPECT_EQ(o.status, 2) << c.sets;
    EXPECT_NE(o.out.find(c.expect), std::string::npos) << c.sets << "\n  stderr: " << o.out;
    EXPECT_EQ(std::count(o.out.begin(), o.out.end(), '\n'), 1) << c.sets << "\n  stderr: " << o.out;
  }
}

// Issue 39, reproducers 1-4 and 7: values SimGrid loads but cannot simulate (it aborted, or ran
// on negative times), a missing route in a Floyd zone, an include cycle, zones nested too deep and
// a mapping that is not a file are one line naming the file and the cause, or simgrid.mapping.
TEST(Simgrid, PlatformValuesSimGridCannotSimulateAreRefusedByName) {
  REQUIRE_SIMGRID();
  const std::string dir = ::testing::TempDir() + "nnlb-bad-platforms/";
  std::filesystem::create_directories(dir);
  auto cluster = [&](const std::string& name, const std::string& speed, const std::string& bw, const std::string& lat) {
    std::ofstream(dir + name) << "<?xml version='1.0'?>\n<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n"
                                 "<platform version=\"4.1\">\n<cluster id=\"c\" prefix=\"h-\" radical=\"0-15\" suffix=\"\" speed=\""
                              << speed << "\" bw=\"" << bw << "\" lat=\"" << lat << "\"/>\n</platform>\n";
    return dir + name;
  };
  auto write = [&](const std::string& name, const std::string& body) {
    std::ofstream(dir + name) << "<?xml version='1.0'?>\n<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n"
                                 "<platform version=\"4.1\">\n"
                              << body << "</platform>\n";
    return dir + name;
  };
  std::string deep;
  for (int i = 0; i < 300; ++i) deep += "<zone id=\"z" + std::to_string(i) + "\" routing=\"Full\">\n";
  deep += "<host id=\"h0\" speed=\"1Gf\"/>\n";
  for (int i = 0; i < 300; ++i) deep += "</zone>\n";
  struct Bad {
    std::string sets, expect;
  };
  const std::vector<Bad> cases = {
      {"platform.file=" + write("floyd.xml", "<zone id=\"z\" routing=\"Floyd\">\n<host id=\"h0\" speed=\"1Gf\"/><host id=\"h1\" speed=\"1Gf\"/>"
                                             "<host id=\"h2\" speed=\"1Gf\"/><host id=\"h3\" speed=\"1Gf\"/>\n"
                                             "<link id=\"l01\" bandwidth=\"125MBps\" latency=\"50us\"/>\n"
                                             "<route src=\"h0\" dst=\"h1\"><link_ctn id=\"l01\"/></route>\n</zone>\n"),
       "floyd.xml has no route from h0 to h3 (nodes 0 and 3)"},
      {"platform.file=" + write("self.xml", "<include file=\"self.xml\"/>\n"), "self.xml, which is already being included (a cycle)"},
      // found by the simgrid-platform fuzz kind: SimGrid's parser throws std:: errors too
      {"platform.file=" + write("no-link.xml", "<zone id=\"z\" routing=\"Full\">\n<host id=\"h0\" speed=\"1Gf\"/><host id=\"h1\" speed=\"1Gf\"/>\n"
                                               "<route src=\"h0\" dst=\"h1\"><link_ctn id=\"nowhere\"/></route>\n</zone>\n"),
       "no-link.xml: SimGrid cannot read it: Link not found: nowhere"},
      {"platform.file=" + write("deep.xml", deep), "deep.xml: zones nested deeper than 256"},
      {"platform.file=" + cluster("bw0.xml", "1Gf", "0Bps", "50us"), "bw0.xml: link 'c_link_0_DOWN' has bandwidth 0 ("},
      {"platform.file=" + cluster("bwinf.xml", "1Gf", "infBps", "50us"), "has bandwidth inf ("},
      {"platform.file=" + cluster("speed-neg.xml", "-1Gf", "125MBps", "50us"), "host 'h-0' has speed -1e+09 ("},
      {"platform.file=" + cluster("speed0.xml", "0f", "125MBps", "50us"), "host 'h-0' has speed 0 ("},
      {"platform.file=" + cluster("speed-nan.xml", "nanf", "125MBps", "50us"), "host 'h-0' has speed nan ("},
      {"platform.file=" + cluster("lat-neg.xml", "1Gf", "125MBps", "-50us"), "has latency -5e-05 ("},
      {"platform.file=" + cluster("ok.xml", "1Gf", "125MBps", "50us") + " --set simgrid.mapping=file:" + dir, "key 'simgrid.mapping': mapping file is not a regular file"},
      {"platform.file=" + dir + "ok.xml --set simgrid.mapping=file:" + dir + "none.txt", "key 'simgrid.mapping': mapping file not found"},
  };
  for (const Bad& c : cases) {
    const test::Outcome o = test::shell(std::string(NNLB_BINARY) + " run --set engine=simgrid --set topology=ring:4 --set stop.time=5 --set " +
                                        c.sets + " 2>&1 >/dev/null");
    EXPECT_EQ(o.status, 2) << c.sets;
    EXPECT_NE(o.out.find(c.expect), std::string::npos) << c.sets << "\n  stderr: " << o.out;
    EXPECT_EQ(std::count(o.out.begin(), o.out.end(), '\n'), 1) << c.sets << "\n  stderr: " << o.out;
  }
  std::filesystem::remove_all(dir);
}

// Issue 39, reproducer 17: a relative platform.file given with --set is read from the current
// folder, also beside a scenario file in another folder.
TEST(Simgrid, APlatformFileOnTheCommandLineIsRelativeToTheCurrentFolder) {
  REQUIRE_SIMGRID();
  const std::string dir = ::testing::TempDir() + "nnlb-scenario-elsewhere/";
  std::filesystem::create_directories(dir);
  std::ofstream(dir + "s.toml") << "topology = \"ring:4\"\nengine = \"simgrid\"\n\"stop.time\" = 5\n";
  const test::Outcome o = test::shell("cd " + std::string(NNLB_SOURCE_DIR) + " && " + NNLB_BINARY + " run " + dir +
                                      "s.toml --set platform.file=platforms/cluster.xml --format json 2>&1");
  EXPECT_EQ(o.status, 0) << o.out;
  EXPECT_NE(o.out.find(platforms + "cluster.xml"), std::string::npos) << o.out;
  std::filesystem::remove_all(dir);
}

// Issue 39, reproducer 6: the logical platform's zone routes every pair of hosts (8 bytes a
// pair), so the estimate grows as N^2 there (ring:8000 peaks at 676 MB: 678 MiB estimated).
TEST(Simgrid, TheEstimateCountsTheLogicalPlatformsRoutingTable) {
  REQUIRE_SIMGRID();
  const test::Outcome o = test::shell(std::string(NNLB_BINARY) +
                                      " run --set engine=simgrid --set topology=ring:8000 --max-memory 100M 2>&1 >/dev/null");
  EXPECT_EQ(o.status, 2);
  EXPECT_NE(o.out.find("routing 488 MiB"), std::string::npos) << o.out;
  const test::Outcome on_file = test::shell(std::string(NNLB_BINARY) + " run --set engine=simgrid --set topology=ring:8 --set platform.file=" +
                                            platforms + "cluster.xml --max-memory 1K 2>&1 >/dev/null");
  EXPECT_EQ(on_file.status, 2);
  EXPECT_EQ(on_file.out.find("routing"), std::string::npos) << on_file.out;
}

// Issue 39, reproducer 6: SimGrid loads every host of a platform file, whatever the run uses; a
// cluster of 10^6 hosts (radical "0-999999") with ring:4 peaked at 2.92 GB and ran 96 s with a
// 348 KiB estimate. The estimate counts the hosts the file and its includes declare.
TEST(Simgrid, TheEstimateCountsAPlatformFilesHosts) {
  REQUIRE_SIMGRID();
  EXPECT_EQ(simgrid_platform_hosts(platforms + "cluster.xml"), 1024);
  const std::string cluster = R"(<?xml version="1.0"?><!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">
<platform version="4.1"><zone id="z" routing="Full">
<cluster id="c" prefix="h-" radical="0-999999" suffix="" speed="1Gf" bw="125MBps" lat="50us"/>
<cluster id="d" prefix="g-" radical="0-9,20,30-39" suffix="" speed="1Gf" bw="125MBps" lat="50us"/>
<host id="x" speed="1Gf"/><host_link id="y" up="u" down="d"/></zone></platform>)";
  const std::string path = test::write_temp("million.xml", cluster);
  EXPECT_EQ(simgrid_platform_hosts(path), 1'000'000 + 21 + 1);
  EXPECT_EQ(simgrid_platform_hosts(path + ".missing"), 0);
  const test::Outcome o = test::shell(std::string(NNLB_BINARY) + " run --set engine=simgrid --set topology=ring:4 --set platform.file=" + path +
                                      " --max-memory 2G 2>&1 >/dev/null");
  EXPECT_EQ(o.status, 2);
  EXPECT_NE(o.out.find("key 'platform.file'"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("platform hosts 2.7 GiB"), std::string::npos) << o.out;
}

// Issue 39, reproducer 5: a latency of 1 s against a 1 ms balancing period ran for minutes with no
// output. The engine asked every put under way whether it was over at each wake of its node
// (work in proportion to latency / period, at each of them); now only those past their route's
// latency. A run at 1 s that keeps 102 messages a node on their way (a 20 ms period): the same
// record as des, each put asked at most twice on average, a wake per handler or message.
TEST(Simgrid, ALongLatencyCostsBoundedWorkPerMessage) {
  REQUIRE_SIMGRID();
  const std::vector<std::string> sets = {"topology=ring:6", "platform.latency=1", "async.lb_period=0.02", "algorithm=best-effort"};
  auto with = [&](const char* engine) {
    std::vector<std::string> all = sets;
    all.emplace_back(engine);
    return test::run_sets(all);
  };
  const RunRecord des = with("engine=des"), sg = with("engine=simgrid");
  const TimeMetrics& d = *des.result.summary.timing;
  const TimeMetrics& g = *sg.result.summary.timing;
  EXPECT_EQ(sg.result.summary.stop_reason, StopReason::balanced);
  EXPECT_EQ(g.time, d.time);
  EXPECT_EQ(g.events, d.events);
  EXPECT_EQ(g.control_messages + g.data_messages, d.control_messages + d.data_messages);
  const auto info = [&](const char* key) { return std::stod(sg.result.engine_info.at(key)); };
  const auto messages = static_cast<double>(g.control_messages + g.data_messages);
  EXPECT_LE(info("comms"), messages);  // messages queued on a serial link at the stop were never put
  EXPECT_LE(info("comm_checks"), 2 * messages);  // asking every put at every wake: about 100 times each
  EXPECT_LE(info("wakes"), static_cast<double>(g.events) + messages);
}

// The rest of SimGrid 3.32's cost per message grows with the messages its sender and receiver
// keep on their way (a list per actor): a run keeping more than 128 a node is refused before it
// starts, naming the key or the platform file (the issue's 1 s latency: 4004 a node).
TEST(Simgrid, MoreMessagesOnTheirWayThanSimGridTakesAreRefusedByName) {
  REQUIRE_SIMGRID();
  const test::Outcome key = test::shell(std::string(NNLB_BINARY) +
                                        " run --set engine=simgrid --set platform.latency=1 --set algorithm=best-effort 2>&1 >/dev/null");
  EXPECT_EQ(key.status, 2);
  EXPECT_NE(key.out.find("key 'platform.latency': 1 s is 1000 periods of async.lb_period (0.001 s): a node of degree 4 keeps about 4004"),
            std::string::npos)
      << key.out;
  EXPECT_EQ(std::count(key.out.begin(), key.out.end(), '\n'), 1) << key.out;
  const std::string file = ::testing::TempDir() + "nnlb-cluster-1s.xml";
  std::ofstream(file) << "<?xml version='1.0'?>\n<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n<platform version=\"4.1\">\n"
                         "<cluster id=\"c\" prefix=\"h-\" radical=\"0-15\" suffix=\"\" speed=\"1Gf\" bw=\"125MBps\" lat=\"1s\"/>\n</platform>\n";
  EXPECT_TRUE(test::refused({"engine=simgrid", "topology=ring:4", "stop.time=5", "platform.file=" + file},
                            "key 'platform.file': the longest route's latency, 2 s,"));
  // A longer period keeps fewer on their way: the same platform runs (to its stop.time).
  EXPECT_EQ(test::run_sets({"engine=simgrid", "topology=ring:4", "stop.time=5", "platform.file=" + file, "async.lb_period=0.1"})
                .result.summary.stop_reason,
            StopReason::time);
  std::filesystem::remove(file);
}

}  // namespace
}  // namespace nnlb
