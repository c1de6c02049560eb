#include "nnlb/experiment/study.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <sstream>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "nnlb/experiment/plot.hpp"
#include "nnlb/experiment/scenario.hpp"
#include "nnlb/experiment/store.hpp"
#include "nnlb/util/atomic_file.hpp"
#include "nnlb/util/error.hpp"
#include "nnlb/util/input_file.hpp"

namespace nnlb {

using nlohmann::json;

namespace {

std::string read_text(const std::string& path) {
  if (std::filesystem::is_directory(path)) throw InputError(path, {}, "is a folder, not a study file");
  std::ifstream in = open_input(path, "study file");
  std::stringstream buf;
  buf << in.rdbuf();
  return buf.str();
}

// Typed values of a study file: a value of the wrong type is an InputError naming the file and key.
[[noreturn]] void wrong_type(const json& v, const std::string& path, const std::string& key, const std::string& want) {
  throw InputError(path, key, "expected " + want + ", got " + v.dump());
}

std::string text_value(const json& v, const std::string& path, const std::string& key) {
  if (!v.is_string()) wrong_type(v, path, key, "a string");
  return v.get<std::string>();
}

bool bool_value(const json& v, const std::string& path, const std::string& key) {
  if (!v.is_boolean()) wrong_type(v, path, key, "true or false");
  return v.get<bool>();
}

double limit_value(const json& v, const std::string& path, const std::string& key) {
  if (!v.is_number() || !std::isfinite(v.get<double>()) || v.get<double>() < 0) wrong_type(v, path, key, "a number >= 0");
  return v.get<double>();
}

// A string, or a list of strings.
std::vector<std::string> texts_value(const json& v, const std::string& path, const std::string& key) {
  if (v.is_string()) return {v.get<std::string>()};
  if (!v.is_array() || !std::all_of(v.begin(), v.end(), [](const json& e) { return e.is_string(); }))
    wrong_type(v, path, key, "a string or a list of strings");
  return v.get<std::vector<std::string>>();
}

std::uint64_t integer_value(const json& v, const std::string& path, const std::string& key, std::uint64_t lo, std::uint64_t hi) {
  if (!v.is_number_integer() || v.get<std::int64_t>() < 0 || v.get<std::uint64_t>() < lo || v.get<std::uint64_t>() > hi)
    wrong_type(v, path, key, fmt::format("an integer in {}..{}", lo, hi));
  return v.get<std::uint64_t>();
}

std::string label_of(const json& record, const std::vector<std::string>& group) {
  std::string label;
  for (const auto& g : group) {
    const json v = record_field(record, g);
    label += (label.empty() ? "" : " ") + (v.is_string() ? v.get<std::string>() : v.dump());
  }
  return label.empty() ? "all" : label;
}

// A CSV field in double quotes ("" for a quote inside); control characters become spaces.
std::string csv_text(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"') out += "\"\"";
    else out += static_cast<unsigned char>(c) < 0x20 ? ' ' : c;
  }
  return out + "\"";
}

double as_number(const json& v, const std::string& field, const std::string& where) {
  if (v.is_number()) return v.get<double>();
  throw InputError(where, field, "is not a number in the records (" + v.dump() + ")");
}

// Refuses a sweep of more than max_runs runs (the product of its axes' lengths and repeat).
void check_run_count(const SweepSpec& sweep, const std::string& path) {
  double runs = static_cast<double>(sweep.repeat);
  for (const auto& axis : sweep.axes) runs *= static_cast<double>(axis.values.size());
  if (runs > static_cast<double>(max_runs))
    throw InputError(path, "sweep", fmt::format("{:.3g} runs (points x repeat), more than the {} a sweep may hold", runs, max_runs));
}

// [sweep] exclude: a list of tables of swept keys and one of their swept values each.
std::vector<SweepExclusion> exclusions(const json& list, const SweepSpec& sweep, const std::string& path) {
  const std::string key = "sweep.exclude";
  if (!list.is_array()) wrong_type(list, path, key, "a list of tables such as {algorithm = \"ode\", topology = \"line:16\"}");
  // The values each swept key takes, as the scenario holds them.
  std::map<std::string, std::vector<json>> swept;
  for (const auto& axis : sweep.axes) {
    const auto keys = axis_keys(axis.key);
    for (const auto& value : axis.values) {
      Scenario probe = sweep.base;
      apply_axis(probe, axis.key, value, path + " [sweep]");
      for (const auto& k : keys) swept[k].push_back(probe.get(k));
    }
  }
  std::vector<SweepExclusion> out;
  for (const auto& entry : list) {
    if (!entry.is_object() || entry.empty())
      wrong_type(entry, path, key, "a table of swept keys and values, such as {algorithm = \"ode\", topology = \"line:16\"}");
    SweepExclusion e;
    for (const auto& [k, v] : entry.items()) {
      if (!swept.count(k)) throw InputError(path, key, "'" + k + "' is not a swept key");
      Scenario probe = sweep.base;
      probe.set(k, v, path + " [sweep] exclude");
      const json value = probe.get(k);
      const auto& values = swept[k];
      if (std::find(values.begin(), values.end(), value) == values.end())
        throw InputError(path, key, k + " = " + v.dump() + " is not one of the values swept");
      e.emplace_back(k, value);
    }
    out.push_back(std::move(e));
  }
  return out;
}

// One [plot.NAME] table.
PlotSpec plot_spec(const std::string& id, const json& table, const std::string& path) {
  PlotSpec ps;
  ps.file = id;
  for (const auto& [k, v] : table.items()) {
    const std::string key = "plot." + id + "." + k;
    if (k == "kind") ps.kind = text_value(v, path, key);
    else if (k == "x") ps.x = text_value(v, path, key);
    else if (k == "y") ps.y = texts_value(v, path, key);
    else if (k == "group") ps.group = texts_value(v, path, key);
    else if (k == "title") ps.title = text_value(v, path, key);
    else if (k == "xlabel") ps.xlabel = text_value(v, path, key);
    else if (k == "ylabel") ps.ylabel = text_value(v, path, key);
    else if (k == "logx") ps.logx = bool_value(v, path, key);
    else if (k == "logy") ps.logy = bool_value(v, path, key);
    else if (k == "overlay") ps.overlay = bool_value(v, path, key);
    else if (k == "labels") ps.labels = texts_value(v, path, key);
    else if (k == "x_max") ps.x_max = limit_value(v, path, key);
    else if (k == "z_max") ps.z_max = limit_value(v, path, key);
    else if (k == "where") ps.where = texts_value(v, path, key);
    else throw InputError(path, key, "unknown plot key");
  }
  check_plot(ps, path, "plot." + id);
  return ps;
}

}  // namespace

