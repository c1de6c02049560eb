#include "mpi_world.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fmt/format.h>
#include <unistd.h>

#ifdef NNLB_HAVE_MPI
#include <mpi.h>
#endif

namespace nnlb::cli {

namespace {
World* the_world = nullptr;

[[maybe_unused]] bool launched_by_mpirun() {
  for (const char* v : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK", "MPI_LOCALNRANKS"})
    if (std::getenv(v)) return true;
  return false;
}
}  // namespace

void hand_over_under_mpirun([[maybe_unused]] char** argv) {
#ifdef NNLB_MPI_PROGRAM
  if (!launched_by_mpirun()) return;
  std::error_code ec;
  const std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  const std::string program = (exe.parent_path() / NNLB_MPI_PROGRAM).string();
  if (!ec) execv(program.c_str(), argv);  // the same process, arguments and environment
  fmt::print(stderr, "nnlb: launched by mpirun, but {} (nnlb with MPI) cannot start: {}\n", program,
             ec ? ec.message() : std::strerror(errno));
  std::_Exit(2);
#endif
}

World& World::get() {
  static World world;
  the_world = &world;
  return world;
}

World* World::current() { return the_world; }

World::World() {
#ifdef NNLB_HAVE_MPI
  if (launched_by_mpirun()) {
    MPI_Init(nullptr, nullptr);
    initialized_ = true;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &size_);
  }
#endif
}

World::~World() {
#ifdef NNLB_HAVE_MPI
  if (initialized_) MPI_Finalize();
#endif
}

void World::barrier() {
#ifdef NNLB_HAVE_MPI
  if (initialized_) MPI_Barrier(MPI_COMM_WORLD);
#endif
}

void World::after_rank_0() {
#ifdef NNLB_HAVE_MPI
  if (!initialized_) return;
  // A barrier that rank 0 enters once it has printed; bounded, in case some rank does not fail.
  MPI_Request done = MPI_REQUEST_NULL;
  MPI_Ibarrier(MPI_COMM_WORLD, &done);
  const double until = MPI_Wtime() + 5;
  for (int flag = 0; !flag && MPI_Wtime() < until;) MPI_Test(&done, &flag, MPI_STATUS_IGNORE);
#endif
}

void World::leave(int status) {
  std::fflush(stdout);
  std::fflush(stderr);
  std::_Exit(status);  // no static destructors: ~World's MPI_Finalize would wait for the other ranks
}

int fail(std::string line, int status) {
  std::replace(line.begin(), line.end(), '\n', ' ');  // one line, whatever the message holds
  World* world = World::current();
  if (!world || world->size() == 1) {
    fmt::print(stderr, "nnlb: {}\n", line);
    return status;
  }
  if (status == 2 && world->same_input()) {  // the same on every rank: rank 0 says it once
    if (world->rank() == 0) fmt::print(stderr, "nnlb: {}\n", line);
    std::fflush(stderr);
    world->after_rank_0();  // or the launcher, seeing another rank end, could end rank 0 before it spoke
  } else {
    fmt::print(stderr, "nnlb: rank {}: {}\n", world->rank(), line);
    std::fflush(stderr);
  }
  world->leave(status);
}

}  // namespace nnlb::cli
