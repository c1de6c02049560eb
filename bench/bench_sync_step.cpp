// Throughput of one synchronous FOS round (the fused kernel nnlb::fos_sweep that SyncRun runs),
// compared with the STREAM triad bandwidth measured by this same binary, plus the memory a
// synchronous FOS run holds. See docs/benchmarks.md for the byte-counting model and results.
//
//   BM_Triad/threads:T                   a[i] = b[i] + s * c[i], 3 x 128 MiB, 24 B per element
//   BM_FosStep<double>/<topology>/threads:T     one fos_sweep<double> (CSR), real loads
//   BM_FosStepGrid<double>/torus/threads:T      one fos_sweep_grid (the row stencil the engine runs on 2-D grids)
//   BM_MrStepGrid<double>/torus/threads:T       M_r with equal speeds: the row stencil, flows a w_i - a w_j
//   BM_MrStepHeterogeneous<double>/torus/...    M_r with speeds in [1, 4] Gflop/s: the CSR sweep over the matrix
//   BM_FosStep<int64>/torus/threads:T           one fos_sweep<std::int64_t>, integer loads
//   BM_GraphBuild/<topology>             make_topology() time (1 iteration) and memory counters
#include <benchmark/benchmark.h>
#include <omp.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <bit>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "nnlb/catalog/parameters.hpp"
#include "nnlb/engine/sync/grid_stencil.hpp"
#include "nnlb/engine/sync/linear_kernels.hpp"
#include "nnlb/model/graph.hpp"
#include "nnlb/model/load.hpp"
#include "nnlb/model/topology.hpp"
#include "nnlb/policy/relative_speed.hpp"
#include "nnlb/util/parallel.hpp"

