// Every evidence rule over the whole tree at `new`: the epoch pin, the property manifest, the
// freeze file, observations and keyed freezes, fixture records. Each rule is its own module;
// this one runs them in a fixed order and gathers their findings, the evidence identities that
// --json output and receipts record, and what the rules parsed (for the receipt).

import { Deadline, DeadlineExceeded } from '../deadline';
import { emptyIdentities, finding, type Finding, type Identities } from '../findings';
import { checkEpoch } from './epoch';
import { checkFixtures } from './fixtures';
import { checkFreezeFile } from './freeze';
import { checkManifest } from './manifest';
import { checkObservations } from './observations';
import { printable } from '../quote';
import { byCodeUnit } from './sources';
import type { EvidenceContext, EvidenceReport, EvidenceResults, RuleContext } from './types';

/** Runs every rule. A rule that throws is a closing INTERNAL_ERROR naming it, except when the
 * deadline passed: DeadlineExceeded propagates, and the caller reports LIMIT_EXCEEDED. */
export async function checkEvidence(context: EvidenceContext): Promise<EvidenceReport> {
  const ctx: RuleContext = { ...context, deadline: context.deadline ?? Deadline.never() };
  const findings: Finding[] = [];
  const identities = emptyIdentities();
  const results: EvidenceResults = {
    pin: null,
    manifestSeed: null,
    freeze: { freezeFileSha256: null, active: [], expired: [] },
    fixtures: [],
  };

  const epoch = await guarded('epoch pin', ctx.policy.epoch?.pin, findings, () => checkEpoch(ctx));
  if (epoch) {
    findings.push(...epoch.findings);
    results.pin = epoch.pin;
    identities.epoch_id = epoch.pin?.epoch_id ?? null;
    identities.generator_sha256 = epoch.generatorSha256;
  }

  const manifest = await guarded('property manifest', ctx.policy.manifest?.path, findings, () => checkManifest(ctx));
  if (manifest) {
    findings.push(...manifest.findings);
    results.manifestSeed = manifest.seed;
    identities.manifest_sha256 = manifest.manifestSha256;
  }

  const freeze = await guarded('freeze file', ctx.policy.freeze?.path, findings, () => checkFreezeFile(ctx));
  if (freeze) {
    const { findings: freezeFindings, ...state } = freeze;
    findings.push(...freezeFindings);
    results.freeze = state;
    identities.freeze_file_sha256 = freeze.freezeFileSha256;
  }

  // Observations compare against the pin's epoch; with no valid pin (already a closing finding)
  // they are not compared and no keyed freeze holds.
  const pinnedEpoch = epoch?.pin?.epoch_id ?? null;
  const observations = await guarded('observations', ctx.policy.observations?.dir, findings, () =>
    checkObservations(ctx, pinnedEpoch),
  );
  if (observations) {
    findings.push(...observations.findings);
    recordWitnesses(identities, observations.witnesses);
  }

  const fixtures = await guarded('fixture records', ctx.policy.fixtures?.records, findings, () => checkFixtures(ctx));
  if (fixtures) {
    findings.push(...fixtures.findings);
    results.fixtures = fixtures.records;
  }

  return { findings: findings.map(printableFinding), identities, results };
}

function recordWitnesses(identities: Identities, witnesses: Map<string, string>): void {
  for (const [id, sha256] of [...witnesses].sort(([a], [b]) => byCodeUnit(a, b))) {
    // defineProperty: an observation may be named "__proto__".
    Object.defineProperty(identities.witnesses, id, { value: sha256, enumerable: true, writable: true, configurable: true });
  }
}

/** Messages quote names and text taken from the tree (file names, ids, reasons). Control,
 * line-separator and bidirectional-override characters in them are shown escaped (\u001b),
 * so evidence cannot forge extra lines or recolour a terminal or a `remote:` message. */
export function printableFinding(f: Finding): Finding {
  return { ...f, message: printable(f.message, { spelling: 'unicode' }), fix: printable(f.fix, { spelling: 'unicode' }) };
}

/** Runs one rule; anything it throws (an unreadable object, a bug) becomes a closing
 * INTERNAL_ERROR finding that names the rule, never a silent pass. Running out of time is not a
 * failure of the rule: DeadlineExceeded goes on up. */
async function guarded<T>(
  rule: string,
  path: string | undefined,
  findings: Finding[],
  run: () => Promise<T>,
): Promise<T | null> {
  try {
    return await run();
  } catch (err) {
    if (err instanceof DeadlineExceeded) throw err;
    const reason = err instanceof Error ? err.message : String(err);
    findings.push(
      finding('INTERNAL_ERROR', {
        ...(path !== undefined ? { path } : {}),
        message: `Checking the ${rule} failed: ${reason}.`,
        fix: 'the gate failed closed; retry, and if it persists report it with this message to the repository owners',
      }),
    );
    return null;
  }
}
