#include <fmt/format.h>

#include <filesystem>
#include <optional>

#include "commands.hpp"
#include "paths.hpp"
#include "nnlb/experiment/report.hpp"
#include "nnlb/util/error.hpp"

namespace nnlb::cli {

namespace {

struct ReportOptions {
  std::optional<std::string> results, out;
  bool quick = false;
};

int report(const ReportOptions& o) {
  const std::string results = o.results.value_or(o.quick ? quick_results_dir : default_results_dir);
  const std::string out = o.out.value_or(o.quick ? quick_report_dir : default_report_dir);
  // Only --quick runs so far: say so, rather than that the full results' folder is missing.
  if (!o.results && !o.quick && !std::filesystem::is_directory(results) && std::filesystem::is_directory(quick_results_dir))
    throw InputError(results, {}, std::string("results folder not found; ") + quick_results_dir +
                                      " holds --quick runs: `nnlb report --quick` reports those");
  for (const auto& page : write_report(results, scenarios_dir().string(), out)) fmt::print(stderr, "wrote {}\n", page);
  return 0;
}

}  // namespace

Action add_report(CLI::App& app) {
  auto o = std::make_shared<ReportOptions>();
  app.add_option("--results", o->results, std::string("folder of `nnlb reproduce` results (default ") + default_results_dir + ")");
  app.add_option("--out", o->out, std::string("report folder: index.html and a page per study (default ") + default_report_dir + ")");
  app.add_flag("--quick", o->quick,
               std::string("the --quick runs: results from ") + quick_results_dir + ", report to " + quick_report_dir);
  return [o] { return report(*o); };
}

}  // namespace nnlb::cli
