// Bundles the CLI into one self-contained file (dist/cli.js): no node_modules are needed at
// run time, which is what the server hook relies on, and Node starts it without resolving or
// lexing hundreds of modules.
import { build } from 'esbuild';
import { chmodSync, readFileSync } from 'node:fs';

const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));

await build({
  entryPoints: ['src/cli.ts'],
  outfile: 'dist/cli.js',
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'cjs',
  sourcemap: false,
  legalComments: 'none',
  banner: { js: '#!/usr/bin/env node' },
  define: { RECEIPT_GATE_VERSION: JSON.stringify(pkg.version) },
  logLevel: 'warning',
});
chmodSync('dist/cli.js', 0o755);
