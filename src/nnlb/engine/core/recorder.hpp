#pragma once
// The record's series and load history, filled the same way by every engine: a sample is the
// loads the live nodes hold (divisible load plus item weights) at one moment, and the load and
// item weight moved since the run began; a row of the series gives the statistics of the loads
// against their speed-proportional shares and what moved since the previous row.
//
// Both are bounded here, for every engine: at most `max_rows` rows each (0: no bound). When the
// rows reach the bound, every other row goes (its `moved` added to the next row's) and from then
// on one sample in twice as many becomes a row: a sampling period that doubles. The first row and
// the latest sample offered are always there (the initial and the final state).
#include <cstdint>
#include <initializer_list>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "nnlb/engine/core/result.hpp"
#include "nnlb/metrics/load_stats.hpp"

namespace nnlb {

// The bound when a scenario sets none (output.series_max_rows): the studies' series stay whole.
inline constexpr std::uint64_t default_series_max_rows = 10000;

// When a sample was taken: the engine's iteration and steps (rounds) and its time (seconds).
struct SamplePoint {
  std::uint64_t round = 0;
  std::uint64_t steps = 0;
  double time = 0;
};

// Which of the rows offered stay: those on the stride (offered k = 0, s, 2s, ...), and the latest
// one offered, which the next one replaces when it is off the stride. Rows on the stride sit at
// positions 0, 1, 2, ... (position i: offered i s), so halving keeps the even positions.
class RowBound {
 public:
  explicit RowBound(std::uint64_t max_rows) : max_(max_rows) {}

  // Whether the next row offered replaces the last one (else it goes after it); `halve` is called
  // first, when the `rows` rows there are fill the bound, to keep positions kept(i, rows) only.
  template <class Halve>
  bool replaces_last(std::size_t rows, Halve&& halve) {
    const std::uint64_t k = offered_++;
    if (!last_off_ && max_ > 0 && rows >= max_) {
      halve();
      stride_ *= 2;
      last_off_ = (rows - 1) % 2 == 1;  // kept as the latest, off the new stride
    }
    const bool replace = last_off_;
    last_off_ = k % stride_ != 0;
    return replace;
  }
  static bool kept(std::size_t i, std::size_t rows) { return i % 2 == 0 || i + 1 == rows; }

 private:
  std::uint64_t max_;
  std::uint64_t stride_ = 1, offered_ = 0;
  bool last_off_ = false;  // the last row is the latest offered, off the stride
};

// A value of an engine's own column for the row being added (RunResult::columns).
using ColumnValue = std::pair<const char*, double>;

class Recorder {
 public:
  explicit Recorder(std::vector<double> shares, std::uint64_t max_rows = default_series_max_rows)
      : shares_(std::move(shares)), rows_(max_rows), history_(max_rows) {}

  std::span<const double> shares() const { return shares_; }

  // The statistics of `held`; a row of the series when `keep`. `shares`: those of the live nodes
  // when nodes have left or joined (default: the run's). `moved`: since the run began.
  LoadStats sample(RunResult& r, const SamplePoint& at, std::span<const double> held, double moved, bool keep) {
    return sample(r, at, held, moved, keep, shares_);
  }
  LoadStats sample(RunResult& r, const SamplePoint& at, std::span<const double> held, double moved, bool keep,
                   std::span<const double> shares) {
    const LoadStats st = load_stats<double>(held, shares);
    if (keep) row(r, at, st, moved);
    return st;
  }

  // A row from statistics the engine computed itself; `moved`: since the run began.
  void row(RunResult& r, const SamplePoint& at, const LoadStats& st, double moved, std::initializer_list<ColumnValue> columns = {}) {
    const double since = moved - moved_at_row_;
    moved_at_row_ = moved;
    add_row(r, at, st, since, columns);
  }
  // The same with what moved since the previous row offered (an engine that counts per round).
  void add_row(RunResult& r, const SamplePoint& at, const LoadStats& st, double moved, std::initializer_list<ColumnValue> columns = {}) {
    StepRecord rec{at.round, at.steps, at.time, st.imbalance, st.stddev, st.min, st.max, st.mean, moved};
    auto& s = r.series;
    if (rows_.replaces_last(s.size(), [&] { halve(r); })) {
      rec.moved += s.back().moved;
      s.back() = rec;
      for (const auto& [name, value] : columns) r.columns[name].back() = value;
      return;
    }
    s.push_back(rec);
    for (const auto& [name, value] : columns) r.columns[name].push_back(value);
  }

  // Every node's load at `at` (communication steps or seconds) for the load history.
  void history(RunResult& r, double at, std::vector<double> held) {
    auto& h = r.load_history;
    if (history_.replaces_last(h.steps.size(), [&] {
          keep_rows(h.steps, h.steps.size());
          keep_rows(h.loads, h.loads.size());
        })) {
      h.steps.back() = at;
      h.loads.back() = std::move(held);
      return;
    }
    h.steps.push_back(at);
    h.loads.push_back(std::move(held));
  }

 private:
  // Every other row goes; what it moved counts in the next row kept.
  static void halve(RunResult& r) {
    auto& s = r.series;
    const std::size_t n = s.size();
    for (std::size_t i = 0; i + 1 < n; ++i)
      if (!RowBound::kept(i, n)) s[i + 1].moved += s[i].moved;
    keep_rows(s, n);
    for (auto& [name, values] : r.columns) keep_rows(values, n);
  }
  template <class T>
  static void keep_rows(std::vector<T>& v, std::size_t n) {
    std::size_t out = 0;
    for (std::size_t i = 0; i < n; ++i)
      if (RowBound::kept(i, n)) v[out++] = std::move(v[i]);
    v.resize(out);
  }

  std::vector<double> shares_;  // speed_shares(): empty when the speeds are equal
  double moved_at_row_ = 0;
  RowBound rows_, history_;
};

}  // namespace nnlb