json record_field(const json& record, const std::string& path) {
  const auto dot = path.find('.');
  const std::string section = path.substr(0, dot);
  if (!record.contains(section)) return nullptr;
  if (dot == std::string::npos) return record[section];
  // A scenario key by an alias (des.lb_period) reads its current name (async.lb_period).
  const std::string key = section == "scenario" ? canonical_key(path.substr(dot + 1)) : path.substr(dot + 1);
  const json& sec = record[section];
  return sec.is_object() && sec.contains(key) ? sec[key] : json(nullptr);
}

PowerFit fit_power_law(const std::vector<double>& x, const std::vector<double>& y) {
  PowerFit f;
  const std::size_t n = x.size();
  if (n < 2) return f;
  double mx = 0, my = 0;
  for (std::size_t i = 0; i < n; ++i) mx += std::log(x[i]), my += std::log(y[i]);
  mx /= static_cast<double>(n), my /= static_cast<double>(n);
  double sxx = 0, sxy = 0, syy = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const double dx = std::log(x[i]) - mx, dy = std::log(y[i]) - my;
    sxx += dx * dx, sxy += dx * dy, syy += dy * dy;
  }
  if (sxx == 0) return f;
  f.exponent = sxy / sxx;
  f.coefficient = std::exp(my - f.exponent * mx);
  f.r2 = syy > 0 ? sxy * sxy / (sxx * syy) : 1.0;
  return f;
}

