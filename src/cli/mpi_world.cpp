#include "mpi_world.hpp"

#include <cstdlib>

#ifdef NNLB_HAVE_MPI
#include <mpi.h>
#endif

namespace nnlb::cli {

namespace {
bool launched_by_mpirun() {
  for (const char* v : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK", "MPI_LOCALNRANKS"})
    if (std::getenv(v)) return true;
  return false;
}
}  // namespace

World& World::get() {
  static World world;
  return world;
}

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

void World::abort(int status) {
#ifdef NNLB_HAVE_MPI
  if (initialized_) MPI_Abort(MPI_COMM_WORLD, status);
#endif
  std::exit(status);
}

}  // namespace nnlb::cli
