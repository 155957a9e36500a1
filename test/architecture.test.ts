// The import structure docs/architecture.md describes, held to the code: src/ has no import
// cycle (type imports included), a pushed ref's route (entry → push context → engine → rules →
// decision → push log → report) only imports and calls forward, the push is decided in one
// module that calls no renderer, the renderers call nothing that decides, and the pre-receive
// hook bundles no renderer it does not print.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';

const ROOT = resolve(__dirname, '..');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).sort().flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return name.endsWith('.ts') ? [relative(ROOT, path)] : [];
  });
}

/** Every file under src/ with the src/ files it imports (value and type imports, re-exports,
 * dynamic imports), as TypeScript reads them. */
function importGraph(): Map<string, { all: string[]; values: string[] }> {
  const graph = new Map<string, { all: string[]; values: string[] }>();
  const files = sourceFiles(join(ROOT, 'src'));
  const known = new Set(files);
  for (const file of files) {
    const text = readFileSync(join(ROOT, file), 'utf8');
    const source = ts.createSourceFile(file, text, ts.ScriptTarget.ES2022, false);
    const all = new Set<string>();
    const values = new Set<string>();
    const add = (spec: string, typeOnly: boolean) => {
      if (!spec.startsWith('.')) return;
      const base = join(dirname(file), spec);
      const target = [`${base}.ts`, join(base, 'index.ts')].find((c) => known.has(c));
      if (target === undefined) return;
      all.add(target);
      if (!typeOnly) values.add(target);
    };
    const visit = (node: ts.Node) => {
      if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
        const clause = node.importClause;
        const typeOnly =
          clause !== undefined &&
          (clause.isTypeOnly ||
            (clause.name === undefined &&
              clause.namedBindings !== undefined &&
              ts.isNamedImports(clause.namedBindings) &&
              clause.namedBindings.elements.length > 0 &&
              clause.namedBindings.elements.every((e) => e.isTypeOnly)));
        add(node.moduleSpecifier.text, typeOnly);
      } else if (ts.isExportDeclaration(node) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
        add(node.moduleSpecifier.text, node.isTypeOnly);
      } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword && node.arguments[0] && ts.isStringLiteral(node.arguments[0])) {
        add(node.arguments[0].text, false);
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
    graph.set(file, { all: [...all].sort(), values: [...values].sort() });
  }
  return graph;
}

const GRAPH = importGraph();

function closure(from: string, edges: 'all' | 'values'): Set<string> {
  const seen = new Set([from]);
  const queue = [from];
  while (queue.length > 0) {
    for (const next of GRAPH.get(queue.pop()!)?.[edges] ?? []) {
      if (!seen.has(next)) {
        seen.add(next);
        queue.push(next);
      }
    }
  }
  return seen;
}

test('src/ has no import cycle, type imports included', () => {
  const cycles: string[] = [];
  for (const file of GRAPH.keys()) {
    for (const next of GRAPH.get(file)!.all) {
      if (closure(next, 'all').has(file)) cycles.push(`${file} -> ${next}`);
    }
  }
  assert.equal(cycles, []);
});

/** The route of one pushed ref, stage by stage (docs/architecture.md). */
const ROUTE: string[][] = [
  ['src/entries/pre-receive.ts'],
  ['src/server/receive.ts', 'src/server/protocol.ts'],
  ['src/engine.ts'],
  [...GRAPH.keys()].filter((f) => f.startsWith('src/rules/')),
  ['src/server/decide.ts'],
  ['src/pushlog/record.ts'],
  ['src/report/remote.ts', 'src/report/machine.ts'],
];

test('the route of a pushed ref is seven stages, and no stage imports an earlier one', () => {
  assert.is(ROUTE.length, 7);
  const back: string[] = [];
  ROUTE.forEach((stage, i) => {
    const earlier = new Set(ROUTE.slice(0, i).flat());
    for (const file of stage) {
      assert.ok(GRAPH.has(file), file);
      for (const reached of closure(file, 'all')) if (earlier.has(reached)) back.push(`${file} reaches ${reached}`);
    }
  });
  assert.equal(back, []);
});

/** Every call (and `new`) in src/, with the file that declares what it calls, as TypeScript's
 * checker resolves it (imports followed to their declaration, methods to their class). */
