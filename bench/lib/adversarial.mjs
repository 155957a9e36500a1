// The adversarial pushes of the benchmark: inputs chosen to make the gate work as long as it
// can (many commits, a huge commit message, huge witnesses, a huge manifest under a 100 ms
// limit, a commit with 100,000 or 400,000 files, an owner's glob that backtracks). The right
// answer is not "accepted": it is a verdict, LIMIT_EXCEEDED when time runs out, within
// `limits.timeoutMs` + 250 ms of the hook's start, never a hook killed by the shim.
//
// Three small seed repositories, built like the others (bench/lib/generate.mjs), differ only in
// their policy: `adv` (limits.timeoutMs 4000, maxEvidenceBytes 64 MiB so big witnesses are read),
// `adv-t100` (timeoutMs 100) and `adv-extglob` (an owner protected `+(+(a|aa))b`). Each has a
// push source (`push.git`, borrowing the seed's objects) with one branch per scenario.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { FastImport } from './fast-import.mjs';
import { EPOCH_ID } from './evidence.mjs';
import { buildSeed, git, hashName, repoFacts, SEED, withLock } from './generate.mjs';
import { randomBytes } from './prng.mjs';

const VERSION = 2;
const MIB = 1 << 20;
const OWNER = { GITHUB_USER_LOGIN: 'alice' };

/** A glob nested inside an extglob: picomatch's regular expression backtracks exponentially. */
export const BACKTRACKING_GLOB = '+(+(a|aa))b';

/**
 * The seeds and their scenarios. `size` is what the scenario's name promises; the smoke
 * variant keeps the shapes and shrinks the sizes.
 */
export function adversarialSpecs(smoke) {
  const n = (full, small) => (smoke ? small : full);
  const base = { files: 200, dirs: 10, commits: 20, refs: 4 };
  return [
    {
      name: 'adv',
      seed: { ...base, name: 'adv', policy: { limits: { timeoutMs: 4000, maxEvidenceBytes: 64 * MIB } } },
      timeoutMs: 4000,
      scenarios: [
        { key: 'commits', label: `${n('20,000', '300')} commits in one push`, make: { kind: 'chain', commits: n(20000, 300) } },
        { key: 'message', label: `a ${n('100 MB', '2 MB')} commit message`, make: { kind: 'message', bytes: n(100e6, 2e6) } },
        { key: 'witnesses', label: `eight ${n('60 MiB', '1 MiB')} witnesses (owner)`, env: OWNER, make: { kind: 'witnesses', count: 8, bytes: n(60 * MIB, MIB) } },
        { key: 'files-100k', label: `a ${n('100,000', '2,000')}-file commit`, make: { kind: 'files', files: n(100000, 2000) } },
        { key: 'files-400k', label: `a ${n('400,000', '8,000')}-file commit`, make: { kind: 'files', files: n(400000, 8000) } },
      ],
    },
    {
      name: 'adv-t100',
      seed: { ...base, name: 'adv-t100', policy: { limits: { timeoutMs: 100, maxEvidenceBytes: 16 * MIB } } },
      timeoutMs: 100,
      scenarios: [
        { key: 'manifest', label: `a ${n('13.5 MB', '1 MB')} manifest, timeoutMs 100 (owner)`, env: OWNER, make: { kind: 'manifest', bytes: n(13.5e6, 1e6) } },
      ],
    },
    {
      name: 'adv-extglob',
      seed: { ...base, name: 'adv-extglob', policy: { protected: [BACKTRACKING_GLOB] } },
      timeoutMs: 4000,
      scenarios: [
        // 24 a's: about 70 s in picomatch's expression; the smoke variant's 16 take ~0.3 s.
        { key: 'extglob', label: `an owner's glob ${BACKTRACKING_GLOB} against ${n(24, 16)} a's`, make: { kind: 'path', path: `${'a'.repeat(n(24, 16))}c` } },
      ],
    },
  ];
}

/** The scenario ids, known before anything is built (for --only). */
export function adversarialIds(smoke) {
  return adversarialSpecs(smoke).flatMap((spec) => spec.scenarios.map((s) => `adv-${s.key}`));
}

