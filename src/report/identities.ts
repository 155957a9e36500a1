// The three identities of a run as text lines, for every text log (verify-ref, receipt, the
// server's remote: answer): the epoch id, the manifest digest and each witness digest, so a
// reviewer compares two logs without re-running anything. With bounded contexts, one block per
// context that read evidence, each line tagged with the context's name. Values read from the
// tree (epoch ids, observation ids) are made printable: nothing can forge a line.

import type { Identities } from '../findings';
import { printable } from '../quote';

/** Whether the run read any of the three identities (or a freeze file's digest). */
export function hasIdentities(identities: Identities | null | undefined): identities is Identities {
  return (
    identities !== null &&
    identities !== undefined &&
    (identities.epoch_id !== null || identities.manifest_sha256 !== null || Object.keys(identities.witnesses).length > 0)
  );
}

/**
 * `identities[ [CONTEXT]]: epoch ID, manifest sha256 HEX, N witnesses` and one
 * `  witness ID sha256 HEX` line per witness, sorted by observation id. Digests are written in
 * full. Nothing when the run read none of them.
 */
export function identityLines(identities: Identities | null | undefined, context?: string): string[] {
  if (!hasIdentities(identities)) return [];
  const tag = context === undefined ? '' : ` [${printable(context)}]`;
  const witnesses = Object.entries(identities.witnesses).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const head = [
    `epoch ${identities.epoch_id === null ? '(none)' : printable(identities.epoch_id)}`,
    `manifest sha256 ${identities.manifest_sha256 ?? '(none)'}`,
    `${witnesses.length} witness${witnesses.length === 1 ? '' : 'es'}`,
  ].join(', ');
  return [`identities${tag}: ${head}`, ...witnesses.map(([id, sha256]) => `  witness ${printable(id)} sha256 ${sha256}`)];
}

/** The repository's identities, then each context's (those that read evidence), as identityLines. */
export function allIdentityLines(identities: Identities | null | undefined, contexts: readonly { name: string; identities?: Identities }[] = []): string[] {
  return [...identityLines(identities), ...contexts.flatMap((c) => identityLines(c.identities, c.name))];
}
