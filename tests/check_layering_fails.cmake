# cmake -DCHECK=<check_layering.cmake> -DWORK_DIR=<scratch> -P check_layering_fails.cmake
# The layering check must fail on a tree that breaks the layers, and name each offending line: an
# engine that includes a program by its nnlb/ path and by a relative path, the node API that
# includes a protocol, and a policy that includes the experiment layer.
cmake_minimum_required(VERSION 3.25)
file(REMOVE_RECURSE "${WORK_DIR}")
file(WRITE "${WORK_DIR}/nnlb/programs/balancer.hpp" "#pragma once\n")
file(WRITE "${WORK_DIR}/nnlb/node/context.hpp" "#pragma once\n#include \"nnlb/protocol/tags.hpp\"\n")
file(WRITE "${WORK_DIR}/nnlb/protocol/tags.hpp" "#pragma once\n#include \"nnlb/node/context.hpp\"\n")
file(WRITE "${WORK_DIR}/nnlb/engine/des/engine.cpp"
     "#include \"nnlb/node/context.hpp\"\n#include \"nnlb/programs/balancer.hpp\"\n#include \"../../programs/balancer.hpp\"\n#include \"queue.hpp\"\n")
file(WRITE "${WORK_DIR}/nnlb/engine/des/queue.hpp" "#pragma once\n")
file(WRITE "${WORK_DIR}/nnlb/policy/rule.cpp" "#include <nnlb/experiment/run.hpp>\n")
file(WRITE "${WORK_DIR}/nnlb/experiment/run.hpp" "#pragma once\n")
execute_process(COMMAND ${CMAKE_COMMAND} -DSOURCE_DIR=${WORK_DIR}/nnlb -P ${CHECK} RESULT_VARIABLE status OUTPUT_VARIABLE out
                ERROR_VARIABLE out)
if(status EQUAL 0)
  message(FATAL_ERROR "check_layering passed a tree that breaks the layers:\n${out}")
endif()
foreach(expected "engine/des/engine.cpp: engine/ must not include nnlb/programs/balancer.hpp"
                 "engine/des/engine.cpp: engine/ must not include ../../programs/balancer.hpp"
                 "node/context.hpp: node/ must not include nnlb/protocol/tags.hpp"
                 "policy/rule.cpp: policy/ must not include nnlb/experiment/run.hpp")
  string(FIND "${out}" "${expected}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "check_layering did not report '${expected}':\n${out}")
  endif()
endforeach()
foreach(allowed "protocol/tags.hpp" "queue.hpp")
  string(FIND "${out}" "${allowed}:" at)
  if(NOT at EQUAL -1)
    message(FATAL_ERROR "check_layering reported an allowed include (${allowed}):\n${out}")
  endif()
endforeach()
message(STATUS "check_layering fails on every broken layer, as it must")
