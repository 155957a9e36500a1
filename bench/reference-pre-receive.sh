#!/bin/sh
# Reference hook for the receipt-gate benchmark: the same path check and evidence digests,
# done with the git CLI — the practical floor the gate is measured against.
#
#   reference-pre-receive.sh                     a pre-receive hook (stdin: <old> <new> <ref>)
#   reference-pre-receive.sh --verify REF BASE   verify-ref's work: REF's new commits against BASE
#   reference-pre-receive.sh --index             pre-commit's work: the staged index against HEAD
#
# Per ref update: the new commits (`rev-list NEW --not --all`, i.e. what the push brought; in
# --verify mode `--not BASE`), every path each of them changes against each parent
# (`diff-tree --stdin -r -m --root`), plus the net change (old→new for the base branch or a
# protected ref, merge-base(base, new)→new otherwise); the touched paths are matched
# (case-insensitively) against the bench policy's protected globs and exceptions. Then the
# evidence at NEW is read with `cat-file`: the epoch pin and the SHA-256 of its generator blob,
# each observation's witness blob against its witness_sha256, and the digests of the manifest
# and freeze file (`sha256sum`).
#
# What it does not do (so the ratio ours/reference is a floor, not a like-for-like cost): JSON
# schema validation, the canonical-JSON manifest digest, the sampler draw, freeze windows and
# dates, Unicode NFC folding, unsafe-path checks. The protected globs are those of the
# benchmark's policy (bench/lib/evidence.mjs), written as one extended regular expression.
set -u

ZERO=0000000000000000000000000000000000000000
EMPTY_TREE=4b825dc642cb6eb9a060e54bf8d69288fbee4904
PROTECTED_RE='^(\.receipt-gate\.json|properties/.*|fixtures/.*|freeze\.json|freezes/.*|observations/.*|checks/.*|tools/patch_receipt\.py|\.github/workflows/.*|\.husky/.*|\.gitattributes|.*/\.gitattributes|\.gitmodules)$'
EXCEPTION_RE='^fixtures/(.*/)?[^/]*\.md$'
OWNERS=' alice release-bot '
PROTECTED_REFS_RE='^refs/heads/(main|release/.*)$'

identity=${GITHUB_USER_LOGIN:-${GL_USERNAME:-${GITEA_PUSHER_NAME:-${GL_USER:-${REMOTE_USER:-}}}}}
is_owner=no
if [ -n "$identity" ]; then
  case "$OWNERS" in *" $identity "*) is_owner=yes ;; esac
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/reference-hook.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
status=0

reject() {
  printf 'reference: push REJECTED: %s\n' "$*" >&2
  status=1
}

blob_sha256() { git cat-file blob "$1" | sha256sum | cut -d' ' -f1; }
json_field() { sed -n "s/.*\"$1\": *\"\\([^\"]*\\)\".*/\\1/p" | head -n 1; }

# evidence AT: AT is "<commit>:" (a tree) or ":" (the index).
evidence() {
  at=$1
  where=$2
  pin=$(git cat-file blob "${at}fixtures/EPOCH" 2>/dev/null) || { reject "$where: EPOCH_MISSING fixtures/EPOCH"; return; }
  generator=$(printf '%s\n' "$pin" | json_field generator)
  want=$(printf '%s\n' "$pin" | json_field generator_sha256)
  got=$(blob_sha256 "${at}${generator}" 2>/dev/null)
  [ -n "$want" ] && [ "$got" = "$want" ] || reject "$where: EPOCH_MISMATCH $generator ($got, pinned $want)"
  for f in checks/manifest.json freeze.json; do
    blob_sha256 "${at}$f" >/dev/null 2>&1 || reject "$where: $f missing"
  done
  if [ "$at" = ":" ]; then
    git ls-files -- 'observations/*.json' >"$tmp/obs"
  else
    git ls-tree --name-only --full-tree "${at%:}" -- observations/ | grep '\.json$' >"$tmp/obs"
  fi
  while IFS= read -r obs; do
    want=$(git cat-file blob "${at}$obs" | json_field witness_sha256)
    got=$(blob_sha256 "${at}${obs%.json}.bin" 2>/dev/null)
    [ "$got" = "$want" ] || reject "$where: WITNESS_MISMATCH ${obs%.json}.bin"
  done <"$tmp/obs"
}

# blocked WHERE: the protected paths among the touched ones in $tmp/paths.
blocked() {
  [ "$is_owner" = yes ] && return
  sort -u "$tmp/paths" | grep -iE "$PROTECTED_RE" | grep -viE "$EXCEPTION_RE" >"$tmp/blocked"
  if [ -s "$tmp/blocked" ]; then
    while IFS= read -r p; do reject "$1: PATH_PROTECTED $p"; done <"$tmp/blocked"
  fi
}

# check_update OLD NEW REF BASE_TIP NOT...: one ref update.
check_update() {
  old=$1 new=$2 ref=$3 base_tip=$4
  shift 4
  if [ "$new" = "$ZERO" ]; then
    if printf '%s\n' "$ref" | grep -qE "$PROTECTED_REFS_RE" && [ "$is_owner" = no ]; then reject "$ref: REF_PROTECTED deletion"; fi
    return
  fi
  git rev-list "$new" --not "$@" >"$tmp/commits"
  git diff-tree --stdin -r -m --root --no-commit-id --name-only <"$tmp/commits" >"$tmp/paths"
  if printf '%s\n' "$ref" | grep -qE "$PROTECTED_REFS_RE"; then
    from=$old
    [ "$from" = "$ZERO" ] && from=$EMPTY_TREE
  else
    from=$(git merge-base "$base_tip" "$new" 2>/dev/null) || from=$EMPTY_TREE
  fi
  git diff-tree -r --name-only "$from" "$new" >>"$tmp/paths"
  blocked "$ref"
  evidence "$new:" "$ref"
}

case "${1:-}" in
  --verify)
    ref=$(git rev-parse --verify "$2^{commit}") || exit 2
    base=$(git rev-parse --verify "$3^{commit}") || exit 2
    check_update "$base" "$ref" "$2" "$base" "$base"
    ;;
  --index)
    git diff --cached --name-only >"$tmp/paths"
    blocked index
    evidence ":" index
    ;;
  *)
    base_branch=$(git symbolic-ref --short HEAD)
    base_tip=$(git rev-parse --verify -q "refs/heads/$base_branch") || base_tip=$ZERO
    while read -r old new ref; do
      check_update "$old" "$new" "$ref" "$base_tip" --all
    done
    ;;
esac
exit $status
