// `receipt-gate check FILE... [--now YYYY-MM-DD]` — validates evidence files in the working
// tree with the gate's own rules, for lint-staged (which passes absolute paths, with unstaged
// changes stashed, so the working tree holds what is staged).
//
// Every evidence file of the working tree is checked together (a freeze cites an observation,
// a pin names a generator), and the findings on the files named are reported: schema errors
// with the file, the JSON pointer and what was expected, digest and expiry errors. The policy
// is the working tree's own (a staged policy is checked against its schema first).

import { realpathSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { parseCommandArgs } from '../args';
import { resolveBase } from '../run/base';
import { locateWorktree } from '../client/git-cli';
import { today } from '../clock';
import { internalError } from '../rules/errors';
import { checkEvidence } from '../evidence/index';
import { parsePolicy } from '../evidence/policy';
import { DirectorySource } from '../evidence/sources';
import { TreeSource } from '../evidence/tree-source';
import { POLICY_PATH } from '../evidence/types';
import type { Finding } from '../findings';
import { ObjectStore } from '../git/store';
import { UsageError, type CliIO } from '../io';
import { findingLine, sortFindings, verdictLine } from '../render';
import { EXIT, verdictOf } from '../verdict';

const USAGE = 'receipt-gate check FILE... [--now YYYY-MM-DD]';

export async function run(args: string[], io: CliIO): Promise<number> {
  const cli = parseCommandArgs(
    args,
    { now: { type: 'string' } },
    USAGE,
    io,
  );
  if (!cli) return 0;
  const { values, positionals } = cli;
  if (positionals.length === 0) throw new UsageError(`name at least one FILE\nusage: ${USAGE}`);
  const date = today(io, values.now);
  const worktree = locateWorktree(io.cwd, io.env);
  const files = positionals.map((p) => repoPath(worktree.top, io.cwd, p));

  const tree = new DirectorySource(worktree.top, 'the working tree');
  const policyEntry = await tree.stat(POLICY_PATH);
  if (policyEntry.kind === 'missing') {
    io.stderr(`receipt-gate check: no ${POLICY_PATH} at ${worktree.top}: nothing to check against (run 'receipt-gate init' first)\n`);
    return EXIT.usage;
  }
  const findings: Finding[] = [];
  const parsed =
    policyEntry.kind === 'file'
      ? parsePolicy(await policyEntry.read())
      : {
          ok: false as const,
          findings: [
            {
              code: 'POLICY_INVALID' as const,
              severity: 'closed' as const,
              path: POLICY_PATH,
              message: `${POLICY_PATH} is a ${policyEntry.what}, not a file`,
              fix: `an owner replaces it with a policy file (schemas/policy.schema.json)`,
            },
          ],
        };
  if (!parsed.ok) {
    findings.push(...parsed.findings);
  } else {
    // The base side of the epoch rule: the remote-tracking base branch, or HEAD.
    let store: ObjectStore | null = null;
    try {
      store = await ObjectStore.discover(worktree.top, io.env);
      const base = await resolveBase(store, { kind: 'client', remote: 'origin', fallbacks: ['HEAD'] });
      const baseTree = base.tip === null ? null : (await store.readCommit(base.tip)).tree;
      const report = await checkEvidence({
        policy: parsed.policy,
        atNew: tree,
        atBase: baseTree === null ? null : new TreeSource(store, baseTree, base.name ?? 'the base'),
        today: date,
      });
      const named = new Set(files);
      findings.push(...report.findings.filter((f) => f.path !== undefined && named.has(f.path)));
    } catch (err) {
      findings.push(internalError(err, {}));
    } finally {
      store?.close();
    }
  }

  const verdict = verdictOf(findings);
  if (findings.length > 0) {
    const lines = sortFindings(findings).map((f) => `  ${findingLine(f)}`);
    const out = `receipt-gate check (${files.length} file${files.length === 1 ? '' : 's'}, ${date}):\n${lines.join('\n')}\n${verdictLine(verdict, findings)}\n`;
    if (verdict === 'closed') io.stderr(out);
    else io.stdout(out);
  }
  return verdict === 'closed' ? EXIT.closed : EXIT.eligible;
}

/** The repository path of a FILE argument (absolute, or relative to the current directory). */
function repoPath(top: string, cwd: string, file: string): string {
  const given = isAbsolute(file) ? file : resolve(cwd, file);
  // git reports the top level with symlinks resolved; resolve the file's folder the same way.
  let absolute = given;
  try {
    absolute = join(realpathSync(dirname(given)), basename(given));
  } catch {
    // a folder that does not exist: the path is taken as given
  }
  const rel = relative(top, absolute);
  if (rel === '' || rel.startsWith('..') || isAbsolute(rel)) {
    throw new UsageError(`${file} is outside the working tree ${top}`);
  }
  return rel.split(sep).join('/');
}
