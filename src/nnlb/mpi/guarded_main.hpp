#pragma once
// The top of an MPI application on nnlb's library, as the examples use it: MPI_Init, the body,
// MPI_Finalize. An exception (bad input, a ProtocolError, a ConservationError) is printed as one
// line "NAME: what" by the rank that met it, and that rank alone ends the job with MPI_Abort
// (status 2): a rank that found a malformed message cannot count on the others to stop.
#include <mpi.h>

#include <cstdio>
#include <exception>

namespace nnlb::mpi {

// Returns body(argc, argv)'s status (an int).
template <class Body>
int guarded_main(const char* name, int argc, char** argv, Body&& body) {
  MPI_Init(&argc, &argv);
  int status = 0;
  try {
    status = body(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: %s\n", name, e.what());
    std::fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  MPI_Finalize();
  return status;
}

}  // namespace nnlb::mpi
