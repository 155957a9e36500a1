// Every option in every `--help` has a one-line description. The commands are the CLI's own:
// the registry (src/cli.ts COMMANDS), checked against what `receipt-gate --help` lists, so a
// command added to either is covered here without editing this file.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { COMMANDS, main } from '../../src/cli';
import { bufferedIO } from '../../src/io';
import { tempDir } from '../helpers/git';

async function help(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const b = bufferedIO({ env: { ...process.env, RECEIPT_GATE_NOW: '2026-12-04' }, cwd: tempDir('help') });
  const code = await main(args, b.io);
  return { code, stdout: b.stdout(), stderr: b.stderr() };
}

/** The command names `receipt-gate --help` lists: the indented lines between the usage line
 * and the exit codes, each `  NAME   summary`. */
function listedCommands(text: string): string[] {
  const body = text.split('\n\n').find((block) => block.split('\n').every((l) => /^ {2}[a-z][a-z-]* {2,}\S/.test(l)));
  assert.ok(body, `receipt-gate --help has a block of commands:\n${text}`);
  return body!.split('\n').map((l) => l.trim().split(/\s+/)[0]!);
}

/** One option line of a command's help: `  [-x, ]--name[ PLACEHOLDER]   description`. */
const OPTION_LINE = /^ {2}(?:-[a-zA-Z], )?--([a-z][a-z0-9-]*)(?: (\S+))? {3}(\S.*)$/;

test('receipt-gate --help lists exactly the commands of the registry', async () => {
  const top = await help(['--help']);
  assert.is(top.code, 0, top.stderr);
  assert.equal(listedCommands(top.stdout).sort(), Object.keys(COMMANDS).sort());
});

test('every option of every command has a one-line description, and its placeholder is the usage\'s', async () => {
  const commands = listedCommands((await help(['--help'])).stdout);
  assert.ok(commands.length >= 20, commands.join(' '));
  for (const command of commands) {
    const r = await help([command, '--help']);
    assert.is(r.code, 0, `${command} --help: ${r.stderr}`);
    const [usage, options] = r.stdout.split('\noptions:\n');
    assert.ok(options !== undefined, `${command} --help has an options list:\n${r.stdout}`);
    const lines = options!.split('\n').filter((l) => l !== '');
    assert.ok(lines.length >= 1, `${command}: no options listed`);
    const names: string[] = [];
    for (const line of lines) {
      const m = OPTION_LINE.exec(line);
      assert.ok(m, `${command} --help: '${line}' is not '--option[ VALUE]   description'`);
      const [, name, placeholder, description] = m!;
      names.push(name!);
      assert.ok(description!.trim().length >= 8, `${command} --${name}: the description '${description}' says nothing`);
      assert.not.ok(description!.includes('\n'));
      if (placeholder !== undefined) {
        // The placeholder is the word the usage writes after the flag, whole (never 'FILE.'
        // cut from 'FILE.json', never VALUE when the usage names one).
        assert.not.match(placeholder, /\.$/, `${command} --${name} ${placeholder}`);
        const written = new RegExp(`--${name}[ =](\\S+)`).exec(usage!);
        if (written) assert.ok(written[1]!.replace(/[\])]+(\.\.\.)?$/, '') === placeholder, `${command} --${name}: usage writes '${written[1]}', help '${placeholder}'`);
        else assert.is(placeholder, 'VALUE', `${command} --${name}`);
      }
    }
    assert.ok(names.includes('help'), `${command} --help lists --help`);
    assert.is(new Set(names).size, names.length, `${command}: an option listed twice`);
  }
});

test('freeze --help describes --out with its whole placeholder', async () => {
  const r = await help(['freeze', '--help']);
  const out = r.stdout.split('\n').find((l) => /^ {2}--out /.test(l));
  assert.ok(out, r.stdout);
  assert.match(out!, /^ {2}--out FILE\.json {3}review: \S/);
});

test.run();
