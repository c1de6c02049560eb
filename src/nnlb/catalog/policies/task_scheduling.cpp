// Scheduling of independent tasks: domain decomposition, master-slave and the combined algorithm
// (Filipović & Krstajić 2016). Not rules over a local view but node programs of their own.
#include <cmath>

#include "nnlb/programs/task_scheduling.hpp"
#include "nnlb/catalog/registry.hpp"
#include "nnlb/model/tasks.hpp"
#include "nnlb/util/error.hpp"

namespace nnlb {

namespace {

std::uint32_t whole(const PolicySpec& s, const std::string& key, double fallback, double lo) {
  const double v = s.number(key, fallback);
  if (!(v >= lo && v <= 1e9 && v == std::floor(v))) throw InputError({}, key, "must be a whole number >= " + std::to_string(static_cast<int>(lo)));
  return static_cast<std::uint32_t>(v);
}

double fraction(const PolicySpec& s, const std::string& key, double fallback) {
  const double v = s.number(key, fallback);
  if (!(v >= 0)) throw InputError({}, key, "must be >= 0");
  return v;
}

BuiltPolicy build(TaskAlgorithm algorithm, const PolicySpec& s) {
  TaskSchedulingOptions o;
  o.algorithm = algorithm;
  o.batch = whole(s, "tasks.batch", 1, 1);
  o.service = fraction(s, "tasks.service", 0);
  o.rules.cores = whole(s, "ca.cores", 32, 1);
  o.rules.similar_count = fraction(s, "ca.similar_count", 0.1);
  o.rules.similar_duration = fraction(s, "ca.similar_duration", 0.1);
  o.rules.similar_speed = fraction(s, "ca.similar_speed", 0.1);
  const std::string order = s.text("ca.rule_order").empty() ? "dd3-first" : s.text("ca.rule_order");
  if (order != "dd3-first" && order != "ms1-first") throw InputError({}, "ca.rule_order", "must be dd3-first or ms1-first, got '" + order + "'");
  o.rules.ms1_first = order == "ms1-first";
  if (!s.text("tasks.split").empty()) parse_task_split(s.text("tasks.split"));
  BuiltPolicy built;
  built.program = std::make_shared<TaskScheduling>(o);
  if (algorithm != TaskAlgorithm::dd) built.parameters.emplace_back("batch", o.batch);
  return built;
}

}  // namespace

void register_task_scheduling(PolicyCatalog& catalog) {
  const PolicyKey split{PolicyKey::Type::text_or_number, "tasks.split", "block",
                        "dd, ca: first split of the tasks: block (contiguous, file order) | cyclic | random | speed"};
  const PolicyKey batch{PolicyKey::Type::number, "tasks.batch", "1", "ms, ca: tasks a worker asks the master for at once"};
  const PolicyKey service{PolicyKey::Type::number, "tasks.service", "0",
                          "ms, ca: seconds MS's master spends on one request (it answers one at a time; 0: at once)"};
  catalog.add({.name = "dd",
               .summary = "domain decomposition of independent tasks, Filipović & Krstajić 2016 sec. 2",
               .reads = {"tasks.split"},
               .keys = {split},
               .help = {"tasks.split: block | cyclic | random | speed (default block)"},
               .build = [](const PolicySpec& s, const Topology&) { return build(TaskAlgorithm::dd, s); },
               .program = "tasks"});
  catalog.add({.name = "ms",
               .summary = "master-slave: core 0 hands out tasks on request, Filipović & Krstajić 2016 sec. 2",
               .reads = {"tasks.batch", "tasks.service"},
               .keys = {batch, service},
               .help = {"tasks.batch: tasks per request (default 1); tasks.service: the master's seconds per request (default 0)"},
               .build = [](const PolicySpec& s, const Topology&) { return build(TaskAlgorithm::ms, s); },
               .program = "tasks"});
  catalog.add({.name = "ca",
               .summary = "the combined algorithm: DD, stop at the first idle core, reports, DD or MS, Filipović & Krstajić 2016 sec. 3",
               .reads = {"tasks.split", "tasks.batch", "tasks.service", "ca.cores", "ca.similar_count", "ca.similar_duration", "ca.similar_speed",
                         "ca.rule_order"},
               .keys = {{PolicyKey::Type::number, "ca.cores", "32", "ca: MS1 above this many cores, DD1 below"},
                        {PolicyKey::Type::text_or_number, "ca.rule_order", "dd3-first",
                         "ca: which rule is checked first when both apply (the paper gives no order): DD3 (no more unfinished tasks "
                         "than cores: DD) or MS1 (more than ca.cores cores: MS)"},
                        {PolicyKey::Type::number, "ca.similar_count", "0.1",
                         "ca: DD2/MS4, tasks done per core are similar when (max - min) / mean <= this"},
                        {PolicyKey::Type::number, "ca.similar_duration", "0.1",
                         "ca: DD2/MS3, the cores' mean task durations are similar when (max - min) / mean <= this"},
                        {PolicyKey::Type::number, "ca.similar_speed", "0.1",
                         "ca: MS2, the cluster is heterogeneous when the cores' speeds have (max - min) / mean above this"}},
               .help = {"tasks.split, tasks.batch as dd and ms; ca.cores (32), ca.similar_count, ca.similar_duration, ca.similar_speed (0.1); ca.rule_order: dd3-first | ms1-first"},
               .build = [](const PolicySpec& s, const Topology&) { return build(TaskAlgorithm::ca, s); },
               .program = "tasks"});
}

}  // namespace nnlb
