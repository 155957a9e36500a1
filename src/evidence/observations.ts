// Observations (observations/<id>.json beside the witness bytes observations/<id>.bin) and
// keyed freezes (freezes/<name>.json). A flaky test may hold a patch, never pass it, and only
// with proof: an observation from the pinned epoch that re-ran green, its witness present and
// matching, and an unexpired keyed freeze that cites it. An observation whose freeze was lifted
// (`receipt-gate freeze lift`) is archived: kept with its witness, read and hashed (a changed
// witness still closes), listed as OBSERVATION_ARCHIVED, and never FLAKE_UNFROZEN; no keyed
// freeze may cite it again.

import { finding, type Finding } from '../findings';
import { sha256Hex } from '../hash';
import { plural } from '../wording';
import { dateOf, dayNumber, todayNumber } from './dates';
import { DEFAULT_FREEZE } from './policy';
import { toPlain } from './pyjson';
import { anOwner, readFileBytes, readJsonEvidence, schemaFindings, type FileRole } from './read';
import { MAX_BLOB_BYTES, type EvidenceSource, type RuleContext } from './types';

export interface Observation {
  id: string;
  epoch_id: string;
  status: 'pass' | 'fail' | 'flake';
  rerun_passed: boolean;
  witness_sha256: string;
  /** Present once its keyed freeze was lifted. */
  archived?: ArchivedMark;
}

/** What `freeze lift` records on the observation it archives. */
export interface ArchivedMark {
  lifted_by: string;
  lifted_on: string;
  /** The keyed freeze that was removed, and what it said. */
  freeze: string;
  expires_on?: string;
  reason?: string;
}

export interface KeyedFreeze {
  observation_id: string;
  epoch_id: string;
  expires_on: string;
  reason: string;
}

export interface ObservationsCheck {
  findings: Finding[];
  /** observation id -> SHA-256 of its witness bytes, for every valid observation with a witness. */
  witnesses: Map<string, string>;
}

/** The `*.json` files directly inside `dir`, sorted. */
async function jsonFilesIn(source: EvidenceSource, dir: string): Promise<string[]> {
  const prefix = dir + '/';
  return (await source.list(dir)).filter(
    (p) => p.startsWith(prefix) && !p.slice(prefix.length).includes('/') && p.endsWith('.json'),
  );
}

function stemOf(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1, -'.json'.length);
}

interface ObservationState {
  path: string;
  record: Observation;
  /** Witness present and its digest equal to witness_sha256. */
  witnessOk: boolean;
}

/** What the keyed freezes are judged against. */
interface FreezeRules {
  pinnedEpoch: string | null;
  maxDays: number;
  owner: string;
  today: number;
}

/**
 * Checks every observation and keyed freeze. `pinnedEpoch` is the pin's epoch_id at `new`, or null
 * when the pin is missing or invalid (that is already a closing finding; epochs are then not
 * compared, and no keyed freeze is valid).
 */
export async function checkObservations(ctx: RuleContext, pinnedEpoch: string | null): Promise<ObservationsCheck> {
  const { policy } = ctx;
  const witnesses = new Map<string, string>();
  if (!policy.observations) return { findings: [], witnesses };
  const { dir, freezes } = policy.observations;
  const findings: Finding[] = [];

  // A folder replaced by a symlink, a submodule or a file would hide every record in it.
  findings.push(...(await folderFindings(ctx.atNew, dir, 'OBSERVATION_INVALID', 'observations')));
  findings.push(...(await folderFindings(ctx.atNew, freezes, 'FREEZE_INVALID', 'keyed freezes')));

  // Observations.
  const observations = new Map<string, ObservationState>();
  for (const path of await jsonFilesIn(ctx.atNew, dir)) {
    ctx.deadline.check();
    const checked = await checkObservation(ctx, path, dir, pinnedEpoch);
    findings.push(...checked.findings);
    if (!checked.state) continue;
    if (checked.sha256 !== null) witnesses.set(checked.state.record.id, checked.sha256);
    observations.set(checked.state.record.id, checked.state);
  }

  // Keyed freezes.
  const rules: FreezeRules = {
    pinnedEpoch,
    maxDays: policy.freeze?.maxDays ?? DEFAULT_FREEZE.maxDays,
    owner: anOwner(policy),
    today: todayNumber(ctx.today),
  };
  const heldObservations = new Set<string>();
  for (const path of await jsonFilesIn(ctx.atNew, freezes)) {
    ctx.deadline.check();
    const checked = await checkKeyedFreeze(ctx, path, observations, rules);
    findings.push(...checked.findings);
    if (checked.holds !== null) heldObservations.add(checked.holds);
  }

  // Flakes nobody froze (an archived flake was frozen, then lifted by an owner).
  for (const [id, state] of observations) {
    if (state.record.status === 'flake' && state.record.archived === undefined && !heldObservations.has(id)) {
      findings.push(
        finding('FLAKE_UNFROZEN', {
          path: state.path,
          message: `Observation ${id} is a flake that no valid keyed freeze in ${freezes}/ cites.`,
          fix: `fix the flaky test, or an owner freezes it with \`receipt-gate freeze add --observation ${id} --expires-on YYYY-MM-DD --reason TEXT\` (its re-run must have passed on the pinned epoch)`,
        }),
      );
    }
  }
  return { findings, witnesses };
}

