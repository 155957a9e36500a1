// Compiles the evidence schemas (schemas/*.schema.json) ahead of time with ajv's standalone
// code generator, so a push does not pay ajv's schema compilation (about 100 ms of CPU) at
// every run. The generated module exports one validator per schema file, keyed by file name;
// src/evidence/schema.ts uses them when the bundle carries them and compiles at run time
// otherwise (tests run from source). The options here must stay those of schema.ts:
// test/evidence/precompiled.test.ts checks the two agree.
const Ajv2020 = require('ajv/dist/2020').default;
const standaloneCode = require('ajv/dist/standalone').default;
const { _ } = require('ajv');
const { mkdirSync, readdirSync, readFileSync, writeFileSync } = require('node:fs');
const { join, resolve } = require('node:path');

const root = resolve(__dirname, '..');
const out = join(root, 'dist', '.gen', 'compiled-schemas.cjs');

const ajv = new Ajv2020({
  allErrors: true,
  verbose: true,
  strict: true,
  strictTypes: false,
  strictTuples: false,
  logger: false,
  code: { source: true, formats: _`{ date: { type: "string", validate: require("../../src/evidence/dates").isCalendarDate } }` },
});
ajv.addFormat('date', { type: 'string', validate: () => true }); // replaced by the code above

const byFile = {};
const files = readdirSync(join(root, 'schemas')).filter((f) => f.endsWith('.schema.json') && f !== 'receipt.schema.json');
files.forEach((file, i) => {
  const schema = JSON.parse(readFileSync(join(root, 'schemas', file), 'utf8'));
  ajv.addSchema(schema);
  byFile[`v${i}`] = { file, id: schema.$id };
});
let code = standaloneCode(ajv, Object.fromEntries(Object.entries(byFile).map(([k, v]) => [k, v.id])));
code += `\nexports.byFile = {${Object.entries(byFile).map(([k, v]) => `${JSON.stringify(v.file)}: exports.${k}`).join(', ')}};\n`;
mkdirSync(join(root, 'dist', '.gen'), { recursive: true });
writeFileSync(out, code);
module.exports = { out };
