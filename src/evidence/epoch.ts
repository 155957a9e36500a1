// The epoch pin (fixtures/EPOCH): names the fixture epoch and pins the SHA-256 of the
// generator's blob bytes. A pin that keeps the base's epoch_id must keep its digest too: a new
// generator is a new epoch, re-pinned by an owner under a new id.

import type { Deadline } from '../deadline';
import { finding, type Finding } from '../findings';
import { sha256Hex } from '../hash';
import { toPlain } from './pyjson';
import { anOwner, readFileBytes, readJsonEvidence, schemaFindings, type FileRole } from './read';
import { MAX_BLOB_BYTES, type EpochPin, type EvidenceSource, type Policy, type RuleContext } from './types';


export interface EpochCheck {
  findings: Finding[];
  /** The pin at `new` when it is valid, else null. */
  pin: EpochPin | null;
  /** SHA-256 of the generator blob at `new`, when it could be read. */
  generatorSha256: string | null;
}

function pinRole(policy: Policy, pinPath: string): FileRole {
  return {
    code: 'EPOCH_INVALID',
    what: 'epoch pin',
    notA: 'not a valid epoch pin',
    fix: `${anOwner(policy)} rewrites ${pinPath} with \`receipt-gate epoch pin --id ID\` (format: schemas/epoch-pin.schema.json)`,
  };
}

/** Reads and validates a pin; `pin` is null when it is missing or invalid. */
export async function readPin(
  source: EvidenceSource,
  pinPath: string,
  policy: Policy,
  deadline: Deadline,
): Promise<{ findings: Finding[]; pin: EpochPin | null; missing: boolean }> {
  const read = await readJsonEvidence(source, pinPath, pinRole(policy, pinPath), policy.limits.maxEvidenceBytes, deadline);
  if (read.kind === 'missing') return { findings: [], pin: null, missing: true };
  if (read.kind === 'failed') return { findings: read.findings, pin: null, missing: false };
  const plain = toPlain(read.value, deadline);
  const findings = schemaFindings(pinRole(policy, pinPath), pinPath, 'epoch-pin.schema.json', plain, deadline);
  if (findings.length > 0) return { findings, pin: null, missing: false };
  const p = plain as { epoch_id: string; generator: string; generator_sha256: string; inputs?: string[] };
  return {
    findings: [],
    pin: { epoch_id: p.epoch_id, generator: p.generator, generator_sha256: p.generator_sha256, inputs: p.inputs ?? [] },
    missing: false,
  };
}

export async function checkEpoch(ctx: RuleContext): Promise<EpochCheck> {
  const { policy } = ctx;
  if (!policy.epoch) return { findings: [], pin: null, generatorSha256: null };
  const pinPath = policy.epoch.pin;
  const owner = anOwner(policy);

  const atNew = await readPin(ctx.atNew, pinPath, policy, ctx.deadline);
  if (atNew.missing) {
    return {
      findings: [
        finding('EPOCH_MISSING', {
          path: pinPath,
          message: `The epoch pin ${pinPath} is missing from ${ctx.atNew.label}.`,
          fix: `${owner} pins the fixture generator with \`receipt-gate epoch pin --id ID\` and commits ${pinPath}`,
        }),
      ],
      pin: null,
      generatorSha256: null,
    };
  }
  if (!atNew.pin) return { findings: atNew.findings, pin: null, generatorSha256: null };
  const pin = atNew.pin;
  const findings: Finding[] = [];

  // The generator's blob bytes, as stored, against the pinned digest.
  const generatorRole: FileRole = {
    code: 'EPOCH_INVALID',
    what: 'fixture generator',
    notA: `not a valid fixture generator (named by ${pinPath})`,
    fix: `restore ${pin.generator} as a regular file, or ${owner} re-pins with \`receipt-gate epoch pin --id NEW_ID\``,
  };
  let generatorSha256: string | null = null;
  const generator = await readFileBytes(ctx.atNew, pin.generator, generatorRole, MAX_BLOB_BYTES, ctx.deadline);
  if (generator.kind === 'missing') {
    findings.push(
      finding('EPOCH_MISSING', {
        path: pin.generator,
        message: `The generator ${pin.generator} named by the epoch pin ${pinPath} is missing.`,
        fix: `restore ${pin.generator}, or ${owner} re-pins with \`receipt-gate epoch pin --id NEW_ID\``,
      }),
    );
  } else if (generator.kind === 'failed') {
    findings.push(...generator.findings);
  } else {
    generatorSha256 = sha256Hex(generator.bytes, ctx.deadline);
    if (generatorSha256 !== pin.generator_sha256) {
      findings.push(
        finding('EPOCH_MISMATCH', {
          path: pin.generator,
          message: `The generator ${pin.generator} has SHA-256 ${generatorSha256}, but ${pinPath} pins ${pin.generator_sha256} for epoch ${pin.epoch_id}.`,
          fix: `restore the pinned ${pin.generator}, or ${owner} pins the new generator as a new epoch with \`receipt-gate epoch pin --id NEW_ID\``,
        }),
      );
    }
  }

  // The same epoch_id at the base must keep its digest.
  if (ctx.atBase) {
    const atBase = await readPin(ctx.atBase, pinPath, policy, ctx.deadline);
    const before = atBase.pin;
    if (before && before.epoch_id === pin.epoch_id && before.generator_sha256 !== pin.generator_sha256) {
      findings.push(
        finding('EPOCH_REWRITTEN', {
          path: pinPath,
          message: `${pinPath} keeps epoch_id ${pin.epoch_id} but changes its generator_sha256 from ${before.generator_sha256} (${ctx.atBase.label}) to ${pin.generator_sha256}.`,
          fix: `keep the digest of epoch ${pin.epoch_id}; a new generator is a new epoch: ${owner} re-pins with \`receipt-gate epoch pin --id NEW_ID\``,
        }),
      );
    }
  }
  return { findings, pin, generatorSha256 };
}
