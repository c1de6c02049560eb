# cmake -DCOMMAND="prog|arg|..." -DEXPECT="line" -P expect_failure.cmake
# Passes when COMMAND exits non-zero and its standard error holds EXPECT exactly once.
string(REPLACE "|" ";" command "${COMMAND}")
execute_process(COMMAND ${command} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(rc EQUAL 0)
  message(FATAL_ERROR "expected a failure, and the command succeeded:\n${out}${err}")
endif()
string(FIND "${err}" "${EXPECT}" first)
string(FIND "${err}" "${EXPECT}" last REVERSE)
if(first EQUAL -1 OR NOT first EQUAL last)
  message(FATAL_ERROR "expected '${EXPECT}' once on standard error (exit ${rc}), got:\n${err}")
endif()
message(STATUS "failed as expected (exit ${rc}): ${EXPECT}")