Study load_study(const std::string& path, const std::string& name, bool quick) {
  const json flat = flatten_toml(read_text(path), path);
  Study st;
  st.name = name;
  json base = json::object(), sweep = json::object(), study = json::object(), overrides = json::object();
  std::map<std::string, json> plots;
  for (const auto& [key, value] : flat.items()) {
    const auto dot = key.find('.');
    const std::string section = key.substr(0, dot), rest = dot == std::string::npos ? "" : key.substr(dot + 1);
    if (section == "base") base[rest] = value;
    else if (section == "sweep") sweep[rest] = value;
    else if (section == "study") study[rest] = value;
    else if (section == "quick") overrides[rest] = value;
    else if (section == "plot") {
      // [plot.NAME] tables: "plot.fig2.kind" -> plots["fig2"]["kind"]
      const auto dot2 = rest.find('.');
      if (dot2 == std::string::npos) throw InputError(path, key, "plots are tables [plot.NAME]");
      plots[rest.substr(0, dot2)][rest.substr(dot2 + 1)] = value;
    } else {
      throw InputError(path, key, "unknown section (study, base, sweep, quick, plot.NAME)");
    }
  }
  if (quick)
    for (const auto& [k, v] : overrides.items()) {
      const auto dot = k.find('.');
      const std::string section = k.substr(0, dot), rest = k.substr(dot + 1);
      if (section == "sweep") sweep[rest] = v;
      else if (section == "study") study[rest] = v;
      else if (section == "base") base[rest] = v;
      else throw InputError(path, "quick." + k, "quick overrides study.*, sweep.* or base.*");
    }
  st.title = name;
  std::string scenario_file;  // a scenario file the [base] keys override
  for (const auto& [k, v] : study.items()) {
    const std::string key = "study." + k;
    if (k == "title") st.title = text_value(v, path, key);
    else if (k == "claim") st.claim = text_value(v, path, key);
    else if (k == "runtime") st.runtime = text_value(v, path, key);
    else if (k == "scenario") scenario_file = text_value(v, path, key);
    else if (k == "repeat") st.sweep.repeat = integer_value(v, path, key, 1, max_repeat);
    else if (k == "seed") st.sweep.master_seed = integer_value(v, path, key, 0, std::numeric_limits<std::int64_t>::max());
    else if (k == "keep_series") st.sweep.keep_series = bool_value(v, path, key);
    else throw InputError(path, key, "unknown key (title, claim, runtime, scenario, repeat, seed, keep_series)");
  }
  // Relative paths (the scenario file, load and graph files) are relative to the study file.
  const std::filesystem::path dir = std::filesystem::absolute(path).parent_path();
  if (scenario_file.empty()) {
    st.sweep.base = Scenario::from_toml("", path);
  } else {
    const std::filesystem::path file = dir / scenario_file;
    if (!std::filesystem::exists(file)) throw InputError(path, "study.scenario", "no scenario file " + file.string());
    st.sweep.base = Scenario::from_file(file.string());
  }
  st.sweep.base.set_base_dir(dir.string());
  for (const auto& [k, v] : base.items()) st.sweep.base.set(k, v, path + " [base]");
  for (const auto& [k, v] : sweep.items()) {
    if (k == "exclude") continue;
    if (!v.is_array() || v.empty()) throw InputError(path, "sweep." + k, "expected a non-empty list of values");
    for (const auto& value : v) {
      Scenario probe = st.sweep.base;  // type check now, before anything runs
      apply_axis(probe, k, value, path + " [sweep]");
    }
    st.sweep.axes.push_back({k, std::vector<json>(v.begin(), v.end())});
  }
  check_run_count(st.sweep, path);
  if (sweep.contains("exclude")) {
    st.sweep.exclude = exclusions(sweep["exclude"], st.sweep, path);
    if (sweep_points(st.sweep).empty()) throw InputError(path, "sweep.exclude", "leaves no point to run");
  }
  for (const auto& [id, p] : plots) {
    st.plots.push_back(plot_spec(id, p, path));
    if (st.plots.back().kind == "series") st.sweep.keep_series = true;
  }
  return st;
}