/** Builds (or reuses) one adversarial seed and its pushes. Returns its metadata. */
export async function ensureAdversarial(cacheDirIn, spec, wantedKeys, log) {
  const cacheDir = resolve(cacheDirIn);
  mkdirSync(cacheDir, { recursive: true });
  return withLock(join(cacheDir, `${spec.name}.lock`), log, async () => {
    const dir = join(cacheDir, spec.name);
    const seedDir = join(dir, 'seed.git');
    const metaFile = join(dir, 'meta.json');
    const seedKey = JSON.stringify({ v: VERSION, seed: SEED, ...spec.seed });
    let meta = existsSync(metaFile) ? JSON.parse(readFileSync(metaFile, 'utf8')) : null;
    if (!meta || meta.seedKey !== seedKey || !existsSync(seedDir)) {
      rmSync(dir, { recursive: true, force: true });
      mkdirSync(dir, { recursive: true });
      log(`building ${spec.name} in ${dir}`);
      const mainTip = await buildSeed(seedDir, spec.seed);
      const pushDir = join(dir, 'push.git');
      git(['init', '--quiet', '--bare', '--initial-branch=main', pushDir]);
      writeFileSync(join(pushDir, 'objects', 'info', 'alternates'), join(seedDir, 'objects') + '\n');
      git(['--git-dir', pushDir, 'config', 'gc.auto', '0']);
      meta = { name: spec.name, dir, seedDir, pushDir, mainTip, seedKey, pushes: {}, facts: repoFacts(seedDir) };
    }
    // Pushes are built on demand: the 480 MiB of witnesses only when that scenario runs.
    for (const s of spec.scenarios) {
      if (!wantedKeys.has(s.key)) continue;
      const key = JSON.stringify(s.make);
      if (meta.pushes[s.key]?.key === key) continue;
      const t0 = Date.now();
      log(`  ${spec.name}: building the push for ${s.label}`);
      const ref = `refs/heads/${s.key}`;
      await buildPush(meta.pushDir, meta.mainTip, ref, s.make);
      meta.pushes[s.key] = { key, ref, tip: git(['--git-dir', meta.pushDir, 'rev-parse', ref]), seconds: (Date.now() - t0) / 1000 };
      writeFileSync(metaFile, JSON.stringify(meta, null, 2));
    }
    writeFileSync(metaFile, JSON.stringify(meta, null, 2));
    return meta;
  });
}

async function buildPush(pushDir, mainTip, ref, make) {
  const fi = new FastImport(pushDir);
  fi.when = Number(git(['--git-dir', pushDir, 'log', '-1', '--format=%ct', mainTip])) + 600;
  fi.tick = () => 60;
  switch (make.kind) {
    case 'chain': {
      // A straight line of commits, each editing one unprotected file.
      let tip = mainTip;
      for (let i = 0; i < make.commits; i++) {
        const mark = await fi.blob(`chain step ${i}\n`);
        tip = await fi.commit(ref, { from: tip, message: `step ${i}\n`, changes: [{ path: 'adv/chain.txt', mark }] });
      }
      break;
    }
    case 'message': {
      const line = 'This commit message is long on purpose: the gate must bound what it reads.\n';
      const message = line.repeat(Math.ceil(make.bytes / line.length)).slice(0, make.bytes - 1) + '\n';
      const mark = await fi.blob('a commit whose message is the point\n');
      await fi.commit(ref, { from: mainTip, message, changes: [{ path: 'adv/message.txt', mark }] });
      break;
    }
    case 'witnesses': {
      const changes = [];
      for (let k = 0; k < make.count; k++) {
        const id = `obs-adv-${String(k).padStart(4, '0')}`;
        const hash = createHash('sha256');
        for await (const chunk of randomBytes(SEED, id, make.bytes)) hash.update(chunk);
        changes.push({ path: `observations/${id}.bin`, mark: await fi.blob(randomBytes(SEED, id, make.bytes), make.bytes) });
        const record = { id, epoch_id: EPOCH_ID, status: 'pass', rerun_passed: true, witness_sha256: hash.digest('hex') };
        changes.push({ path: `observations/${id}.json`, mark: await fi.blob(JSON.stringify(record, null, 2) + '\n') });
      }
      await fi.commit(ref, { from: mainTip, message: `${make.count} observations with their witnesses\n`, changes });
      break;
    }
    case 'files': {
      // One blob under every path: the tree is what costs, 100 files a directory.
      const mark = await fi.blob('one of many files\n');
      const changes = [];
      for (let i = 0; i < make.files; i++) {
        changes.push({ path: `bulk/d${String(Math.floor(i / 100)).padStart(5, '0')}/f${String(i).padStart(6, '0')}.txt`, mark });
      }
      await fi.commit(ref, { from: mainTip, message: `${make.files} files\n`, changes });
      break;
    }
    case 'manifest': {
      await fi.commit(ref, { from: mainTip, message: 'a large manifest\n', changes: [{ path: 'checks/manifest.json', mark: await fi.blob(bigManifest(make.bytes)) }] });
      break;
    }
    case 'path': {
      const mark = await fi.blob('a file whose name the protected globs must match in linear time\n');
      await fi.commit(ref, { from: mainTip, message: 'one file with a long name\n', changes: [{ path: make.path, mark }] });
      break;
    }
    default:
      throw new Error(`unknown adversarial push ${make.kind}`);
  }
  await fi.close();
}

/**
 * A manifest of about `bytes` bytes in the shape of the real one (seed, properties drawn from
 * the catalog, manifest_sha256), pretty-printed, with some non-ASCII bounds so the decoder
 * cannot take the ASCII shortcut.
 */
export function bigManifest(bytes) {
  const properties = [];
  let size = 0;
  for (let i = 0; size < bytes; i++) {
    const p = { name: `prop_${String(i).padStart(7, '0')}`, bound: i % 7 === 0 ? `n ≤ ${1000 + i} (größer)` : `n <= ${1000 + i}`, weight: (i % 97) / 7 };
    properties.push(p);
    size += Buffer.byteLength(JSON.stringify(p, null, 2)) + 4 * 5 + 2; // 5 lines indented 4 deeper, ",\n"
  }
  return Buffer.from(JSON.stringify({ seed: 20260925, properties, manifest_sha256: '0'.repeat(64) }, null, 2) + '\n', 'utf8');
}
