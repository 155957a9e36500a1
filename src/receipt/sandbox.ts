// The grader's sandbox (docs/receipts.md § Isolation). The property and fixture commands run the
// patch's code; with bubblewrap (bwrap) they run in their own mount, process, network, IPC and
// UTS namespaces, with no capabilities, where the only writable place is the tree the grader
// wrote from git objects. The system folders (/usr, /etc, /opt and the /bin, /lib links) and
// node's own install are read-only; /tmp is empty and private; everything else — the signing
// key's file, the repository (its refs, notes and objects), the receipt being written, the
// user's home — is simply not there. Paths that must stay hidden but lie inside a folder that is
// mounted are covered (an empty file or folder over them). The network is off unless the base's
// policy allows it (grader.network).

import { spawnSync } from 'node:child_process';
import { accessSync, constants, existsSync, lstatSync, mkdirSync, readlinkSync, realpathSync, statSync, writeFileSync } from 'node:fs';
import { delimiter, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';

export type IsolationKind = 'bwrap' | 'none';

/** How the grader's commands run: in a bwrap sandbox, or as plain processes. */
export type Isolation =
  | { kind: 'bwrap'; bwrap: string; network: boolean; hidden: string[]; readOnly: string[] }
  | { kind: 'none'; why: string };

/** System folders mounted read-only (a symlink, as /bin -> usr/bin on merged-/usr systems, is
 * recreated as the same symlink). */
const SYSTEM = ['/usr', '/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32', '/etc', '/opt'];

/** The bwrap program: RECEIPT_GATE_BWRAP when set (a path; one that is not an executable file
 * means no sandbox), else `bwrap` on PATH. Null when there is none. */
export function findBwrap(env: NodeJS.ProcessEnv): string | null {
  const given = env.RECEIPT_GATE_BWRAP;
  if (given !== undefined && given !== '') return isExecutable(given) ? given : null;
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    if (dir === '' || !isAbsolute(dir)) continue;
    const candidate = join(dir, 'bwrap');
    if (isExecutable(candidate)) return candidate;
  }
  return null;
}

function isExecutable(path: string): boolean {
  try {
    if (!statSync(path).isFile()) return false;
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** Why bwrap cannot run a sandbox here (e.g. user namespaces disabled), or null when it can.
 * `probe` is an empty folder: with the flags every grader command gets, a command in
 * `probe/ws` must find its workspace and must not see `probe/outside`, a file left next to it
 * (so a program that only exits 0 is not taken for a sandbox). */
export function bwrapProblem(bwrap: string, probe: string): string | null {
  const ws = join(probe, 'ws');
  const outside = join(probe, 'outside');
  mkdirSync(ws);
  writeFileSync(outside, '');
  const argv = bwrapArgv({ kind: 'bwrap', bwrap, network: false, hidden: [], readOnly: [] }, ws, ws);
  const check = '[ -d "$WS" ] && [ ! -e "$OUTSIDE" ] && [ "$(pwd -P)" = "$WS_REAL" ] && echo receipt-gate-sandboxed';
  const env = { PATH: '/usr/bin:/bin', WS: ws, OUTSIDE: outside, WS_REAL: real(ws) ?? ws };
  const run = spawnSync(bwrap, [...argv, '--', '/bin/sh', '-c', check], { encoding: 'utf8', env, timeout: 20_000, stdio: ['ignore', 'pipe', 'pipe'] });
  if (run.error) return `${bwrap} could not start (${run.error.message})`;
  if (run.status === 0 && run.stdout.trim() === 'receipt-gate-sandboxed') return null;
  const said = (run.stderr ?? '').trim().split('\n')[0] ?? '';
  return `${bwrap} did not run a sandbox here (exit ${run.status ?? run.signal}${said ? `: ${said}` : ', no sign of a sandbox'})`;
}

/** bwrap's arguments (before `--` and the command) for a command run in `cwd`, inside the
 * writable `workspace`. */
export function bwrapArgv(iso: Extract<Isolation, { kind: 'bwrap' }>, workspace: string, cwd: string): string[] {
  const args = ['--unshare-all', '--die-with-parent', '--new-session', '--cap-drop', 'ALL'];
  if (iso.network) args.push('--share-net');
  // An empty, private /tmp first: read-only folders below it are mounted over it.
  args.push('--proc', '/proc', '--dev', '/dev', '--tmpfs', '/tmp');
  const mounted: string[] = [];
  for (const path of SYSTEM) {
    let st;
    try {
      st = lstatSync(path);
    } catch {
      continue;
    }
    if (st.isSymbolicLink()) args.push('--symlink', readlinkSync(path), path);
    else if (st.isDirectory()) {
      args.push('--ro-bind', path, path);
      mounted.push(path);
    }
  }
  if (iso.network) args.push('--ro-bind-try', '/run/systemd/resolve', '/run/systemd/resolve');
  for (const path of readOnlyExtras(iso.readOnly)) {
    if (mounted.some((m) => isInside(path, m))) continue;
    args.push('--ro-bind', path, path);
    mounted.push(path);
  }
  // What must stay out of reach but lies inside a mounted folder is covered.
  for (const path of iso.hidden.map(real)) {
    if (path === null || !mounted.some((m) => isInside(path, m))) continue;
    if (statSync(path).isDirectory()) args.push('--tmpfs', path);
    else args.push('--ro-bind', '/dev/null', path);
  }
  const ws = real(workspace) ?? workspace;
  args.push('--bind', ws, ws, '--chdir', real(cwd) ?? cwd);
  return args;
}

/** Node's own install (the folder above its bin/) and the given folders, as real paths that
 * exist, outermost first and without repeats. */
function readOnlyExtras(given: string[]): string[] {
  const nodePrefix = dirname(dirname(process.execPath));
  const out: string[] = [];
  for (const path of [nodePrefix, ...given]) {
    if (!isAbsolute(path)) continue;
    const r = real(path);
    if (r === null || r === sep || out.includes(r)) continue;
    out.push(r);
  }
  return out.sort((a, b) => a.length - b.length);
}

function real(path: string): string | null {
  try {
    return realpathSync(resolve(path));
  } catch {
    return existsSync(path) ? resolve(path) : null;
  }
}

/** Whether `path` is `dir` or lies inside it. */
function isInside(path: string, dir: string): boolean {
  const rel = relative(dir, path);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
}

/** The folders named by a colon-separated list (NODE_PATH, RECEIPT_GATE_SANDBOX_READONLY). */
export function pathList(text: string | undefined): string[] {
  return (text ?? '').split(delimiter).filter((p) => p !== '' && isAbsolute(p));
}
