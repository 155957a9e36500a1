#!/usr/bin/env bash
# Manual check, too slow for the suite (writes ~2.3 GB): a pack over 2 GiB whose last object
# lies beyond offset 2^31, so the .idx stores it in its 64-bit offset table. The object store
# must read it with positional reads and without loading the pack.
#   test/git/manual/large-pack.sh [WORKDIR]      (needs ~5 GB free; takes a few minutes)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../../.." && pwd)"
work="${1:-$(mktemp -d)}"
repo="$work/large-pack"
rm -rf "$repo" && git init -q -b main "$repo"
export GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@example.com GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@example.com
size=$((800 * 1024 * 1024))
{
  echo "commit refs/heads/main"
  echo "committer t <t@example.com> 1800000000 +0000"
  echo "data 5"; echo "large"
  for i in 1 2 3; do
    echo "M 100644 inline big$i.bin"
    echo "data $size"
    head -c "$size" /dev/urandom
    echo
  done
  echo "M 100644 inline small.json"
  echo "data 12"; echo '{"ok":true}'
  echo
} | git -C "$repo" -c pack.compression=0 -c fastimport.unpackLimit=0 fast-import --quiet --big-file-threshold=1m

pack=$(ls "$repo"/.git/objects/pack/*.pack | head -1)
echo "pack: $pack ($(stat -c %s "$pack") bytes)"
small=$(git -C "$repo" rev-parse HEAD:small.json)
git verify-pack -v "${pack%.pack}.idx" | awk -v o="$small" '$1==o {print "small.json at offset " $5}'
cd "$root"
npx tsx test/git/manual/read-beside.ts "$repo" small.json big3.bin 64
