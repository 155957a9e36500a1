// `receipt-gate policy enable SECTION [options]` — turns an evidence section of the policy on
// (epoch, manifest, freeze, observations, fixtures) with the documented defaults, or the paths
// given. The policy's text is edited in place (its indentation, member order and line ends
// kept; src/client/json-text.ts), the result must pass the policy's own validation
// (src/evidence/policy.ts), and running it again changes nothing. A policy with bounded
// contexts is edited only in the context named with --context.

import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseCommandArgs } from '../args';
import { commitHint, openAuthoring } from '../client/authoring';
import { toLf, withEol } from '../client/init';
import { memberOf, parseSpans, setMember, type JsonNode } from '../client/json-text';
import { today } from '../clock';
import { DEFAULT_EPOCH, DEFAULT_FIXTURES, DEFAULT_FREEZE, DEFAULT_MANIFEST, DEFAULT_OBSERVATIONS, parsePolicy } from '../evidence/policy';
import { OverlaySource } from '../client/overlay-source';
import { checkEvidence } from '../evidence/index';
import { POLICY_PATH } from '../evidence/types';
import { UsageError, type CliIO } from '../io';
import { sortFindings } from '../report/order';
import { findingLine } from '../report/text';
import { EXIT } from '../verdict';

const SECTIONS = ['epoch', 'manifest', 'freeze', 'observations', 'fixtures'] as const;
type Section = (typeof SECTIONS)[number];

const USAGE =
  'receipt-gate policy enable epoch|manifest|freeze|observations|fixtures [--pin PATH] [--path PATH] [--catalog PATH] ' +
  '[--dir DIR] [--freezes DIR] [--records GLOB] [--reason REASON]... [--max-days N] [--context NAME] [--now YYYY-MM-DD]';

const OPTIONS = {
  pin: { type: 'string', description: 'epoch: the pin file (default fixtures/EPOCH)' },
  path: { type: 'string', description: 'manifest: the manifest file (default checks/manifest.json); freeze: the freeze file (default freeze.json)' },
  catalog: { type: 'string', description: 'manifest: the catalog the manifest is drawn from (e.g. checks/properties.json; default: none)' },
  dir: { type: 'string', description: 'observations: the observations folder (default observations)' },
  freezes: { type: 'string', description: 'observations: the keyed-freeze folder (default freezes)' },
  records: { type: 'string', description: 'fixtures: the glob of the fixture records (default fixtures/*.json)' },
  reason: { type: 'string', multiple: true, description: 'freeze: a reason a freeze may give (repeatable; default timing, network, order, infra)' },
  'max-days': { type: 'string', description: 'freeze: the longest freeze window in days (default 14)' },
  context: { type: 'string', description: 'the bounded context to enable the section in (required when the policy declares contexts)' },
  now: { type: 'string', description: "today's date for checking the evidence under the new policy (default: RECEIPT_GATE_NOW, else the clock, UTC)" },
} as const;

/** Which options each section takes, as the member each sets. */
const MEMBERS: Record<Section, Record<string, string>> = {
  epoch: { pin: 'pin' },
  manifest: { path: 'path', catalog: 'catalog' },
  freeze: { path: 'path', reason: 'reasons', 'max-days': 'maxDays' },
  observations: { dir: 'dir', freezes: 'freezes' },
  fixtures: { records: 'records' },
};

const DEFAULTS: Record<Section, Record<string, unknown>> = {
  epoch: { ...DEFAULT_EPOCH },
  manifest: { ...DEFAULT_MANIFEST },
  freeze: { path: DEFAULT_FREEZE.path, reasons: DEFAULT_FREEZE.reasons, maxDays: DEFAULT_FREEZE.maxDays },
  observations: { ...DEFAULT_OBSERVATIONS },
  fixtures: { ...DEFAULT_FIXTURES },
};

/** The policy's members in the order the documentation writes them (a new section goes there). */
const ORDER = ['version', 'baseBranch', 'protectedRefs', 'name', 'root', 'protected', 'exceptions', 'owners', 'dependsOn', 'identityEnv', 'epoch', 'manifest', 'freeze', 'observations', 'fixtures', 'grader', 'contexts', 'limits'];

/** What the gate needs next once a section is on, for the closing findings it reports. */
const NEXT: Record<Section, string> = {
  epoch: "pin the generator: receipt-gate epoch pin --id ID --generator PATH",
  manifest: 'draw the manifest: receipt-gate manifest sample --seed N (with a catalog), or write it with its manifest_sha256',
  freeze: 'write the freeze file: {"version": 1, "frozen": []}',
  observations: 'record observations with receipt-gate observe',
  fixtures: 'record each fixture: receipt-gate fixture record ID --cmd "COMMAND" --input JSON',
};

