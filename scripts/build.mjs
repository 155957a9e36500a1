// Bundles the CLI into one self-contained file (dist/cli.js): no node_modules are needed at
// run time, which is what the server hook relies on, and Node starts it without resolving or
// lexing hundreds of modules. The evidence schemas go in precompiled (scripts/compile-schemas.cjs).
//
//   node scripts/build.mjs               dist/cli.js
//   node scripts/build.mjs --snapshot    also dist/cli-snapshot.cjs, an entry for a V8 startup
//                                        snapshot (an experiment, not installed: see BENCHMARKS.md):
//     node --max-semi-space-size=4 --snapshot-blob cli.blob --build-snapshot dist/cli-snapshot.cjs
//     node --max-semi-space-size=4 --snapshot-blob cli.blob pre-receive   (same flags both times)
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
  banner: { js: '#!/usr/bin/env node' },
});
chmodSync('dist/cli.js', 0o755);

if (process.argv.includes('--snapshot')) {
  // The hook commands' modules are evaluated while the snapshot is built, and main runs when it
  // is deserialized (argv there is [node, command, ...]). `module` does not exist in the snapshot
  // builder, so cli.ts's `require.main === module` is given one that is never the main module.
  const entry = `
import { main, COMMANDS } from './src/cli';
import { processIO } from './src/io';
import { startupSnapshot } from 'node:v8';
for (const name of ['pre-receive', 'verify-ref', 'pre-push', 'pre-commit']) void COMMANDS[name]!.load();
startupSnapshot.setDeserializeMainFunction(() => {
  main(process.argv.slice(1), processIO()).then((code) => {
    process.exitCode = code;
    let pending = 2;
    const flushed = () => { if (--pending === 0) process.exit(code); };
    process.stdout.write('', flushed);
    process.stderr.write('', flushed);
    setTimeout(() => process.exit(code), 1000).unref();
  });
});
`;
  await build({
    ...common,
    stdin: { contents: entry, resolveDir: new URL('..', import.meta.url).pathname, loader: 'ts', sourcefile: 'snapshot-entry.ts' },
    outfile: 'dist/cli-snapshot.cjs',
    banner: { js: 'var module = { exports: {} };' },
  });
}
