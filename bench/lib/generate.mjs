// Builds the benchmark repositories with real git (`git fast-import`), from a fixed seed, and
// caches them under .bench-cache/: a seed repository (`seed.git`), a push source whose
// objects borrow the seed's (`push.git`, branches p1 / p20 / pN), a clone that already holds
// pN (`verify.git`, for verify-ref), and for `withWorktree` repositories a checkout with three
// staged changes (`worktree/`, for pre-commit).
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { FastImport } from './fast-import.mjs';
import { prng, randomBytes, textContent } from './prng.mjs';
import { evidenceFiles, isProtectedForBench } from './evidence.mjs';

export const SEED = 20261129;
const GENERATOR_VERSION = 5; // of the pushes, worktree, clones and ref variants
const SEED_VERSION = 4; // of the seed repositories

export function git(args, opts = {}) {
  return execFileSync('git', args, {
    encoding: 'utf8',
    maxBuffer: 1 << 30,
    stdio: ['pipe', 'pipe', 'pipe'],
    ...opts,
  }).trimEnd();
}

const dirName = (d) => `src/m${String(d).padStart(4, '0')}`;
const fileName = (d, f) => `${dirName(d)}/f${String(f).padStart(6, '0')}.txt`;

/**
 * The repositories. `pushSizes` are the commit counts of the three pushes (p1, p20, pN).
 * `refCurve` lists extra ref counts to build from this repository (copies with more refs).
 */
export function repoSpecs(smoke) {
  if (smoke) {
    return [
      { name: 'wide', files: 600, dirs: 30, commits: 8, refs: 6, withWorktree: true, pushSizes: [1, 20, 60] },
      { name: 'long', files: 120, dirs: 12, commits: 400, mergeEvery: 20, topicLen: 3, refs: 40, pushSizes: [1, 20, 60], refCurve: [400] },
      { name: 'heavy', files: 60, dirs: 6, commits: 12, refs: 6, bulk: { count: 8, size: 256 << 10 }, bigBlob: 4 << 20, pushSizes: [1, 20, 60] },
    ];
  }
  return [
    { name: 'tiny', files: 200, dirs: 10, commits: 100, mergeEvery: 10, topicLen: 2, refs: 10, pushSizes: [1, 20, 1000] },
    { name: 'wide', files: 100000, dirs: 2000, commits: 2000, refs: 20, withWorktree: true, pushSizes: [1, 20, 1000] },
    { name: 'long', files: 2000, dirs: 100, commits: 50000, mergeEvery: 50, topicLen: 4, refs: 1000, pushSizes: [1, 20, 1000], refCurve: [10000, 100000] },
    { name: 'heavy', files: 2000, dirs: 100, commits: 120, refs: 20, bulk: { count: 840, size: 1 << 20 }, bigBlob: 200 << 20, pushSizes: [1, 20, 1000] },
  ];
}

function cacheKey(spec) {
  return JSON.stringify({ v: GENERATOR_VERSION, seed: SEED, ...spec });
}

/** What the seed repository depends on: rebuilding pushes does not rebuild a 1 GB seed. */
function seedKey(spec) {
  const { pushSizes, refCurve, withWorktree, ...shape } = spec;
  return JSON.stringify({ v: SEED_VERSION, seed: SEED, ...shape });
}

/** Runs `fn` holding a lock directory (two runs sharing a cache build a repository once). A
 * lock whose holder is gone is taken over. */
export async function withLock(lockDir, log, fn) {
  for (let waited = 0; ; waited++) {
    try {
      mkdirSync(lockDir);
      writeFileSync(join(lockDir, 'pid'), String(process.pid));
      break;
    } catch (err) {
      if (err.code !== 'EEXIST') throw err;
      let holder = NaN;
      try {
        holder = Number(readFileSync(join(lockDir, 'pid'), 'utf8'));
      } catch {
        /* being written */
      }
      let alive = true;
      try {
        if (Number.isInteger(holder) && holder > 0) process.kill(holder, 0);
      } catch {
        alive = false;
      }
      if (!alive) {
        rmSync(lockDir, { recursive: true, force: true });
        continue;
      }
      if (waited % 30 === 0) log(`waiting for ${lockDir} (held by process ${holder})`);
      await new Promise((r) => setTimeout(r, 1000));
    }
  }
  try {
    return await fn();
  } finally {
    rmSync(lockDir, { recursive: true, force: true });
  }
}

