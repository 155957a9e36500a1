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
#   --log-key KEY (with REPO.git): also the signed push log (docs/push-log.md): the
#       reference-transaction hook, `git config receipt-gate.logKey KEY`, and the log started;
#       the key (receipt-gate keygen --log) is checked before anything is installed
#
# What it writes, next to each other: the hook (server-hooks/pre-receive, a small shell shim)
# and receipt-gate.cjs (dist/cli.js: one self-contained file, nothing from node_modules or a
# working tree is needed at push time). An existing pre-receive that is not ours is kept as
# pre-receive.receipt-gate-chained and still runs after ours on the same stdin. Running the
# install twice changes nothing; --uninstall puts back what was there.
#
# Beside them, receipt-gate.blob: a V8 startup snapshot of the bundle, built here by the node
# the hook will run (RECEIPT_GATE_NODE, or `node` on PATH) with the shim's node flags, and
# checked once by running it; receipt-gate.blob.id records what it was built for (the bundle's
# sha256, node's version, arch and path, the flags). It is rebuilt only when one of those
# changed, reused from a cache beside the bundle (snapshot-cache/) when this bundle was built for
# this node before, and left out (one line says why) when building or checking it fails:
# the hook then runs the plain bundle. RECEIPT_GATE_NO_SNAPSHOT=1: install without it.
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
shim="$here/server-hooks/pre-receive"
bundle=${RECEIPT_GATE_BUNDLE_SOURCE:-$here/dist/cli.js}
marker='receipt-gate pre-receive hook'
chained_name='pre-receive.receipt-gate-chained'

log_shim="$here/server-hooks/reference-transaction"
batch_shim="$here/server-hooks/proc-receive"
batch_marker='receipt-gate proc-receive hook'
batch_routes='a:refs/'
log_marker='receipt-gate reference-transaction hook'
log_chained_name='reference-transaction.receipt-gate-chained'
log_key=''

blob_name=receipt-gate.blob
blob_id_name=receipt-gate.blob.id
node_cmd=${RECEIPT_GATE_NODE:-node}

die() { echo "install.sh: $*" >&2; exit 2; }
say() { echo "install.sh: $*"; }

# usage [STATUS]: the header above; on stderr for a mistake (exit 2), stdout for --help (0).
usage() {
  if [ "${1:-2}" -eq 0 ]; then sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'; exit 0; fi
  sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//' >&2
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
  local with=receipt-gate.cjs
  install_snapshot "$dir" || changed=1
  [ -f "$dir/$blob_name" ] && with="$with, $blob_name"
  if [ "$changed" -eq 1 ]; then say "installed $file (+ $with)"; else say "$file is up to date"; fi
}

# --- The startup snapshot ------------------------------------------------------------------

# The shim's node flags (its node_flags= line): a snapshot loads only under the flags it was
# built with, so it is built with exactly these.
node_flags=$(sed -n "s/^node_flags='\(.*\)'\$/\1/p" "$shim")
snapshot_id=''     # what receipt-gate.blob.id says: the bundle and the node it is for
snapshot_file=''   # its cache file name: the bundle's digest, then the id's
snapshot_ready=''  # a checked blob built (or taken from the cache) by this run, for every target
snapshot_problem=''
node_path=''       # node_cmd, found on PATH, as an absolute path

# node_clean ARG...: the hook's node, from /, in an empty environment (PATH only, for a
# RECEIPT_GATE_NODE that is a script): nothing of the installer's environment reaches the
# snapshot, and no NODE_OPTIONS changes its V8 flags.
node_clean() { (cd / && env -i PATH="$PATH" "$node_path" "$@"); }

