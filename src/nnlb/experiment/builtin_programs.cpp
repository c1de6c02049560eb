// The built-in node programs, one entry each: the keys they read, what they need of an engine,
// and their factories.
#include <memory>
#include <vector>

#include "nnlb/engine/registry.hpp"
#include "nnlb/experiment/programs.hpp"
#include "nnlb/experiment/run_options.hpp"
#include "nnlb/experiment/scenario_checks.hpp"
#include "nnlb/programs/async_balancer.hpp"
#include "nnlb/programs/iterative_application.hpp"
#include "nnlb/programs/round_balancer.hpp"

namespace nnlb {

void register_builtin_programs(std::vector<ProgramEntry>& registry) {
  registry.push_back({.name = "async",
                      .summary = "Couturier et al.'s asynchronous balancer: a balancing and a computing process per node",
                      .label = "asynchronous balancer",
                      .uses = {"async.", "message."},
                      .needs = messages | items | timers,
                      .hears_churn = true,
                      .replays = true,
                      .make = [](const ProgramSetup& p) -> std::unique_ptr<Program> {
                        return located(p.scenario, "algorithm", [&] { return std::make_unique<AsyncBalancer>(*p.prepared.policy.policy, p.balancer); });
                      }});
  registry.push_back({.name = "rounds",
                      .summary = "Xu et al.'s synchronous steps as messages, in rounds",
                      .label = "synchronous rounds as messages",
                      .uses = {"message."},
                      .needs = messages | timers,
                      .make = [](const ProgramSetup& p) -> std::unique_ptr<Program> {
                        const RoundBalancerOptions o{.colors = p.coloring.num_colors,
                                                     .control_bytes = p.balancer.control_bytes,
                                                     .bytes_per_unit = p.balancer.bytes_per_unit};
                        return located(p.scenario, "algorithm", [&] { return std::make_unique<RoundBalancer>(*p.prepared.policy.policy, o); });
                      }});
  registry.push_back({.name = "iterative",
                      .summary = "Jeannot & Vernier's iterative application, balancing with M_r",
                      .label = "iterative application",
                      .reads = {"app.", "workload."},
                      .uses = {"message."},
                      .needs = messages | timers | add_load | detection,
                      .application = true,
                      .make = [](const ProgramSetup& p) -> std::unique_ptr<Program> {
                        IterativeApplicationOptions o = application_options(p.scenario, p.prepared.policy);
                        o.bytes_per_unit = p.balancer.bytes_per_unit;
                        o.control_bytes = p.balancer.control_bytes;
                        return std::make_unique<IterativeApplication>(o);
                      }});
  registry.push_back({.name = "jobs",
                      .summary = "Douglas & Harwood's job strategies over a guest graph (algorithm = en, dasud, pm, sid, push, pull)",
                      .label = "job strategy",
                      .reads = {"guest."},
                      .uses = {"async.lb_period", "message.control_bytes"},
                      .ignores = {"load.mode", "load.init"},  // the jobs of the guest graph are the load
                      .needs = messages | items | timers,
                      .hears_churn = true,
                      .by_agent = false});
  registry.push_back({.name = "tasks",
                      .summary = "Filipović & Krstajić's task programs (algorithm = dd, ms, ca)",
                      .label = "task program",
                      .reads = {"tasks."},
                      .except = {"tasks.latency", "tasks.background"},
                      .uses = {"tasks.latency", "tasks.background"},
                      // a task run ends with nothing held (no band to be in), its requests are
                      // control messages only (no data lane to separate), its links cost
                      // tasks.latency, its work is tasks.init (a recorded load trace is not tasks)
                      .ignores = {"stop.band", "des.separate_control", "platform.bandwidth", "load.trace"},
                      .needs = messages | items | execute | timers,
                      .needs_seconds = true,
                      .application = true,
                      .by_agent = false});
}

}  // namespace nnlb
