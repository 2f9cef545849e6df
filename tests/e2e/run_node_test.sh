#!/usr/bin/env bash
# run_node_test.sh: runs a node test script, or says why not and exits 77 (ctest's skip code)
# when node is not installed; under SCOUT_REQUIRE_FIXTURES=1 (CI) a missing node fails instead.
if ! command -v node >/dev/null 2>&1; then
  if [ "${SCOUT_REQUIRE_FIXTURES:-0}" = "1" ]; then
    echo "FAIL: node is not installed and SCOUT_REQUIRE_FIXTURES=1"
    exit 1
  fi
  echo "SKIP: node is not installed (apt-get install nodejs npm); gateway end-to-end test skipped"
  exit 77
fi
exec node "$@"
