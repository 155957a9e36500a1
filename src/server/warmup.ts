// The startup snapshot's warm-up (docs/server.md § The startup snapshot). `node
// --build-snapshot` keeps the bytecode of every function that ran while the snapshot was built;
// a function that never ran is compiled from source on its first call in every push. So the
// snapshot builder judges pushes into throwaway repositories first: an honest one (`eligible`)
// and one that edits a fixture (`closed`, PATH_PROTECTED) into a repository with a version 1
// policy, and an honest one into a monorepo whose version 2 policy declares three bounded
// contexts (docs/contexts.md), so that the contexts' paths are compiled too: the policy's
// contexts, the touched context judged in full, the untouched ones on their freezes alone. The
// repositories are built here, byte by byte, without git (a snapshot builder should not start
// processes): the history in a pack with a delta entry and its index, the pushed objects loose
// in a quarantine directory, as git's receive-pack leaves them. Then they are removed.
//
// Nothing of the warm-up reaches a real push: each run opens its own store, the caches that
// outlive a run are keyed by content (a policy by its blob oid, a glob by its text), and the
// clock, the environment and the directory are the warm-up's own. test/server/warmup.test.ts
// checks the repositories with `git fsck` and the three verdicts, so a warm-up that silently
// exercises only an error path fails a test.

import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { deflateSync } from 'node:zlib';
import { bufferedIO, type CliIO } from '../io';
import { writeLoose } from '../pushlog/append';

type ObjectType = 'blob' | 'tree' | 'commit';

interface GitObject {
  type: ObjectType;
  content: Buffer;
  oid: string;
}

/** The day the warm-up pushes are judged on (the freeze below is live on it). */
const WARMUP_TODAY = '2026-01-15';

function object(type: ObjectType, content: Buffer): GitObject {
  const oid = createHash('sha1').update(`${type} ${content.length}\0`, 'latin1').update(content).digest('hex');
  return { type, content, oid };
}

const json = (value: unknown) => Buffer.from(`${JSON.stringify(value, null, 2)}\n`, 'utf8');
const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

/** The files of the warm-up repository's base: the README's example policy and evidence that
 * holds under it (pin, sampled manifest, a live freeze, an observation with its witness). */
function baseFiles(): Map<string, Buffer> {
  const files = new Map<string, Buffer>();
  const generator = Buffer.from('import json, random\nrng = random.Random(20260115)\nprint(json.dumps([rng.randint(1, 99) for _ in range(10)]))\n');
  const witness = Buffer.from('orders property run, seed 20260115: 100/100 passed\n');
  files.set(
    '.receipt-gate.json',
    json({
      version: 1,
      baseBranch: 'main',
      protectedRefs: ['refs/heads/main', 'refs/heads/release/**'],
      protected: ['fixtures/**', 'freeze.json', 'freezes/**', 'observations/**', 'checks/**', '.github/workflows/**', '.gitattributes', '**/.gitattributes', '.gitmodules'],
      exceptions: ['fixtures/**/*.md'],
      owners: ['alice', 'release-bot'],
      identityEnv: ['GITHUB_USER_LOGIN', 'GL_USERNAME', 'GITEA_PUSHER_NAME', 'GL_USER', 'REMOTE_USER'],
      epoch: { pin: 'fixtures/EPOCH' },
      manifest: { path: 'checks/manifest.json', catalog: 'checks/properties.json' },
      freeze: { path: 'freeze.json', reasons: ['timing', 'network', 'order', 'infra'], maxDays: 14 },
      observations: { dir: 'observations', freezes: 'freezes' },
      fixtures: { records: 'fixtures/*.json' },
      limits: { timeoutMs: 4000, maxEvidenceBytes: 1048576 },
    }),
  );
  files.set('fixtures/generate_orders.py', generator);
  files.set('fixtures/orders/base.json', json({ orders: [{ id: 1, total: 1200 }] }));
  files.set('fixtures/README.md', Buffer.from('# fixtures\n'));
  files.set('fixtures/EPOCH', json({ epoch_id: 'orders-2026-01-a', generator: 'fixtures/generate_orders.py', generator_sha256: sha256(generator), inputs: ['fixtures/orders/base.json'] }));
  files.set('fixtures/orders_v1.json', json({ id: 'orders_v1', input: { rows: 10 }, sha256: sha256(Buffer.from('orders_v1')) }));
  const catalog = Array.from({ length: 6 }, (_, i) => ({ name: `prop_${String(i).padStart(2, '0')}`, bound: `n <= ${100 + i}` }));
  files.set('checks/properties.json', json({ properties: catalog, k: 2 }));
  // CPython's random.Random(20260115).sample(catalog, 2), and its canonical digest.
  files.set(
    'checks/manifest.json',
    json({ seed: 20260115, properties: [catalog[1], catalog[2]], manifest_sha256: 'b99607c38246125a6d628d2496e2465efe67fbde37f006d0df959477ae2a4687' }),
  );
  files.set(
    'freeze.json',
    json({ version: 1, frozen: [{ id: 'tests/test_orders.py::test_retry_window', reason: 'timing', expires: '2026-01-20', owner: 'human', added: '2026-01-10' }] }),
  );
  files.set('observations/obs-orders-0001.bin', witness);
  files.set('observations/obs-orders-0001.json', json({ id: 'obs-orders-0001', epoch_id: 'orders-2026-01-a', status: 'pass', rerun_passed: true, witness_sha256: sha256(witness) }));
  files.set('src/orders.py', Buffer.from('def total(orders):\n    return sum(o["total"] for o in orders)\n'));
  files.set('src/tax.py', Buffer.from('RATE = 0.2\n'));
  files.set('README.md', Buffer.from('# orders\n'));
  return files;
}

