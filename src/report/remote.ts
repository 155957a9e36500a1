// What the person (or agent) at the other end of `git push` reads, as `remote:` lines. Pure:
// a push decision in (src/decision.ts, made by src/server/decide.ts), its text out, so tests can
// drive it directly. Nothing here decides: each ref's outcome and the push's are the decision's.
//
// Shape of a rejection (one screen at most, then the machine line):
//   receipt-gate: push REJECTED: ... (the verdict, the pusher)
//     per ref: what the update does and its outcome
//     per finding: rule, ref, short commit, path; what is wrong; what to do instead
//     "... and N more <RULE> findings: path, path, ..." when one kind repeats
//   receipt-gate: {"verdict": ..., "blocked_paths": [...], ...}
//
// Every path is quoted as git quotes it and every other text made printable, so no byte of a
// pushed name can start a `remote:` line of its own.

import { resolve } from 'node:path';
import type { PushDecision, RefDecision } from '../decision';
import type { ContextVerdict } from '../results';
import type { Finding } from '../findings';
import { printable, quotePath, quoteRefName } from '../quote';
import { ZERO_OID } from '../types';
import { machineLine } from './machine';
import { sortFindings } from './order';
import { clipped, clippedName, plural, short } from '../wording';
import { humanFix, humanMessage } from './human';
import { allIdentityLines } from './identities';

/** The printed answer: whether git is told to accept, and the lines (without the GitLab
 * prefix). The last line is the machine line, except for an unguarded repository's notice. */
export interface RemoteAnswer {
  accepted: boolean;
  lines: string[];
}

export interface MessageOptions {
  /** Most lines before the machine line (a terminal screen, less the lines git adds). */
  maxLines?: number;
  /** Findings of one rule shown in full before the rest become one summary line. */
  perKind?: number;
}

const DEFAULT_MAX_LINES = 20;
const DEFAULT_PER_KIND = 3;
const SUMMARY_WIDTH = 160;
/** Answers are bounded whatever the input (docs/contract.md §6 Time): a ref name or path is
 * shown with at most NAME_MAX characters, any other line (the machine line has its own bound,
 * src/report/machine.ts) with at most LINE_MAX, each followed by its whole length when cut. */
const NAME_MAX = 200;
const LINE_MAX = 960;
/** The identity lines an answer carries at most (a witness per line). */
const IDENTITY_LINES = 6;

