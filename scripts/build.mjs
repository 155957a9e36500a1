// Bundles the CLI into one self-contained file (dist/cli.js): no node_modules are needed at
// run time, which is what the server hook relies on, and Node starts it without resolving or
// lexing hundreds of modules. The evidence schemas go in precompiled (scripts/compile-schemas.cjs).
import { build } from 'esbuild';
import { chmodSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
const { out: compiledSchemas } = require('./compile-schemas.cjs');

/** Points src/evidence/compiled-schemas (null in source) at the generated validators. */
const precompiledSchemas = {
  name: 'precompiled-schemas',
  setup(b) {
    b.onResolve({ filter: /^\.\/compiled-schemas$/ }, () => ({ path: compiledSchemas }));
  },
};

await build({
  entryPoints: ['src/cli.ts'],
  outfile: 'dist/cli.js',
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'cjs',
  sourcemap: false,
  legalComments: 'none',
  // Whitespace and syntax only (less for Node to read and parse at every hook start); names
  // stay readable in stack traces and profiles.
  minifyWhitespace: true,
  minifySyntax: true,
  banner: { js: '#!/usr/bin/env node' },
  define: { RECEIPT_GATE_VERSION: JSON.stringify(pkg.version) },
  plugins: [precompiledSchemas],
  logLevel: 'warning',
});
chmodSync('dist/cli.js', 0o755);
