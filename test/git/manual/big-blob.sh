#!/usr/bin/env bash
# Manual check: a 100 MB incompressible blob in a pack beside a small JSON file; reading the
# small file must cost little time and RSS (the suite runs the same check with 24 MiB).
#   test/git/manual/big-blob.sh [WORKDIR]
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../../.." && pwd)"
work="${1:-$(mktemp -d)}"
repo="$work/big-blob"
rm -rf "$repo" && git init -q "$repo"
head -c $((100 * 1000 * 1000)) /dev/urandom > "$repo/witness.bin"
echo '{"ok":true}' > "$repo/small.json"
git -C "$repo" add -A
git -C "$repo" -c user.name=t -c user.email=t@example.com commit -qm big
git -C "$repo" gc -q
cd "$root"
npx tsx test/git/manual/read-beside.ts "$repo" small.json witness.bin 32