export async function run(args: string[], io: CliIO): Promise<number> {
  const parsed = parseCommandArgs(args, OPTIONS, USAGE, io);
  if (!parsed) return 0;
  const { values, positionals } = parsed;
  if (positionals[0] !== 'enable' || positionals.length !== 2) throw new UsageError(`the subcommand is 'enable SECTION'\nusage: ${USAGE}`);
  const section = positionals[1] as Section;
  if (!SECTIONS.includes(section)) throw new UsageError(`SECTION is one of ${SECTIONS.join(', ')}, got '${positionals[1]}'\nusage: ${USAGE}`);
  const given: Record<string, unknown> = {};
  for (const [option, member] of Object.entries(MEMBERS[section])) {
    const v = (values as Record<string, unknown>)[option];
    if (v === undefined) continue;
    given[member] = option === 'max-days' ? days(v as string) : v;
  }
  const stray = Object.keys(MEMBERS).flatMap((s) => Object.keys(MEMBERS[s as Section])).find((o) => !(o in MEMBERS[section]) && (values as Record<string, unknown>)[o] !== undefined);
  if (stray !== undefined) throw new UsageError(`--${stray} is not an option of the ${section} section (it takes ${Object.keys(MEMBERS[section]).map((o) => `--${o}`).join(', ')})`);
  const date = today(io, values.now);

  const a = await openAuthoring(io, 'policy enable');
  try {
    const file = join(a.worktree.top, POLICY_PATH);
    const original = readFileSync(file, 'utf8');
    const { text, crlf } = toLf(original);
    const root = parseSpans(text);
    const target = targetObject(text, root, values.context);
    const current = memberOf(target.node, section);
    const currentValue = current === undefined ? undefined : (JSON.parse(text.slice(current.value.start, current.value.end)) as Record<string, unknown>);
    const wanted = { ...(currentValue ?? DEFAULTS[section]), ...given };
    const where = target.name === null ? POLICY_PATH : `context ${target.name} of ${POLICY_PATH}`;
    if (currentValue !== undefined && JSON.stringify(currentValue) === JSON.stringify(wanted)) {
      io.stdout(`the "${section}" section is already on in ${where} (${JSON.stringify(currentValue)}): nothing changed\n`);
      return EXIT.eligible;
    }
    if (section === 'observations' && memberOf(target.node, 'epoch') === undefined) {
      throw new UsageError(`the observations section needs the epoch section (observations and keyed freezes name the pinned epoch): run 'receipt-gate policy enable epoch${target.name === null ? '' : ` --context ${target.name}`}' first; nothing was written`);
    }
    const edited = setMember(text, target.node, section, wanted, ORDER);
    const reparsed = parsePolicy(Buffer.from(edited));
    if (!reparsed.ok) {
      throw new UsageError(`the policy would not be valid, nothing was written:\n${reparsed.findings.map((f) => `  ${findingLine(f)}`).join('\n')}`);
    }
    // The evidence under the new policy: what the gate will close on until the owner adds it.
    const policy = target.name === null ? reparsed.policy : reparsed.policy.contexts!.find((c) => c.name === target.name)!.policy;
    const view = new OverlaySource(a.tree);
    view.set(POLICY_PATH, Buffer.from(edited));
    const report = await checkEvidence({ policy, atNew: view, atBase: a.base, today: date });
    writeFileSync(file, withEol(edited, crlf));
    io.stdout(`${current === undefined ? 'enabled' : 'changed'} the "${section}" section in ${where}: ${JSON.stringify(wanted)}${current === undefined ? '' : ` (was ${JSON.stringify(currentValue)})`}\n`);
    const closing = sortFindings(report.findings.filter((f) => f.severity === 'closed'));
    if (closing.length > 0) {
      io.stdout(`  the gate closes on these until the evidence is in place (${NEXT[section]}); commit them together:\n`);
      for (const f of closing) io.stdout(`    ${findingLine(f)}\n`);
    }
    io.stdout(commitHint(reparsed.policy, [POLICY_PATH]));
    return EXIT.eligible;
  } finally {
    a.close();
  }
}

/** The object the section goes in: the policy, or with --context NAME that context's object. A
 * policy with contexts is refused without --context. */
function targetObject(text: string, root: JsonNode, context: string | undefined): { node: JsonNode; name: string | null } {
  const contexts = memberOf(root, 'contexts')?.value;
  if (contexts === undefined) {
    if (context !== undefined) throw new UsageError(`--context ${context}: ${POLICY_PATH} declares no bounded contexts`);
    return { node: root, name: null };
  }
  const names = contexts.items.map((item) => {
    const name = memberOf(item, 'name');
    return name === undefined ? '' : (JSON.parse(text.slice(name.value.start, name.value.end)) as string);
  });
  if (context === undefined) {
    throw new UsageError(`${POLICY_PATH} declares bounded contexts (${names.join(', ')}): name the one to enable the section in with --context NAME`);
  }
  const i = names.indexOf(context);
  if (i < 0) throw new UsageError(`--context ${context}: ${POLICY_PATH} declares no such context (it declares ${names.join(', ')})`);
  return { node: contexts.items[i]!, name: context };
}

function days(text: string): number {
  if (!/^\d{1,4}$/.test(text)) throw new UsageError(`--max-days must be a whole number of days, got '${text}'`);
  return Number(text);
}
