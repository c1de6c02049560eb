#pragma once
// The MPI engine: node programs on real processes. Rank r of the communicator hosts node r of
// the topology and runs its agent on a RankNode (rank_node.hpp: real time since a common start,
// real messages on a duplicate of the communicator, timers on the wall clock) and
// Context::execute as a real CPU-bound kernel: an item of w seconds of work runs w x work_scale
// seconds of a compute loop each rank calibrates on its own core at the start, so a slower or
// busier core really takes longer.
//
// The run ends when the program is globally quiet (no timer pending anywhere, every message sent
// received: waves of MPI_Iallreduce over the counters, two equal waves in a row), at time_limit,
// or, with stop_when_balanced, once a wave finds every node within the band of its share;
// messages then still on their way are received before the end. Every sample_period seconds (of
// rank 0's clock, announced by a wave) the ranks' loads are gathered without blocking into a row
// of the series. Conservation is recounted on rank 0 from every rank's holdings, untaken
// messages and completed items against the initial state; a lost or doubled message
// (EngineRun::faults) makes it fail. An idle rank waits on its posted receive and the wave
// (MPI_Waitany), or polls them until its next timer; it never sleeps a fixed time. Rank 0 returns
// the run's result; the others return an empty one.
#include <mpi.h>

#include "nnlb/engine/registry.hpp"

namespace nnlb {

// Runs `run` on the ranks of `comm` (MPI initialized by the caller), rank r hosting node r; every
// rank of `comm` calls it. InputError when the number of ranks is not the number of nodes.
RunResult run_mpi(const EngineRun& run, MPI_Comm comm);
// The same on MPI_COMM_WORLD.
RunResult run_mpi(const EngineRun& run);

// This process's rank and the world's size.
int mpi_rank();
int mpi_size();

}  // namespace nnlb
