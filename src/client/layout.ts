// The starter policy's protected globs, from the project's own layout: `receipt-gate init`
// lists the files git knows (tracked, and untracked but not ignored) and proposes a glob for
// the evidence that is actually there: fixture, snapshot, golden and testdata folders and
// files, CI workflow folders, hook folders, test runner configuration, checkout rewriting.
// Each glob comes with the reason init prints, and only globs that match a path are written
// (the files init writes itself count as paths). The guard globs for files that would switch
// the tests or the gate off if someone added them (a workflow, a conftest.py, .gitattributes)
// are proposed as well; while nothing matches one it is printed, not written, unless the owner
// asks for them with `init --guard-absent`. Pure over the path list, so a test can hold it
// against real layouts.

import { matcher } from '../matchers';

/** Files that switch the tests or the gate off when someone adds them: init proposes them
 * before they exist (written with --guard-absent), and a guard glob that matches nothing is
 * never reported as a typo (see isGuardGlob). */
export const GUARD_GLOBS: { glob: string; what: string }[] = [
  { glob: '.github/workflows/**', what: 'a new workflow could skip the tests' },
  { glob: '.gitlab-ci.yml', what: 'a new pipeline could skip the tests' },
  { glob: '.husky/**', what: 'hooks decide what a commit runs' },
  { glob: '.gitattributes', what: 'checkout attributes rewrite what the tests read' },
  { glob: '**/.gitattributes', what: 'checkout attributes rewrite what the tests read' },
  { glob: '.gitmodules', what: 'a submodule swaps code in' },
  { glob: 'conftest.py', what: 'a new conftest.py could skip tests' },
  { glob: '**/conftest.py', what: 'a new conftest.py could skip tests' },
  { glob: 'pytest.ini', what: 'a new pytest.ini could skip tests' },
  { glob: 'jest.config.*', what: 'a new Jest configuration could skip tests' },
  { glob: 'vitest.config.*', what: 'a new Vitest configuration could skip tests' },
];

/** The conventional fixture folder, proposed to a project without one. */
const FIXTURES_FALLBACK = 'fixtures/**';

/** A starter guard glob (or the fixture folder's fallback): protected before anything matches
 * it, so never a typo. */
export function isGuardGlob(glob: string): boolean {
  return glob === FIXTURES_FALLBACK || GUARD_GLOBS.some((g) => g.glob === glob);
}

export interface ProposedGlob {
  glob: string;
  /** Why, as init prints it: what was found. */
  why: string;
}

export interface LayoutProposal {
  /** Globs that match a path: written. */
  protected: ProposedGlob[];
  exceptions: ProposedGlob[];
  /** Guard globs nothing matches yet: written only with `guardAbsent`, else printed. */
  absent: ProposedGlob[];
}

/** Folder names that hold evidence wherever they are. */
const EVIDENCE_FOLDERS = ['fixtures', '__fixtures__', 'fixture', 'test-fixtures', 'testdata', 'test-data', 'golden', 'goldens', '__snapshots__', 'snapshots'];
/** The receipt-gate evidence folders (docs/evidence.md), at the root. */
const GATE_FOLDERS = ['properties', 'checks', 'freezes', 'observations'];
/** Files by name pattern, wherever they are (outside the folders above). */
const EVIDENCE_FILES: { glob: string; what: string }[] = [
  { glob: '**/*.snap', what: 'snapshot files' },
  { glob: '**/*.golden', what: 'golden files' },
  { glob: '**/*.approved.*', what: 'approval-test files' },
];
/** CI definitions: whoever edits them can switch the tests or the gate off. */
const CI_GLOBS: { glob: string; what: string }[] = [
  { glob: '.github/workflows/**', what: 'GitHub Actions workflows' },
  { glob: '.gitlab-ci.yml', what: 'the GitLab CI pipeline' },
  { glob: '.gitlab/ci/**', what: 'GitLab CI includes' },
  { glob: '.circleci/**', what: 'the CircleCI configuration' },
  { glob: '.travis.yml', what: 'the Travis CI configuration' },
  { glob: 'azure-pipelines.yml', what: 'the Azure Pipelines definition' },
  { glob: '.buildkite/**', what: 'the Buildkite pipeline' },
  { glob: 'Jenkinsfile', what: 'the Jenkins pipeline' },
  { glob: '.woodpecker/**', what: 'the Woodpecker pipelines' },
  { glob: '.woodpecker.yml', what: 'the Woodpecker pipeline' },
];
/** Client hook folders (the hook manager's own configuration file is added by init). */
const HOOK_GLOBS: { glob: string; what: string }[] = [
  { glob: '.husky/**', what: 'husky hooks' },
  { glob: '.githooks/**', what: 'git hooks (core.hooksPath)' },
];
/** Test runner configuration: it decides which tests run and how. */
const TEST_CONFIG: { glob: string; what: string }[] = [
  { glob: 'conftest.py', what: 'pytest configuration' },
  { glob: '**/conftest.py', what: 'pytest configuration below the root' },
  { glob: 'pytest.ini', what: 'pytest configuration' },
  { glob: 'tox.ini', what: 'tox configuration' },
  { glob: 'jest.config.*', what: 'the Jest configuration' },
  { glob: 'vitest.config.*', what: 'the Vitest configuration' },
  { glob: 'vitest.workspace.*', what: 'the Vitest workspace' },
  { glob: 'karma.conf.*', what: 'the Karma configuration' },
  { glob: 'playwright.config.*', what: 'the Playwright configuration' },
  { glob: '.mocharc*', what: 'the Mocha configuration' },
  { glob: 'ava.config.*', what: 'the AVA configuration' },
];
/** Files that rewrite what a checkout holds (line ends, filters, submodules). */
const CHECKOUT_GLOBS: { glob: string; what: string }[] = [
  { glob: '.gitattributes', what: 'checkout attributes (eol, filters)' },
  { glob: '**/.gitattributes', what: 'checkout attributes below the root' },
  { glob: '.gitmodules', what: 'submodules' },
];

