#!/usr/bin/env bash
# Installs the receipt-gate pre-receive hook on a git server (docs/server.md).
#
#   install-server.sh --server REPO.git [REPO.git ...]   into each bare repository's hooks/
#   install-server.sh --server --hook PATH [--hook PATH]  as the hook file PATH, e.g.
#       REPO.git/hooks/pre-receive.d/receipt-gate       (Gitea / Forgejo)
#       REPO.git/custom_hooks/pre-receive.d/receipt-gate  (GitLab)
#       /srv/git-hooks/pre-receive                       (a server-wide core.hooksPath)
#   install-server.sh --uninstall REPO.git ... | --uninstall --hook PATH ...
#   install-server.sh --ghes-env OUT.tar.gz               GitHub Enterprise environment tarball
#
# What it writes, next to each other: the hook (server-hooks/pre-receive, a small shell shim)
# and receipt-gate.cjs (dist/cli.js: one self-contained file, nothing from node_modules or a
# working tree is needed at push time). An existing pre-receive that is not ours is kept as
# pre-receive.receipt-gate-chained and still runs after ours on the same stdin. Running the
# install twice changes nothing; --uninstall puts back what was there.
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
shim="$here/server-hooks/pre-receive"
bundle=${RECEIPT_GATE_BUNDLE_SOURCE:-$here/dist/cli.js}
marker='receipt-gate pre-receive hook'
chained_name='pre-receive.receipt-gate-chained'

die() { echo "install.sh: $*" >&2; exit 2; }
say() { echo "install.sh: $*"; }

# usage [STATUS]: the header above; on stderr for a mistake (exit 2), stdout for --help (0).
usage() {
  if [ "${1:-2}" -eq 0 ]; then sed -n '2,10p' "$0" | sed 's/^# \{0,1\}//'; exit 0; fi
  sed -n '2,10p' "$0" | sed 's/^# \{0,1\}//' >&2
  exit 2
}

is_ours() { [ -f "$1" ] && [ ! -L "$1" ] && grep -q "$marker" "$1" 2>/dev/null; }

same_file() { [ -f "$2" ] && cmp -s "$1" "$2"; }

# install_hook FILE: the shim as FILE, the bundle beside it; chain a foreign pre-receive.
install_hook() {
  local file=$1 dir name
  dir=$(dirname -- "$file")
  name=$(basename -- "$file")
  mkdir -p -- "$dir"
  if [ -e "$file" ] || [ -L "$file" ]; then
    if ! is_ours "$file"; then
      [ "$name" = pre-receive ] || die "$file exists and is not receipt-gate's hook; move it away or choose another --hook name"
      if [ -e "$dir/$chained_name" ] || [ -L "$dir/$chained_name" ]; then
        die "$file is not receipt-gate's hook, but $dir/$chained_name already exists: resolve by hand (keep one of them as $chained_name) and re-run"
      fi
      mv -- "$file" "$dir/$chained_name"
      say "kept the existing hook as $dir/$chained_name (it runs after receipt-gate, on the same stdin)"
    fi
  fi
  local changed=0
  if ! same_file "$bundle" "$dir/receipt-gate.cjs"; then
    cp -- "$bundle" "$dir/receipt-gate.cjs.tmp.$$"
    chmod 0644 "$dir/receipt-gate.cjs.tmp.$$"
    mv -f -- "$dir/receipt-gate.cjs.tmp.$$" "$dir/receipt-gate.cjs"
    changed=1
  fi
  if ! same_file "$shim" "$file"; then
    cp -- "$shim" "$file.tmp.$$"
    chmod 0755 "$file.tmp.$$"
    mv -f -- "$file.tmp.$$" "$file"
    changed=1
  fi
  if [ "$changed" -eq 1 ]; then say "installed $file (+ receipt-gate.cjs)"; else say "$file is up to date"; fi
}

uninstall_hook() {
  local file=$1 dir
  dir=$(dirname -- "$file")
  if is_ours "$file"; then
    rm -f -- "$file"
    say "removed $file"
  elif [ -e "$file" ] || [ -L "$file" ]; then
    say "$file is not receipt-gate's hook; left as it is"
  fi
  rm -f -- "$dir/receipt-gate.cjs"
  if [ "$(basename -- "$file")" = pre-receive ] && { [ -e "$dir/$chained_name" ] || [ -L "$dir/$chained_name" ]; }; then
    if [ -e "$file" ] || [ -L "$file" ]; then
      say "$dir/$chained_name left in place: $file exists"
    else
      mv -- "$dir/$chained_name" "$file"
      say "restored the previous hook as $file"
    fi
  fi
}

# warn_missing_head REPO: the gate reads the policy from the branch HEAD names; a HEAD that
# names a branch that does not exist (an empty repository, or `master` where the project uses
# `main`) makes every push look unguarded until that branch exists.
warn_missing_head() {
  local repo=$1 head
  head=$(git --git-dir="$repo" symbolic-ref -q HEAD 2>/dev/null || true)
  [ -n "$head" ] || return 0
  if ! git --git-dir="$repo" rev-parse -q --verify "$head^{commit}" >/dev/null 2>&1; then
    echo "install.sh: warning: $repo: HEAD names ${head#refs/heads/}, which does not exist yet; the gate reads the policy from it, so pushes are accepted as unguarded until it exists. If the default branch is another one: git --git-dir=$repo symbolic-ref HEAD refs/heads/NAME" >&2
  fi
}

repo_hook_file() {
  local repo=$1
  [ -d "$repo" ] || die "$repo: no such directory (expected a bare repository, e.g. /srv/git/project.git)"
  [ -f "$repo/HEAD" ] && [ -d "$repo/objects" ] || die "$repo: not a bare git repository (no HEAD or objects/)"
  local hooks="$repo/hooks"
  # A repository-local core.hooksPath wins over hooks/.
  local custom
  custom=$(git --git-dir="$repo" config --local --get core.hooksPath 2>/dev/null || true)
  if [ -n "$custom" ]; then
    case "$custom" in /*) hooks=$custom ;; *) hooks="$repo/$custom" ;; esac
  fi
  printf '%s/pre-receive' "$hooks"
}

[ $# -ge 1 ] || usage
action=$1
shift
case "$action" in
  --server | --uninstall) ;;
  --ghes-env) exec "$here/scripts/ghes-env.sh" "$@" ;;
  -h | --help) usage 0 ;;
  *) die "unknown option '$action' (usage: ./install.sh --server REPO.git ... | --uninstall REPO.git ... | --ghes-env OUT.tar.gz)" ;;
esac

targets=()
repos=()
while [ $# -gt 0 ]; do
  case "$1" in
    --hook)
      [ $# -ge 2 ] || die "--hook needs a file path"
      targets+=("$2")
      shift 2
      ;;
    -*) die "unknown option '$1'" ;;
    *)
      targets+=("$(repo_hook_file "${1%/}")")
      repos+=("${1%/}")
      shift
      ;;
  esac
done
[ ${#targets[@]} -gt 0 ] || die "$action needs at least one bare repository (REPO.git) or --hook PATH"

if [ "$action" = --server ]; then
  [ -f "$bundle" ] || die "$bundle is missing: run ./install.sh first to build it"
  [ -f "$shim" ] || die "$shim is missing"
  for t in "${targets[@]}"; do install_hook "$t"; done
  for r in ${repos[@]+"${repos[@]}"}; do warn_missing_head "$r"; done
else
  for t in "${targets[@]}"; do uninstall_hook "$t"; done
fi
