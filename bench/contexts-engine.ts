// In-process timing of the engine on the bounded-contexts repositories (bench/lib/contexts.mjs):
// the same 1-commit ref update judged against main, in one process, so the cost of the contexts
// is measured without the noise of starting node and git for each push. Each round judges every
// repository once, in rotating order, on a fresh object store (no cache carried over).
//   npx tsx bench/contexts-engine.ts ROUNDS DIR...   prints one JSON line per DIR
import { evaluate } from '../src/engine';
import { openRepository } from '../src/run/repository';
import { resolveBase } from '../src/run/base';
import { ZERO_OID } from '../src/types';
import { History } from '../src/git/history/history';

async function judge(dir: string): Promise<{ ms: number; verdict: string }> {
  const started = process.hrtime.bigint();
  const store = await openRepository(dir, {});
  const base = await resolveBase(store, { kind: 'named', spec: 'refs/heads/main' });
  const tip = (await store.refs.resolve('refs/heads/p1'))!;
  const result = await evaluate({ store, history: new History(store), base, identity: null, today: '2026-11-20', scope: { kind: 'base', exclude: [] } }, [{ old: ZERO_OID, new: tip, ref: 'refs/heads/p1' }]);
  return { ms: Number(process.hrtime.bigint() - started) / 1e6, verdict: result.verdict };
}

async function main(): Promise<void> {
  const [roundsText, ...dirs] = process.argv.slice(2);
  const rounds = Number(roundsText);
  const times = new Map<string, number[]>(dirs.map((d) => [d, []]));
  const verdicts = new Map<string, string>();
  for (let r = -3; r < rounds; r++) {
    for (let k = 0; k < dirs.length; k++) {
      const dir = dirs[(Math.max(r, 0) + k) % dirs.length]!;
      const { ms, verdict } = await judge(dir);
      verdicts.set(dir, verdict);
      if (r >= 0) times.get(dir)!.push(ms); // three warm-up rounds first
    }
  }
  for (const dir of dirs) {
    const xs = [...times.get(dir)!].sort((a, b) => a - b);
    const median = xs.length % 2 ? xs[(xs.length - 1) / 2]! : (xs[xs.length / 2 - 1]! + xs[xs.length / 2]!) / 2;
    process.stdout.write(`${JSON.stringify({ dir, rounds, medianMs: median, minMs: xs[0], maxMs: xs[xs.length - 1], verdict: verdicts.get(dir) })}\n`);
  }
}

main().catch((err) => {
  process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
