#!/usr/bin/env bash
# Builds a GitHub Enterprise Server pre-receive hook environment (docs/server.md):
#
#   ./install.sh --ghes-env OUT.tar.gz
#
# GHES runs pre-receive hooks in a chroot made from an uploaded tarball, with no Node.js by
# default. This one is a minimal root: this machine's `node` and the shared libraries it links
# against (from ldd), /bin/sh and the few tools the hook shim uses, and the hook itself:
#   /usr/local/share/receipt-gate/pre-receive      the shim (server-hooks/pre-receive)
#   /usr/local/share/receipt-gate/receipt-gate.cjs the self-contained bundle (dist/cli.js)
# The hook script to store in the hooks repository is printed at the end (and kept in the
# tarball as /usr/local/share/receipt-gate/ghes-hook.sh).
#   RECEIPT_GATE_NODE   the node binary to pack (default: `node` on PATH; Linux x86-64 like GHES)
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
die() { echo "install.sh --ghes-env: $*" >&2; exit 2; }

[ $# -eq 1 ] || die "usage: ./install.sh --ghes-env OUT.tar.gz"
case "$1" in /*) out=$1 ;; *) out="$PWD/$1" ;; esac
bundle=${RECEIPT_GATE_BUNDLE_SOURCE:-$here/dist/cli.js}
shim="$here/server-hooks/pre-receive"
node=${RECEIPT_GATE_NODE:-$(command -v node || true)}
[ -n "$node" ] && [ -x "$node" ] || die "no node binary to pack (install Node.js 20+ or set RECEIPT_GATE_NODE)"
[ -f "$bundle" ] || die "$bundle is missing: run ./install.sh first"
command -v ldd >/dev/null || die "ldd is needed to find the libraries node links against"

stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
root="$stage/root"
mkdir -p "$root"/{bin,dev,tmp,etc,usr/local/bin,usr/local/share/receipt-gate}
chmod 1777 "$root/tmp"

# copy_binary SRC DEST: the binary and every library ldd names, at the same paths.
copy_binary() {
  local src dest lib
  src=$(readlink -f "$1")
  dest="$root$2"
  install -D -m 0755 "$src" "$dest"
  for lib in $(ldd "$src" | grep -o '/[^ )]*' || true); do
    [ -e "$root$lib" ] && continue
    install -D -m 0755 "$(readlink -f "$lib")" "$root$lib"
  done
}

copy_binary "$node" /usr/local/bin/node
for tool in sh cat readlink dirname basename tail timeout mktemp rm; do
  path=$(command -v "$tool") || die "$tool not found on this machine"
  copy_binary "$path" "/bin/$tool"
done

install -m 0755 "$shim" "$root/usr/local/share/receipt-gate/pre-receive"
install -m 0644 "$bundle" "$root/usr/local/share/receipt-gate/receipt-gate.cjs"
cat > "$root/usr/local/share/receipt-gate/ghes-hook.sh" <<'HOOK'
#!/bin/sh
# receipt-gate on GitHub Enterprise Server: store this file in your hooks repository and
# select it as the pre-receive hook script, with the receipt-gate environment.
PATH=/usr/local/bin:/bin
export PATH
exec /usr/local/share/receipt-gate/pre-receive "$@"
HOOK
chmod 0755 "$root/usr/local/share/receipt-gate/ghes-hook.sh"
printf 'receipt-gate pre-receive environment\nnode %s\n' "$("$node" --version)" > "$root/etc/receipt-gate-env"

# gzip -1: node is most of the bytes and barely compresses better at higher levels.
tar -C "$root" --owner=0 --group=0 --numeric-owner -cf - . | gzip -1 > "$out"
echo "install.sh: wrote $out ($(du -h "$out" | cut -f1)): node $("$node" --version), the hook bundle and its shim"
echo "install.sh: upload it as a pre-receive hook environment (Site admin > Hooks), then use this hook script:"
sed 's/^/  /' "$root/usr/local/share/receipt-gate/ghes-hook.sh"