namespace {

// Samples of y per (group label, x), labels in first-seen order.
struct Samples {
  std::vector<std::string> labels;
  std::map<std::string, std::map<double, std::vector<double>>> data;
  std::map<std::string, std::size_t> runs, missing;
};

Samples collect(const PlotSpec& ps, const std::vector<json>& records) {
  Samples out;
  for (const auto& r : records) {
    const std::string label = label_of(r, ps.group);
    if (!out.data.count(label)) out.labels.push_back(label);
    auto& by_x = out.data[label];
    ++out.runs[label];
    if (ps.kind == "series") {
      if (!r.contains("series")) throw InputError(ps.file, {}, "records hold no series (a sweep drops them unless [study] keep_series = true)");
      const auto& s = r["series"];
      if (!s.is_object() || !s.contains(ps.x) || !s.contains(ps.y[0]))
        throw InputError(ps.file, {}, "series has no column '" + ps.x + "' or '" + ps.y[0] + "'");
      const json &xs = s[ps.x], &ys = s[ps.y[0]];
      if (!xs.is_array() || !ys.is_array() || xs.size() != ys.size())
        throw InputError(ps.file, {}, "series columns '" + ps.x + "' and '" + ps.y[0] + "' are not lists of one length");
      for (std::size_t i = 0; i < xs.size(); ++i) {
        const double x = as_number(xs[i], "series." + ps.x, ps.file);
        if (ps.x_max > 0 && x > ps.x_max) break;
        by_x[x].push_back(as_number(ys[i], "series." + ps.y[0], ps.file));
      }
    } else {
      const json y = record_field(r, ps.y[0]);
      const double x = as_number(record_field(r, ps.x), ps.x, ps.file);
      if (y.is_null()) ++out.missing[label];  // e.g. never balanced within stop.steps
      else by_x[x].push_back(as_number(y, ps.y[0], ps.file));
    }
  }
  return out;
}

double mean_of(const std::vector<double>& v) {
  double s = 0;
  for (double x : v) s += x;
  return v.empty() ? 0.0 : s / static_cast<double>(v.size());
}

// lines, series, fit: one line per group; fit adds a least-squares power law per group.
json xy_plot(const PlotSpec& ps, const std::vector<json>& records, Chart& chart, std::string& csv) {
  const Samples smp = collect(ps, records);
  json rows = json::array(), fits = json::array();
  csv = "group,x,mean,min,max,samples\n";
  for (const auto& label : smp.labels) {
    ChartSeries cs;
    cs.label = label;
    cs.style = ps.kind == "series" ? "lines" : "linespoints";
    for (const auto& [x, ys] : smp.data.at(label)) {
      const double mean = mean_of(ys), lo = *std::min_element(ys.begin(), ys.end()), hi = *std::max_element(ys.begin(), ys.end());
      cs.x.push_back(x);
      cs.y.push_back(mean);
      csv += fmt::format("{},{:.10g},{:.10g},{:.10g},{:.10g},{}\n", csv_text(label), x, mean, lo, hi, ys.size());
      rows.push_back({{"group", label}, {"x", x}, {"mean", mean}, {"min", lo}, {"max", hi}, {"samples", ys.size()}});
    }
    if (ps.kind == "fit" && cs.x.size() >= 2) {
      const PowerFit f = fit_power_law(cs.x, cs.y);
      fits.push_back({{"group", label}, {"exponent", f.exponent}, {"coefficient", f.coefficient}, {"r2", f.r2}});
      cs.label = fmt::format("{} (slope {:.2f})", label, f.exponent);
      cs.style = fmt::format("points lc {}", fits.size());  // one colour per group, shared with its line
      ChartSeries line;
      line.style = fmt::format("lines dt 2 lc {}", fits.size());
      line.x = {cs.x.front(), cs.x.back()};
      line.y = {f.coefficient * std::pow(cs.x.front(), f.exponent), f.coefficient * std::pow(cs.x.back(), f.exponent)};
      chart.series.push_back(std::move(cs));
      chart.series.push_back(std::move(line));
    } else {
      chart.series.push_back(std::move(cs));
    }
  }
  for (const auto& [label, n] : smp.missing)
    if (n) rows.push_back({{"group", label}, {"unbalanced_runs", n}, {"runs", smp.runs.at(label)}});
  json table = {{"rows", rows}};
  if (ps.kind == "fit") {
    csv += "\ngroup,exponent,coefficient,r2\n";
    for (const auto& f : fits)
      csv += fmt::format("{},{:.4f},{:.6g},{:.4f}\n", csv_text(f["group"].get<std::string>()), f["exponent"].get<double>(),
                         f["coefficient"].get<double>(), f["r2"].get<double>());
    table["fits"] = fits;
  }
  return table;
}

// Grouped bars: clusters are the values of x (in first-seen order), split by group when there
// are several y fields; bars are the y fields, or, with a single y, the groups. Heights are means
// over the records; a record with a null y (e.g. a convergence time of an unbalanced run) is
// left out, and a bar without samples is drawn as missing.
json bars_plot(const PlotSpec& ps, const std::vector<json>& records, Chart& chart, std::string& csv) {
  std::vector<std::string> clusters, bars;
  std::map<std::pair<std::string, std::string>, std::vector<double>> samples;
  std::map<std::pair<std::string, std::string>, std::size_t> missing;
  std::map<std::string, json> x_of;
  auto remember = [](std::vector<std::string>& v, const std::string& s) {
    if (std::find(v.begin(), v.end(), s) == v.end()) v.push_back(s);
  };
  const bool split = ps.y.size() > 1 && !ps.group.empty();
  for (const auto& r : records) {
    const json xv = record_field(r, ps.x);
    const std::string cluster = (xv.is_string() ? xv.get<std::string>() : xv.dump()) + (split ? " " + label_of(r, ps.group) : "");
    remember(clusters, cluster);
    x_of.emplace(cluster, xv);
    for (std::size_t f = 0; f < ps.y.size(); ++f) {
      const std::string& field = ps.y[f];
      const std::string bar = ps.y.size() > 1 ? (ps.labels.empty() ? field : ps.labels[f]) : label_of(r, ps.group);
      remember(bars, bar);
      const json y = record_field(r, field);
      if (y.is_null()) ++missing[{cluster, bar}];
      else samples[{cluster, bar}].push_back(as_number(y, field, ps.file));
    }
  }
  // Clusters of numeric x in increasing x (groups keep their order within), a gap between x values.
  if (split && std::all_of(clusters.begin(), clusters.end(), [&](const std::string& c) { return x_of.at(c).is_number(); }))
    std::stable_sort(clusters.begin(), clusters.end(), [&](const std::string& a, const std::string& b) {
      return x_of.at(a).get<double>() < x_of.at(b).get<double>();
    });
  double position = 0;
  for (std::size_t c = 0; c < clusters.size(); ++c) {
    if (c) position += x_of.at(clusters[c]) != x_of.at(clusters[c - 1]) ? 2.0 : 1.0;
    chart.positions.push_back(position);
  }
  chart.categories = clusters;
  chart.overlay = ps.overlay;
  // A bar over several repeats carries its range (min to max) as an error bar.
  const bool ranges = std::any_of(samples.begin(), samples.end(), [](const auto& s) { return s.second.size() > 1; });
  csv = "cluster,bar,mean,min,max,samples,missing\n";
  json rows = json::array();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  for (const auto& bar : bars) {
    ChartSeries cs;
    cs.label = bar;
    for (const auto& cluster : clusters) {
      const auto& v = samples[{cluster, bar}];
      const std::size_t absent = missing[{cluster, bar}];
      const double mean = v.empty() ? nan : mean_of(v);
      const double lo = v.empty() ? nan : *std::min_element(v.begin(), v.end()), hi = v.empty() ? nan : *std::max_element(v.begin(), v.end());
      cs.y.push_back(mean);
      if (ranges) cs.y_low.push_back(lo), cs.y_high.push_back(hi);
      const auto number = [&](double x) { return v.empty() ? std::string() : fmt::format("{:.10g}", x); };
      csv += fmt::format("{},{},{},{},{},{},{}\n", csv_text(cluster), csv_text(bar), number(mean), number(lo), number(hi), v.size(), absent);
      rows.push_back({{"cluster", cluster}, {"bar", bar}, {"mean", v.empty() ? json(nullptr) : json(mean)},
                      {"min", v.empty() ? json(nullptr) : json(lo)}, {"max", v.empty() ? json(nullptr) : json(hi)},
                      {"samples", v.size()}, {"missing", absent}});
    }
    chart.series.push_back(std::move(cs));
  }
  return {{"rows", rows}};
}

// Heat map of the first record that holds a load history.
json heatmap_plot(const PlotSpec& ps, const std::vector<json>& records, Chart& chart, std::string& csv) {
  const auto it = std::find_if(records.begin(), records.end(), [](const json& r) { return r.contains("load_history"); });
  if (it == records.end()) throw InputError(ps.file, {}, "no record holds a load history (set output.load_history)");
  const auto& h = (*it)["load_history"];
  chart.row_values = h["steps"].get<std::vector<double>>();
  chart.matrix = h["loads"].get<std::vector<std::vector<double>>>();
  chart.zlabel = "load";
  chart.z_max = ps.z_max;
  csv = "step,node,load\n";
  for (std::size_t r = 0; r < chart.matrix.size(); ++r)
    for (std::size_t c = 0; c < chart.matrix[r].size(); ++c) csv += fmt::format("{:.10g},{},{:.10g}\n", chart.row_values[r], c, chart.matrix[r][c]);
  return {{"samples", chart.matrix.size()}, {"nodes", chart.matrix.empty() ? 0 : chart.matrix.front().size()}, {"seed", (*it)["seed"]}};
}

}  // namespace

