#!/bin/sh
# Builds dist/cli.js from a commit, optionally with patches applied, into OUT: a candidate
# bundle for `node bench/run.mjs --bundle OUT` (measures committed code, not a working tree).
#   bench/build-bundle.sh OUT [COMMIT] [PATCH...]
#   bench/build-bundle.sh .bench-cache/cli-head.js HEAD
#   bench/build-bundle.sh .bench-cache/cli-fix.js HEAD ../candidate.patch
set -eu
[ $# -ge 1 ] || { sed -n '2,6p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
root=$(cd "$(dirname "$0")/.." && pwd)
out=$1
commit=${2:-HEAD}
[ $# -ge 2 ] && shift 2 || shift 1
tmp=$(mktemp -d "${TMPDIR:-/tmp}/rg-bundle.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
git -C "$root" archive "$commit" | tar -x -C "$tmp"
ln -s "$root/node_modules" "$tmp/node_modules"
for p in "$@"; do
  case "$p" in /*) ;; *) p="$root/$p" ;; esac
  (cd "$tmp" && git apply "$p")
done
(cd "$tmp" && node scripts/build.mjs)
mkdir -p "$(dirname "$out")"
cp "$tmp/dist/cli.js" "$out"
echo "built $out from $(git -C "$root" rev-parse --short "$commit")${1:+ with $*}"
