// The starter policy's protected globs. Two kinds:
//
// - Guard globs (GUARD_GLOBS): the articles' evidence layout (properties/, fixtures/, checks/,
//   the freeze file and folders, observations/), the gate's own runner files (the policy, the
//   grader's tools/patch_receipt.py), CI and hook folders and configuration, checkout
//   rewriting (.gitattributes, .gitmodules), and the test runner configuration of the languages
//   the project holds (Python: pyproject.toml, setup.cfg, tox.ini, noxfile.py; JavaScript:
//   Jest and Vitest; pytest.ini and conftest.py at any depth everywhere). They are evidence by definition:
//   init writes them whether or not anything matches them yet (`init --no-guard-absent`
//   prints the absent ones instead), and `check` and the pre-commit hook never report one as
//   a glob that matches nothing (isGuardGlob). This list is the one place both read.
// - Globs found in the layout: init lists the files git knows (tracked, and untracked but not
//   ignored) and proposes a glob for the evidence that is actually there: fixture, snapshot,
//   golden and testdata folders and files, other CI systems, other test runners.
//
// Each glob comes with the reason init prints. Pure over the path list, so a test can hold it
// against real layouts.

import { matcher } from '../matchers';

/** The languages whose test runner configuration a guard glob belongs to ('any': every project). */
export type GuardLanguage = 'any' | 'python' | 'javascript';

export interface GuardGlob {
  glob: string;
  what: string;
  language: GuardLanguage;
}

/** Files that are evidence, or switch the tests or the gate off when someone edits or adds
 * them: protected before they exist, and never reported as a typo. */
export const GUARD_GLOBS: readonly GuardGlob[] = [
  // The articles' evidence layout (docs/evidence.md).
  { glob: 'properties/**', what: 'the property tests, seeded', language: 'any' },
  { glob: 'fixtures/**', what: 'fixtures, their generator and the epoch pin', language: 'any' },
  { glob: 'checks/**', what: 'the property manifest and its catalog', language: 'any' },
  { glob: 'freeze.json', what: 'the freeze file', language: 'any' },
  { glob: 'freezes/**', what: 'keyed freezes', language: 'any' },
  { glob: 'observations/**', what: 'flake observations and their witnesses', language: 'any' },
  // The gate's own runner.
  { glob: '.receipt-gate.json', what: 'the gate\'s policy', language: 'any' },
  { glob: 'tools/patch_receipt.py', what: 'the grader\'s runner (the articles\' tools/patch_receipt.py)', language: 'any' },
  // CI: a new or edited pipeline could skip the tests or the gate.
  { glob: '.github/workflows/**', what: 'GitHub Actions workflows: a new workflow could skip the tests', language: 'any' },
  { glob: '.gitlab-ci.yml', what: 'the GitLab CI pipeline: it could skip the tests', language: 'any' },
  { glob: '.gitlab/**', what: 'GitLab CI includes and templates', language: 'any' },
  // Client hooks and their managers' configuration: they decide what a commit runs.
  { glob: '.husky/**', what: 'husky hooks', language: 'any' },
  { glob: '.pre-commit-config.yaml', what: 'the pre-commit framework\'s configuration', language: 'any' },
  { glob: 'lefthook.yml', what: 'lefthook\'s configuration', language: 'any' },
  { glob: '.lefthook.yml', what: 'lefthook\'s configuration', language: 'any' },
  { glob: 'lefthook.yaml', what: 'lefthook\'s configuration', language: 'any' },
  { glob: '.lefthook.yaml', what: 'lefthook\'s configuration', language: 'any' },
  // The review lock (CODEOWNERS, written by `init` and `receipt-gate codeowners`): an edit of
  // it takes the owners' review off the evidence on a forge without a pre-receive hook.
  { glob: 'CODEOWNERS', what: 'the review lock: who must review evidence changes', language: 'any' },
  { glob: '.github/CODEOWNERS', what: 'the review lock GitHub reads first', language: 'any' },
  { glob: 'docs/CODEOWNERS', what: 'the review lock, where every forge also looks', language: 'any' },
  { glob: '.gitea/CODEOWNERS', what: 'the review lock Gitea reads', language: 'any' },
  // Checkout rewriting (line ends, filters, submodules).
  { glob: '.gitattributes', what: 'checkout attributes rewrite what the tests read', language: 'any' },
  { glob: '**/.gitattributes', what: 'checkout attributes rewrite what the tests read', language: 'any' },
  { glob: '.gitmodules', what: 'a submodule swaps code in', language: 'any' },
  // Python test configuration: each can deselect or switch off tests. The files a Python
  // project is configured by, where there is Python; the files pytest reads by their name
  // alone, in every project (as before there were language guards).
  { glob: 'pyproject.toml', what: 'pytest, coverage and build configuration ([tool.pytest.ini_options])', language: 'python' },
  { glob: 'setup.cfg', what: 'pytest configuration ([tool:pytest])', language: 'python' },
  { glob: 'tox.ini', what: 'tox and pytest configuration', language: 'python' },
  { glob: 'noxfile.py', what: 'the nox sessions that run the tests', language: 'python' },
  { glob: 'pytest.ini', what: 'pytest configuration', language: 'any' },
  { glob: 'conftest.py', what: 'a conftest.py could skip tests', language: 'any' },
  { glob: '**/conftest.py', what: 'a conftest.py below the root could skip tests', language: 'any' },
  // JavaScript test configuration.
  { glob: 'jest.config.*', what: 'the Jest configuration could skip tests', language: 'javascript' },
  { glob: 'vitest.config.*', what: 'the Vitest configuration could skip tests', language: 'javascript' },
];