/** One observation record and its witness. `state` is null when the record is not valid. */
async function checkObservation(
  ctx: RuleContext,
  path: string,
  dir: string,
  pinnedEpoch: string | null,
): Promise<{ findings: Finding[]; state: ObservationState | null; sha256: string | null }> {
  const stem = stemOf(path);
  const owner = anOwner(ctx.policy);
  const role: FileRole = {
    code: 'OBSERVATION_INVALID',
    what: 'observation record',
    notA: 'not a valid observation record',
    fix: `${owner} records the observation again with \`receipt-gate observe --id ${stem} --status S --witness FILE\` (format: schemas/observation.schema.json)`,
  };
  const record = await readRecord<Observation>(ctx, path, role, 'observation.schema.json');
  const findings = [...record.findings];
  if (!record.value) return { findings, state: null, sha256: null };
  const obs = record.value;
  if (obs.id !== stem) {
    findings.push(
      finding('OBSERVATION_INVALID', {
        path,
        message: `${path} is not a valid observation record: its id ${JSON.stringify(obs.id)} does not match the file name (${JSON.stringify(stem)}).`,
        fix: `${owner} names the file ${dir}/${obs.id}.json, or sets "id" to ${JSON.stringify(stem)}`,
      }),
    );
    return { findings, state: null, sha256: null };
  }
  if (obs.status === 'fail') {
    findings.push(
      finding('OBSERVATION_FAILED', {
        path,
        message: `Observation ${obs.id} has status fail: the property failed on the pinned epoch.`,
        fix: `fix the code so ${obs.id} passes, then ${owner} records a new observation; a failure cannot be frozen`,
      }),
    );
  }
  // An archived observation is history: it may be of an earlier epoch.
  if (pinnedEpoch !== null && obs.epoch_id !== pinnedEpoch && obs.archived === undefined) {
    findings.push(
      finding('OBSERVATION_EPOCH', {
        path,
        message: `Observation ${obs.id} was made on epoch ${obs.epoch_id}, but the pin names epoch ${pinnedEpoch}.`,
        fix: `re-run ${obs.id} on epoch ${pinnedEpoch}; ${owner} records it with \`receipt-gate observe\``,
      }),
    );
  }
  const witness = await checkWitness(ctx, `${dir}/${obs.id}.bin`, obs, path, owner);
  findings.push(...witness.findings);
  if (obs.archived !== undefined) findings.push(archivedFinding(path, `${dir}/${obs.id}.bin`, obs, obs.archived, witness.sha256));
  return { findings, state: { path, record: obs, witnessOk: witness.ok }, sha256: witness.sha256 };
}

/** One keyed freeze: valid (it holds the observation it cites, `holds`) only when it names the
 * pinned epoch, cites a valid observation of that epoch whose re-run passed and whose witness
 * matches, and is neither expired nor too long. */
