// `receipt-gate codeowners [--check] [--write]` — the review lock on the forge
// (src/client/codeowners.ts): the marked block of CODEOWNERS that asks the policy's owners to
// review every path the gate protects, in the file each forge reads. Without a flag, shows what
// --write would write; --write writes it (text outside the markers is kept); --check exits 1
// when the files and the policy disagree.

import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { parseCommandArgs } from '../args';
import { commitHint, openAuthoring } from '../client/authoring';
import { codeownersDisagreement, planCodeowners } from '../client/codeowners';
import { toLf, withEol } from '../client/init';
import { UsageError, type CliIO } from '../io';
import { EXIT } from '../verdict';

const USAGE = 'receipt-gate codeowners [--check] [--write]';

const OPTIONS = {
  check: { type: 'boolean', description: 'exit 1 when the CODEOWNERS block the forges read disagrees with the policy (or is missing)' },
  write: { type: 'boolean', description: 'write the block into the CODEOWNERS file each forge reads (text outside the markers is kept)' },
} as const;

export async function run(args: string[], io: CliIO): Promise<number> {
  const parsed = parseCommandArgs(args, OPTIONS, USAGE, io);
  if (!parsed) return 0;
  const { values, positionals } = parsed;
  if (positionals.length > 0) throw new UsageError(`codeowners takes no arguments, got '${positionals[0]}'\nusage: ${USAGE}`);
  if (values.check && values.write) throw new UsageError(`--check and --write are one or the other\nusage: ${USAGE}`);
  const a = await openAuthoring(io, 'codeowners');
  try {
    const top = a.worktree.top;
    const read = (path: string): string | null => {
      const file = join(top, path);
      return existsSync(file) && statSync(file).isFile() ? toLf(readFileSync(file, 'utf8')).text : null;
    };
    if (values.check) {
      const problems = codeownersDisagreement(a.repository, read, false);
      for (const p of problems) io.stderr(`receipt-gate codeowners: ${p}\n`);
      if (problems.length > 0) return EXIT.closed;
      io.stdout('receipt-gate codeowners: the CODEOWNERS block each forge reads agrees with the policy\n');
      return EXIT.eligible;
    }
    let planned;
    try {
      planned = planCodeowners(a.repository, read);
    } catch (err) {
      throw new UsageError(`${(err as Error).message}; nothing was written`);
    }
    if (planned.problem !== null) throw new UsageError(planned.problem);
    for (const note of planned.notes) io.stdout(`${note}\n`);
    const changed = planned.files.filter((f) => f.text !== f.before);
    if (changed.length === 0) {
      io.stdout('the CODEOWNERS block is up to date: nothing changed\n');
      return EXIT.eligible;
    }
    if (!values.write) {
      for (const f of changed) io.stdout(`\n${f.path} would read (run with --write):\n${f.text}`);
      return EXIT.eligible;
    }
    for (const f of changed) {
      const file = join(top, f.path);
      mkdirSync(dirname(file), { recursive: true });
      const crlf = existsSync(file) && /\r\n/.test(readFileSync(file, 'utf8'));
      writeFileSync(file, withEol(f.text, crlf));
      io.stdout(`wrote the receipt-gate block in ${f.path} (read by ${f.forges.join(', ')})\n`);
    }
    io.stdout(commitHint(a.repository, changed.map((f) => f.path)));
    return EXIT.eligible;
  } finally {
    a.close();
  }
}
