// Bundles the CLI into one self-contained file (dist/cli.js): no node_modules are needed at
// run time, which is what the server hook relies on, and Node starts it without resolving or
// lexing hundreds of modules. The evidence schemas go in precompiled (scripts/compile-schemas.cjs).
//
//   node scripts/build.mjs               dist/cli.js
//
// The same file is the entry of the server hook's V8 startup snapshot, which
// scripts/install-server.sh builds on the server with the node the hook runs (src/cli.ts,
// prepareStartupSnapshot; docs/server.md):
//     node $node_flags --snapshot-blob receipt-gate.blob --build-snapshot receipt-gate.cjs
//     node $node_flags --snapshot-blob receipt-gate.blob receipt-gate.cjs pre-receive
// (node_flags: the line of server-hooks/pre-receive that sets them.)
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

const common = {
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
  define: { RECEIPT_GATE_VERSION: JSON.stringify(pkg.version) },
  plugins: [precompiledSchemas],
  logLevel: 'warning',
};

await build({
  ...common,
  entryPoints: ['src/cli.ts'],
  outfile: 'dist/cli.js',
  // The snapshot builder runs the file without CommonJS's `module`; the stand-in keeps the
  // bundle's `module.exports` and `require.main === module` working there (the directive is
  // repeated first so that the bundle stays strict code).
  banner: { js: '#!/usr/bin/env node\n"use strict";var module=typeof module=="object"?module:{exports:{}};' },
});
chmodSync('dist/cli.js', 0o755);