void check_plot(const PlotSpec& ps, const std::string& source, const std::string& key) {
  static const std::vector<std::string> kinds = {"lines", "series", "fit", "bars", "heatmap"};
  if (std::find(kinds.begin(), kinds.end(), ps.kind) == kinds.end())
    throw InputError(source, key + ".kind", "must be lines, series, fit, bars or heatmap, got '" + ps.kind + "'");
  for (const auto& cond : ps.where)
    if (cond.find('=') == std::string::npos || cond.front() == '=')
      throw InputError(source, key + ".where", "conditions are FIELD=VALUE, got '" + cond + "'");
  if (ps.logx && (ps.kind == "bars" || ps.kind == "heatmap"))
    throw InputError(source, key + ".logx", "kind " + ps.kind + " has categories or nodes along x, not a scale: logx is for lines, series and fit");
  if (ps.kind == "heatmap") return;
  if (ps.x.empty() || ps.y.empty()) throw InputError(source, key, "needs x and y");
  if (ps.y.size() > 1 && ps.kind != "bars") throw InputError(source, key + ".y", "several y fields only for kind bars");
  if (!ps.labels.empty() && (ps.kind != "bars" || ps.labels.size() != ps.y.size()))
    throw InputError(source, key + ".labels", "needs kind bars and one label per y field");
}

