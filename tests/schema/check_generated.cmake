# Fails unless SCHEMA (the shipped policies/schema/rebound-policy.schema.json) holds exactly the
# bytes `REBOUND schema` prints.
execute_process(COMMAND ${REBOUND} schema OUTPUT_VARIABLE generated RESULT_VARIABLE status)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "`rebound schema` failed with ${status}")
endif()
file(READ ${SCHEMA} shipped)
if(NOT generated STREQUAL shipped)
  message(FATAL_ERROR "${SCHEMA} is not what `rebound schema` generates from the field table "
    "and tools/src/policy_schema_parts.json; regenerate it from the build directory with\n"
    "  tools/rebound schema > ${SCHEMA}\n"
    "and review the difference (git diff).")
endif()
