// The verdict tables at the top of docs/reproductions/*.md: every row has a verdict from one fixed
// list and names what backs it (a study `nnlb reproduce --list` knows, or a test); every number of
// a row's "ours" column is recomputed from the committed CSVs (the studies' plots and the run
// tables the tools write beside them, docs/reproductions/PAGE/) or listed, with the reason, as an
// exception.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <numeric>
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

// ---- The committed CSVs the rows quote (docs/reproductions/PAGE/FILE.csv) ----

using CsvRow = std::map<std::string, std::string>;

std::vector<std::string> csv_fields(const std::string& line) {
  std::vector<std::string> out{""};
  bool quoted = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted && c == '"' && i + 1 < line.size() && line[i + 1] == '"') out.back() += '"', ++i;
    else if (c == '"') quoted = !quoted;
    else if (c == ',' && !quoted) out.emplace_back();
    else out.back() += c;
  }
  return out;
}

// The rows of a CSV file as named cells; `section` n is the table after n blank lines (a fit
// plot's exponents follow its points).
const std::vector<CsvRow>& csv_table(const std::string& file, int section = 0) {
  static std::map<std::pair<std::string, int>, std::vector<CsvRow>> read;
  const auto [it, fresh] = read.try_emplace({file, section});
  if (!fresh) return it->second;
  std::istringstream in(nnlb::test::slurp((source / "docs/reproductions" / file).string()));
  EXPECT_FALSE(in.str().empty()) << "no docs/reproductions/" << file;
  std::vector<std::string> header;
  int at = 0;
  for (std::string line; std::getline(in, line);) {
    if (line.empty()) {
      ++at, header.clear();
    } else if (at == section) {
      const std::vector<std::string> cells = csv_fields(line);
      if (header.empty()) {
        header = cells;
        continue;
      }
      CsvRow& r = it->second.emplace_back();
      for (std::size_t c = 0; c < header.size() && c < cells.size(); ++c) r[header[c]] = cells[c];
    }
  }
  return it->second;
}

// The rows whose cells have these values.
std::vector<CsvRow> csv_select(const std::string& file, const CsvRow& where, int section = 0) {
  std::vector<CsvRow> out;
  for (const CsvRow& r : csv_table(file, section))
    if (std::all_of(where.begin(), where.end(), [&](const auto& kv) { return r.count(kv.first) && r.at(kv.first) == kv.second; }))
      out.push_back(r);
  return out;
}

double csv_number(const CsvRow& r, const std::string& column) {
  return r.count(column) && !r.at(column).empty() ? std::stod(r.at(column)) : NAN;
}

// A column of the one row with these values (NaN and a failure unless there is exactly one).
double csv_value(const std::string& file, const CsvRow& where, const std::string& column = "mean") {
  const std::vector<CsvRow> rows = csv_select(file, where);
  if (rows.size() == 1) return csv_number(rows.front(), column);
  std::string key;
  for (const auto& [k, v] : where) key += " " + k + "=" + v;
  ADD_FAILURE() << file << ": " << rows.size() << " rows with" << key;
  return NAN;
}

// A plot's point: a bar chart's (cluster, bar) or a line chart's (group, x).
double csv_point(const std::string& file, const std::string& a, const std::string& b, const std::string& column = "mean") {
  const bool bars = !csv_table(file).empty() && csv_table(file).front().count("cluster");
  return csv_value(file, bars ? CsvRow{{"cluster", a}, {"bar", b}} : CsvRow{{"group", a}, {"x", b}}, column);
}

// ---- Numbers as a page writes them ----

std::string quote_fixed(double v, int decimals, bool plus = false) {
  std::ostringstream s;
  s.setf(std::ios::fixed);
  if (plus) s.setf(std::ios::showpos);
  s.precision(decimals);
  s << v;
  return s.str();
}

std::string quote_signed(double v, int decimals) { return quote_fixed(v, decimals, true); }

// The text with each "{}" replaced by the next value.
std::string quote_fill(std::string text, const std::vector<std::string>& values) {
  std::size_t at = 0;
  for (const std::string& v : values) {
    at = text.find("{}", at);
    if (at == std::string::npos) break;
    text.replace(at, 2, v);
    at += v.size();
  }
  return text;
}

std::string quote_join(const std::vector<std::string>& values, const std::string& separator = ", ") {
  std::string out;
  for (const std::string& v : values) out += (out.empty() ? "" : separator) + v;
  return out;
}

// "a-b" of the smallest and largest, rounded.
std::string quote_range(const std::vector<double>& v, int decimals, bool plus = false) {
  const auto [lo, hi] = std::minmax_element(v.begin(), v.end());
  return quote_fixed(*lo, decimals, plus) + "-" + quote_fixed(*hi, decimals);
}

// ---- Derived quantities ----

// Jeannot & Vernier: one run of a `*-runs.csv` (tools/jeannot_claims.py --runs), by system,
// granularity (us per unit), bytes per unit, w* and balancing steps.
double jeannot_run(const std::string& runs, const std::string& system, const std::string& unit, const std::string& w,
                   const std::string& steps, const std::string& column = "time", const std::string& bytes = "1250") {
  return csv_value("jeannot2006/" + runs, {{"system", system}, {"unit_us", unit}, {"bytes", bytes}, {"w", w}, {"steps", steps}}, column);
}

const std::string fos_j = "Fig. 3: FOS", k1_j = "Fig. 4: k-1 + detection", adaptive_j = "Fig. 5: adaptive k + detection";
const std::vector<std::string> loads_w{"1", "5", "10", "50", "100", "500", "1000"}, step_counts{"1", "10", "100", "1000"};

// Gain (T1 - T2) / T1 of `system` over `base` in one cell.
double jeannot_gain(const std::string& runs, const std::string& base, const std::string& system, const std::string& unit,
                    const std::string& w, const std::string& steps, const std::string& bytes = "1250") {
  const double t1 = jeannot_run(runs, base, unit, w, steps, "time", bytes);
  return (t1 - jeannot_run(runs, system, unit, w, steps, "time", bytes)) / t1;
}

// The gains over every w* (and every step count, or only `steps`).
std::vector<double> jeannot_gains(const std::string& runs, const std::string& base, const std::string& system, const std::string& unit,
                                  const std::vector<std::string>& ws = loads_w, const std::vector<std::string>& steps = step_counts,
                                  const std::string& bytes = "1250") {
  std::vector<double> g;
  for (const std::string& w : ws)
    for (const std::string& s : steps) g.push_back(jeannot_gain(runs, base, system, unit, w, s, bytes));
  return g;
}

// Run time over sequential time.
double jeannot_ratio(const std::string& runs, const std::string& system, const std::string& unit, const std::string& w, const std::string& steps) {
  return jeannot_run(runs, system, unit, w, steps) / jeannot_run(runs, system, unit, w, steps, "sequential");
}