async function checkKeyedFreeze(
  ctx: RuleContext,
  path: string,
  observations: Map<string, ObservationState>,
  rules: FreezeRules,
): Promise<{ findings: Finding[]; holds: string | null }> {
  const role: FileRole = {
    code: 'FREEZE_INVALID',
    what: 'keyed freeze',
    notA: 'not a valid keyed freeze',
    fix: `${anOwner(ctx.policy)} fixes ${path} to match schemas/keyed-freeze.schema.json, or deletes it`,
  };
  const record = await readRecord<KeyedFreeze>(ctx, path, role, 'keyed-freeze.schema.json');
  const findings = [...record.findings];
  if (!record.value) return { findings, holds: null };
  const kf = record.value;
  const { pinnedEpoch } = rules;
  const cited = observations.get(kf.observation_id);
  const problems = [
    ...(pinnedEpoch !== null && kf.epoch_id !== pinnedEpoch
      ? [
          finding('OBSERVATION_EPOCH', {
            path,
            message: `Keyed freeze ${path} names epoch ${kf.epoch_id}, but the pin names epoch ${pinnedEpoch}.`,
            fix: `freeze only observations of epoch ${pinnedEpoch}: ${rules.owner} re-observes on the pinned epoch, or deletes ${path}`,
          }),
        ]
      : []),
    ...citationFindings(path, kf, cited, ctx.policy.observations!.dir, rules.owner),
    ...expiryFindings(ctx, path, kf, rules),
  ];
  findings.push(...problems);
  // A missing or mismatched witness is reported once, on the observation; it also voids the freeze.
  const valid =
    pinnedEpoch !== null &&
    problems.length === 0 &&
    cited !== undefined &&
    cited.witnessOk &&
    cited.record.epoch_id === pinnedEpoch;
  if (!valid) return { findings, holds: null };
  findings.push(
    finding('FREEZE_HELD', {
      severity: 'hold',
      path,
      message: `Observation ${kf.observation_id} is a witnessed flake on epoch ${kf.epoch_id}, frozen until ${kf.expires_on} (${kf.reason}).`,
      fix: `a held patch may merge into unprotected refs only; fix the flaky test, then ${rules.owner} lifts the freeze (\`receipt-gate freeze lift ${kf.observation_id}\`) to clear the hold`,
    }),
  );
  return { findings, holds: kf.observation_id };
}

/** OBSERVATION_ARCHIVED (info): a lifted flake, kept with its witness. */
function archivedFinding(path: string, binPath: string, obs: Observation, mark: ArchivedMark, sha256: string | null): Finding {
  return finding('OBSERVATION_ARCHIVED', {
    severity: 'info',
    path,
    message: `Observation ${obs.id} (${obs.status} on epoch ${obs.epoch_id}) is archived: its keyed freeze ${mark.freeze} was lifted by ${mark.lifted_by} on ${mark.lifted_on}; the witness ${binPath} is kept${sha256 === null ? '' : ` (sha256 ${sha256})`}.`,
    fix: `nothing to do; if the test flakes again, record it as a new observation (\`receipt-gate observe --status flake --witness FILE\` picks a new id)`,
  });
}

/** FREEZE_UNWITNESSED: the freeze cites no valid observation, an archived one, or one whose re-run failed. */
function citationFindings(path: string, kf: KeyedFreeze, cited: ObservationState | undefined, dir: string, owner: string): Finding[] {
  if (!cited) {
    return [
      finding('FREEZE_UNWITNESSED', {
        path,
        message: `Keyed freeze ${path} cites observation ${JSON.stringify(kf.observation_id)}, but there is no valid ${dir}/${kf.observation_id}.json.`,
        fix: `${owner} records the observation with \`receipt-gate observe --id ${kf.observation_id} --status flake --witness FILE --rerun-passed\`, or deletes ${path}`,
      }),
    ];
  }
  if (cited.record.archived !== undefined) {
    return [
      finding('FREEZE_UNWITNESSED', {
        path,
        message: `Keyed freeze ${path} cites observation ${kf.observation_id}, which is archived: its freeze ${cited.record.archived.freeze} was lifted on ${cited.record.archived.lifted_on}.`,
        fix: `a lifted observation is not frozen again: ${owner} records the new flake as a new observation (\`receipt-gate observe --status flake --witness FILE --rerun-passed\`) and freezes that one, or deletes ${path}`,
      }),
    ];
  }
  if (!cited.record.rerun_passed) {
    return [
      finding('FREEZE_UNWITNESSED', {
        path,
        message: `Keyed freeze ${path} cites observation ${kf.observation_id}, whose re-run did not pass (rerun_passed is false).`,
        fix: `fix the test, or re-run ${kf.observation_id} until it passes and ${owner} records it with --rerun-passed; a freeze needs a green re-run`,
      }),
    ];
  }
  return [];
}

