#!/usr/bin/env bash
# fetch_debs.sh: fetches the Debian packages whose API reference text the model trains on
# (libpython3.11-stdlib, python3-botocore) into DIR once, with apt's own client and a private
# configuration and state (no system file is edited), and extracts each into DIR/<package>.
# Later runs reuse the files, so a rebuild trains on the same bytes; the SHA-256 of each .deb is
# printed (Debian's archive changes with point releases: delete DIR to refresh).
#   training/fetch_debs.sh DIR
set -euo pipefail
dir="$1"
packages="libpython3.11-stdlib python3-botocore"
mkdir -p "$dir"
apt_dir="$dir/apt"
for p in $packages; do
  if ! ls "$dir"/"${p}"_*.deb >/dev/null 2>&1; then
    if [ ! -f "$apt_dir/updated" ]; then
      mkdir -p "$apt_dir/lists/partial" "$apt_dir/cache/archives/partial"
      printf 'Dir::State::Lists "%s";\nDir::Cache "%s";\n' "$apt_dir/lists" "$apt_dir/cache" \
        > "$apt_dir/apt.conf"
      echo "fetch_debs: reading Debian's package lists"
      APT_CONFIG="$apt_dir/apt.conf" timeout 600 apt-get update -qq
      touch "$apt_dir/updated"
    fi
    echo "fetch_debs: $p"
    if ! (cd "$dir" && APT_CONFIG="$apt_dir/apt.conf" timeout 600 apt-get download -qq "$p" 2>/dev/null); then
      echo "fetch_debs: could not fetch $p from Debian's archive (offline?)" >&2
      exit 1
    fi
  fi
  deb=$(ls "$dir"/"${p}"_*.deb | head -n1)
  if [ ! -d "$dir/$p" ]; then
    dpkg-deb -x "$deb" "$dir/$p.tmp"
    mv "$dir/$p.tmp" "$dir/$p"
  fi
  echo "fetch_debs: $(basename "$deb") sha256 $(sha256sum "$deb" | cut -d' ' -f1)"
done
