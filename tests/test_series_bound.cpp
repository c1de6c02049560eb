// Issue 39, reproducer 15: every engine's series and load history are bounded by the core's
// recorder (engine/core/recorder.hpp, output.series_max_rows): once full, every other row goes and
// the sampling period doubles; the first and the last state stay, and what moved is kept whole.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <numeric>
#include <string>
#include <vector>

#include "nnlb/engine/core/recorder.hpp"
#include "support.hpp"

namespace nnlb {
namespace {

double moved_in(const RunResult& r) {
  double sum = 0;
  for (const StepRecord& row : r.series) sum += row.moved;
  return sum;
}

TEST(SeriesBound, TheRecorderKeepsTheFirstAndLatestRowsEvenlySpacedAndEverythingMoved) {
  for (const std::uint64_t offered : {1u, 9u, 10u, 11u, 37u, 1000u, 1025u}) {
    SCOPED_TRACE(offered);
    Recorder rec({}, 10);
    RunResult r;
    for (std::uint64_t k = 0; k < offered; ++k) {
      const std::vector<double> held = {static_cast<double>(k), 1.0};
      rec.row(r, {k, k, 0.0}, load_stats<double>(held, {}), 2.0 * static_cast<double>(k), {{"k", static_cast<double>(k)}});
      rec.history(r, static_cast<double>(k), held);
      ASSERT_LE(r.series.size(), 10u);
      ASSERT_LE(r.load_history.steps.size(), 10u);
      ASSERT_EQ(r.columns["k"].size(), r.series.size());
    }
    EXPECT_EQ(r.series.front().round, 0u);
    EXPECT_EQ(r.series.back().round, offered - 1);  // the latest state
    EXPECT_EQ(r.load_history.steps.back(), static_cast<double>(offered - 1));
    EXPECT_EQ(r.load_history.loads.back()[0], static_cast<double>(offered - 1));
    EXPECT_EQ(moved_in(r), 2.0 * static_cast<double>(offered - 1));  // rows dropped gave their moved to the next
    // Rows but the last one sampled every `stride` offers, a power of two.
    const std::uint64_t stride = r.series.size() > 2 ? r.series[1].round : 1;
    EXPECT_EQ(stride & (stride - 1), 0u) << stride;
    for (std::size_t i = 0; i + 1 < r.series.size(); ++i) {
      EXPECT_EQ(r.series[i].round, i * stride);
      EXPECT_EQ(r.columns["k"][i], static_cast<double>(i * stride));
    }
  }
  Recorder whole({}, 0);  // 0: no bound
  RunResult r;
  for (std::uint64_t k = 0; k < 1000; ++k) whole.row(r, {k, k, 0.0}, {}, 0);
  EXPECT_EQ(r.series.size(), 1000u);
}

// The reproducer (p2p:31, EN, stop.time = 2e6: 2,000,001 rows of 16 columns, a 412 MB record)
// with a shorter run and a smaller bound.
TEST(SeriesBound, AP2pSeriesStaysWithinTheBoundWithEveryColumnAndEveryMigration) {
  const RunRecord r = test::run_sets({"engine=p2p", "topology=p2p:31", "algorithm=en", "stop.time=20000", "output.series_max_rows=100"});
  const RunResult& res = r.result;
  EXPECT_LE(res.series.size(), 100u);
  EXPECT_GE(res.series.size(), 50u);
  EXPECT_EQ(res.series.front().time, 0.0);
  EXPECT_EQ(res.series.back().time, 20000.0);
  EXPECT_EQ(res.columns.size(), 7u);
  for (const auto& [name, values] : res.columns) EXPECT_EQ(values.size(), res.series.size()) << name;
  EXPECT_EQ(moved_in(res), res.summary.load_moved);
  EXPECT_EQ(res.columns.at("migrations").back(), res.summary.load_moved);
}

// sync with a million steps wrote 1,000,001 rows (144 MB): by default at most 10,000 now, and a
// smaller bound on request, the load history too.
TEST(SeriesBound, ASyncRunOfManyStepsKeepsAtMostTheBound) {
  const RunRecord r = test::run_sets({"topology=ring:8", "stop.steps=100000", "stop.imbalance=0"});
  EXPECT_EQ(r.result.summary.rounds, 100000u);
  EXPECT_LE(r.result.series.size(), default_series_max_rows);
  EXPECT_GE(r.result.series.size(), default_series_max_rows / 2);
  EXPECT_EQ(r.result.series.back().round, 100000u);
  EXPECT_NEAR(moved_in(r.result), r.result.summary.load_moved, 1e-9 * r.result.summary.load_moved);
  const RunRecord small =
      test::run_sets({"topology=ring:8", "stop.steps=1000", "stop.imbalance=0", "output.load_history=1", "output.series_max_rows=64"});
  EXPECT_LE(small.result.series.size(), 64u);
  EXPECT_LE(small.result.load_history.steps.size(), 64u);
  EXPECT_EQ(small.result.load_history.steps.back(), 1000.0);
  const RunRecord whole = test::run_sets({"topology=ring:8", "stop.steps=20000", "stop.imbalance=0", "output.series_max_rows=0"});
  EXPECT_EQ(whole.result.series.size(), 20001u);
}

// The same bound through the run driver (des), and the record written: a long run's file stays
// small.
TEST(SeriesBound, ADesSeriesAndTheRecordFileAreBounded) {
  // Under churn a balanced state ends no run: 20,001 samples.
  const RunRecord r = test::run_sets({"engine=des", "topology=ring:8", "algorithm=best-effort", "churn.half_life=1000", "stop.time=20",
                                      "output.sample_period=0.001", "output.series_max_rows=300"});
  EXPECT_LE(r.result.series.size(), 300u);
  EXPECT_EQ(r.result.series.back().round, 20001u);  // the samples taken
  EXPECT_EQ(r.result.series.front().time, 0.0);
  EXPECT_EQ(r.result.series.back().time, r.result.summary.timing->time);
  EXPECT_NEAR(moved_in(r.result), r.result.summary.load_moved, 1e-9 * r.result.summary.load_moved);
  const std::string out = ::testing::TempDir() + "nnlb-bounded-record.json";
  const test::Outcome o = test::shell(std::string(NNLB_BINARY) +
                                      " run --set engine=p2p --set topology=p2p:31 --set algorithm=en --set stop.time=200000 --out " + out +
                                      " >/dev/null 2>&1");
  EXPECT_EQ(o.status, 0);
  EXPECT_LT(std::filesystem::file_size(out), 4'000'000u);  // 200,001 rows of 16 columns made 41 MB
  std::remove(out.c_str());
}

TEST(SeriesBound, ABoundWithoutRoomForTheFirstAndLastRowIsRefused) {
  EXPECT_TRUE(test::refused({"output.series_max_rows=1"}, "key 'output.series_max_rows': must be 0 (no bound) or >= 2"));
  EXPECT_TRUE(test::refused({"engine=p2p", "topology=p2p:31", "algorithm=en", "output.series_max_rows=1"}, "output.series_max_rows"));
}

}  // namespace
}  // namespace nnlb