// "a to b" of the smallest and largest gain, signed.
std::string quote_to(const std::vector<double>& v, int decimals) {
  const auto [lo, hi] = std::minmax_element(v.begin(), v.end());
  return quote_signed(*lo, decimals) + " to " + quote_signed(*hi, decimals);
}

// Fig. 5: "N of 28" cells where adaptive k loses more than 0.05 against FOS.
std::string jeannot_losing(const std::string& runs, const std::string& unit, const std::string& bytes = "1250") {
  const std::vector<double> g = jeannot_gains(runs, fos_j, adaptive_j, unit, loads_w, step_counts, bytes);
  return quote_fill("{} of {}", {std::to_string(std::count_if(g.begin(), g.end(), [](double x) { return x < -0.05; })), std::to_string(g.size())});
}

// Table 1: processors used by adaptive k at 1000 steps, w* = 1 ... 1000.
std::string jeannot_used(const std::string& runs, const std::string& unit) {
  std::vector<std::string> used;
  for (const std::string& w : loads_w) used.push_back(quote_fixed(jeannot_run(runs, adaptive_j, unit, w, "1000", "used"), 0));
  return quote_join(used);
}

// Filipović & Krstajić: (T_DD - T_CA) / T_DD run by run (same seed) from a `*-runs.csv`
// (tools/filipovic_claims.py --runs); `mean` gives their mean per core count instead.
std::vector<double> ca_gains(const std::string& runs, const std::string& load, const std::string& tasks, const std::string& split,
                             bool mean, const std::string& cores = "") {
  std::vector<double> out;
  for (const std::string& c : cores.empty() ? std::vector<std::string>{"16", "32", "64", "128"} : std::vector<std::string>{cores}) {
    std::vector<double> g;
    for (const CsvRow& ca : csv_select("filipovic2016/" + runs, {{"load", load}, {"tasks", tasks}, {"split", split}, {"cores", c}, {"algorithm", "ca"}})) {
      const double dd = csv_value("filipovic2016/" + runs, {{"load", load}, {"tasks", tasks}, {"split", split}, {"cores", c}, {"seed", ca.at("seed")}, {"algorithm", "dd"}}, "makespan");
      g.push_back((dd - csv_number(ca, "makespan")) / dd);
    }
    EXPECT_FALSE(g.empty()) << runs << ": no CA runs, " << load << ", " << tasks << ", " << split << ", " << c << " cores";
    if (mean) out.push_back(std::accumulate(g.begin(), g.end(), 0.0) / static_cast<double>(g.size()));
    else out.insert(out.end(), g.begin(), g.end());
  }
  return out;
}

// MS over DD on i.i.d. tasks, run by run, mean (tools/filipovic_claims.py's "MS / DD").
double ms_over_dd(const std::string& load, const std::string& cores) {
  double sum = 0;
  const std::vector<CsvRow> ms = csv_select("filipovic2016/figs5-8-runs.csv", {{"load", load}, {"cores", cores}, {"algorithm", "ms"}});
  for (const CsvRow& r : ms)
    sum += csv_number(r, "makespan") / csv_value("filipovic2016/figs5-8-runs.csv", {{"load", load}, {"cores", cores}, {"seed", r.at("seed")}, {"algorithm", "dd"}}, "makespan");
  return sum / static_cast<double>(ms.size());
}

// Couturier et al.: the maximum convergence time of a strategy (empty: no convergence within
// 1000 s) in each of the 48 configurations of `couturier/results`, and a comparison with a 5 %
// tie band (-1: a faster, 1: b faster, 0: tie, or both missing), as on the page.
struct Configuration {
  std::string start, ratio, topology, nodes;
};

std::vector<Configuration> configurations() {
  std::vector<Configuration> out;
  for (const char* start : {"1", "N"})
    for (const char* ratio : {"10-1", "1-10"})
      for (const char* topology : {"line", "torus", "hypercube"})
        for (const char* nodes : {"16", "64", "256", "1024"}) out.push_back({start, ratio, topology, nodes});
  return out;
}

double convergence(const Configuration& c, const std::string& strategy, const std::string& bar = "maximum convergence time") {
  return csv_point("couturier/results" + c.start + "-" + c.ratio + "-" + c.topology + ".csv", c.nodes + " " + strategy, bar);
}

int compare_times(double a, double b) {
  if (std::isnan(a) && std::isnan(b)) return 0;
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) ? 1 : -1;
  if (std::abs(a - b) <= 0.05 * std::max(a, b)) return 0;
  return a < b ? -1 : 1;
}

// Wins, losses and ties of a against b over the configurations on one topology kind ("" all).
std::array<int, 3> tally(const std::string& a, const std::string& b, const std::string& topology = "") {
  std::array<int, 3> t{0, 0, 0};
  for (const Configuration& c : configurations())
    if (topology.empty() || c.topology == topology) {
      const int r = compare_times(convergence(c, a), convergence(c, b));
      ++t[r < 0 ? 0 : r > 0 ? 1 : 2];
    }
  return t;
}

// Douglas & Harwood: the first point of a line from which it keeps its last value, and the
// x values of a line chart's group in order.
std::vector<std::string> xs_of(const std::string& file, const std::string& group) {
  std::vector<std::string> xs;
  for (const CsvRow& r : csv_select(file, {{"group", group}})) xs.push_back(r.at("x"));
  return xs;
}

double settled_from(const std::string& file, const std::string& group) {
  const std::vector<CsvRow> rows = csv_select(file, {{"group", group}});
  double from = csv_number(rows.back(), "x");
  for (auto r = rows.rbegin(); r != rows.rend() && csv_number(*r, "mean") == csv_number(rows.back(), "mean"); ++r) from = csv_number(*r, "x");
  return from;
}

// "31, 34 and 62-93": the x values where `holds`, three or more consecutive points of the sweep
// as a range.
std::string x_list(const std::string& file, const std::string& group, const std::function<bool(const std::string&)>& holds) {
  std::vector<std::string> parts;
  const std::vector<std::string> xs = xs_of(file, group);
  for (std::size_t i = 0, j = 0; i < xs.size(); i = j + 1) {
    for (j = i; j < xs.size() && holds(xs[j]); ++j) {
    }
    if (j >= i + 3) parts.push_back(xs[i] + "-" + xs[j - 1]);
    else parts.insert(parts.end(), xs.begin() + static_cast<std::ptrdiff_t>(i), xs.begin() + static_cast<std::ptrdiff_t>(j));
  }
  if (parts.size() < 2) return quote_join(parts);
  const std::string last = parts.back();
  parts.pop_back();
  return quote_join(parts) + " and " + last;
}

// A mean ± standard error of tools/mean_se.py --csv, to two decimals.
std::string mean_se(const std::string& file, const CsvRow& where) {
  return quote_fixed(csv_value(file, where, "mean"), 2) + "±" + quote_fixed(csv_value(file, where, "se"), 2);
}

// ---- The quotes ----

// A row's text as the page must write it, its numbers recomputed from the committed CSVs.
struct Quote {
  std::string page, claim_start, text;
};

