#!/usr/bin/env bash
# format_options_test.sh SCOUT FORMAT_MD: the option table in docs/FORMAT.md (between the
# options:begin and options:end markers) is what `scout options --markdown` prints.
# To refresh it after changing the table: scripts/dev/format-options.sh.
set -euo pipefail
scout="$1"
doc="$2"
expected="$("$scout" options --markdown)"
actual="$(sed -n '/<!-- options:begin -->/,/<!-- options:end -->/p' "$doc" | sed '1d;$d')"
if [ "$expected" != "$actual" ]; then
    echo "docs/FORMAT.md's option table differs from scout options --markdown:" >&2
    diff <(echo "$actual") <(echo "$expected") >&2 || true
    exit 1
fi
echo "FORMAT.md option table matches ($(echo "$expected" | wc -l) lines)"
