// Which languages' test-runner guards init offers (src/client/layout.ts languagesOf): a Python
// project whose package.json only installs tools gets no Jest or Vitest guards; JavaScript
// sources, or a package.json in a project that is not Python, do.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { languagesOf } from '../../src/client/layout';

const langs = (paths: string[]) => [...languagesOf(paths)].sort();

test('a Python project that installed receipt-gate with npm (package.json, lock file): Python only', () => {
  assert.equal(langs(['pyproject.toml', 'src/orders.py', 'tests/test_orders.py', 'package.json', 'package-lock.json']), ['any', 'python']);
});

test('a Node project: package.json alone, or JavaScript sources', () => {
  assert.equal(langs(['package.json', 'README.md']), ['any', 'javascript']);
  assert.equal(langs(['src/index.ts']), ['any', 'javascript']);
});

test('a project with both: Python with a jest.config.js, or a Python package.json beside .js sources', () => {
  assert.equal(langs(['pyproject.toml', 'jest.config.js']), ['any', 'javascript', 'python']);
  assert.equal(langs(['setup.py', 'package.json', 'web/app.mjs']), ['any', 'javascript', 'python']);
});

test('neither: only the guards of every project', () => {
  assert.equal(langs(['README.md', 'data/x.csv']), ['any']);
});

test.run();