// Numbers a row's "ours" column quotes from no committed CSV, and why.
struct Unchecked {
  std::string page, claim_start, text, reason;
};

std::vector<Quote> xu1995_quotes() {
  const std::string f2 = "xu1995/fig2.csv", ns = "xu1995/fig2-nonsquare.csv", t1 = "xu1995/table1.csv", f3 = "xu1995/fig3.csv";
  std::vector<Quote> q;
  q.push_back({"xu1995.md", "DE outperforms DF", quote_fill("k = 32: ADF {}, ODF {}, ADE {}, ODE {} steps ({} runs)",
      {quote_fixed(csv_point(f2, "adf", "32"), 0), quote_fixed(csv_point(f2, "odf", "32"), 0), quote_fixed(csv_point(f2, "ade", "32"), 0),
       quote_fixed(csv_point(f2, "ode", "32"), 0), quote_fixed(csv_point(f2, "adf", "32", "samples"), 0)})});
  // K = 32: the spread over k = 4-24 (largest / smallest - 1), the rise from k = 24 to k = K.
  std::vector<double> spread, rise;
  std::vector<std::string> not_lower;  // algorithms whose T at k = 2 is not below the band
  for (const char* a : {"adf", "odf", "ade", "ode"}) {
    const std::string g = std::string(a) + " 32";
    std::vector<double> mid;
    for (const char* k : {"4", "8", "16", "24"}) mid.push_back(csv_point(ns, g, k));
    const auto [lo, hi] = std::minmax_element(mid.begin(), mid.end());
    spread.push_back(*hi / *lo - 1);
    rise.push_back(csv_point(ns, g, "32") / csv_point(ns, g, "24") - 1);
    if (csv_point(ns, g, "2") >= *lo) not_lower.push_back(a), std::transform(a, a + 3, not_lower.back().begin(), ::toupper);
  }
  q.push_back({"xu1995.md", "T depends only", quote_fill("K = 32, k = 4-24: flat within {} %; {} % at k = K; lower at k = 2{}",
      {quote_fixed(100 * *std::max_element(spread.begin(), spread.end()), 0), "+" + quote_range({100 * rise[0], 100 * rise[1], 100 * rise[2], 100 * rise[3]}, 0),
       not_lower.empty() ? "" : " except " + quote_join(not_lower)})});
  std::vector<double> quadratic, linear, r2;
  for (const CsvRow& r : csv_table(t1, 1)) {
    (r.at("group").find("ode") != std::string::npos ? linear : quadratic).push_back(csv_number(r, "exponent"));
    r2.push_back(csv_number(r, "r2"));
  }
  q.push_back({"xu1995.md", "T grows as", quote_fill("exponents {} and {} (r^2 >= {}), mesh and torus",
      {quote_range(quadratic, 2), quote_range(linear, 2), quote_fixed(*std::min_element(r2.begin(), r2.end()), 3)})});
  // Fig. 3 at step 200, lowest first.
  std::vector<std::pair<double, std::string>> at200;
  for (const char* a : {"adf", "odf", "ade", "ode"}) at200.push_back({csv_point(f3, a, "200"), a});
  std::sort(at200.begin(), at200.end());
  std::vector<std::string> names, millions;
  for (auto& [v, a] : at200) {
    std::transform(a.begin(), a.end(), a.begin(), ::toupper);
    names.push_back(a), millions.push_back(quote_fixed(v / 1e6, 2));
  }
  q.push_back({"xu1995.md", "with threshold invocation", quote_fill("{} lowest, then {}, {}, {} (step 200: {} million)",
      {names[0], names[1], names[2], names[3], quote_join(millions)})});
  return q;
}

