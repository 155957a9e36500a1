// The bounded-contexts scenarios: one monorepo tree of 20 services (each with the full bench
// evidence set under services/sNN/), guarded three ways — a version 1 policy naming the first
// service's evidence (no contexts), a version 2 policy declaring that service as its one context,
// and one declaring all 20 — and the same 1-commit push (a source file of services/s00) into each.
// The difference between the 20-context and the 1-context push is what 19 more contexts cost.
// The bench's root evidence set is there too, for the reference hook.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { evidenceFiles } from './evidence.mjs';
import { git, repoFacts } from './generate.mjs';

const VERSION = 2;
const SERVICES = 20;
const SOURCES_PER_SERVICE = 40;
const service = (i) => `s${String(i).padStart(2, '0')}`;

/** The scenario ids, known before anything is built. */
export const CONTEXT_IDS = ['push-1@contexts-0', 'push-1@contexts-1', 'push-1@contexts-20'];

/** One service's evidence: the bench evidence set under services/<name>/, the pin naming its
 * generator by repository path. */
function serviceFiles(name) {
  const root = `services/${name}`;
  const out = new Map();
  for (const [path, bytes] of evidenceFiles('main')) {
    if (path === '.receipt-gate.json' || path === 'README.md' || path === 'tools/patch_receipt.py') continue;
    if (path === 'fixtures/EPOCH') {
      const pin = JSON.parse(bytes.toString('utf8'));
      pin.generator = `${root}/${pin.generator}`;
      pin.inputs = pin.inputs.map((p) => `${root}/${p}`);
      out.set(`${root}/${path}`, Buffer.from(`${JSON.stringify(pin, null, 2)}\n`));
      continue;
    }
    out.set(`${root}/${path}`, bytes);
  }
  for (let f = 0; f < SOURCES_PER_SERVICE; f++) out.set(`${root}/src/f${String(f).padStart(3, '0')}.txt`, Buffer.from(`${name} source ${f}\n`));
  return out;
}

const SECTIONS = {
  epoch: { pin: 'fixtures/EPOCH' },
  manifest: { path: 'checks/manifest.json', catalog: 'checks/properties.json' },
  freeze: { path: 'freeze.json', reasons: ['timing', 'network', 'order', 'infra'], maxDays: 14 },
  observations: { dir: 'observations', freezes: 'freezes' },
  fixtures: { records: 'fixtures/*.json' },
};
const REPO_WIDE = {
  baseBranch: 'main',
  protectedRefs: ['refs/heads/main', 'refs/heads/release/**'],
  protected: ['.github/workflows/**', '.husky/**', '.gitattributes', '**/.gitattributes', '.gitmodules'],
  owners: ['alice', 'release-bot'],
  identityEnv: ['GITHUB_USER_LOGIN', 'GL_USERNAME', 'GITEA_PUSHER_NAME', 'GL_USER', 'REMOTE_USER'],
  limits: { timeoutMs: 4000, maxEvidenceBytes: 1048576 },
};

/** The policy of a repository with `contexts` contexts (0: version 1, the first service's
 * evidence named by repository path). */
function policyFor(contexts) {
  if (contexts === 0) {
    const r = 'services/s00';
    return {
      version: 1,
      ...REPO_WIDE,
      protected: [...REPO_WIDE.protected, `${r}/properties/**`, `${r}/fixtures/**`, `${r}/checks/**`],
      exceptions: [`${r}/fixtures/**/*.md`],
      epoch: { pin: `${r}/fixtures/EPOCH` },
      manifest: { path: `${r}/checks/manifest.json`, catalog: `${r}/checks/properties.json` },
      freeze: { ...SECTIONS.freeze, path: `${r}/freeze.json` },
      observations: { dir: `${r}/observations`, freezes: `${r}/freezes` },
      fixtures: { records: `${r}/fixtures/*.json` },
    };
  }
  const list = [];
  for (let i = 0; i < contexts; i++) {
    list.push({ name: service(i), root: `services/${service(i)}`, protected: ['properties/**', 'fixtures/**', 'checks/**'], exceptions: ['fixtures/**/*.md'], ...SECTIONS });
  }
  return { version: 2, ...REPO_WIDE, contexts: list };
}

/** Builds (or reads from the cache) the three repositories: seed.git holding main, push.git
 * holding p1 (one commit on main). */
export function ensureContextRepos(cacheDir, log) {
  const out = [];
  for (const contexts of [0, 1, 20]) {
    const name = `contexts-${contexts}`;
    const dir = join(cacheDir, `${name}-v${VERSION}`);
    const seedDir = join(dir, 'seed.git');
    const pushDir = join(dir, 'push.git');
    if (!existsSync(join(dir, 'done'))) {
      log(`building ${name}`);
      rmSync(dir, { recursive: true, force: true });
      const work = join(dir, 'work');
      mkdirSync(work, { recursive: true });
      const files = new Map([['.receipt-gate.json', Buffer.from(`${JSON.stringify(policyFor(contexts), null, 2)}\n`)], ['README.md', Buffer.from('# monorepo (receipt-gate bench)\n')]]);
      for (let i = 0; i < SERVICES; i++) for (const [p, b] of serviceFiles(service(i))) files.set(p, b);
      // The bench evidence at the root as well: the reference hook (bench/reference-pre-receive.sh)
      // checks those paths; the gate's policies here do not name them.
      for (const [p, b] of evidenceFiles('main')) if (!files.has(p)) files.set(p, b);
      for (const [p, b] of files) {
        mkdirSync(dirname(join(work, p)), { recursive: true });
        writeFileSync(join(work, p), b);
      }
      const env = { ...process.env, GIT_AUTHOR_NAME: 'bench', GIT_AUTHOR_EMAIL: 'bench@example.com', GIT_COMMITTER_NAME: 'bench', GIT_COMMITTER_EMAIL: 'bench@example.com', GIT_AUTHOR_DATE: '2026-11-01T00:00:00Z', GIT_COMMITTER_DATE: '2026-11-01T00:00:00Z' };
      const run = (args) => execFileSync('git', args, { cwd: work, env, stdio: ['pipe', 'pipe', 'pipe'] });
      run(['init', '-q', '-b', 'main']);
      run(['add', '-A']);
      run(['commit', '-qm', 'monorepo']);
      run(['clone', '-q', '--bare', work, seedDir]);
      run(['checkout', '-q', '-b', 'p1']);
      writeFileSync(join(work, 'services/s00/src/f000.txt'), 's00 source 0, changed\n');
      run(['commit', '-qam', 'a 1-commit patch to s00']);
      run(['clone', '-q', '--bare', work, pushDir]);
      git(['--git-dir', pushDir, 'fetch', '-q', work, '+refs/heads/p1:refs/heads/p1']);
      rmSync(work, { recursive: true, force: true });
      writeFileSync(join(dir, 'done'), '');
    }
    const mainTip = git(['--git-dir', seedDir, 'rev-parse', 'refs/heads/main']);
    const tip = git(['--git-dir', pushDir, 'rev-parse', 'refs/heads/p1']);
    out.push({ name, contexts, seedDir, pushDir, mainTip, push: { ref: 'refs/heads/p1', commits: 1, tip }, facts: repoFacts(seedDir) });
  }
  return out;
}