namespace {

using namespace nnlb;
using Clock = std::chrono::steady_clock;

// ---------------------------------------------------------------------------------------------
// Process-wide facts

int g_all_threads = 1;  // OpenMP default thread count, captured in main() before anything changes it

long peak_rss_bytes() {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  return ru.ru_maxrss * 1024L;  // Linux reports KiB
}

// ---------------------------------------------------------------------------------------------
// STREAM triad

constexpr std::size_t triad_n = std::size_t{1} << 24;  // 16 Mi doubles = 128 MiB per array
constexpr double triad_bytes_per_elem = 24.0;         // STREAM convention: read b, read c, write a

struct TriadArrays {
  std::unique_ptr<double[]> a, b, c;
  TriadArrays() : a(new double[triad_n]), b(new double[triad_n]), c(new double[triad_n]) {
    // First touch with the same static schedule as the kernel.
#pragma omp parallel for schedule(static)
    for (long long i = 0; i < static_cast<long long>(triad_n); ++i) {
      a[i] = 0.0;
      b[i] = 1.0;
      c[i] = 2.0;
    }
  }
};

TriadArrays& triad_arrays() {
  static TriadArrays t;
  return t;
}

void triad_kernel(TriadArrays& t, double s) {
  double* __restrict a = t.a.get();
  const double* __restrict b = t.b.get();
  const double* __restrict c = t.c.get();
#pragma omp parallel for schedule(static)
  for (long long i = 0; i < static_cast<long long>(triad_n); ++i) a[i] = b[i] + s * c[i];
}

// Best-of-k triad bandwidth (bytes/s) for a thread count, measured once per process.
double triad_bandwidth(int threads) {
  static std::map<int, double> cache;
  if (auto it = cache.find(threads); it != cache.end()) return it->second;
  const int saved = omp_get_max_threads();
  set_thread_count(threads);
  auto& t = triad_arrays();
  triad_kernel(t, 3.0);  // warm-up
  double best = 1e300;
  for (int k = 0; k < 6; ++k) {
    const auto t0 = Clock::now();
    triad_kernel(t, 3.0);
    benchmark::ClobberMemory();
    best = std::min(best, std::chrono::duration<double>(Clock::now() - t0).count());
  }
  set_thread_count(saved);
  const double bw = triad_bytes_per_elem * static_cast<double>(triad_n) / best;
  cache[threads] = bw;
  return bw;
}

void BM_Triad(benchmark::State& state) {
  const int threads = static_cast<int>(state.range(0));
  auto& t = triad_arrays();
  const double best = triad_bandwidth(threads);
  set_thread_count(threads);
  for (auto _ : state) {
    triad_kernel(t, 3.0);
    benchmark::ClobberMemory();
  }
  using C = benchmark::Counter;
  state.counters["bytes_per_s"] =
      C(triad_bytes_per_elem * static_cast<double>(triad_n), C::kIsIterationInvariantRate, C::kIs1000);
  state.counters["best_bytes_per_s"] = C(best, C::kDefaults, C::kIs1000);  // static best-of-6
  state.counters["threads"] = threads;
}

// ---------------------------------------------------------------------------------------------
// Graph fixtures, built once per process on first use, outside every timed loop.

constexpr std::uint64_t seed = 1;
constexpr std::array<const char*, 2> specs = {"torus:1000x1000", "random-regular:1000000,4"};
constexpr std::array<const char*, 2> short_names = {"torus1000x1000", "rr1M_4"};

// The engine's view of a synchronous FOS run: the graph, the cybenko alpha, the two load arrays.
struct Fixture {
  std::string spec;
  Topology topo;
  LinearForm form;
  std::vector<double> w, next;          // real mode
  std::vector<std::int64_t> wi, nexti;  // integer mode (filled on demand)
  double build_seconds = 0;
};

std::array<std::unique_ptr<Fixture>, specs.size()> g_fixtures;

Fixture& fixture(std::size_t id) {
  auto& slot = g_fixtures[id];
  if (!slot) {
    auto fx = std::make_unique<Fixture>();
    fx->spec = specs[id];
    const auto t0 = Clock::now();
    fx->topo = make_topology(fx->spec, seed);
    fx->build_seconds = std::chrono::duration<double>(Clock::now() - t0).count();
    fx->form = diffusion_alpha("cybenko", fx->topo);
    const auto init = make_initial_load("uniform:0,1000", fx->topo.graph.num_nodes(), LoadMode::real, seed);
    fx->w.assign(init.begin(), init.end());
    fx->next.assign(fx->w.size(), 0.0);
    slot = std::move(fx);
  }
  return *slot;
}

// Peak RSS of a process that does what a synchronous FOS run does before its first round: build
// the topology, make the initial load vector, copy it into the engine's two load arrays. Measured
// in a fresh process (this binary re-executed with --nnlb_rss_probe=ID, see main()), so the
// figures contain neither the triad arrays nor the other graph of this process.
struct RssProbe {
  long baseline = 0;     // ru_maxrss of the fresh process before building
  long after_graph = 0;  // ... after make_topology
  long after_loads = 0;  // ... after the initial vector and the two load arrays
  bool ok = false;
};

constexpr const char* probe_flag = "--nnlb_rss_probe=";

int run_rss_probe(std::size_t id) {
  RssProbe c;
  c.baseline = peak_rss_bytes();
  const auto topo = make_topology(specs[id], seed);
  c.after_graph = peak_rss_bytes();
  const auto init = make_initial_load("uniform:0,1000", topo.graph.num_nodes(), LoadMode::real, seed);
  std::vector<double> w(init.begin(), init.end()), next(w.size(), 0.0);
  benchmark::DoNotOptimize(w.data());
  benchmark::DoNotOptimize(next.data());
  c.after_loads = peak_rss_bytes();
  std::printf("%ld %ld %ld\n", c.baseline, c.after_graph, c.after_loads);
  return 0;
}

RssProbe probe_rss(std::size_t id) {
  static std::array<std::optional<RssProbe>, specs.size()> cache;
  if (cache[id]) return *cache[id];
  RssProbe r;
  std::string self(4096, '\0');
  const ssize_t len = readlink("/proc/self/exe", self.data(), self.size() - 1);
  if (len <= 0) return r;
  self.resize(static_cast<std::size_t>(len));
  const std::string cmd = "'" + self + "' " + probe_flag + std::to_string(id);
  if (FILE* p = popen(cmd.c_str(), "r")) {
    r.ok = std::fscanf(p, "%ld %ld %ld", &r.baseline, &r.after_graph, &r.after_loads) == 3;
    r.ok = pclose(p) == 0 && r.ok;
  }
  cache[id] = r;
  return r;
}

void ensure_integer_loads(Fixture& fx) {
  if (!fx.wi.empty()) return;
  const NodeId n = fx.topo.graph.num_nodes();
  const auto init = make_initial_load("uniform:0,1000", n, LoadMode::integer, seed);
  fx.wi.assign(n, 0);
  for (NodeId i = 0; i < n; ++i) fx.wi[i] = static_cast<std::int64_t>(init[i]);
  fx.nexti.assign(n, 0);
}

template <class L>
std::pair<std::span<const L>, std::span<L>> loads(Fixture& fx) {
  if constexpr (std::is_integral_v<L>) {
    ensure_integer_loads(fx);
    return {fx.wi, fx.nexti};
  } else {
    return {fx.w, fx.next};
  }
}

// Compulsory bytes of one sweep: per node 8 B offsets + 8 B read w_i + 8 B write next_i, per
// directed slot 4 B target index; the neighbour loads w_j are assumed to hit in cache.
double compulsory_bytes(const Graph& g, std::size_t load_size) {
  return static_cast<double>(g.num_nodes()) * (8.0 + 2.0 * static_cast<double>(load_size)) +
         static_cast<double>(g.num_slots()) * 4.0;
}
// Upper bound: every gathered w_j is an 8 B miss as well.
double gather_miss_bytes(const Graph& g, std::size_t load_size) {
  return compulsory_bytes(g, load_size) + static_cast<double>(g.num_slots()) * static_cast<double>(load_size);
}

// The row stencil (grid_stencil.hpp) on a 2-D grid: per node 8 B read w_i + 8 B write next_i;
// border nodes also read their offsets and target indices. Upper bound: the rows above and below
// are read again from memory (+16 B per node).
double grid_compulsory_bytes(const Graph& g, const GridStencil& grid) {
  const double border = static_cast<double>(2 * (grid.rows + grid.cols) - 4);
  return static_cast<double>(g.num_nodes()) * 16.0 + border * (8.0 + 4.0 * 4.0);
}

template <class Sweep>
void run_sweep_benchmark(benchmark::State& state, Fixture& fx, double cb, double gb, int threads, Sweep&& sweep) {
  const Graph& g = fx.topo.graph;
  const double triad = triad_bandwidth(threads);  // measured before the timed loop
  set_thread_count(threads);
  benchmark::DoNotOptimize(sweep());  // warm-up: page in, bring what fits into cache
  const auto t0 = Clock::now();
  for (auto _ : state) {
    double moved = sweep();
    benchmark::DoNotOptimize(moved);
    benchmark::ClobberMemory();
  }
  const double secs = std::chrono::duration<double>(Clock::now() - t0).count();
  const double iters = static_cast<double>(state.iterations());
  using C = benchmark::Counter;
  state.counters["nodes_per_s"] = C(g.num_nodes(), C::kIsIterationInvariantRate, C::kIs1000);
  state.counters["bytes_per_s"] = C(cb, C::kIsIterationInvariantRate, C::kIs1000);
  state.counters["bytes_per_s_gather_miss"] = C(gb, C::kIsIterationInvariantRate, C::kIs1000);
  state.counters["fraction_of_triad"] = cb * iters / secs / triad;
  state.counters["fraction_of_triad_gather_miss"] = gb * iters / secs / triad;
  state.counters["threads"] = threads;
}

template <class L>
void BM_FosStep(benchmark::State& state, std::size_t id, int threads) {
  Fixture& fx = fixture(id);
  auto [w, next] = loads<L>(fx);
  const Graph& g = fx.topo.graph;
  run_sweep_benchmark(state, fx, compulsory_bytes(g, sizeof(L)), gather_miss_bytes(g, sizeof(L)), threads,
                      [&] { return fos_sweep<L>(g, fx.form, w, next); });
}

// What the engine runs for FOS on the torus: the row stencil.
void BM_FosStepGrid(benchmark::State& state, int threads) {
  Fixture& fx = fixture(0);
  const Graph& g = fx.topo.graph;
  const GridStencil grid = *fos_grid_stencil(fx.topo, fx.form);
  const double cb = grid_compulsory_bytes(g, grid);
  run_sweep_benchmark(state, fx, cb, cb + 16.0 * g.num_nodes(), threads,
                      [&] { return fos_sweep_grid(g, grid, fx.w, fx.next); });
}

// M_r (Jeannot & Vernier 2006) on the torus as the engine runs it: with equal speeds the row
// stencil with flows a w_i - a w_j; with speeds uniform in [1, 4] Gflop/s the CSR sweep over the
// matrix's two coefficients per slot.
LinearForm mr_form(const Graph& g, bool equal_speeds) {
  std::vector<double> speed = {1e9};
  if (!equal_speeds) speed = make_initial_load("uniform:1e9,4e9", g.num_nodes(), LoadMode::real, seed);
  LinearForm form;
  form.rule = LinearForm::AlphaRule::relative;
  form.relative = std::make_shared<const RelativeSpeedMatrix>(relative_speed_matrix(g, speed, false));
  return form;
}

void BM_MrStepGrid(benchmark::State& state, int threads) {
  Fixture& fx = fixture(0);
  const Graph& g = fx.topo.graph;
  static const LinearForm form = mr_form(g, true);
  const GridStencil grid = *fos_grid_stencil(fx.topo, form);
  const double cb = grid_compulsory_bytes(g, grid);
  run_sweep_benchmark(state, fx, cb, cb + 16.0 * g.num_nodes(), threads, [&] { return fos_sweep_grid(g, grid, fx.w, fx.next); });
}

void BM_MrStepHeterogeneous(benchmark::State& state, int threads) {
  Fixture& fx = fixture(0);
  const Graph& g = fx.topo.graph;
  static const LinearForm form = mr_form(g, false);
  const double cb = compulsory_bytes(g, sizeof(double)) + 16.0 * static_cast<double>(g.num_slots());  // + M_r,ij and M_r,ji
  run_sweep_benchmark(state, fx, cb, cb + 8.0 * static_cast<double>(g.num_slots()), threads,
                      [&] { return fos_sweep<double>(g, form, fx.w, fx.next); });
}

// make_topology() time, and the memory counters of a synchronous FOS run on that graph.
void BM_GraphBuild(benchmark::State& state, std::size_t id) {
  Fixture& fx = fixture(id);
  std::size_t bytes = 0;
  for (auto _ : state) {
    const auto topo = make_topology(fx.spec, seed);
    bytes = topo.graph.memory_bytes();
    benchmark::DoNotOptimize(bytes);
  }
  const Graph& g = fx.topo.graph;
  const double n = g.num_nodes(), m = static_cast<double>(g.num_edges());
  const double offsets = (n + 1) * sizeof(Slot);                              // per-node CSR part
  const double per_edge = static_cast<double>(g.memory_bytes()) - offsets;   // targets + reverse
  const double load_arrays = 2 * n * sizeof(double);                           // w_ and next_
  const double total = static_cast<double>(g.memory_bytes()) + load_arrays;
  using C = benchmark::Counter;
  state.counters["nodes"] = n;
  state.counters["edges"] = m;
  state.counters["bytes_per_node"] = (offsets + load_arrays) / n;
  state.counters["bytes_per_edge"] = per_edge / m;
  state.counters["model_bytes"] = C(total, C::kDefaults, C::kIs1024);
  state.counters["budget_bytes"] = C(100 * n + 24 * m, C::kDefaults, C::kIs1024);  // the bound
  state.counters["fraction_of_budget"] = total / (100 * n + 24 * m);
  const RssProbe r = probe_rss(id);
  if (r.ok) {
    state.counters["peak_rss_after_graph"] = C(static_cast<double>(r.after_graph), C::kDefaults, C::kIs1024);
    state.counters["peak_rss_after_loads"] = C(static_cast<double>(r.after_loads), C::kDefaults, C::kIs1024);
    state.counters["rss_process_baseline"] = C(static_cast<double>(r.baseline), C::kDefaults, C::kIs1024);
  }
  state.counters["first_build_s"] = fx.build_seconds;
}

}  // namespace

