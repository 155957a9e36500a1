// JSON Schema validation of evidence files. The schemas in schemas/ are the single source of
// each file format; they are imported here so the bundle (dist/cli.js) carries them and the
// server hook needs nothing from a working tree.

import type Ajv2020 from 'ajv/dist/2020';
import type { ErrorObject, ValidateFunction } from 'ajv/dist/2020';
import catalogSchema from '../../schemas/catalog.schema.json';
import epochPinSchema from '../../schemas/epoch-pin.schema.json';
import fixtureRecordSchema from '../../schemas/fixture-record.schema.json';
import freezeSchema from '../../schemas/freeze.schema.json';
import keyedFreezeSchema from '../../schemas/keyed-freeze.schema.json';
import manifestSchema from '../../schemas/manifest.schema.json';
import observationSchema from '../../schemas/observation.schema.json';
import policySchema from '../../schemas/policy.schema.json';
import { isCalendarDate } from './dates';
import { byFile as precompiled } from './compiled-schemas';

export const SCHEMAS = {
  'policy.schema.json': policySchema,
  'epoch-pin.schema.json': epochPinSchema,
  'manifest.schema.json': manifestSchema,
  'catalog.schema.json': catalogSchema,
  'freeze.schema.json': freezeSchema,
  'observation.schema.json': observationSchema,
  'keyed-freeze.schema.json': keyedFreezeSchema,
  'fixture-record.schema.json': fixtureRecordSchema,
} as const;

export type SchemaFile = keyof typeof SCHEMAS;

/** One schema violation: where (RFC 6901 JSON pointer, "" for the whole document) and what was
 * expected, as a phrase ("expected a SHA-256 as 64 lowercase hex digits, found \"TODO\""). */
export interface SchemaProblem {
  pointer: string;
  message: string;
}

const SCHEMA_BASE = 'https://receipt-gate.dev/schemas/';

let ajv: Ajv2020 | null = null;

/** The ajv options; scripts/compile-schemas.cjs compiles ahead of time with the same ones. */
export const AJV_OPTIONS = {
  allErrors: true, // list every problem, not only the first
  verbose: true, // keep the failing subschema, for "expected …" phrases
  strict: true,
  strictTypes: false,
  strictTuples: false,
  logger: false,
} as const;
const compiled = new Map<string, ValidateFunction>();
const added = new Set<string>();

function validatorFor(schemaFile: string): ValidateFunction {
  const cached = compiled.get(schemaFile);
  if (cached) return cached;
  if (!Object.prototype.hasOwnProperty.call(SCHEMAS, schemaFile)) {
    throw new Error(`no schema named ${schemaFile} in schemas/`);
  }
  const validate = precompiled?.[schemaFile] ?? compileAtRunTime(SCHEMA_BASE + schemaFile);
  compiled.set(schemaFile, validate);
  return validate;
}

/** The one ajv set-up: AJV_OPTIONS, the `date` format as Python's datetime.date reads it, and
 * every evidence schema. Loaded only when a validator is not precompiled: the bundle carries
 * every evidence schema precompiled, so the hook never pays for ajv's compiler at start-up. */
function runtimeAjv(): Ajv2020 {
  if (!ajv) {
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded lazily, see above
    const { default: Ajv } = require('ajv/dist/2020') as typeof import('ajv/dist/2020');
    ajv = new Ajv({ ...AJV_OPTIONS });
    ajv.addFormat('date', { type: 'string', validate: isCalendarDate });
    for (const schema of Object.values(SCHEMAS)) ajv.addSchema(schema);
  }
  return ajv;
}

/** A validator for a schema with this `$id`; `schema` is added first when ajv does not have it
 * yet (schemas outside the evidence set, such as the receipt's). */
export function compileAtRunTime(id: string, schema?: object): ValidateFunction {
  const instance = runtimeAjv();
  if (schema && !added.has(id)) {
    instance.addSchema(schema, id);
    added.add(id);
  }
  const validate = instance.getSchema(id);
  if (!validate) throw new Error(`schema ${id} did not compile`);
  return validate;
}

/**
 * Validates `value` (plain JSON data; big integers may be `bigint`) against one of the schemas
 * in schemas/, e.g. `validateAgainst('freeze.schema.json', data)`. Returns every problem,
 * empty when the value is valid.
 */
export function validateAgainst(schemaFile: string, value: unknown): SchemaProblem[] {
  const validate = validatorFor(schemaFile);
  if (validate(forAjv(value))) return [];
  // An `if`/`then` failure is reported by the member the `then` constrains, not again as a
  // failure of the whole document.
  const problems = (validate.errors ?? []).filter((e) => e.keyword !== 'if').map((e) => describeError(e, value));
  return dedupe(problems);
}

/** Ajv knows numbers, not bigints: an integer too large for a double stands in as the largest
 * finite double of its sign, which is still an integer and still beyond every bound we set.
 * Ajv only reads the value (no defaults, no coercion), so a value without a bigint is passed as
 * it is; only the containers above a bigint are copied. */