/** A guard glob (of any language): protected before anything matches it, on purpose, so never
 * reported as a glob that matches nothing. */
export function isGuardGlob(glob: string): boolean {
  return GUARD_GLOBS.some((g) => g.glob === glob);
}

/** Paths that say a project holds Python, or JavaScript/TypeScript. */
const PYTHON_MARKERS = /(^|\/)(pyproject\.toml|setup\.py|setup\.cfg|tox\.ini|noxfile\.py|pytest\.ini|Pipfile|poetry\.lock|uv\.lock|requirements[^/]*\.txt)$|\.pyi?$/;
const JAVASCRIPT_SOURCES = /\.(c|m)?[jt]sx?$/;
const PACKAGE_JSON = /(^|\/)package\.json$/;

/** The languages a project's paths show (every project has 'any'). JavaScript: a .js/.ts
 * source (a Jest or Vitest config is one), or a package.json in a project that is not Python;
 * a Python project's package.json with no JavaScript beside it only installs tools (`npm i -D
 * ./receipt-gate.tgz`), so it brings no Jest or Vitest guards. */
export function languagesOf(paths: readonly string[]): Set<GuardLanguage> {
  const found = new Set<GuardLanguage>(['any']);
  const python = paths.some((p) => PYTHON_MARKERS.test(p));
  if (python) found.add('python');
  if (paths.some((p) => JAVASCRIPT_SOURCES.test(p)) || (!python && paths.some((p) => PACKAGE_JSON.test(p)))) found.add('javascript');
  return found;
}

export interface ProposedGlob {
  glob: string;
  /** Why, as init prints it: what was found. */
  why: string;
}

export interface LayoutProposal {
  /** Globs written into the policy. */
  protected: ProposedGlob[];
  exceptions: ProposedGlob[];
  /** Guard globs nothing matches yet, not written (`guardAbsent: false`): printed. */
  absent: ProposedGlob[];
}

/** Folder names that hold evidence wherever they are. */
const EVIDENCE_FOLDERS = ['fixtures', '__fixtures__', 'fixture', 'test-fixtures', 'testdata', 'test-data', 'golden', 'goldens', '__snapshots__', 'snapshots'];
/** Files by name pattern, wherever they are (outside the folders above). */
const EVIDENCE_FILES: { glob: string; what: string }[] = [
  { glob: '**/*.snap', what: 'snapshot files' },
  { glob: '**/*.golden', what: 'golden files' },
  { glob: '**/*.approved.*', what: 'approval-test files' },
];
/** CI definitions besides the guard globs: whoever edits them can switch the tests or the
 * gate off. */
const CI_GLOBS: { glob: string; what: string }[] = [
  { glob: '.circleci/**', what: 'the CircleCI configuration' },
  { glob: '.travis.yml', what: 'the Travis CI configuration' },
  { glob: 'azure-pipelines.yml', what: 'the Azure Pipelines definition' },
  { glob: '.buildkite/**', what: 'the Buildkite pipeline' },
  { glob: 'Jenkinsfile', what: 'the Jenkins pipeline' },
  { glob: '.woodpecker/**', what: 'the Woodpecker pipelines' },
  { glob: '.woodpecker.yml', what: 'the Woodpecker pipeline' },
];
/** Client hook folders besides .husky/ (the hook manager's own configuration file is added by
 * init). */