const plural = (n: number, what: string) => `${n} ${what}${n === 1 ? '' : 's'}`;

function example(paths: string[]): string {
  const shown = paths.slice(0, 2).join(', ');
  return paths.length > 2 ? `${shown}, …` : shown;
}

/**
 * The protected globs and exceptions for a project with these paths (`/`-separated, from the
 * top of the working tree). `written` are the files init is about to write (the freeze file,
 * the hook files), counted as present. A project with no fixture folder yet still gets the
 * conventional `fixtures/**` (the place a first fixture goes), said so.
 */
export function proposeFromLayout(paths: readonly string[], written: readonly string[] = [], opts: { guardAbsent?: boolean } = {}): LayoutProposal {
  const all = [...new Set([...paths, ...written])].sort();
  const out: ProposedGlob[] = [];
  const exceptions: ProposedGlob[] = [];
  const taken = (path: string) => out.some((g) => matcher([g.glob])(path));

  // Evidence folders by name: at the root `NAME/**`, anywhere else `**/NAME/**`.
  let fixtureFolder = false;
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
    if (/fixture|testdata|test-data|golden/.test(name)) fixtureFolder = true;
    // Notes beside the evidence (README.md) anyone may edit.
    const notes = all.filter((p) => matcher([glob])(p) && /\.md$/i.test(p));
    if (notes.length > 0) exceptions.push({ glob: `${glob.slice(0, -3)}/**/*.md`, why: `${plural(notes.length, 'Markdown note')} beside the evidence (${example(notes)}): anyone may edit` });
  }
  for (const name of GATE_FOLDERS) {
    const files = all.filter((p) => p.startsWith(`${name}/`));
    if (files.length > 0) out.push({ glob: `${name}/**`, why: `receipt-gate evidence: ${plural(files.length, 'file')} (${example(files)})` });
  }
  const absent: ProposedGlob[] = [];
  if (!fixtureFolder) absent.push({ glob: FIXTURES_FALLBACK, why: 'no fixture folder yet: the conventional place for the first one' });

  const byGlob = (groups: { glob: string; what: string }[]) => {
    for (const { glob, what } of groups) {
      const hits = all.filter((p) => matcher([glob])(p) && !taken(p));
      if (hits.length > 0) out.push({ glob, why: `${what} (${example(hits)})` });
    }
  };
  byGlob(EVIDENCE_FILES);
  byGlob(CI_GLOBS);
  byGlob(HOOK_GLOBS);
  byGlob(TEST_CONFIG);
  byGlob(CHECKOUT_GLOBS);
  for (const { glob, what } of GUARD_GLOBS) {
    if (out.some((g) => g.glob === glob)) continue;
    const hits = all.filter((p) => matcher([glob])(p));
    if (hits.length > 0) out.push({ glob, why: `${what} (${example(hits)})` });
    else absent.push({ glob, why: `nothing there yet: ${what}` });
  }
  if (opts.guardAbsent) {
    out.push(...absent.map((g) => ({ glob: g.glob, why: `${g.why}; protected before it exists (--guard-absent)` })));
    return { protected: out, exceptions, absent: [] };
  }
  return { protected: out, exceptions, absent };
}