/** Builds (or reuses) every artefact of one repository spec. Returns its metadata. */
export async function ensureRepo(cacheDirIn, spec, log) {
  const cacheDir = resolve(cacheDirIn);
  mkdirSync(cacheDir, { recursive: true });
  return withLock(join(cacheDir, `${spec.name}.lock`), log, () => ensureRepoLocked(cacheDir, spec, log));
}

async function ensureRepoLocked(cacheDir, spec, log) {
  const dir = join(cacheDir, spec.name);
  const metaFile = join(dir, 'meta.json');
  const key = cacheKey(spec);
  const seedDir = join(dir, 'seed.git');
  const seedMetaFile = join(dir, 'seed.json');
  if (existsSync(metaFile)) {
    const meta = JSON.parse(readFileSync(metaFile, 'utf8'));
    if (meta.key === key && meta.dir === dir && existsSync(meta.seedDir) && existsSync(meta.pushDir)) return meta;
  }
  const t0 = Date.now();
  let mainTip = null;
  if (existsSync(seedMetaFile) && existsSync(seedDir)) {
    const seedMeta = JSON.parse(readFileSync(seedMetaFile, 'utf8'));
    if (seedMeta.key === seedKey(spec)) mainTip = seedMeta.mainTip;
  }
  if (mainTip) {
    log(`reusing the ${spec.name} seed repository; rebuilding its pushes`);
    for (const name of readdirSync(dir)) if (name !== 'seed.git' && name !== 'seed.json') rmSync(join(dir, name), { recursive: true, force: true });
  } else {
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    log(`building ${spec.name} (seed ${SEED}) in ${dir}`);
    mainTip = await buildSeed(seedDir, spec);
    writeFileSync(seedMetaFile, JSON.stringify({ key: seedKey(spec), mainTip }));
    log(`  ${spec.name}: seed built in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  }
  const meta = await finishRepo(dir, seedDir, mainTip, spec, log);
  meta.key = key;
  meta.buildSeconds = (Date.now() - t0) / 1000;
  writeFileSync(metaFile, JSON.stringify(meta, null, 2));
  log(`  ${spec.name}: ready in ${meta.buildSeconds.toFixed(1)} s`);
  return meta;
}

/** Pushes, verify clone, worktree and facts for a seed repository (generated or the user's). */
export async function finishRepo(dir, seedDir, mainTip, spec, log) {
  const pushDir = join(dir, 'push.git');
  const pushes = await buildPushes(seedDir, pushDir, mainTip, spec);
  const verifyDir = join(dir, 'verify.git');
  buildVerifyClone(seedDir, pushDir, verifyDir, pushes.pN.tip);
  let worktree = null;
  if (spec.withWorktree) {
    worktree = join(dir, 'worktree');
    buildWorktree(seedDir, worktree, spec);
  }
  const facts = repoFacts(seedDir);
  log(`  ${spec.name}: ${facts.commits} commits, ${facts.refs} refs, ${facts.trackedFiles} files, pack ${(facts.packBytes / 1e6).toFixed(1)} MB`);
  const refVariants = [];
  for (const n of spec.refCurve ?? []) {
    const vdir = join(dir, `refs-${n}.git`);
    buildRefVariant(seedDir, vdir, n);
    refVariants.push({ refs: n, gitdir: vdir });
  }
  return { name: spec.name, dir, seedDir, pushDir, verifyDir, worktree, mainTip, pushes, facts, refVariants, spec };
}

export async function buildSeed(gitdir, spec) {
  git(['init', '--quiet', '--bare', '--initial-branch=main', gitdir]);
  git(['--git-dir', gitdir, 'config', 'receive.autogc', 'false']);
  git(['--git-dir', gitdir, 'config', 'gc.auto', '0']);
  const heavy = Boolean(spec.bulk || spec.bigBlob);
  const fi = new FastImport(gitdir, heavy ? { config: ['core.compression=1', 'pack.compression=1'] } : {});
  const rng = prng(SEED ^ hashName(spec.name));
  // Commits 5 to 60 minutes apart (50,000 commits span about three years): date-ordered walks
  // meet the history's real density, not a synthetic one commit per second.
  const clock = prng(SEED ^ hashName(`clock:${spec.name}`));
  fi.tick = () => 300 + clock.int(3300);
  const version = new Map(); // path -> version
  const files = [];
  const perDir = Math.ceil(spec.files / spec.dirs);
  for (let i = 0; i < spec.files; i++) files.push(fileName(Math.floor(i / perDir), i % perDir));

  // Root commit: evidence files, every source file, and on heavy the big blob beside the evidence.
  const rootChanges = [];
  for (const [path, bytes] of evidenceFiles('main', spec.policy)) rootChanges.push({ path, mark: await fi.blob(bytes) });
  for (const path of files) {
    version.set(path, 0);
    rootChanges.push({ path, mark: await fi.blob(textContent(rng, path, 0)) });
  }
  if (spec.bigBlob) {
    rootChanges.push({ path: 'fixtures/orders/weights.bin', mark: await fi.blob(randomBytes(SEED, 'big', spec.bigBlob), spec.bigBlob) });
  }
  let tip = await fi.commit('refs/heads/main', { message: 'initial import\n', changes: rootChanges });
  const mainline = [tip];
  let count = 1;

  const touch = async (n) => {
    const changes = [];
    for (let j = 0; j < n; j++) {
      const path = rng.pick(files);
      const v = (version.get(path) ?? 0) + 1;
      version.set(path, v);
      changes.push({ path, mark: await fi.blob(textContent(rng, path, v)) });
    }
    return changes;
  };

  let bulkLeft = spec.bulk ? spec.bulk.count : 0;
  let bulkIndex = 0;
  const bulkPerCommit = spec.bulk ? Math.ceil(spec.bulk.count / Math.max(1, spec.commits - 1)) : 0;
  while (count < spec.commits) {
    const remaining = spec.commits - count;
    if (spec.mergeEvery && count % spec.mergeEvery === 0 && remaining >= spec.topicLen + 1) {
      const fork = mainline[Math.max(0, mainline.length - 1 - rng.int(Math.min(10, mainline.length)))];
      let topic = fork;
      const merged = new Map();
      for (let k = 0; k < spec.topicLen; k++) {
        const changes = await touch(1 + rng.int(2));
        for (const c of changes) merged.set(c.path, c);
        topic = await fi.commit('refs/heads/bench-topic', { from: topic, message: `topic change ${count + k}\n`, changes });
      }
      tip = await fi.commit('refs/heads/main', { from: tip, merges: [topic], message: `Merge topic at ${count}\n`, changes: [...merged.values()] });
      mainline.push(tip);
      count += spec.topicLen + 1;
    } else {
      const changes = await touch(1 + rng.int(2));
      if (bulkLeft > 0) {
        const n = Math.min(bulkPerCommit, bulkLeft);
        for (let j = 0; j < n; j++, bulkIndex++) {
          const path = `assets/bulk-${String(bulkIndex).padStart(5, '0')}.bin`;
          changes.push({ path, mark: await fi.blob(randomBytes(SEED, path, spec.bulk.size), spec.bulk.size) });
        }
        bulkLeft -= n;
      }
      tip = await fi.commit('refs/heads/main', { from: tip, message: `change ${count}\n`, changes });
      mainline.push(tip);
      count++;
    }
  }
  // Refs spread over the history: branches, lightweight and annotated tags.
  for (let r = 0; r < spec.refs; r++) {
    const at = mainline[Math.floor((r * mainline.length) / spec.refs)];
    const n = String(r).padStart(5, '0');
    if (r % 4 === 0) {
      const msg = `release ${n}\n`;
      await fi.write(`tag v1.${n}\nfrom :${at}\ntagger Bench <bench@example.com> ${fi.when++} +0000\ndata ${msg.length}\n${msg}\n`);
    } else if (r % 4 === 1) {
      await fi.reset(`refs/tags/l1.${n}`, at);
    } else {
      await fi.reset(`refs/heads/feature/${n}`, at);
    }
  }
  await fi.close();
  try {
    git(['--git-dir', gitdir, 'update-ref', '-d', 'refs/heads/bench-topic']);
  } catch {
    /* no topic branch in this shape */
  }
  if (!heavy) git(['--git-dir', gitdir, 'repack', '-a', '-d', '-q']);
  git(['--git-dir', gitdir, 'pack-refs', '--all', '--prune']);
  return git(['--git-dir', gitdir, 'rev-parse', 'refs/heads/main']);
}

export function hashName(s) {
  let h = 0;
  for (const c of s) h = (Math.imul(h, 31) + c.charCodeAt(0)) >>> 0;
  return h;
}

/** Regular, unprotected files at the tip: what the generated pushes edit. */
function editableFiles(gitdir, tip) {
  const out = git(['--git-dir', gitdir, 'ls-tree', '-r', '-z', '--full-tree', tip]);
  const paths = [];
  for (const rec of out.split('\0')) {
    if (!rec) continue;
    const tab = rec.indexOf('\t');
    const [mode, type] = rec.slice(0, tab).split(' ');
    const path = rec.slice(tab + 1);
    if (type === 'blob' && (mode === '100644' || mode === '100755') && !isProtectedForBench(path)) paths.push(path);
    if (paths.length >= 50000) break;
  }
  if (paths.length === 0) paths.push('bench-push/new-file.txt');
  return paths;
}

/**
 * The push source: a bare repository borrowing the seed's objects (objects/info/alternates),
 * holding branch p1 (1 commit, 3 files), p20 (20 commits) and pN (N commits with merges),
 * all on top of the seed's main.
 */
async function buildPushes(seedDir, pushDir, mainTip, spec) {
  const [s1, s20, sN] = spec.pushSizes;
  git(['init', '--quiet', '--bare', '--initial-branch=main', pushDir]);
  writeFileSync(join(pushDir, 'objects', 'info', 'alternates'), join(seedDir, 'objects') + '\n');
  git(['--git-dir', pushDir, 'config', 'gc.auto', '0']);
  const candidates = editableFiles(seedDir, mainTip);
  const fi = new FastImport(pushDir);
  // Pushed work is newer than the tip it builds on, as it is when people commit today.
  fi.when = Number(git(['--git-dir', seedDir, 'log', '-1', '--format=%ct', mainTip])) + 600;
  const clock = prng(SEED ^ hashName(`push-clock:${spec.name}`));
  fi.tick = () => 60 + clock.int(540);
  const rng = prng(SEED ^ hashName(`push:${spec.name}`));
  let fresh = 0;
  const touch = async (n) => {
    const changes = [];
    for (let j = 0; j < n; j++) {
      // Mostly edits of existing files; one in five commits adds a file.
      const path = j === 0 && rng.int(5) === 0 ? `bench-push/new-${fresh++}.txt` : rng.pick(candidates);
      changes.push({ path, mark: await fi.blob(textContent(rng, path, 1000 + rng.int(1e6))) });
    }
    return changes;
  };
  const linear = async (ref, n) => {
    let tip = mainTip;
    for (let i = 0; i < n; i++) tip = await fi.commit(ref, { from: tip, message: `push ${ref} ${i}\n`, changes: await touch(3) });
    return tip;
  };
  await linear('refs/heads/p1', s1);
  await linear('refs/heads/p20', s20);
  // pN: a mainline with topic branches merged into it (every 25 commits a 4-commit topic).
  let tip = mainTip;
  let count = 0;
  let merges = 0;
  while (count < sN) {
    if (count > 0 && count % 25 === 0 && sN - count >= 5) {
      let topic = tip;
      const merged = new Map();
      for (let k = 0; k < 4; k++) {
        const changes = await touch(1 + rng.int(3));
        for (const c of changes) merged.set(c.path, c);
        topic = await fi.commit('refs/heads/pN-topic', { from: topic, message: `topic ${count + k}\n`, changes });
      }
      // The mainline moves on before the merge, so the merge has two real parents.
      tip = await fi.commit('refs/heads/pN', { from: tip, message: `mainline ${count + 4}\n`, changes: await touch(1) });
      tip = await fi.commit('refs/heads/pN', { from: tip, merges: [topic], message: `merge topic ${count}\n`, changes: [...merged.values()] });
      count += 6;
      merges++;
    } else {
      tip = await fi.commit('refs/heads/pN', { from: tip, message: `push pN ${count}\n`, changes: await touch(1 + rng.int(3)) });
      count++;
    }
  }
  await fi.close();
  git(['--git-dir', pushDir, 'update-ref', '-d', 'refs/heads/pN-topic']);
  const info = (ref, commits) => ({ ref, commits, tip: git(['--git-dir', pushDir, 'rev-parse', ref]) });
  const countOf = (ref) => Number(git(['--git-dir', pushDir, 'rev-list', '--count', ref, '--not', mainTip]));
  return {
    p1: info('refs/heads/p1', countOf('refs/heads/p1')),
    p20: info('refs/heads/p20', countOf('refs/heads/p20')),
    pN: { ...info('refs/heads/pN', countOf('refs/heads/pN')), merges },
  };
}

/** A copy of the seed that also holds pN as a branch (fetched, so its objects are a real pack). */
function buildVerifyClone(seedDir, pushDir, verifyDir, tip) {
  git(['clone', '--quiet', '--bare', '--no-local', seedDir, verifyDir]);
  git(['--git-dir', verifyDir, 'config', 'gc.auto', '0']);
  git(['--git-dir', verifyDir, 'fetch', '--quiet', '--no-tags', pushDir, `refs/heads/pN:refs/heads/work`]);
  const got = git(['--git-dir', verifyDir, 'rev-parse', 'refs/heads/work']);
  if (got !== tip) throw new Error(`verify clone: work is ${got}, expected ${tip}`);
}

/** A checkout of main with three files changed and staged (what pre-commit sees). */
function buildWorktree(seedDir, worktree, spec) {
  git(['clone', '--quiet', seedDir, worktree]);
  git(['-C', worktree, 'config', 'user.name', 'Bench']);
  git(['-C', worktree, 'config', 'user.email', 'bench@example.com']);
  const rng = prng(SEED ^ hashName(`worktree:${spec.name}`));
  const candidates = editableFiles(join(worktree, '.git'), 'HEAD');
  const staged = [];
  for (let i = 0; i < 3; i++) {
    const path = rng.pick(candidates);
    writeFileSync(join(worktree, path), textContent(rng, path, 5000 + i));
    staged.push(path);
  }
  git(['-C', worktree, 'add', '--', ...staged]);
}

/** A copy of the seed (hard links) with `n` refs in packed-refs, for the ref-count curve. */
function buildRefVariant(seedDir, vdir, n) {
  execFileSync('cp', ['-al', seedDir, vdir]);
  const commits = git(['--git-dir', vdir, 'rev-list', '--first-parent', 'refs/heads/main']).split('\n');
  const existing = git(['--git-dir', vdir, 'for-each-ref', '--format=%(objectname) %(refname)']).split('\n').filter(Boolean);
  const extra = [];
  for (let r = existing.length; r < n; r++) {
    const at = commits[Math.floor((r * commits.length) / n) % commits.length];
    extra.push(`${at} refs/heads/curve/${String(r).padStart(6, '0')}`);
  }
  const lines = [...existing, ...extra].map((l) => {
    const i = l.indexOf(' ');
    return [l.slice(i + 1), l.slice(0, i)];
  });
  lines.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  // Rewrite packed-refs from scratch (git peels annotated tags again on the next pack-refs).
  rmSync(join(vdir, 'packed-refs'), { force: true });
  writeFileSync(join(vdir, 'packed-refs'), '# pack-refs with: peeled fully-peeled sorted \n' + lines.map(([r, o]) => `${o} ${r}\n`).join(''));
  git(['--git-dir', vdir, 'pack-refs', '--all']);
  const count = Number(git(['--git-dir', vdir, 'for-each-ref', '--count=1000000', '--format=x']).split('\n').length);
  if (count !== n) throw new Error(`ref variant ${vdir}: ${count} refs, expected ${n}`);
}

export function repoFacts(gitdir) {
  const count = (args) => Number(git(['--git-dir', gitdir, ...args]));
  const refs = git(['--git-dir', gitdir, 'for-each-ref', '--format=x']).split('\n').filter(Boolean).length;
  const sizes = git(['--git-dir', gitdir, 'count-objects', '-v']);
  const field = (k) => Number((sizes.match(new RegExp(`^${k}: (\\d+)`, 'm')) ?? [])[1] ?? 0);
  return {
    commits: count(['rev-list', '--all', '--count']),
    refs,
    trackedFiles: git(['--git-dir', gitdir, 'ls-tree', '-r', '--name-only', 'HEAD']).split('\n').length,
    objects: field('in-pack') + field('count'),
    packBytes: field('size-pack') * 1024 + field('size') * 1024,
  };
}
