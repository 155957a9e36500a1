// Kept for the modules that import the renderer by its old name: everything here comes from
// the report layer (src/report/), the one place results become text.

import type { GateResult } from './results';
import { renderText, toJson, outcomeOf } from './report/index';

export {
  blockedPaths,
  findingLine,
  identitiesOf,
  jsonFinding,
  machineLine,
  recommendedAction,
  short,
  shortRef,
  sortFindings,
  verdictLine,
  type JsonFinding,
} from './report/index';

export function renderHuman(result: Pick<GateResult, 'verdict' | 'findings'>, header?: string): string {
  return renderText({ verdict: result.verdict, findings: result.findings, header });
}

/** The --json object of docs/contract.md §3. */
export function toJsonOutput(result: GateResult, base: string | null, head: string | null): object {
  return toJson(outcomeOf('verify-ref', result, { base, head }));
}
