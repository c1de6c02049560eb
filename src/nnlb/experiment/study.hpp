#pragma once
// A study regenerates one figure or table of a paper: a sweep (file sections [base] and [sweep]),
// how to reduce its records to chart data ([[plot]]), and the text that goes beside it
// ([study]). `nnlb reproduce NAME` runs scenarios/NAME.toml. A [quick] section overrides
// [study] and [sweep] entries for the reduced run used by tests.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "nnlb/experiment/sweep.hpp"

namespace nnlb {

struct PlotSpec {
  std::string kind = "lines";      // lines: y against x per group; series: y over a per-run series;
                                   // fit: lines on log-log axes with a least-squares exponent per group;
                                   // bars: clusters per x value, a bar per y field (or per group);
                                   //   with several y fields a group splits each cluster further;
                                   // heatmap: load of every node over time (records' load_history)
  std::string x;                   // record field ("topology.k"); a series column for kind "series"
  std::vector<std::string> y;      // record fields ("summary.steps_to_balance"); several only for bars
  std::vector<std::string> group;  // fields whose values split the data into labelled lines
  std::vector<std::string> labels; // bars: legend labels of the y fields (default: the field names)
  std::string file;                // output stem: FILE.csv, FILE.png, FILE.gp
  std::string title, xlabel, ylabel;
  bool logx = false, logy = false;
  bool overlay = false;            // bars: the y fields' bars drawn over each other, the last at the
                                   // back (Couturier et al.'s idle / average / maximum convergence time)
  double x_max = 0;                // kind "series": drop points beyond this x (0: keep all)
  double z_max = 0;                // kind "heatmap": top of the colour scale (0: the largest load)
  std::vector<std::string> where;  // only records whose fields match: "scenario.topology=line:64"
};

struct Study {
  std::string name;   // "xu1995/fig2"
  std::string title;
  std::string claim;  // the paper's statement this study checks
  std::string runtime;  // what a full-size run took, as measured ("6 min on 2 cores"; `reproduce --list`)
  SweepSpec sweep;
  std::vector<PlotSpec> plots;
};

Study load_study(const std::string& path, const std::string& name, bool quick);

struct StudyOutput {
  std::vector<std::string> files;  // written, in order
  nlohmann::json tables;           // per plot: the reduced rows (and fitted exponents for "fit")
};

// Runs the sweep (resuming from the store out_dir/NAME.jsonl), then writes one CSV + PNG + .gp
// per plot into `out_dir`.
StudyOutput run_study(const Study& study, const std::string& out_dir, SweepRun how);

// Throws InputError (naming `source` and `key`) if the plot spec is inconsistent.
void check_plot(const PlotSpec& plot, const std::string& source, const std::string& key);

// Reduces records to chart data and writes FILE.csv, FILE.png (or .svg) and FILE.gp for each plot.
// Every plot is made before any is drawn, so one with nothing to draw (an InputError) leaves no
// chart behind. Returns each plot's reduced rows (and exponents for kind "fit"), by file name.
nlohmann::json write_plots(const std::vector<PlotSpec>& plots, const std::vector<nlohmann::json>& records,
                           const std::string& out_dir, const std::string& default_title, const std::string& image_ext = ".png");

// Field lookup in a record: "summary.steps_to_balance" -> record["summary"]["steps_to_balance"];
// the first dot splits section from key, so "scenario.load.init" works. Null if absent.
nlohmann::json record_field(const nlohmann::json& record, const std::string& path);

// Least-squares fit of log y = c + e log x; returns {e, c, r2}.
struct PowerFit {
  double exponent = 0, coefficient = 0, r2 = 0;
};
PowerFit fit_power_law(const std::vector<double>& x, const std::vector<double>& y);

}  // namespace nnlb