/** FREEZE_EXPIRED when `expires_on` is before today, FREEZE_WINDOW when it is more than maxDays
 * after today. */
function expiryFindings(ctx: RuleContext, path: string, kf: KeyedFreeze, rules: FreezeRules): Finding[] {
  const { today, maxDays } = rules;
  const expires = dayNumber(kf.expires_on)!; // the schema checked it is a real date
  if (expires < today) {
    return [
      finding('FREEZE_EXPIRED', {
        path,
        message: `Keyed freeze ${path} expired: its last day was ${kf.expires_on} and today is ${ctx.today}.`,
        fix: `${rules.owner} deletes ${path} once ${kf.observation_id} is fixed, or re-observes and freezes it again`,
      }),
    ];
  }
  if (expires - today > maxDays) {
    return [
      finding('FREEZE_WINDOW', {
        path,
        message: `Keyed freeze ${path} expires on ${kf.expires_on}, ${plural(expires - today, 'day')} after today (${ctx.today}), more than the policy's maxDays of ${maxDays}.`,
        fix: `${rules.owner} shortens the freeze: "expires_on" ${dateOf(today + maxDays)} or earlier`,
      }),
    ];
  }
  return [];
}

async function folderFindings(
  source: EvidenceSource,
  dir: string,
  code: 'OBSERVATION_INVALID' | 'FREEZE_INVALID',
  what: string,
): Promise<Finding[]> {
  const entry = await source.stat(dir);
  if (entry.kind === 'missing' || (entry.kind === 'other' && entry.what === 'directory')) return [];
  const found = entry.kind === 'file' ? 'a file' : `a ${entry.what}`;
  return [
    finding(code, {
      path: dir,
      message: `${dir}, the folder of ${what}, is ${found}, not a folder, so its records cannot be read.`,
      fix: `restore ${dir} as a plain folder of records`,
    }),
  ];
}

async function readRecord<T>(
  ctx: RuleContext,
  path: string,
  role: FileRole,
  schema: 'observation.schema.json' | 'keyed-freeze.schema.json',
): Promise<{ findings: Finding[]; value: T | null }> {
  const read = await readJsonEvidence(ctx.atNew, path, role, ctx.policy.limits.maxEvidenceBytes, ctx.deadline);
  if (read.kind === 'missing') return { findings: [], value: null }; // listed, then gone: not ours to report
  if (read.kind === 'failed') return { findings: read.findings, value: null };
  const plain = toPlain(read.value, ctx.deadline);
  const findings = schemaFindings(role, path, schema, plain, ctx.deadline);
  return { findings, value: findings.length === 0 ? (plain as T) : null };
}

async function checkWitness(
  ctx: RuleContext,
  binPath: string,
  obs: Observation,
  recordPath: string,
  owner: string,
): Promise<{ findings: Finding[]; sha256: string | null; ok: boolean }> {
  const role: FileRole = {
    code: 'WITNESS_MISSING',
    what: 'witness',
    notA: 'not a usable witness',
    fix: `${owner} stores the witness bytes of ${obs.id} as the regular file ${binPath} (\`receipt-gate observe --witness FILE\`)`,
  };
  const read = await readFileBytes(ctx.atNew, binPath, role, MAX_BLOB_BYTES, ctx.deadline);
  if (read.kind === 'missing') {
    return {
      findings: [
        finding('WITNESS_MISSING', {
          path: binPath,
          message: `The witness ${binPath} of observation ${obs.id} (${recordPath}) is missing.`,
          fix: role.fix,
        }),
      ],
      sha256: null,
      ok: false,
    };
  }
  if (read.kind === 'failed') return { findings: read.findings, sha256: null, ok: false };
  const sha256 = sha256Hex(read.bytes, ctx.deadline);
  if (sha256 !== obs.witness_sha256) {
    return {
      findings: [
        finding('WITNESS_MISMATCH', {
          path: binPath,
          message: `The witness ${binPath} has SHA-256 ${sha256}, but ${recordPath} records ${obs.witness_sha256}.`,
          fix: `restore the recorded witness bytes, or ${owner} records the observation again with \`receipt-gate observe --id ${obs.id}\``,
        }),
      ],
      sha256,
      ok: false,
    };
  }
  return { findings: [], sha256, ok: true };
}
