// The verdict tables at the top of docs/reproductions/*.md: every row has a verdict from one fixed
// list and names what backs it (a study `nnlb reproduce --list` knows, or a test); numbers a row
// quotes from a study's committed CSV are recomputed from that CSV.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "nnlb/experiment/verdicts.hpp"
#include "support.hpp"

namespace {

namespace fs = std::filesystem;
using nnlb::test::Outcome;
using nnlb::test::shell;
const fs::path source{NNLB_SOURCE_DIR};

const std::set<std::string> verdicts{"reproduced", "partly", "not reproduced", "not distinguishable"};
const std::vector<std::string>& header = nnlb::verdict_header;

struct Row {
  std::string page;
  std::vector<std::string> cells;
};

// The rows of the first table under "## Verdicts" on every page.
std::vector<Row> verdict_rows(std::vector<std::string>* pages_without = nullptr) {
  std::vector<Row> rows;
  for (const auto& e : fs::directory_iterator(source / "docs/reproductions")) {
    if (e.path().extension() != ".md") continue;
    const nnlb::VerdictTable t = nnlb::read_verdicts(nnlb::test::slurp(e.path()));
    if (!t.found) {
      if (pages_without) pages_without->push_back(e.path().filename().string());
      continue;
    }
    EXPECT_EQ(t.header, header) << e.path().filename();
    for (const auto& cells : t.rows) rows.push_back({e.path().filename().string(), cells});
  }
  return rows;
}

std::set<std::string> listed_studies() {
  const Outcome o = shell("NNLB_SCENARIOS=" + (source / "scenarios").string() + " " + NNLB_BINARY +
                          " reproduce --list 2>/dev/null");
  EXPECT_EQ(o.status, 0);
  std::set<std::string> names;
  std::istringstream in(o.out);
  std::string line;
  while (std::getline(in, line))
    if (!line.empty()) names.insert(line.substr(0, line.find(' ')));
  return names;
}

// The names of the tests in tests/*.cpp, as Suite.Name.
std::string test_sources() {
  std::string all;
  for (const auto& e : fs::directory_iterator(source / "tests"))
    if (e.path().extension() == ".cpp") all += nnlb::test::slurp(e.path());
  return all;
}

TEST(VerdictTables, EveryRowHasAVerdictFromTheListAndNamesWhatBacksIt) {
  std::vector<std::string> without;
  const std::vector<Row> rows = verdict_rows(&without);
  EXPECT_TRUE(without.empty()) << "no verdict table on " << (without.empty() ? "" : without.front());
  ASSERT_GE(rows.size(), 30u);
  const std::set<std::string> studies = listed_studies();
  ASSERT_TRUE(studies.count("filipovic2016/split")) << "reproduce --list misses a study";
  const std::string tests = test_sources();
  const std::regex study_name{R"(^[a-z0-9-]+/[a-z0-9-]+$)"};
  const std::regex test_name{R"(^([A-Za-z0-9_]+)\.([A-Za-z0-9_]+?)(\.\.\.)?$)"};
  const std::regex quoted{"`([^`]+)`"};
  for (const Row& r : rows) {
    ASSERT_EQ(r.cells.size(), header.size()) << r.page << ": " << (r.cells.empty() ? "" : r.cells.front());
    const std::string& claim = r.cells[0];
    EXPECT_TRUE(verdicts.count(r.cells[3])) << r.page << ", '" << claim << "': verdict '" << r.cells[3] << "'";
    int backed = 0;
    const std::string& run = r.cells[5];
    for (auto it = std::sregex_iterator(run.begin(), run.end(), quoted); it != std::sregex_iterator(); ++it) {
      const std::string name = (*it)[1];
      std::smatch m;
      if (name.rfind("tools/", 0) == 0) {
        EXPECT_TRUE(fs::exists(source / name)) << r.page << ": " << name;
      } else if (std::regex_match(name, study_name)) {
        EXPECT_TRUE(studies.count(name)) << r.page << ", '" << claim << "': no study " << name;
        EXPECT_TRUE(fs::exists(source / "scenarios" / (name + ".toml"))) << name;
        ++backed;
      } else if (std::regex_match(name, m, test_name)) {
        const std::string decl = m[1].str() + ", " + m[2].str();
        EXPECT_NE(tests.find(decl), std::string::npos) << r.page << ", '" << claim << "': no test " << name;
        ++backed;
      } else {
        ADD_FAILURE() << r.page << ", '" << claim << "': '" << name << "' is neither a study, a test nor a tool";
      }
    }
    EXPECT_GT(backed, 0) << r.page << ", '" << claim << "' names no study or test";
  }
}

// The mean of a point in a study's committed CSV (docs/reproductions/PAGE/FILE.csv): a bar
// chart's (cluster, bar) or a line chart's (group, x).
double csv_mean(const std::string& file, const std::string& cluster, const std::string& bar) {
  const std::string text = nnlb::test::slurp(source / "docs/reproductions" / file);
  for (const std::string& key : {"\"" + cluster + "\",\"" + bar + "\",", "\"" + cluster + "\"," + bar + ","}) {
    const auto at = text.find("\n" + key);
    if (at != std::string::npos) return std::stod(text.substr(at + 1 + key.size()));
  }
  ADD_FAILURE() << file << ": no row " << cluster << ", " << bar;
  return NAN;
}

// A number a verdict row quotes, where it comes from, and a factor (100 for a share as %).
struct Quote {
  std::string page, claim_start, text, file, cluster, bar;
  double scale = 1;
  int decimals = 1;
  std::string gain_over;  // set: the quote is (T_base - T) / T_base, base the bar of that name
};

TEST(VerdictTables, QuotedNumbersAreThoseOfTheCommittedCsv) {
  const std::string L = "single:0,64;single:0,320;single:0,640;single:0,3200;single:0,6400;single:0,32000;single:0,64000";
  const std::vector<Quote> quotes{
      {"filipovic2016.md", "CA faster than DD by", "DD 3233.8", "filipovic2016/split-homogeneous-block.csv", "16", "dd"},
      {"filipovic2016.md", "CA faster than DD by", "CA 2941.1", "filipovic2016/split-homogeneous-block.csv", "16", "ca"},
      {"filipovic2016.md", "CA faster than DD by", "DD 2925.7", "filipovic2016/split-homogeneous-cyclic.csv", "16", "dd"},
      {"filipovic2016.md", "CA faster than DD by", "CA 2912.9", "filipovic2016/split-homogeneous-cyclic.csv", "16", "ca"},
      {"filipovic2016.md", "CA better than DD and MS", "MS 503.9", "filipovic2016/fig5-loaded.csv", "128", "ms"},
      {"filipovic2016.md", "CA better than DD and MS", "CA 522.8", "filipovic2016/fig5-loaded.csv", "128", "ca"},
      {"filipovic2016.md", "CA better than DD and MS", "MS 375.1", "filipovic2016/fig5.csv", "128", "ms"},
      {"filipovic2016.md", "CA better than DD and MS", "CA 384.6", "filipovic2016/fig5.csv", "128", "ca"},
      {"filipovic2016.md", "CA better than DD and MS", "MS 374.1", "filipovic2016/structured-homogeneous-structured.csv", "128", "ms"},
      {"filipovic2016.md", "CA better than DD and MS", "CA 389.2", "filipovic2016/structured-homogeneous-structured.csv", "128", "ca"},
      {"filipovic2016.md", "CA better than DD and MS", "MS 374.3", "filipovic2016/split-homogeneous-block.csv", "128", "ms"},
      {"filipovic2016.md", "CA better than DD and MS", "CA 377.6", "filipovic2016/split-homogeneous-cyclic.csv", "128", "ca"},
      {"filipovic2016.md", "CA chooses DD mostly", "block: 100 / 100 / 100 / 100 %", "filipovic2016/split-fig8.csv", "16", "block", 100, 0},
      {"filipovic2016.md", "CA chooses DD mostly", "cyclic: 0 / 0 / 40 / 0 %", "filipovic2016/split-fig8.csv", "64", "cyclic", 100, 0},
      {"filipovic2016.md", "CA chooses DD mostly", "0 / 0 / 70 / 25 %", "filipovic2016/fig8.csv", "64", "homogeneous", 100, 0},
      {"jeannot2006.md", "processors used", "30 us: 3, 5, 5, 7, 7, 7, 7", "jeannot2006/granularity-table1.csv", L, "30000.0", 1, 0},
      {"jeannot2006.md", "processors used", "50 us: 4, 6, 7, 8, 9, 9, 9", "jeannot2006/granularity-table1.csv", L, "50000.0", 1, 0},
      {"jeannot2006.md", "the shaker pays", "-0.097", "jeannot2006/fig6-shaker.csv", "100000000.0", "shaker: reset, any", 1, 3, "FOS"},
      {"jeannot2006.md", "the shaker pays", "-0.098", "jeannot2006/fig6-shaker.csv", "100000000.0", "shaker: cool, any", 1, 3, "FOS"},
      {"jeannot2006.md", "the shaker pays", "+0.075", "jeannot2006/fig6-shaker.csv", "100000000.0", "shaker: reset, unit", 1, 3, "FOS"},
      {"jeannot2006.md", "the shaker pays", "+0.090", "jeannot2006/fig6-shaker.csv", "1000000.0", "shaker: cool, unit", 1, 3, "FOS"},
      {"jeannot2006.md", "the shaker pays", "+0.070", "jeannot2006/fig6-shaker.csv", "1000000.0", "cost/benefit + detection", 1, 3, "FOS"},
      {"jeannot2006.md", "... and is extremely", "+0.055", "jeannot2006/fig6-shaker.csv", "100.0", "cost/benefit + detection", 1, 3, "FOS"},
      {"jeannot2006.md", "... and is extremely", "+0.008", "jeannot2006/fig6-shaker.csv", "100.0", "shaker: cool, unit", 1, 3, "FOS"},
      {"douglas.md", "most robust x", "0.2 46.95", "douglas/fig3-se-cost5.csv", "|G| = 31", "0.2", 1, 2},
      {"douglas.md", "most robust x", "0.35 46.98", "douglas/fig3-se-cost5.csv", "|G| = 31", "0.35", 1, 2},
      {"douglas.md", "most robust x", "0.5 46.97", "douglas/fig3-se-cost5.csv", "|G| = 31", "0.5", 1, 2},
      {"douglas.md", "most robust x", "1 46.87", "douglas/fig3-se-cost5.csv", "|G| = 31", "1", 1, 2},
      {"douglas.md", "most robust x", "best 0.05 (23.93", "douglas/fig3-se-cost5.csv", "|G| = 40", "0.05", 1, 2},
      {"douglas.md", "most robust x", "0.35 14.55", "douglas/fig3-se-cost5.csv", "|G| = 40", "0.35", 1, 2},
      {"douglas.md", "DASUD best at tau", "38.41", "douglas/fig7-se-fig7.csv", "1.0", "50", 1, 2},
      {"douglas.md", "DASUD best at tau", "36.33", "douglas/fig7-se-fig7.csv", "1.0", "5000", 1, 2},
      {"douglas.md", "DASUD best at tau", "(42.63", "douglas/fig7-se-fig7.csv", "0.0", "5", 1, 2},
  };
  const std::vector<Row> rows = verdict_rows();
  for (const Quote& q : quotes) {
    const Row* row = nullptr;
    for (const Row& r : rows)
      if (r.page == q.page && r.cells[0].rfind(q.claim_start, 0) == 0 && !row) row = &r;
    ASSERT_NE(row, nullptr) << q.page << ": no row '" << q.claim_start << "'";
    std::string text;
    for (const std::string& c : row->cells) text += c + " | ";
    EXPECT_NE(text.find(q.text), std::string::npos) << q.page << ", '" << q.claim_start << "' no longer quotes '" << q.text << "'";
    // Several clusters, separated by ';', are quoted as a list: "3, 5, 5, 7".
    std::ostringstream number;
    number.setf(std::ios::fixed);
    number.precision(q.decimals);
    std::istringstream clusters(q.cluster);
    std::string cluster;
    for (bool first = true; std::getline(clusters, cluster, ';'); first = false)
      if (q.gain_over.empty()) {
        number << (first ? "" : ", ") << csv_mean(q.file, cluster, q.bar) * q.scale;
      } else {
        const double base = csv_mean(q.file, cluster, q.gain_over);
        number << (first ? "" : ", ") << std::showpos << (base - csv_mean(q.file, cluster, q.bar)) / base << std::noshowpos;
      }
    EXPECT_NE(q.text.find(number.str()), std::string::npos) << q.file << " " << q.cluster << "/" << q.bar << " gives " << number.str()
                                                           << ", the page quotes '" << q.text << "'";
  }
}

// The structured task set's factors are ours: `nnlb list` says so where it offers the set.
TEST(VerdictTables, ListSaysTheStructuredSetsFactorsAreAGuess) {
  const Outcome o = shell(std::string(NNLB_BINARY) + " list 2>/dev/null");
  ASSERT_EQ(o.status, 0);
  const auto at = o.out.find("cq-structured:N");
  ASSERT_NE(at, std::string::npos);
  const std::string line = o.out.substr(at, o.out.find('\n', at) - at);
  EXPECT_NE(line.find("our guess"), std::string::npos) << line;
}

}  // namespace