std::vector<Quote> jeannot_quotes() {
  const std::string page = "jeannot2006.md", algo1 = "Algo 1 (FOS)", algo2 = "Algo 2 (cost/benefit k-1, detection)";
  const std::string fig6 = "jeannot2006/fig6.csv", shaker = "jeannot2006/fig6-shaker.csv", cb = "cost/benefit + detection";
  // Fig. 6: the gain over FOS of a bar at a granularity (flop per unit), to three decimals.
  auto fig6_gain = [](const std::string& file, const std::string& flop, const std::string& bar) {
    const double t1 = csv_point(file, flop, "FOS");
    return quote_signed((t1 - csv_point(file, flop, bar)) / t1, 3);
  };
  std::vector<Quote> q;
  const std::vector<double> lan30 = jeannot_gains("fig2-runs.csv", algo1, algo2, "30"), lan1ms = jeannot_gains("fig2-runs.csv", algo1, algo2, "1000");
  q.push_back({page, "cost/benefit + detection gains much", quote_fill("30 us: {} (w* = 1), {} (5), lowest {}; 1 ms: at most {}",
      {quote_signed(jeannot_gain("fig2-runs.csv", algo1, algo2, "30", "1", "1000"), 2), quote_signed(jeannot_gain("fig2-runs.csv", algo1, algo2, "30", "5", "1000"), 2),
       quote_signed(*std::min_element(lan30.begin(), lan30.end()), 3), quote_signed(*std::max_element(lan1ms.begin(), lan1ms.end()), 2)})});
  std::vector<double> one_step, fos1000;
  for (const std::string& w : loads_w) one_step.push_back(jeannot_ratio("dsl-runs.csv", fos_j, "30", w, "1")), fos1000.push_back(jeannot_ratio("dsl-runs.csv", fos_j, "30", w, "1000"));
  q.push_back({page, "plain FOS: a few steps gain", quote_fill("30 us: one step {} of sequential, 1000 steps up to {} x",
      {quote_range(one_step, 2), quote_fixed(*std::max_element(fos1000.begin(), fos1000.end()), 1)})});
  q.push_back({page, "plain FOS: a few steps gain", quote_fill("ends slower than sequential ({} to {} x)",
      {quote_fixed(jeannot_ratio("dsl-runs.csv", fos_j, "10", "1", "1000"), 1), quote_fixed(jeannot_ratio("dsl-runs.csv", fos_j, "1000", "1", "1000"), 2)})});
  // Fig. 4 at 30 us, 1000 steps: where k - 1 with detection is slower than sequential.
  std::vector<std::string> slow_w, slow;
  for (const std::string& w : loads_w)
    if (jeannot_ratio("granularity-runs.csv", k1_j, "30", w, "1000") > 1) slow_w.push_back(w), slow.push_back(quote_fixed(jeannot_ratio("granularity-runs.csv", k1_j, "30", w, "1000"), 2));
  q.push_back({page, "k - 1 with detection", quote_fill("30 us, 1000 steps: better than Fig. 3 by {}; slower than sequential only at w* = {} ({} x), faster from w* = {} ({} down to {} x)",
      {quote_to(jeannot_gains("granularity-runs.csv", fos_j, k1_j, "30", loads_w, {"1000"}), 2), quote_join(slow_w), quote_join(slow), loads_w[slow_w.size()],
       quote_fixed(jeannot_ratio("granularity-runs.csv", k1_j, "30", loads_w[slow_w.size()], "1000"), 2), quote_fixed(jeannot_ratio("granularity-runs.csv", k1_j, "30", "1000", "1000"), 2)})});
  q.push_back({page, "k - 1 with detection", quote_fill("the spanning tree's set-up loses, {} at w* = 1)", {quote_signed(jeannot_gain("granularity-runs.csv", fos_j, k1_j, "30", "1", "1"), 2)})});
  std::vector<double> coarse1ms;  // the cells losing more than 0.05 at w* >= 50, 1 ms
  for (double g : jeannot_gains("dsl-runs.csv", fos_j, adaptive_j, "1000", {"50", "100", "500", "1000"}))
    if (g < -0.05) coarse1ms.push_back(g);
  q.push_back({page, "adaptive k beneficial", quote_fill("30 us: {} cells lose more than 0.05, down to {} and {} (w* = 1, 1 and 10 steps); gains {} with 1000 steps; 50 us: {}; 1 ms: {}, {} to {} at w* >= 50",
      {jeannot_losing("granularity-runs.csv", "30"), quote_signed(jeannot_gain("granularity-runs.csv", fos_j, adaptive_j, "30", "1", "1"), 2),
       quote_signed(jeannot_gain("granularity-runs.csv", fos_j, adaptive_j, "30", "1", "10"), 2),
       quote_to(jeannot_gains("granularity-runs.csv", fos_j, adaptive_j, "30", loads_w, {"1000"}), 2), jeannot_losing("granularity-runs.csv", "50"),
       jeannot_losing("dsl-runs.csv", "1000"), quote_signed(*std::max_element(coarse1ms.begin(), coarse1ms.end()), 2),
       quote_signed(*std::min_element(coarse1ms.begin(), coarse1ms.end()), 2)})});
  q.push_back({page, "processors used", quote_fill("30 us: {} ({} against 10 at 64 x 1000); 50 us: {}; 100 us: {}; 1 ms: {} ... {}",
      {jeannot_used("granularity-runs.csv", "30"), quote_fixed(jeannot_run("granularity-runs.csv", adaptive_j, "30", "1000", "1000", "used"), 0), jeannot_used("granularity-runs.csv", "50"), jeannot_used("dsl-runs.csv", "100"),
       quote_fixed(jeannot_run("dsl-runs.csv", adaptive_j, "1000", "1", "1000", "used"), 0), quote_fixed(jeannot_run("dsl-runs.csv", adaptive_j, "1000", "1000", "1000", "used"), 0)})});
  std::vector<double> fine;  // the gains at 1e6, 1e4 and 1e2 flop per unit
  for (const char* flop : {"1000000.0", "10000.0", "100.0"}) fine.push_back(1 - csv_point(fig6, flop, cb) / csv_point(fig6, flop, "FOS"));
  q.push_back({page, "cost/benefit + detection gains 0.03-0.1", quote_fill("{} at 1e6-1e2 flop per unit, {} at 1e8",
      {quote_to(fine, 3), fig6_gain(fig6, "100000000.0", cb)})});
  q.push_back({page, "the shaker pays", quote_fill("gain over FOS at 1e8 / 1e6 flop per unit, without the shaker {} / {}; with it, \"unbalanced\" = any imbalance: {} / {} (U_ij reset by the shaker's move) and {} / {} (cooling counter); = a one-unit move narrows the gap: {} / {} under either counter",
      {fig6_gain(shaker, "100000000.0", cb), fig6_gain(shaker, "1000000.0", cb), fig6_gain(shaker, "100000000.0", "shaker: reset, any"),
       fig6_gain(shaker, "1000000.0", "shaker: reset, any"), fig6_gain(shaker, "100000000.0", "shaker: cool, any"), fig6_gain(shaker, "1000000.0", "shaker: cool, any"),
       fig6_gain(shaker, "100000000.0", "shaker: reset, unit"), fig6_gain(shaker, "1000000.0", "shaker: reset, unit")})});
  q.push_back({page, "the shaker pays", quote_fill("{} / {} under either counter",
      {fig6_gain(shaker, "100000000.0", "shaker: cool, unit"), fig6_gain(shaker, "1000000.0", "shaker: cool, unit")})});
  q.push_back({page, "... and is extremely", quote_fill("at 1e2 flop per unit the shaker cuts the detection's {} to {} (any, either counter), {} (unit, reset), {} (unit, cool)",
      {fig6_gain(shaker, "100.0", cb), fig6_gain(shaker, "100.0", "shaker: reset, any"), fig6_gain(shaker, "100.0", "shaker: reset, unit"),
       fig6_gain(shaker, "100.0", "shaker: cool, unit")})});
  q.push_back({page, "... and is extremely", quote_fill("{} (any, either counter)", {fig6_gain(shaker, "100.0", "shaker: cool, any")})});
  return q;
}

std::vector<Quote> couturier_quotes() {
  const std::string page = "couturier.md";
  std::vector<Quote> q;
  const std::array<int, 3> line = tally("BE k=1", "naive", "line"), cube = tally("naive", "BE k=1", "hypercube"), torus = tally("BE k=1", "naive", "torus");
  q.push_back({page, "best effort beats naive", quote_fill("best effort first in {} of {} line configurations, {} ({} ties)",
      {std::to_string(line[0]), std::to_string(line[0] + line[1] + line[2]), line[1] ? "slower in " + std::to_string(line[1]) : "never slower", std::to_string(line[2])})});
  q.push_back({page, "naive beats best effort", quote_fill("naive wins {} of {}, {} tie{}",
      {std::to_string(cube[0]), std::to_string(cube[0] + cube[1] + cube[2]), cube[2] == 1 ? "one" : std::to_string(cube[2]), cube[2] == 1 ? "" : "s"})});
  const Configuration slow_random{"N", "1-10", "torus", "1024"};
  q.push_back({page, "the torus lies between", quote_fill("between ({} / {} / {} ties), but at random, 1/10, best effort k = 1 {} s against naive {} s (1024 nodes)",
      {std::to_string(torus[0]), std::to_string(torus[1]), std::to_string(torus[2]), quote_fixed(convergence(slow_random, "BE k=1"), 1),
       quote_fixed(convergence(slow_random, "naive"), 1)})});
  // Virtual load: each strategy against itself with "+v", in every configuration.
  std::array<int, 3> v{0, 0, 0};
  std::set<std::string> slower;
  for (const Configuration& c : configurations())
    for (const char* s : {"naive", "BE k=1", "BE k=2", "BE k=4"}) {
      const int r = compare_times(convergence(c, std::string(s) + "+v"), convergence(c, s));
      ++v[r < 0 ? 0 : r == 0 ? 1 : 2];
      if (r > 0) slower.insert(std::string(s) + (c.start == "N" ? ", random, " : ", one node, ") + (c.ratio == "1-10" ? "1/10" : "10/1"));
    }
  q.push_back({page, "virtual load is never worse", quote_fill("faster in {} of {} pairs, within 5 % in {}, slower in {} ({}",
      {std::to_string(v[0]), std::to_string(v[0] + v[1] + v[2]), std::to_string(v[1]), std::to_string(v[2]),
       slower.size() == 1 && *slower.begin() == "BE k=4, random, 1/10" ? "best effort k = 4, random, 1/10" : quote_join({slower.begin(), slower.end()}, "; ")})});
  // Idle time with virtual load, load on one node.
  int longer = 0, pairs = 0;
  std::map<std::string, int> longer_at_10_1;
  for (const Configuration& c : configurations())
    for (const char* s : {"naive", "BE k=1", "BE k=2", "BE k=4"})
      if (c.start == "1") {
        const bool l = convergence(c, std::string(s) + "+v", "average idle time") > convergence(c, s, "average idle time");
        longer += l, ++pairs;
        if (c.ratio == "10-1") longer_at_10_1[s] += l;
      }
  q.push_back({page, "with virtual load the idle time", quote_fill("longer in {} of {} pairs ({} best effort k = 4 at 10/1; {} for naive and k = 1)",
      {std::to_string(longer), std::to_string(pairs), longer_at_10_1["BE k=4"] == 12 ? "always" : "not always",
       longer_at_10_1["naive"] < 6 && longer_at_10_1["BE k=1"] < 6 ? "mostly shorter" : "not mostly shorter"})});
  const Configuration cube1024{"N", "1-10", "hypercube", "1024"};
  q.push_back({page, "leveling k > 1 helps", quote_fill("hypercube: k = 4 {} s against k = 1 {} s; torus: {} s against {} s",
      {quote_fixed(convergence(cube1024, "BE k=4"), 1), quote_fixed(convergence(cube1024, "BE k=1"), 1), quote_fixed(convergence(slow_random, "BE k=4"), 1),
       quote_fixed(convergence(slow_random, "BE k=1"), 1)})});
  const std::string stairway = "couturier/stairway.csv";
  q.push_back({page, "... and virtual load removes it", std::string(csv_point(stairway, "BE k=1+v", "single:0,8*N") == csv_point(stairway, "BE k=1", "single:0,8*N")
                                                                     ? "the same stairway with virtual load" : "a different end with virtual load")});
  return q;
}

