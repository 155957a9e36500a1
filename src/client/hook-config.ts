// Edits to the YAML configuration of the hook managers that keep their hooks in a config file:
// lefthook (lefthook.yml) and the pre-commit framework (.pre-commit-config.yaml). The edits are
// made on the text, so the project's comments, anchors, order and quoting stay as they were;
// only block-style YAML is edited (a flow-style `{...}` hook is reported, never rewritten).

import { runsSame, type Merge } from './init';

export class ConfigShapeError extends Error {}

interface Block {
  /** Index of the `key:` line. */
  start: number;
  /** Index one past the block's last line (the next line at the key's indent or less). */
  end: number;
}

const indentOf = (line: string): number => /^[ \t]*/.exec(line)![0].length;
const isBlankOrComment = (line: string): boolean => line.trim() === '' || line.trim().startsWith('#');

/** The block of `key:` at `indent` within lines[from, to), or null. */
function findBlock(lines: string[], key: string, indent: number, from = 0, to = lines.length): Block | null {
  const re = new RegExp(`^${' '.repeat(indent)}${key.replace(/[-.]/g, (c) => `\\${c}`)}:\\s*(#.*)?$`);
  for (let i = from; i < to; i++) {
    if (!re.test(lines[i]!)) continue;
    let end = i + 1;
    // A block sequence may sit at its key's own indent (`repos:` then `- repo: ...`).
    const inside = (line: string) => isBlankOrComment(line) || indentOf(line) > indent || (indentOf(line) === indent && /^\s*-(\s|$)/.test(line));
    while (end < to && inside(lines[end]!)) end++;
    // Trailing blank and comment lines belong to what follows.
    while (end > i + 1 && isBlankOrComment(lines[end - 1]!)) end--;
    return { start: i, end };
  }
  const flow = new RegExp(`^${' '.repeat(indent)}${key.replace(/[-.]/g, (c) => `\\${c}`)}:\\s*[\\[{]`);
  for (let i = from; i < to; i++) {
    if (flow.test(lines[i]!)) throw new ConfigShapeError(`'${key}' is written in flow style ({...} or [...])`);
  }
  return null;
}

/** The indent of the first non-blank line inside a block, or null for an empty block. */
function childIndent(lines: string[], block: Block): number | null {
  for (let i = block.start + 1; i < block.end; i++) {
    if (!isBlankOrComment(lines[i]!)) return indentOf(lines[i]!);
  }
  return null;
}

export interface LefthookCommand {
  hook: 'pre-commit' | 'pre-push';
  name: string;
  run: string;
  useStdin: boolean;
}

/**
 * Adds each command to lefthook's config, first among the hook's commands (or jobs), unless
 * the hook already runs it. Handles the `commands:` map and lefthook 1.10+'s `jobs:` list.
 */
