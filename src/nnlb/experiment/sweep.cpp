#include "nnlb/experiment/sweep.hpp"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdio>
#include <exception>
#include <map>
#include <mutex>
#include <set>
#include <thread>

#include <fmt/format.h>

#include "nnlb/engine/core/interrupt.hpp"
#include "nnlb/experiment/run.hpp"
#include "nnlb/util/error.hpp"
#include "nnlb/util/fork_gate.hpp"
#include "nnlb/util/memory.hpp"
#include "nnlb/util/parallel.hpp"
#include "nnlb/version.hpp"

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
  if (spec.exclude.empty()) return points;
  std::erase_if(points, [&](const auto& point) {
    Scenario s = spec.base;
    for (const auto& [k, v] : point) apply_axis(s, k, v, spec.base.source() + " [sweep]");
    return std::any_of(spec.exclude.begin(), spec.exclude.end(), [&](const SweepExclusion& entry) {
      return std::all_of(entry.begin(), entry.end(), [&](const auto& kv) { return s.get(kv.first) == kv.second; });
    });
  });
  return points;
}

std::vector<std::string> axis_keys(const std::string& key) {
  std::vector<std::string> keys;
  for (std::size_t start = 0, plus; start <= key.size(); start = plus + 1) {
    plus = std::min(key.find('+', start), key.size());
    keys.push_back(key.substr(start, plus - start));
  }
  return keys;
}

void apply_axis(Scenario& scenario, const std::string& key, const json& value, const std::string& source) {
  if (key.find('+') == std::string::npos) return scenario.set(key, value, source);
  const std::vector<std::string> keys = axis_keys(key);
  if (!value.is_array() || value.size() != keys.size())
    throw InputError(source, key, "each value of a zipped axis is a list of " + std::to_string(keys.size()) + " values, got " + value.dump());
  for (std::size_t k = 0; k < keys.size(); ++k) scenario.set(keys[k], value[k], source);
}

namespace {

// The scenario's meaning: every key but the free texts, canonical (keys sorted).
std::string meaning_text(json scenario) {
  scenario.erase("name");
  scenario.erase("description");
  return scenario.dump();
}

std::string key_of(const std::string& meaning, std::uint64_t seed) {
  // FNV-1a over the meaning and the seed.
  std::uint64_t h = 0xcbf29ce484222325ULL;
  for (unsigned char c : meaning + "#" + std::to_string(seed)) h = (h ^ c) * 0x100000001b3ULL;
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
  return buf;
}

using Point = std::vector<std::pair<std::string, json>>;

std::string point_text(const Point& point) {
  std::string text;
  for (const auto& [k, v] : point) text += (text.empty() ? "" : " ") + k + "=" + (v.is_string() ? v.get<std::string>() : v.dump());
  return text;
}

unsigned worker_count(int threads) { return threads > 0 ? static_cast<unsigned>(threads) : std::max(1u, std::thread::hardware_concurrency()); }

// Calls job(i) for i in 0 .. count-1 on `threads` threads (0: all cores), each running one job
// at a time single-threaded. The first job that throws stops the others from starting new jobs;
// its exception is rethrown once all threads are done.
//
// A job may fork (a SimGrid run in its own process): the workers hold a share of the fork gate
// while they work (util/fork_gate.hpp); none forks before every worker has started (starting a
// thread allocates in it), and none ends, freeing its thread's memory, before all are done.
void for_each_job(std::size_t count, int threads, const std::function<void(std::size_t)>& job) {
  std::atomic<std::size_t> next{0};
  std::exception_ptr failure;
  std::mutex mutex;
  std::condition_variable all_started, all_done;
  std::size_t started = 0, done = 0;
  const std::size_t workers = std::min<std::size_t>(worker_count(threads), count);
  const std::atomic<bool>* interrupt = interrupt_flag();  // the caller's, for every worker
  auto work = [&] {
    const InterruptScope scope(interrupt);
    const fork_gate::Share share;
    set_thread_count(1);  // parallelism is across runs; each run is single-threaded
    for (std::size_t t = next++; t < count; t = next++) {
      {
        std::lock_guard lock(mutex);
        if (failure) return;
      }
      try {
        job(t);
      } catch (...) {
        std::lock_guard lock(mutex);
        if (!failure) failure = std::current_exception();
        return;
      }
    }
  };
  auto worker = [&] {
    {
      std::lock_guard lock(mutex);
      if (++started == workers) all_started.notify_all();
    }
    work();
    std::unique_lock lock(mutex);  // without a share: the others may still fork
    if (++done == workers) all_done.notify_all();
    all_done.wait(lock, [&] { return done == workers; });
  };
  std::vector<std::thread> pool;
  {
    const fork_gate::Share share;  // held until every worker is running
    pool.reserve(workers);
    for (std::size_t t = 0; t < workers; ++t) pool.emplace_back(worker);
    std::unique_lock lock(mutex);
    all_started.wait(lock, [&] { return started == workers; });
  }
  for (auto& t : pool) t.join();
  if (failure) std::rethrow_exception(failure);
}

// Builds what each point that still has runs to do is made of (topology, load, policy), so that
// a bad point stops the sweep before any run, whichever process or thread would run it.
void check_points(const std::vector<Scenario>& scenarios, const std::vector<Point>& points, const std::vector<bool>& pending,
                  std::uint64_t seed, int threads, const MemoryUse& use) {
  std::vector<std::size_t> todo;
  for (std::size_t p = 0; p < points.size(); ++p)
    if (pending[p]) todo.push_back(p);
  for_each_job(todo.size(), threads, [&](std::size_t t) {
    const std::size_t p = todo[t];
    try {
      prepare_run(scenarios[p], seed, use);
    } catch (const InputError& e) {
      if (points[p].empty()) throw;
      const std::string text = std::string(e.what()) + " (sweep point " + point_text(points[p]) + ")";
      if (dynamic_cast<const MemoryEstimateError*>(&e)) throw MemoryEstimateError(e.source(), e.key(), text);
      throw InputError(e.source(), e.key(), text);
    }
  });
}

// A record as job `job` of this sweep: its point, repeat and free texts (name, description),
// which the key leaves out, so that a stored run serves any point of the same meaning.
json labelled(json record, const std::vector<Scenario>& scenarios, const std::vector<Point>& points, std::size_t job,
              std::uint64_t repeat) {
  const std::size_t p = job / repeat;
  record["point"] = json::object();
  for (const auto& [key, v] : points[p]) record["point"][key] = v;
  record["repeat"] = job % repeat;
  if (record["scenario"].is_object())
    for (const char* text : {"name", "description"}) record["scenario"][text] = scenarios[p].get(text);
  return record;
}

}  // namespace

