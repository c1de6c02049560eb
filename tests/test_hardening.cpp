// Hostile and malformed input (issues 14 and 15): nothing reaches a shell or gnuplot as code, and
// bad input is one line on stderr, exit status 2, no partial output, never an abort.
#include <gtest/gtest.h>

#include <algorithm>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <sys/wait.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "nnlb/experiment/study.hpp"

namespace nnlb {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

struct Outcome {
  int status = -1;  // exit status; 128 + signal if killed
  std::string out, err;
};

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

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
    std::vector<char*> argv{const_cast<char*>(NNLB_BINARY)};
    for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    ::execv(NNLB_BINARY, argv.data());
    ::_exit(127);
  }
  int raw = 0;
  ::waitpid(pid, &raw, 0);
  Outcome r{WIFEXITED(raw) ? WEXITSTATUS(raw) : 128 + WTERMSIG(raw), slurp(out), slurp(err)};
  fs::remove(out);
  fs::remove(err);
  return r;
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
  const std::string svg = slurp(dir / image);
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
  const std::string svg = slurp(dir / "bars.svg");
  EXPECT_NE(svg.find("a `touch PWNED1` b"), std::string::npos);
  EXPECT_NE(svg.find("system(\"touch PWNED2\")"), std::string::npos);
  const auto csv = slurp(dir / "bars.csv");
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
    write_plot(p, records, dir.string(), hostile[0], ".svg");
    EXPECT_TRUE(fs::exists(dir / (kind + ".svg"))) << kind;
  }
  EXPECT_TRUE(pwned(dir).empty()) << pwned(dir).front();
  fs::current_path(cwd);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace nnlb
