#include <filesystem>
#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "commands.hpp"
#include "interrupt.hpp"
#include "mpi_world.hpp"
#include "nnlb/experiment/format.hpp"
#include "nnlb/experiment/progress.hpp"
#include "nnlb/experiment/study.hpp"
#include "nnlb/util/atomic_file.hpp"
#include "nnlb/util/error.hpp"

namespace nnlb::cli {

namespace {

namespace fs = std::filesystem;

struct SweepOptions {
  std::string file;
  std::string store;
  std::string out_dir;
  std::vector<std::string> sets;
  std::optional<std::uint64_t> seed;
  int threads = 0;
  bool quiet = false;
  bool quick = false;
};

std::string value_text(const nlohmann::json& v) { return v.is_string() ? v.get<std::string>() : v.dump(); }

// "algorithm=ade topology=mesh:4x4"; a zipped axis's keys one by one ("name=BE leveling=2").
std::string point_text(const nlohmann::json& point) {
  std::string s;
  for (const auto& [k, v] : point.items()) {
    const auto keys = axis_keys(k);
    for (std::size_t i = 0; i < keys.size(); ++i)
      s += (s.empty() ? "" : " ") + keys[i] + "=" + value_text(keys.size() > 1 && v.is_array() && i < v.size() ? v[i] : v);
  }
  return s.empty() ? "(base)" : s;
}

// One line per point: the mean of the main summary fields over its repeats. A replay's time to
// balance is the step at which the recorded run and the replay reached the band (load.trace).
void print_points(const std::vector<nlohmann::json>& records) {
  std::vector<std::string> order;
  std::map<std::string, std::vector<nlohmann::json>> by_point;
  std::size_t width = 5;
  for (const auto& r : records) {
    const std::string p = point_text(r["point"]);
    if (!by_point.count(p)) order.push_back(p);
    by_point[p].push_back(r);
    width = std::max(width, p.size());
  }
  const bool replay = !records.empty() && records.front()["summary"].contains("replay_balanced_step");
  const std::vector<const char*> fields = replay ? std::vector<const char*>{"trace_balanced_step", "replay_balanced_step", "final_imbalance", "load_moved"}
                                                 : std::vector<const char*>{"steps_to_balance", "final_imbalance", "load_moved"};
  fmt::print("{:<{}} {:>5} {:>9}", "point", width, "runs", "balanced");
  for (const char* f : fields) fmt::print(" {:>{}}", f, std::max<std::size_t>(14, std::string_view(f).size()));
  fmt::print("\n");
  for (const auto& p : order) {
    const auto agg = aggregate_fields(by_point[p], fields);
    std::size_t balanced = 0;
    for (const auto& r : by_point[p]) balanced += r["summary"]["balanced"].get<bool>();
    fmt::print("{:<{}} {:>5} {:>9}", p, width, by_point[p].size(), balanced);
    for (const char* f : fields)
      fmt::print(" {:>{}}", agg[f].is_null() ? std::string("-") : fmt::format("{:.6g}", agg[f]["mean"].get<double>()),
                 std::max<std::size_t>(14, std::string_view(f).size()));
    fmt::print("\n");
  }
}

int sweep(const SweepOptions& o) {
  const std::string stem = fs::path(o.file).stem().string();
  Study study = load_study(o.file, stem, o.quick);
  for (const auto& a : o.sets) {
    // A swept key takes each of its values in turn: a --set of it would be overwritten at every point.
    const std::string key = a.substr(0, a.find('='));
    for (const SweepAxis& axis : study.sweep.axes)
      for (const std::string& swept : axis_keys(axis.key))
        if (swept == key)
          throw InputError("--set " + key, {}, "'" + key + "' is swept in " + o.file + " ([sweep] \"" + axis.key + "\"): change its values there");
    set_given(study.sweep.base, a);
  }
  if (o.seed) study.sweep.master_seed = *o.seed;
  const std::string store_path = o.store.empty() ? (fs::path("results/sweeps") / (stem + ".jsonl")).string() : o.store;
  const std::string out_dir = o.out_dir.empty() ? fs::path(store_path).parent_path().string() : o.out_dir;
  // Folders first: a file in the way is reported before anything runs.
  if (fs::path(store_path).has_parent_path()) make_folder(fs::path(store_path).parent_path().string());
  if (!study.plots.empty() && !out_dir.empty()) make_folder(out_dir);
  // Under mpirun every rank runs its share of the jobs (j % size == rank) into the same store
  // (O_APPEND writes of whole lines); rank 0 then reads every record back and reports. An error
  // on any rank ends them all (main's handler).
  World& world = World::get();
  const auto warn = [&](const std::string& w) {
    if (world.rank() == 0) fmt::print(stderr, "warning: {}\n", w);
  };
  on_interrupt_keep("finished runs are kept in " + store_path + "; run the same command again to resume");
  {
    ResultStore store(store_path, warn);
    Progress bar(world.size() > 1 ? fmt::format("{} (rank 0 of {})", stem, world.size()) : stem,
                 o.quiet || world.rank() != 0 ? Progress::Mode::quiet : Progress::Mode::automatic);
    SweepRun how;
    how.threads = o.threads;
    how.store = &store;
    how.rank = world.rank();
    how.ranks = world.size();
    how.progress = [&](std::size_t done, std::size_t total) { bar.update(done, total); };
    how.note = [&](const std::string& note) {
      if (world.rank() == 0) fmt::print(stderr, "note: {}\n", note);
    };
    run_sweep(study.sweep, how);
  }
  world.barrier();
  if (world.rank() != 0) return 0;
  ResultStore all(store_path, {});  // its warnings were given when the sweep opened it
  SweepRun gather;
  gather.store = &all;
  const auto records = run_sweep(study.sweep, gather);  // every job is in the store now: nothing runs
  print_points(records);
  fmt::print(stderr, "results store: {}\n", store_path);
  // Plots are named after the sweep: sweeps sharing a folder (results/sweeps/) keep their own.
  std::vector<PlotSpec> plots = study.plots;
  for (PlotSpec& ps : plots) ps.file = stem + "-" + ps.file;
  write_plots(plots, records, out_dir, study.title);
  for (const PlotSpec& ps : plots) fmt::print(stderr, "wrote {}\n", (fs::path(out_dir) / (ps.file + ".png")).string());
  return 0;
}

}  // namespace

Action add_sweep(CLI::App& app) {
  auto o = std::make_shared<SweepOptions>();
  app.add_option("sweep", o->file, "sweep file: [base] keys, [sweep] value lists, [study] repeat/seed, optional [plot.NAME]")->required();
  app.add_option("--store", o->store, "results store (JSON lines; default results/sweeps/NAME.jsonl); an existing store is resumed");
  app.add_option("--out-dir", o->out_dir, "where the sweep's plots go (default: the store's folder)");
  app.add_option("--set", o->sets, "override a base scenario key, KEY=VALUE (repeatable)")->take_all();
  app.add_option("--seed", o->seed, "master seed (repeat r uses seed + r)")->check(seed_value());
  add_threads_option(app, o->threads);
  add_memory_option(app);
  app.add_flag("-q,--quiet", o->quiet, "no progress output");
  app.add_flag("--quick", o->quick, "apply the file's [quick] section");
  app.footer("Every key of a sweep file, with its type, default and an example: docs/sweep-files.md");
  return [o] { return sweep(*o); };
}

}  // namespace nnlb::cli