export function mergeLefthook(existing: string, commands: LefthookCommand[], file: string): Merge {
  let lines = existing.split('\n');
  const notes: string[] = [];
  for (const cmd of commands) {
    const block = findBlock(lines, cmd.hook, 0);
    if (block !== null) {
      const runs = lines.slice(block.start + 1, block.end).some((l) => {
        const m = /^\s*-?\s*run:\s*(.*)$/.exec(l);
        return m !== null && runsSame(m[1]!.replace(/^["']|["']$/g, ''), cmd.run);
      });
      if (runs) continue;
    }
    lines = insertLefthook(lines, block, cmd);
    notes.push(`added the '${cmd.name}' command ('${cmd.run}'${cmd.useStdin ? ', use_stdin: true' : ''}) to ${file} ${cmd.hook}, first`);
  }
  if (notes.length === 0) return { text: null, notes };
  return { text: lines.join('\n'), notes };
}

function insertLefthook(lines: string[], block: Block | null, cmd: LefthookCommand): string[] {
  const fields = (pad: string) => [`${pad}run: ${cmd.run}`, ...(cmd.useStdin ? [`${pad}use_stdin: true`] : [])];
  if (block === null) {
    const body = [`${cmd.hook}:`, '  commands:', `    ${cmd.name}:`, ...fields('      ')];
    const trimmed = [...lines];
    while (trimmed.length > 0 && trimmed[trimmed.length - 1] === '') trimmed.pop();
    return [...trimmed, ...(trimmed.length > 0 ? [''] : []), ...body, ''];
  }
  const step = childIndent(lines, block) ?? 2;
  const pad = ' '.repeat(step);
  const commands = findBlock(lines, 'commands', step, block.start + 1, block.end);
  if (commands !== null) {
    const inner = childIndent(lines, commands) ?? step * 2;
    const entry = [`${' '.repeat(inner)}${cmd.name}:`, ...fields(' '.repeat(inner + step))];
    return [...lines.slice(0, commands.start + 1), ...entry, ...lines.slice(commands.start + 1)];
  }
  const jobs = findBlock(lines, 'jobs', step, block.start + 1, block.end);
  if (jobs !== null) {
    const first = lines.slice(jobs.start + 1, jobs.end).find((l) => !isBlankOrComment(l));
    const dash = first !== undefined && /^\s*-/.test(first) ? indentOf(first) : step * 2;
    const gap = first !== undefined ? (/^\s*-(\s+)/.exec(first)?.[1] ?? ' ') : ' ';
    const member = ' '.repeat(dash + 1 + gap.length);
    const entry = [`${' '.repeat(dash)}-${gap}name: ${cmd.name}`, ...fields(member)];
    return [...lines.slice(0, jobs.start + 1), ...entry, ...lines.slice(jobs.start + 1)];
  }
  // The hook has settings (parallel, scripts…) but no commands yet.
  const entry = [`${pad}commands:`, `${pad}${pad}${cmd.name}:`, ...fields(`${pad}${pad}${pad}`)];
  return [...lines.slice(0, block.start + 1), ...entry, ...lines.slice(block.start + 1)];
}

export interface PreCommitHook {
  id: string;
  name: string;
  entry: string;
  /** pre-commit's stage names as every version 2.x–4.x accepts them ('commit', 'push'). */
  stage: 'commit' | 'push';
}

/**
 * Adds a `repo: local` entry running the hooks (language: system, no filenames, always run,
 * verbose, so a passing hook's notices show)
 * as the first repository of .pre-commit-config.yaml, so they run before the project's own,
 * and makes `pre-commit install` install the pre-push hook too (default_install_hook_types).
 */
export function mergePreCommitConfig(existing: string, hooks: PreCommitHook[], file: string): Merge {
  let lines = existing.split('\n');
  const notes: string[] = [];
  const missing = hooks.filter((h) => !lines.some((l) => new RegExp(`^\\s*-?\\s*id:\\s*["']?${h.id}["']?\\s*(#.*)?$`).test(l)));
  if (missing.length > 0) {
    const repos = findBlock(lines, 'repos', 0);
    let dash = 0;
    let gap = ' ';
    if (repos !== null) {
      const first = lines.slice(repos.start + 1, repos.end).find((l) => !isBlankOrComment(l));
      if (first !== undefined && /^\s*-/.test(first)) {
        dash = indentOf(first);
        gap = /^\s*-(\s+)/.exec(first)?.[1] ?? ' ';
      }
    }
    const member = ' '.repeat(dash + 1 + gap.length);
    const hookMember = `${member}${' '.repeat(1 + gap.length)}`;
    const entry = [
      `${' '.repeat(dash)}-${gap}repo: local`,
      `${member}hooks:`,
      ...missing.flatMap((h) => [
        `${member}-${gap}id: ${h.id}`,
        `${hookMember}name: ${h.name}`,
        `${hookMember}entry: ${h.entry}`,
        `${hookMember}language: system`,
        `${hookMember}pass_filenames: false`,
        `${hookMember}always_run: true`,
        // The framework hides a passing hook's output (a hold's notice, a skip) unless verbose.
        `${hookMember}verbose: true`,
        `${hookMember}stages: [${h.stage}]`,
      ]),
    ];
    if (repos === null) {
      const trimmed = [...lines];
      while (trimmed.length > 0 && trimmed[trimmed.length - 1] === '') trimmed.pop();
      lines = [...trimmed, ...(trimmed.length > 0 ? [''] : []), 'repos:', ...entry, ''];
    } else {
      lines = [...lines.slice(0, repos.start + 1), ...entry, ...lines.slice(repos.start + 1)];
    }
    notes.push(`added a 'repo: local' entry with ${missing.map((h) => h.id).join(' and ')} (language: system) to ${file}, first`);
  }

  // `pre-commit install` installs only the hook types listed here (default: pre-commit).
  const types = lines.findIndex((l) => /^default_install_hook_types:/.test(l));
  if (types < 0) {
    lines = ['default_install_hook_types: [pre-commit, pre-push]', ...lines];
    notes.push(`set default_install_hook_types to [pre-commit, pre-push] in ${file} (so 'pre-commit install' installs the pre-push hook)`);
  } else {
    const line = lines[types]!;
    const inline = /^default_install_hook_types:\s*\[([^\]]*)\]/.exec(line);
    if (inline) {
      const listed = inline[1]!.split(',').map((t) => t.trim().replace(/^["']|["']$/g, '')).filter((t) => t !== '');
      const add = ['pre-commit', 'pre-push'].filter((t) => !listed.includes(t));
      if (add.length > 0) {
        lines[types] = `default_install_hook_types: [${[...listed, ...add].join(', ')}]`;
        notes.push(`added ${add.join(' and ')} to default_install_hook_types in ${file}`);
      }
    } else {
      const block = findBlock(lines, 'default_install_hook_types', 0);
      if (block === null) throw new ConfigShapeError('default_install_hook_types is neither a [...] list nor a block list');
      const items = lines.slice(block.start + 1, block.end).map((l) => /^\s*-\s*["']?([\w-]+)["']?/.exec(l)?.[1]).filter((t): t is string => !!t);
      const add = ['pre-commit', 'pre-push'].filter((t) => !items.includes(t));
      if (add.length > 0) {
        const first = lines.slice(block.start + 1, block.end).find((l) => /^\s*-/.test(l));
        const dash = first === undefined ? '  ' : ' '.repeat(indentOf(first));
        lines = [...lines.slice(0, block.end), ...add.map((t) => `${dash}- ${t}`), ...lines.slice(block.end)];
        notes.push(`added ${add.join(' and ')} to default_install_hook_types in ${file}`);
      }
    }
  }
  if (notes.length === 0) return { text: null, notes };
  return { text: lines.join('\n'), notes };
}
