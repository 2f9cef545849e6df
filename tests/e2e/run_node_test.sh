#!/usr/bin/env bash
# run_node_test.sh: runs a node test script, or says why not and exits 77 (ctest's skip code)
# when node is not installed.
if ! command -v node >/dev/null 2>&1; then
  echo "SKIP: node is not installed (apt-get install nodejs npm); gateway end-to-end test skipped"
  exit 77
fi
exec node "$@"