std::vector<Quote> douglas_quotes() {
  const std::string page = "douglas.md", f1a = "douglas/fig1a.csv", f1b = "douglas/fig1b.csv", f2 = "douglas/fig2.csv";
  const std::string f3 = "douglas/fig3-se-mean-se.csv", f5 = "douglas/fig5a.csv", f6 = "douglas/fig6.csv", f7 = "douglas/fig7.csv", f7se = "douglas/fig7-se-mean-se.csv";
  std::vector<Quote> q;
  q.push_back({page, "PM 0 levels off", quote_fill("sigma {} at t = 100, progress {} at t = 500",
      {quote_fixed(csv_point(f1a, "0.0", "100"), 2), quote_fixed(csv_point(f1b, "0.0", "500"), 1)})});
  // The first t from which sigma stays 0, the latest of the three (1e9: not 0 at the end).
  double zero_by = 0;
  for (const char* x : {"0.35", "0.5", "1.0"}) zero_by = std::max(zero_by, csv_point(f1a, x, "100") == 0 ? settled_from(f1a, x) : 1e9);
  q.push_back({page, "PM 1, 0.5, 0.35 reach", quote_fill("sigma 0 by t = {}; at t = 5 PM 1 {}, 0.5 {}, 0.35 {}",
      {zero_by <= 25 ? "25" : "(later than 25)", quote_fixed(csv_point(f1a, "1.0", "5"), 2), quote_fixed(csv_point(f1a, "0.5", "5"), 2), quote_fixed(csv_point(f1a, "0.35", "5"), 2)})});
  auto to_ten = [](double v) {  // 2773 -> "2,770"
    const long r = std::lround(v / 10) * 10;
    return r >= 1000 ? std::to_string(r / 1000) + "," + std::to_string(1000 + r % 1000).substr(1) : std::to_string(r);
  };
  q.push_back({page, "DASUD and EN 1 stop", quote_fill("DASUD, EN 1 by t = {}; PM 0.5 and 1: {} and {} by t = 500",
      {std::max(settled_from(f2, "DASUD"), settled_from(f2, "EN 1")) <= 10 ? "10" : "(later than 10)", to_ten(csv_point(f2, "PM 0.5", "500")), to_ten(csv_point(f2, "PM 1", "500"))})});
  // Fig. 3 from tools/mean_se.py (400 trials a point), name "|G| = N", cost, x.
  auto at = [&](const std::string& g, const std::string& cost, const std::string& x) {
    return csv_value(f3, {{"name", "|G| = " + g}, {"p2p.migration_cost", cost}, {"pm.x", x}});
  };
  std::vector<double> se;
  bool cost5_worst = true;
  for (const CsvRow& r : csv_table(f3)) {
    se.push_back(csv_number(r, "se"));
    if (r.at("p2p.migration_cost") != "5.0") continue;
    cost5_worst = cost5_worst && csv_number(r, "mean") < at(r.at("name").substr(6), "0.0", r.at("pm.x"));
    EXPECT_NEAR(csv_number(r, "mean"), csv_point("douglas/fig3-se-cost5.csv", r.at("name"), r.at("pm.x") == "1.0" ? "1" : r.at("pm.x")), 1e-6)
        << "fig3-se-mean-se.csv and fig3-se-cost5.csv disagree";
  }
  const std::string trials = quote_fixed(csv_number(csv_table(f3).front(), "trials"), 0);
  q.push_back({page, "migration cost hurts high x", quote_fill("loss from cost 0 to 5: |G| = 40: x = 1 {} to {}, x = 0.05 {} to {}; |G| = |H| = 31: {} at x = 1 against {} at x = 0.05 ({} trials, standard errors {})",
      {quote_fixed(at("40", "0.0", "1.0"), 2), quote_fixed(at("40", "5.0", "1.0"), 2), quote_fixed(at("40", "0.0", "0.05"), 2), quote_fixed(at("40", "5.0", "0.05"), 2),
       quote_fixed(at("31", "0.0", "1.0") - at("31", "5.0", "1.0"), 2), quote_fixed(at("31", "0.0", "0.05") - at("31", "5.0", "0.05"), 2),
       trials, quote_range(se, 2)})});
  auto robust = [&](const std::string& g, const std::string& x) { return mean_se(f3, {{"name", "|G| = " + g}, {"p2p.migration_cost", "5.0"}, {"pm.x", x}}); };
  std::string best40 = "0.05";
  for (const char* x : {"0.1", "0.2", "0.35", "0.5", "1.0"})
    if (at("40", "5.0", x) > at("40", "5.0", best40)) best40 = x;
  q.push_back({page, "most robust x", quote_fill("{} trials, cost 5 ({}): |G| = |H| = 31: x = 0.2 {}, 0.35 {}, 0.5 {}, 0.1 {}, 1 {}; |G| = 40: best {} ({}), 0.35 {}",
      {trials, cost5_worst ? "the worst cost for every x" : "not the worst cost for every x", robust("31", "0.2"), robust("31", "0.35"), robust("31", "0.5"), robust("31", "0.1"),
       robust("31", "1.0"), best40, robust("40", best40), robust("40", "0.35")})});
  const std::string unit = "douglas/fig4-rate-every-unit.csv", iteration = "douglas/fig4-rate-every-iteration.csv";
  auto pm_better = [](const std::string& file) {
    return [file](const std::string& x) { return csv_point(file, "PM 0.35", x) > csv_point(file, "DASUD", x); };
  };
  bool worse_below = true;
  for (const std::string& file : {unit, iteration})
    for (const std::string& x : xs_of(file, "DASUD"))
      if (std::stod(x) < 31) worse_below = worse_below && !pm_better(file)(x);
  q.push_back({page, "progress falls in steps", quote_fill("PM better at |G| = {} (balancing every unit), at {} (once an iteration), {} below |H|",
      {x_list(unit, "DASUD", pm_better(unit)), x_list(iteration, "DASUD", pm_better(iteration)), worse_below ? "worse" : "not always worse"})});
  // The exit (t = 200) raises sigma, and it is back to its level before by t = 500.
  auto restored = [&](const std::string& g) {
    return csv_point(f5, g, "200") > csv_point(f5, g, "199") && csv_point(f5, g, "500") <= csv_point(f5, g, "199");
  };
  const bool as_paper = restored("EN 5") && restored("PM 0.35");
  q.push_back({page, "an exit raises sigma", quote_fill("EN 5, PM 0.35 {}; DASUD: entry lowers sigma {} to {}, exit raises it {} to {}",
      {as_paper ? "as the paper" : "not as the paper", quote_fixed(csv_point(f5, "DASUD", "299"), 2), quote_fixed(csv_point(f5, "DASUD", "300"), 2),
       quote_fixed(csv_point(f5, "DASUD", "199"), 2), quote_fixed(csv_point(f5, "DASUD", "200"), 2)})});
  std::vector<double> pm1;
  for (const char* t : {"10", "100", "300", "500"}) pm1.push_back(csv_point(f6, "PM 1", t));
  q.push_back({page, "churn lowers DASUD's sigma", quote_fill("DASUD {} to {}; PM 1 {}",
      {quote_fixed(csv_point(f6, "DASUD", "10"), 2), quote_range({csv_point(f6, "DASUD", "300"), csv_point(f6, "DASUD", "500")}, 2), quote_range(pm1, 2)})});
  // Fig. 7, 600 trials (DASUD): by cost and tau.
  auto tau = [&](const std::string& cost, const std::string& t) { return mean_se(f7se, {{"p2p.migration_cost", cost}, {"churn.half_life", t}}); };
  auto tau_mean = [&](const std::string& cost, const std::string& t) { return csv_value(f7se, {{"p2p.migration_cost", cost}, {"churn.half_life", t}}); };
  const std::vector<std::string> taus{"5.0", "10.0", "20.0", "50.0", "100.0", "200.0", "500.0", "1000.0", "5000.0"};
  bool falling = true, rising = true;
  for (std::size_t i = 1; i < taus.size(); ++i) {
    falling = falling && tau_mean("0.0", taus[i]) < tau_mean("0.0", taus[i - 1]);
    if (i + 1 < taus.size()) rising = rising && tau_mean("5.0", taus[i]) > tau_mean("5.0", taus[i - 1]);
  }
  q.push_back({page, "DASUD best at tau", quote_fill("{} trials: cost 1: {} at tau = 50 against {} (100), {} (500), {} (5000); cost 0: best at tau = 5 ({}), {} with tau; cost 5: {} with tau up to 1000 ({} to {}; {} at 5000)",
      {quote_fixed(csv_value(f7se, {{"p2p.migration_cost", "1.0"}, {"churn.half_life", "50.0"}}, "trials"), 0), tau("1.0", "50.0"), tau("1.0", "100.0"), tau("1.0", "500.0"),
       tau("1.0", "5000.0"), tau("0.0", "5.0"), falling ? "falling" : "not falling", rising ? "rising" : "not rising", quote_fixed(tau_mean("5.0", "5.0"), 2),
       quote_fixed(tau_mean("5.0", "1000.0"), 2), quote_fixed(tau_mean("5.0", "5000.0"), 2)})});
  // Fig. 7, 50 trials: from which tau PM 0.35 stays ahead of DASUD, per cost.
  std::vector<double> ahead_from;
  for (const char* cost : {"0.0", "1.0", "5.0"}) {
    double from = NAN;
    for (auto t = taus.rbegin(); t != taus.rend(); ++t) {
      const std::string x = t->substr(0, t->size() - 2);
      if (csv_point(f7, std::string("PM 0.35 ") + cost, x) <= csv_point(f7, std::string("DASUD ") + cost, x)) break;
      from = std::stod(x);
    }
    ahead_from.push_back(from);
  }
  q.push_back({page, "PM 0.35 suffers more", quote_fill("tau = 5, cost 5: {} against {}; better from tau = {} by cost",
      {quote_fixed(csv_point(f7, "PM 0.35 5.0", "5"), 1), quote_fixed(csv_point(f7, "DASUD 5.0", "5"), 1), quote_range(ahead_from, 0)})});
  q.push_back({page, "minimum distance selection", quote_fill("distance {}, none {}, edge cut {} at t = 500",
      {quote_fixed(csv_point("douglas/fig8.csv", "distance", "500"), 1), quote_fixed(csv_point("douglas/fig8.csv", "none", "500"), 1),
       quote_fixed(csv_point("douglas/fig8.csv", "edge-cut", "500"), 1)})});
  return q;
}

