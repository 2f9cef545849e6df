#!/usr/bin/env bash
# format-options.sh [BUILD]: rewrites the option table of docs/FORMAT.md (between the
# options:begin and options:end markers) from `scout options --markdown` of BUILD (default build).
set -euo pipefail
cd "$(dirname "$0")/../.."
build="${1:-build}"
table="$(mktemp)"
trap 'rm -f "$table"' EXIT
"$build/bin/scout" options --markdown > "$table"
python3 - "$table" <<'PY'
import sys
table = open(sys.argv[1]).read()
path = "docs/FORMAT.md"
text = open(path).read()
begin, end = "<!-- options:begin -->\n", "<!-- options:end -->"
head, rest = text.split(begin, 1)
_, tail = rest.split(end, 1)
open(path, "w").write(head + begin + table + end + tail)
PY
