// What every output form is rendered from: the verdict of one command's run, its findings,
// the evidence identities and the commits it compared. Built once per run from the engine's
// result (or, for `check`, from the findings on the files named).

import type { GateResult } from '../results';
import { emptyIdentities, type Finding, type Identities } from '../findings';
import { verdictOf, type Verdict } from '../verdict';

export interface Outcome {
  /** The command that ran, e.g. `verify-ref` (SARIF's invocation, JUnit's suite name). */
  command: string;
  verdict: Verdict;
  findings: readonly Finding[];
  identities: Identities;
  /** The base commit and the commit judged, when the command compares two. */
  base: string | null;
  head: string | null;
  /** The owners of the policy in force; null when no policy was read. */
  owners: readonly string[] | null;
  /** The first line of the terminal form (what was checked, against what, as whom). */
  header?: string;
  /** With bounded contexts: each context's verdict over the run's refs. */
  contexts?: OutcomeContext[];
}

export interface OutcomeContext {
  name: string;
  root: string;
  /** True when some ref update of the run touches the context. */
  touched: boolean;
  /** The most severe verdict the context has on any ref. */
  verdict: Verdict;
  /** The context's evidence identities (those of the last ref update that read its evidence;
   * all null when none did: an untouched context judged at the base is not read again). */
  identities: Identities;
}

const SEVERITY: Record<Verdict, number> = { eligible: 0, hold: 1, closed: 2 };

/** Each context's verdict over every ref update (the most severe), in policy order. */
export function contextsOf(result: ResultLike): OutcomeContext[] | undefined {
  const byName = new Map<string, OutcomeContext>();
  for (const ref of result.refs ?? []) {
    for (const c of ref.contexts ?? []) {
      const seen = byName.get(c.name);
      if (!seen) byName.set(c.name, { name: c.name, root: c.root, touched: c.touched, verdict: c.verdict, identities: c.identities ?? emptyIdentities() });
      else {
        seen.touched ||= c.touched;
        if (SEVERITY[c.verdict] > SEVERITY[seen.verdict]) seen.verdict = c.verdict;
        if (c.identities && readAny(c.identities)) seen.identities = c.identities;
      }
    }
  }
  return byName.size > 0 ? [...byName.values()] : undefined;
}

/** The shape of an engine result the report layer reads. */
export type ResultLike = Pick<GateResult, 'verdict' | 'findings' | 'policy'> & Partial<Pick<GateResult, 'refs'>>;

/** Whether any identity was read. */
function readAny(i: Identities): boolean {
  return i.epoch_id !== null || i.freeze_file_sha256 !== null || i.manifest_sha256 !== null || Object.keys(i.witnesses).length > 0;
}

/** Identities of the run: those of the last ref update that had a tree to check. */
export function identitiesOf(result: ResultLike): Identities {
  const withTree = (result.refs ?? []).filter((r) => readAny(r.identities));
  return withTree.length ? withTree[withTree.length - 1]!.identities : emptyIdentities();
}

export function outcomeOf(
  command: string,
  result: ResultLike,
  at: { base?: string | null; head?: string | null; header?: string } = {},
): Outcome {
  const contexts = contextsOf(result);
  return {
    command,
    verdict: result.verdict,
    findings: result.findings,
    identities: identitiesOf(result),
    base: at.base ?? null,
    head: at.head ?? null,
    owners: result.policy ? result.policy.owners : null,
    header: at.header,
    ...(contexts ? { contexts } : {}),
  };
}

/** An outcome made of findings alone (check: files of the working tree, no ref update). */
export function findingsOutcome(
  command: string,
  findings: readonly Finding[],
  opts: { owners?: readonly string[] | null; header?: string } = {},
): Outcome {
  return {
    command,
    verdict: verdictOf(findings),
    findings,
    identities: emptyIdentities(),
    base: null,
    head: null,
    owners: opts.owners ?? null,
    header: opts.header,
  };
}
