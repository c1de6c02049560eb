// Hostile and malformed input (issues 14 and 15): nothing reaches a shell or gnuplot as code, and
// bad input is one line on stderr, exit status 2, no partial output, never an abort.
#include <gtest/gtest.h>

#include <algorithm>
#include <csignal>
#include <chrono>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "nnlb/catalog/registry.hpp"
#include "nnlb/engine/registry.hpp"
#include "nnlb/experiment/p2p_run.hpp"
#include "nnlb/experiment/scenario.hpp"
#include "nnlb/experiment/study.hpp"
#include "nnlb/experiment/task_run.hpp"
#include "nnlb/util/error.hpp"
#include "support.hpp"

namespace nnlb {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

struct Outcome {
  int status = -1;  // exit status; 128 + signal if killed
  std::string out, err;
};

fs::path fresh_dir(const std::string& name) {
  const fs::path d = fs::temp_directory_path() / ("nnlb-harden-" + name + "-" + std::to_string(::getpid()));
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

// Runs nnlb with exactly these arguments (no shell) in folder `cwd`.
Outcome nnlb_in(const fs::path& cwd, const std::vector<std::string>& args) {
  const fs::path out = fs::temp_directory_path() / ("nnlb-harden-out-" + std::to_string(::getpid()));
  const fs::path err = fs::temp_directory_path() / ("nnlb-harden-err-" + std::to_string(::getpid()));
  const pid_t pid = ::fork();
  if (pid == 0) {
    const int o = ::open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644), e = ::open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    ::dup2(o, 1);
    ::dup2(e, 2);
    if (::chdir(cwd.c_str()) != 0) ::_exit(126);
    // A hang or a runaway allocation fails the test (killed by SIGALRM, or out of memory) instead
    // of stalling it or the machine. AddressSanitizer reserves terabytes of address space for its
    // shadow memory, so a sanitizer build bounds time only.
#ifndef __SANITIZE_ADDRESS__
    const rlimit memory{rlim_t{4} << 30, rlim_t{4} << 30};
    ::setrlimit(RLIMIT_AS, &memory);
#endif
    ::alarm(120);
    std::vector<char*> argv{const_cast<char*>(NNLB_BINARY)};
    for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    ::execv(NNLB_BINARY, argv.data());
    ::_exit(127);
  }
  int raw = 0;
  ::waitpid(pid, &raw, 0);
  Outcome r{WIFEXITED(raw) ? WEXITSTATUS(raw) : 128 + WTERMSIG(raw), test::slurp(out), test::slurp(err)};
  fs::remove(out);
  fs::remove(err);
  return r;
}

std::size_t lines(const std::string& text) { return static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n')); }

// The project rule for bad input: exit status 2, one line on stderr holding `expect`.
void expect_refused(const Outcome& o, const std::string& expect, const std::string& what) {
  EXPECT_EQ(o.status, 2) << what << "\n  stderr: " << o.err;
  EXPECT_EQ(lines(o.err), 1u) << what << "\n  stderr: " << o.err;
  EXPECT_NE(o.err.find(expect), std::string::npos) << what << "\n  stderr: " << o.err;
}

// Files in `dir` whose name starts with "PWNED": each would be a command that ran.
std::vector<std::string> pwned(const fs::path& dir) {
  std::vector<std::string> found;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().filename().string().starts_with("PWNED")) found.push_back(e.path().filename().string());
  return found;
}

// Texts that would run commands or break a gnuplot script if pasted into it unquoted.
const std::vector<std::string> hostile = {
    "a `touch PWNED1` b", "system(\"touch PWNED2\")", "it's \"quoted\" \\ back\\", "one\ntwo `touch PWNED3`", "@macro $(touch PWNED4) '",
};

// Two small records whose scenario names are hostile texts, as a results store.
fs::path hostile_store(const fs::path& dir) {
  const auto run = nnlb_in(dir, {"run", "--set", "topology=ring:8", "--set", "stop.steps=4", "--format", "json", "--repeat", "2"});
  EXPECT_EQ(run.status, 0) << run.err;
  json runs = json::parse(run.out)["runs"];
  std::ofstream store(dir / "hostile.jsonl");
  for (std::size_t k = 0; k < runs.size(); ++k) {
    runs[k]["scenario"]["name"] = hostile[k];
    runs[k]["key"] = std::to_string(k);
    store << runs[k].dump() << "\n";
  }
  return dir / "hostile.jsonl";
}

TEST(PlotText, HostileTitlesLabelsAndFileNamesStayText) {
  const fs::path dir = fresh_dir("plot-text");
  hostile_store(dir);
  const std::string image = "chart `touch PWNED5` $(touch PWNED6) 'x'.svg";
  const auto o = nnlb_in(dir, {"plot", "hostile.jsonl", "--kind", "series", "--x", "steps", "--y", "imbalance", "--group", "scenario.name",
                               "--title", hostile[0], "--xlabel", hostile[1], "--ylabel", hostile[3], "--out", image});
  // kind series needs the series, which the records keep (written by `nnlb run`).
  ASSERT_EQ(o.status, 0) << o.err;
  EXPECT_TRUE(pwned(dir).empty()) << pwned(dir).front();
  const std::string svg = test::slurp(dir / image);
  for (const std::string text : {"a `touch PWNED1` b", "system(\"touch PWNED2\")", "one two `touch PWNED3`"})
    EXPECT_NE(svg.find(text), std::string::npos) << text;
  fs::remove_all(dir);
}

TEST(PlotText, HostileValuesFromRecordsStayText) {
  const fs::path dir = fresh_dir("plot-data");
  hostile_store(dir);
  const auto o = nnlb_in(dir, {"plot", "hostile.jsonl", "--kind", "bars", "--x", "scenario.name", "--y", "summary.steps", "--out", "bars.svg"});
  ASSERT_EQ(o.status, 0) << o.err;
  EXPECT_TRUE(pwned(dir).empty()) << pwned(dir).front();
  const std::string svg = test::slurp(dir / "bars.svg");
  EXPECT_NE(svg.find("a `touch PWNED1` b"), std::string::npos);
  EXPECT_NE(svg.find("system(\"touch PWNED2\")"), std::string::npos);
  const auto csv = test::slurp(dir / "bars.csv");
  EXPECT_NE(csv.find("\"system(\"\"touch PWNED2\"\")\""), std::string::npos) << csv;  // CSV quotes doubled
  fs::remove_all(dir);
}

TEST(PlotText, EveryChartKindQuotesItsTexts) {
  const fs::path dir = fresh_dir("plot-kinds"), cwd = fs::current_path();
  fs::current_path(dir);  // where gnuplot would run an injected command
  std::vector<json> records;
  for (std::size_t k = 0; k < hostile.size(); ++k)
    records.push_back({{"scenario", {{"name", hostile[k]}}},
                       {"topology", {{"nodes", 4.0 * static_cast<double>(k + 1)}}},
                       {"summary", {{"steps", 10.0 * static_cast<double>(k + 1)}}},
                       {"seed", 1},
                       {"load_history", {{"steps", {0, 1}}, {"loads", {{1.0, 2.0}, {1.5, 1.5}}}}}});
  for (const std::string kind : {"lines", "fit", "bars", "heatmap"}) {
    PlotSpec p{.kind = kind, .x = "topology.nodes", .y = {"summary.steps"}, .group = {"scenario.name"}, .file = kind,
               .title = hostile[2], .xlabel = hostile[4], .ylabel = hostile[3]};
    if (kind == "bars") p.x = "scenario.name", p.group.clear();
    write_plots({p}, records, dir.string(), hostile[0], ".svg")[p.file];
    EXPECT_TRUE(fs::exists(dir / (kind + ".svg"))) << kind;
  }
  EXPECT_TRUE(pwned(dir).empty()) << pwned(dir).front();
  fs::current_path(cwd);
  fs::remove_all(dir);
}

TEST(PlotText, QuotesAtTheStartOrDoubledStillDraw) {
  // gnuplot reads '' at the start of a quoted string as an empty string: these titles once made
  // it fail (exit 2, the script left behind).
  const fs::path dir = fresh_dir("plot-quotes");
  hostile_store(dir);
  for (const std::string title : {"'start", "a''b", "''", "'", "end'", "'`touch PWNED7`'"}) {
    const auto o = nnlb_in(dir, {"plot", "hostile.jsonl", "--x", "seed", "--y", "summary.steps", "--title", title, "--out", "q.svg"});
    ASSERT_EQ(o.status, 0) << title << ": " << o.err;
    EXPECT_NE(test::slurp(dir / "q.svg").find(title.find('`') == std::string::npos ? title : "`touch PWNED7`"), std::string::npos) << title;
  }
  EXPECT_TRUE(pwned(dir).empty()) << pwned(dir).front();
  fs::remove_all(dir);
}

struct BadFile {
  std::string text;    // the sweep file
  std::string expect;  // in the error line
};

TEST(BadInput, IllTypedSweepFileValuesAreOneLineExitTwo) {
  const fs::path dir = fresh_dir("types");
  const std::string plot = "[plot.p]\nx = \"topology.nodes\"\ny = \"summary.steps\"\n";
  const std::vector<BadFile> cases = {
      {"[study]\nrepeat = \"three\"\n", "key 'study.repeat': expected an integer in 1..100000, got \"three\""},
      {"[study]\nrepeat = -3\n", "key 'study.repeat': expected an integer in 1..100000, got -3"},
      {"[study]\nrepeat = 0\n", "key 'study.repeat'"},
      {"[study]\nrepeat = 1e30\n", "key 'study.repeat'"},
      {"[study]\nseed = \"x\"\n", "key 'study.seed'"},
      {"[study]\nkeep_series = 1\n", "key 'study.keep_series': expected true or false"},
      {"[study]\ntitle = 7\n", "key 'study.title': expected a string, got 7"},
      {"[study]\nscenario = [1]\n", "key 'study.scenario'"},
      {plot + "logy = \"yes\"\n", "key 'plot.p.logy': expected true or false, got \"yes\""},
      {plot + "kind = \"bars\"\nlogx = true\n", "key 'plot.p.logx': kind bars has categories or nodes along x"},
      {plot + "title = 7\n", "key 'plot.p.title': expected a string"},
      {plot + "where = 5\n", "key 'plot.p.where': expected a string or a list of strings, got 5"},
      {plot + "labels = [1, 2]\n", "key 'plot.p.labels'"},
      {plot + "x_max = \"far\"\n", "key 'plot.p.x_max': expected a number >= 0"},
      {"[plot.p]\nx = 3\ny = \"summary.steps\"\n", "key 'plot.p.x': expected a string"},
      {"[base]\nstop.time = inf\n", "[base]: key 'stop.time': expected a finite number, got inf"},
      {"[base]\nstop.steps = 1e30\n", "[base]: key 'stop.steps': expected a non-negative integer, got 1e+30"},
      {"[sweep]\nseed = [1, 2]\ntopology = [\"mesh:4x4\"]\nalgorithm = [\"adf\"]\nalpha = [0.1, 0.2, 0.3]\n"
       "stop.steps = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]\n[study]\nrepeat = 100000\n",
       "key 'sweep': 6e+06 runs (points x repeat), more than the 1000000 a sweep may hold"},
      {"[sweep]\nalgorithm = [\"ade\", \"ode\"]\nexclude = [{topology = \"line:16\"}]\n", "key 'sweep.exclude': 'topology' is not a swept key"},
      {"[sweep]\nalgorithm = [\"ade\", \"ode\"]\nexclude = [{algorithm = \"odf\"}]\n",
       "key 'sweep.exclude': algorithm = \"odf\" is not one of the values swept"},
      {"[sweep]\nalgorithm = [\"ade\", \"ode\"]\nexclude = [{}]\n", "key 'sweep.exclude': expected a table of swept keys and values"},
      {"[sweep]\nalgorithm = [\"ade\", \"ode\"]\nexclude = \"ode\"\n", "key 'sweep.exclude': expected a list of tables"},
      {"[sweep]\nalgorithm = [\"ode\"]\nexclude = [{algorithm = \"ode\"}]\n", "key 'sweep.exclude': leaves no point to run"},
      {"[sweep]\nalgorithm = [{a = 1}]\n", "[sweep]: key 'algorithm': expected a string"},
  };
  for (const auto& c : cases) {
    std::ofstream(dir / "s.toml") << c.text;
    expect_refused(nnlb_in(dir, {"sweep", "s.toml", "-q", "--store", "s.jsonl"}), std::string("s.toml") + (c.expect.starts_with("[") ? " " : ": ") + c.expect,
                   c.text);
    EXPECT_FALSE(fs::exists(dir / "s.jsonl")) << c.text;
  }
  fs::remove_all(dir);
}

// Found by tests/fuzz/fuzz.py (docs/fuzzing.md).
TEST(Fuzzed, APlotWithNothingToDrawIsOneLineAndLeavesNoChart) {
  const fs::path dir = fresh_dir("nothing-to-draw");
  std::ofstream(dir / "s.toml") << "[base]\ntopology = \"line:8\"\nstop.steps = 20\n[sweep]\nalgorithm = [\"fos\", \"ade\"]\n"
                                   "[plot.steps]\nkind = \"bars\"\nx = \"scenario.algorithm\"\ny = [\"summary.stepz\"]\n";
  const auto o = nnlb_in(dir, {"sweep", "s.toml", "-q", "--store", "s.jsonl", "--out-dir", "."});
  EXPECT_EQ(o.status, 2) << o.err;
  EXPECT_NE(o.err.find("nnlb: plot 's-steps': key 'y': nothing to draw: 2 records match, none with a number at summary.stepz"), std::string::npos)
      << o.err;
  EXPECT_EQ(std::count(o.err.begin(), o.err.end(), '\n'), 2) << o.err;  // the store's note, then the error
  EXPECT_TRUE(fs::exists(dir / "s.jsonl"));                            // the runs are kept: rerun after fixing the plot
  for (const char* ext : {".csv", ".png", ".gp"}) EXPECT_FALSE(fs::exists(dir / (std::string("s-steps") + ext))) << ext;
  fs::remove_all(dir);
}

TEST(Fuzzed, ARecordWithAFieldOfTheWrongTypeIsOneLineNamingIt) {
  // A series cell that is a list, columns of unequal length, a load history that is not one: the
  // plot said "[json.exception.type_error.302] type must be number, but is array".
  const fs::path dir = fresh_dir("wrong-type");
  const std::string series = R"({"key":"a","summary":{},"series":{"steps":[0,1],"imbalance":[1,[1,2]]}})";
  const std::string uneven = R"({"key":"b","summary":{},"series":{"steps":[0,1,2],"imbalance":[1,2]}})";
  const std::string history = R"({"key":"c","summary":{},"seed":1,"load_history":{"steps":"x","loads":[[1]]}})";
  const std::vector<std::pair<std::string, std::vector<std::string>>> cases = {
      {series, {"--kind", "series", "--x", "steps", "--y", "imbalance"}},
      {uneven, {"--kind", "series", "--x", "steps", "--y", "imbalance"}},
      {history, {"--kind", "heatmap"}}};
  for (const auto& [record, how] : cases) {
    std::ofstream(dir / "r.jsonl") << record << "\n";
    std::vector<std::string> args = {"plot", "r.jsonl", "--out", "p.png"};
    args.insert(args.end(), how.begin(), how.end());
    const auto o = nnlb_in(dir, args);
    EXPECT_EQ(o.status, 2) << record << o.err;
    EXPECT_EQ(o.err.find("json.exception"), std::string::npos) << o.err;
    EXPECT_EQ(std::count(o.err.begin(), o.err.end(), '\n'), 1) << o.err;
    EXPECT_FALSE(fs::exists(dir / "p.png"));
  }
  fs::remove_all(dir);
}

TEST(Fuzzed, AGoodPlotBeforeABadOneIsNotDrawnEither) {
  const fs::path dir = fresh_dir("two-plots");
  std::ofstream(dir / "s.toml") << "[base]\nstop.steps = 20\n[sweep]\ntopology = [\"ring:4\", \"ring:8\"]\n"
                                   "[plot.a]\nx = \"topology.nodes\"\ny = \"summary.steps\"\n"
                                   "[plot.b]\nx = \"topology.nodes\"\ny = \"summary.stepz\"\n";
  const auto o = nnlb_in(dir, {"sweep", "s.toml", "-q", "--store", "s.jsonl", "--out-dir", "."});
  EXPECT_EQ(o.status, 2) << o.err;
  for (const char* f : {"s-a.png", "s-a.csv", "s-a.gp", "s-b.png"}) EXPECT_FALSE(fs::exists(dir / f)) << f;
  fs::remove_all(dir);
}

TEST(Fuzzed, AFitOfEqualValuesIsDrawn) {
  // Every run stops at 10000 steps: the fitted line is 10000 to 1e-15, and gnuplot cannot
  // autoscale an axis that narrow ("y_min should not equal y_max").
  const fs::path dir = fresh_dir("flat-fit");
  std::ofstream(dir / "s.toml") << "[base]\nstop.steps = 10000\n[sweep]\ntopology = [\"ring:4\", \"ring:8\", \"ring:16\"]\n"
                                   "[plot.fit]\nkind = \"fit\"\nx = \"topology.nodes\"\ny = \"summary.steps\"\n";
  const auto o = nnlb_in(dir, {"sweep", "s.toml", "-q", "--store", "s.jsonl", "--out-dir", "."});
  EXPECT_EQ(o.status, 0) << o.err;
  EXPECT_TRUE(fs::exists(dir / "s-fit.png"));
  fs::remove_all(dir);
}

TEST(Fuzzed, ControlCharactersFromTheInputAreEscapedInTheErrorLine) {
  const fs::path dir = fresh_dir("control");
  std::ofstream(dir / "g.graph") << "3 2\n2\n1 3\n2\x1d" "9\n";
  std::ofstream(dir / "s.toml") << "topology = \"hype\\rcube:4\"\n";  // a TOML escape: the value holds a CR
  const auto graph = nnlb_in(dir, {"run", "--set", "topology=file:g.graph", "--out", "r.json"});
  expect_refused(graph, "neighbour '2\\x1d9' of node 3", "a METIS line with a group separator");
  const auto scenario = nnlb_in(dir, {"run", "s.toml", "--out", "r.json"});
  expect_refused(scenario, "unknown topology 'hype\\rcube'", "a topology with a carriage return");
  EXPECT_EQ(scenario.err.find('\r'), std::string::npos);
  fs::remove_all(dir);
}

TEST(Fuzzed, AWorkloadThatDrainsTheLoadStaysConserved) {
  // Consumption drains the total towards 0; the conservation tolerance is relative to the largest
  // load the run has held, not to the shrinking total (SOS on a hypercube ended "not conserved").
  const fs::path dir = fresh_dir("drain");
  std::ofstream(dir / "d.toml") << "topology = \"hypercube:5\"\nalgorithm = \"sos\"\ninvocation = \"threshold\"\n"
                                   "threshold.low = 10\nthreshold.high = 50\nworkload.kind = \"dynamic\"\n"
                                   "workload.generation_mean = 0\nworkload.generation_variance = 1\nworkload.consumption = 2\n"
                                   "stop.steps = 1000\n";
  const auto o = nnlb_in(dir, {"run", "d.toml", "--out", "r.json"});
  EXPECT_EQ(o.status, 0) << o.err;
  // Generating 3e8 per node and consuming everything: the check's scale includes the generated
  // load, not only the (zero) total left.
  std::ofstream(dir / "e.toml") << "topology = \"hypercube:5\"\nalgorithm = \"sos\"\nworkload.kind = \"dynamic\"\n"
                                   "workload.generation_mean = 3e8\nworkload.consumption = 1e308\nstop.steps = 20\n";
  const auto e = nnlb_in(dir, {"run", "e.toml", "--out", "r.json"});
  EXPECT_EQ(e.status, 0) << e.err;
  fs::remove_all(dir);
}

TEST(BadInput, ABadLaterPointRunsNothing) {
  const fs::path dir = fresh_dir("later-point");
  std::ofstream(dir / "s.toml") << "[base]\nstop.steps = 5\n[sweep]\ntopology = [\"mesh:4x4\", \"mesh:6x6\", \"star:5\"]\n"
                                   "algorithm = [\"odf\"]\n";
  const auto o = nnlb_in(dir, {"sweep", "s.toml", "-q", "--threads", "1", "--store", "s.jsonl"});
  expect_refused(o, "s.toml: key 'alpha': 'odf' is defined only on meshes", "odf on a star");
  EXPECT_NE(o.err.find("(sweep point algorithm=odf topology=star:5)"), std::string::npos) << o.err;
  EXPECT_FALSE(fs::exists(dir / "s.jsonl")) << "no run may start before every point is checked";
  fs::remove_all(dir);
}

// Friction 3: the refusal of Xu's optimal parameters off the grids suggests values that run.
TEST(BadInput, OptimalParametersOffTheGridsSuggestWhatRuns) {
  const fs::path dir = fresh_dir("ode-elsewhere");
  const auto ode = nnlb_in(dir, {"run", "--set", "topology=p2p:30", "--set", "algorithm=ode"});
  expect_refused(ode, "key 'lambda': 'ode' is defined only on meshes, tori and hypercubes (Xu et al. 1995), not on 'p2p:30'; use "
                      "algorithm 'ade', or 'de' with lambda = a number in (0, 1)", "ode on p2p");
  EXPECT_EQ(ode.err.find("optimal"), std::string::npos) << "lambda has no 'optimal': " << ode.err;
  const auto odf = nnlb_in(dir, {"run", "--set", "topology=p2p:30", "--set", "algorithm=odf"});
  expect_refused(odf, "key 'alpha': 'odf' is defined only on meshes, tori and hypercubes (Xu et al. 1995), not on 'p2p:30'; use "
                      "algorithm 'fos' or 'sos' with alpha = optimal, cybenko, boillat or a number in (0, 1)", "odf on p2p");
  for (const std::vector<std::string>& suggested : {std::vector<std::string>{"algorithm=ade"}, {"algorithm=de", "lambda=0.4"},
                                                   {"algorithm=fos", "alpha=optimal"}, {"algorithm=sos", "alpha=boillat"}}) {
    std::vector<std::string> args = {"run", "--set", "topology=p2p:30", "--set", "stop.steps=3"};
    for (const auto& a : suggested) args.insert(args.end(), {"--set", a});
    const auto o = nnlb_in(dir, args);
    EXPECT_EQ(o.status, 0) << suggested.back() << ": " << o.err;
  }
  fs::remove_all(dir);
}

// Friction 4: studies are found in $NNLB_SCENARIOS, else beside the executable, else in the
// source tree, never in the current folder; a --list that finds none says where it looked.
TEST(Reproduce, StudiesAreFoundWhereTheDocsSayAndALocalScenariosFolderHidesNothing) {
  const fs::path dir = fresh_dir("scenarios");
  fs::create_directories(dir / "scenarios" / "mine");
  std::ofstream(dir / "scenarios" / "mine" / "plain.toml") << "topology = \"ring:4\"\n";
  const auto builtin = nnlb_in(dir, {"reproduce", "--list"});
  ASSERT_EQ(builtin.status, 0) << builtin.err;
  EXPECT_NE(builtin.out.find("\nxu1995/fig2 "), std::string::npos) << builtin.out;
  EXPECT_NE(builtin.out.find("Xu et al. 1995, Fig. 2: steps to nu <= 1 on k x k meshes (1280 runs"), std::string::npos) << builtin.out;
  EXPECT_NE(builtin.err.find("studies in "), std::string::npos) << builtin.err;
  EXPECT_EQ(builtin.err.find((dir / "scenarios").string()), std::string::npos) << builtin.err;

  ::setenv("NNLB_SCENARIOS", (dir / "scenarios").c_str(), 1);
  const auto none = nnlb_in(dir, {"reproduce", "--list"});
  expect_refused(none, "reproduce --list: no study in " + (dir / "scenarios").string() + " ($NNLB_SCENARIOS)", "no study");
  std::ofstream(dir / "scenarios" / "mine" / "study.toml") << "[study]\ntitle = \"mine\"\n[base]\nstop.steps = 2\n";
  const auto mine = nnlb_in(dir, {"reproduce", "--list"});
  EXPECT_EQ(mine.status, 0) << mine.err;
  EXPECT_EQ(mine.out, "mine/study  mine (1 run)\n");
  ::setenv("NNLB_SCENARIOS", (dir / "missing").c_str(), 1);
  expect_refused(nnlb_in(dir, {"reproduce", "--list"}), "NNLB_SCENARIOS=" + (dir / "missing").string() + ": is not a folder", "missing");
  ::unsetenv("NNLB_SCENARIOS");

  const auto help = nnlb_in(dir, {"reproduce", "--help"});
  EXPECT_NE(help.out.find("$NNLB_SCENARIOS"), std::string::npos) << help.out;
  EXPECT_NE(help.out.find("share/nnlb/scenarios"), std::string::npos) << help.out;
  fs::remove_all(dir);
}

// Friction 7, the small ones.
TEST(Frictions, SweepTableTakesZippedLabelsAndOnlyTheTableGoesToStdout) {
  const fs::path dir = fresh_dir("zipped-table");
  std::ofstream(dir / "s.toml") << "[study]\nrepeat = 2\n[base]\ntopology = \"ring:8\"\nstop.steps = 5\n[sweep]\n"
                                   "\"name+algorithm+lambda\" = [[\"plain DE\", \"de\", 0.4], [\"ADE\", \"ade\", \"\"]]\n"
                                   "[plot.moved]\nkind = \"bars\"\nx = \"scenario.name\"\ny = \"summary.load_moved\"\n";
  const auto o = nnlb_in(dir, {"sweep", "s.toml", "-q", "--store", "s.jsonl"});
  ASSERT_EQ(o.status, 0) << o.err;
  std::istringstream table(o.out);
  std::vector<std::string> rows;
  for (std::string line; std::getline(table, line);) rows.push_back(line);
  ASSERT_EQ(rows.size(), 3u) << o.out;
  EXPECT_TRUE(rows[1].starts_with("name=plain DE algorithm=de lambda=0.4 ")) << rows[1];
  EXPECT_TRUE(rows[2].starts_with("name=ADE algorithm=ade lambda= ")) << rows[2];
  EXPECT_EQ(rows[0].find("runs") + 3, rows[1].find(" 2 ") + 1) << "columns line up:\n" << o.out;
  EXPECT_NE(o.err.find("results store: s.jsonl"), std::string::npos) << o.err;
  // Plots are named after the sweep; bars over repeats carry their range.
  EXPECT_NE(o.err.find("wrote s-moved.png"), std::string::npos) << o.err;
  EXPECT_NE(test::slurp(dir / "s-moved.gp").find("set style histogram errorbars"), std::string::npos);
  EXPECT_TRUE(test::slurp(dir / "s-moved.csv").starts_with("cluster,bar,mean,min,max,samples,missing\n"));
  const auto run = nnlb_in(dir, {"run", "--set", "topology=ring:8", "--set", "stop.steps=2", "--out", "r.json"});
  ASSERT_EQ(run.status, 0) << run.err;
  EXPECT_EQ(run.err, "wrote r.json\n");
  EXPECT_EQ(run.out.find("wrote"), std::string::npos) << run.out;
  fs::remove_all(dir);
}

TEST(Frictions, RecordsDescribeTheirEngine) {
  const fs::path dir = fresh_dir("engine-text");
  const auto des = nnlb_in(dir, {"run", "--set", "engine=des", "--set", "topology=ring:8", "--set", "stop.time=1",
                                 "--set", "async.virtual_load=true"});
  ASSERT_EQ(des.status, 0) << des.err;
  const std::string head = des.out.substr(0, des.out.find('\n'));
  EXPECT_NE(head.find("des engine, asynchronous balancer with virtual load"), std::string::npos) << head;
  EXPECT_EQ(head.find("port"), std::string::npos) << head;
  EXPECT_EQ(head.find("synchronous invocation"), std::string::npos) << head;
  const auto sync = nnlb_in(dir, {"run", "--set", "topology=ring:8", "--set", "stop.steps=2", "--format", "json"});
  ASSERT_EQ(sync.status, 0) << sync.err;
  EXPECT_FALSE(json::parse(sync.out)["series"].contains("time")) << "sync has no simulated time";
  const auto timed = nnlb_in(dir, {"run", "--set", "engine=des", "--set", "topology=ring:8", "--set", "stop.time=1", "--format", "json"});
  EXPECT_TRUE(json::parse(timed.out)["series"].contains("time"));
  fs::remove_all(dir);
}

TEST(Frictions, ImagesAreNamedByTheirFormatAndBoundsReadable) {
  const fs::path dir = fresh_dir("image-names");
  expect_refused(nnlb_in(dir, {"run", "--set", "stop.steps=2", "--plot", "p.jpg", "--out", "r.json"}),
                 "--plot: 'p.jpg': the image format follows the extension, .png or .svg, not .jpg", "--plot p.jpg");
  EXPECT_FALSE(fs::exists(dir / "r.json"));
  EXPECT_FALSE(fs::exists(dir / "p.jpg"));
  expect_refused(nnlb_in(dir, {"run", "--repeat", "0"}), "--repeat: must be an integer in 1..1000000, got '0'", "--repeat 0");
  expect_refused(nnlb_in(dir, {"run", "--threads", "-1"}), "--threads: must be an integer in 0..4096, got '-1'", "--threads -1");
  fs::remove_all(dir);
}

// Ctrl-C: one line saying what was kept, exit status 130. The signal is sent while blocked, as
// the child starts: nnlb handles it as soon as it unblocks it, whatever the timing.
TEST(Frictions, AnInterruptSaysWhatWasKept) {
  const fs::path dir = fresh_dir("interrupt");
  const fs::path err = dir / "err";
  sigset_t interrupt, before;
  sigemptyset(&interrupt);
  sigaddset(&interrupt, SIGINT);
  ::sigprocmask(SIG_BLOCK, &interrupt, &before);
  const pid_t pid = ::fork();
  if (pid == 0) {
    const int e = ::open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    ::dup2(e, 2);
    ::alarm(120);
    ::execl(NNLB_BINARY, NNLB_BINARY, "run", "--set", "topology=torus:1000x1000", "--set", "stop.steps=100000", static_cast<char*>(nullptr));
    ::_exit(127);
  }
  ::kill(pid, SIGINT);
  ::sigprocmask(SIG_SETMASK, &before, nullptr);
  int raw = 0;
  ::waitpid(pid, &raw, 0);
  ASSERT_TRUE(WIFEXITED(raw)) << "killed by signal " << WTERMSIG(raw);
  EXPECT_EQ(WEXITSTATUS(raw), 130);
  const std::string text = test::slurp(err);
  EXPECT_NE(text.find("nnlb: interrupted; nothing was written\n"), std::string::npos) << text;
  EXPECT_EQ(lines(text), 2u) << "a new line, then the message: " << text;
  fs::remove_all(dir);
}

TEST(BadInput, EmptyTextUnsetsAnOptionalKey) {
  Scenario s;
  s.set("stop.imbalance", 1.0, "test");
  s.set("stop.imbalance", "", "test");
  EXPECT_FALSE(s.is_set("stop.imbalance"));
  EXPECT_THROW(s.set("topology", json(nullptr), "test"), InputError);
  EXPECT_THROW(s.set("stop.steps", 1e300, "test"), InputError);
}

TEST(BadInput, FilesAndFoldersInTheWay) {
  const fs::path dir = fresh_dir("in-the-way");
  std::ofstream(dir / "results") << "a plain file\n";
  std::ofstream(dir / "s.toml") << "[base]\nstop.steps = 5\ntopology = \"ring:8\"\n[plot.p]\nx = \"topology.nodes\"\ny = \"summary.steps\"\n";
  expect_refused(nnlb_in(dir, {"sweep", "s.toml", "-q"}), "results: is a file, not a folder", "default store under ./results");
  expect_refused(nnlb_in(dir, {"sweep", "s.toml", "-q", "--store", "s.jsonl", "--out-dir", "results"}), "results: is a file, not a folder",
                 "sweep --out-dir a file");
  EXPECT_FALSE(fs::exists(dir / "s.jsonl")) << "refused before running";
  expect_refused(nnlb_in(dir, {"reproduce", "xu1995/fig2", "--quick", "-q", "--out-dir", "results"}), "results: is a file, not a folder",
                 "reproduce --out-dir a file");
  expect_refused(nnlb_in(dir, {"reproduce", "xu1995/fig2", "--quick", "-q", "--out-dir", "out", "--report-dir", "results"}),
                 "results: is a file, not a folder", "reproduce --report-dir a file");
  EXPECT_FALSE(fs::exists(dir / "out" / "xu1995" / "fig2" / "fig2.jsonl")) << "refused before running";
  expect_refused(nnlb_in(dir, {"run", "."}), ".: is a folder, not a scenario file", "run .");
  expect_refused(nnlb_in(dir, {"sweep", "."}), ".: is a folder, not a study file", "sweep .");
  fs::remove_all(dir);
}

TEST(BadInput, ExceptionsOfAnyKindAreOneLineExitTwo) {
  const fs::path dir = fresh_dir("any-exception");
  // A series of strings: the JSON library's own type error, not an InputError.
  std::ofstream(dir / "runs.json") << R"({"series": {"steps": ["a"], "imbalance": [1]}})";
  const auto o = nnlb_in(dir, {"plot", "runs.json", "--kind", "series", "--x", "steps", "--y", "imbalance", "--out", "p.png"});
  EXPECT_EQ(o.status, 2) << o.err;
  EXPECT_EQ(lines(o.err), 1u) << o.err;
  EXPECT_TRUE(o.err.starts_with("nnlb: ")) << o.err;
  EXPECT_FALSE(fs::exists(dir / "p.png"));
  fs::remove_all(dir);
}

TEST(BadInput, DeeplyNestedJsonIsRefused) {
  const fs::path dir = fresh_dir("deep");
  const std::string deep = std::string(200000, '[') + std::string(200000, ']');
  std::ofstream(dir / "deep.json") << deep;
  expect_refused(nnlb_in(dir, {"plot", "deep.json", "--x", "a", "--y", "b", "--out", "p.png"}), "deep.json: nested deeper than 64 levels",
                 "deep record");
  std::ofstream(dir / "deep.jsonl") << deep << "\n";
  const auto o = nnlb_in(dir, {"plot", "deep.jsonl", "--x", "a", "--y", "b", "--out", "p.png"});
  EXPECT_EQ(o.status, 2) << o.err;
  EXPECT_NE(o.err.find("deep.jsonl:1: corrupt record skipped"), std::string::npos) << o.err;
  EXPECT_NE(o.err.find("deep.jsonl: holds no records"), std::string::npos) << o.err;
  EXPECT_FALSE(fs::exists(dir / "p.png"));
  fs::remove_all(dir);
}

TEST(BadInput, AnalyzeRefusesImbalanceTargetsThatAreNotPositive) {
  const fs::path dir = fresh_dir("analyze");
  for (const std::string target : {"-1", "0", "nan"})
    expect_refused(nnlb_in(dir, {"analyze", "--set", "topology=ring:8", "--target", target}),
                   "nnlb: --target: must be an imbalance factor nu > 0, got " + target, target);
  expect_refused(nnlb_in(dir, {"analyze", "--set", "topology=ring:8", "--set", "stop.imbalance=0"}),
                 "key 'stop.imbalance': analyze needs a target nu > 0 (or --target)", "stop.imbalance = 0");
  expect_refused(nnlb_in(dir, {"analyze", "--set", "topology=ring:8", "--initial-imbalance", "-5"}),
                 "nnlb: --initial-imbalance: must be an imbalance factor nu > 0", "initial -5");
  fs::remove_all(dir);
}

TEST(BadInput, GraphAndLoadFilesAreBoundedBeforeAllocating) {
  const fs::path dir = fresh_dir("graph-files");
  std::ofstream(dir / "far.edges") << "0 1\n1 4000000000\n";
  std::ofstream(dir / "farther.edges") << "0 1\n1 2\n2 300000000\n";
  std::ofstream(dir / "float.edges") << "0 1\n1 3e8\n";
  std::ofstream(dir / "gap.edges") << "0 1\n3 4\n";
  const std::vector<BadFile> cases = {
      {"topology=file:far.edges", "far.edges: key 'topology': node id 4000000000 is too large: the file's 2 edges touch at most 4 nodes"},
      {"topology=file:farther.edges", "farther.edges: key 'topology': node id 300000000 is too large"},
      {"topology=file:gap.edges", "gap.edges: key 'topology': node id 4 is too large: the file's 2 edges touch at most 4 nodes"},
      {"topology=file:float.edges", "float.edges:2: key 'topology': '3e8' is not a node id"},
      {"topology=file:/dev/zero", "/dev/zero: key 'topology': graph file is not a regular file"},
      {"load.init=file:/dev/zero", "/dev/zero: key 'load.init': load file is not a regular file"},
      {"load.init=random-total:1e308*N", "key 'load.init': 'random-total:1e308*N': the total load inf exceeds 1e+100"},
      {"load.init=uniform:0,1e300", "key 'load.init': 'uniform:0,1e300': the total load"},
      {"load.init=single:3,1e200", "key 'load.init': 'single:3,1e200': the total load 1e+200 exceeds 1e+100"},
  };
  for (const auto& c : cases) {
    expect_refused(nnlb_in(dir, {"run", "--set", "topology=ring:8", "--set", c.text, "--out", "r.json"}), c.expect, c.text);
    EXPECT_FALSE(fs::exists(dir / "r.json")) << c.text;
  }
  fs::remove_all(dir);
}

// Graphs far beyond the memory limit are refused from their spec, before any allocation: at
// once, with the estimate and the key to change (the child's limit is its 4 GiB address space).
TEST(Memory, HugeTopologiesAreRefusedBeforeAllocating) {
  const fs::path dir = fresh_dir("memory");
  for (const std::string topology : {"complete:50000", "hypercube:25"})
    for (const std::string command : {"run", "analyze"}) {
      const auto start = std::chrono::steady_clock::now();
      const auto o = nnlb_in(dir, {command, "--set", "topology=" + topology, "--set", "stop.steps=2"});
      const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      expect_refused(o, "key 'topology': needs about ", command + " " + topology);
      EXPECT_NE(o.err.find("use a smaller topology"), std::string::npos) << o.err;
      EXPECT_LT(seconds, 5.0) << command << " " + topology << " took " << seconds << " s";
    }
  fs::remove_all(dir);
}

TEST(Memory, MaxMemorySetsTheLimit) {
  const fs::path dir = fresh_dir("max-memory");
  const std::vector<std::string> run = {"run", "--set", "topology=torus:100x100", "--set", "stop.steps=2", "--out", "r.json"};
  auto with = [&](std::vector<std::string> args, const std::string& size) {
    args.insert(args.end(), {"--max-memory", size});
    return nnlb_in(dir, args);
  };
  expect_refused(with(run, "1M"), "more than the 1 MiB allowed (--max-memory 1 MiB); use a smaller topology", "run 1M");
  EXPECT_FALSE(fs::exists(dir / "r.json"));
  EXPECT_EQ(with(run, "1G").status, 0);
  expect_refused(nnlb_in(dir, {"analyze", "--set", "topology=torus:100x100", "--max-memory", "1M"}), "(--max-memory 1 MiB)", "analyze 1M");
  for (const std::string bad : {"2X", "-1G", "G", "0"}) expect_refused(with(run, bad), "--max-memory: expected a size such as", bad);
  // A sweep's threads run side by side: two runs of about 16 MiB fit in 20 MiB one at a time.
  std::ofstream(dir / "s.toml") << "[base]\ntopology = \"torus:300x300\"\nstop.steps = 2\n[sweep]\nseed = [1, 2]\n";
  const std::vector<std::string> sweep = {"sweep", "s.toml", "-q", "--store", "s.jsonl", "--threads", "2"};
  expect_refused(with(sweep, "20M"), "for 2 runs side by side, more than the 20 MiB allowed (--max-memory 20 MiB); use --threads 1",
                 "sweep 20M");
  EXPECT_FALSE(fs::exists(dir / "s.jsonl"));
  auto one = sweep;
  one.back() = "1";
  EXPECT_EQ(with(one, "20M").status, 0);
  fs::remove_all(dir);
}

TEST(SetOption, FilesNamedOnTheCommandLineAreRelativeToTheCurrentFolder) {
  const fs::path dir = fresh_dir("set-file");
  fs::create_directories(dir / "sub");
  std::ofstream(dir / "sub" / "scenario.toml") << "topology = \"ring:4\"\nstop.steps = 2\n";
  std::ofstream(dir / "sub" / "sweep.toml") << "[study]\nscenario = \"scenario.toml\"\n";
  std::ofstream(dir / "load.txt") << "1\n2\n3\n4\n";
  std::ofstream(dir / "ring.edges") << "0 1\n1 2\n2 3\n3 0\n";
  for (const std::string set : {"load.init=file:load.txt", "load.init=\"file:load.txt\"", "topology=file:ring.edges"}) {
    const auto run = nnlb_in(dir, {"run", "sub/scenario.toml", "--set", set, "--format", "json"});
    ASSERT_EQ(run.status, 0) << set << "\n" << run.err;
    const auto record = json::parse(run.out);
    const std::string key = set.substr(0, set.find('='));
    EXPECT_EQ(record["scenario"][key], "file:" + (dir / (key == "topology" ? "ring.edges" : "load.txt")).string()) << set;
    const auto sweep = nnlb_in(dir, {"sweep", "sub/sweep.toml", "-q", "--store", "s.jsonl", "--set", set});
    EXPECT_EQ(sweep.status, 0) << set << "\n" << sweep.err;
  }
  // The scenario file's own relative paths stay relative to its folder.
  std::ofstream(dir / "sub" / "own.toml") << "topology = \"ring:4\"\nstop.steps = 2\nload.init = \"file:load.txt\"\n";
  expect_refused(nnlb_in(dir, {"run", "sub/own.toml"}), (dir / "sub" / "load.txt").string() + ": key 'load.init': load file not found",
                 "a scenario's own path");
  fs::remove_all(dir);
}

TEST(BadInput, AFailureOnOneRankEndsEveryRank) {
#ifndef NNLB_TEST_MPIRUN
  GTEST_SKIP() << "nnlb was built without MPI";
#else
  // async.lb_period = 0 passes the point checks (the engine refuses it when it starts), so only the
  // rank that runs that point fails; the other must not be left waiting at the barrier.
  const fs::path dir = fresh_dir("mpi-fail");
  std::ofstream(dir / "s.toml") << "[base]\nengine = \"des\"\ntopology = \"ring:8\"\nstop.time = 1.0\n"
                                   "[sweep]\ndes.lb_period = [1e-3, 0.0]\n";
  const auto o = nnlb_in(dir, {"--version"});
  ASSERT_EQ(o.status, 0);
  const std::string cmd = "cd " + dir.string() +
                          " && OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1 "
                          "OMPI_MCA_btl=self,vader timeout -k 10 120 " NNLB_TEST_MPIRUN " -np 2 " NNLB_BINARY
                          " sweep s.toml -q --threads 1 --store s.jsonl > out.txt 2> err.txt";
  const int raw = std::system(cmd.c_str());
  ASSERT_TRUE(WIFEXITED(raw));
  EXPECT_EQ(WEXITSTATUS(raw), 2) << "124 would be the timeout: a rank left waiting";
  EXPECT_NE(test::slurp(dir / "err.txt").find("nnlb: rank 1: "), std::string::npos) << test::slurp(dir / "err.txt");
  fs::remove_all(dir);
#endif
}

}  // namespace
}  // namespace nnlb