function forAjv(value: unknown): unknown {
  if (typeof value === 'bigint') {
    if (Number.isSafeInteger(Number(value))) return Number(value);
    return value < 0n ? -Number.MAX_VALUE : Number.MAX_VALUE;
  }
  if (Array.isArray(value)) {
    let out: unknown[] | null = null;
    for (let i = 0; i < value.length; i++) {
      const item = forAjv(value[i]);
      if (item !== value[i]) (out ??= [...(value as unknown[])])[i] = item;
    }
    return out ?? value;
  }
  if (value !== null && typeof value === 'object') {
    const record = value as Record<string, unknown>;
    let changed: Map<string, unknown> | null = null;
    for (const key of Object.keys(record)) {
      const item = forAjv(record[key]);
      if (item !== record[key]) (changed ??= new Map()).set(key, item);
    }
    if (changed === null) return value;
    const out = {};
    for (const key of Object.keys(record)) {
      Object.defineProperty(out, key, {
        value: changed.has(key) ? changed.get(key) : record[key],
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
    return out;
  }
  return value;
}

function describeError(e: ErrorObject, original: unknown): SchemaProblem {
  const found = () => show(valueAt(original, e.instancePath));
  const expected = (fallback: string) => {
    // A leaf schema's description says what a valid value is ("a SHA-256 as 64 lowercase hex
    // digits"); a container's describes the whole format, so it is not used here.
    const schema = e.parentSchema as { description?: unknown; properties?: unknown; items?: unknown } | undefined;
    const leaf = schema && schema.properties === undefined && schema.items === undefined;
    return leaf && typeof schema.description === 'string' ? schema.description : fallback;
  };
  const params = e.params as Record<string, unknown>;
  switch (e.keyword) {
    case 'required': {
      const name = String(params.missingProperty);
      return { pointer: e.instancePath + '/' + escapePointer(name), message: `missing required member "${name}"` };
    }
    case 'dependentRequired': {
      const name = String(params.missingProperty);
      return {
        pointer: e.instancePath + '/' + escapePointer(name),
        message: `missing member "${name}", required when "${String(params.property)}" is present`,
      };
    }
    case 'additionalProperties': {
      const name = String(params.additionalProperty);
      const allowed = Object.keys(
        ((e.parentSchema as { properties?: object } | undefined)?.properties ?? {}) as object,
      );
      return {
        pointer: e.instancePath + '/' + escapePointer(name),
        message: `unexpected member "${name}" (allowed: ${allowed.join(', ') || 'none'})`,
      };
    }
    case 'type':
      return { pointer: e.instancePath, message: `expected ${expected(article(String(params.type)))}, found ${found()}` };
    case 'const':
      return { pointer: e.instancePath, message: `expected ${show(params.allowedValue)}, found ${found()}` };
    case 'enum':
      return {
        pointer: e.instancePath,
        message: `expected one of ${(params.allowedValues as unknown[]).map(show).join(', ')}, found ${found()}`,
      };
    case 'pattern':
    case 'format':
    case 'minLength':
    case 'minimum':
    case 'maximum':
      return { pointer: e.instancePath, message: `expected ${expected(String(e.message))}, found ${found()}` };
    case 'minItems':
      return { pointer: e.instancePath, message: `expected at least ${String(params.limit)} item(s), found ${found()}` };
    case 'uniqueItems':
      return {
        pointer: e.instancePath,
        message: `expected distinct items, found items ${String(params.j)} and ${String(params.i)} equal`,
      };
    default:
      return { pointer: e.instancePath, message: `${e.message ?? 'is invalid'}, found ${found()}` };
  }
}

function article(type: string): string {
  if (type === 'integer') return 'an integer';
  if (type === 'object') return 'an object';
  if (type === 'array') return 'an array';
  return `a ${type}`;
}

function dedupe(problems: SchemaProblem[]): SchemaProblem[] {
  const seen = new Set<string>();
  return problems.filter((p) => {
    const key = p.pointer + '\u0000' + p.message;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

function escapePointer(token: string): string {
  return token.replace(/~/g, '~0').replace(/\//g, '~1');
}

function valueAt(root: unknown, pointer: string): unknown {
  if (pointer === '') return root;
  let current: unknown = root;
  for (const raw of pointer.slice(1).split('/')) {
    const token = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (current === null || typeof current !== 'object') return undefined;
    if (!Object.prototype.hasOwnProperty.call(current, token)) return undefined;
    current = (current as Record<string, unknown>)[token];
  }
  return current;
}

/** A short rendering of a JSON value for messages. */
export function show(value: unknown): string {
  let text: string;
  if (value === undefined) return 'nothing';
  if (typeof value === 'bigint') text = value.toString();
  else if (typeof value === 'number' && !Number.isFinite(value)) text = String(value);
  else if (Array.isArray(value)) text = value.length === 0 ? 'an empty array' : 'an array';
  else if (value !== null && typeof value === 'object') text = 'an object';
  else text = JSON.stringify(value);
  if (typeof value === 'boolean') return `the boolean ${text}`;
  return text.length > 80 ? text.slice(0, 77) + '...' : text;
}
