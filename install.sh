#!/usr/bin/env bash
# receipt-gate installer.
#   ./install.sh                         install dependencies and build dist/ (a fresh clone needs only this)
#   ./install.sh --server REPO.git…      install the pre-receive hook into bare repositories (docs/server.md)
#   ./install.sh --uninstall REPO.git…   remove it, restoring any pre-receive that was there before
#   ./install.sh --ghes-env OUT.tar.gz   build a GitHub Enterprise Server pre-receive environment
set -euo pipefail
cd "$(dirname "$0")"

need_node() {
  command -v node >/dev/null 2>&1 || { echo "install.sh: Node.js 20 or newer is required (node not found)" >&2; exit 2; }
  local major
  major=$(node -p 'process.versions.node.split(".")[0]')
  [ "$major" -ge 20 ] || { echo "install.sh: Node.js 20 or newer is required (found $(node --version))" >&2; exit 2; }
}

build() {
  need_node
  if [ -f package-lock.json ]; then npm ci --no-audit --no-fund --loglevel=error; else npm install --no-audit --no-fund --loglevel=error; fi
  npm run --silent build
}

case "${1:-}" in
  "")
    build
    echo "receipt-gate built: node dist/cli.js --help"
    ;;
  *)
    if [ -x scripts/install-server.sh ]; then
      [ -f dist/cli.js ] || build
      exec scripts/install-server.sh "$@"
    fi
    echo "install.sh: unknown option '$1' (usage: ./install.sh [--server REPO.git ... | --uninstall REPO.git ... | --ghes-env OUT.tar.gz])" >&2
    exit 2
    ;;
esac