/** A ref name as the text shows it: without refs/heads/ or refs/tags/, quoted, cut. */
function refText(ref: string): string {
  return clippedName(ref.replace(/^refs\/(heads|tags)\//, ''), NAME_MAX, quoteRefName);
}

function pathText(path: string): string {
  return clippedName(path, NAME_MAX, quotePath);
}

/** The answer to a decided push: the lines git shows, the machine line last. */
export function remoteAnswer(decision: PushDecision, options: MessageOptions = {}): RemoteAnswer {
  return { accepted: decision.accepted, lines: remoteLines(decision, options) };
}

export function remoteLines(decision: PushDecision, options: MessageOptions = {}): string[] {
  const { result, accepted } = decision;
  if (decision.refs.length === 0) return []; // nothing was pushed: nothing to say
  const pusher = result.identity !== null ? printable(result.identity) : 'nobody (no identity variable set)';

  if (decision.unguarded) {
    return [
      clipped(`receipt-gate: notice: this repository is unguarded (no .receipt-gate.json on ${result.baseName ? `${quotePath(result.baseName.replace(/^refs\/heads\//, ''))}, the branch HEAD names` : 'its default branch'}); push accepted without checks`, LINE_MAX),
    ];
  }

  const lines: string[] = [];
  const rejected = decision.refs.filter((d) => d.outcome === 'rejected');
  const commits = new Set(result.refs.flatMap((r) => r.newCommits)).size;
  const scope = `${plural(result.refs.length, 'ref')}, ${plural(commits, 'new commit')}, pusher ${pusher}`;
  if (!accepted) {
    const why = rejected.every((d) => d.reason === 'hold-protected')
      ? `hold on a protected ref (a frozen flake waits for an owner: ${ownersOf(decision)})`
      : result.verdict;
    lines.push(`receipt-gate: push REJECTED: ${why} (${scope}); git refuses every ref of this push`);
  } else if (decision.refs.some((d) => d.outcome === 'notice')) {
    lines.push(`receipt-gate: push accepted with a notice: hold (${scope}); ${noticeText(decision)}`);
  } else {
    lines.push(`receipt-gate: push accepted: eligible (${scope})`);
  }

  lines.push(...refLines(decision));

  const shown = sortFindings(result.findings).filter((f) => f.severity !== 'info');
  const info = result.findings.filter((f) => f.severity === 'info');
  const identities = identityText(decision);
  const budget = (options.maxLines ?? DEFAULT_MAX_LINES) - lines.length - (info.length ? 1 : 0) - identities.length;
  lines.push(...remoteFindingLines(shown, budget, options.perKind ?? DEFAULT_PER_KIND));
  if (info.length) lines.push(`  info: ${countByCode(info)} (not blocking)`);
  lines.push(...identities);
  // Every line but the machine line within LINE_MAX (messages and fixes may carry a name).
  return [...lines.map((l) => clipped(l, LINE_MAX)), machineLine(result, { recommendedAction: holdAction(decision) })];
}

/** The three identities the refs were judged with (epoch id, manifest digest, each witness
 * digest; per context with bounded contexts), as in every text log (src/report/identities.ts):
 * the same block once however many refs share it, and at most IDENTITY_LINES lines. */
function identityText(decision: PushDecision): string[] {
  const seen = new Set<string>();
  const lines: string[] = [];
  // Refs judged on one tree share its evidence report: format each report's identities once
  // (a push of 50,000 tags at one commit formats one block, not 50,000).
  const formatted = new Set<object>();
  for (const r of decision.result.refs) {
    const source: object = r.contexts ?? r.identities;
    if (formatted.has(source)) continue;
    formatted.add(source);
    for (const line of allIdentityLines(r.identities, r.contexts)) {
      if (seen.has(line)) continue;
      seen.add(line);
      lines.push(`  ${line}`);
    }
  }
  if (lines.length <= IDENTITY_LINES) return lines;
  return [...lines.slice(0, IDENTITY_LINES - 1), `  ... and ${plural(lines.length - IDENTITY_LINES + 1, 'more identity line')} (verify-ref --json lists them all)`];
}

function ownersOf(decision: PushDecision): string {
  return decision.holdOwners.length ? decision.holdOwners.map((o) => printable(o)).join(', ') : 'nobody (the policy lists no owners)';
}

/** What an accepted push with a hold says after its first line. */
function noticeText(decision: PushDecision): string {
  if (decision.refs.some((d) => d.reason === 'hold-owner')) {
    return `accepted on a protected ref as an owner's push, the human decision a hold asks for (the witness stays; lift the freeze when the flake is gone)`;
  }
  return `a non-owner's update of a protected ref would be refused (only ${ownersOf(decision)} may make it)`;
}

/** The machine line's recommended action when a hold decided the push; undefined otherwise
 * (the result's own). */
function holdAction(decision: PushDecision): string | undefined {
  if (decision.result.verdict !== 'hold') return undefined;
  if (!decision.accepted) {
    return `a witnessed flake is frozen: only ${ownersOf(decision)} may update protected refs while it holds; push to a work branch instead (other refs are accepted)`;
  }
  if (decision.refs.some((d) => d.reason === 'hold-owner')) return "none: accepted as an owner's push, the human decision a hold asks for";
  return undefined;
}

/** Each bounded context's verdict for a ref, e.g. `billing closed, inventory eligible (untouched)`. */
export function contextsText(contexts: readonly ContextVerdict[]): string {
  return `contexts: ${contexts.map((c) => `${c.name} ${c.verdict}${c.touched ? '' : ' (untouched)'}`).join(', ')}`;
}

function refLines(decision: PushDecision): string[] {
  const describe = ({ ref, outcome, reason }: RefDecision): string => {
    const { old, new: next } = ref.update;
    const action =
      next === ZERO_OID ? `delete (was ${short(old)})` : old === ZERO_OID ? `create at ${short(next)}` : `update ${short(old)}..${short(next)}`;
    const state =
      outcome === 'rejected'
        ? reason === 'log'
          ? 'REJECTED: the push log could not record it'
          : `REJECTED: ${ref.verdict}${ref.isProtectedRef ? ' on a protected ref' : ''}`
        : outcome === 'notice'
          ? reason === 'hold-owner'
            ? 'accepted with a notice: hold, on a protected ref as an owner'
            : 'accepted with a notice: hold'
          : 'ok';
    return `  ${clippedName(ref.update.ref, NAME_MAX, quoteRefName)} ${action}: ${state}${ref.contexts ? `; ${contextsText(ref.contexts)}` : ''}`;
  };
  // On a busy push, name the refs that matter and count the rest.
  const refs = decision.refs;
  const important = refs.filter((d) => d.outcome !== 'accepted');
  if (refs.length <= 4) return refs.map(describe);
  const rest = refs.length - important.length;
  const lines = important.slice(0, 4).map(describe);
  const hidden = important.length - Math.min(important.length, 4);
  if (hidden > 0) lines.push(`  ... and ${plural(hidden, 'more ref')} refused or on hold`);
  if (rest > 0) lines.push(`  ... and ${plural(rest, 'other ref')} ${decision.accepted ? 'ok' : 'fine on their own'}`);
  return lines;
}

/** Findings in full (rule, ref, commit, path; message; fix), grouped by rule. A rule with more
 * than `perKind` findings shows `perKind - 1` and one summary line naming the other paths.
 * When the screen runs out, the remaining rules become one line each, then one line in all. */
export function remoteFindingLines(findings: readonly Finding[], budget: number, perKind: number): string[] {
  // Grouped by rule within each bounded context (a policy without contexts has one).
  const groups = new Map<string, Finding[]>();
  for (const f of findings) {
    const key = f.context === undefined ? f.code : `${f.context}\0${f.code}`;
    const group = groups.get(key) ?? [];
    group.push(f);
    groups.set(key, group);
  }
  const out: string[] = [];
  const codes = [...groups.keys()];
  for (let i = 0; i < codes.length; i++) {
    const group = groups.get(codes[i]!)!;
    const left = budget - out.length;
    const rulesAfter = codes.length - i - 1;
    // Keep one line for each later rule (or one for all of them).
    const reserve = Math.min(rulesAfter, 1);
    const available = left - reserve;
    if (available < 1) {
      out.push(summaryOfRest(codes.slice(i).flatMap((c) => groups.get(c)!)));
      return out;
    }
    const detailedMax = group.length > perKind ? perKind - 1 : group.length;
    let detailed = Math.min(detailedMax, Math.floor(available / 3));
    // Findings not shown in full need their summary line within the budget too.
    if (detailed < group.length && detailed * 3 + 1 > available) detailed = Math.floor((available - 1) / 3);
    for (const f of group.slice(0, detailed)) out.push(...detailLines(f));
    const rest = group.slice(detailed);
    if (rest.length) out.push(summaryLine(rest, group.slice(0, detailed)));
  }
  return out;
}

function detailLines(f: Finding): string[] {
  const where = [f.context !== undefined ? `[${f.context}]` : null, f.ref ? refText(f.ref) : null, f.commit ? short(f.commit) : null, f.path !== undefined ? pathText(f.path) : null]
    .filter((x): x is string => x !== null)
    .join(' ');
  return [`  ${f.code} ${where}`, `    ${humanMessage(f)}`, `    what to do: ${humanFix(f)}`];
}

function summaryLine(rest: Finding[], shown: Finding[]): string {
  const more = shown.length > 0;
  const code = rest[0]!.context === undefined ? rest[0]!.code : `[${rest[0]!.context}] ${rest[0]!.code}`;
  const paths = [...new Set(rest.map((f) => (f.path !== undefined ? pathText(f.path) : f.ref ? refText(f.ref) : '')).filter(Boolean))];
  const head = `  ${more ? '... and ' : ''}${plural(rest.length, `${more ? 'more ' : ''}${code} finding`)}`;
  const fixes = [...new Set(rest.map(humanFix))];
  const sameAsShown = more && fixes.every((x) => shown.some((f) => humanFix(f) === x));
  const fix = sameAsShown
    ? 'the same as above'
    : fixes.length <= 2
      ? fixes.join(' / ')
      : `${fixes[0]} (and ${fixes.length - 1} other fixes)`;
  return `${head}: ${listWithin(paths, SUMMARY_WIDTH)}; what to do: ${fix}`;
}

function summaryOfRest(rest: Finding[]): string {
  return `  ... and ${plural(rest.length, 'more finding')}: ${countByCode(rest)} (all listed in the line below)`;
}

function countByCode(findings: readonly Finding[]): string {
  const counts = new Map<string, number>();
  for (const f of findings) counts.set(f.code, (counts.get(f.code) ?? 0) + 1);
  return [...counts].map(([code, n]) => `${code} x${n}`).join(', ');
}

function listWithin(items: string[], width: number): string {
  const out: string[] = [];
  let used = 0;
  for (let i = 0; i < items.length; i++) {
    const item = items[i]!;
    if (used + item.length + 2 > width && out.length > 0) {
      out.push(`... (${items.length - i} more)`);
      break;
    }
    out.push(item);
    used += item.length + 2;
  }
  return out.join(', ');
}

/** The text git shows as `remote:` lines. GitLab shows hook output in its web UI only when
 * each line carries `GL-HOOK-ERR:`; it is added to every line of a rejection there. */
export function remoteText(answer: RemoteAnswer, env: NodeJS.ProcessEnv): string {
  const prefix = env.GL_PROTOCOL && !answer.accepted ? 'GL-HOOK-ERR: ' : '';
  return answer.lines.map((l) => `${prefix}${withoutServerPaths(l, env)}\n`).join('');
}

/**
 * `text` with the server's own directories taken out: the quarantine git receives the push
 * into (GIT_QUARANTINE_PATH, GIT_OBJECT_DIRECTORY) and the repository's path (GIT_DIR) are
 * the server's business, not the pusher's; an error that names an object file there says
 * "the quarantine" instead.
 */
export function withoutServerPaths(text: string, env: NodeJS.ProcessEnv): string {
  const places: [string | undefined, string][] = [
    [env.GIT_QUARANTINE_PATH, '<quarantine>'],
    [env.GIT_OBJECT_DIRECTORY, '<quarantine>'],
    [env.GIT_DIR && env.GIT_DIR !== '.' ? env.GIT_DIR : undefined, '<repository>'],
    // The repository's absolute path: a hook runs with GIT_DIR relative to it (often '.').
    [env.GIT_DIR ? resolve(env.GIT_DIR) : undefined, '<repository>'],
  ];
  let out = text;
  // Longest first: the quarantine lies inside the repository.
  for (const [dir, name] of places.filter((p): p is [string, string] => !!p[0] && p[0].length > 1).sort((a, b) => b[0].length - a[0].length)) {
    out = out.split(dir).join(name);
  }
  return out;
}
