// How long matching a large commit's paths takes: README.md's example policy, compiled once, over
// N paths (default 100,000), as regular files and as symlinks. Not a test (no time is asserted):
//
//   npx tsx test/paths/manual/match-speed.ts [N]

import { parsePolicy } from '../../../src/evidence/policy';
import { compileProtection } from '../../../src/protection';

const SPEC_POLICY = {
  version: 1,
  protected: ['properties/**', 'fixtures/**', 'freeze.json', 'freezes/**', 'observations/**', 'checks/**', 'tools/patch_receipt.py', '.github/workflows/**', '.husky/**', '.gitattributes', '**/.gitattributes', '.gitmodules'],
  exceptions: ['fixtures/**/*.md'],
  epoch: { pin: 'fixtures/EPOCH' },
  manifest: { path: 'checks/manifest.json', catalog: 'checks/properties.json' },
  freeze: { path: 'freeze.json' },
  observations: { dir: 'observations', freezes: 'freezes' },
  fixtures: { records: 'fixtures/*.json' },
};

const n = Number(process.argv[2] ?? 100_000);
const parsed = parsePolicy(Buffer.from(JSON.stringify(SPEC_POLICY)));
if (!parsed.ok) throw new Error(parsed.findings.map((f) => f.message).join('\n'));
const paths: string[] = [];
for (let i = 0; i < n; i++) {
  if (i % 10 === 0) paths.push(`fixtures/orders/case-${i}.json`);
  else if (i % 7 === 0) paths.push(`Src/M\u00f3dulo-${i % 97}/\u00dcn\u00efcode_${i}.ts`);
  else if (i % 13 === 0) paths.push(`docs/FILE~${i % 9}.TXT`);
  else paths.push(`src/module-${i % 97}/deep/er/file-${i}.ts`);
}
// CPU time of this process as well as wall time: on a shared machine the wall time also counts
// other processes' turns.
const cpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};
for (const round of [1, 2, 3]) {
  const c0 = cpuMs();
  const t0 = performance.now();
  const protection = compileProtection(parsed.policy);
  let files = 0;
  for (const path of paths) if (protection.protectedBy(path) !== null) files++;
  const t1 = performance.now();
  const c1 = cpuMs();
  let links = 0;
  for (const path of paths) if (protection.protectedBy(path, 'symlink') !== null) links++;
  const t2 = performance.now();
  const c2 = cpuMs();
  console.log(
    `round ${round}: ${n} paths, ${files} protected as files in ${(t1 - t0).toFixed(0)} ms (cpu ${(c1 - c0).toFixed(0)} ms); ` +
      `${links} as symlinks in ${(t2 - t1).toFixed(0)} ms (cpu ${(c2 - c1).toFixed(0)} ms)`,
  );
}
