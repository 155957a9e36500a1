#!/usr/bin/env bash
# Tags a release of the GitHub Action: a commit on top of HEAD whose tree is HEAD's plus the
# built, self-contained dist/cli.js (dist/ is not tracked on branches). `uses: OWNER/receipt-gate@TAG`
# then runs that bundle with the runner's node: no npm ci and no build per job.
#
#   scripts/release-action.sh v0.1.0      builds dist/cli.js and tags the release commit
#   git push origin v0.1.0                 (and move the major tag: git tag -f v0 v0.1.0)
#
# The work tree, the index and the branch are left as they were.
set -euo pipefail
cd "$(dirname "$0")/.."
tag=${1:-}
if [ -z "$tag" ] || [ "$tag" = -h ] || [ "$tag" = --help ]; then
  sed -n '2,9p' "$0" | sed 's/^# \{0,1\}//'
  [ -n "$tag" ] && exit 0 || exit 2
fi
if git rev-parse --verify --quiet "refs/tags/$tag" >/dev/null; then
  echo "release-action.sh: tag $tag exists already. Pick a new version, or delete it first: git tag -d $tag" >&2
  exit 2
fi
if [ -n "$(git status --porcelain --untracked-files=no)" ]; then
  echo "release-action.sh: the work tree has uncommitted changes; the release is built from HEAD. Commit or stash them first" >&2
  exit 2
fi
npm run --silent build
index=$(mktemp)
trap 'rm -f "$index"' EXIT
GIT_INDEX_FILE=$index git read-tree HEAD
GIT_INDEX_FILE=$index git update-index --add --cacheinfo "100755,$(git hash-object -w dist/cli.js),dist/cli.js"
tree=$(GIT_INDEX_FILE=$index git write-tree)
commit=$(git commit-tree "$tree" -p HEAD -m "Release $tag: the GitHub Action with its prebuilt dist/cli.js")
git tag "$tag" "$commit"
echo "release-action.sh: tagged $tag ($(git rev-parse --short "$commit")): $(git rev-parse --short HEAD) plus dist/cli.js"
