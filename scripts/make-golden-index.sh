#!/usr/bin/env bash
# make-golden-index.sh: writes the golden index files of the format version the given scout
# binary writes, into tests/golden/v<major>.<minor>/, with the search results they must keep
# giving. Run once per format version (with the scout of that version); never regenerate an
# older version's files with a newer scout: they are what that version wrote.
#   scripts/make-golden-index.sh [path/to/scout]     (default: build/bin/scout)
set -euo pipefail
cd "$(dirname "$0")/.."
scout="${1:-build/bin/scout}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# A small subset of the shipped catalog: its first four servers, the second one DEGRADED (kept
# in the file, not indexed).
python3 - "$work/subset.json" <<'PY'
import json, sys
catalog = json.load(open("data/enterprise_catalog.json"))
servers = catalog["servers"][:4]
servers[1]["status"] = "DEGRADED"
json.dump({"servers": servers}, open(sys.argv[1], "w"), indent=1)
PY

# The embedder of each file: none (BM25 only), hashing (no model file), the shipped static model.
declare -A embedders=([bm25]=none [hashing]=hashing:8 [static]=static)
version="$("$scout" index --quiet --catalog "$work/subset.json" --embedder none \
  --out "$work/probe.scoutidx" --json | python3 -c \
  'import json,sys; f=json.load(sys.stdin)["format"]; print("%d.%d" % (f["major"], f["minor"]))')"
out="tests/golden/v$version"
mkdir -p "$out"
for name in "${!embedders[@]}"; do
  "$scout" index --quiet --catalog "$work/subset.json" --embedder "${embedders[$name]}" \
    --out "$out/$name.scoutidx"
  # One line per query: the query, a tab, the top five tool names in order.
  : > "$out/$name.expected.tsv"
  while IFS= read -r query; do
    "$scout" search --index "$out/$name.scoutidx" --embedder "${embedders[$name]}" --json \
      "$query" | python3 -c '
import json, sys
r = json.load(sys.stdin)
print(r["query"] + "\t" + ",".join(m["name"] for m in r["matches"]))' >> "$out/$name.expected.tsv"
  done < tests/golden/queries.txt
done
echo "wrote $out"