std::vector<Quote> filipovic_quotes() {
  const std::string page = "filipovic2016.md", d = "filipovic2016/";
  std::vector<Quote> q;
  // Fig. 4: the task histogram (1 s bins) of cq:800000.
  double tasks = 0, inside = 0, longest = 0;
  for (const CsvRow& r : csv_table(d + "fig4.csv")) {
    const double s = csv_number(r, "seconds"), n = csv_number(r, "tasks");
    tasks += n, inside += s >= 12 && s < 18 ? n : 0, longest = n > 0 ? std::max(longest, s) : longest;
  }
  q.push_back({page, "the workload", quote_fill("`cq`: {} %", {quote_fixed(100 * inside / tasks, 1)})});
  q.push_back({page, "the workload", quote_fill("{} s; `cq-structured`", {quote_fixed(longest, 0)})});
  const std::string iid = d + "fig5.csv", loaded = d + "fig5-loaded.csv", structured = d + "structured-homogeneous-structured.csv";
  const std::string block = d + "split-homogeneous-block.csv", cyclic = d + "split-homogeneous-cyclic.csv";
  const bool ms_ahead = csv_point(iid, "128", "ms") < csv_point(iid, "128", "ca") && csv_point(loaded, "128", "ms") < csv_point(loaded, "128", "ca") &&
                        csv_point(structured, "128", "ms") < csv_point(structured, "128", "ca") && csv_point(block, "128", "ms") < csv_point(cyclic, "128", "ca");
  q.push_back({page, "CA better than DD and MS", quote_fill("MS beats CA on 128 cores {}: i.i.d. homogeneous MS {} against CA {} s, loaded MS {} against CA {}; structured (block) MS {} against CA {}; structured, cyclic split MS {} against CA {}",
      {ms_ahead ? "on every set" : "not on every set", quote_fixed(csv_point(iid, "128", "ms"), 1), quote_fixed(csv_point(iid, "128", "ca"), 1),
       quote_fixed(csv_point(loaded, "128", "ms"), 1), quote_fixed(csv_point(loaded, "128", "ca"), 1), quote_fixed(csv_point(structured, "128", "ms"), 1),
       quote_fixed(csv_point(structured, "128", "ca"), 1), quote_fixed(csv_point(block, "128", "ms"), 1), quote_fixed(csv_point(cyclic, "128", "ca"), 1)})});
  // Fig. 6: CA's mean gain over DD per core count (min-max over 16-128 cores, in %), and the best run.
  auto percent = [](std::vector<double> v) {
    for (double& x : v) x *= 100;
    return v;
  };
  auto gains = [&](const std::string& runs, const std::string& load, const std::string& set, const std::string& split) {
    return quote_range(percent(ca_gains(runs, load, set, split, true)), 1, true);
  };
  auto best = [&](const std::string& runs, const std::string& set) {
    const std::vector<double> g = ca_gains(runs, "background load", set, "block", false);
    return quote_signed(100 * *std::max_element(g.begin(), g.end()), 1);
  };
  const std::string h = "homogeneous", l = "background load", cq = "cq:3072", cqs = "cq-structured:3072";
  q.push_back({page, "CA faster than DD by", quote_fill("i.i.d.: {} % homogeneous, {} % loaded (best run {} %); structured, block split: {} % homogeneous, {} % loaded (best {} %); structured, cyclic split: {} % homogeneous, {} % loaded",
      {gains("figs5-8-runs.csv", h, cq, "block"), gains("figs5-8-runs.csv", l, cq, "block"), best("figs5-8-runs.csv", cq), gains("structured-runs.csv", h, cqs, "block"),
       gains("structured-runs.csv", l, cqs, "block"), best("structured-runs.csv", cqs), gains("split-runs.csv", h, cqs, "cyclic"), gains("split-runs.csv", l, cqs, "cyclic")})});
  q.push_back({page, "CA faster than DD by", quote_fill("16 homogeneous cores: block DD {} against CA {} s ({} %), cyclic DD {} against CA {} s ({} %)",
      {quote_fixed(csv_point(block, "16", "dd"), 1), quote_fixed(csv_point(block, "16", "ca"), 1), quote_signed(100 * ca_gains("split-runs.csv", h, cqs, "block", true, "16")[0], 1),
       quote_fixed(csv_point(cyclic, "16", "dd"), 1), quote_fixed(csv_point(cyclic, "16", "ca"), 1), quote_signed(100 * ca_gains("split-runs.csv", h, cqs, "cyclic", true, "16")[0], 1)})});
  // Fig. 5: the mean gain never negative; the worst single run, and where.
  const std::vector<double> means = ca_gains("figs5-8-runs.csv", h, cq, "block", true), worst128 = ca_gains("figs5-8-runs.csv", h, cq, "block", false, "128");
  std::vector<double> runs = ca_gains("figs5-8-runs.csv", h, cq, "block", false);
  const double worst = *std::min_element(runs.begin(), runs.end());
  q.push_back({page, "CA at most 0.5 % slower", quote_fill("mean {}; single runs on 128 cores up to {} % behind",
      {*std::min_element(means.begin(), means.end()) >= 0 ? "never behind" : "behind",
       *std::min_element(worst128.begin(), worst128.end()) == worst ? quote_fixed(-100 * worst, 1) : "(the worst is elsewhere)"})});
  // Figs. 5-6: which algorithm is slowest and fastest, by mean makespan, per core count.
  auto extreme = [](const std::string& file, const std::string& cores, bool slowest) {
    std::string pick;
    for (const char* a : {"dd", "ms", "ca"})
      if (pick.empty() || (csv_point(file, cores, a) > csv_point(file, cores, pick)) == slowest) pick = a;
    return pick;
  };
  std::vector<std::string> ms_slowest, ms_slowest_homogeneous;  // core counts where MS is slowest: both loads, homogeneous only
  bool ms_fastest_64_128 = true, dd_slowest = true;
  for (const char* c : {"16", "32", "64", "128"})
    if (extreme(iid, c, true) == "ms") (extreme(loaded, c, true) == "ms" ? ms_slowest : ms_slowest_homogeneous).push_back(c);
  for (const std::string& file : {iid, loaded})
    for (const char* c : {"64", "128"}) ms_fastest_64_128 = ms_fastest_64_128 && extreme(file, c, false) == "ms";
  for (const std::string& file : {structured, d + "structured-loaded-structured.csv"})
    for (const char* c : {"16", "32", "64", "128"}) dd_slowest = dd_slowest && extreme(file, c, true) == "dd";
  q.push_back({page, "MS slowest", quote_fill("i.i.d.: slowest on {} cores ({}-{} % behind DD) and on {} homogeneous ones ({} %), {} 64-128; structured, block split: {}",
      {quote_join(ms_slowest), quote_fixed(100 * (std::min(ms_over_dd(h, "16"), ms_over_dd(l, "16")) - 1), 0), quote_fixed(100 * (std::max(ms_over_dd(h, "16"), ms_over_dd(l, "16")) - 1), 0),
       quote_join(ms_slowest_homogeneous), quote_fixed(100 * (ms_over_dd(h, "32") - 1), 0), ms_fastest_64_128 ? "fastest on" : "not fastest on",
       dd_slowest ? "DD slowest everywhere" : "DD not slowest everywhere"})});
  // Fig. 7: CA's phases under background load.
  const std::string f7 = d + "fig7.csv";
  std::vector<std::string> termination, phase3;
  bool shrinks = true;
  double previous = INFINITY;
  for (const char* c : {"16", "32", "64", "128"}) {
    const double third = csv_point(f7, c, "summary.ca_phase3");
    shrinks = shrinks && third < previous, previous = third;
    termination.push_back(quote_fixed(csv_point(f7, c, "summary.ca_termination"), 0));
    phase3.push_back(quote_fixed(third, 0));
  }
  q.push_back({page, "CA's termination phase", quote_fill("{} s (16-128 cores, loaded; the {} s carries one {} s run)",
      {quote_join(termination), termination[2], quote_fixed(csv_point(f7, "64", "summary.ca_termination", "max"), 0)})});
  q.push_back({page, "CA's third phase", quote_fill("{}: {} s (16-128 cores, loaded)", {shrinks ? "shrinks" : "does not shrink", quote_join(phase3)})});
  // Fig. 8: the share of runs in which CA chose MS, on 16 / 32 / 64 / 128 cores.
  auto shares = [](const std::string& file, const std::string& bar) {
    std::vector<std::string> s;
    for (const char* c : {"16", "32", "64", "128"}) s.push_back(quote_fixed(100 * csv_point(file, c, bar), 0));
    return quote_join(s, " / ");
  };
  q.push_back({page, "CA chooses DD mostly", quote_fill("MS chosen in, on 16 / 32 / 64 / 128 cores: i.i.d., homogeneous, DD3 first {} %, MS1 first {} %; i.i.d., loaded {} %; structured, homogeneous, block: {} % ({}); structured, homogeneous, cyclic: {} %",
      {shares(d + "fig8.csv", "homogeneous"), shares(d + "rule-order-fig8-homogeneous.csv", "ms1-first"), shares(d + "fig8.csv", "background load"),
       shares(d + "split-fig8.csv", "block"), csv_point(d + "split-fig8.csv", "16", "block", "min") == 1 ? "every 16-core run" : "not every 16-core run",
       shares(d + "split-fig8.csv", "cyclic")})});
  // Request latency and the master's service time (128 cores under background load).
  const std::string lat = d + "latency.csv", master = d + "master.csv";
  const double ms0 = csv_point(lat, "0.0", "ms");
  q.push_back({page, "MS loses on many cores", quote_fill("requests of 0.1-0.5 s cost MS at most {} %; a master taking 0.2 s a request makes it lose ({} s against DD {}, CA {} on 128 loaded cores)",
      {quote_fixed(100 * (std::max(csv_point(lat, "0.1", "ms"), csv_point(lat, "0.5", "ms")) / ms0 - 1), 0), quote_fixed(csv_point(master, "0.2", "ms"), 0),
       quote_fixed(csv_point(lat, "0.0", "dd"), 0), quote_fixed(csv_point(master, "0.2", "ca"), 0)})});
  return q;
}

