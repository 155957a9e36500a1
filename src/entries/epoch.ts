// `receipt-gate epoch pin --id ID [--generator PATH] [--input PATH]...` — writes the epoch pin
// (policy.epoch.pin, e.g. fixtures/EPOCH) with the SHA-256 of the generator's blob as git
// stores it: the staged blob, which is what the next commit holds (eol and clean filters
// applied), never the checked-out bytes. Refuses to give an existing epoch_id a new digest: a
// new generator is a new epoch.

import { parseCommandArgs } from '../args';
import { checkPlanned, commitHint, openAuthoring, printRefusal, scopeName, writePlanned, type Authoring } from '../client/authoring';
import { runGit } from '../client/git-cli';
import { IndexSource } from '../client/index-source';
import { jsonText } from '../client/templates';
import { today } from '../clock';
import { Deadline } from '../deadline';
import { readPin } from '../evidence/epoch';
import type { EpochPin } from '../evidence/types';
import { validateAgainst } from '../evidence/schema';
import { TreeSource } from '../evidence/tree-source';
import { MAX_BLOB_BYTES, type EvidenceSource } from '../evidence/types';
import { indexFilePath, readStagedIndex } from '../git/staged-index';
import { sha256Hex } from '../hash';
import { UsageError, type CliIO } from '../io';
import { EXIT } from '../verdict';

const USAGE = 'receipt-gate epoch pin --id ID [--generator PATH] [--input PATH]... [--context NAME] [--now YYYY-MM-DD]';

export async function run(args: string[], io: CliIO): Promise<number> {
  const parsed = parseCommandArgs(
    args,
    {
      id: { type: 'string', description: "the new epoch's name (an epoch_id never gets a new digest)" },
      generator: { type: 'string', description: 'the fixture generator to pin, as staged in the index (default: the one the pin names)' },
      input: { type: 'string', multiple: true, description: 'an input of the generator the pin records (repeatable; recorded, not checked)' },
      context: { type: 'string', description: 'the bounded context whose epoch pin is written' },
      now: { type: 'string', description: "today's date for checking the pin with the gate's rules (default: RECEIPT_GATE_NOW, else the clock, UTC)" },
    },
    USAGE,
    io,
  );
  if (!parsed) return 0;
  const { values, positionals } = parsed;
  if (positionals.length !== 1 || positionals[0] !== 'pin') throw new UsageError(`the subcommand is 'pin'\nusage: ${USAGE}`);
  const id = values.id;
  if (id === undefined || id === '') throw new UsageError(`--id ID is required (a new name for this epoch)\nusage: ${USAGE}`);
  const date = today(io, values.now);

  const a = await openAuthoring(io, 'epoch pin', {
    context: values.context,
    paths: values.generator === undefined ? [] : [values.generator],
    needs: (p) => p.epoch !== undefined,
    what: '"epoch" section',
  });
  try {
    return await pin(a, io, { id, generator: a.resolve(values.generator), inputs: (values.input as string[] | undefined)?.map((p) => a.resolve(p)), date });
  } finally {
    a.close();
  }
}

async function pin(
  a: Authoring,
  io: CliIO,
  opts: { id: string; generator?: string; inputs?: string[]; date: string },
): Promise<number> {
  if (!a.policy.epoch) {
    throw new UsageError(`${scopeName(a)} has no "epoch" section; an owner adds "epoch": {"pin": "fixtures/EPOCH"} to ${a.context === null ? '' : `context ${a.context.name} in `}.receipt-gate.json first`);
  }
  const pinPath = a.policy.epoch.pin;
  const current = (await readPin(a.tree, pinPath, a.policy, Deadline.never())).pin;
  const generator = opts.generator ?? current?.generator;
  if (generator === undefined) {
    throw new UsageError(`name the generator with --generator PATH (${pinPath} does not exist yet to take it from)`);
  }
  const inputs = opts.inputs ?? (opts.generator === undefined || opts.generator === current?.generator ? current?.inputs : undefined) ?? [];

  // The blob git will commit: the staged one. Unstaged edits would make the pin lie.
  const index = await readStagedIndex(indexFilePath(a.worktree.gitdir, io.env, io.cwd));
  const staged = new IndexSource(a.store, index.entries);
  const entry = await staged.stat(generator);
  if (entry.kind === 'missing') {
    throw new UsageError(`${generator} is not in the index; 'git add ${generator}' first (the pin hashes the blob git stores)`);
  }
  if (entry.kind !== 'file') throw new UsageError(`${generator} is a ${entry.what} in the index, not a file`);
  if (entry.size > MAX_BLOB_BYTES) throw new UsageError(`${generator} is ${entry.size} bytes, over the ${MAX_BLOB_BYTES}-byte limit for a generator`);
  const dirty = runGit(['diff', '--quiet', '--', generator], a.worktree.top, io.env);
  if (dirty.status !== 0) {
    throw new UsageError(`${generator} has unstaged changes; 'git add ${generator}' (or restore it) and run again, so the pin names the blob that will be committed`);
  }
  const digest = sha256Hex(await entry.read());

  // An epoch_id names one generator for ever: compare with every pin this clone knows.
  const known: [string, EvidenceSource | null][] = [
    ['the working tree', a.tree],
    ['the staged index', staged],
    ['HEAD', await headSource(a)],
    [a.base?.label ?? 'the base', a.base],
  ];
  for (const [where, source] of known) {
    if (source === null) continue;
    const there = (await readPin(source, pinPath, a.policy, Deadline.never())).pin;
    if (there && there.epoch_id === opts.id && there.generator_sha256 !== digest) {
      io.stderr(
        `receipt-gate epoch pin: nothing written; epoch ${opts.id} is already pinned to ${there.generator_sha256} in ${where}, ` +
          `and ${generator} now hashes to ${digest}. A new generator is a new epoch: pin it under a new --id.\n`,
      );
      return EXIT.closed;
    }
  }

  const record: EpochPin = { epoch_id: opts.id, generator, generator_sha256: digest, inputs };
  const problems = validateAgainst('epoch-pin.schema.json', record);
  if (problems.length > 0) {
    throw new UsageError(`the pin would not be valid: ${problems.map((p) => `at ${p.pointer || '/'}: ${p.message}`).join('; ')}`);
  }
  const bytes = Buffer.from(jsonText(record));
  const { refused } = await checkPlanned(a, staged, [{ path: pinPath, bytes }], opts.date, { alsoJudged: [generator] });
  if (refused.length > 0) {
    printRefusal(io, 'epoch pin', refused);
    return EXIT.closed;
  }
  writePlanned(a, [{ path: pinPath, bytes }]);
  io.stdout(`wrote ${pinPath}: epoch ${opts.id}, ${generator} sha256 ${digest}\n`);
  io.stdout(commitHint(a.policy, [pinPath]));
  return EXIT.eligible;
}

async function headSource(a: Authoring): Promise<TreeSource | null> {
  const head = a.store.refs.resolve('HEAD');
  if (head === null) return null;
  const { tree } = await a.store.commits.read(await a.store.commits.peelToCommit(head));
  return new TreeSource(a.store, tree, 'HEAD');
}
