// Bundles the CLI into one self-contained file (dist/cli.js): no node_modules are needed at
// run time, which is what the server hook relies on, and Node starts it without resolving or
// lexing hundreds of modules. The evidence schemas go in precompiled (scripts/compile-schemas.cjs).
//
// A hook runs on every push, so start-up counts. dist/cli.js is a small loader with the bundle
// inside it as one string: it compiles the bundle through `vm.Script` with a V8 code cache
// (`.cli.js.<hash>.v8cache` next to the file, written after the first run that can write
// there; see LOADER below). Without a usable cache it simply compiles, as Node would.
import { build } from 'esbuild';
import { createHash } from 'node:crypto';
import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
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

const result = await build({
  entryPoints: ['src/cli.ts'],
  outfile: 'dist/cli.js',
  write: false,
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'cjs',
  sourcemap: false,
  legalComments: 'none',
  // Whitespace and syntax only: names stay readable in stack traces and profiles.
  minifyWhitespace: true,
  minifySyntax: true,
  define: { RECEIPT_GATE_VERSION: JSON.stringify(pkg.version) },
  plugins: [precompiledSchemas],
  logLevel: 'warning',
});
const bundle = result.outputFiles[0].text;
const hash = createHash('sha256').update(bundle).digest('hex').slice(0, 16);

// The loader runs the bundle exactly as Node would run it as this module (same module,
// require, __filename), compiled with the code cache when V8 accepts it. The cache file is
// named after the bundle's hash (V8 itself only checks the source length) and Node's version;
// it is written once, after a run, atomically, and never when the directory is read-only.
// Any failure around the cache is ignored: the bundle then runs without it.
const LOADER = `#!/usr/bin/env node
'use strict';
// receipt-gate ${pkg.version}: a loader for the bundle below (built by scripts/build.mjs).
const BUNDLE = ${JSON.stringify(bundle)};
const fs = require('node:fs');
const path = require('node:path');
const vm = require('node:vm');
const cacheFile = path.join(__dirname, '.' + path.basename(__filename) + '.${hash}.' + process.version + '.v8cache');
let cachedData;
try {
  cachedData = fs.readFileSync(cacheFile);
} catch {
  cachedData = undefined;
}
const script = new vm.Script(require('node:module').wrap(BUNDLE), { filename: __filename, cachedData });
if (cachedData === undefined || script.cachedDataRejected) {
  process.once('exit', () => {
    const tmp = cacheFile + '.' + process.pid;
    try {
      fs.writeFileSync(tmp, script.createCachedData(), { mode: 0o644 });
      fs.renameSync(tmp, cacheFile);
    } catch {
      try { fs.unlinkSync(tmp); } catch {}
    }
  });
}
script.runInThisContext().call(module.exports, module.exports, require, module, __filename, __dirname);
`;
writeFileSync('dist/cli.js', LOADER);
chmodSync('dist/cli.js', 0o755);
