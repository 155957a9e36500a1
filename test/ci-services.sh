#!/usr/bin/env bash
# Run by `npm test` before any suite (and by .ci/run). Installs the Debian packages the server end-to-end tests need (test/server/**): a web server
# for smart HTTP (lighttpd + apache2-utils for htpasswd), gitolite3 and openssh-server for the
# self-hosted server test. Idempotent and quick when everything is present. It starts nothing:
# each test file starts and stops its own git daemon, lighttpd and sshd on free loopback ports.
# It also installs gitlab-ci-local (pinned: the last version named as running on Node 20) from
# the npm registry, and rsync, for test/cli/gitlab-ci-local.test.ts.
set -euo pipefail

need=()
command -v lighttpd >/dev/null 2>&1 || [ -x /usr/sbin/lighttpd ] || need+=(lighttpd)
[ -x /usr/sbin/sshd ] || need+=(openssh-server)
command -v ssh >/dev/null 2>&1 || need+=(openssh-client)
command -v ssh-keygen >/dev/null 2>&1 || need+=(openssh-client)
[ -x /usr/share/gitolite3/gitolite ] || command -v gitolite >/dev/null 2>&1 || need+=(gitolite3)
[ -x /usr/lib/git-core/git-http-backend ] || need+=(git)
command -v chroot >/dev/null 2>&1 || need+=(coreutils)
# Differential tests run python3 (json, random, hashlib) and openssl (ed25519 signatures).
command -v python3 >/dev/null 2>&1 || need+=(python3)
command -v openssl >/dev/null 2>&1 || need+=(openssl)
# Hook managers and an independent DSSE verifier for the adoption tests (test/client/managers*,
# test/receipt/securesystemslib*): Debian's pre-commit framework and python3-securesystemslib.
command -v pre-commit >/dev/null 2>&1 || need+=(pre-commit)
/usr/bin/python3 -c 'import securesystemslib' >/dev/null 2>&1 || need+=(python3-securesystemslib)
# The Python example (examples/python) runs its properties under Debian's pytest.
/usr/bin/python3 -c 'import pytest' >/dev/null 2>&1 || need+=(python3-pytest)
# gitlab-ci-local copies files with rsync.
command -v rsync >/dev/null 2>&1 || need+=(rsync)
command -v bwrap >/dev/null 2>&1 || need+=(bubblewrap)  # the grader's sandbox (test/attacks/grader-isolation.test.ts)
# Go and gotestsum for the JUnit id round-trip on real Go output (test/receipt/junit-real-runners.test.ts).
command -v go >/dev/null 2>&1 || need+=(golang-go)
command -v gotestsum >/dev/null 2>&1 || need+=(gotestsum)
# Maven with Debian's Surefire, compiler and resources plugins and JUnit 4, run offline from
# /usr/share/maven-repo by the same test for Java.
command -v mvn >/dev/null 2>&1 || need+=(maven)
command -v javac >/dev/null 2>&1 || need+=(default-jdk-headless)
[ -d /usr/share/maven-repo/org/apache/maven/plugins/maven-surefire-plugin/2.22.3 ] || need+=(libsurefire-java)
[ -d /usr/share/maven-repo/org/apache/maven/plugins/maven-compiler-plugin/3.10.1 ] || need+=(libmaven-compiler-plugin-java)
[ -d /usr/share/maven-repo/org/apache/maven/plugins/maven-resources-plugin/3.3.0 ] || need+=(libmaven-resources-plugin-java)
[ -f /usr/share/java/junit4.jar ] || need+=(junit4)

if [ "${#need[@]}" -gt 0 ]; then
  if [ "$(id -u)" -ne 0 ]; then
    echo "test/ci-services.sh: the test suites need packages this machine lacks (${need[*]}); nothing was run. Install them as root with: sudo test/ci-services.sh  (then run npm test again)" >&2
    exit 2
  fi
  export DEBIAN_FRONTEND=noninteractive
  # gitolite3's postinst asks for an admin key; an empty answer skips its own setup (the tests
  # run 'gitolite setup' themselves in a temp home).
  echo "gitolite3 gitolite3/adminkey string" | debconf-set-selections 2>/dev/null || true
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
  # Debian starts the services it installs where it can; the tests start their own.
  if command -v service >/dev/null 2>&1; then
    service lighttpd stop >/dev/null 2>&1 || true
    service ssh stop >/dev/null 2>&1 || true
  fi
fi
GITLAB_CI_LOCAL=4.70.0
if [ "$(gitlab-ci-local --version 2>/dev/null || true)" != "$GITLAB_CI_LOCAL" ]; then
  if [ "$(id -u)" -ne 0 ]; then
    echo "test/ci-services.sh: the CI template tests need gitlab-ci-local $GITLAB_CI_LOCAL; nothing was run. Install it as root with: sudo test/ci-services.sh  (then run npm test again)" >&2
    exit 2
  fi
  npm install -g --no-audit --no-fund --loglevel=error "gitlab-ci-local@$GITLAB_CI_LOCAL" >/dev/null
fi
# Jest (with jest-junit) and Vitest for the JUnit id round-trip on real output
# (test/receipt/junit-real-runners.test.ts), pinned, in a cache directory outside the repository.
JS_RUNNERS=/var/cache/receipt-gate-test/js-runners
JEST=29.7.0 JEST_JUNIT=16.0.0 VITEST=2.1.9
js_runner_version() { node -p "require('$JS_RUNNERS/node_modules/$1/package.json').version" 2>/dev/null || true; }
if [ "$(js_runner_version jest)" != "$JEST" ] || [ "$(js_runner_version jest-junit)" != "$JEST_JUNIT" ] || [ "$(js_runner_version vitest)" != "$VITEST" ]; then
  if ! mkdir -p "$JS_RUNNERS" 2>/dev/null || [ ! -w "$JS_RUNNERS" ]; then
    echo "test/ci-services.sh: the JUnit id tests need jest $JEST, jest-junit $JEST_JUNIT and vitest $VITEST in $JS_RUNNERS, which is not writable; nothing was run. Install them as root with: sudo test/ci-services.sh  (then run npm test again)" >&2
    exit 2
  fi
  (cd "$JS_RUNNERS" && npm install --prefix "$JS_RUNNERS" --no-audit --no-fund --loglevel=error "jest@$JEST" "jest-junit@$JEST_JUNIT" "vitest@$VITEST" >/dev/null)
fi
echo "test/ci-services.sh: lighttpd, sshd, gitolite3, git-http-backend, python3, openssl, pre-commit, securesystemslib, rsync, gitlab-ci-local $GITLAB_CI_LOCAL present"
echo "test/ci-services.sh: go, gotestsum, maven with surefire 2.22.3 and junit4, jest $JEST, jest-junit $JEST_JUNIT, vitest $VITEST (in $JS_RUNNERS) present"
