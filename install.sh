#!/usr/bin/env bash
# receipt-gate installer.
#   ./install.sh                         install dependencies and build dist/ (a fresh clone needs only this)
#   ./install.sh --server REPO.git…      install the pre-receive hook into bare repositories (docs/server.md)
#   ./install.sh --server --log-key KEY REPO.git…   also the signed push log (docs/push-log.md); KEY from
#                                        `receipt-gate keygen --log`, outside every repository, checked first
#   ./install.sh --uninstall REPO.git…   remove it, restoring any pre-receive that was there before
#   ./install.sh --ghes-env OUT.tar.gz   build a GitHub Enterprise Server pre-receive environment
#   ./install.sh --help                  this text
# Paths are taken from the directory you run it in (relative paths work from anywhere).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)

usage() { sed -n '2,10p' "$here/install.sh" | sed 's/^# \{0,1\}//'; }

need_node() {
  command -v node >/dev/null 2>&1 || { echo "install.sh: Node.js 20 or newer is required (node not found)" >&2; exit 2; }
  local major
  major=$(node -p 'process.versions.node.split(".")[0]')
  [ "$major" -ge 20 ] || { echo "install.sh: Node.js 20 or newer is required (found $(node --version))" >&2; exit 2; }
}

# Builds in the checkout, whatever directory the installer was started from.
build() {
  need_node
  (
    cd "$here"
    if [ -f package-lock.json ]; then npm ci --no-audit --no-fund --loglevel=error; else npm install --no-audit --no-fund --loglevel=error; fi
    npm run --silent build
  )
}

case "${1:-}" in
  "")
    build
    echo "receipt-gate built: node $here/dist/cli.js --help"
    ;;
  -h | --help)
    usage
    ;;
  --server | --uninstall | --ghes-env)
    [ "$1" = --uninstall ] || [ -f "$here/dist/cli.js" ] || build
    exec "$here/scripts/install-server.sh" "$@"
    ;;
  *)
    echo "install.sh: unknown option '$1' (usage: ./install.sh [--server [--log-key KEY] REPO.git ... | --uninstall REPO.git ... | --ghes-env OUT.tar.gz | --help])" >&2
    exit 2
    ;;
esac