// ---- Allowed exceptions ----

const std::vector<Unchecked> unchecked{
    {"jeannot2006.md", "... close to optimal", "our opt.1 at 30 us: 5, 14, 16, 40, 61, 64, 64",
     "a formula of ours (opt1 in tools/jeannot_claims.py), not a run: no CSV holds it"},
    {"jeannot2006.md", "detection lowers the balancing rate", "210 steps instead of 1000",
     "a run inside the test the row names, which asserts a bound (under a quarter of 1000 steps' messages), not the number"},
    {"couturier.md", "virtual load is never worse", "+10-33 % on six seeds",
     "six `nnlb run` commands given on the page (hypercube:6, seeds 1-6), not a study"},
    {"couturier.md", "integer load ends on a stairway", "best effort ends with neighbours one unit apart",
     "the final loads are in the run records, not the CSV (its spread only); the test DesEngine.IntegerLoadOnALineStopsOnAStairway pins it"},
    {"couturier.md", "the ping-pong condition", "a stall of one balancing period on the paper's chain, no deadlock",
     "read off couturier/deadlock's chart of the largest load over time"},
    {"douglas.md", "PM 0 levels off", "(optimum 50)", "the bound t / 10 at t = 500, not a measurement"},
    {"filipovic2016.md", "the workload", "15.10 s", "fig4.csv's 1 s bins cannot give the mean; TaskGenerator.CqMatchesThePapersStatistics asserts it (within 0.03)"},
    {"filipovic2016.md", "the workload", "`cq-structured`: 95.2 %, 15.10 s, 165 s",
     "printed by tools/task_histogram.py from `nnlb tasks cq-structured:800000`, no committed CSV; TaskGenerator.CqMatchesThePapersStatistics asserts them"},
};

