#include "nnlb/experiment/report.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <string_view>
#include <system_error>

#include <fmt/format.h>

#include "nnlb/experiment/study.hpp"
#include "nnlb/experiment/verdicts.hpp"
#include "nnlb/util/atomic_file.hpp"
#include "nnlb/util/error.hpp"

namespace nnlb {

namespace {

namespace fs = std::filesystem;

using Rows = std::vector<std::vector<std::string>>;

constexpr std::size_t max_table_rows = 12;

// Replaces a chart that fails to load by a visible note naming its file (the only script on a page).
constexpr const char* on_image_error =
    "this.replaceWith(Object.assign(document.createElement('p'),"
    "{className:'chart-missing',textContent:'chart missing: '+this.dataset.file}))";

constexpr const char* style = R"(
body{font:16px/1.5 system-ui,"Segoe UI",Roboto,"DejaVu Sans",sans-serif;color:#1f2430;background:#fff;
  max-width:1040px;margin:0 auto;padding:1.25rem 2rem 3rem}
h1{font-size:1.65rem;line-height:1.25;margin:.4rem 0 .3rem}
h2{font-size:1.2rem;margin:2rem 0 .8rem;padding-bottom:.25rem;border-bottom:1px solid #dde1e8}
h3{font-size:1rem;margin:1.1rem 0 .4rem}
a{color:#1a5fb4}
nav{font-size:.9rem}
code,pre{font-family:"DejaVu Sans Mono",Menlo,Consolas,monospace;font-size:.88em}
.meta,.note,figcaption,caption{color:#5c6370;font-size:.9rem}
.compare{display:grid;grid-template-columns:minmax(0,1fr) minmax(0,2fr);gap:1.25rem;margin-top:1.25rem}
@media (max-width:780px){.compare{grid-template-columns:minmax(0,1fr)}}
.compare>section{border:1px solid #dde1e8;border-radius:8px;padding:0 1.25rem 1rem}
.compare h2{border:0;margin:.9rem 0 .5rem}
.claim{background:#f6f7fa}
blockquote{margin:0;padding:.1rem 0 .1rem 1rem;border-left:4px solid #1a5fb4;font-size:1.05rem}
.scroll{overflow-x:auto}
table{border-collapse:collapse;font-size:.88rem;font-variant-numeric:tabular-nums;margin:.3rem 0}
caption{text-align:left;caption-side:bottom;padding-top:.3rem}
th,td{padding:.18rem .55rem;text-align:right;border-bottom:1px solid #eceef2;white-space:nowrap}
th:first-child,td:first-child{text-align:left}
thead th{border-bottom:2px solid #c6ccd6}
tbody tr:nth-child(even){background:#f8f9fb}
figure{margin:1.25rem 0}
img{display:block;max-width:100%;height:auto;border:1px solid #dde1e8;border-radius:6px}
pre{background:#f3f4f7;border:1px solid #dde1e8;border-radius:6px;padding:.75rem 1rem;overflow-x:auto}
.chart-missing{border:2px dashed #c01c28;border-radius:6px;color:#c01c28;font-weight:bold;padding:1.5rem}
ul.studies{list-style:none;padding:0}
ul.studies li{border:1px solid #dde1e8;border-radius:8px;padding:.7rem 1.25rem;margin:.75rem 0}
ul.studies a{font-weight:600}
ul.studies blockquote{margin-top:.4rem;font-size:.98rem}
)";

// ---- text

std::string read_bytes(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// Escapes text for HTML element content and quoted attribute values.
std::string html(std::string_view text) {
  std::string out;
  for (char c : text) switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  return out;
}

bool is_alnum(unsigned char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'); }

// A relative file path as a URL: bytes other than letters, digits, "-._~" and "/" percent-encoded.
std::string url(std::string_view path) {
  std::string out;
  for (unsigned char c : path) {
    if (is_alnum(c) || std::string_view("-._~/").find(c) != std::string_view::npos) out += static_cast<char>(c);
    else out += fmt::format("%{:02X}", c);
  }
  return out;
}

// A word of a POSIX shell command line, single-quoted only if it needs to be.
std::string shell_word(const std::string& word) {
  const bool plain = !word.empty() && std::all_of(word.begin(), word.end(), [](unsigned char c) {
    return is_alnum(c) || std::string_view("-_./:=+,@%").find(c) != std::string_view::npos;
  });
  if (plain) return word;
  std::string out = "'";
  for (char c : word) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

// "results/reproductions/", "./results/reproductions" -> "results/reproductions"
std::string normal_dir(const std::string& dir) {
  std::string s = fs::path(dir).lexically_normal().generic_string();
  while (s.size() > 1 && s.back() == '/') s.pop_back();
  return s;
}

std::optional<double> number(const std::string& text) {
  double v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return v;
}

// A mean at a readable precision and width: 4 significant digits below 100, at most one decimal
// up to 10^5, then 4 significant digits again in the form 2.133e7.
std::string readable(const std::string& text) {
  const auto v = number(text);
  if (!v) return text;
  const double a = std::fabs(*v);
  if (a < 100) return fmt::format("{:.4g}", *v);
  if (a < 1e5) {
    const std::string fixed = fmt::format("{:.1f}", *v);
    return fixed.ends_with(".0") ? fixed.substr(0, fixed.size() - 2) : fixed;
  }
  const std::string sci = fmt::format("{:.3e}", *v);  // 2.133e+07
  const auto e = sci.find('e');
  return sci.substr(0, e + 1) + std::to_string(std::stoi(sci.substr(e + 1)));
}

// ---- the plots' CSV files

struct CsvBlock {
  std::vector<std::string> header;
  Rows rows;

  std::optional<std::size_t> column(std::string_view name) const {
    const auto it = std::find(header.begin(), header.end(), name);
    if (it == header.end()) return std::nullopt;
    return static_cast<std::size_t>(it - header.begin());
  }
};

// Fields of one CSV line; double quotes group commas ("" is a quote inside them).
std::vector<std::string> csv_fields(const std::string& line) {
  std::vector<std::string> fields(1);
  bool quoted = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted && c == '"' && i + 1 < line.size() && line[i + 1] == '"') fields.back() += '"', ++i;
    else if (c == '"') quoted = !quoted;
    else if (c == ',' && !quoted) fields.emplace_back();
    else fields.back() += c;
  }
  return fields;
}

// A plot's CSV file: blocks of a header line and rows, separated by blank lines (kind "fit"
// appends the exponents as a second block). Empty if the file is missing.
std::vector<CsvBlock> read_csv(const fs::path& path) {
  std::vector<CsvBlock> blocks;
  std::ifstream in(path);
  std::string line;
  bool starts_block = true;
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty()) {
      starts_block = true;
      continue;
    }
    if (starts_block) blocks.push_back({csv_fields(line), {}});
    else blocks.back().rows.push_back(csv_fields(line));
    starts_block = false;
  }
  return blocks;
}

// ---- tables

struct Table {
  std::vector<std::string> header;
  Rows rows;
};

std::string html_table(const Table& t, const std::string& caption) {
  std::string out = "<div class=\"scroll\"><table>\n<caption>" + caption + "</caption>\n<thead><tr>";
  for (const auto& h : t.header) out += "<th>" + html(h) + "</th>";
  out += "</tr></thead>\n<tbody>\n";
  for (const auto& row : t.rows) {
    out += "<tr>";
    for (const auto& cell : row) out += "<td>" + html(cell) + "</td>";
    out += "</tr>\n";
  }
  return out + "</tbody>\n</table></div>\n";
}

// At most `most` (>= 2) of the indices 0 .. n-1, evenly spread, first and last included.
std::vector<std::size_t> spread_indices(std::size_t n, std::size_t most) {
  std::vector<std::size_t> picked;
  if (n <= most) {
    for (std::size_t i = 0; i < n; ++i) picked.push_back(i);
    return picked;
  }
  for (std::size_t i = 0; i < most; ++i) picked.push_back((i * (n - 1) + (most - 1) / 2) / (most - 1));
  return picked;
}

// Cross table of column `value`: a row per distinct value of column `down` (numeric ones sorted if
// `sort_down`, else in first-seen order), a column per distinct value of column `across`.
Table cross_table(const CsvBlock& block, std::size_t down, std::size_t across, std::size_t value, const std::string& corner,
                  bool sort_down) {
  std::vector<std::string> keys, columns;
  std::map<std::pair<std::string, std::string>, std::string> cells;
  auto remember = [](std::vector<std::string>& v, const std::string& s) {
    if (std::find(v.begin(), v.end(), s) == v.end()) v.push_back(s);
  };
  for (const auto& row : block.rows) {
    if (row.size() <= std::max({down, across, value})) continue;
    remember(keys, row[down]);
    remember(columns, row[across]);
    cells[{row[down], row[across]}] = readable(row[value]);
  }
  if (sort_down && std::all_of(keys.begin(), keys.end(), [](const std::string& k) { return number(k).has_value(); }))
    std::stable_sort(keys.begin(), keys.end(), [](const std::string& a, const std::string& b) { return *number(a) < *number(b); });
  Table t;
  t.header.push_back(corner);
  t.header.insert(t.header.end(), columns.begin(), columns.end());
  for (const auto& key : keys) {
    std::vector<std::string> row{key};
    for (const auto& col : columns) {
      const auto it = cells.find({key, col});
      row.push_back(it == cells.end() ? "" : it->second);
    }
    t.rows.push_back(std::move(row));
  }
  return t;
}

// Keeps at most max_table_rows rows, evenly spread; says so in the caption.
std::string thinned_table(Table t, std::string caption, const std::string& what) {
  const std::size_t all = t.rows.size();
  if (all > max_table_rows) {
    Rows kept;
    for (std::size_t i : spread_indices(all, max_table_rows)) kept.push_back(std::move(t.rows[i]));
    t.rows = std::move(kept);
    caption += fmt::format(" {} of {} {} shown.", t.rows.size(), all, html(what));
  }
  return html_table(t, caption);
}

std::string or_field(const std::string& label, const std::string& field) { return label.empty() ? field : label; }

// "Our measurement" for one plot, from its CSV file.
std::string measurement(const PlotSpec& ps, const std::vector<CsvBlock>& csv) {
  const std::string csv_name = "<code>" + html(ps.file) + ".csv</code>";
  if (ps.kind == "heatmap") return "<p>The load of every node over time: see the chart (data in " + csv_name + ").</p>\n";
  const std::string xlabel = or_field(ps.xlabel, ps.x), ylabel = or_field(ps.ylabel, ps.y.front());
  if (ps.kind == "fit") {
    for (const auto& block : csv) {
      const auto g = block.column("group"), e = block.column("exponent"), c = block.column("coefficient"), r = block.column("r2");
      if (!g || !e || !c || !r) continue;
      Table t{{"group", "exponent", "coefficient", "r\u00b2"}, {}};
      for (const auto& row : block.rows)
        if (row.size() > std::max({*g, *e, *c, *r})) t.rows.push_back({row[*g], row[*e], row[*c], row[*r]});
      return html_table(t, "Least-squares fit " + html(ylabel) + " = coefficient \u00d7 " + html(xlabel) +
                               "<sup>exponent</sup> per group; the means are in " + csv_name + ".");
    }
  } else if (!csv.empty()) {
    const CsvBlock& block = csv.front();
    const bool bars = ps.kind == "bars";
    const auto down = block.column(bars ? "cluster" : "x"), across = block.column(bars ? "bar" : "group"), mean = block.column("mean");
    if (down && across && mean)
      return thinned_table(cross_table(block, *down, *across, *mean, xlabel, !bars),
                           "Mean " + html(ylabel) + "; min, max and sample counts in " + csv_name + ".", bars ? "clusters" : "x values");
  }
  return "<p class=\"note\">No data: " + csv_name + " is missing or unreadable.</p>\n";
}

// ---- studies

struct StudyPage {
  Study study;                                // as in the study file (full sizes)
  fs::path results;                           // RESULTS/NAME
  std::size_t runs = 0;                       // records in the results store
  std::size_t full_runs = 0, quick_runs = 0;  // runs of the whole study and of its --quick version
  std::uint64_t repeat = 1, quick_repeat = 1;   // runs per point, whole and --quick

  bool quick() const { return runs == quick_runs && runs != full_runs; }
  std::string paper() const { return study.name.substr(0, study.name.find('/')); }
  std::string stem() const { return fs::path(study.name).filename().string(); }
};

// Settings shared by all pages.
struct Context {
  std::string results_dir, out_dir;  // as given, for the commands shown
  fs::path docs_dir;                 // docs/reproductions beside the scenarios folder (sources or share/nnlb)
};

std::size_t run_count(const Study& s) { return sweep_points(s.sweep).size() * s.sweep.repeat; }

std::size_t line_count(const fs::path& path) {
  std::ifstream in(path);
  std::size_t n = 0;
  for (std::string line; std::getline(in, line);) n += !line.empty();
  return n;
}

// Every folder RESULTS/NAME with a study file SCENARIOS/NAME.toml, by name.
std::vector<StudyPage> find_studies(const fs::path& results, const fs::path& scenarios) {
  std::vector<StudyPage> found;
  // Two levels deep (RESULTS/AUTHOR/STUDY), past folders it may not read, with errors as one line.
  std::error_code ec;
  fs::recursive_directory_iterator it(results, fs::directory_options::skip_permission_denied, ec);
  if (ec) throw InputError(results.string(), {}, "cannot read the results folder: " + ec.message());
  for (; it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (ec) throw InputError(results.string(), {}, "cannot read the results folder: " + ec.message());
    if (it.depth() >= 1) it.disable_recursion_pending();
    const fs::directory_entry& entry = *it;
    std::error_code type;
    if (!entry.is_directory(type)) continue;
    const fs::path name = fs::relative(entry.path(), results);
    fs::path file = scenarios / name;
    file += ".toml";
    if (!name.has_parent_path() || !fs::is_regular_file(file)) continue;
    StudyPage p;
    p.study = load_study(file.string(), name.generic_string(), false);
    p.results = entry.path();
    p.full_runs = run_count(p.study);
    const Study quick = load_study(file.string(), p.study.name, true);
    p.quick_runs = run_count(quick);
    p.repeat = p.study.sweep.repeat, p.quick_repeat = quick.sweep.repeat;
    p.runs = line_count(p.results / (p.stem() + ".jsonl"));
    found.push_back(std::move(p));
  }
  std::sort(found.begin(), found.end(), [](const StudyPage& a, const StudyPage& b) { return a.study.name < b.study.name; });
  return found;
}

// ---- pages

std::string document(const std::string& title, const std::string& body) {
  return "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
         "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>" +
         html(title) + "</title>\n<style>" + style + "</style>\n</head>\n<body>\n" + body + "</body>\n</html>\n";
}

std::string docs_note(const std::string& paper, const Context& ctx) {
  if (!fs::is_regular_file(ctx.docs_dir / (paper + ".md"))) return "";
  return "<p class=\"note\">Discussion: <code>docs/reproductions/" + html(paper) + ".md</code> in the nnlb sources (installed: <code>share/nnlb/docs/reproductions/</code>).</p>\n";
}

// A plot's title, its "{runs}" the runs per point of the kind of run in the store.
std::string plot_title(const StudyPage& p, const PlotSpec& ps) {
  std::string title = ps.title.empty() ? p.study.title : ps.title;
  if (const auto at = title.find("{runs}"); at != std::string::npos) title.replace(at, 6, std::to_string(p.quick() ? p.quick_repeat : p.repeat));
  return title;
}

// Whether `cell` names study `name` as a whole ("xu1995/fig2", not "xu1995/fig2-nonsquare").
bool names_study(const std::string& cell, const std::string& name) {
  const auto part = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '/'; };
  for (auto at = cell.find(name); at != std::string::npos; at = cell.find(name, at + 1))
    if ((at == 0 || !part(cell[at - 1])) && (at + name.size() == cell.size() || !part(cell[at + name.size()]))) return true;
  return false;
}

// The rows of the paper's verdict table (docs/reproductions/PAPER.md) whose "run" names this study.
std::string verdicts_of(const StudyPage& p, const Context& ctx) {
  const fs::path page = ctx.docs_dir / (p.paper() + ".md");
  if (!fs::is_regular_file(page)) return "";
  const VerdictTable t = read_verdicts(read_bytes(page));
  if (t.header != verdict_header) return "";
  Table mine{{"claim (paper)", "paper", "ours", "verdict", "conditions"}, {}};
  for (const auto& row : t.rows) {
    if (row.size() != verdict_header.size() || !names_study(row[5], p.study.name)) continue;
    mine.rows.push_back({row.begin(), row.begin() + 5});
  }
  if (mine.rows.empty()) return "";
  return "<h2>Verdicts</h2>\n" + html_table(mine, "From the verdict table of <code>docs/reproductions/" + html(p.paper()) + ".md</code>") +
         (p.quick() ? "<p class=\"note\">The verdicts rest on the whole study; this page shows a <code>--quick</code> run.</p>\n" : "");
}

std::string runs_text(std::size_t n) { return fmt::format("{} run{}", n, n == 1 ? "" : "s"); }

std::string runs_note(const StudyPage& p) {
  std::string note = runs_text(p.runs) + " in the results store <code>" + html(p.stem()) + ".jsonl</code> ";
  if (p.runs == p.full_runs) return note + "(the whole study)";
  if (p.quick()) return note + fmt::format("(a <code>--quick</code> run; the whole study has {})", p.full_runs);
  return note + fmt::format("(the whole study has {}, its <code>--quick</code> version {})", p.full_runs, p.quick_runs);
}

// The commands that make the results, the charts and this report again.
std::string commands(const StudyPage& p, const Context& ctx) {
  const std::string results_default = p.quick() ? quick_results_dir : default_results_dir;
  const std::string report_default = p.quick() ? quick_report_dir : default_report_dir;
  std::string cmd = "nnlb reproduce " + shell_word(p.study.name) + (p.quick() ? " --quick" : "");
  if (normal_dir(ctx.results_dir) != results_default) cmd += " --out-dir " + shell_word(ctx.results_dir);
  cmd += "\n";
  for (const auto& ps : p.study.plots)
    cmd += "gnuplot " + shell_word((fs::path(ctx.results_dir) / p.study.name / (ps.file + ".gp")).generic_string()) + "\n";
  cmd += std::string("nnlb report") + (p.quick() ? " --quick" : "");
  if (normal_dir(ctx.results_dir) != results_default) cmd += " --results " + shell_word(ctx.results_dir);
  if (normal_dir(ctx.out_dir) != report_default) cmd += " --out " + shell_word(ctx.out_dir);
  return "<p class=\"note\">Run from the folder the results were made in; <code>nnlb reproduce</code> "
         "also redraws the charts, <code>gnuplot</code> redraws one from its script.</p>\n<pre><code>" +
         html(cmd) + "</code></pre>\n";
}

// Width and height from a PNG file's header, if `bytes` holds one.
std::optional<std::pair<unsigned, unsigned>> png_size(const std::string& bytes) {
  constexpr std::string_view signature("\x89PNG\r\n\x1a\n", 8);
  if (bytes.size() < 24 || bytes.compare(0, 8, signature) != 0 || bytes.compare(12, 4, "IHDR") != 0) return std::nullopt;
  auto be32 = [&](std::size_t at) {
    unsigned v = 0;
    for (std::size_t i = 0; i < 4; ++i) v = v << 8 | static_cast<unsigned char>(bytes[at + i]);
    return v;
  };
  return std::pair{be32(16), be32(20)};
}

// Copies `from` to `to` (atomically) and returns its bytes; if `from` is missing, removes a stale
// `to` and returns nothing.
std::optional<std::string> copy_asset(const fs::path& from, const fs::path& to) {
  if (!fs::is_regular_file(from)) {
    std::error_code ignored;
    fs::remove(to, ignored);
    return std::nullopt;
  }
  std::string bytes = read_bytes(from);
  write_file_atomic(to.string(), bytes);
  return bytes;
}

// One chart: copies its PNG and CSV next to the page, returns the <figure>.
std::string figure(const StudyPage& p, const PlotSpec& ps, const fs::path& asset_dir) {
  const auto png = copy_asset(p.results / (ps.file + ".png"), asset_dir / (ps.file + ".png"));
  copy_asset(p.results / (ps.file + ".csv"), asset_dir / (ps.file + ".csv"));
  const auto size = png ? png_size(*png) : std::nullopt;
  const std::string src = p.stem() + "/" + ps.file + ".png";
  const std::string title = plot_title(p, ps);
  const std::string dims = size ? fmt::format("width=\"{}\" height=\"{}\"", size->first, size->second) : "width=\"900\"";
  return "<figure>\n<img src=\"" + html(url(src)) + "\" alt=\"" + html("Chart: " + title) + "\" " + dims + " data-file=\"" + html(src) +
         "\" onerror=\"" + html(on_image_error) + "\">\n<figcaption>Data: <a href=\"" + html(url(p.stem() + "/" + ps.file + ".csv")) +
         "\">" + html(ps.file) + ".csv</a></figcaption>\n</figure>\n";
}

std::string study_page(const StudyPage& p, const Context& ctx, const fs::path& asset_dir) {
  std::string up;  // from the page's folder to the report's root
  for (char c : p.study.name) up += c == '/' ? "../" : "";
  std::string ours, charts;
  for (const auto& ps : p.study.plots) {
    ours += "<h3>" + html(ps.title.empty() ? ps.file : plot_title(p, ps)) + "</h3>\n" + measurement(ps, read_csv(p.results / (ps.file + ".csv")));
    charts += figure(p, ps, asset_dir);
  }
  const std::string claim = p.study.claim.empty() ? "<p class=\"note\">The study file states no claim.</p>\n"
                                                  : "<blockquote>" + html(p.study.claim) + "</blockquote>\n";
  const std::string body = "<nav><a href=\"" + up + "index.html\">\u2190 All reproductions</a></nav>\n<h1>" + html(p.study.title) +
                           "</h1>\n<p class=\"meta\">Study <code>" + html(p.study.name) + "</code> \u00b7 " + runs_note(p) +
                           "</p>\n<div class=\"compare\">\n<section class=\"claim\">\n<h2>Paper's claim</h2>\n" + claim +
                           docs_note(p.paper(), ctx) + "</section>\n<section class=\"ours\">\n<h2>Our measurement</h2>\n" + ours +
                           "</section>\n</div>\n" + verdicts_of(p, ctx) + "<h2>Charts</h2>\n" + charts + "<h2>Regenerate</h2>\n" + commands(p, ctx);
  return document(p.study.title, body);
}

// Says whether the report shows full runs, reduced (--quick) ones, or both.
std::string kind_note(const std::vector<StudyPage>& pages) {
  const auto quick = static_cast<std::size_t>(std::count_if(pages.begin(), pages.end(), [](const StudyPage& p) { return p.quick(); }));
  if (quick == 0) return "<p class=\"meta\">Full runs of every study.</p>\n";
  if (quick == pages.size())
    return "<p class=\"meta\"><strong>Reduced runs</strong> (<code>nnlb reproduce NAME --quick</code>): smaller sizes and fewer "
           "repeats than the papers; the full runs are kept apart.</p>\n";
  return fmt::format("<p class=\"meta\">{} of these {} studies are reduced (<code>--quick</code>) runs, marked below.</p>\n", quick,
                     pages.size());
}

std::string index_page(const std::vector<StudyPage>& pages, const Context& ctx) {
  std::string body = "<h1>nnlb reproductions</h1>\n<p class=\"meta\">" + std::to_string(pages.size()) +
                     " studies, from the results in <code>" + html(ctx.results_dir) +
                     "</code>. Each page sets the paper's claim beside our measurement, with the charts and the "
                     "commands that make them again.</p>\n" + kind_note(pages);
  std::string paper;
  for (const auto& p : pages) {
    if (p.paper() != paper) {
      body += std::string(paper.empty() ? "" : "</ul>\n") + "<h2>" + html(p.paper()) + "</h2>\n" + docs_note(p.paper(), ctx) +
              "<ul class=\"studies\">\n";
      paper = p.paper();
    }
    body += "<li><a href=\"" + html(url(p.study.name + ".html")) + "\">" + html(p.study.title) + "</a>\n<div class=\"meta\"><code>" +
            html(p.study.name) + "</code> \u00b7 " + runs_text(p.runs) +
            (p.quick() ? " (<code>--quick</code>)" : "") + "</div>\n" +
            (p.study.claim.empty() ? "" : "<blockquote>" + html(p.study.claim) + "</blockquote>\n") + "</li>\n";
  }
  return document("nnlb reproductions", body + "</ul>\n");
}

}  // namespace

std::vector<std::string> write_report(const std::string& results_dir, const std::string& scenarios_dir, const std::string& out_dir) {
  if (!fs::is_directory(results_dir))
    throw InputError(results_dir, {}, "results folder not found (`nnlb reproduce NAME` writes one)");
  const std::vector<StudyPage> pages = find_studies(results_dir, scenarios_dir);
  if (pages.empty())
    throw InputError(results_dir, {}, "no reproductions here: no folder PAPER/FIG matches a study file in " + scenarios_dir);
  Context ctx{results_dir, out_dir, fs::canonical(scenarios_dir).parent_path() / "docs" / "reproductions"};
  std::vector<std::string> written;
  for (const auto& p : pages) {
    const fs::path page = fs::path(out_dir) / (p.study.name + ".html");
    const fs::path assets = page.parent_path() / p.stem();
    make_folder(assets.string());
    write_file_atomic(page.string(), study_page(p, ctx, assets));
    written.push_back(page.string());
  }
  const fs::path index = fs::path(out_dir) / "index.html";
  write_file_atomic(index.string(), index_page(pages, ctx));
  written.push_back(index.string());
  return written;
}

}  // namespace nnlb