/** Git's tree order: names as bytes, a tree's name as if it ended in '/'. */
function treeOrder(a: { name: string; tree: boolean }, b: { name: string; tree: boolean }): number {
  return Buffer.compare(Buffer.from(a.tree ? `${a.name}/` : a.name), Buffer.from(b.tree ? `${b.name}/` : b.name));
}

/** The trees of `files` (paths to bytes), every object into `out` and each tree by its folder
 * ('' for the root) into `folders`; the root tree's object. */
function treeOf(files: Map<string, Buffer>, out: Map<string, GitObject>, folders = new Map<string, GitObject>(), folder = ''): GitObject {
  const here = new Map<string, Buffer>();
  const below = new Map<string, Map<string, Buffer>>();
  for (const [path, bytes] of files) {
    const slash = path.indexOf('/');
    if (slash < 0) {
      here.set(path, bytes);
    } else {
      const dir = path.slice(0, slash);
      if (!below.has(dir)) below.set(dir, new Map());
      below.get(dir)!.set(path.slice(slash + 1), bytes);
    }
  }
  const entries: { name: string; tree: boolean; oid: string }[] = [];
  for (const [name, bytes] of here) {
    const blob = object('blob', bytes);
    out.set(blob.oid, blob);
    entries.push({ name, tree: false, oid: blob.oid });
  }
  for (const [name, sub] of below) entries.push({ name, tree: true, oid: treeOf(sub, out, folders, `${folder}${name}/`).oid });
  entries.sort(treeOrder);
  const tree = object('tree', Buffer.concat(entries.map((e) => Buffer.concat([Buffer.from(`${e.tree ? '40000' : '100644'} ${e.name}\0`), Buffer.from(e.oid, 'hex')]))));
  out.set(tree.oid, tree);
  folders.set(folder, tree);
  return tree;
}

function commitOf(tree: string, parents: string[], when: number, message: string): GitObject {
  const who = `Warm Up <warmup@receipt-gate.invalid> ${when} +0000`;
  const lines = [`tree ${tree}`, ...parents.map((p) => `parent ${p}`), `author ${who}`, `committer ${who}`, '', message, ''];
  return object('commit', Buffer.from(lines.join('\n')));
}

const PACK_TYPES: Record<ObjectType, number> = { commit: 1, tree: 2, blob: 3 };
const OFS_DELTA = 6;

