// Random commit DAGs built with real git for the walk tests: `git fast-import` writes commits
// with the parents and committer dates a fast-check value describes (equal dates, dates out of
// order, commits dated days before their parents), then git writes the commit-graph variants
// the walks must read (or refuse).

import fc from 'fast-check';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { git, initRepo, tempDir } from '../helpers/git';

export const SEED = 20261201;

/** Seconds between a commit's date and the previous commit's: ties and skew as common as steps. */
const DT = [0, 0, 0, 60, 3600, -600, -4 * 86_400];

export interface DagCommit {
  /** How far back each parent is (1 = the previous commit); none makes a root. */
  back: readonly number[];
  dt: number;
  /** Whether a ref points at this commit. */
  ref: boolean;
}

export const dagArb: fc.Arbitrary<DagCommit[]> = fc.array(
  fc.record({
    back: fc.oneof(
      { weight: 1, arbitrary: fc.constant<number[]>([]) },
      { weight: 10, arbitrary: fc.array(fc.oneof({ weight: 4, arbitrary: fc.integer({ min: 1, max: 3 }) }, { weight: 1, arbitrary: fc.integer({ min: 1, max: 40 }) }), { minLength: 1, maxLength: 3 }) },
    ),
    dt: fc.constantFrom(...DT),
    ref: fc.boolean(),
  }),
  { minLength: 2, maxLength: 32 },
);

export interface Dag {
  repo: string;
  /** Every commit, in the order written (parents before children). */
  commits: string[];
  /** Commits that have a ref (refs/heads/r<i>). */
  refs: string[];
}

/** Writes the DAG into a new repository (`bare`: a bare one) and returns its commits. */
export function buildDag(spec: DagCommit[], opts: { bare?: boolean; allEqualDates?: boolean } = {}): Dag {
  const repo = initRepo({ bare: opts.bare });
  let time = 1_800_000_000;
  let stream = '';
  spec.forEach((c, i) => {
    if (!opts.allEqualDates) time += c.dt;
    const parents = [...new Set(c.back.filter((b) => b <= i).map((b) => i - b))];
    const msg = `c${i}\n`;
    stream += `commit refs/tmp/c${i}\nmark :${i + 1}\ncommitter C <c@example.com> ${time} +0000\ndata ${msg.length}\n${msg}`;
    if (parents.length > 0) stream += `from :${parents[0]! + 1}\n`;
    for (const p of parents.slice(1)) stream += `merge :${p + 1}\n`;
    stream += '\n';
  });
  const marks = join(tempDir(), 'marks');
  git(repo, ['fast-import', '--quiet', `--export-marks=${marks}`], { input: stream });
  const byMark = new Map(
    readFileSync(marks, 'utf8')
      .trim()
      .split('\n')
      .map((l) => l.split(' ') as [string, string]),
  );
  const commits = spec.map((_, i) => byMark.get(`:${i + 1}`)!);
  const refs: string[] = [];
  let updates = '';
  spec.forEach((c, i) => {
    updates += `delete refs/tmp/c${i}\n`;
    if (c.ref || i === spec.length - 1) {
      updates += `create refs/heads/r${i} ${commits[i]}\n`;
      refs.push(commits[i]!);
    }
  });
  git(repo, ['update-ref', '--stdin'], { input: updates });
  if (spec.length % 2 === 0) git(repo, ['repack', '-adq']);
  return { repo, commits, refs };
}

export type GraphVariant = 'none' | 'full' | 'v1' | 'split' | 'partial' | 'corrupt';
export const VARIANTS: GraphVariant[] = ['none', 'full', 'v1', 'split', 'partial', 'corrupt'];

/** The repository's objects directory (bare or not). */
export function objectsDir(repo: string): string {
  return git(repo, ['rev-parse', '--path-format=absolute', '--git-path', 'objects']).trim();
}

/**
 * Replaces the repository's commit-graph with one git writes for the variant: none; `full`
 * (`--reachable`, with corrected commit dates); `v1` (topological levels only); `split` (a
 * chain of two layers); `partial` (the older half of the commits only, so the walks compute
 * the generation of the rest); `corrupt` (full, one byte flipped).
 */
export function writeGraph(dag: Dag, variant: GraphVariant): void {
  const info = join(objectsDir(dag.repo), 'info');
  removeGraphs(dag.repo);
  const half = dag.commits.slice(0, Math.max(1, dag.commits.length >> 1));
  if (variant === 'none') return;
  if (variant === 'full' || variant === 'corrupt') git(dag.repo, ['commit-graph', 'write', '--reachable']);
  if (variant === 'v1') git(dag.repo, ['-c', 'commitGraph.generationVersion=1', 'commit-graph', 'write', '--reachable']);
  if (variant === 'partial') git(dag.repo, ['commit-graph', 'write', '--stdin-commits'], { input: half.join('\n') + '\n' });
  if (variant === 'split') {
    git(dag.repo, ['commit-graph', 'write', '--split', '--stdin-commits'], { input: half.join('\n') + '\n' });
    git(dag.repo, ['commit-graph', 'write', '--reachable', '--split=no-merge']);
  }
  if (variant === 'corrupt') {
    const file = join(info, 'commit-graph');
    const buf = readFileSync(file);
    buf[buf.length >> 1] ^= 0x40;
    writeFileSync(file, buf);
  }
}

export function removeGraphs(repo: string): void {
  const info = join(objectsDir(repo), 'info');
  for (const p of ['commit-graph', 'commit-graphs']) rmSync(join(info, p), { recursive: true, force: true });
}

/** A push's quarantine: its object folder and the variables receive-pack gives its hooks. */
export interface Quarantine {
  dir: string;
  env: NodeJS.ProcessEnv;
}

/** An empty quarantine for `repo`, with the variables receive-pack gives its hooks. */
export function quarantine(repo: string): Quarantine {
  const dir = join(tempDir(), 'incoming');
  mkdirSync(join(dir, 'pack'), { recursive: true });
  return { dir, env: { GIT_DIR: repo, GIT_QUARANTINE_PATH: dir, GIT_OBJECT_DIRECTORY: dir, GIT_ALTERNATE_OBJECT_DIRECTORIES: objectsDir(repo) } };
}
