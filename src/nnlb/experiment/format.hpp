#pragma once
// Renderings of result records: a human table, CSV of the series, and aggregate rows.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace nnlb {

// Title block, a series table thinned to about `max_rows` rows, and the summary.
std::string format_table(const nlohmann::json& record, std::size_t max_rows = 16);
// One row per recorded round: round,steps,time,imbalance,stddev,min,max,mean,moved.
std::string format_series_csv(const nlohmann::json& record);
// One row per run (seed + summary fields), for repeated runs.
std::string format_summary_csv(const std::vector<nlohmann::json>& records);
// Per-run summary lines plus mean/min/max of the numeric fields.
std::string format_repeat_table(const std::vector<nlohmann::json>& records);
// {"runs": n, "<field>": {"mean", "min", "max"}} over the numeric summary fields.
nlohmann::json aggregate_summaries(const std::vector<nlohmann::json>& records);
// The same for the summary fields named.
nlohmann::json aggregate_fields(const std::vector<nlohmann::json>& records, const std::vector<const char*>& fields);

}  // namespace nnlb