# snapshot_identity: sets snapshot_id and snapshot_file, once per run; fails without a node.
snapshot_identity() {
  [ -n "$snapshot_id" ] && return 0
  local out
  node_path=$(command -v "$node_cmd") || return 1
  case $node_path in /*) ;; */*) node_path="$PWD/$node_path" ;; *) return 1 ;; esac
  out=$(node_clean -e '
    const { createHash } = require("node:crypto");
    const sha256 = (data) => createHash("sha256").update(data).digest("hex");
    const [bundle, command, flags] = process.argv.slice(1);
    const bundleSha = sha256(require("node:fs").readFileSync(bundle));
    const id = [
      "receipt-gate startup snapshot (receipt-gate.blob), built by ./install.sh --server for:",
      `bundle sha256 ${bundleSha}`,
      `node ${process.version} ${process.platform}-${process.arch} ${process.execPath}`,
      `node command ${command}`,
      `node flags ${flags}`,
    ].join("\n");
    process.stdout.write(`${bundleSha.slice(0, 16)}-${sha256(id).slice(0, 32)}.blob\n${id}\n`);
  ' "$(absolute "$bundle")" "$node_path" "$node_flags" 2>/dev/null) || return 1
  [[ ${out%%$'\n'*} =~ ^[0-9a-f]{16}-[0-9a-f]{32}\.blob$ ]] || return 1
  snapshot_file=${out%%$'\n'*}
  snapshot_id=${out#*$'\n'}
}

# absolute PATH: PATH from the directory the installer runs in (node_clean runs from /).
absolute() { case $1 in /*) printf '%s' "$1" ;; *) printf '%s/%s' "$PWD" "$1" ;; esac; }

# check_snapshot BLOB [BUNDLE]: it deserializes in this node, beside BUNDLE (default: the one
# installed), and answers `version`.
check_snapshot() {
  local out
  # shellcheck disable=SC2086 # the flags are words
  out=$(node_clean $node_flags --snapshot-blob "$(absolute "$1")" "$(absolute "${2:-$bundle}")" version 2>&1) &&
    [[ $out =~ ^[0-9]+\.[0-9]+\.[0-9]+[^[:space:]]*$ ]]
}

# prepare_snapshot: a checked blob of the bundle for this node in $snapshot_ready: from the cache
# beside the bundle (dist/snapshot-cache/, shared by every install from it), or built. Sets
# snapshot_problem when there is none.
prepare_snapshot() {
  [ -n "$snapshot_ready" ] && return 0
  [ -z "$snapshot_problem" ] || return 1 # tried in this run already
  local work blob cache log f
  if ! work=$(mktemp -d) || [ -z "$work" ]; then
    snapshot_problem='mktemp -d failed'
    return 1
  fi
  trap 'rm -rf -- "'"$work"'"' EXIT
  blob="$work/$blob_name"
  cache=$(cd "$(dirname -- "$bundle")" && pwd) && [ -n "$cache" ] && cache="$cache/snapshot-cache" || cache=''
  [ -n "$cache" ] && mkdir -p -- "$cache" 2>/dev/null && [ -w "$cache" ] || cache=''
  if [ -n "$cache" ] && cp -- "$cache/$snapshot_file" "$blob" 2>/dev/null && check_snapshot "$blob"; then
    snapshot_ready=$blob
    return 0
  fi
  rm -f -- "$blob"
  # shellcheck disable=SC2086 # the flags are words
  if ! log=$(node_clean $node_flags --snapshot-blob "$blob" --build-snapshot "$(absolute "$bundle")" 2>&1); then
    snapshot_problem="node --build-snapshot failed: ${log%%$'\n'*}"
    return 1
  fi
  if ! check_snapshot "$blob"; then
    snapshot_problem="the snapshot it built does not run in $node_cmd"
    return 1
  fi
  snapshot_ready=$blob
  [ -n "$cache" ] || return 0
  # The cache keeps this bundle's blobs (one per node) and drops the other bundles'.
  for f in "$cache"/*.blob; do
    case ${f##*/} in "${snapshot_file%%-*}"-*) ;; *) rm -f -- "$f" ;; esac
  done
  if cp -- "$blob" "$cache/$snapshot_file.tmp.$$" 2>/dev/null; then
    mv -f -- "$cache/$snapshot_file.tmp.$$" "$cache/$snapshot_file"
  else
    rm -f -- "$cache/$snapshot_file.tmp.$$"
  fi
  return 0
}

remove_snapshot() { rm -f -- "$1/$blob_name" "$1/$blob_id_name"; }