int main(int argc, char** argv) {
  g_all_threads = std::max(1, omp_get_max_threads());
  std::vector<int> thread_counts = {1};
  if (g_all_threads > 1) thread_counts.push_back(g_all_threads);

  if (argc == 2 && std::string_view(argv[1]).starts_with(probe_flag))  // child of probe_rss()
    return run_rss_probe(std::stoul(std::string(argv[1] + std::string_view(probe_flag).size())) % specs.size());

  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;

  for (int t : thread_counts)
    benchmark::RegisterBenchmark(("BM_Triad/threads:" + std::to_string(t)).c_str(), BM_Triad)
        ->Arg(t)
        ->UseRealTime()
        ->Unit(benchmark::kMillisecond);
  for (std::size_t id = 0; id < specs.size(); ++id)
    for (int t : thread_counts)
      benchmark::RegisterBenchmark(("BM_FosStep<double>/" + std::string(short_names[id]) + "/threads:" + std::to_string(t)).c_str(),
                                   BM_FosStep<double>, id, t)
          ->UseRealTime()
          ->Unit(benchmark::kMillisecond);
  for (int t : thread_counts)
    benchmark::RegisterBenchmark(("BM_FosStepGrid<double>/" + std::string(short_names[0]) + "/threads:" + std::to_string(t)).c_str(),
                                 BM_FosStepGrid, t)
        ->UseRealTime()
        ->Unit(benchmark::kMillisecond);
  for (int t : thread_counts) {
    benchmark::RegisterBenchmark(("BM_MrStepGrid<double>/" + std::string(short_names[0]) + "/threads:" + std::to_string(t)).c_str(),
                                 BM_MrStepGrid, t)
        ->UseRealTime()
        ->Unit(benchmark::kMillisecond);
    benchmark::RegisterBenchmark(("BM_MrStepHeterogeneous<double>/" + std::string(short_names[0]) + "/threads:" + std::to_string(t)).c_str(),
                                 BM_MrStepHeterogeneous, t)
        ->UseRealTime()
        ->Unit(benchmark::kMillisecond);
  }
  for (int t : thread_counts)
    benchmark::RegisterBenchmark(("BM_FosStep<int64>/" + std::string(short_names[0]) + "/threads:" + std::to_string(t)).c_str(),
                                 BM_FosStep<std::int64_t>, std::size_t{0}, t)
        ->UseRealTime()
        ->Unit(benchmark::kMillisecond);
  for (std::size_t id = 0; id < specs.size(); ++id)
    benchmark::RegisterBenchmark(("BM_GraphBuild/" + std::string(short_names[id])).c_str(), BM_GraphBuild, id)
        ->Iterations(1)
        ->UseRealTime()
        ->Unit(benchmark::kMillisecond);

  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
