#include "nnlb/experiment/sweep.hpp"

#include <atomic>
#include <cstdio>
#include <map>
#include <exception>
#include <mutex>
#include <thread>

#include "nnlb/experiment/run.hpp"
#include "nnlb/util/error.hpp"
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

void apply_axis(Scenario& scenario, const std::string& key, const json& value, const std::string& source) {
  if (key.find('+') == std::string::npos) return scenario.set(key, value, source);
  std::vector<std::string> keys;
  for (std::size_t start = 0, plus; start <= key.size(); start = plus + 1) {
    plus = std::min(key.find('+', start), key.size());
    keys.push_back(key.substr(start, plus - start));
  }
  if (!value.is_array() || value.size() != keys.size())
    throw InputError(source, key, "each value of a zipped axis is a list of " + std::to_string(keys.size()) + " values, got " + value.dump());
  for (std::size_t k = 0; k < keys.size(); ++k) scenario.set(keys[k], value[k], source);
}

std::string run_key(const json& scenario, std::uint64_t seed) {
  // FNV-1a over the canonical dump (keys are sorted) and the seed.
  std::uint64_t h = 0xcbf29ce484222325ULL;
  for (unsigned char c : scenario.dump() + "#" + std::to_string(seed)) h = (h ^ c) * 0x100000001b3ULL;
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
  return buf;
}

std::vector<json> run_sweep(const SweepSpec& spec, const SweepRun& how) {
  const auto points = sweep_points(spec);
  std::vector<Scenario> scenarios;
  for (const auto& p : points) {
    Scenario s = spec.base;
    for (const auto& [k, v] : p) apply_axis(s, k, v, spec.base.source() + " [sweep]");
    scenarios.push_back(std::move(s));
  }
  // This process's jobs, and which of them the store already holds.
  std::vector<std::size_t> jobs;
  for (std::size_t j = 0; j < points.size() * spec.repeat; ++j)
    if (static_cast<int>(j % static_cast<std::size_t>(how.ranks)) == how.rank) jobs.push_back(j);
  std::map<std::string, const json*> stored;
  if (how.store)
    for (const auto& r : how.store->records()) stored[r["key"].get<std::string>()] = &r;
  std::vector<json> records(jobs.size());
  std::vector<std::size_t> todo;
  std::vector<std::string> keys(jobs.size());
  for (std::size_t k = 0; k < jobs.size(); ++k) {
    const std::size_t p = jobs[k] / spec.repeat, r = jobs[k] % spec.repeat;
    json scenario = scenarios[p].to_json();
    keys[k] = run_key(scenario, spec.master_seed + r);
    if (auto it = stored.find(keys[k]); it != stored.end()) records[k] = *it->second;
    else todo.push_back(k);
  }
  const std::size_t total = jobs.size();
  std::atomic<std::size_t> next{0}, done{total - todo.size()};
  if (how.progress) how.progress(done, total);
  std::exception_ptr failure;
  std::mutex mutex;
  auto worker = [&] {
    set_thread_count(1);  // parallelism is across runs; each run is single-threaded
    while (true) {
      const std::size_t t = next++;
      if (t >= todo.size()) return;
      {
        std::lock_guard lock(mutex);
        if (failure) return;
      }
      const std::size_t k = todo[t], p = jobs[k] / spec.repeat, r = jobs[k] % spec.repeat;
      try {
        json rec = to_json(run_scenario(scenarios[p], spec.master_seed + r));
        if (!spec.keep_series) rec.erase("series");
        rec["key"] = keys[k];
        rec["point"] = json::object();
        for (const auto& [key, v] : points[p]) rec["point"][key] = v;
        rec["repeat"] = r;
        if (how.store) how.store->append(rec);
        records[k] = std::move(rec);
      } catch (...) {
        std::lock_guard lock(mutex);
        if (!failure) failure = std::current_exception();
        return;
      }
      const std::size_t d = ++done;
      if (how.progress) {
        std::lock_guard lock(mutex);
        how.progress(d, total);
      }
    }
  };
  const unsigned n = how.threads > 0 ? static_cast<unsigned>(how.threads) : std::max(1u, std::thread::hardware_concurrency());
  std::vector<std::thread> pool;
  for (unsigned t = 0; t < std::min<std::size_t>(n, todo.size()); ++t) pool.emplace_back(worker);
  for (auto& t : pool) t.join();
  if (how.store) how.store->sync();
  if (failure) std::rethrow_exception(failure);
  return records;
}

}  // namespace nnlb
