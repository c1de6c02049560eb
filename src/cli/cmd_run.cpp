#include <fmt/format.h>

#include <filesystem>

#include "commands.hpp"
#include "mpi_world.hpp"
#include "nnlb/experiment/format.hpp"
#include "nnlb/experiment/plot.hpp"
#include "nnlb/experiment/run.hpp"
#include "nnlb/experiment/sweep.hpp"
#include "nnlb/util/atomic_file.hpp"
#include "nnlb/util/error.hpp"
#include "nnlb/util/memory.hpp"
#include "nnlb/util/parallel.hpp"
#include "nnlb/version.hpp"

namespace nnlb::cli {

namespace {

struct RunOptions {
  ScenarioOptions scenario;
  std::optional<std::uint64_t> seed;
  std::uint64_t repeat = 1;
  std::string format;
  std::string out;
  std::string plot;
  int threads = 0;
};

std::string format_of(const std::string& path) {
  if (path.ends_with(".json")) return "json";
  if (path.ends_with(".csv")) return "csv";
  return "table";
}

std::string render(const std::vector<nlohmann::json>& records, const std::string& format) {
  if (format == "json") {
    if (records.size() == 1) return records.front().dump(1) + "\n";
    return nlohmann::json{{"runs", records}, {"aggregate", aggregate_summaries(records)}}.dump(1) + "\n";
  }
  if (format == "csv") return records.size() == 1 ? format_series_csv(records.front()) : format_summary_csv(records);
  return records.size() == 1 ? format_table(records.front()) : format_repeat_table(records);
}

// Imbalance factor over communication steps, one line per run.
Chart imbalance_chart(const std::vector<nlohmann::json>& records) {
  const auto& first = records.front();
  Chart c;
  c.title = first["scenario"]["algorithm"].get<std::string>() + " on " + first["topology"]["spec"].get<std::string>();
  c.xlabel = "communication steps";
  c.ylabel = "imbalance factor nu";
  c.logy = true;
  for (const auto& r : records) {
    ChartSeries s;
    s.label = "seed " + r["seed"].dump();
    s.style = "lines";
    const auto& series = r["series"];
    for (std::size_t i = 0; i < series["steps"].size(); ++i) {
      const double nu = series["imbalance"][i].get<double>();
      if (nu <= 0) continue;  // log axis
      s.x.push_back(series["steps"][i].get<double>());
      s.y.push_back(nu);
    }
    c.series.push_back(std::move(s));
  }
  return c;
}

// --repeat keeps every record for the aggregate and the output: refuses, after the first run
// and with the estimate, a count whose records would not fit (measured: a record takes about
// 5 times its JSON text in memory, 11 times when the output is JSON too).
void check_repeat_memory(const nlohmann::json& first, std::uint64_t repeat, const std::string& format) {
  const double per_record = static_cast<double>(first.dump().size()) * (format == "json" ? 11 : 5);
  MemoryEstimate m;
  m.add("records", "", "run fewer repeats, or a sweep with a results store (it streams its records)", per_record * static_cast<double>(repeat));
  check_memory(m, "--repeat " + std::to_string(repeat));
}

int run(const RunOptions& o) {
  set_thread_count(o.threads);
  // Before the run: no output of a run refused later, no run whose output cannot be written.
  if (!o.out.empty()) check_output_file(o.out, "--out");
  if (!o.plot.empty()) {
    check_image_name(o.plot, "--plot");
    check_output_file(o.plot, "--plot");
    if (!o.out.empty() && std::filesystem::weakly_canonical(o.plot) == std::filesystem::weakly_canonical(o.out))
      throw InputError("--plot", {}, "'" + o.plot + "' is --out's file too: give the chart a file of its own");
  }
  const Scenario s = o.scenario.load();
  const std::uint64_t master = o.seed ? *o.seed : static_cast<std::uint64_t>(s.integer("seed"));
  std::vector<nlohmann::json> records;
  for (std::uint64_t r = 0; r < o.repeat; ++r) {
    const RunRecord record = run_scenario(s, master + r);
    if (!record.result.reported) continue;  // an MPI rank other than 0: the record is on rank 0
    records.push_back(to_json(record));
    records.back()["code_version"] = code_version;
    if (records.size() == 1 && o.repeat > 1) check_repeat_memory(records.front(), o.repeat, o.format.empty() ? format_of(o.out) : o.format);
  }
  if (records.empty()) return 0;
  if (!o.plot.empty()) render_chart(imbalance_chart(records), o.plot);
  const std::string file_format = o.format.empty() ? format_of(o.out) : o.format;
  if (!o.out.empty()) {
    write_file_atomic(o.out, render(records, file_format));
    fmt::print("{}", render(records, "table"));
    fmt::print(stderr, "wrote {}\n", o.out);
  } else {
    fmt::print("{}", render(records, o.format.empty() ? "table" : o.format));
  }
  if (!o.plot.empty()) fmt::print(stderr, "wrote {}\n", o.plot);
  return 0;
}

}  // namespace

Action add_run(CLI::App& app) {
  auto o = std::make_shared<RunOptions>();
  o->scenario.add_to(app);
  app.add_option("--seed", o->seed, "master seed (overrides the scenario's seed key)")->check(seed_value());
  app.add_option("--repeat", o->repeat, "number of runs, with seeds SEED, SEED+1, ...")->check(integer_in(1, max_runs));
  app.add_option("--format", o->format, "table, json or csv (default: table, or from --out's extension)")
      ->check(CLI::IsMember({"table", "json", "csv"}));
  app.add_option("--out", o->out, "write the result to this file (written whole, only on success)");
  app.add_option("--plot", o->plot, "also plot the imbalance factor over steps to this .png or .svg file (the extension picks the format)");
  add_threads_option(app, o->threads);
  add_memory_option(app);
  return [o] {
    if (World* world = World::current()) world->same_input_everywhere();  // under mpirun every rank runs this same scenario
    return run(*o);
  };
}

}  // namespace nnlb::cli
