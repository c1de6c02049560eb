#pragma once
// The process group of a launch by `mpirun -np P nnlb ...`: MPI is initialised only when the
// environment says a launcher started us; otherwise a single process of rank 0. The CLI is two
// programs (CMakeLists.txt): nnlb, without MPI, and nnlb-mpi beside it, the same commands linked
// with MPI. Launched by mpirun, nnlb hands over to nnlb-mpi, so that no other process loads
// Open MPI's libraries.
#include <string>

namespace nnlb::cli {

// In nnlb (not nnlb-mpi) launched by mpirun: replaces this process by nnlb-mpi with `argv`, or
// ends it with one line and status 2 if it cannot. Otherwise returns at once.
void hand_over_under_mpirun(char** argv);

class World {
 public:
  static World& get();
  // The world if get() made one, else null.
  static World* current();
  int rank() const { return rank_; }
  int size() const { return size_; }
  // Whether MPI was initialized (a launch by mpirun of an nnlb built with MPI).
  bool mpi() const { return initialized_; }
  void barrier();
  // Ends this process at once with `status`, without MPI_Finalize: the launcher sees a rank end
  // with a non-zero status and ends the others, so none is left waiting for this one. Not
  // MPI_Abort: an input error reaches every rank together, and concurrent MPI_Abort calls can
  // hang Open MPI 4.1's runtime (a CI run hung on a test whose ranks all fail).
  [[noreturn]] void leave(int status);
  // Every rank reads the same input and fails alike on a bad one (`run`, unlike a sweep whose
  // points are split over the ranks): an input error is then printed by rank 0 alone.
  void same_input_everywhere() { same_input_ = true; }
  // Waits (at most 5 s) until rank 0 has come here too.
  void after_rank_0();
  bool same_input() const { return same_input_; }
  ~World();

 private:
  World();
  int rank_ = 0, size_ = 1;
  bool initialized_ = false;
  bool same_input_ = false;
};

// Reports a failure as one line "nnlb: LINE" on stderr ("nnlb: rank R: LINE" under mpirun, once
// by rank 0 for an input error that every rank met alike) and returns `status`; under mpirun with several ranks it ends this rank with that status instead
// (World::leave), and the launcher ends the others.
int fail(std::string line, int status);

}  // namespace nnlb::cli
