// Example 2: a loosely-synchronous 2-D stencil in column blocks whose cost moves over time.
//
// The grid has `columns` x 64 cells; each rank holds a contiguous block of columns (the items:
// a column's values are its data) and every iteration computes one Jacobi step on its block,
// with the neighbouring blocks' edge columns as halos. A cell's cost depends on where a "hot"
// band of columns is at that iteration, and the band sweeps across the grid, so a static split
// goes out of balance. Between two iterations the ranks re-weigh their columns (the band's
// position is known) and balance_and_wait() moves whole columns between neighbouring ranks; the
// item choice sends the columns at the edge that faces the receiver, all in one direction per
// step, so blocks stay contiguous and never empty. The check: the final grid equals the serial
// computation bit for bit.
//
//   mpiexec -np 4 stencil [columns=96] [iterations=60] [--no-balance] [--policy NAME] [--trace FILE] [--slow]
//
// --policy: best-effort (default), bertsekas-tsitsiklis, fos, mr (nnlb/mpi/policies.hpp). --trace:
// record the run's load trace, to replay it on des under other policies (docs/mpi.md). --slow:
// heterogeneous ranks, the odd ones doing every cell's work twice; each rank measures its speed
// (the weight of its block over the seconds it took, Balancer::measured_speed), which
// relative-speed diffusion (mr) balances against.
#include <mpi.h>

#include <nnlb/mpi/balancer.hpp>
#include <nnlb/mpi/guarded_main.hpp>
#include <nnlb/mpi/policies.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>
#include <string>
#include <vector>