# install_snapshot DIR: the blob and its id beside DIR's bundle, or neither (one line says why).
# Status 1: it changed something.
install_snapshot() {
  local dir=$1 had=0
  { [ -e "$dir/$blob_name" ] || [ -e "$dir/$blob_id_name" ]; } && had=1
  if [ -n "${RECEIPT_GATE_NO_SNAPSHOT:-}" ]; then
    [ "$had" -eq 1 ] || return 0
    remove_snapshot "$dir"
    say "$dir: removed the startup snapshot (RECEIPT_GATE_NO_SNAPSHOT is set); the hook runs the plain bundle"
    return 1
  fi
  if ! snapshot_identity; then
    snapshot_problem="'$node_cmd' did not run"
  elif [ -f "$dir/$blob_name" ] && [ -f "$dir/$blob_id_name" ] && [ "$(<"$dir/$blob_id_name")" = "$snapshot_id" ] &&
    check_snapshot "$dir/$blob_name" "$dir/receipt-gate.cjs"; then
    return 0 # up to date, and it still runs
  elif prepare_snapshot; then
    # The blob first, its id last: an interrupted install leaves an id that does not match.
    if cp -- "$snapshot_ready" "$dir/$blob_name.tmp.$$" && chmod 0644 "$dir/$blob_name.tmp.$$" &&
      printf '%s\n' "$snapshot_id" > "$dir/$blob_id_name.tmp.$$" &&
      mv -f -- "$dir/$blob_name.tmp.$$" "$dir/$blob_name" &&
      mv -f -- "$dir/$blob_id_name.tmp.$$" "$dir/$blob_id_name"; then
      return 1
    fi
    rm -f -- "$dir/$blob_name.tmp.$$" "$dir/$blob_id_name.tmp.$$"
    snapshot_problem="could not write it into $dir"
  fi
  remove_snapshot "$dir"
  say "$dir: installed without the startup snapshot ($snapshot_problem); the hook runs the plain bundle"
  [ "$had" -eq 0 ]
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
  remove_snapshot "$dir"
  if [ "$(basename -- "$file")" = pre-receive ] && { [ -e "$dir/$chained_name" ] || [ -L "$dir/$chained_name" ]; }; then
    if [ -e "$file" ] || [ -L "$file" ]; then
      say "$dir/$chained_name left in place: $file exists"
    else
      mv -- "$dir/$chained_name" "$file"
      say "restored the previous hook as $file"
    fi
  fi
}

# --- The push log (docs/push-log.md) --------------------------------------------------------

# install_log REPO HOOKS_DIR: the reference-transaction shim beside the pre-receive hook (an
# existing hook of that name is kept and chained), the key in the repository's config (a path
# outside the repository), the state folder that turns the log on, and the genesis entry.
install_log() {
  local repo=$1 dir=$2 file="$2/reference-transaction"
  if [ -e "$file" ] || [ -L "$file" ]; then
    if ! { [ -f "$file" ] && [ ! -L "$file" ] && grep -q "$log_marker" "$file"; }; then
      [ -e "$dir/$log_chained_name" ] && die "$file is not receipt-gate's hook, but $dir/$log_chained_name already exists: resolve by hand and re-run"
      mv -- "$file" "$dir/$log_chained_name"
      say "kept the existing hook as $dir/$log_chained_name (it runs after receipt-gate's)"
    fi
  fi
  if ! same_file "$log_shim" "$file"; then
    cp -- "$log_shim" "$file.tmp.$$"
    chmod 0755 "$file.tmp.$$"
    mv -f -- "$file.tmp.$$" "$file"
    say "installed $file (the push log)"
  fi
  install_batch "$repo" "$dir"
  git --git-dir="$repo" config receipt-gate.logKey "$(absolute "$log_key")"
  mkdir -p -- "$repo/receipt-gate"
  local cjs
  cjs=$(absolute "$dir/receipt-gate.cjs")
  (cd "$repo" && GIT_DIR=. "$node_cmd" "$cjs" reference-transaction init) | sed 's/^/install.sh: /'
}

# install_batch REPO HOOKS_DIR: the proc-receive hook and `receive.procReceiveRefs a:refs/`,
# so that the new refs of a push are created in one ref transaction (docs/push-log.md, "Many
# refs in one push"). Left out, with a note, when the repository routes refs to a proc-receive
# hook of its own: the log then works as before, one transaction per ref.
install_batch() {
  local repo=$1 dir=$2 file="$2/proc-receive" routes
  routes=$(git --git-dir="$repo" config --get-all receive.procReceiveRefs 2>/dev/null || true)
  if { [ -e "$file" ] || [ -L "$file" ]; } && ! { [ -f "$file" ] && [ ! -L "$file" ] && grep -q "$batch_marker" "$file"; }; then
    say "note: $file is another proc-receive hook: kept; the new refs of a push are logged one transaction each (docs/push-log.md, \"Many refs in one push\")"
    return 0
  fi
  if [ -n "$routes" ] && [ "$routes" != "$batch_routes" ]; then
    say "note: $repo routes receive.procReceiveRefs ($routes) already: kept; the new refs of a push are logged one transaction each (docs/push-log.md, \"Many refs in one push\")"
    return 0
  fi
  if ! same_file "$batch_shim" "$file"; then
    cp -- "$batch_shim" "$file.tmp.$$"
    chmod 0755 "$file.tmp.$$"
    mv -f -- "$file.tmp.$$" "$file"
    say "installed $file (the new refs of a push in one transaction, for the push log)"
  fi
  [ "$routes" = "$batch_routes" ] || git --git-dir="$repo" config receive.procReceiveRefs "$batch_routes"
}

