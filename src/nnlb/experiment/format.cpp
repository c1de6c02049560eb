#include "nnlb/experiment/format.hpp"

#include <algorithm>
#include <fmt/format.h>

#include "nnlb/engine/registry.hpp"
#include "nnlb/experiment/programs.hpp"

namespace nnlb {

using nlohmann::json;

namespace {

const char* series_columns[] = {"round", "steps", "imbalance", "stddev", "min", "max", "mean", "moved"};

std::string cell(const json& v) {
  if (v.is_null()) return "-";
  if (v.is_number_integer() || v.is_number_unsigned()) return fmt::format("{}", v.get<std::int64_t>());
  if (v.is_number()) return fmt::format("{:.6g}", v.get<double>());
  if (v.is_boolean()) return v.get<bool>() ? "yes" : "no";
  return v.get<std::string>();
}

bool is_task_record(const json& r) { return r["summary"].contains("makespan"); }
// The engine a record names (null for an engine this build does not have).
const EngineEntry* engine_of(const json& r) { return find_engine(r["scenario"].value("engine", "")); }
// A record of whole jobs on an engine of time units (the loosely-synchronous engine's own loop).
bool is_job_record(const json& r) {
  const EngineEntry* e = engine_of(r);
  return e != nullptr && !e->runs_programs && e->time == TimeModel::time_units;
}

// How the engine ran: step accounting and invocation on sync; the node program, virtual load and
// balancing period on des and mpi; the cores of a task run.
std::string engine_text(const json& r) {
  const auto& s = r["scenario"];
  if (is_task_record(r)) return fmt::format("{} tasks on {} cores, {} engine", cell(r["summary"]["tasks"]), cell(s["tasks.cores"]),
                                            s["engine"].get<std::string>());
  if (is_job_record(r))
    return fmt::format("p2p engine, jobs of {} mapped {}, migration cost {}, gamma {}{}", cell(s["guest.graph"]), cell(s["guest.mapping"]),
                       cell(s["p2p.migration_cost"]), cell(s["p2p.gamma"]),
                       s["churn.half_life"].is_null() ? std::string() : ", half-life " + cell(s["churn.half_life"]));
  if (const EngineEntry* e = engine_of(r); e != nullptr && e->runs_programs) {
    const std::string agent = s.value("agent", "auto");
    const ProgramEntry* p = find_program(agent == "auto" ? e->default_program : agent);
    if (p == nullptr) return fmt::format("{} engine, {}", s["engine"].get<std::string>(), agent);
    // What the program that ran reads: the balancer's period and virtual load, not an application's.
    auto reads = [&](const char* key) { return p->reads_key(key) || p->uses_key(key); };
    return fmt::format("{} engine, {}{}{}", s["engine"].get<std::string>(), p->label,
                       reads("async.virtual_load") && s["async.virtual_load"] == true ? " with virtual load" : "",
                       reads("async.lb_period") ? ", balancing every " + cell(s["async.lb_period"]) + " s" : std::string());
  }
  return fmt::format("sync engine, {}-port, {} invocation", s["port"].get<std::string>(), s["invocation"].get<std::string>());
}

std::string describe(const json& r) {
  const auto& s = r["scenario"];
  std::string params;
  for (const auto& [k, v] : r["parameters"].items()) params += fmt::format(" {}={:.6g}", k, v.get<double>());
  return fmt::format("{} on {} ({} nodes, {} edges, max degree {}){}; {} load, {}, seed {}\n", s["algorithm"].get<std::string>(),
                     r["topology"]["spec"].get<std::string>(), cell(r["topology"]["nodes"]), cell(r["topology"]["edges"]),
                     cell(r["topology"]["max_degree"]), params, s["load.mode"].get<std::string>(), engine_text(r), cell(r["seed"]));
}

const char* summary_fields[] = {"steps_to_balance", "steps", "rounds", "initial_imbalance", "final_imbalance",
                                "final_stddev", "final_spread", "load_moved"};

}  // namespace

std::string format_table(const json& r, std::size_t max_rows) {
  std::string out = describe(r);
  const auto& series = r["series"];
  const std::size_t n = series["round"].size();
  const std::size_t stride = std::max<std::size_t>(1, (n + max_rows - 1) / std::max<std::size_t>(1, max_rows));
  const auto& m = r["summary"];
  if (is_job_record(r)) {
    // Douglas & Harwood's figures: sigma, the progress and the migrations over time.
    out += fmt::format("\n{:>8} {:>10} {:>8} {:>8} {:>10} {:>10} {:>8}\n", "time", "sigma", "min", "max", "progress", "migrations", "hosts");
    for (std::size_t i = 0; i < n; ++i) {
      if (i % stride != 0 && i + 1 != n) continue;
      out += fmt::format("{:>8} {:>10} {:>8} {:>8} {:>10} {:>10} {:>8}\n", cell(series["time"][i]), cell(series["stddev"][i]), cell(series["min"][i]),
                         cell(series["max"][i]), cell(series["progress"][i]), cell(series["migrations"][i]), cell(series["hosts"][i]));
    }
    out += fmt::format("\nat t = {}: progress {}, sigma {}, {} migrations, {} hosts left and {} entered, {} jobs lost\n", cell(m["time"]),
                       cell(m["progress"]), cell(m["final_stddev"]), cell(m["migrations"]), cell(m["hosts_left"]), cell(m["hosts_entered"]),
                       cell(m["jobs_lost"]));
    return out;
  }
  const bool timed = r["summary"].contains("time");
  const char* clock = timed ? "time" : "steps";
  // A timed engine's rows are numbered samples; "moved" is what moved since the previous printed row.
  out += fmt::format("\n{:>8} {:>8} {:>14} {:>12} {:>12} {:>12} {:>12}\n", timed ? "sample" : "round", clock, "imbalance", "stddev", "min", "max", "moved");
  double moved = 0;
  for (std::size_t i = 0; i < n; ++i) {
    if (series["moved"][i].is_number()) moved += series["moved"][i].get<double>();
    if (i % stride != 0 && i + 1 != n) continue;
    out += fmt::format("{:>8} {:>8} {:>14} {:>12} {:>12} {:>12} {:>12}\n", cell(series["round"][i]), cell(series[clock][i]),
                       cell(series["imbalance"][i]), cell(series["stddev"][i]), cell(series["min"][i]), cell(series["max"][i]),
                       cell(json(moved)));
    moved = 0;
  }
  if (m.contains("time")) {
    out += fmt::format("\nstopped ({}) at t = {} s; convergence time: average {} s, maximum {} s; average idle time {} s\n",
                       cell(m["stop_reason"]), cell(m["time"]), cell(m["avg_convergence_time"]), cell(m["max_convergence_time"]),
                       cell(m["avg_idle_time"]));
    out += fmt::format("messages: {} control, {} data; data transferred {} x the total load; {} events\n", cell(m["control_messages"]),
                       cell(m["data_messages"]), cell(m["data_transferred"]), cell(m["events"]));
  } else {
    out += fmt::format("\nstopped by {} after {} steps ({} rounds); steps to balance: {}\n", cell(m["stop_reason"]), cell(m["steps"]),
                       cell(m["rounds"]), cell(m["steps_to_balance"]));
  }
  if (is_task_record(r)) {
    out += fmt::format("tasks: {} executed; makespan {} s, lower bound {} s ({} x); efficiency {}\n", cell(m["tasks_executed"]),
                       cell(m["makespan"]), cell(m["lower_bound"]), cell(m["makespan_over_lower_bound"]), cell(m["efficiency"]));
    if (m.contains("ca_choice"))
      out += fmt::format("CA: phase 1 {} s, termination and reports {} s, phase 3 {} s ({}, {} tasks reassigned)\n", cell(m["ca_phase1"]),
                         cell(m["ca_termination"]), cell(m["ca_phase3"]), cell(m["ca_choice"]), cell(m["ca_unfinished"]));
    return out;
  }
  out += fmt::format("imbalance {} -> {}; load moved {}; conservation error {}\n", cell(m["initial_imbalance"]),
                     cell(m["final_imbalance"]), cell(m["load_moved"]), cell(m["max_conservation_error"]));
  return out;
}

std::string format_series_csv(const json& r) {
  std::string out;
  for (const char* c : series_columns) out += std::string(out.empty() ? "" : ",") + c;
  out += "\n";
  const auto& s = r["series"];
  for (std::size_t i = 0; i < s["round"].size(); ++i) {
    std::string row;
    for (const char* c : series_columns) row += (row.empty() ? "" : ",") + fmt::format("{}", s[c][i].dump());
    out += row + "\n";
  }
  return out;
}

std::string format_summary_csv(const std::vector<json>& records) {
  std::string out = "seed";
  for (const char* f : summary_fields) out += std::string(",") + f;
  out += ",stop_reason\n";
  for (const auto& r : records) {
    out += r["seed"].dump();
    for (const char* f : summary_fields) out += "," + (r["summary"][f].is_null() ? std::string() : r["summary"][f].dump());
    out += "," + r["summary"]["stop_reason"].get<std::string>() + "\n";
  }
  return out;
}

json aggregate_summaries(const std::vector<json>& records) {
  return aggregate_fields(records, std::vector<const char*>(std::begin(summary_fields), std::end(summary_fields)));
}

json aggregate_fields(const std::vector<json>& records, const std::vector<const char*>& fields) {
  json agg = {{"runs", records.size()}};
  for (const char* f : fields) {
    double sum = 0, lo = 0, hi = 0;
    std::size_t count = 0;
    for (const auto& r : records) {
      const auto& v = r["summary"][f];
      if (!v.is_number()) continue;
      const double x = v.get<double>();
      lo = count ? std::min(lo, x) : x;
      hi = count ? std::max(hi, x) : x;
      sum += x;
      ++count;
    }
    agg[f] = count ? json{{"mean", sum / static_cast<double>(count)}, {"min", lo}, {"max", hi}, {"count", count}} : json(nullptr);
  }
  return agg;
}

std::string format_repeat_table(const std::vector<json>& records) {
  std::string out = describe(records.front());
  const bool tasks = is_task_record(records.front());
  const std::vector<const char*> fields = tasks ? std::vector<const char*>{"makespan", "efficiency", "makespan_over_lower_bound"}
                                                : std::vector<const char*>{"steps_to_balance", "steps", "final_imbalance", "load_moved"};
  out += fmt::format("\n{:>20}", "seed");
  for (const char* f : fields) out += fmt::format(" {:>16}", f);
  out += tasks ? "  ca_choice\n" : "  stop\n";
  for (const auto& r : records) {
    const auto& m = r["summary"];
    out += fmt::format("{:>20}", cell(r["seed"]));
    for (const char* f : fields) out += fmt::format(" {:>16}", cell(m[f]));
    out += fmt::format("  {}\n", tasks ? (m.contains("ca_choice") ? cell(m["ca_choice"]) : "-") : cell(m["stop_reason"]));
  }
  json agg = aggregate_summaries(records);
  if (tasks) agg = aggregate_fields(records, fields);
  for (const char* f : fields) {
    if (agg[f].is_null()) continue;
    out += fmt::format("{:>26}: mean {} min {} max {} ({} runs)\n", f, cell(agg[f]["mean"]), cell(agg[f]["min"]), cell(agg[f]["max"]),
                       cell(agg[f]["count"]));
  }
  return out;
}

}  // namespace nnlb