namespace {

constexpr int rows = 64;
using Column = std::vector<double>;

// The hot band's centre at iteration `it`: it sweeps from left to right and back.
double hot_centre(int it, int iterations, int columns) {
  const double phase = static_cast<double>(it) / std::max(iterations - 1, 1);
  return (phase < 0.5 ? 2 * phase : 2 - 2 * phase) * (columns - 1);
}

// Work per cell of column c at iteration it (extra sweeps that do not change the answer).
int cost(int c, int it, int iterations, int columns) {
  return std::abs(c - hot_centre(it, iterations, columns)) < columns / 8.0 ? 40 : 4;
}

Column initial_column(int c) {
  Column v(rows);
  for (int y = 0; y < rows; ++y) v[static_cast<std::size_t>(y)] = std::sin(0.1 * c) * std::cos(0.2 * y) + (c == 0 ? 1.0 : 0.0);
  return v;
}

// One Jacobi step of column `mid` between `left` and `right` (fixed boundary rows), and `work`
// sweeps of extra arithmetic per cell that leave the result alone.
Column step(const Column& left, const Column& mid, const Column& right, int work) {
  Column out(rows);
  volatile double sink = 0;
  for (int y = 0; y < rows; ++y) {
    const auto k = static_cast<std::size_t>(y);
    if (y == 0 || y == rows - 1) {
      out[k] = mid[k];
      continue;
    }
    out[k] = 0.25 * (left[k] + right[k] + mid[k - 1] + mid[k + 1]);
    double x = out[k];
    for (int w = 0; w < work * 20; ++w) x = std::fma(x, 0.9999, 1e-7);
    sink = sink + x;
  }
  return out;
}

// The serial run: the whole grid, columns 0 and columns-1 fixed.
std::vector<Column> serial(int columns, int iterations) {
  std::vector<Column> g(static_cast<std::size_t>(columns));
  for (int c = 0; c < columns; ++c) g[static_cast<std::size_t>(c)] = initial_column(c);
  for (int it = 0; it < iterations; ++it) {
    std::vector<Column> next = g;
    for (int c = 1; c + 1 < columns; ++c)
      next[static_cast<std::size_t>(c)] = step(g[static_cast<std::size_t>(c - 1)], g[static_cast<std::size_t>(c)],
                                               g[static_cast<std::size_t>(c + 1)], cost(c, it, iterations, columns));
    g = std::move(next);
  }
  return g;
}

int run(int argc, char** argv) {
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int columns = 96, iterations = 60;
  bool balancing = true, slow = false;
  nnlb::mpi::Options options;
  std::vector<int> numbers;
  for (int a = 1; a < argc; ++a) {
    const std::string arg = argv[a];
    if (arg == "--no-balance") balancing = false;
    else if (arg == "--policy" && a + 1 < argc) options.policy = nnlb::mpi::policy_named(argv[++a]);
    else if (arg == "--trace" && a + 1 < argc) options.trace = argv[++a];
    else if (arg == "--slow") slow = true;
    else numbers.push_back(std::stoi(arg));
  }
  if (numbers.size() > 0) columns = numbers[0];
  if (numbers.size() > 1) iterations = numbers[1];
  if (columns < 2 * size) throw std::invalid_argument("stencil: at least two columns per rank");

  // A line of ranks; rank r starts with an equal block of columns. The columns that move are
  // those at the edge that faces the receiver, one direction per step (programs/item_choice.hpp),
  // so every block stays contiguous and never empty.
  std::vector<int> line;
  if (rank > 0) line.push_back(rank - 1);
  if (rank + 1 < size) line.push_back(rank + 1);
  options.choose = nnlb::line_blocks;
  nnlb::mpi::Balancer lb(MPI_COMM_WORLD, line, options);
  nnlb::mpi::ItemStore<Column> grid;
  lb.set_payloads(&grid);
  const int first = columns * rank / size, last = columns * (rank + 1) / size;
  for (int c = first; c < last; ++c) {
    grid.put(static_cast<nnlb::ItemId>(c), initial_column(c));
    lb.add(static_cast<nnlb::ItemId>(c), cost(c, 0, iterations, columns) * 1.0);
  }
  lb.start();

  const double t0 = MPI_Wtime();
  double busy = 0;
  for (int it = 0; it < iterations; ++it) {
    // The block this rank holds now, and the halos: the neighbours' edge columns.
    std::map<int, Column> block;
    for (const auto& [id, v] : grid.all()) block.emplace(static_cast<int>(id), v);
    const int lo = block.begin()->first, hi = block.rbegin()->first;
    Column from_left(rows, 0.0), from_right(rows, 0.0);
    const int left = rank > 0 ? rank - 1 : MPI_PROC_NULL, right = rank + 1 < size ? rank + 1 : MPI_PROC_NULL;
    MPI_Sendrecv(block.at(lo).data(), rows, MPI_DOUBLE, left, 0, from_right.data(), rows, MPI_DOUBLE, right, 0, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    MPI_Sendrecv(block.at(hi).data(), rows, MPI_DOUBLE, right, 1, from_left.data(), rows, MPI_DOUBLE, left, 1, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    const double c0 = MPI_Wtime();
    for (auto& [c, v] : block) {
      if (c == 0 || c == columns - 1) continue;  // fixed boundary columns
      const Column& l = c == lo ? from_left : block.at(c - 1);
      const Column& r = c == hi ? from_right : block.at(c + 1);
      grid.at(static_cast<nnlb::ItemId>(c)) = step(l, v, r, cost(c, it, iterations, columns) * (slow && rank % 2 == 1 ? 2 : 1));
    }
    const double took = MPI_Wtime() - c0;
    busy += took;
    if (took > 0) lb.measured_speed(took);  // the block's weight (this iteration's costs) per second
    // The next iteration's costs are known: re-weigh, then move columns.
    for (const auto& [c, v] : block) lb.set_weight(static_cast<nnlb::ItemId>(c), cost(c, it + 1, iterations, columns) * 1.0);
    if (balancing) lb.balance_and_wait();
  }
  const double elapsed = MPI_Wtime() - t0;
  const nnlb::mpi::Record record = lb.finish();

  // Gather the grid on rank 0 and compare with the serial run.
  std::vector<double> mine;
  for (const auto& [id, v] : grid.all()) {
    mine.push_back(static_cast<double>(id));
    mine.insert(mine.end(), v.begin(), v.end());
  }
  int n = static_cast<int>(mine.size());
  std::vector<int> counts(static_cast<std::size_t>(size)), offsets(static_cast<std::size_t>(size));
  MPI_Gather(&n, 1, MPI_INT, counts.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);
  int total = 0;
  for (int q = 0; q < size; ++q) offsets[static_cast<std::size_t>(q)] = total, total += counts[static_cast<std::size_t>(q)];
  std::vector<double> all(rank == 0 ? static_cast<std::size_t>(total) : 0);
  MPI_Gatherv(mine.data(), n, MPI_DOUBLE, all.data(), counts.data(), offsets.data(), MPI_DOUBLE, 0, MPI_COMM_WORLD);
  double max_busy = 0, sum_busy = 0;
  MPI_Reduce(&busy, &max_busy, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  MPI_Reduce(&busy, &sum_busy, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  int status = 0;
  if (rank == 0) {
    const std::vector<Column> expected = serial(columns, iterations);
    std::vector<int> seen(static_cast<std::size_t>(columns), 0);
    int wrong = 0;
    for (std::size_t k = 0; k < all.size(); k += rows + 1) {
      const auto c = static_cast<std::size_t>(all[k]);
      ++seen[c];
      if (std::memcmp(&all[k + 1], expected[c].data(), rows * sizeof(double)) != 0) ++wrong;
    }
    const bool once = std::all_of(seen.begin(), seen.end(), [](int s) { return s == 1; });
    std::printf("stencil: %d columns, %d iterations on %d ranks%s, %s: %.3f s; busiest rank computed %.3f s of %.3f s on average\n",
                columns, iterations, size, slow ? " (odd ranks at half speed)" : "", balancing ? "balanced" : "not balanced", elapsed,
                max_busy, sum_busy / size);
    std::printf("  columns moved: weight %.0f in %llu data messages; final imbalance %.3g\n", record.summary.load_moved,
                static_cast<unsigned long long>(record.summary.timing->data_messages), record.summary.final_imbalance);
    if (!once || wrong != 0) {
      std::fprintf(stderr, "stencil: %s, %d columns differ from the serial run\n", once ? "every column once" : "a column lost or doubled", wrong);
      status = 1;
    } else {
      std::printf("  grid equal to the serial run's, bit for bit\n");
    }
  }
  MPI_Bcast(&status, 1, MPI_INT, 0, MPI_COMM_WORLD);
  return status;
}

}  // namespace

int main(int argc, char** argv) { return nnlb::mpi::guarded_main("stencil", argc, argv, run); }