uninstall_batch() {
  local repo=$1 dir=$2 file="$2/proc-receive"
  [ -f "$file" ] && grep -q "$batch_marker" "$file" 2>/dev/null || return 0
  rm -f -- "$file"
  if [ "$(git --git-dir="$repo" config --get-all receive.procReceiveRefs 2>/dev/null || true)" = "$batch_routes" ]; then
    git --git-dir="$repo" config --unset-all receive.procReceiveRefs
  fi
  say "removed $file and receive.procReceiveRefs"
}

# check_log_key REPO...: before anything is installed (no half install), the key is a readable
# ed25519 private key outside every repository named.
check_log_key() {
  local repo
  [ -e "$log_key" ] || die "--log-key $log_key: no such file; nothing was installed (create the key with: receipt-gate keygen --log --out /etc/receipt-gate/log)"
  [ -f "$log_key" ] && [ -r "$log_key" ] || die "--log-key $log_key: cannot read the key as this user; nothing was installed (run as the account that runs git, or fix the key's owner)"
  for repo in "$@"; do
    case "$(cd "$(dirname -- "$log_key")" && pwd)/" in
      "$(cd "$repo" && pwd)/"*) die "--log-key $log_key lies inside $repo: keep the signing key outside the repository (docs/push-log.md); nothing was installed" ;;
    esac
  done
  if command -v "$node_cmd" >/dev/null 2>&1 &&
    ! "$node_cmd" -e 'const k = require("node:crypto").createPrivateKey(require("node:fs").readFileSync(process.argv[1])); if (k.asymmetricKeyType !== "ed25519") process.exit(1);' "$log_key" >/dev/null 2>&1; then
    die "--log-key $log_key is not an ed25519 private key (PEM); nothing was installed (create one with: receipt-gate keygen --log --out /etc/receipt-gate/log)"
  fi
}

uninstall_log() {
  local repo=$1 dir=$2 file="$2/reference-transaction"
  uninstall_batch "$repo" "$dir"
  [ -f "$file" ] && grep -q "$log_marker" "$file" 2>/dev/null || return 0
  rm -f -- "$file"
  say "removed $file (the push log stops; refs/receipt-gate/log and $repo/receipt-gate/ are kept)"
  if [ -e "$dir/$log_chained_name" ] || [ -L "$dir/$log_chained_name" ]; then
    mv -- "$dir/$log_chained_name" "$file"
    say "restored the previous hook as $file"
  fi
  git --git-dir="$repo" config --unset receipt-gate.logKey 2>/dev/null || true
  rm -rf -- "$repo/receipt-gate/pending"
  mv -- "$repo/receipt-gate" "$repo/receipt-gate.off.$(date +%Y%m%d%H%M%S)" 2>/dev/null || true
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
    --log-key)
      [ $# -ge 2 ] || die "--log-key needs the signing key's path"
      log_key=$2
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
  if [ -n "$log_key" ]; then
    [ ${#repos[@]} -gt 0 ] || die "--log-key needs REPO.git targets (the log lives in each repository); nothing was installed"
    check_log_key "${repos[@]}"
  fi
  for t in "${targets[@]}"; do install_hook "$t"; done
  for r in ${repos[@]+"${repos[@]}"}; do warn_missing_head "$r"; done
  if [ -n "$log_key" ]; then
    for r in "${repos[@]}"; do install_log "$r" "$(dirname -- "$(repo_hook_file "$r")")"; done
  fi
else
  for r in ${repos[@]+"${repos[@]}"}; do uninstall_log "$r" "$(dirname -- "$(repo_hook_file "$r")")"; done
  for t in "${targets[@]}"; do uninstall_hook "$t"; done
fi
