// Validation of receipts against schemas/receipt.schema.json, with the evidence schemas' ajv
// set-up (src/evidence/schema.ts). The schema is imported as JSON so the esbuild bundle
// carries it.

import type { ValidateFunction } from 'ajv/dist/2020';
import receiptSchema from '../../schemas/receipt.schema.json';
import { compileAtRunTime } from '../evidence/schema';

let validateFn: ValidateFunction | null = null;

export interface SchemaProblem {
  pointer: string;
  message: string;
}

/** Problems of `value` against the receipt schema, each with its JSON pointer; [] when valid. */
export function receiptSchemaProblems(value: unknown): SchemaProblem[] {
  validateFn ??= compileAtRunTime(receiptSchema.$id, receiptSchema);
  if (validateFn(value)) return [];
  return (validateFn.errors ?? []).map((e) => ({
    pointer: e.instancePath || '/',
    message: `${e.message ?? 'is invalid'}${e.params && 'additionalProperty' in e.params ? ` ('${String(e.params.additionalProperty)}')` : ''}`,
  }));
}
