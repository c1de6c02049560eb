// nnlb report: the pages exist, name the paper's claims and the commands that regenerate them,
// and their charts load in a real browser. Each chart's <img> has an onerror handler that replaces
// it by a visible "chart missing: FILE" note; headless Chromium renders the page and dumps the DOM
// after the load event (which waits for every image to load or fail), so an image that did not
// load shows up in the DOM as that note. A copy with a deleted chart proves the check can fail.
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <sys/wait.h>

#include "nnlb/experiment/study.hpp"
#include "support.hpp"

namespace {

namespace fs = std::filesystem;

using nnlb::test::Outcome;
using nnlb::test::shell;

// The temporary folders below hold no quotes, so single quotes are enough.
std::string in_quotes(const fs::path& p) { return "'" + p.string() + "'"; }

std::string html_escaped(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '&') out += "&amp;";
    else if (c == '<') out += "&lt;";
    else if (c == '>') out += "&gt;";
    else if (c == '"') out += "&quot;";
    else if (c == '\'') out += "&#39;";
    else out += c;
  }
  return out;
}

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

// The src attributes of the <img> elements in `page`.
std::vector<std::string> image_sources(const std::string& page) {
  static const std::regex img(R"re(<img [^>]*src="([^"]*)")re");
  std::vector<std::string> out;
  for (std::sregex_iterator it(page.begin(), page.end(), img), end; it != end; ++it) out.push_back((*it)[1]);
  return out;
}

bool is_png(const fs::path& p) { return fs::is_regular_file(p) && nnlb::test::slurp(p).starts_with("\x89PNG\r\n\x1a\n"); }

// Width and height from a PNG file's header.
std::pair<unsigned, unsigned> png_size(const fs::path& p) {
  const std::string bytes = nnlb::test::slurp(p);
  auto be32 = [&](std::size_t at) {
    unsigned v = 0;
    for (std::size_t i = 0; i < 4; ++i) v = v << 8 | static_cast<unsigned char>(bytes[at + i]);
    return v;
  };
  return bytes.size() >= 24 ? std::pair{be32(16), be32(20)} : std::pair{0u, 0u};
}

std::string claim_of(const std::string& name) {
  const std::string file = std::string(NNLB_SOURCE_DIR) + "/scenarios/" + name + ".toml";
  return nnlb::load_study(file, name, true).claim;
}

// A fresh folder per test holding the results of two quick studies and their report.
class Report : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = (fs::temp_directory_path() / "nnlb-report-XXXXXX").string();
    ASSERT_NE(::mkdtemp(tmpl.data()), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override { fs::remove_all(dir_); }

  // `nnlb ARGS`, its standard error kept in err_.
  Outcome nnlb(const std::string& args) {
    const fs::path err = dir_ / "nnlb.err";
    Outcome o = shell(std::string(NNLB_BINARY) + " " + args + " 2>" + in_quotes(err));
    err_ = nnlb::test::slurp(err);
    return o;
  }

  // Runs the quick xu1995 fig2 and table1 and reports them into dir_/report.
  void make_report() {
    for (const char* study : {"xu1995/fig2", "xu1995/table1"}) {
      const Outcome o = nnlb(std::string("reproduce ") + study + " --quick -q --out-dir " + in_quotes(results()));
      ASSERT_EQ(o.status, 0) << err_;
    }
    const Outcome o = nnlb("report --results " + in_quotes(results()) + " --out " + in_quotes(report()));
    ASSERT_EQ(o.status, 0) << err_;
    EXPECT_NE(err_.find("wrote " + (report() / "index.html").string()), std::string::npos) << err_;
    EXPECT_TRUE(o.out.empty()) << "progress and notes go to stderr: " << o.out;
  }

  fs::path results() const { return dir_ / "results"; }
  fs::path report() const { return dir_ / "report"; }

  fs::path dir_;
  std::string err_;
};

TEST_F(Report, PagesNameClaimsAndCommandsAndTheirChartsExist) {
  ASSERT_NO_FATAL_FAILURE(make_report());
  const std::string index = nnlb::test::slurp(report() / "index.html");
  ASSERT_FALSE(index.empty());
  for (const std::string name : {"xu1995/fig2", "xu1995/table1"}) {
    SCOPED_TRACE(name);
    const fs::path page_file = report() / (name + ".html");
    const std::string page = nnlb::test::slurp(page_file);
    ASSERT_FALSE(page.empty());
    const std::string claim = html_escaped(claim_of(name));
    ASSERT_FALSE(claim.empty());
    EXPECT_NE(index.find(claim), std::string::npos);
    EXPECT_NE(index.find("href=\"" + name + ".html\""), std::string::npos);
    EXPECT_NE(page.find(claim), std::string::npos);
    EXPECT_NE(page.find("<h2>Paper's claim</h2>"), std::string::npos);
    EXPECT_NE(page.find("<h2>Our measurement</h2>"), std::string::npos);
    EXPECT_NE(page.find("nnlb reproduce " + name + " --quick --out-dir " + results().string()), std::string::npos);
    const std::string stem = fs::path(name).filename().string();
    EXPECT_NE(page.find("gnuplot " + (results() / name / (stem + ".gp")).string()), std::string::npos);
    const std::size_t runs = count(nnlb::test::slurp(results() / name / (stem + ".jsonl")), "\n");
    EXPECT_NE(page.find(std::to_string(runs) + " runs"), std::string::npos) << runs;
    EXPECT_NE(page.find("docs/reproductions/xu1995.md"), std::string::npos);
    // Self-contained: no address outside the report, every chart copied next to the page.
    EXPECT_EQ(page.find("=\"http"), std::string::npos);
    EXPECT_EQ(page.find("=\"/"), std::string::npos);
    const auto images = image_sources(page);
    EXPECT_EQ(images.size(), 1u);
    for (const auto& src : images) {
      const fs::path png = page_file.parent_path() / src;
      EXPECT_TRUE(is_png(png)) << png;
      EXPECT_GT(fs::file_size(png), 1000u) << png;
    }
  }
  // Text is escaped: fig2's title says "nu <= 1".
  const std::string fig2 = nnlb::test::slurp(report() / "xu1995/fig2.html");
  EXPECT_NE(fig2.find("nu &lt;= 1"), std::string::npos);
  EXPECT_EQ(fig2.find("nu <= 1"), std::string::npos);
  // Measurements: a mean per algorithm for fig2, the fitted exponents for table1.
  EXPECT_NE(fig2.find("<th>mesh side k</th><th>adf</th><th>odf</th><th>ade</th><th>ode</th>"), std::string::npos);
  // The verdicts of docs/reproductions/xu1995.md whose run is this study, and only those.
  EXPECT_NE(fig2.find("<h2>Verdicts</h2>"), std::string::npos);
  EXPECT_NE(fig2.find("DE outperforms DF even all-port"), std::string::npos);
  EXPECT_EQ(fig2.find("depends only on the larger side"), std::string::npos) << "a row of xu1995/fig2-nonsquare";
  const std::string table1 = nnlb::test::slurp(report() / "xu1995/table1.html");
  EXPECT_NE(table1.find("<th>exponent</th>"), std::string::npos);
  EXPECT_NE(table1.find("<td>torus ode</td>"), std::string::npos);
}

// Friction 5: --quick results and their report go apart from the full ones, which they never
// replace; the report says that it shows reduced runs.
TEST_F(Report, QuickRunsNeverReplaceFullOnes) {
  const fs::path full = dir_ / "results" / "reproductions" / "xu1995" / "fig2";
  fs::create_directories(full);
  std::ofstream(full / "fig2.png") << "the full run's chart";
  std::ofstream(full / "fig2.jsonl") << "";
  const Outcome o = shell("cd " + in_quotes(dir_) + " && " + NNLB_BINARY + " reproduce xu1995/fig2 --quick -q 2>" + in_quotes(dir_ / "err"));
  ASSERT_EQ(o.status, 0) << nnlb::test::slurp(dir_ / "err");
  EXPECT_EQ(nnlb::test::slurp(full / "fig2.png"), "the full run's chart");
  EXPECT_EQ(nnlb::test::slurp(full / "fig2.jsonl"), "");
  EXPECT_TRUE(is_png(dir_ / "results" / "reproductions-quick" / "xu1995" / "fig2" / "fig2.png"));
  EXPECT_FALSE(fs::exists(dir_ / "results" / "report" / "index.html"));
  const std::string index = nnlb::test::slurp(dir_ / "results" / "report-quick" / "index.html");
  EXPECT_NE(index.find("<strong>Reduced runs</strong>"), std::string::npos) << index;
  const std::string page = nnlb::test::slurp(dir_ / "results" / "report-quick" / "xu1995" / "fig2.html");
  EXPECT_NE(page.find("nnlb reproduce xu1995/fig2 --quick\n"), std::string::npos) << "the default folders need no flags";
  EXPECT_NE(page.find("nnlb report --quick</code>"), std::string::npos);
}

// Issue 40: `nnlb report` after only --quick runs points to `nnlb report --quick`.
TEST_F(Report, AReportAfterOnlyQuickRunsSuggestsQuick) {
  Outcome o = shell("cd " + in_quotes(dir_) + " && " + NNLB_BINARY + " reproduce xu1995/fig3 --quick -q 2>/dev/null");
  ASSERT_EQ(o.status, 0);
  o = shell("cd " + in_quotes(dir_) + " && " + NNLB_BINARY + " report 2>" + in_quotes(dir_ / "err"));
  EXPECT_EQ(o.status, 2);
  const std::string err = nnlb::test::slurp(dir_ / "err");
  EXPECT_NE(err.find("holds --quick runs: `nnlb report --quick` reports those"), std::string::npos) << err;
  EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1) << err;
}

TEST_F(Report, MissingOrEmptyResultsAreInputErrors) {
  Outcome o = nnlb("report --results " + in_quotes(dir_ / "none") + " --out " + in_quotes(report()));
  EXPECT_EQ(o.status, 2);
  EXPECT_NE(err_.find("nnlb: "), std::string::npos) << err_;
  EXPECT_NE(err_.find("results folder not found"), std::string::npos) << err_;
  fs::create_directories(results() / "xu1995" / "no-such-study");
  o = nnlb("report --results " + in_quotes(results()) + " --out " + in_quotes(report()));
  EXPECT_EQ(o.status, 2);
  EXPECT_NE(err_.find("no reproductions"), std::string::npos) << err_;
  EXPECT_FALSE(fs::exists(report() / "index.html"));
}

// Needs headless Chromium (Debian package chromium): fails without it, unless
// NNLB_SKIP_BROWSER_TESTS=1, which skips.
class ReportInBrowser : public Report {
 protected:
  void SetUp() override {
    Report::SetUp();
    if (shell("command -v chromium >/dev/null 2>&1").status == 0) return;
    const char* skip = std::getenv("NNLB_SKIP_BROWSER_TESTS");
    if (skip && std::string(skip) == "1") GTEST_SKIP() << "chromium not found; browser tests skipped (NNLB_SKIP_BROWSER_TESTS=1)";
    GTEST_FAIL() << "chromium not found: install the Debian package chromium (scripts/deps), or set NNLB_SKIP_BROWSER_TESTS=1 to skip";
  }

  // Renders `page` in headless Chromium and returns the DOM once loaded. Chromium's log noise on
  // standard error goes to a file.
  std::string render(const fs::path& page, const std::string& extra = {}) {
    const std::string cmd = "timeout 60 chromium --headless --no-sandbox --disable-gpu --no-first-run --disable-background-networking "
                            "--disable-component-update --disable-sync --user-data-dir=" + in_quotes(dir_ / "profile") +
                            " --virtual-time-budget=5000 --dump-dom " + extra + " " + in_quotes("file://" + page.string()) + " 2>" +
                            in_quotes(dir_ / "chromium.err");
    const Outcome o = shell(cmd);
    EXPECT_EQ(o.status, 0) << cmd << "\n" << nnlb::test::slurp(dir_ / "chromium.err");
    return o.out;
  }
};

TEST_F(ReportInBrowser, ChartsLoadFromAMovedCopy) {
  ASSERT_NO_FATAL_FAILURE(make_report());
  // Relocatable and self-contained: render a moved copy, with the originals and results gone.
  const fs::path moved = dir_ / "moved";
  fs::rename(report(), moved);
  fs::remove_all(results());
  const fs::path shot = dir_ / "shot.png";
  const std::string dom = render(moved / "xu1995/fig2.html", "--screenshot=" + in_quotes(shot) + " --window-size=1200,1600");
  ASSERT_NE(dom.find("</html>"), std::string::npos) << dom;
  EXPECT_EQ(count(dom, "<img "), 1u) << dom;
  EXPECT_EQ(dom.find("class=\"chart-missing\""), std::string::npos) << dom;
  EXPECT_NE(dom.find("Our measurement"), std::string::npos);
  ASSERT_TRUE(is_png(shot)) << shot;
  EXPECT_EQ(png_size(shot), (std::pair{1200u, 1600u}));
  EXPECT_GT(fs::file_size(shot), 30000u) << "a blank page compresses to a few kB";
}

TEST_F(ReportInBrowser, AMissingChartShowsItsNote) {
  ASSERT_NO_FATAL_FAILURE(make_report());
  fs::remove(report() / "xu1995/fig2/fig2.png");
  const std::string dom = render(report() / "xu1995/fig2.html");
  ASSERT_NE(dom.find("</html>"), std::string::npos) << dom;
  EXPECT_EQ(count(dom, "<img "), 0u) << dom;
  EXPECT_NE(dom.find("<p class=\"chart-missing\">chart missing: fig2/fig2.png</p>"), std::string::npos) << dom;
}

}  // namespace
