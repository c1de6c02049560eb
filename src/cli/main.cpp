// nnlb: nearest-neighbour dynamic load balancing, from the command line.
#include <cstdio>
#include <fmt/format.h>

#include "commands.hpp"
#include "interrupt.hpp"
#include "mpi_world.hpp"
#include "paths.hpp"
#include "nnlb/engine/core/result.hpp"
#include "nnlb/engine/plugin.hpp"
#ifdef NNLB_HAVE_MPI
#include "nnlb/runtime/mpi_engine.hpp"
#endif
#include "nnlb/util/error.hpp"
#include "nnlb/version.hpp"

int main(int argc, char** argv) {
  nnlb::cli::hand_over_under_mpirun(argv);
  nnlb::cli::handle_interrupts();
  CLI::App app{"nnlb: decentralized nearest-neighbour dynamic load balancing"};
  app.set_version_flag("--version", std::string("nnlb ") + nnlb::version + " (" + nnlb::code_version + ")");
  app.require_subcommand(1);
  std::vector<std::pair<CLI::App*, nnlb::cli::Action>> commands;
  auto add = [&](const char* name, const char* help, nnlb::cli::Action (*adder)(CLI::App&)) {
    CLI::App* sub = app.add_subcommand(name, help);
    commands.emplace_back(sub, adder(*sub));
  };
  add("run", "run a scenario and print or write its result record", nnlb::cli::add_run);
  add("analyze", "spectral analysis: subdominant eigenvalue and predicted steps (Xu et al. Eq. 7)", nnlb::cli::add_analyze);
  add("list", "list topologies, policies and scenario keys", nnlb::cli::add_list);
  add("sweep", "run a parameter sweep on all cores into a resumable results store", nnlb::cli::add_sweep);
  add("plot", "chart results with gnuplot: lines, series, fit, bars, heatmap (PNG or SVG)", nnlb::cli::add_plot);
  add("reproduce", "regenerate a paper figure or table (data + plot)", nnlb::cli::add_reproduce);
  add("tasks", "print a task set (tasks.init) as a task file, one work amount in seconds per line", nnlb::cli::add_tasks);
  add("report", "static HTML pages of the reproductions: the paper's claim beside ours, charts, commands", nnlb::cli::add_report);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    fmt::print(stderr, "nnlb: {}\n", e.what());
    return 2;
  }
#ifdef NNLB_HAVE_MPI
  // Under mpirun, engine = "mpi" runs node programs on the ranks.
  if (nnlb::cli::World::get().mpi()) nnlb::attach_runner("mpi", [](const nnlb::EngineRun& r) { return nnlb::run_mpi(r); });
#endif
  // Each simgrid run in a process of its own, SimGrid loaded there only (engine/plugin.hpp).
  nnlb::attach_engine_plugin("simgrid", nnlb::cli::simgrid_plugin_places());
  try {
    for (auto& [sub, action] : commands)
      if (sub->parsed()) return action();
  } catch (const nnlb::InputError& e) {
    return nnlb::cli::fail(e.line(), 2);
  } catch (const nnlb::ConservationError& e) {
    return nnlb::cli::fail(std::string("internal error: ") + e.what(), 3);
  } catch (const std::bad_alloc&) {
    return nnlb::cli::fail("out of memory", 2);
  } catch (const std::exception& e) {
    return nnlb::cli::fail(e.what(), 2);
  } catch (...) {
    return nnlb::cli::fail("unknown error", 2);
  }
  return 0;
}
