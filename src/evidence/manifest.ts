// The property manifest (checks/manifest.json): the seed and the properties a run checks, and
// their digest, the SHA-256 of Python's canonical JSON of {"seed", "properties"}. With a
// catalog, the properties must be exactly CPython's random.Random(seed).sample(catalog, k).

import { finding, type Finding } from '../findings';
import { sha256Hex } from '../hash';
import { dumpsCanonical, pyEquals, toPlain, type PyValue } from './pyjson';
import { PyRandom, PySampleError } from './pyrandom';
import { anOwner, member, readJsonEvidence, schemaFindings, SHA256_RE, type FileRole } from './read';
import { show } from './schema';
import type { Deadline } from '../deadline';
import type { Policy, RuleContext } from './types';

export interface ManifestCheck {
  findings: Finding[];
  /** The recorded manifest_sha256 when it verifies, else the computed digest, else null. */
  manifestSha256: string | null;
  /** The manifest's seed, when it is an integer. */
  seed: bigint | null;
}

/** SHA-256 of `json.dumps({"seed": seed, "properties": properties}, sort_keys=True,
 * separators=(",", ":"))`, the values exactly as parsed. */
export function manifestDigest(seed: PyValue, properties: PyValue, deadline?: Deadline): string {
  const doc: PyValue = { t: 'dict', v: new Map([['seed', seed], ['properties', properties]]) };
  deadline?.check();
  const canonical = dumpsCanonical(doc, deadline ?? {});
  deadline?.check();
  return sha256Hex(canonical, deadline);
}

function manifestRole(policy: Policy, path: string): FileRole {
  return {
    code: 'MANIFEST_INVALID',
    what: 'property manifest',
    notA: 'not a valid property manifest',
    fix: `${anOwner(policy)} regenerates ${path} with \`receipt-gate manifest sample --seed N\` (format: schemas/manifest.schema.json)`,
  };
}

function catalogRole(policy: Policy, path: string): FileRole {
  return {
    code: 'MANIFEST_INVALID',
    what: 'property catalog',
    notA: 'not a valid property catalog',
    fix: `${anOwner(policy)} fixes the catalog ${path} (format: schemas/catalog.schema.json)`,
  };
}


export async function checkManifest(ctx: RuleContext): Promise<ManifestCheck> {
  const { policy } = ctx;
  const none: ManifestCheck = { findings: [], manifestSha256: null, seed: null };
  if (!policy.manifest) return none;
  const path = policy.manifest.path;
  const role = manifestRole(policy, path);
  const owner = anOwner(policy);

  const read = await readJsonEvidence(ctx.atNew, path, role, policy.limits.maxEvidenceBytes, ctx.deadline);
  if (read.kind === 'missing') {
    return {
      ...none,
      findings: [
        finding('MANIFEST_INVALID', {
          path,
          message: `The property manifest ${path} is missing from ${ctx.atNew.label}.`,
          fix: `${owner} writes ${path} with \`receipt-gate manifest sample --seed N\``,
        }),
      ],
    };
  }
  if (read.kind === 'failed') return { ...none, findings: read.findings };

  const findings = schemaFindings(role, path, 'manifest.schema.json', toPlain(read.value, ctx.deadline), ctx.deadline);
  const seed = member(read.value, 'seed');
  const properties = member(read.value, 'properties');
  const recorded = member(read.value, 'manifest_sha256');
  // JSON Schema counts 5.0 as an integer; Python does not (Random(5.0) draws differently).
  if (seed?.t === 'float' && Number.isInteger(seed.v)) {
    findings.push(
      finding('MANIFEST_INVALID', {
        path,
        message: `${path} is not a valid property manifest: at /seed: expected an integer, found the float ${dumpsCanonical(seed)}.`,
        fix: role.fix,
      }),
    );
  }
  const seedOk = seed?.t === 'int';
  let manifestSha256: string | null = null;
  if (seedOk && properties?.t === 'list') {
    const computed = manifestDigest(seed, properties, ctx.deadline);
    manifestSha256 = computed;
    if (recorded?.t === 'str' && SHA256_RE.test(recorded.v)) {
      if (recorded.v === computed) {
        manifestSha256 = recorded.v;
      } else {
        findings.push(
          finding('MANIFEST_DIGEST', {
            path,
            message: `${path} records manifest_sha256 ${recorded.v}, but the canonical JSON of its seed and properties hashes to ${computed}.`,
            fix: `restore the recorded seed and properties, or ${owner} regenerates ${path} with \`receipt-gate manifest sample --seed N\``,
          }),
        );
      }
    }
  }

  if (policy.manifest.catalog !== undefined && seedOk && properties?.t === 'list') {
    findings.push(...(await checkSample(ctx, policy, path, seed.v, properties.v)));
  } else if (policy.manifest.catalog !== undefined) {
    // The draw cannot be checked without a seed and properties, but the catalog itself can.
    findings.push(...(await readCatalog(ctx, policy, policy.manifest.catalog)).findings);
  }
  return { findings, manifestSha256, seed: seedOk ? seed.v : null };
}