bool matches(const json& record, const std::vector<std::string>& where) {
  for (const auto& cond : where) {
    const auto eq = cond.find('=');
    const json v = record_field(record, cond.substr(0, eq));
    const std::string want = cond.substr(eq + 1);
    if ((v.is_string() ? v.get<std::string>() : v.dump()) != want) return false;
  }
  return true;
}

namespace {

// Whether gnuplot has a point to draw: a number, positive on a log axis (bars have no x values).
bool drawable(const Chart& c) {
  if (c.kind == Chart::Kind::heatmap) return !c.matrix.empty() && !c.matrix.front().empty();
  const auto fits = [](double v, bool log) { return std::isfinite(v) && (!log || v > 0); };
  for (const ChartSeries& s : c.series)
    for (std::size_t k = 0; k < s.y.size(); ++k)
      if (fits(s.y[k], c.logy) && (k >= s.x.size() || fits(s.x[k], c.logx))) return true;
  return false;
}

}  // namespace

namespace {

struct MadePlot {
  Chart chart;
  std::string csv;
  json table;
};

// A title's "{runs}" becomes the runs each point of the chart drew on ("2", or "2-3" where points
// differ), so that a --quick chart says what it shows.
std::string with_runs(std::string title, const std::vector<json>& records) {
  const std::size_t at = title.find("{runs}");
  if (at == std::string::npos) return title;
  std::map<std::string, std::size_t> per_point;
  for (const auto& r : records) ++per_point[r.value("point", json::object()).dump()];
  std::size_t lo = std::numeric_limits<std::size_t>::max(), hi = 0;
  for (const auto& [point, n] : per_point) lo = std::min(lo, n), hi = std::max(hi, n);
  const std::string runs = per_point.empty() ? "0" : lo == hi ? std::to_string(lo) : fmt::format("{}-{}", lo, hi);
  return title.replace(at, 6, runs);
}

// The chart, CSV and table of one plot; refuses a plot with nothing to draw.
MadePlot make_plot(const PlotSpec& ps, const std::vector<json>& all_records, const std::string& default_title) {
  std::vector<json> records;
  for (const auto& r : all_records)
    if (matches(r, ps.where)) records.push_back(r);
  MadePlot made;
  Chart& chart = made.chart;
  chart.title = with_runs(ps.title.empty() ? default_title : ps.title, records);
  chart.xlabel = ps.xlabel.empty() ? (ps.kind == "heatmap" ? "node" : ps.x) : ps.xlabel;
  chart.ylabel = ps.ylabel.empty() ? (ps.kind == "heatmap" ? "step" : ps.y.front()) : ps.ylabel;
  chart.logx = ps.logx || ps.kind == "fit";
  chart.logy = ps.logy || ps.kind == "fit";
  if (ps.kind == "bars") {
    chart.kind = Chart::Kind::bars;
    made.table = bars_plot(ps, records, chart, made.csv);
  } else if (ps.kind == "heatmap") {
    chart.kind = Chart::Kind::heatmap;
    made.table = heatmap_plot(ps, records, chart, made.csv);
  } else {
    made.table = xy_plot(ps, records, chart, made.csv);
  }
  if (!drawable(chart))
    throw InputError("plot '" + ps.file + "'", "y",
                     fmt::format("nothing to draw: {} records match, none with a number{} at {}{}", records.size(),
                                 chart.logx || chart.logy ? " (positive on a log axis)" : "", fmt::join(ps.y, ", "),
                                 ps.kind == "series" || ps.kind == "heatmap" ? " (or the series the plot needs)" : ""));
  return made;
}

void save_plot(const PlotSpec& ps, const MadePlot& made, const std::string& out_dir, const std::string& image_ext) {
  const std::string base = (std::filesystem::path(out_dir) / ps.file).string();
  render_chart(made.chart, base + image_ext);
  write_file_atomic(base + ".csv", made.csv);
}

}  // namespace