function packEntryHeader(type: number, size: number): Buffer {
  const bytes = [(type << 4) | (size & 0x0f)];
  let rest = Math.floor(size / 16);
  while (rest > 0) {
    bytes[bytes.length - 1]! |= 0x80;
    bytes.push(rest & 0x7f);
    rest = Math.floor(rest / 128);
  }
  return Buffer.from(bytes);
}

function deltaVarint(n: number): number[] {
  const bytes = [n & 0x7f];
  let rest = Math.floor(n / 128);
  while (rest > 0) {
    bytes[bytes.length - 1]! |= 0x80;
    bytes.push(rest & 0x7f);
    rest = Math.floor(rest / 128);
  }
  return bytes;
}

/** A git delta from `base` to `target`: the common prefix copied, the middle inserted, the
 * common suffix copied (enough for a tree in which one entry changed). */
function deltaOf(base: Buffer, target: Buffer): Buffer {
  let prefix = 0;
  while (prefix < base.length && prefix < target.length && prefix < 0xffff && base[prefix] === target[prefix]) prefix++;
  let suffix = 0;
  while (suffix < 0xffff && suffix < base.length - prefix && suffix < target.length - prefix && base[base.length - 1 - suffix] === target[target.length - 1 - suffix]) suffix++;
  const out = [...deltaVarint(base.length), ...deltaVarint(target.length)];
  const copy = (offset: number, size: number) => {
    if (size === 0) return;
    // offset in up to 4 bytes, size in up to 2 (each under 64 KiB here)
    const op = 0x80 | 0x01 | 0x02 | 0x04 | 0x08 | 0x10 | 0x20;
    out.push(op, offset & 0xff, (offset >>> 8) & 0xff, (offset >>> 16) & 0xff, (offset >>> 24) & 0xff, size & 0xff, (size >>> 8) & 0xff);
  };
  copy(0, prefix);
  for (let at = prefix; at < target.length - suffix; at += 0x7f) {
    const chunk = target.subarray(at, Math.min(at + 0x7f, target.length - suffix));
    out.push(chunk.length, ...chunk);
  }
  copy(base.length - suffix, suffix);
  return Buffer.from(out);
}

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function crc32(bytes: Buffer): number {
  let c = 0xffffffff;
  for (const b of bytes) c = CRC_TABLE[(c ^ b) & 0xff]! ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

/** Writes `objects` as one pack and its version-2 index into `packDir`; each `deltas` entry
 * (target oid to base oid, the base earlier in the list) is stored as an OFS_DELTA. */
function writePack(packDir: string, objects: GitObject[], deltas: Map<string, string>): void {
  const parts: Buffer[] = [];
  const header = Buffer.alloc(12);
  header.write('PACK', 0, 'latin1');
  header.writeUInt32BE(2, 4);
  header.writeUInt32BE(objects.length, 8);
  parts.push(header);
  let offset = 12;
  const at = new Map<string, number>();
  const rows: { oid: string; offset: number; crc: number }[] = [];
  const byOid = new Map(objects.map((o) => [o.oid, o]));
  for (const obj of objects) {
    const baseOid = deltas.get(obj.oid);
    let entry: Buffer;
    if (baseOid !== undefined && at.has(baseOid)) {
      const delta = deltaOf(byOid.get(baseOid)!.content, obj.content);
      let distance = offset - at.get(baseOid)!;
      const back = [distance & 0x7f];
      while ((distance = Math.floor(distance / 128)) > 0) back.unshift(0x80 | (--distance & 0x7f));
      entry = Buffer.concat([packEntryHeader(OFS_DELTA, delta.length), Buffer.from(back), deflateSync(delta)]);
    } else {
      entry = Buffer.concat([packEntryHeader(PACK_TYPES[obj.type], obj.content.length), deflateSync(obj.content)]);
    }
    at.set(obj.oid, offset);
    rows.push({ oid: obj.oid, offset, crc: crc32(entry) });
    parts.push(entry);
    offset += entry.length;
  }
  const body = Buffer.concat(parts);
  const packSum = createHash('sha1').update(body).digest();
  rows.sort((a, b) => (a.oid < b.oid ? -1 : 1));
  const fanout = Buffer.alloc(256 * 4);
  for (let first = 0, k = 0; first < 256; first++) {
    while (k < rows.length && parseInt(rows[k]!.oid.slice(0, 2), 16) <= first) k++;
    fanout.writeUInt32BE(k, first * 4);
  }
  const u32 = (n: number) => {
    const b = Buffer.alloc(4);
    b.writeUInt32BE(n >>> 0);
    return b;
  };
  const idxBody = Buffer.concat([
    Buffer.from([0xff, 0x74, 0x4f, 0x63, 0, 0, 0, 2]),
    fanout,
    ...rows.map((r) => Buffer.from(r.oid, 'hex')),
    ...rows.map((r) => u32(r.crc)),
    ...rows.map((r) => u32(r.offset)),
    packSum,
  ]);
  const name = `pack-${packSum.toString('hex')}`;
  writeFileSync(join(packDir, `${name}.pack`), Buffer.concat([body, packSum]));
  writeFileSync(join(packDir, `${name}.idx`), Buffer.concat([idxBody, createHash('sha1').update(idxBody).digest()]));
}

export interface WarmupPush {
  /** The bare repository (removed by `remove`). */
  gitdir: string;
  /** The environment git gives a pre-receive hook: the quarantine, no pusher identity. */
  env: NodeJS.ProcessEnv;
  today: string;
  /** One pre-receive line each: the honest update, then the one that edits a fixture. */
  honest: string;
  cheat: string;
  remove(): void;
}

/** One pushed commit on top of `main`: the ref it updates, and the files it changes. */
interface PushedCommit {
  ref: string;
  message: string;
  edits: Map<string, Buffer>;
}

/** A bare repository built without git, and the pre-receive line of each pushed commit. */
interface BuiltRepository {
  gitdir: string;
  env: NodeJS.ProcessEnv;
  lines: string[];
  remove: () => void;
}

/** Builds a warm-up repository: `main` with two commits, the first holding `files`, the second
 * changing the one file `second` names (packed,
 * its changed trees stored as deltas), and in the quarantine one pushed commit on top of `main`
 * for each of `pushes`. */
function buildRepository(prefix: string, files: Map<string, Buffer>, firstMessage: string, second: [string, Buffer], pushes: PushedCommit[]): BuiltRepository {
  const gitdir = mkdtempSync(join(tmpdir(), prefix));
  try {
    const objectsDir = join(gitdir, 'objects');
    mkdirSync(join(objectsDir, 'pack'), { recursive: true });
    mkdirSync(join(objectsDir, 'info'), { recursive: true });
    mkdirSync(join(gitdir, 'refs', 'heads'), { recursive: true });
    mkdirSync(join(gitdir, 'refs', 'tags'), { recursive: true });
    writeFileSync(join(gitdir, 'HEAD'), 'ref: refs/heads/main\n');
    writeFileSync(join(gitdir, 'config'), '[core]\n\trepositoryformatversion = 0\n\tfilemode = true\n\tbare = true\n');

    files = new Map(files);
    const history = new Map<string, GitObject>();
    const firstFolders = new Map<string, GitObject>();
    const first = commitOf(treeOf(files, history, firstFolders).oid, [], 1767225600, firstMessage);
    history.set(first.oid, first);
    files.set(...second);
    const secondObjects = new Map<string, GitObject>();
    const secondFolders = new Map<string, GitObject>();
    const tip = commitOf(treeOf(files, secondObjects, secondFolders).oid, [first.oid], 1767312000, 'tax rate');
    secondObjects.set(tip.oid, tip);
    // Each changed tree of the second commit as a delta against the first commit's tree of the
    // same folder, as git's pack-objects would store it.
    const deltas = new Map<string, string>();
    for (const [folder, tree] of secondFolders) {
      const base = firstFolders.get(folder);
      if (base && base.oid !== tree.oid) deltas.set(tree.oid, base.oid);
    }
    for (const [oid, obj] of secondObjects) if (!history.has(oid)) history.set(oid, obj);
    writePack(join(objectsDir, 'pack'), [...history.values()], deltas);
    writeFileSync(join(gitdir, 'refs', 'heads', 'main'), `${tip.oid}\n`);

    // The pushes, loose in the quarantine as receive-pack leaves a small push.
    const quarantine = join(objectsDir, 'incoming-warmup');
    mkdirSync(quarantine);
    const pushed = new Map<string, GitObject>();
    const lines: string[] = [];
    for (const p of pushes) {
      const commit = commitOf(treeOf(new Map([...files, ...p.edits]), pushed).oid, [tip.oid], 1767398400, p.message);
      pushed.set(commit.oid, commit);
      lines.push(`${tip.oid} ${commit.oid} ${p.ref}\n`);
    }
    for (const [oid, obj] of pushed) if (!history.has(oid)) writeLoose(quarantine, obj.type, obj.content);

    return {
      gitdir,
      env: { GIT_DIR: '.', GIT_QUARANTINE_PATH: quarantine, GIT_OBJECT_DIRECTORY: quarantine, GIT_ALTERNATE_OBJECT_DIRECTORIES: objectsDir },
      lines,
      remove: () => rmSync(gitdir, { recursive: true, force: true }),
    };
  } catch (err) {
    rmSync(gitdir, { recursive: true, force: true });
    throw err;
  }
}

/** Builds the warm-up repository: `main` with two commits (packed, the second's trees stored as
 * deltas), and in the quarantine two pushed commits on top of it. */
export function warmupRepository(): WarmupPush {
  const built = buildRepository('receipt-gate-warmup-', baseFiles(), 'orders service with its evidence', ['src/tax.py', Buffer.from('RATE = 0.21\n')], [
    {
      ref: 'refs/heads/agent/honest',
      message: 'tolerate orders without a total',
      edits: new Map([['src/orders.py', Buffer.from('def total(orders):\n    return sum(o.get("total", 0) for o in orders)\n')]]),
    },
    { ref: 'refs/heads/main', message: 'make the failing test pass', edits: new Map([['fixtures/orders/base.json', json({ orders: [{ id: 1, total: 0 }] })]]) },
  ]);
  return { gitdir: built.gitdir, env: built.env, today: WARMUP_TODAY, honest: built.lines[0]!, cheat: built.lines[1]!, remove: built.remove };
}

/** The contexts of the warm-up monorepo; the first one is the one its push touches. */
export const WARMUP_CONTEXTS = ['billing', 'inventory', 'shipping'] as const;

/** The warm-up monorepo's base: a version 2 policy declaring three bounded contexts under
 * services/, each with the evidence set of baseFiles() under its root (the pin naming its
 * generator and inputs by repository path). The untouched contexts' freeze files are one blob
 * with a live and an expired row; the touched context's has the live row only. */
function monorepoFiles(): Map<string, Buffer> {
  const files = new Map<string, Buffer>();
  const sections = {
    epoch: { pin: 'fixtures/EPOCH' },
    manifest: { path: 'checks/manifest.json', catalog: 'checks/properties.json' },
    freeze: { path: 'freeze.json' },
    observations: { dir: 'observations', freezes: 'freezes' },
    fixtures: { records: 'fixtures/*.json' },
  };
  files.set(
    '.receipt-gate.json',
    json({
      version: 2,
      baseBranch: 'main',
      protectedRefs: ['refs/heads/main', 'refs/heads/release/**'],
      protected: ['.github/workflows/**', '.gitattributes', '**/.gitattributes', '.gitmodules'],
      owners: ['platform-bot'],
      identityEnv: ['GITHUB_USER_LOGIN', 'GL_USERNAME', 'GITEA_PUSHER_NAME', 'GL_USER', 'REMOTE_USER'],
      freeze: { reasons: ['timing', 'network', 'order', 'infra'], maxDays: 14 },
      limits: { timeoutMs: 4000, maxEvidenceBytes: 1048576 },
      contexts: WARMUP_CONTEXTS.map((name, i) => ({
        name,
        root: `services/${name}`,
        owners: ['alice'],
        protected: ['fixtures/**', 'checks/**', 'freeze.json', 'observations/**'],
        exceptions: ['fixtures/**/*.md'],
        ...(i === 0 ? { dependsOn: ['libs/money/**'] } : {}),
        ...sections,
      })),
    }),
  );
  const live = { id: 'tests/test_orders.py::test_retry_window', reason: 'timing', expires: '2026-01-20', owner: 'human', added: '2026-01-10' };
  const expired = { id: 'tests/test_stock.py::test_restock', reason: 'network', expires: '2026-01-12', owner: 'human', added: '2026-01-05' };
  for (const [i, name] of WARMUP_CONTEXTS.entries()) {
    const root = `services/${name}`;
    for (const [path, bytes] of baseFiles()) {
      if (path === '.receipt-gate.json' || path === 'README.md') continue;
      let out = bytes;
      if (path === 'fixtures/EPOCH') {
        const pin = JSON.parse(bytes.toString('utf8')) as { generator: string; inputs: string[] };
        out = json({ ...pin, generator: `${root}/${pin.generator}`, inputs: pin.inputs.map((p) => `${root}/${p}`) });
      } else if (path === 'freeze.json') {
        out = json({ version: 1, frozen: i === 0 ? [live] : [live, expired] });
      }
      files.set(`${root}/${path}`, out);
    }
  }
  files.set('libs/money/money.py', Buffer.from('def cents(x):\n    return round(x * 100)\n'));
  files.set('README.md', Buffer.from('# services\n'));
  return files;
}

export interface WarmupMonorepoPush {
  gitdir: string;
  env: NodeJS.ProcessEnv;
  today: string;
  /** The pre-receive line of an honest change under the first context's root. */
  honest: string;
  remove(): void;
}

/** Builds the warm-up monorepo as warmupRepository builds its repository, with one pushed
 * commit that changes a source file of the first context: the other two are untouched and their
 * trees are the base's, so they take the untouched contexts' path (their freezes only). */
export function warmupMonorepo(): WarmupMonorepoPush {
  const [touched] = WARMUP_CONTEXTS;
  const built = buildRepository('receipt-gate-warmup-mono-', monorepoFiles(), 'three services with their evidence', [`services/${touched}/src/tax.py`, Buffer.from('RATE = 0.21\n')], [
    {
      ref: 'refs/heads/agent/honest',
      message: 'tolerate orders without a total',
      edits: new Map([[`services/${touched}/src/orders.py`, Buffer.from('def total(orders):\n    return sum(o.get("total", 0) for o in orders)\n')]]),
    },
  ]);
  return { gitdir: built.gitdir, env: built.env, today: WARMUP_TODAY, honest: built.lines[0]!, remove: built.remove };
}

export interface WarmupRun {
  line: string;
  code: number;
  stderr: string;
}

/** Judges the two warm-up pushes and the monorepo's with `run` (the pre-receive entry's), then
 * removes the repositories; `keep` leaves them for a test to inspect. */
export async function warmUp(
  run: (args: string[], io: CliIO) => Promise<number>,
  opts: { keep?: boolean } = {},
): Promise<{ runs: WarmupRun[]; push: WarmupPush; monorepo: WarmupMonorepoPush }> {
  const push = warmupRepository();
  let monorepo: WarmupMonorepoPush;
  try {
    monorepo = warmupMonorepo();
  } catch (err) {
    push.remove();
    throw err;
  }
  const runs: WarmupRun[] = [];
  try {
    for (const [repo, line] of [[push, push.honest], [push, push.cheat], [monorepo, monorepo.honest]] as const) {
      const io = bufferedIO({ env: repo.env, cwd: repo.gitdir, stdin: line });
      const code = await run(['--now', repo.today], io.io);
      runs.push({ line, code, stderr: io.stderr() });
    }
  } finally {
    if (!opts.keep) {
      push.remove();
      monorepo.remove();
    }
  }
  return { runs, push, monorepo };
}
