# Record and replay, end to end (docs/mpi.md): the stencil example records its load trace on 4
# real ranks; nnlb replays it on des under the same policy and item choice. Conservation holds,
# and the replay's time to balance (the first step at which every rank's load is within the
# band) is within 20 % of the recorded run's.
#   cmake -DMPIEXEC=... -DSTENCIL=... -DNNLB=... -DTRACE=FILE -P replay_stencil.cmake
execute_process(COMMAND ${MPIEXEC} -np 4 ${STENCIL} 64 200 --trace ${TRACE} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "stencil --trace failed (${rc}):\n${out}\n${err}")
endif()
execute_process(COMMAND ${NNLB} run --set engine=des --set load.trace=${TRACE} --set algorithm=best-effort --set load.trace_choice=line-blocks
                        --set stop.band=0.1 --format json RESULT_VARIABLE rc OUTPUT_VARIABLE json ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "the replay failed (${rc}): ${err}")
endif()
string(JSON error GET "${json}" summary max_conservation_error)
string(JSON recorded GET "${json}" summary trace_balanced_at)
string(JSON replayed GET "${json}" summary replay_balanced_at)
message(STATUS "time to balance: recorded ${recorded} s, replayed ${replayed} s; conservation error ${error}")
if(NOT error EQUAL 0)
  message(FATAL_ERROR "the replay did not conserve the items' weight: relative error ${error}")
endif()
if(recorded STREQUAL "null" OR replayed STREQUAL "null" OR recorded STREQUAL "" OR replayed STREQUAL "")
  message(FATAL_ERROR "no time to balance: recorded '${recorded}', replayed '${replayed}'")
endif()
execute_process(COMMAND awk "BEGIN { d = ${replayed} - ${recorded}; if (d < 0) d = -d; exit !(d <= 0.2 * ${recorded}) }" RESULT_VARIABLE far)
if(NOT far EQUAL 0)
  message(FATAL_ERROR "the replay's time to balance ${replayed} s is not within 20 % of the recorded ${recorded} s")
endif()
