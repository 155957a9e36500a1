// Validation of receipts against schemas/receipt.schema.json (ajv, draft 2020-12). The schema
// is imported as JSON so the esbuild bundle carries it.

import Ajv2020 from 'ajv/dist/2020';
import receiptSchema from '../../schemas/receipt.schema.json';

let validateFn: ReturnType<Ajv2020['compile']> | null = null;

export interface SchemaProblem {
  pointer: string;
  message: string;
}

/** Problems of `value` against the receipt schema, each with its JSON pointer; [] when valid. */
export function receiptSchemaProblems(value: unknown): SchemaProblem[] {
  if (!validateFn) {
    const ajv = new Ajv2020({ allErrors: true, strict: true });
    validateFn = ajv.compile(receiptSchema);
  }
  if (validateFn(value)) return [];
  return (validateFn.errors ?? []).map((e) => ({
    pointer: e.instancePath || '/',
    message: `${e.message ?? 'is invalid'}${e.params && 'additionalProperty' in e.params ? ` ('${String(e.params.additionalProperty)}')` : ''}`,
  }));
}