namespace nnlb {
namespace {

// Every engine x algorithm pair of `nnlb list`, through `analyze` and through `run` on small
// sizes: each answers, or refuses with one line and exit status 2; none ends by a signal or runs
// away (each process under 4 GB and 120 s). mpi outside mpirun refuses by name.
TEST(EveryPair, AnalyzeAndRunAnswerOrRefuseForEveryEngineAndAlgorithm) {
  const fs::path dir = fresh_dir("pairs");
  std::size_t answered = 0, refusals = 0, pair_index = 0;
  for (const EngineEntry& engine : engines())
    for (const PolicyEntry& policy : policy_catalog().entries()) {
      if (!test::runs_case(pair_index++)) continue;
      std::vector<std::string> sets = {"--set", "engine=" + engine.name, "--set", "algorithm=" + policy.name, "--set", "topology=ring:6"};
      if (is_job_strategy(policy.name)) sets.insert(sets.end(), {"--set", "guest.graph=ring:12"});
      if (is_task_algorithm(policy.name)) sets.insert(sets.end(), {"--set", "tasks.cores=4", "--set", "tasks.init=uniform:20,1,2"});
      if (policy.name == "mr") sets.insert(sets.end(), {"--set", "mr.self=true"});
      if (engine.name == "sync" || engine.name == "rounds") sets.insert(sets.end(), {"--set", "stop.steps=200"});
      else if (engine.name != "p2p") sets.insert(sets.end(), {"--set", "stop.time=5"});
      else sets.insert(sets.end(), {"--set", "stop.time=200"});
      for (const char* command : {"analyze", "run"}) {
        std::vector<std::string> args = {command};
        args.insert(args.end(), sets.begin(), sets.end());
        const Outcome o = nnlb_in(dir, args);
        const std::string what = std::string(command) + " engine=" + engine.name + " algorithm=" + policy.name;
        EXPECT_TRUE(o.status == 0 || o.status == 2) << what << ": status " << o.status << "\n" << o.err;
        if (o.status == 2) {
          ++refusals;
          EXPECT_EQ(lines(o.err), 1u) << what << ": " << o.err;
        } else {
          ++answered;
        }
      }
    }
  EXPECT_GT(answered, 40u / test::case_stride);
  EXPECT_GT(refusals, 20u / test::case_stride);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace nnlb

namespace nnlb {
namespace {

TEST(TaskRuns, MisleadingResultsAreRefusedOrCorrected) {
  const fs::path dir = fresh_dir("tasks");
  const std::vector<std::string> ms = {"run", "--set", "engine=des", "--set", "algorithm=ms", "--set", "tasks.cores=4", "--set", "tasks.init=cq:200"};
  // A time limit that cuts the run short is named.
  std::vector<std::string> short_run = ms;
  short_run.insert(short_run.end(), {"--set", "stop.time=1"});
  expect_refused(nnlb_in(dir, short_run), "key 'stop.time': ended the task run with 0 of 200 tasks executed", "stop.time=1");
  // Work that would overflow the sums is refused.
  std::ofstream(dir / "huge.txt") << "1\n1e308\n";
  expect_refused(nnlb_in(dir, {"run", "--set", "engine=des", "--set", "algorithm=dd", "--set", "tasks.init=file:huge.txt"}),
                 "huge.txt:2: key 'tasks.init': task work must be in (0, 1e12] seconds, got 1e308", "a task of 1e308 s");
  // Efficiency counts the cores' real speed: at most 1 on cores twice the reference speed.
  const Outcome fast = nnlb_in(dir, {"run", "--set", "engine=des", "--set", "algorithm=dd", "--set", "platform.speed=2e9", "--format", "json"});
  ASSERT_EQ(fast.status, 0) << fast.err;
  const json s = json::parse(fast.out)["summary"];
  EXPECT_LE(s["efficiency"].get<double>(), 1.0);
  EXPECT_GT(s["efficiency"].get<double>(), 0.9);
  EXPECT_GE(s["makespan_over_lower_bound"].get<double>(), 1.0);
  fs::remove_all(dir);
}

TEST(TaskRuns, RunawayKeysAreBoundedByName) {
  // Each once ran out of memory or hung: a latency of 1e308 s (samples without end up to an
  // infinite horizon), a background changing every 1e-12 s (a step of the model per change).
  const fs::path dir = fresh_dir("runaway");
  const std::vector<std::string> ms = {"run", "--set", "engine=des", "--set", "algorithm=ms", "--set", "tasks.cores=4", "--set", "tasks.init=cq:200"};
  auto with = [&](const std::string& set) {
    std::vector<std::string> args = ms;
    args.insert(args.end(), {"--set", set});
    return args;
  };
  expect_refused(nnlb_in(dir, with("tasks.latency=1e308")), "key 'tasks.latency': must be in 0 .. 1e6 seconds", "latency 1e308");
  expect_refused(nnlb_in(dir, with("tasks.background=random:0.5,1,1e-12")), "key 'tasks.background': a change every 1e-12 s on 4 cores",
                 "background period 1e-12");
  // At the bound the run ends, its series bounded.
  const Outcome slow = nnlb_in(dir, {"run", "--set", "engine=des", "--set", "algorithm=ms", "--set", "tasks.cores=4", "--set", "tasks.init=cq:20",
                                     "--set", "tasks.latency=1e6", "--format", "json"});
  ASSERT_EQ(slow.status, 0) << slow.err;
  const json series = json::parse(slow.out)["series"];
  ASSERT_TRUE(series.contains("time"));
  EXPECT_LE(series["time"].size(), 100002u);
  fs::remove_all(dir);
}

TEST(Memory, RepeatsAreInTheEstimate) {
  // A million repeats once reached 3.6 GB in 20 s: the first record tells what they need.
  const fs::path dir = fresh_dir("repeat");
  const Outcome many = nnlb_in(dir, {"run", "--repeat", "1000000", "--set", "stop.steps=1", "--max-memory", "1G"});
  expect_refused(many, "--repeat 1000000: needs about", "a million repeats");
  EXPECT_NE(many.err.find("a sweep with a results store"), std::string::npos) << many.err;
  EXPECT_EQ(nnlb_in(dir, {"run", "--repeat", "3", "--set", "stop.steps=1"}).status, 0);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace nnlb

namespace nnlb {
namespace {

TEST(BadInput, InputPathsMustBeRegularFilesCheckedBeforeReading) {
  // /dev/zero never ends: read as a scenario it once grew until killed; as a store, 2.1 GB read.
  const fs::path dir = fresh_dir("regular");
  expect_refused(nnlb_in(dir, {"run", "/dev/zero"}), "/dev/zero: scenario file is not a regular file", "run /dev/zero");
  std::ofstream(dir / "s.toml") << "[study]\nrepeat = 2\n[base]\ntopology = \"ring:4\"\nstop.steps = 3\n";
  expect_refused(nnlb_in(dir, {"sweep", "s.toml", "-q", "--store", "/dev/zero"}), "/dev/zero: results store is not a regular file",
                 "sweep --store /dev/zero");
  // A results folder that cannot be walked (/ holds /proc) is one line, not a filesystem exception.
  const Outcome report = nnlb_in(dir, {"report", "--results", "/", "--out", (dir / "report").string()});
  EXPECT_EQ(report.status, 2) << report.err;
  EXPECT_EQ(lines(report.err), 1u) << report.err;
  EXPECT_EQ(report.err.find("filesystem error"), std::string::npos) << report.err;
  fs::remove_all(dir);
}

}  // namespace
}  // namespace nnlb

namespace nnlb {
namespace {

TEST(BadInput, NamesOfOnePolicyBehaveAlikeAndARefusalSaysHowToQuote) {
  const fs::path dir = fresh_dir("names");
  // gde is de under another name: the same default lambda (ade), not a refusal.
  for (const char* name : {"algorithm=de", "algorithm=gde", "algorithm=dimension-exchange"}) {
    const Outcome o = nnlb_in(dir, {"run", "--set", name, "--set", "topology=ring:4", "--set", "stop.steps=3", "--format", "json"});
    ASSERT_EQ(o.status, 0) << name << ": " << o.err;
    EXPECT_EQ(json::parse(o.out)["parameters"]["lambda"], 0.5) << name;
  }
  // A string key given a boolean: the refusal says how to quote it.
  expect_refused(nnlb_in(dir, {"run", "--set", "name=true"}), "expected a string (quote it: --set 'KEY=\"true\"'", "name=true");
  fs::remove_all(dir);
}

}  // namespace
}  // namespace nnlb

namespace nnlb {
namespace {

TEST(PlotText, AFieldNoRecordHasIsNamedNotDrawnAsNull) {
  const fs::path dir = fresh_dir("plot-typo");
  const fs::path store = hostile_store(dir);
  expect_refused(nnlb_in(dir, {"plot", store.string(), "--kind", "bars", "--x", "TYPO", "--y", "summary.steps", "--out", "t.png"}),
                 "--x: no record in " + store.string() + " has the field 'TYPO'", "bars --x TYPO");
  EXPECT_FALSE(fs::exists(dir / "t.png"));
  EXPECT_FALSE(fs::exists(dir / "t.gp"));
  fs::remove_all(dir);
}

}  // namespace
}  // namespace nnlb

namespace nnlb {
namespace {

TEST(BadInput, ANulByteInAFileDoesNotCutTheLineShort) {
  const fs::path dir = fresh_dir("nul");
  std::ofstream(dir / "p.txt", std::ios::binary) << std::string("\0speed 1\n", 9);
  expect_refused(nnlb_in(dir, {"run", "--set", "platform.file=p.txt"}), "key 'platform.file': unknown line '\\x00speed' (speed or link)",
                 "a NUL byte");
  fs::remove_all(dir);
}

}  // namespace
}  // namespace nnlb

namespace nnlb {
namespace {

TEST(BadInput, FoundByTheFuzzKindsP2pAndPairs) {
  const fs::path dir = fresh_dir("fuzz-p2p");
  // p2p.sample_every = 2^32 wrapped to 0 and divided by it: SIGFPE.
  expect_refused(nnlb_in(dir, {"run", "--set", "engine=p2p", "--set", "topology=p2p:31", "--set", "algorithm=en", "--set", "guest.graph=ring:31",
                               "--set", "p2p.sample_every=4294967296", "--set", "stop.time=50"}),
                 "key 'p2p.sample_every': must be in 1 .. 1e7", "sample_every 2^32");
  // Links of 65,536 s hold every message sent for the whole run: refused with the estimate.
  expect_refused(nnlb_in(dir, {"run", "--set", "engine=des", "--set", "platform.latency=65536"}),
                 "key 'platform.latency': needs about", "latency 65536");
  fs::remove_all(dir);
}

}  // namespace
}  // namespace nnlb
