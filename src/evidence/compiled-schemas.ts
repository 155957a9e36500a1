// In source this is empty: validators are compiled at run time. The build replaces this module
// with ajv standalone code generated from schemas/ (scripts/compile-schemas.cjs), keyed by
// schema file name, so the bundle skips schema compilation.
import type { ValidateFunction } from 'ajv';

export const byFile: Record<string, ValidateFunction> | undefined = undefined;