const HOOK_GLOBS: { glob: string; what: string }[] = [{ glob: '.githooks/**', what: 'git hooks (core.hooksPath)' }];
/** Other test runners' configuration: it decides which tests run and how. */
const TEST_CONFIG: { glob: string; what: string }[] = [
  { glob: 'vitest.workspace.*', what: 'the Vitest workspace' },
  { glob: 'karma.conf.*', what: 'the Karma configuration' },
  { glob: 'playwright.config.*', what: 'the Playwright configuration' },
  { glob: '.mocharc*', what: 'the Mocha configuration' },
  { glob: 'ava.config.*', what: 'the AVA configuration' },
];

const plural = (n: number, what: string) => `${n} ${what}${n === 1 ? '' : 's'}`;

function example(paths: string[]): string {
  const shown = paths.slice(0, 2).join(', ');
  return paths.length > 2 ? `${shown}, …` : shown;
}

/**
 * The protected globs and exceptions for a project with these paths (`/`-separated, from the
 * top of the working tree). `written` are the files init is about to write (the freeze file,
 * the hook files), counted as present. The guard globs of the project's languages are
 * protected whether or not anything matches them (with `guardAbsent: false`, the absent ones
 * are returned in `absent` instead).
 */
export function proposeFromLayout(paths: readonly string[], written: readonly string[] = [], opts: { guardAbsent?: boolean } = {}): LayoutProposal {
  const guardAbsent = opts.guardAbsent ?? true;
  const all = [...new Set([...paths, ...written])].sort();
  const languages = languagesOf(paths);
  const out: ProposedGlob[] = [];
  const exceptions: ProposedGlob[] = [];
  const absent: ProposedGlob[] = [];
  const taken = (path: string) => out.some((g) => matcher([g.glob])(path));

  // Evidence folders by name: at the root `NAME/**`, anywhere else `**/NAME/**`.
  for (const name of EVIDENCE_FOLDERS) {
    const folders = new Set<string>();
    let files = 0;
    for (const p of all) {
      const segments = p.split('/');
      const at = segments.slice(0, -1).indexOf(name);
      if (at < 0) continue;
      folders.add(`${segments.slice(0, at + 1).join('/')}/`);
      files++;
    }
    if (folders.size === 0) continue;
    const list = [...folders].sort();
    const glob = list.every((f) => f === `${name}/`) ? `${name}/**` : `**/${name}/**`;
    out.push({ glob, why: `${plural(files, 'file')} in ${plural(list.length, `${name}/ folder`)} (${example(list)})` });
    // Notes beside the evidence (README.md) anyone may edit.
    const notes = all.filter((p) => matcher([glob])(p) && /\.md$/i.test(p));
    if (notes.length > 0) exceptions.push({ glob: `${glob.slice(0, -3)}/**/*.md`, why: `${plural(notes.length, 'Markdown note')} beside the evidence (${example(notes)}): anyone may edit` });
  }

  const byGlob = (groups: { glob: string; what: string }[]) => {
    for (const { glob, what } of groups) {
      const hits = all.filter((p) => matcher([glob])(p) && !taken(p));
      if (hits.length > 0) out.push({ glob, why: `${what} (${example(hits)})` });
    }
  };
  byGlob(EVIDENCE_FILES);

  // The guard globs of the project's languages, found or not.
  for (const { glob, what, language } of GUARD_GLOBS) {
    if (!languages.has(language)) continue;
    // Already written from the layout (fixtures/**), or covered by a glob found anywhere
    // (**/fixtures/** covers fixtures/**).
    if (out.some((g) => g.glob === glob || g.glob === `**/${glob}`)) continue;
    const hits = all.filter((p) => matcher([glob])(p));
    if (hits.length > 0) out.push({ glob, why: `${what} (${example(hits)})` });
    else if (guardAbsent) out.push({ glob, why: `nothing there yet: ${what}; protected before it exists` });
    else absent.push({ glob, why: `nothing there yet: ${what}` });
  }

  byGlob(CI_GLOBS);
  byGlob(HOOK_GLOBS);
  byGlob(TEST_CONFIG);
  return { protected: out, exceptions, absent };
}
