#include <fmt/format.h>

#include "commands.hpp"
#include "paths.hpp"
#include "nnlb/experiment/report.hpp"

namespace nnlb::cli {

namespace {

struct ReportOptions {
  std::string results = default_results_dir;
  std::string out = default_report_dir;
};

int report(const ReportOptions& o) {
  for (const auto& page : write_report(o.results, scenarios_dir().string(), o.out)) fmt::print("wrote {}\n", page);
  return 0;
}

}  // namespace

Action add_report(CLI::App& app) {
  auto o = std::make_shared<ReportOptions>();
  app.add_option("--results", o->results, std::string("folder of `nnlb reproduce` results (default ") + default_results_dir + ")");
  app.add_option("--out", o->out, std::string("report folder: index.html and a page per study (default ") + default_report_dir + ")");
  return [o] { return report(*o); };
}

}  // namespace nnlb::cli
