#include "nnlb/experiment/sweep.hpp"

#include <atomic>
#include <exception>
#include <mutex>
#include <thread>

#include "nnlb/experiment/run.hpp"
#include "nnlb/util/parallel.hpp"

namespace nnlb {

using nlohmann::json;

std::vector<std::vector<std::pair<std::string, json>>> sweep_points(const SweepSpec& spec) {
  std::vector<std::vector<std::pair<std::string, json>>> points{{}};
  for (const auto& axis : spec.axes) {
    std::vector<std::vector<std::pair<std::string, json>>> next;
    for (const auto& p : points)
      for (const auto& v : axis.values) {
        auto q = p;
        q.emplace_back(axis.key, v);
        next.push_back(std::move(q));
      }
    points = std::move(next);
  }
  return points;
}

std::vector<json> run_sweep(const SweepSpec& spec, int threads, const SweepProgress& progress) {
  const auto points = sweep_points(spec);
  std::vector<Scenario> scenarios;
  for (const auto& p : points) {
    Scenario s = spec.base;
    for (const auto& [k, v] : p) s.set(k, v, spec.base.source() + " [sweep]");
    scenarios.push_back(std::move(s));
  }
  const std::size_t total = points.size() * spec.repeat;
  std::vector<json> records(total);
  std::atomic<std::size_t> next{0}, done{0};
  std::exception_ptr failure;
  std::mutex mutex;
  auto worker = [&] {
    set_thread_count(1);  // parallelism is across runs; each run is single-threaded
    while (true) {
      const std::size_t job = next++;
      if (job >= total) return;
      {
        std::lock_guard lock(mutex);
        if (failure) return;
      }
      try {
        const std::size_t p = job / spec.repeat, r = job % spec.repeat;
        json rec = to_json(run_scenario(scenarios[p], spec.master_seed + r));
        if (!spec.keep_series) rec.erase("series");
        rec["point"] = json::object();
        for (const auto& [k, v] : points[p]) rec["point"][k] = v;
        rec["repeat"] = r;
        records[job] = std::move(rec);
      } catch (...) {
        std::lock_guard lock(mutex);
        if (!failure) failure = std::current_exception();
        return;
      }
      const std::size_t d = ++done;
      if (progress) {
        std::lock_guard lock(mutex);
        progress(d, total);
      }
    }
  };
  const unsigned n = threads > 0 ? static_cast<unsigned>(threads) : std::max(1u, std::thread::hardware_concurrency());
  std::vector<std::thread> pool;
  for (unsigned t = 0; t < std::min<std::size_t>(n, total); ++t) pool.emplace_back(worker);
  for (auto& t : pool) t.join();
  if (failure) std::rethrow_exception(failure);
  return records;
}

}  // namespace nnlb
