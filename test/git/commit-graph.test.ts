// The commit-graph reader against what git wrote and what git says about each commit: tree,
// parents, commit date and generation numbers for a single file, a split chain and a graph
// with topological levels only; and every damaged graph (a flipped byte, truncated, a layer
// missing, a layer under another name, generation numbers that do not grow, data that
// disagrees with the objects) refused with a one-line notice while the walks still answer as git.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createHash } from 'node:crypto';
import { readFileSync, readdirSync, renameSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { readCommitGraph } from '../../src/git/history/commit-graph';
import { ObjectStore } from '../../src/git/store';
import { Deadline } from '../../src/deadline';
import { History } from '../../src/git/history/history';
import { mergeBases } from '../../src/git/history/merge-base';
import { newCommits } from '../../src/git/history/new-commits';
import { buildDag, objectsDir, writeGraph, type Dag, type DagCommit } from './walk-dag';
import { cleanupTempDirs, git } from '../helpers/git';

test.after(cleanupTempDirs);

function sample(): Dag {
  const spec: DagCommit[] = [];
  for (let i = 0; i < 60; i++) {
    const back = i === 0 || i === 17 ? [] : i % 9 === 4 ? [1, 4, 7] : i % 5 === 2 ? [1, 3] : [1];
    spec.push({ back, dt: [0, 60, -86_400, 0, 3600][i % 5]!, ref: i % 11 === 0 });
  }
  return buildDag(spec);
}

function gitCommits(repo: string, commits: string[]): Map<string, { tree: string; parents: string[]; time: number }> {
  const out = new Map<string, { tree: string; parents: string[]; time: number }>();
  for (const line of git(repo, ['log', '--no-walk=unsorted', '--format=%H %T %ct %P', ...commits]).trim().split('\n')) {
    const [oid, tree, time, ...parents] = line.trim().split(' ');
    out.set(oid!, { tree: tree!, parents: parents.filter(Boolean), time: Number(time) });
  }
  return out;
}

for (const variant of ['full', 'v1', 'split'] as const) {
  test(`${variant}: every commit as git describes it, generations growing`, () => {
    const dag = sample();
    writeGraph(dag, variant);
    const { graph, notices } = readCommitGraph(objectsDir(dag.repo));
    assert.equal(notices, []);
    assert.ok(graph);
    assert.is(graph.correctedDates, variant !== 'v1');
    assert.is(graph.files.length, variant === 'split' ? 2 : 1);
    const expected = gitCommits(dag.repo, dag.commits);
    // --reachable lists what the refs reach; the split chain's first layer also some commits
    // no ref reaches.
    const reachable = git(dag.repo, ['rev-list', '--all']).trim().split('\n').length;
    assert.ok(graph.count >= reachable && graph.count <= dag.commits.length, `${graph.count} commits`);
    const level = new Map<string, number>();
    const listed = new Set(git(dag.repo, ['rev-list', '--all']).trim().split('\n'));
    let found = 0;
    for (const oid of [...dag.commits]) {
      const e = expected.get(oid)!;
      const pos = graph.position(oid);
      level.set(oid, 1 + Math.max(0, ...e.parents.map((p) => level.get(p)!)));
      if (listed.has(oid)) assert.ok(pos >= 0, `${oid} is reachable: in the graph`);
      if (pos < 0) continue;
      found++;
      assert.is(graph.oid(pos), oid);
      assert.is(graph.tree(pos), e.tree);
      assert.is(graph.commitTime(pos), e.time);
      assert.equal(graph.parents(pos).map((p) => graph.oid(p)), e.parents);
      const gen = graph.generation(pos);
      for (const p of graph.parents(pos)) assert.ok(graph.generation(p) < gen);
      if (variant === 'v1') assert.is(gen, level.get(oid));
      else assert.ok(gen >= e.time);
    }
    assert.is(found, graph.count);
    assert.is(graph.position('0'.repeat(40)), -1);
  });
}

/** Rewrites a graph file's trailing SHA-1 after an edit, so only the later checks can object. */
function resum(file: string, edit: (b: Buffer) => void): void {
  const buf = readFileSync(file);
  edit(buf);
  createHash('sha1').update(buf.subarray(0, buf.length - 20)).digest().copy(buf, buf.length - 20);
  writeFileSync(file, buf);
}

/** Byte offset of a chunk in a graph file. */
function chunkAt(buf: Buffer, id: string): number {
  for (let i = 0; i < buf[6]!; i++) if (buf.toString('latin1', 8 + 12 * i, 12 + 12 * i) === id) return Number(buf.readBigUInt64BE(12 + 12 * i));
  throw new Error(`no ${id}`);
}

const damages: [string, 'full' | 'v1' | 'split', (dag: Dag, info: string) => void, RegExp][] = [
  ['a flipped byte', 'full', (_, info) => resumless(join(info, 'commit-graph')), /trailing checksum/],
  ['a truncated file', 'full', (_, info) => truncateSync(join(info, 'commit-graph'), 700), /checksum|truncated/],
  ['a chain layer missing', 'split', (_, info) => rmSync(join(info, 'commit-graphs', readdirSync(join(info, 'commit-graphs')).find((f) => f.endsWith('.graph'))!)), /cannot be opened/],
  [
    'a chain layer under another name',
    'split',
    (_, info) => {
      const dir = join(info, 'commit-graphs');
      const chain = readFileSync(join(dir, 'commit-graph-chain'), 'utf8').trim().split('\n');
      renameSync(join(dir, `graph-${chain[1]}.graph`), join(dir, `graph-${'1'.repeat(40)}.graph`));
      writeFileSync(join(dir, 'commit-graph-chain'), `${chain[0]}\n${'1'.repeat(40)}\n`);
    },
    /not the 1{40} the chain names/,
  ],
  [
    'generation numbers that do not grow',
    'v1',
    (_, info) =>
      resum(join(info, 'commit-graph'), (b) => {
        const cdat = chunkAt(b, 'CDAT');
        for (let i = 0; i < 4; i++) b.writeUInt32BE((b.readUInt32BE(cdat + 36 * i + 28) & 3) | (1 << 2), cdat + 36 * i + 28);
      }),
    /generation number not above its parent|no GDA2/,
  ],
  [
    'a commit date that disagrees with the object',
    'v1',
    (dag, info) =>
      resum(join(info, 'commit-graph'), (b) => {
        const tip = dag.commits[dag.commits.length - 1]!;
        const oidl = chunkAt(b, 'OIDL');
        const cdat = chunkAt(b, 'CDAT');
        let i = 0;
        while (b.toString('hex', oidl + 20 * i, oidl + 20 * i + 20) !== tip) i++;
        b.writeUInt32BE(b.readUInt32BE(cdat + 36 * i + 32) + 1, cdat + 36 * i + 32);
      }),
    /differs from the commit object/,
  ],
];

function resumless(file: string): void {
  const buf = readFileSync(file);
  buf[buf.length >> 1] ^= 0x01;
  writeFileSync(file, buf);
}

for (const [what, variant, damage, notice] of damages) {
  test(`${what}: the graph is not used, one notice, git's answers`, async () => {
    const dag = sample();
    const info = join(objectsDir(dag.repo), 'info');
    const tip = dag.commits[dag.commits.length - 1]!;
    const others = [dag.commits[20]!, dag.commits[40]!];
    const expectedNew = git(dag.repo, ['-c', 'core.commitGraph=false', 'rev-list', tip, '--not', ...others]).trim().split('\n').filter(Boolean).sort();
    const expectedBases = git(dag.repo, ['-c', 'core.commitGraph=false', 'merge-base', '--all', dag.commits[30]!, dag.commits[45]!]).trim().split('\n');
    writeGraph(dag, variant);
    damage(dag, info);
    const store = await ObjectStore.discover(dag.repo);
    const history = new History(store);
    assert.equal((await newCommits(history, tip, others, Deadline.never())).sort(), expectedNew);
    assert.equal(await mergeBases(history, dag.commits[30]!, dag.commits[45]!, Deadline.never()), expectedBases);
    const notices = history.commitGraphNotices();
    assert.is(notices.length, 1, notices.join('\n'));
    assert.match(notices[0]!, notice);
    assert.match(notices[0]!, /git commit-graph write --reachable/);
    assert.not.match(notices[0]!, /\n/);
    assert.equal(history.commitGraphFiles(), []);
    store.close();
  });
}

test.run();
