// Experiment workflow: sweeps are independent of the thread count, the results store survives
// kills and corruption, and every chart kind renders.
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <sys/wait.h>

#include "support.hpp"
#include "nnlb/engine/registry.hpp"
#include "nnlb/experiment/store.hpp"
#include "nnlb/experiment/study.hpp"
#include "nnlb/experiment/sweep.hpp"
#include "nnlb/util/error.hpp"
#include "nnlb/version.hpp"

namespace nnlb {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

fs::path fresh_dir(const std::string& name) {
  const fs::path d = fs::temp_directory_path() / ("nnlb-" + name + "-" + std::to_string(::getpid()));
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

SweepSpec small_sweep() {
  SweepSpec s;
  s.base.set("stop.imbalance", 1.0, "test");
  s.base.set("stop.steps", 5000, "test");
  s.axes = {{"topology", {"mesh:4x4", "random-regular:20,3"}}, {"algorithm", {"adf", "ade", "sos"}}};
  s.repeat = 3;
  s.master_seed = 41;
  return s;
}

int shell(const std::string& cmd, std::string* err = nullptr) {
  const std::string full = err ? cmd + " 2>&1" : cmd;
  FILE* p = ::popen(full.c_str(), "r");
  std::array<char, 4096> buf{};
  std::size_t n;
  std::string out;
  while ((n = std::fread(buf.data(), 1, buf.size(), p)) > 0) out.append(buf.data(), n);
  const int raw = ::pclose(p);
  if (err) *err = out;
  return WIFEXITED(raw) ? WEXITSTATUS(raw) : 128 + WTERMSIG(raw);
}

std::vector<std::string> lines_of(const fs::path& p) {
  std::ifstream in(p);
  std::vector<std::string> out;
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}

TEST(Sweep, RecordsDoNotDependOnTheThreadCount) {
  const auto spec = small_sweep();
  SweepRun one, two;
  one.threads = 1;
  two.threads = 2;
  const auto a = run_sweep(spec, one), b = run_sweep(spec, two);
  ASSERT_EQ(a.size(), 18u);
  EXPECT_EQ(a, b);
  // Repeat r uses seed master + r at every point: common random numbers across algorithms.
  EXPECT_EQ(a[0]["seed"], 41);
  EXPECT_EQ(a[2]["seed"], 43);
  EXPECT_EQ(a[3]["seed"], 41);
  EXPECT_EQ(a[0]["summary"]["initial_imbalance"], a[3]["summary"]["initial_imbalance"]);
  std::set<std::string> keys;
  for (const auto& r : a) keys.insert(r["key"].get<std::string>());
  EXPECT_EQ(keys.size(), a.size());
}

TEST(Sweep, RunKeyNamesScenarioAndSeed) {
  const json s = Scenario().to_json();
  EXPECT_EQ(run_key(s, 1), run_key(Scenario().to_json(), 1));
  EXPECT_NE(run_key(s, 1), run_key(s, 2));
  Scenario other;
  other.set("alpha", 0.1, "test");
  EXPECT_NE(run_key(s, 1), run_key(other.to_json(), 1));
}

TEST(Sweep, RunKeyIgnoresTheFreeTexts) {
  Scenario named;
  named.set("name", "first try", "test");
  named.set("description", "anything", "test");
  EXPECT_EQ(run_key(named.to_json(), 1), run_key(Scenario().to_json(), 1));
}

TEST(Store, RenamedPointsResumeAndRecordsCarryTheCodeVersion) {
  const fs::path dir = fresh_dir("rename");
  const std::string path = (dir / "s.jsonl").string();
  SweepSpec spec = small_sweep();
  spec.base.set("name", "before", "test");
  {
    ResultStore store(path, {});
    SweepRun how;
    how.store = &store;
    for (const auto& r : run_sweep(spec, how)) EXPECT_EQ(r["code_version"], code_version);
  }
  spec.base.set("name", "after", "test");
  ResultStore store(path, {});
  SweepRun how;
  how.store = &store;
  std::size_t first_done = 0;
  how.progress = [&](std::size_t done, std::size_t) {
    if (!first_done) first_done = done;
  };
  const auto records = run_sweep(spec, how);
  EXPECT_EQ(first_done, 18u) << "a new name is not a new run";
  for (const auto& r : records) EXPECT_EQ(r["scenario"]["name"], "after");
  EXPECT_EQ(lines_of(path).size(), 18u);
  fs::remove_all(dir);
}

// Friction 2: a sweep first run without series, then given a series plot, runs again the runs
// whose stored records lack the series, and its plot draws.
TEST(Sweep, RunsWhoseStoredRecordsLackTheSeriesAreRunAgain) {
  const fs::path dir = fresh_dir("series-again");
  const std::string head = "[base]\ntopology = \"ring:8\"\nstop.steps = 20\n[sweep]\nalgorithm = [\"fos\", \"ade\"]\n";
  std::ofstream(dir / "s.toml") << head;
  const std::string sweep = std::string(NNLB_BINARY) + " sweep " + (dir / "s.toml").string() + " -q --store " + (dir / "s.jsonl").string();
  std::string out;
  ASSERT_EQ(shell(sweep, &out), 0) << out;
  for (const auto& r : read_store((dir / "s.jsonl").string(), {})) EXPECT_FALSE(r.contains("series"));
  std::ofstream(dir / "s.toml") << head << "[plot.decay]\nkind = \"series\"\nx = \"steps\"\ny = \"imbalance\"\ngroup = \"scenario.algorithm\"\n";
  ASSERT_EQ(shell(sweep + " --out-dir " + dir.string(), &out), 0) << out;
  EXPECT_NE(out.find("note: 2 stored runs of this sweep lack the series it keeps"), std::string::npos) << out;
  EXPECT_TRUE(fs::exists(dir / "s-decay.png")) << out;
  const ResultStore store((dir / "s.jsonl").string(), {});
  ASSERT_EQ(store.records().size(), 2u);
  for (const auto& r : store.records()) EXPECT_TRUE(r.contains("series"));
  ASSERT_EQ(shell(sweep + " --out-dir " + dir.string(), &out), 0) << out;
  EXPECT_EQ(out.find("note:"), std::string::npos) << "nothing to run again: " << out;
  EXPECT_EQ(lines_of(dir / "s.jsonl").size(), 4u);
  fs::remove_all(dir);
}

TEST(Store, ResumingRecordsOfAnotherCodeVersionWarnsOnce) {
  const fs::path dir = fresh_dir("versions");
  const std::string path = (dir / "v.jsonl").string();
  {
    ResultStore store(path, {});
    SweepRun how;
    how.store = &store;
    run_sweep(small_sweep(), how);
  }
  auto lines = lines_of(path);
  {
    std::ofstream out(path, std::ios::trunc);
    for (std::size_t i = 0; i < lines.size(); ++i) {
      json r = json::parse(lines[i]);
      if (i < 3) r["code_version"] = "0.0.9-old";
      if (i == 3) r.erase("code_version");
      out << r.dump() << "\n";
    }
  }
  std::vector<std::string> warnings;
  ResultStore store(path, [&](const std::string& w) { warnings.push_back(w); });
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_EQ(warnings[0], path + ": 4 of its 18 records were made by another code version (3 x 0.0.9-old, 1 x unknown; this is " +
                             code_version + "); they are reused as they are");
  EXPECT_EQ(store.records().size(), 18u);
  fs::remove_all(dir);
}

TEST(Sweep, MpiStyleSplitCoversEveryJobOnce) {
  const auto spec = small_sweep();
  std::vector<json> all;
  for (int rank = 0; rank < 3; ++rank) {
    SweepRun part;
    part.rank = rank;
    part.ranks = 3;
    for (auto& r : run_sweep(spec, part)) all.push_back(r);
  }
  std::set<std::string> keys;
  for (const auto& r : all) keys.insert(r["key"].get<std::string>());
  EXPECT_EQ(all.size(), 18u);
  EXPECT_EQ(keys.size(), 18u);
}

TEST(Store, ResumeAfterATornLineLosesAndDuplicatesNothing) {
  const fs::path dir = fresh_dir("store");
  const auto spec = small_sweep();
  const std::string path = (dir / "s.jsonl").string();
  std::vector<json> full;
  {
    ResultStore store(path, {});
    SweepRun how;
    how.store = &store;
    full = run_sweep(spec, how);
  }
  // Simulate a kill: keep 7 whole records and half of the 8th, and a garbage line in between.
  auto lines = lines_of(path);
  ASSERT_EQ(lines.size(), 18u);
  {
    std::ofstream out(path, std::ios::trunc);
    for (int i = 0; i < 7; ++i) out << lines[i] << "\n";
    out << "{not json\n";
    out << lines[7].substr(0, lines[7].size() / 2);
  }
  std::vector<std::string> warnings;
  std::size_t first_done = 0;
  ResultStore store(path, [&](const std::string& w) { warnings.push_back(w); });
  SweepRun how;
  how.store = &store;
  how.progress = [&](std::size_t done, std::size_t) {
    if (!first_done) first_done = done;
  };
  const auto resumed = run_sweep(spec, how);
  EXPECT_EQ(first_done, 7u) << "the 7 whole records were reused";
  ASSERT_EQ(warnings.size(), 2u);
  EXPECT_EQ(warnings[0], path + ":8: corrupt record skipped");
  EXPECT_EQ(warnings[1], path + ":9: corrupt record skipped");
  EXPECT_EQ(resumed, full);
  std::set<std::string> keys;
  std::size_t records = 0;
  for (const auto& r : read_store(path, {})) keys.insert(r["key"].get<std::string>()), ++records;
  EXPECT_EQ(records, 18u);
  EXPECT_EQ(keys.size(), 18u);
  fs::remove_all(dir);
}

TEST(Store, RefusesToResumeRecordsOfAnotherSchemaVersion) {
  // Records made before a change of meaning (no schema_version: version 1) must not be mixed
  // with new ones by resuming the store; the sweep refuses it by name, and no record is added.
  const fs::path dir = fresh_dir("schema");
  const std::string store = (dir / "old.jsonl").string(), file = (dir / "s.toml").string();
  std::ofstream(store) << R"({"key":"0123456789abcdef","summary":{"initial_total":0}})" << "\n";
  std::ofstream(file) << "[study]\nrepeat = 2\n[base]\ntopology = \"ring:4\"\nstop.steps = 3\n";
  std::string out;
  EXPECT_EQ(shell(std::string(NNLB_BINARY) + " sweep " + file + " -q --store " + store + " 2>&1", &out), 2) << out;
  EXPECT_NE(out.find(store + ": holds records of schema version 1 and this nnlb writes version " + std::to_string(record_schema_version)), std::string::npos) << out;
  EXPECT_EQ(lines_of(store).size(), 1u);
  // A fresh store takes records of this version, each saying so.
  const std::string fresh = (dir / "new.jsonl").string();
  ASSERT_EQ(shell(std::string(NNLB_BINARY) + " sweep " + file + " -q --store " + fresh + " 2>&1", &out), 0) << out;
  for (const auto& r : read_store(fresh, {})) EXPECT_EQ(r["schema_version"], record_schema_version);
  fs::remove_all(dir);
}

TEST(Store, ResumeAfterARealKill) {
  // 200 runs of a few ms each; progress prints a line per 20 finished runs, and `head` closes the
  // pipe after the first, so the sweep dies of SIGPIPE about 10% in.
  const fs::path dir = fresh_dir("kill");
  const std::string store = (dir / "k.jsonl").string(), file = (dir / "k.toml").string();
  std::ofstream(file) << "[study]\nrepeat = 200\n[base]\ntopology = \"mesh:24x24\"\nalgorithm = \"adf\"\n"
                         "stop.imbalance = 1.0\noutput.series_every = 0\n";
  const std::string sweep = std::string(NNLB_BINARY) + " sweep " + file + " --threads 1 --store " + store;
  shell(sweep + " 2>&1 | head -n 1 >/dev/null");
  const auto partial = lines_of(store).size();
  EXPECT_GT(partial, 0u);
  EXPECT_LT(partial, 200u) << "the sweep was not interrupted";
  std::string out;
  ASSERT_EQ(shell(sweep + " -q", &out), 0) << out;
  std::set<std::string> keys;
  for (const auto& r : read_store(store, {})) keys.insert(r["key"].get<std::string>());
  EXPECT_EQ(keys.size(), 200u);
  EXPECT_EQ(read_store(store, {}).size(), 200u);
  fs::remove_all(dir);
}

TEST(Reproduce, EveryStudyRunsQuickAndDrawsItsCharts) {
  const fs::path dir = fresh_dir("studies");
  std::string list;
  ASSERT_EQ(shell("(" + std::string(NNLB_BINARY) + " reproduce --list 2>/dev/null)", &list), 0) << list;
  std::istringstream names(list);
  std::size_t studies = 0;
  for (std::string line; std::getline(names, line);) {
    const std::string name = line.substr(0, line.find(' '));  // then what it draws, its runs and runtime
    SCOPED_TRACE(name);
    if (name.starts_with("simgrid/") && !find_engine("simgrid")->run) continue;  // built without SimGrid
#ifdef __SANITIZE_ADDRESS__
    // SimGrid runs on thread contexts under the sanitizer, ten times the Release cost: these studies
    // (50 CPU-s there) are left to the Release pass; test_simgrid.cpp runs the engine under it.
    if (name.starts_with("simgrid/")) continue;
#endif
    std::string out;
    ASSERT_EQ(shell(std::string(NNLB_BINARY) + " reproduce " + name + " --quick -q --report-dir '' --out-dir " + dir.string(), &out), 0) << out;
    const Study study = load_study(std::string(NNLB_SOURCE_DIR) + "/scenarios/" + name + ".toml", name, true);
    ASSERT_FALSE(study.plots.empty());
    for (const auto& plot : study.plots) EXPECT_GT(fs::file_size(dir / name / (plot.file + ".png")), 1000u) << plot.file;
    ++studies;
  }
  EXPECT_GE(studies, 7u);
  fs::remove_all(dir);
}

TEST(Sweep, MpirunSplitsTheSweepAcrossRanks) {
#ifndef NNLB_TEST_MPIRUN
  GTEST_SKIP() << "nnlb was built without MPI";
#else
  const fs::path dir = fresh_dir("mpi");
  const std::string file = std::string(NNLB_SOURCE_DIR) + "/scenarios/examples/diffusion-parameters.toml --quick -q --threads 1";
  // In NNLB_SANITIZE builds LeakSanitizer stays off for the ranks: Open MPI's helper threads and
  // unloaded plug-ins leave allocations it would report (ASan's other checks and UBSan stay on).
  const std::string env = "OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_MCA_btl=self,vader "
                          "ASAN_OPTIONS=\"${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0\" ";
  std::string out;
  ASSERT_EQ(shell(env + NNLB_TEST_MPIRUN + " -np 2 " + NNLB_BINARY + " sweep " + file + " --store " + (dir / "mpi.jsonl").string(), &out), 0) << out;
  ASSERT_EQ(shell(std::string(NNLB_BINARY) + " sweep " + file + " --store " + (dir / "one.jsonl").string(), &out), 0) << out;
  auto summaries = [](const std::string& path) {
    std::map<std::string, json> by_key;
    for (const auto& r : read_store(path, {})) by_key[r["key"].get<std::string>()] = r["summary"];
    return by_key;
  };
  const auto split = summaries((dir / "mpi.jsonl").string()), single = summaries((dir / "one.jsonl").string());
  EXPECT_EQ(lines_of(dir / "mpi.jsonl").size(), 18u);
  EXPECT_EQ(split, single);
  fs::remove_all(dir);
#endif
}

TEST(Plot, EveryChartKindWritesImageDataAndScript) {
  const fs::path dir = fresh_dir("plots");
  SweepSpec spec = small_sweep();
  spec.keep_series = true;
  spec.base.set("output.load_history", 5, "test");
  const auto records = run_sweep(spec, {});
  const std::vector<PlotSpec> plots = {
      {.kind = "lines", .x = "topology.nodes", .y = {"summary.steps_to_balance"}, .group = {"scenario.algorithm"}, .file = "lines"},
      {.kind = "series", .x = "steps", .y = {"imbalance"}, .group = {"scenario.algorithm"}, .file = "series", .logy = true},
      {.kind = "fit", .x = "topology.nodes", .y = {"summary.steps_to_balance"}, .group = {"scenario.algorithm"}, .file = "fit"},
      {.kind = "bars", .x = "scenario.topology", .y = {"summary.steps_to_balance", "summary.rounds"}, .file = "bars"},
      {.kind = "bars", .x = "scenario.topology", .y = {"summary.steps_to_balance", "summary.rounds"}, .group = {"scenario.algorithm"},
       .labels = {"steps", "rounds"}, .file = "overlay", .overlay = true},
      {.kind = "heatmap", .file = "heatmap", .z_max = 700}};
  for (const auto& p : plots)
    for (const char* ext : {".png", ".svg"}) {
      check_plot(p, "test", p.kind);
      write_plots({p}, records, dir.string(), "test", ext)[p.file];
      for (const std::string suffix : {ext, ".csv", ".gp"}) {
        const fs::path f = dir / (p.file + suffix);
        ASSERT_TRUE(fs::exists(f)) << f;
        EXPECT_GT(fs::file_size(f), 200u) << f;
      }
    }
  // One fitted exponent per algorithm.
  EXPECT_EQ(write_plots({plots[2]}, records, dir.string(), "test")[plots[2].file]["fits"].size(), 3u);
  // Overlaid bars: one cluster per topology and algorithm, the last y field drawn first.
  const auto overlay = write_plots({plots[4]}, records, dir.string(), "test")[plots[4].file];
  EXPECT_EQ(overlay["rows"].size(), 2u * 3u * 2u);  // (topology, algorithm) clusters x y fields
  std::ifstream gp(dir / "overlay.gp");
  const std::string script((std::istreambuf_iterator<char>(gp)), std::istreambuf_iterator<char>());
  // Repeats make each bar a mean: three columns per y field (mean, min, max) and an error bar.
  EXPECT_LT(script.find("using 2:6 with boxes"), script.find("using 2:3 with boxes"));
  EXPECT_NE(script.find("using 2:3 with boxes lc 1 title 'steps', $bars using 2:3:4:5 with yerrorbars lc 1"), std::string::npos) << script;
  EXPECT_NE(overlay["rows"][0]["min"], nullptr);
  std::ifstream heat(dir / "heatmap.gp");
  const std::string heat_script((std::istreambuf_iterator<char>(heat)), std::istreambuf_iterator<char>());
  EXPECT_NE(heat_script.find("set cbrange [0:700]"), std::string::npos);
  PlotSpec wrong = plots[4];
  wrong.labels = {"one"};
  EXPECT_THROW(check_plot(wrong, "test", "plot.overlay"), InputError);
  fs::remove_all(dir);
}

// "{runs}" in a title says how many runs each point drew on: here 2 and 1.
TEST(Plot, TitleStatesTheRunsEachPointDrewOn) {
  const fs::path dir = fresh_dir("runs-title");
  const std::vector<json> records = {{{"summary", {{"t", 2.0}}}, {"scenario", {{"name", "a"}}}, {"point", {{"name", "a"}}}},
                                     {{"summary", {{"t", 3.0}}}, {"scenario", {{"name", "b"}}}, {"point", {{"name", "b"}}}},
                                     {{"summary", {{"t", 4.0}}}, {"scenario", {{"name", "a"}}}, {"point", {{"name", "a"}}}}};
  const PlotSpec p{.kind = "bars", .x = "scenario.name", .y = {"summary.t"}, .file = "r", .title = "min-max over {runs} runs"};
  write_plots({p}, records, dir.string(), "test");
  EXPECT_NE(test::slurp((dir / "r.gp").string()).find("min-max over 1-2 runs"), std::string::npos);
  write_plots({p}, {records[0], records[2]}, dir.string(), "test");
  EXPECT_NE(test::slurp((dir / "r.gp").string()).find("min-max over 2 runs"), std::string::npos);
  fs::remove_all(dir);
}

TEST(Plot, BarsLeaveOutNullValues) {
  const fs::path dir = fresh_dir("null-bars");
  const std::vector<json> records = {{{"summary", {{"t", 2.0}}}, {"scenario", {{"name", "a"}}}},
                                     {{"summary", {{"t", nullptr}}}, {"scenario", {{"name", "b"}}}},
                                     {{"summary", {{"t", 4.0}}}, {"scenario", {{"name", "a"}}}}};
  const PlotSpec p{.kind = "bars", .x = "scenario.name", .y = {"summary.t"}, .file = "b"};
  const auto table = write_plots({p}, records, dir.string(), "test")[p.file];
  ASSERT_EQ(table["rows"].size(), 2u);
  EXPECT_EQ(table["rows"][0]["mean"], 3.0);
  EXPECT_TRUE(table["rows"][1]["mean"].is_null());
  EXPECT_EQ(table["rows"][1]["missing"], 1);
  std::ifstream gp(dir / "b.gp");
  const std::string script((std::istreambuf_iterator<char>(gp)), std::istreambuf_iterator<char>());
  EXPECT_NE(script.find("set xtics rotate by -60 noenhanced ('a' 0, 'b' 1)"), std::string::npos) << script;
  // "a" is the mean of two records: its bar carries their range, 2 to 4; "b" has no bar.
  EXPECT_NE(script.find("\n0 3 2 4\n1 NaN NaN NaN\n"), std::string::npos) << script;
  EXPECT_NE(script.find("set style histogram errorbars"), std::string::npos) << script;
  EXPECT_EQ(table["rows"][0]["min"], 2.0);
  EXPECT_EQ(table["rows"][0]["max"], 4.0);
  fs::remove_all(dir);
}

TEST(Sweep, ExcludeLeavesOutCombinations) {
  const fs::path dir = fresh_dir("exclude");
  std::ofstream(dir / "s.toml") << "[base]\nstop.steps = 3\n[sweep]\nalgorithm = [\"ade\", \"ode\", \"fos\"]\n"
                                   "topology = [\"mesh:4x4\", \"p2p:16\"]\n\"alpha+leveling\" = [[\"\", 1]]\n"
                                   "exclude = [{algorithm = \"ode\", topology = \"p2p:16\"}, {algorithm = \"fos\", topology = \"mesh:4x4\"}]\n";
  const Study st = load_study((dir / "s.toml").string(), "s", false);
  const auto points = sweep_points(st.sweep);
  ASSERT_EQ(points.size(), 4u);
  std::set<std::string> seen;
  for (const auto& p : points) {
    json values = json::object();
    for (const auto& [k, v] : p) values[k] = v;
    seen.insert(values["algorithm"].get<std::string>() + " " + values["topology"].get<std::string>());
  }
  EXPECT_EQ(seen, (std::set<std::string>{"ade mesh:4x4", "ade p2p:16", "ode mesh:4x4", "fos p2p:16"}));
  // ode on p2p:16 would be refused: left out, the sweep runs.
  EXPECT_EQ(run_sweep(st.sweep).size(), 4u);
  // A zipped axis's keys can be named one by one.
  std::ofstream(dir / "z.toml") << "[sweep]\n\"algorithm+leveling\" = [[\"naive\", 1], [\"best-effort\", 2]]\n"
                                   "topology = [\"ring:4\", \"ring:8\"]\nexclude = [{leveling = 2, topology = \"ring:8\"}]\n";
  EXPECT_EQ(sweep_points(load_study((dir / "z.toml").string(), "z", false).sweep).size(), 3u);
  fs::remove_all(dir);
}

TEST(Study, StartsFromAScenarioFileThatBaseOverrides) {
  const fs::path dir = fresh_dir("preset");
  fs::create_directories(dir / "presets");
  std::ofstream(dir / "presets" / "p.toml") << "engine = \"des\"\ndes.lb_period = 0.5\nstop.time = 7.0\n";
  std::ofstream(dir / "s.toml") << "[study]\nscenario = \"presets/p.toml\"\n[base]\nstop.time = 3.0\n[sweep]\nseed = [1]\n";
  const Study st = load_study((dir / "s.toml").string(), "s", false);
  EXPECT_EQ(st.sweep.base.text("engine"), "des");
  EXPECT_EQ(st.sweep.base.number("async.lb_period"), 0.5);
  EXPECT_EQ(st.sweep.base.number("stop.time"), 3.0);
  std::ofstream(dir / "bad.toml") << "[study]\nscenario = \"presets/none.toml\"\n[sweep]\nseed = [1]\n";
  try {
    load_study((dir / "bad.toml").string(), "bad", false);
    FAIL() << "a missing scenario file is an input error";
  } catch (const InputError& e) {
    EXPECT_NE(e.line().find("bad.toml: key 'study.scenario'"), std::string::npos) << e.line();
  }
  fs::remove_all(dir);
}

TEST(Sweep, ZippedAxesSetSeveralKeysTogether) {
  SweepSpec s;
  s.base.set("engine", "sync", "test");
  s.base.set("stop.steps", 3, "test");
  s.axes = {{"algorithm+leveling", {json::array({"naive", 1}), json::array({"best-effort", 4})}}};
  const auto records = run_sweep(s, {});
  ASSERT_EQ(records.size(), 2u);
  EXPECT_EQ(records[1]["scenario"]["algorithm"], "best-effort");
  EXPECT_EQ(records[1]["scenario"]["leveling"], 4.0);
  Scenario probe;
  EXPECT_THROW(apply_axis(probe, "algorithm+leveling", json::array({"naive"}), "test"), InputError);
}

TEST(Plot, WhereKeepsOnlyMatchingRecords) {
  const fs::path dir = fresh_dir("where");
  const auto records = run_sweep(small_sweep(), {});
  PlotSpec p{.kind = "lines", .x = "topology.nodes", .y = {"summary.steps_to_balance"}, .group = {"scenario.algorithm"}, .file = "w",
             .where = {"scenario.topology=mesh:4x4"}};
  const auto table = write_plots({p}, records, dir.string(), "test")[p.file];
  for (const auto& row : table["rows"]) EXPECT_EQ(row["x"], 16.0);
  EXPECT_EQ(table["rows"].size(), 3u);
  // A scenario key in a condition may be named by an alias of earlier versions.
  json aliased = records.front();
  aliased["scenario"]["async.lb_period"] = 0.5;
  EXPECT_EQ(record_field(aliased, "scenario.des.lb_period"), 0.5);
  EXPECT_EQ(record_field(aliased, "scenario.async.lb_period"), 0.5);
  p.where = {"nonsense"};
  EXPECT_THROW(check_plot(p, "test", "plot.w"), InputError);
  fs::remove_all(dir);
}

TEST(Plot, PowerLawFitRecoversTheExponent) {
  const auto f = fit_power_law({2, 4, 8, 16}, {12, 48, 192, 768});  // 3 k^2
  EXPECT_NEAR(f.exponent, 2.0, 1e-12);
  EXPECT_NEAR(f.coefficient, 3.0, 1e-9);
  EXPECT_NEAR(f.r2, 1.0, 1e-12);
}

}  // namespace
}  // namespace nnlb