json write_plots(const std::vector<PlotSpec>& plots, const std::vector<json>& records, const std::string& out_dir,
                 const std::string& default_title, const std::string& image_ext) {
  std::vector<MadePlot> made;
  for (const PlotSpec& ps : plots) {
    try {
      made.push_back(make_plot(ps, records, default_title));
    } catch (const json::exception& e) {  // a record's field of another type than the plot reads
      const std::string what = e.what();   // "[json.exception.type_error.302] type must be ..."
      throw InputError(ps.file, {}, "a record's field has the wrong type for this plot: " + what.substr(what.find("] ") + 2));
    }
  }
  json tables = json::object();
  for (std::size_t k = 0; k < made.size(); ++k) {
    save_plot(plots[k], made[k], out_dir, image_ext);
    tables[plots[k].file] = std::move(made[k].table);
  }
  return tables;
}

StudyOutput run_study(const Study& study, const std::string& out_dir, SweepRun how) {
  make_folder(out_dir);
  const std::string stem = std::filesystem::path(study.name).filename().string();
  const std::string store_path = (std::filesystem::path(out_dir) / (stem + ".jsonl")).string();
  ResultStore store(store_path, [](const std::string& w) { fmt::print(stderr, "warning: {}\n", w); });
  how.store = &store;
  const std::vector<json> records = run_sweep(study.sweep, how);
  StudyOutput out;
  out.files.push_back(store_path);
  out.tables = write_plots(study.plots, records, out_dir, study.title);
  for (const auto& ps : study.plots) {
    const std::string base = (std::filesystem::path(out_dir) / ps.file).string();
    out.files.push_back(base + ".csv");
    out.files.push_back(base + ".png");
  }
  return out;
}

}  // namespace nnlb
