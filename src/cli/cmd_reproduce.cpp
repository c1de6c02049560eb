#include <filesystem>
#include <fstream>
#include <optional>
#include <fmt/format.h>

#include "commands.hpp"
#include "interrupt.hpp"
#include "paths.hpp"
#include "nnlb/experiment/progress.hpp"
#include "nnlb/experiment/report.hpp"
#include "nnlb/experiment/study.hpp"
#include "nnlb/util/atomic_file.hpp"
#include "nnlb/util/error.hpp"

namespace nnlb::cli {

namespace {

namespace fs = std::filesystem;

struct ReproduceOptions {
  std::string name;
  bool quick = false;
  bool list = false;
  bool quiet = false;
  std::optional<std::string> out_dir, report_dir;  // defaults: full and --quick runs apart
  int threads = 0;
};

// A study file has a [study] table; plain scenarios (the presets) do not.
bool is_study(const fs::path& file) {
  std::ifstream in(file);
  for (std::string line; std::getline(in, line);)
    if (line.starts_with("[study]")) return true;
  return false;
}

std::vector<std::string> study_names(const fs::path& dir) {
  std::vector<std::string> names;
  if (!fs::is_directory(dir)) return names;
  for (const auto& e : fs::recursive_directory_iterator(dir))
    if (e.is_regular_file() && e.path().extension() == ".toml" && is_study(e.path())) {
      const auto rel = fs::relative(e.path(), dir);
      if (rel.has_parent_path()) names.push_back((rel.parent_path() / rel.stem()).generic_string());
    }
  std::sort(names.begin(), names.end());
  return names;
}

int reproduce(const ReproduceOptions& o) {
  const ScenarioPlace place = scenarios_place();
  if (o.list || o.name.empty()) {
    const auto names = study_names(place.dir);
    if (names.empty())
      throw InputError("reproduce --list", {}, "no study in " + place.dir.string() + " (" + place.origin + "); looked in " +
                                                   places_text(scenario_places()) + "; set NNLB_SCENARIOS to nnlb's scenarios folder");
    fmt::print(stderr, "studies in {} ({}): name, what it draws, runs at full size and how long they took\n", place.dir.string(),
               place.origin);
    std::size_t width = 0;
    for (const auto& n : names) width = std::max(width, n.size());
    for (const auto& n : names) {
      const Study study = load_study((place.dir / (n + ".toml")).string(), n, false);
      const std::size_t runs = sweep_points(study.sweep).size() * study.sweep.repeat;
      fmt::print("{:<{}}  {} ({} run{}{})\n", n, width, study.title, runs, runs == 1 ? "" : "s", study.runtime.empty() ? "" : ", " + study.runtime);
    }
    return 0;
  }
  // A study is a name `nnlb reproduce --list` shows, never a path: an absolute one or one with
  // `..` would put its results beside a file elsewhere.
  const fs::path file = place.dir / (o.name + ".toml");
  const auto names = study_names(place.dir);
  if (!std::binary_search(names.begin(), names.end(), o.name))
    throw InputError("reproduce", {}, "no study '" + o.name + "' in " + place.dir.string() + " (`nnlb reproduce --list`)");
  const Study study = load_study(file.string(), o.name, o.quick);
  // --quick runs go apart from the full ones, so that a quick run never replaces a full result.
  const std::string out_dir = o.out_dir.value_or(o.quick ? quick_results_dir : default_results_dir);
  const std::string report_dir = o.report_dir.value_or(o.quick ? quick_report_dir : default_report_dir);
  const fs::path out = fs::path(out_dir) / o.name;
  make_folder(out.string());  // a file in the way is reported before anything runs
  if (!report_dir.empty()) make_folder(report_dir);
  on_interrupt_keep("finished runs are kept in " + (out / (fs::path(o.name).filename().string() + ".jsonl")).string() +
                    "; run the same command again to resume");
  Progress bar(o.name, o.quiet ? Progress::Mode::quiet : Progress::Mode::automatic);
  SweepRun how;
  how.threads = o.threads;
  how.progress = [&](std::size_t done, std::size_t total) { bar.update(done, total); };
  how.note = [](const std::string& note) { fmt::print(stderr, "note: {}\n", note); };
  const StudyOutput result = run_study(study, out.string(), how);
  fmt::print("{}{}\n", study.title, o.quick ? " (--quick)" : "");
  if (!study.claim.empty()) fmt::print("paper: {}\n", study.claim);
  for (const auto& [plot, table] : result.tables.items())
    if (table.contains("fits"))
      for (const auto& f : table["fits"])
        fmt::print("  {}: {} exponent {:.2f} (r2 {:.3f})\n", plot, f["group"].get<std::string>(), f["exponent"].get<double>(),
                   f["r2"].get<double>());
  for (const auto& f : result.files) fmt::print(stderr, "wrote {}\n", f);
  // Refresh the HTML report so it includes this study.
  if (!report_dir.empty()) fmt::print(stderr, "report: {}\n", write_report(out_dir, place.dir.string(), report_dir).back());
  return 0;
}

}  // namespace

Action add_reproduce(CLI::App& app) {
  auto o = std::make_shared<ReproduceOptions>();
  app.add_option("name", o->name, "study to run, e.g. xu1995/fig2 (see --list)");
  app.add_flag("--quick", o->quick, "reduced sizes (the study's [quick] section), as used by the tests");
  app.add_flag("--list", o->list, "list the available studies (stdout; where they were found on stderr)");
  app.add_flag("-q,--quiet", o->quiet, "no progress output");
  app.add_option("--out-dir", o->out_dir,
                 std::string("output folder (default ") + default_results_dir + ", with --quick " + quick_results_dir + ")");
  app.add_option("--report-dir", o->report_dir,
                 std::string("HTML report refreshed after the run (default ") + default_report_dir + ", with --quick " + quick_report_dir +
                     "; empty: none)");
  add_threads_option(app, o->threads);
  add_memory_option(app);
  app.footer("Studies are looked for in $NNLB_SCENARIOS when set, else in the copy installed with nnlb "
             "(BINDIR/../share/nnlb/scenarios), else in the source tree nnlb was built from; never in the current folder.");
  return [o] { return reproduce(*o); };
}

}  // namespace nnlb::cli