function callGraph(): Map<string, { callee: string; file: string; line: number }[]> {
  const files = [...GRAPH.keys()].map((f) => join(ROOT, f));
  const program = ts.createProgram(files, { target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.ESNext, moduleResolution: ts.ModuleResolutionKind.Bundler, strict: true, skipLibCheck: true, noEmit: true, resolveJsonModule: true, esModuleInterop: true, types: ['node'] });
  const checker = program.getTypeChecker();
  const calls = new Map<string, { callee: string; file: string; line: number }[]>();
  for (const source of program.getSourceFiles()) {
    const file = relative(ROOT, source.fileName);
    if (!GRAPH.has(file)) continue;
    const out: { callee: string; file: string; line: number }[] = [];
    const visit = (node: ts.Node) => {
      if (ts.isCallExpression(node) || ts.isNewExpression(node) || ts.isTaggedTemplateExpression(node)) {
        const target = ts.isTaggedTemplateExpression(node) ? node.tag : node.expression;
        let symbol = checker.getSymbolAtLocation(ts.isPropertyAccessExpression(target) ? target.name : target);
        if (symbol && symbol.flags & ts.SymbolFlags.Alias) symbol = checker.getAliasedSymbol(symbol);
        for (const declaration of symbol?.declarations ?? []) {
          const declared = relative(ROOT, declaration.getSourceFile().fileName);
          if (GRAPH.has(declared) && declared !== file) {
            out.push({ callee: symbol!.name, file: declared, line: source.getLineAndCharacterOfPosition(node.getStart()).line + 1 });
          }
        }
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
    calls.set(file, out);
  }
  return calls;
}

const CALLS = callGraph();

test('no stage of the route calls into an earlier one', () => {
  const back: string[] = [];
  ROUTE.forEach((stage, i) => {
    const earlier = new Set(ROUTE.slice(0, i).flat());
    for (const file of stage) {
      for (const call of CALLS.get(file) ?? []) if (earlier.has(call.file)) back.push(`${file}:${call.line} calls ${call.callee} of ${call.file}`);
    }
  });
  assert.equal(back, []);
});

test('one module decides a push: the renderers call nothing that decides, the decision calls no renderer', () => {
  const deciding = (f: string) => f === 'src/server/decide.ts' || f === 'src/engine.ts' || f.startsWith('src/server/') || f.startsWith('src/rules/') || f.startsWith('src/pushlog/');
  const wrong: string[] = [];
  for (const [file, calls] of CALLS) {
    if (file.startsWith('src/report/')) {
      for (const call of calls) if (deciding(call.file)) wrong.push(`${file}:${call.line} calls ${call.callee} of ${call.file}`);
      for (const reached of closure(file, 'all')) if (deciding(reached)) wrong.push(`${file} reaches ${reached}`);
    }
  }
  for (const call of CALLS.get('src/server/decide.ts') ?? []) if (call.file.startsWith('src/report/')) wrong.push(`src/server/decide.ts:${call.line} calls ${call.callee} of ${call.file}`);
  for (const reached of closure('src/server/decide.ts', 'all')) if (reached.startsWith('src/report/')) wrong.push(`src/server/decide.ts reaches ${reached}`);
  // The push log records the decision it is given and calls no renderer; only decide.ts turns
  // an unrecorded push into a rejection.
  for (const call of CALLS.get('src/pushlog/record.ts') ?? []) if (call.file.startsWith('src/report/') || call.file === 'src/server/decide.ts') wrong.push(`src/pushlog/record.ts:${call.line} calls ${call.callee} of ${call.file}`);
  assert.equal(wrong, []);
  // The check sees calls at all: the entry calls receivePush, the decision module is called.
  assert.ok((CALLS.get('src/entries/pre-receive.ts') ?? []).some((c) => c.file === 'src/server/receive.ts' && c.callee === 'receivePush'));
  assert.ok((CALLS.get('src/server/receive.ts') ?? []).some((c) => c.file === 'src/server/decide.ts' && c.callee === 'decide'));
  assert.ok((CALLS.get('src/entries/pre-receive.ts') ?? []).some((c) => c.file === 'src/server/decide.ts' && c.callee === 'refusedByLog'));
});

test('the pre-receive hook imports no renderer it does not print', () => {
  const hook = closure('src/entries/pre-receive.ts', 'values');
  const renderers = [...hook].filter((f) => f.startsWith('src/report/')).sort();
  // remote.ts writes the remote: lines, machine.ts the machine line; order.ts sorts the
  // findings they print, human.ts writes a finding's message and fix for a person, and
  // identities.ts the three identities every text log prints.
  assert.equal(renderers, ['src/report/human.ts', 'src/report/identities.ts', 'src/report/machine.ts', 'src/report/order.ts', 'src/report/remote.ts']);
});

test.run();
