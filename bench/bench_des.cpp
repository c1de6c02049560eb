// Events per second of the discrete-event engine on the reference point: best effort on
// a 1024-node hypercube, 1000 load units per node at random, real loads, with and without virtual
// load, one core. Counters: events/s, simulated seconds, peak RSS.
#include <benchmark/benchmark.h>
#include <sys/resource.h>

#include "nnlb/programs/async_balancer.hpp"
#include "nnlb/catalog/registry.hpp"
#include "nnlb/engine/des/des_engine.hpp"
#include "nnlb/model/load.hpp"

namespace {

void BM_DesBestEffortHypercube(benchmark::State& state) {
  const bool vload = state.range(0) != 0;
  const nnlb::Topology topo = nnlb::make_topology("hypercube:10", 1);
  nnlb::PolicySpec spec;
  spec.algorithm = "best-effort";
  const auto built = nnlb::make_policy(spec, topo);
  const auto w0 = nnlb::make_initial_load("random-total:1024000", topo.graph.num_nodes(), nnlb::LoadMode::real, 1);
  nnlb::Platform platform;
  platform.speed = {1e9}, platform.latency = {5e-5}, platform.bandwidth = {1.25e8};
  nnlb::DesOptions o;
  o.sample_period = 1.0;  // the statistics sampling is not what is measured
  const nnlb::AsyncBalancer program(*built.policy, {.virtual_load = vload});
  std::uint64_t events = 0;
  double simulated = 0;
  for (auto _ : state) {
    const auto r = nnlb::run_des(topo, program, nnlb::LoadMode::real, {w0, {}}, platform, o);
    events += r.summary.timing->events;
    simulated = r.summary.timing->time;
  }
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  state.counters["events_per_s"] = benchmark::Counter(static_cast<double>(events), benchmark::Counter::kIsRate);
  state.counters["events_per_run"] = static_cast<double>(events) / static_cast<double>(state.iterations());
  state.counters["simulated_s"] = simulated;
  state.counters["peak_rss_MiB"] = static_cast<double>(ru.ru_maxrss) / 1024.0;
}

BENCHMARK(BM_DesBestEffortHypercube)->Arg(0)->Arg(1)->ArgName("vload")->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