std::string run_key(const json& scenario, std::uint64_t seed) { return key_of(meaning_text(scenario), seed); }

std::vector<json> run_sweep(const SweepSpec& spec, const SweepRun& how) {
  const auto points = sweep_points(spec);
  std::vector<Scenario> scenarios;
  for (const auto& p : points) {
    Scenario s = spec.base;
    for (const auto& [k, v] : p) apply_axis(s, k, v, spec.base.source() + " [sweep]");
    scenarios.push_back(std::move(s));
  }
  // Stored records serve unless they lack the series the sweep keeps (a series plot added after
  // the first run): those runs are done again.
  std::map<std::string, const json*> stored;
  std::set<std::string> seriesless;
  if (how.store)
    for (const auto& r : how.store->records()) {
      if (spec.keep_series && !r.contains("series")) seriesless.insert(r["key"].get<std::string>());
      else stored[r["key"].get<std::string>()] = &r;
    }
  // Every job's key; the points with a job the store lacks (whichever process runs it) are checked.
  const std::size_t job_count = points.size() * spec.repeat;
  std::vector<std::string> keys(job_count);
  std::vector<bool> pending(points.size(), false);
  for (std::size_t p = 0; p < points.size(); ++p) {
    const std::string meaning = meaning_text(scenarios[p].to_json());
    for (std::uint64_t r = 0; r < spec.repeat; ++r) {
      keys[p * spec.repeat + r] = key_of(meaning, spec.master_seed + r);
      if (!stored.count(keys[p * spec.repeat + r])) pending[p] = true;
    }
  }
  if (const auto again = static_cast<std::size_t>(std::count_if(keys.begin(), keys.end(), [&](const auto& k) { return seriesless.count(k) > 0; }));
      again && how.note)
    how.note(fmt::format("{} stored run{} of this sweep lack{} the series it keeps (keep_series, or a series plot): running {} again", again,
                         again == 1 ? "" : "s", again == 1 ? "s" : "", again == 1 ? "it" : "them"));
  // Runs side by side share the memory limit: at most one per thread, and one per pending job.
  const std::size_t pending_jobs = job_count - static_cast<std::size_t>(std::count_if(keys.begin(), keys.end(), [&](const std::string& k) {
                                     return stored.count(k) > 0;
                                   }));
  const MemoryUse use{.side_by_side = static_cast<unsigned>(std::max<std::size_t>(1, std::min<std::size_t>(worker_count(how.threads), pending_jobs)))};
  check_points(scenarios, points, pending, spec.master_seed, how.threads, use);
  // This process's jobs, and which of them the store already holds.
  std::vector<std::size_t> jobs;
  for (std::size_t j = 0; j < job_count; ++j)
    if (static_cast<int>(j % static_cast<std::size_t>(how.ranks)) == how.rank) jobs.push_back(j);
  std::vector<json> records(jobs.size());
  std::vector<std::size_t> todo;
  for (std::size_t k = 0; k < jobs.size(); ++k) {
    if (auto it = stored.find(keys[jobs[k]]); it != stored.end()) records[k] = labelled(*it->second, scenarios, points, jobs[k], spec.repeat);
    else todo.push_back(k);
  }
  const std::size_t total = jobs.size();
  std::atomic<std::size_t> done{total - todo.size()};
  std::mutex progress_mutex;
  if (how.progress) how.progress(done, total);
  for_each_job(todo.size(), how.threads, [&](std::size_t t) {
    const std::size_t k = todo[t], p = jobs[k] / spec.repeat, r = jobs[k] % spec.repeat;
    json rec = to_json(run_scenario(scenarios[p], spec.master_seed + r, use));
    if (!spec.keep_series) rec.erase("series");
    rec["key"] = keys[jobs[k]];
    rec["code_version"] = code_version;
    rec = labelled(std::move(rec), scenarios, points, jobs[k], spec.repeat);
    if (how.store) how.store->append(rec);
    records[k] = std::move(rec);
    const std::size_t d = ++done;
    if (how.progress) {
      std::lock_guard lock(progress_mutex);
      how.progress(d, total);
    }
  });
  if (how.store) how.store->sync();
  return records;
}

}  // namespace nnlb