interface Catalog {
  properties: PyValue[];
  k: bigint;
}

async function readCatalog(
  ctx: RuleContext,
  policy: Policy,
  catalogPath: string,
): Promise<{ findings: Finding[]; catalog: Catalog | null }> {
  const role = catalogRole(policy, catalogPath);
  const read = await readJsonEvidence(ctx.atNew, catalogPath, role, policy.limits.maxEvidenceBytes, ctx.deadline);
  // The catalog is optional (docs/evidence.md, Property manifest): a policy may name it before it exists. Deleting
  // it is a touch of a protected evidence path, which the path rule closes for non-owners.
  if (read.kind === 'missing') return { findings: [], catalog: null };
  if (read.kind === 'failed') return { findings: read.findings, catalog: null };
  const findings = schemaFindings(role, catalogPath, 'catalog.schema.json', toPlain(read.value, ctx.deadline), ctx.deadline);
  const k = member(read.value, 'k');
  if (k?.t === 'float' && Number.isInteger(k.v)) {
    findings.push(
      finding('MANIFEST_INVALID', {
        path: catalogPath,
        message: `${catalogPath} is not a valid property catalog: at /k: expected an integer, found the float ${dumpsCanonical(k)}.`,
        fix: role.fix,
      }),
    );
  }
  const properties = member(read.value, 'properties');
  if (findings.length > 0 || k?.t !== 'int' || properties?.t !== 'list') return { findings, catalog: null };
  return { findings, catalog: { properties: properties.v, k: k.v } };
}

async function checkSample(
  ctx: RuleContext,
  policy: Policy,
  manifestPath: string,
  seed: bigint,
  properties: PyValue[],
): Promise<Finding[]> {
  const catalogPath = policy.manifest!.catalog!;
  const { findings, catalog } = await readCatalog(ctx, policy, catalogPath);
  if (!catalog) return findings;
  const owner = anOwner(policy);
  const n = catalog.properties.length;
  const sampleFix = `${owner} redraws ${manifestPath} with \`receipt-gate manifest sample --seed ${seed}\``;
  if (catalog.k < 0n || catalog.k > BigInt(n)) {
    return [
      finding('MANIFEST_SAMPLE', {
        path: catalogPath,
        message: `${catalogPath} asks for k = ${catalog.k} properties, but a sample from its ${propertiesCount(n)} needs 0 <= k <= ${n}.`,
        fix: `${owner} sets "k" in ${catalogPath} between 0 and ${n}`,
      }),
    ];
  }
  const k = Number(catalog.k);
  let drawn: PyValue[];
  try {
    ctx.deadline.check();
    drawn = new PyRandom(seed).sample(catalog.properties, k);
    ctx.deadline.check();
  } catch (err) {
    if (!(err instanceof PySampleError)) throw err;
    return [
      finding('MANIFEST_SAMPLE', {
        path: catalogPath,
        message: `random.Random(${seed}).sample over ${catalogPath} failed: ${err.message}.`,
        fix: `${owner} fixes ${catalogPath}`,
      }),
    ];
  }
  const names = (list: PyValue[]) =>
    list.length <= 8
      ? list.map(nameOf).join(', ')
      : `${list.slice(0, 8).map(nameOf).join(', ')} and ${list.length - 8} more`;
  if (properties.length !== drawn.length) {
    return [
      finding('MANIFEST_SAMPLE', {
        path: manifestPath,
        message: `${manifestPath} lists ${propertiesCount(properties.length)} (${names(properties)}), but random.Random(${seed}).sample(${catalogPath}, ${k}) draws ${k} (${names(drawn)}).`,
        fix: sampleFix,
      }),
    ];
  }
  const at = drawn.findIndex((d, i) => !pyEquals(properties[i]!, d));
  if (at !== -1) {
    return [
      finding('MANIFEST_SAMPLE', {
        path: manifestPath,
        message: `${manifestPath} property ${at} is ${nameOf(properties[at]!)}, but random.Random(${seed}).sample(${catalogPath}, ${k}) draws ${nameOf(drawn[at]!)} there (expected: ${names(drawn)}).`,
        fix: sampleFix,
      }),
    ];
  }
  return [];
}

function nameOf(v: PyValue): string {
  const name = member(v, 'name');
  const text = name?.t === 'str' ? JSON.stringify(name.v) : show(toPlain(v));
  return text.length > 60 ? text.slice(0, 57) + '...' : text;
}

function propertiesCount(n: number): string {
  return `${n} ${n === 1 ? 'property' : 'properties'}`;
}
