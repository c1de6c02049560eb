// nnlb tasks SPEC: a task set (Filipović & Krstajić 2016) as a task file, one work amount in
// seconds per line: to look at a generator's distribution, or to edit and run with file:PATH.
#include <fmt/format.h>

#include "commands.hpp"
#include "nnlb/experiment/run.hpp"
#include "nnlb/model/tasks.hpp"

namespace nnlb::cli {

Action add_tasks(CLI::App& app) {
  struct Options {
    std::string spec;
    std::uint64_t seed = 1;
  };
  auto o = std::make_shared<Options>();
  app.add_option("spec", o->spec, "task set: cq:N | cq-structured:N | uniform:N,LO,HI | file:PATH (the values of tasks.init)")->required();
  app.add_option("--seed", o->seed, "seed of the run whose tasks to print (as `nnlb run --seed`)")->check(seed_value());
  return [o] {
    const std::vector<double> work = make_tasks(o->spec, RunSeeds(o->seed).load);
    std::string out;
    for (double w : work) out += fmt::format("{}\n", w);
    std::fputs(out.c_str(), stdout);
    return 0;
  };
}

}  // namespace nnlb::cli
