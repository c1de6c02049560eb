#pragma once
// Static HTML report of the reproductions: one page per study found in a results folder (the
// paper's claim beside our measurement, the charts, the commands that regenerate them) and an
// index page. The report is self-contained and relocatable: charts and data are copied next to
// the pages, every link is relative, and nothing is fetched from the network.
#include <string>
#include <vector>

namespace nnlb {

// Where `nnlb reproduce` and `nnlb report` write unless told otherwise.
inline constexpr const char* default_results_dir = "results/reproductions";
inline constexpr const char* default_report_dir = "results/report";
// The same for --quick runs, kept apart so that they never replace a full run's results.
inline constexpr const char* quick_results_dir = "results/reproductions-quick";
inline constexpr const char* quick_report_dir = "results/report-quick";

// For every folder RESULTS/NAME that has a study file SCENARIOS/NAME.toml (NAME like
// "xu1995/fig2"), writes OUT/NAME.html with copies of its charts and CSV files in OUT/NAME/, then
// OUT/index.html. Returns the pages written, the index last. Throws InputError if `results_dir`
// does not exist or holds no study.
std::vector<std::string> write_report(const std::string& results_dir, const std::string& scenarios_dir,
                                      const std::string& out_dir);

}  // namespace nnlb
