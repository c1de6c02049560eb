// The nnlb command: golden output, the result record, and bad input (one line naming the file and
// key, exit status 2, no output file).
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <sys/wait.h>

#include <nlohmann/json.hpp>
#include "support.hpp"

namespace {

namespace fs = std::filesystem;

struct Outcome {
  int status = -1;
  std::string out, err;
};

Outcome nnlb(const std::string& args) {
  const fs::path err = fs::temp_directory_path() / ("nnlb-cli-err-" + std::to_string(::getpid()));
  const std::string cmd = std::string(NNLB_BINARY) + " " + args + " 2>" + err.string();
  Outcome o;
  FILE* pipe = ::popen(cmd.c_str(), "r");
  std::array<char, 4096> buf{};
  std::size_t n = 0;
  while ((n = std::fread(buf.data(), 1, buf.size(), pipe)) > 0) o.out.append(buf.data(), n);
  const int raw = ::pclose(pipe);
  o.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
  o.err = nnlb::test::slurp(err);
  fs::remove(err);
  return o;
}

const std::string data = NNLB_TEST_DATA;

TEST(Cli, GoldenIntegerSeriesOnALine) {
  // Hand-checked: alpha = 1/3 on a line of 4; {400,0,0,0} -> {267,133,0,0} -> {223,133,44,0}.
  const auto o = nnlb("run --set topology=line:4 --set load.init=single:0,400 --set stop.steps=3 --set load.mode=integer --format csv");
  ASSERT_EQ(o.status, 0) << o.err;
  EXPECT_EQ(o.out, nnlb::test::slurp(data + "/golden/line4-integer.csv"));
}

TEST(Cli, SetAloneRunsOnDefaultsAndRecordHasTheSchema) {
  const auto o = nnlb("run --set stop.imbalance=1 --format json");
  ASSERT_EQ(o.status, 0) << o.err;
  const auto j = nlohmann::json::parse(o.out);
  for (const char* k : {"nnlb_version", "seed", "scenario", "topology", "parameters", "summary", "series"}) EXPECT_TRUE(j.contains(k)) << k;
  for (const char* k : {"steps_to_balance", "final_imbalance", "load_moved"}) EXPECT_TRUE(j["summary"].contains(k)) << k;
  EXPECT_EQ(j["scenario"]["topology"], "torus:8x8");
  EXPECT_EQ(j["scenario"]["stop.imbalance"], 1.0);
  EXPECT_LE(j["summary"]["final_imbalance"].get<double>(), 1.0);
  EXPECT_EQ(j["series"]["round"].size(), j["series"]["imbalance"].size());
}

TEST(Cli, RepeatGivesRunsWithConsecutiveSeedsAndAggregate) {
  const auto o = nnlb("run --set topology=mesh:4x4 --set stop.imbalance=1 --repeat 3 --seed 10 --format json");
  ASSERT_EQ(o.status, 0) << o.err;
  const auto j = nlohmann::json::parse(o.out);
  ASSERT_EQ(j["runs"].size(), 3u);
  EXPECT_EQ(j["runs"][2]["seed"], 12);
  EXPECT_EQ(j["aggregate"]["runs"], 3);
  EXPECT_NE(j["runs"][0]["summary"]["initial_imbalance"], j["runs"][1]["summary"]["initial_imbalance"]);
}

TEST(Cli, SameSeedSameRecord) {
  const std::string args = "run --set topology=random-regular:200,3 --set algorithm=ade --set stop.steps=50 --format json --seed 4";
  const auto a = nnlb(args), b = nnlb(args + " --threads 1");
  ASSERT_EQ(a.status, 0) << a.err;
  EXPECT_EQ(a.out, b.out);
}

TEST(Cli, OutWritesTheFileAndPrintsTheTable) {
  const fs::path out = fs::temp_directory_path() / "nnlb-cli-out.json";
  fs::remove(out);
  const auto o = nnlb("run --set topology=ring:8 --set stop.steps=5 --out " + out.string());
  ASSERT_EQ(o.status, 0) << o.err;
  EXPECT_NE(o.out.find("stopped by steps"), std::string::npos);
  EXPECT_EQ(nlohmann::json::parse(nnlb::test::slurp(out))["summary"]["steps"], 5);
  fs::remove(out);
}

// The table prints every k-th sample; its "moved" column adds up what moved since the row before,
// so the column sums to the load moved over the run. The header names what the program reads.
TEST(Cli, TableMovedColumnCoversTheRowsItSkipsAndTheHeaderNamesTheProgram) {
  const fs::path out = fs::temp_directory_path() / "nnlb-cli-table.json";
  const auto o = nnlb("run --set engine=des --set topology=torus:8x8 --set algorithm=best-effort --set load.init=single:0,64000 --out " + out.string());
  ASSERT_EQ(o.status, 0) << o.err;
  std::istringstream lines(o.out);
  double column = 0;
  std::size_t rows = 0;
  bool header = false;
  for (std::string line; std::getline(lines, line);) {
    if (line.find("sample") != std::string::npos && line.find("moved") != std::string::npos) header = true;
    std::istringstream cells(line);
    double v[7];
    if (!header || !(cells >> v[0] >> v[1] >> v[2] >> v[3] >> v[4] >> v[5] >> v[6])) continue;
    column += v[6], ++rows;
  }
  const nlohmann::json r = nlohmann::json::parse(nnlb::test::slurp(out));
  ASSERT_LT(rows, r["series"]["round"].size()) << "the table should skip samples";
  EXPECT_NEAR(column, r["summary"]["load_moved"].get<double>(), 1e-5 * r["summary"]["load_moved"].get<double>());
  EXPECT_NE(o.out.find("asynchronous balancer, balancing every 0.001 s"), std::string::npos) << o.out.substr(0, 300);
  const auto app = nnlb("run --set engine=des --set topology=line:4 --set agent=iterative --set algorithm=mr --set app.iterations=3");
  ASSERT_EQ(app.status, 0) << app.err;
  EXPECT_NE(app.out.find("iterative application"), std::string::npos);
  EXPECT_EQ(app.out.find("balancing every"), std::string::npos) << app.out.substr(0, 300);
  fs::remove(out);
}

// A replay's sweep table gives the steps to balance of the recorded run and of each replay (the
// 5 / 9 / 9 of docs/mpi.md), not the null steps_to_balance of a timed run.
TEST(Cli, ReplaySweepTableGivesTheStepsToBalance) {
  const fs::path store = fs::temp_directory_path() / ("nnlb-cli-replay-" + std::to_string(::getpid()) + ".jsonl");
  fs::remove(store);
  const auto o = nnlb("sweep " + std::string(NNLB_SOURCE_DIR) + "/scenarios/examples/replay-stencil.toml -q --out-dir " + fs::temp_directory_path().string() + " --store " + store.string());
  ASSERT_EQ(o.status, 0) << o.err;
  EXPECT_NE(o.out.find("trace_balanced_step replay_balanced_step"), std::string::npos) << o.out;
  std::istringstream lines(o.out);
  std::map<std::string, std::pair<double, double>> steps;
  for (std::string line; std::getline(lines, line);) {
    std::istringstream cells(line);
    std::string point;
    double runs = 0, balanced = 0, trace = 0, replay = 0;
    if (cells >> point >> runs >> balanced >> trace >> replay) steps[point] = {trace, replay};
  }
  EXPECT_EQ(steps["algorithm=best-effort"], std::make_pair(5.0, 5.0));
  EXPECT_EQ(steps["algorithm=fos"], std::make_pair(5.0, 9.0));
  fs::remove(store);
  fs::remove(fs::temp_directory_path() / "replay-stencil-steps-to-balance.png");
}

struct BadCase {
  std::string args;
  std::string expect;  // must appear in the one error line
};

TEST(Cli, BadInputIsOneLineExitTwoAndNoOutputFile) {
  const std::vector<BadCase> cases = {
      {"run --set alpah=0.3", "--set alpah: key 'alpah': unknown key (did you mean 'alpha'?)"},
      {"run --set alpha=1.5", "key 'alpha': must be in (0, 1)"},
      {"run --set alpha=-0.2", "key 'alpha'"},
      {"run --set algorithm=magic", "key 'algorithm': unknown algorithm 'magic'"},
      {"run --set topology=complete:5 --set algorithm=odf", "key 'alpha': 'odf' is defined only on meshes, tori and hypercubes"},
      {"run --set topology=p2p:30 --set algorithm=ode", "key 'lambda': 'ode' is defined only on meshes"},
      {"run --set algorithm=ade --set lambda=0.3", "key 'lambda': is fixed by algorithm 'ade'"},
      {"run --set algorithm=fos --set ping_pong=true", "key 'ping_pong': does not apply to algorithm 'fos'"},
      {"run --set threshold.low=100", "key 'threshold.low': applies only with invocation = \"threshold\""},
      {"run --set workload.consumption=5", "key 'workload.consumption': applies only with workload.kind"},
      {"run --set de.sweep_cost=one", "key 'de.sweep_cost': applies only to dimension exchange"},
      {"run --set engine=des --set async.lb_period=1e-300", "key 'async.lb_period': 1e-300 s gives"},
      {"run --set engine=des --set output.sample_period=1e-12", "key 'output.sample_period'"},
      {"run --set engine=des --set async.comp_comm_ratio=10 --set async.flops_per_unit=3", "key 'async.comp_comm_ratio'"},
      {"run --set engine=sync --set agent=async", "key 'engine': engine = \"sync\" does not run the async program"},
      {"run --set topology=torus:1000x1000 --set output.load_history=1 --set stop.steps=10000",
       "key 'output.load_history': needs about "},
      // 1e11 rows when the series is unbounded (bounded by default: issue 39, reproducer 15).
      {"run --set stop.steps=100000000000 --set output.series_max_rows=0", "key 'output.series_every': needs about "},
      {"run --set engine=des --set algorithm=sos", "run it with agent = \"rounds\""},
      {"run --set port=two", "key 'port': 'two' is not one of: all, one"},
      {"run --set stop.steps=-4", "key 'stop.steps': expected a non-negative integer"},
      {"run --set load.init=uniform:5", "key 'load.init'"},
      {"run --set load.mode=integer --set load.init=uniform:0.5,3", "key 'load.init'"},
      {"run --set topology=mesh:1x4", "key 'topology': topology 'mesh:1x4': every dimension needs at least 2 nodes"},
      {"run --set topology=file:/nonexistent/graph.txt", "/nonexistent/graph.txt: key 'topology': graph file not found"},
      {"run --set invocation=threshold --set threshold.low=900", "key 'threshold.low': must not exceed threshold.high"},
      {"run " + data + "/bad-syntax.toml", data + "/bad-syntax.toml:2: malformed TOML"},
      {"run " + data + "/odf-on-star.toml", data + "/odf-on-star.toml: key 'alpha'"},
      {"run " + data + "/no-such-file.toml", "no-such-file.toml: scenario file not found"},
      {"run --set engine=des --set workload.kind=dynamic", "key 'workload.kind': is not honoured by engine = \"des\" (engines that read it: sync)"},
      {"run --set async.virtual_load=true", "key 'async.virtual_load': is not honoured by engine = \"sync\" (engines that read it: des, mpi, simgrid)"},
      {"run --set engine=des --set load.init=single:0,1000*N --set async.lb_period=0", "key 'async.lb_period': must be > 0"},
      {"run --format xml", "--format"},
      {"run --repeat 0", "--repeat"},
      {"run --seed -5", "--seed: must be a whole number in 0..18446744073709551615, got '-5'"},
      {"tasks --seed -1", "--seed: must be a whole number"},
      {"reproduce no/such-study", "no study 'no/such-study'"},
      // Issue 39, reproducers 9, 10, 13 and 16.
      {"run --set engine=simgrid --set simgrid.network=nan", "key 'simgrid.network': 'nan' is not one of: serial, sharing"},
      {"run --set engine=des --set algorithm=dd --set load.trace=" + std::string(NNLB_SOURCE_DIR) + "/scenarios/examples/stencil-4ranks.trace",
       "key 'load.trace': means nothing to the program that runs (tasks"},
      {"reproduce " + std::string(NNLB_SOURCE_DIR) + "/scenarios/xu1995/fig2 --quick", "no study '" + std::string(NNLB_SOURCE_DIR)},
      {"sweep " + std::string(NNLB_SOURCE_DIR) + "/scenarios/xu1995/fig2.toml --quick --set algorithm=fos",
       "--set algorithm: 'algorithm' is swept in"},
  };
  const fs::path out = fs::temp_directory_path() / "nnlb-cli-bad.json";
  for (const auto& c : cases) {
    fs::remove(out);
    const bool run = c.args.starts_with("run");
    const auto o = nnlb(run ? c.args + " --out " + out.string() : c.args);
    EXPECT_EQ(o.status, 2) << c.args;
    EXPECT_NE(o.err.find(c.expect), std::string::npos) << c.args << "\n  stderr: " << o.err;
    EXPECT_EQ(std::count(o.err.begin(), o.err.end(), '\n'), 1) << c.args << "\n  stderr: " << o.err;
    EXPECT_TRUE(o.out.empty()) << c.args;
    EXPECT_FALSE(fs::exists(out)) << c.args;
  }
}

// Issue 39, reproducers 11 and 14: where the output goes is checked before the run, and the
// chart and the record cannot share a file.
TEST(Cli, OutputPathsAreCheckedBeforeTheRun) {
  const fs::path dir = fs::temp_directory_path() / "nnlb-cli-out";
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::string png = (dir / "r.png").string();
  const std::vector<BadCase> cases = {
      {"run --out /nonexistent/x.json", "--out: '/nonexistent/x.json': output folder does not exist"},
      {"run --out " + dir.string(), "--out: '" + dir.string() + "' is a folder"},
      {"run --out " + png + " --plot " + png, "--plot: '" + png + "' is --out's file too"},
  };
  for (const auto& c : cases) {
    const auto o = nnlb(c.args + " --set topology=ring:4");
    EXPECT_EQ(o.status, 2) << c.args;
    EXPECT_NE(o.err.find(c.expect), std::string::npos) << c.args << "\n  stderr: " << o.err;
    EXPECT_EQ(std::count(o.err.begin(), o.err.end(), '\n'), 1) << c.args << "\n  stderr: " << o.err;
    EXPECT_TRUE(o.out.empty()) << c.args;
  }
  EXPECT_TRUE(fs::is_empty(dir));
  fs::remove_all(dir);
}

TEST(Cli, SweepHelpPointsToTheSweepFileReference) {
  const auto o = nnlb("sweep --help");
  ASSERT_EQ(o.status, 0) << o.err;
  EXPECT_NE(o.out.find("docs/sweep-files.md"), std::string::npos) << o.out;
  EXPECT_TRUE(std::filesystem::exists(std::string(NNLB_SOURCE_DIR) + "/docs/sweep-files.md"));
}

// The keys several engines read have engine-neutral names; their des.* names are aliases that
// set the same key, and a file that sets a key under both names is refused.
TEST(Cli, OldDesKeyNamesAreAliasesOfTheEngineNeutralOnes) {
  const std::string base = "run --set engine=des --set topology=ring:4 --set load.init=single:0,40 --set stop.time=1 --format json";
  const auto old_name = nnlb(base + " --set des.lb_period=0.002 --set des.bytes_per_unit=100 --set des.sample_period=0.5");
  const auto new_name = nnlb(base + " --set async.lb_period=0.002 --set message.bytes_per_unit=100 --set output.sample_period=0.5");
  ASSERT_EQ(old_name.status, 0) << old_name.err;
  ASSERT_EQ(new_name.status, 0) << new_name.err;
  const auto a = nlohmann::json::parse(old_name.out), b = nlohmann::json::parse(new_name.out);
  EXPECT_EQ(a["scenario"]["async.lb_period"], 0.002);
  EXPECT_FALSE(a["scenario"].contains("des.lb_period"));
  EXPECT_EQ(a["summary"], b["summary"]);
  EXPECT_EQ(a["series"], b["series"]);

  const fs::path file = fs::temp_directory_path() / ("nnlb-alias-" + std::to_string(::getpid()) + ".toml");
  std::ofstream(file) << "engine = \"des\"\n[des]\nlb_period = 0.002\n[async]\nlb_period = 0.003\n";
  const auto twice = nnlb("run " + file.string());
  fs::remove(file);
  EXPECT_EQ(twice.status, 2);
  EXPECT_NE(twice.err.find("set twice"), std::string::npos) << twice.err;
  const auto listed = nnlb("list");
  EXPECT_NE(listed.out.find("(alias: des.lb_period)"), std::string::npos);
}

TEST(Cli, ListNamesEveryTopologyPolicyAndKey) {
  const auto o = nnlb("list");
  ASSERT_EQ(o.status, 0);
  for (const char* s : {"random-regular:N,D", "p2p:N", "kary:K,N", "sos", "ode", "load.mode", "stop.quiescent", "threshold.low"})
    EXPECT_NE(o.out.find(s), std::string::npos) << s;
}

}  // namespace

namespace {

TEST(Cli, AnalyzeGivesTheClosedFormGammaAndEq7Steps) {
  // Ring of 16, alpha = 1/3: gamma = 1 - (1/3)(2 - 2 cos(2 pi / 16)) (Laplacian eigenvalues 2 - 2cos(2 pi j / n)).
  const auto o = nnlb("analyze --set topology=ring:16 --set alpha=0.3333333333333333 --initial-imbalance 1e6 --format json");
  ASSERT_EQ(o.status, 0) << o.err;
  const auto j = nlohmann::json::parse(o.out);
  const double gamma = 1 - (2 - 2 * std::cos(2 * M_PI / 16)) / 3;
  EXPECT_NEAR(j["gamma_per_iteration"].get<double>(), gamma, 1e-12);
  EXPECT_EQ(j["predicted_steps"].get<double>(), std::ceil(std::log(1.0 / 1e6) / (2 * std::log(gamma))));
}

TEST(Cli, AnalyzeRefusesWhatItCannotAnalyze) {
  const auto o = nnlb("analyze --set topology=star:5 --set algorithm=ode");
  EXPECT_EQ(o.status, 2);
  EXPECT_NE(o.err.find("key 'lambda'"), std::string::npos) << o.err;
}

}  // namespace
