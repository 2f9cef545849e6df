#!/usr/bin/env python3
"""tidy_units.py: joins a target's unity batches into larger translation units for clang-tidy.

Usage: tidy_units.py BUILD GROUP < units > tidied-units

scripts/lint.sh (tidy) gives the translation units it will check on stdin, one path per line:
unity batches (BUILD/.../CMakeFiles/TARGET.dir/Unity/unity_N_cxx.cxx, each including up to
SCOUT_UNITY_BATCH sources) and sources compiled alone. The batches of one target share one
compile command, so up to GROUP of them are joined into BUILD/tidy-units/NAME.cxx (their include
lines, in order) with that command. Most of a batch's clang-tidy time is parsing the headers every
batch includes alike (the standard library, nlohmann/json), which a joined unit parses once.
Writes BUILD/tidy-units/compile_commands.json (the joined units and every other unit's own
command) and prints the units to check: the joined ones, and the rest unchanged.
"""
import json
import os
import re
import sys
from collections import defaultdict


def main(argv):
    if len(argv) != 3 or not argv[2].isdigit() or int(argv[2]) < 1:
        sys.stderr.write("usage: tidy_units.py BUILD GROUP < units\n")
        return 2
    build = os.path.abspath(argv[1])
    group = int(argv[2])
    with open(os.path.join(build, "compile_commands.json"), encoding="utf-8") as f:
        entries = json.load(f)
    entry_of = {e["file"]: e for e in entries}
    units = [line.strip() for line in sys.stdin if line.strip()]
    out_dir = os.path.join(build, "tidy-units")
    os.makedirs(out_dir, exist_ok=True)

    batches = defaultdict(list)  # a target's Unity folder -> its batches
    alone = []
    batch_number = re.compile(r"/Unity/unity_(\d+)_cxx\.cxx$")
    for unit in units:
        found = batch_number.search(unit)
        if found and unit in entry_of:
            batches[unit[: found.start()]].append((int(found.group(1)), unit))
        else:
            alone.append(unit)

    db = [entry_of[u] for u in alone if u in entry_of]
    tidied = list(alone)
    for target_dir, numbered in sorted(batches.items()):
        numbered.sort()
        members = [unit for _, unit in numbered]
        target = os.path.basename(target_dir).removesuffix(".dir")
        for start in range(0, len(members), group):
            chunk = members[start : start + group]
            if len(chunk) == 1:
                db.append(entry_of[chunk[0]])
                tidied.append(chunk[0])
                continue
            joined = os.path.join(out_dir, f"{target}_{start // group}.cxx")
            text = "".join(open(m, encoding="utf-8").read() for m in chunk)
            with open(joined, "w", encoding="utf-8") as f:
                f.write(text)
            first = entry_of[chunk[0]]
            entry = dict(first)
            entry["file"] = joined
            if "command" in entry:
                entry["command"] = entry["command"].replace(chunk[0], joined)
            else:
                entry["arguments"] = [joined if a == chunk[0] else a for a in entry["arguments"]]
            db.append(entry)
            tidied.append(joined)
    with open(os.path.join(out_dir, "compile_commands.json"), "w", encoding="utf-8") as f:
        json.dump(db, f, indent=1)
    print("\n".join(tidied))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