const Row* row_of(const std::vector<Row>& rows, const std::string& page, const std::string& claim_start) {
  for (const Row& r : rows)
    if (r.page == page && r.cells[0].rfind(claim_start, 0) == 0) return &r;
  return nullptr;
}

TEST(VerdictTables, QuotedNumbersAreThoseOfTheCommittedCsv) {
  std::vector<Quote> quotes;
  for (auto part : {xu1995_quotes, jeannot_quotes, couturier_quotes, douglas_quotes, filipovic_quotes}) {
    const std::vector<Quote> q = part();
    quotes.insert(quotes.end(), q.begin(), q.end());
  }
  const std::vector<Row> rows = verdict_rows();
  // Characters of each row's "ours" cell that a quote or an exception accounts for.
  std::map<const Row*, std::vector<bool>> covered;
  auto cover = [&](const Row* r, const std::string& text) {
    std::vector<bool>& c = covered.try_emplace(r, r->cells[2].size(), false).first->second;
    bool found = false;
    for (auto at = r->cells[2].find(text); at != std::string::npos; at = r->cells[2].find(text, at + 1)) {
      std::fill(c.begin() + static_cast<std::ptrdiff_t>(at), c.begin() + static_cast<std::ptrdiff_t>(at + text.size()), true);
      found = true;
    }
    return found;
  };
  std::set<const Row*> wrong;  // rows a quote disagrees with
  for (const Quote& q : quotes) {
    const Row* r = row_of(rows, q.page, q.claim_start);
    ASSERT_NE(r, nullptr) << q.page << ": no row '" << q.claim_start << "'";
    if (cover(r, q.text)) continue;  // else it quotes the conditions column
    if (r->cells[4].find(q.text) == std::string::npos) wrong.insert(r);
    EXPECT_NE(r->cells[4].find(q.text), std::string::npos) << q.page << ", '" << q.claim_start << "': the committed CSVs give\n  " << q.text
                                                          << "\nthe row says\n  " << r->cells[2] << " | " << r->cells[4];
  }
  for (const Unchecked& u : unchecked) {
    const Row* r = row_of(rows, u.page, u.claim_start);
    ASSERT_NE(r, nullptr) << u.page << ": no row '" << u.claim_start << "'";
    EXPECT_TRUE(cover(r, u.text)) << u.page << ", '" << u.claim_start << "' no longer says '" << u.text
                                  << "', an exception because " << u.reason << ": drop it or check the new text";
  }
  // Every number in every "ours" cell is checked or listed as an exception.
  for (const Row& r : rows) {
    if (wrong.count(&r)) continue;
    const std::vector<bool> c = covered.count(&r) ? covered.at(&r) : std::vector<bool>(r.cells[2].size(), false);
    const std::string& ours = r.cells[2];
    for (std::size_t i = 0; i < ours.size(); ++i) {
      if (!std::isdigit(static_cast<unsigned char>(ours[i])) || c[i]) continue;
      std::size_t b = i, e = i;
      while (b > 0 && ours[b - 1] != ' ') --b;
      while (e < ours.size() && ours[e] != ' ') ++e;
      ADD_FAILURE() << r.page << ", '" << r.cells[0] << "': '" << ours.substr(b, e - b) << "' in \"ours\" is neither recomputed nor an exception";
      i = e;
    }
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
