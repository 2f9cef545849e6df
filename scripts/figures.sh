#!/usr/bin/env bash
# figures.sh: the figures of docs/figures/, drawn with gnuplot from the benchmarks' JSON:
#   quality.svg   Hit@1 per dataset and mode (scout-bench-eval --json)
#   latency.svg   p50 search latency against catalog size, log-log, scout and each peer, one panel
#                 per section (scout-bench-scale --json)
#   learning.svg  Hit@1 of the held-out half without and with the outcome prior
#                 (scout-bench-learn --json)
# Usage: scripts/figures.sh [--from DIR] [--out DIR] [--build DIR]
#   --from DIR  plot DIR/eval.json, DIR/scale.json and DIR/learn.json instead of running the
#               benchmarks (each file is optional); the benchmark runs take tens of minutes
#   --out DIR   where the SVGs go (default docs/figures); the JSON is kept there too
# SCOUT_FIGURE_SIZES overrides the catalog sizes of the latency figure (default 2000,20000,200000).
set -euo pipefail
cd "$(dirname "$0")/.."
from=""
out="docs/figures"
build="build"
while [ $# -gt 0 ]; do
  case "$1" in
    --from) from="$2"; shift 2 ;;
    --out) out="$2"; shift 2 ;;
    --build) build="$2"; shift 2 ;;
    *) echo "figures: unknown argument $1" >&2; exit 2 ;;
  esac
done
command -v gnuplot >/dev/null || { echo "figures: gnuplot not found (apt-get install gnuplot-nox)" >&2; exit 1; }
mkdir -p "$out"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

if [ -z "$from" ]; then
  from="$out"
  "$build/bin/scout-bench-eval" --json --no-tokens > "$out/eval.json"
  "$build/bin/scout-bench-scale" --json --sections bm25,dense,hybrid,path \
    --sizes "${SCOUT_FIGURE_SIZES:-2000,20000,200000}" > "$out/scale.json"
  "$build/bin/scout-bench-learn" --json "$out/learn.json" > /dev/null
fi

# JSON to gnuplot's whitespace tables (standard-library python only).
python3 - "$from" "$work" <<'PY'
import json, os, sys
src, dst = sys.argv[1], sys.argv[2]
def load(name):
    path = os.path.join(src, name)
    return json.load(open(path)) if os.path.exists(path) else None
def label(text):
    return '"' + str(text).replace('"', "'") + '"'
ev = load("eval.json")
if ev:
    modes = ["bm25", "dense", "hybrid"]
    rows = {}
    for r in ev["quality"]:
        rows.setdefault(r["dataset"], {})[r["mode"]] = r["hit_at_1"]
    with open(os.path.join(dst, "quality.dat"), "w") as f:
        for d, by in rows.items():
            f.write(label(d) + " " + " ".join(str(by.get(m, "NaN")) for m in modes) + "\n")
sc = load("scale.json")
if sc:
    # Latency rows only: the reopen and target entries have no engine.
    for section in sorted({r["section"] for r in sc if "engine" in r}):
        series = {}
        for r in sc:
            if r["section"] == section and r["corpus"] == "synthetic" and r["p50_us"] > 0:
                series.setdefault(r["engine"], []).append((r["n"], r["p50_us"]))
        with open(os.path.join(dst, "latency-%s.dat" % section), "w") as f:
            for engine, pts in sorted(series.items()):
                f.write("# " + engine + "\n")
                for n, p in sorted(pts):
                    f.write("%d %g\n" % (n, p))
                f.write("\n\n")
        with open(os.path.join(dst, "latency-%s.names" % section), "w") as f:
            f.write("\n".join(sorted(series)) + "\n")
ln = load("learn.json")
if ln:
    with open(os.path.join(dst, "learning.dat"), "w") as f:
        for r in ln:
            f.write("%s %g %g\n" % (label(r["dataset"]), r["hit1_without"], r["hit1_with"]))
PY

svg='set terminal svg size 900,480 dynamic noenhanced font "sans,12" background rgb "white"'
# Clustered Hit@1 bars with each bar's value above it: histogram OUTPUT TITLE DATA TITLES...
# (DATA's first column names the cluster, the next ones are the bars, one per title).
histogram() {
  local output="$1" title="$2" data="$3"
  shift 3
  local n=$# plot="" i=0 name
  for name in "$@"; do
    local col=$((i + 2))
    if [ "$i" -eq 0 ]; then
      plot="\"$data\" using $col:xtic(1) title \"$name\""
    else
      plot="$plot, '' using $col title \"$name\""
    fi
    i=$((i + 1))
  done
  # A label per bar: cluster k's bar i sits at k + (i - (n-1)/2) / (n + gap).
  i=0
  for name in "$@"; do
    local col=$((i + 2))
    plot="$plot, '' using (\$0 + ($i - ($n - 1) / 2.0) / ($n + 1.0)):(\$$col + 0.02):(sprintf('%.2f', \$$col)) with labels font ',8' notitle"
    i=$((i + 1))
  done
  # Wide enough that the dataset names under the clusters do not run into each other.
  local clusters width
  clusters=$(grep -c . "$data")
  width=$((clusters * 170 > 900 ? clusters * 170 : 900))
  gnuplot <<GP
${svg/size 900,480/size $width,480}
set output "$output"
set title "$title"
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.85 border -1
set boxwidth 0.9
set yrange [0:1.08]
set ytics 0,0.2,1
set ylabel "Hit@1"
set grid ytics
set key top right
set xtics nomirror font ",10"
plot $plot
GP
}

if [ -f "$work/quality.dat" ]; then
  histogram "$out/quality.svg" "Retrieval quality: Hit@1 per dataset and mode (top 5)" \
    "$work/quality.dat" "bm25" "dense" "hybrid (default)"
fi

panels=()
for f in "$work"/latency-*.dat; do [ -f "$f" ] && panels+=("$f"); done
if [ ${#panels[@]} -gt 0 ]; then
  {
    echo "$svg"
    echo "set terminal svg size $((450 * ${#panels[@]})),480 dynamic noenhanced font 'sans,12' background rgb 'white'"
    echo "set output '$out/latency.svg'"
    echo "set multiplot layout 1,${#panels[@]} title 'Search latency (p50, single thread, top 10) against catalog size'"
    echo "set logscale xy"
    # The x axis spans the measured sizes, not the next power of ten past them.
    echo "set autoscale xfix"
    echo "set offsets graph 0.03, graph 0.03, 0, 0"
    echo "set xlabel 'tools'"
    echo "set ylabel 'p50 latency (us)'"
    echo "set grid"
    echo "set key top left font ',9'"
    for f in "${panels[@]}"; do
      section="$(basename "$f" .dat)"; section="${section#latency-}"
      names="${f%.dat}.names"
      echo "set title '$section'"
      plot="plot"
      i=0
      while IFS= read -r engine; do
        [ -n "$engine" ] || continue
        plot="$plot '$f' index $i using 1:2 with linespoints title '${engine//\'/}',"
        i=$((i + 1))
      done < "$names"
      echo "${plot%,}"
    done
    echo "unset multiplot"
  } | gnuplot
fi

if [ -f "$work/learning.dat" ]; then
  histogram "$out/learning.svg" "Learning from executions: Hit@1 on the held-out half of each query set" \
    "$work/learning.dat" "prior off" "prior on (after replaying the other half)"
fi
ls "$out"/*.svg
