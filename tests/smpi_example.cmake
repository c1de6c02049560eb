# cmake -DSMPICXX=smpicxx -DSMPIRUN=smpirun -DSOURCE=<example.cpp> -DINCLUDES="a|b" -DLIBS="a|b"
#       -DPLATFORM=<platform.xml> -DRANKS=16 -DWORK_DIR=<scratch> [-DARGS="x|y"] -P smpi_example.cmake
# Builds an example of the MPI library with SimGrid's smpicxx against nnlb's SMPI build of the
# library (nnlb_runtime_smpi) and runs it with smpirun on RANKS simulated ranks: it must exit 0.
cmake_minimum_required(VERSION 3.25)
file(MAKE_DIRECTORY "${WORK_DIR}")
get_filename_component(name "${SOURCE}" NAME_WE)
set(program "${WORK_DIR}/${name}")
string(REPLACE "|" ";" includes "${INCLUDES}")
string(REPLACE "|" ";" libs "${LIBS}")
string(REPLACE "|" ";" args "${ARGS}")
list(TRANSFORM includes PREPEND "-I")
execute_process(COMMAND "${SMPICXX}" -std=c++20 -O2 -fopenmp ${includes} "${SOURCE}" ${libs} -o "${program}"
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "smpicxx failed (${rc}):\n${out}")
endif()
# smpi/coll-selector:ompi: SMPI 3.32's default collectives post every message of an all-to-all
# at once, detached, and SimGrid removes each finished one from a list of all of them.
# smpi/async-small-thresh:65536: messages up to 64 KiB (the first part of every nnlb message)
# leave at once and wait at the receiver, as MPI's eager protocol does; without it each waits for
# the receive that matches it, and items spend tens of iterations on their way (docs/mpi.md).
execute_process(COMMAND "${SMPIRUN}" -np ${RANKS} -platform "${PLATFORM}" --cfg=smpi/host-speed:1Gf --cfg=smpi/coll-selector:ompi
                        --cfg=smpi/async-small-thresh:65536
                        --log=root.thres:warning
                        "${program}" ${args}
                WORKING_DIRECTORY "${WORK_DIR}" RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "smpirun -np ${RANKS} ${name} failed (${rc}):\n${out}${err}")
endif()
message(STATUS "${name} under SMPI on ${RANKS} simulated ranks:\n${out}")
